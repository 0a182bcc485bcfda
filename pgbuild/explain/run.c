/*
 * explain/run.c - explain from start to end for its callers (`pgbuild
 * explain`, the gate): both sides loaded, their callgrind outputs read,
 * the rows computed and the JSON document written; see explain.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/explain/explain.h"
#include "pgbuild/pgbuild.h"
#include "wrapper/common/safefs.h"

/* error() unless quiet: the gate's own floor may lack a workload's
 * functions, which only leaves the spread out. */
#define noise_error(quiet, ...) ((quiet) ? -1 : error(__VA_ARGS__))

/*
 * The part of a noise document with workload's "functions": the document
 * itself (one workload), or its workloads.W (`pgbuild noise`'s
 * PREFIX/pgopt-noise.json, one per workload).  NULL after an error
 * (printed unless quiet).
 */
static const struct json_value *noise_part(const struct json_value *v, const char *path,
					   const char *workload, int quiet)
{
	const struct json_value *part = v, *fns;
	if (!json_get(v, "functions") && json_get(v, "workloads")) {
		if (!workload) {
			noise_error(quiet, "--noise \"%s\" holds one spread per workload: name the workload "
			      "(-W)", path);
			return NULL;
		}
		part = json_get(json_get(v, "workloads"), workload);
		if (!part) {
			noise_error(quiet, "--noise \"%s\": no workload \"%s\" in it (pgbuild noise -W %s "
			      "measures one)", path, workload, workload);
			return NULL;
		}
	}
	fns = json_get(part, "functions");
	if (!fns || fns->type != JSON_ARRAY) {
		noise_error(quiet, "--noise \"%s\": no \"functions\" array%s%s (a noise run measures them "
		      "with the cycles estimate on 2 or more variants)", path,
		      part != v ? " for workload " : "", part != v ? workload : "");
		return NULL;
	}
	return part;
}

/* The --noise document, parsed and checked; NULL after an error
 * (printed unless quiet). */
static struct json_value *load_noise(const char *path, int quiet)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	struct json_value *v = NULL;
	const char *kind;
	if (sfs_read(AT_FDCWD, path, SFS_IN_JSON, 0, &sb, &err) < 0) {
		noise_error(quiet, "--noise: %s", err.buf);
		goto out;
	}
	if (!(v = json_parse(sb.buf, sb.len, &err))) {
		noise_error(quiet, "--noise \"%s\": %s", path, err.buf);
		goto out;
	}
	kind = json_get_str(v, "kind");
	if (!kind || strcmp(kind, "pgbuild-noise")) {
		noise_error(quiet, "--noise \"%s\": not a pgbuild-noise document (a \"kind\": \"pgbuild-noise\" "
		      "object with a \"functions\" array, or pgbuild noise's document with one "
		      "per workload)", path);
		json_free(v);
		v = NULL;
	}
out:
	strbuf_release(&sb);
	strbuf_release(&err);
	return v;
}

int explain_run(const struct explain_inputs *in, struct strbuf *out)
{
	struct explain_side sides[2];
	struct explain_result r;
	struct json_value *noise = NULL;
	const struct json_value *part = NULL;
	const char *paths[2] = { in->baseline, in->candidate };
	int rc = -1;

	memset(sides, 0, sizeof(sides));
	memset(&r, 0, sizeof(r));
	if (in->noise && !(noise = load_noise(in->noise, in->noise_optional)) &&
	    !in->noise_optional)
		return -1;
	if (noise && !(part = noise_part(noise, in->noise, in->workload, in->noise_optional))) {
		json_free(noise);
		noise = NULL;
		if (!in->noise_optional)
			return -1;
	}
	for (int s = 0; s < 2; s++) {
		if (explain_side_load(&sides[s], s ? "B" : "A", paths[s]) < 0 ||
		    explain_side_profiles(&sides[s], in->files[s][0], in->files[s][1]) < 0)
			goto out;
	}
	explain_compute(&r, sides, in->statements, part, part ? in->noise : NULL);
	r.workload = in->workload ? xstrdup(in->workload) : NULL;
	explain_write_json(&r, in->baseline, in->candidate, in->keep_rows, out);
	rc = 0;
out:
	explain_result_release(&r);
	for (int s = 0; s < 2; s++)
		explain_side_release(&sides[s]);
	json_free(noise);
	return rc;
}
