/*
 * load.c - the inputs of `pgbuild report` read into a struct report_data:
 * a gate result, the compile log, the builds' records and their binaries'
 * functions (inspect.c); see report.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgbuild/build/buildlog.h"
#include "pgbuild/pgbuild.h"
#include "pgbuild/report/report.h"
#include "wrapper/common/json.h"

/* The JSON document path given for opt, malloced; NULL after the error,
 * which names opt (a threshold given for --gate-result: "cannot read
 * select-only>=1.0" alone says nothing of what was meant). */
static char *read_text(const char *opt, const char *path, size_t *len)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	if (sfs_read(AT_FDCWD, path, SFS_IN_JSON, 0, &sb, &err) < 0) {
		error("%s: %s", opt, err.buf);
		strbuf_release(&sb);
		strbuf_release(&err);
		return NULL;
	}
	strbuf_release(&err);
	return strbuf_detach(&sb, len);
}

int report_load_gate(struct report_data *rd, const char *path)
{
	size_t len;
	char *text = read_text("--gate-result", path, &len);
	struct strbuf err = STRBUF_INIT;
	struct json_value *root;
	const struct json_value *set;
	const char *s;

	if (!text)
		return -1;
	if (gate_read_json(&rd->gate, text, len, &err) < 0) {
		error("--gate-result %s: %s", path, err.buf);
		strbuf_release(&err);
		free(text);
		return -1;
	}
	root = json_parse(text, len, &err);
	if (root) {
		if ((s = json_get_str(root, "baseline")))
			rd->baseline = xstrdup(s);
		if ((s = json_get_str(root, "candidate")))
			rd->candidate = xstrdup(s);
		set = json_get(root, "settings");
		if (set && set->type == JSON_OBJECT)
			rd->settings_json = gate_json_text(set);
		json_free(root);
	}
	rd->have_gate = 1;
	strbuf_release(&err);
	free(text);
	return 0;
}

static int cmp_tu(const void *pa, const void *pb)
{
	return strcmp(((const struct report_tu *)pa)->tu, ((const struct report_tu *)pb)->tu);
}

int report_load_log(struct report_data *rd, const char *logdir)
{
	char *path = xasprintf("%s/compile.jsonl", logdir);
	struct strbuf text = STRBUF_INIT, line = STRBUF_INIT, err = STRBUF_INIT;
	size_t lineno = 0, bad = 0, pos = 0, n;

	if (sfs_read(AT_FDCWD, path, SFS_IN_COMPILE_LOG, 0, &text, &err) < 0) {
		error("%s", err.buf);
		strbuf_release(&text);
		strbuf_release(&err);
		free(path);
		return -1;
	}
	strbuf_release(&err);
	for (const char *l; (l = text_next_line(text.buf, text.len, &pos, &n)); ) {
		struct json_value *v;
		const char *tu, *kind;
		strbuf_reset(&line);
		strbuf_add(&line, l, n);
		lineno++;
		if (!line.len)
			continue;
		v = json_parse(line.buf, line.len, NULL);
		if (!v) {
			bad++;
			continue;
		}
		tu = json_get_str(v, "tu");
		kind = json_get_str(v, "kind");
		/* units are compiles; a passthrough counts only when the whole build
		 * was passed through (PGOPT_PASSTHROUGH), never a configure or meson
		 * probe, a preprocess or a dependency run */
		if (tu && kind && (!strcmp(kind, "compile") ||
				   (!strcmp(kind, "passthrough") &&
				    !strcmp(json_get_str(v, "reason") ? json_get_str(v, "reason") : "",
					    "passthrough_env")))) {
			const struct json_value *added = json_get(v, "added");
			const struct json_value *removed = json_get(v, "removed");
			size_t k;
			/* the last compile of a unit wins (rebuilds) */
			for (k = 0; k < rd->nr_tus; k++)
				if (!strcmp(rd->tus[k].tu, tu))
					break;
			if (k == rd->nr_tus) {
				ALLOC_GROW(rd->tus, rd->nr_tus + 1, rd->alloc_tus);
				memset(&rd->tus[k], 0, sizeof(rd->tus[k]));
				rd->tus[k].tu = xstrdup(tu);
				rd->nr_tus++;
			} else {
				free(rd->tus[k].added);
				free(rd->tus[k].removed);
				free(rd->tus[k].rules);
			}
			rd->tus[k].added = json_join_strings(added);
			rd->tus[k].removed = json_join_strings(removed);
			rd->tus[k].rules = json_join_strings(json_get(v, "rules"));
		}
		json_free(v);
	}
	strbuf_release(&text);
	if (bad)
		warning("%s: %zu of %zu lines are not JSON records; skipped", path, bad, lineno);
	/* keep changed units only, count the rest */
	rd->tus_total = rd->nr_tus;
	{
		size_t w = 0;
		for (size_t i = 0; i < rd->nr_tus; i++) {
			if (*rd->tus[i].added || *rd->tus[i].removed) {
				rd->tus[w++] = rd->tus[i];
			} else {
				free(rd->tus[i].tu);
				free(rd->tus[i].added);
				free(rd->tus[i].removed);
				free(rd->tus[i].rules);
			}
		}
		rd->tus_unchanged = rd->nr_tus - w;
		rd->nr_tus = w;
	}
	if (rd->nr_tus)
		qsort(rd->tus, rd->nr_tus, sizeof(*rd->tus), cmp_tu);
	rd->have_log = 1;
	strbuf_release(&line);
	free(path);
	return 0;
}

void report_data_clear(struct report_data *rd)
{
	gate_clear(&rd->gate);
	free(rd->baseline);
	free(rd->candidate);
	free(rd->settings_json);
	for (size_t i = 0; i < rd->nr_tus; i++) {
		free(rd->tus[i].tu);
		free(rd->tus[i].added);
		free(rd->tus[i].removed);
		free(rd->tus[i].rules);
	}
	free(rd->tus);
	for (size_t i = 0; i < rd->nr_fns; i++) {
		free(rd->fns[i].name);
		free(rd->fns[i].tu);
		free(rd->fns[i].note);
	}
	free(rd->fns);
	strvec_clear(&rd->hot_tus);
	free(rd->build_a);
	free(rd->build_b);
	memset(rd, 0, sizeof(*rd));
}

/* The candidate's compile log directory, from its build record, or NULL. */
static char *candidate_logdir(const struct report_data *rd)
{
	struct json_value *bj;
	const char *dir;
	char *r = NULL;

	if (!rd->build_b)
		return NULL;
	bj = json_parse(rd->build_b, strlen(rd->build_b), NULL);
	dir = json_get_str(json_get(bj, "log"), "dir");
	if (dir) {
		char *f = xasprintf("%s/compile.jsonl", dir);
		if (access(f, R_OK) == 0)
			r = xstrdup(dir);
		free(f);
	}
	json_free(bj);
	return r;
}

int report_load(struct report_data *rd, const struct report_inputs *in)
{
	const char *base = in->baseline, *cand = in->candidate;
	const char *ins_a = in->inspect_a, *ins_b = in->inspect_b, *log = in->log;
	char *pa = NULL, *pb = NULL, *logdir = NULL;
	int rc = -1;

	if (in->gate && report_load_gate(rd, in->gate) < 0)
		goto out;
	if (!base)
		base = rd->baseline;
	if (!cand)
		cand = rd->candidate;
	if (base) {
		rd->build_a = report_read_optional(base, "pgopt-build.json");
		if (!ins_a)
			ins_a = pa = xasprintf("%s/bin/postgres", base);
	}
	if (cand) {
		rd->build_b = report_read_optional(cand, "pgopt-build.json");
		if (!ins_b)
			ins_b = pb = xasprintf("%s/bin/postgres", cand);
	}
	strvec_init(&rd->hot_tus);
	/* the postgres of the gate's installs, not given: a bonus, gone is no error */
	for (int s = 0; s < 2; s++) {
		const char *p = s ? pb : pa;
		if (p && access(p, R_OK) != 0) {
			warning("per-function changes left out: %s: %s", p, strerror(errno));
			ins_a = ins_b = NULL;
			break;
		}
	}
	if (!log)
		log = logdir = candidate_logdir(rd);
	if (log && (buildlog_dir_check(in->log ? "--log" : "the candidate's log directory", log) < 0 ||
		    report_load_log(rd, log) < 0))
		goto out;
	if ((ins_a || ins_b) && report_load_inspect(rd, ins_a, ins_b) < 0) {
		/* sizes are a bonus when a gate result is there */
		if (!rd->have_gate && !rd->have_log)
			goto out;
		warning("per-function changes left out");
	}
	if (!report_has_content(rd)) {
		error("nothing to report: %s", in->gate ? "the gate result holds nothing" :
		      log && rd->have_log ? "the compile log records no compile, and no build's "
		      "functions could be read" : "no function symbols in the builds given");
		goto out;
	}
	rc = 0;
out:
	free(pa);
	free(pb);
	free(logdir);
	return rc;
}

char *report_read_optional(const char *prefix, const char *file)
{
	char *path = xasprintf("%s/%s", prefix, file);
	struct strbuf sb = STRBUF_INIT;
	char *r = NULL;
	if (sfs_read(AT_FDCWD, path, SFS_IN_TEXT, 0, &sb, NULL) >= 0)
		r = strbuf_detach(&sb, NULL);
	strbuf_release(&sb);
	free(path);
	return r;
}
