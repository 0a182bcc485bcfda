/*
 * variants.c - `pgbuild noise`'s run: the build's postgres link found in
 * its compile log, relinked once per variant with the objects in a seeded
 * order, each result in a copy of the prefix (WORKDIR/vNN/prefix: paths of
 * equal length), each copy measured like gate measures a build; see
 * noise.h.
 *
 * The privilege boundary, as root: the build tree is read only when it is
 * ours alone (build_tree_ours), the relink writes only below WORKDIR
 * (ours: workdir_open refuses one another user can write), the
 * prefix copies stay ours (bolt_copy_prefix: cp -a, then the new postgres
 * written as a new file), and everything the server user gets is what
 * instr.c and cycles.c hand it (their directories below WORKDIR, through
 * descriptors).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pgbuild/bolt/bolt.h"
#include "pgbuild/build/build.h"
#include "pgbuild/build/buildlog.h"
#include "pgbuild/build/relink.h"
#include "pgbuild/metric/cycles.h"
#include "pgbuild/metric/instr.h"
#include "pgbuild/noise/floor.h"
#include "pgbuild/noise/noise.h"
#include "pgbuild/metric/single.h"
#include "pgbuild/pgbuild.h"
#include "pgbuild/cluster/workdir.h"
#include "pgbuild/metric/metric.h"

/* What messages call the build tree: the option that named it. */
static const char *tree_opt(const struct noise_opts *o)
{
	return o->builddir_as ? o->builddir_as : o->builddir ? "--builddir" : "the recorded builddir";
}

/* The build tree: --builddir, else the one PREFIX/pgopt-build.json records. */
static char *find_builddir(const struct noise_opts *o, const char *prefix)
{
	char *rec = xasprintf("%s/" BUILDLOG_RECORD, prefix), *dir = NULL;
	struct json_value *v = NULL;
	const char *given = o->builddir;

	if (!given && (v = buildlog_read_json(rec)))
		given = json_get_str(v, "builddir");
	if (!given)
		error("%s records no builddir: give --builddir DIR (the build tree %s was "
		      "installed from)", rec, prefix);
	else
		dir = path_real_as(tree_opt(o), given);
	json_free(v);
	free(rec);
	return dir;
}

/* No object of the link is newer than the tree's postgres: a build that
 * recompiled objects and stopped before its link leaves the old postgres
 * beside new objects (the review).  0, or -1 after the error. */
static int objects_not_newer(const struct noise_result *r, const struct relink *rl,
			     const char *bin)
{
	struct stat b, o;

	if (stat(bin, &b) < 0)
		return error("cannot stat %s: %s", bin, strerror(errno));
	for (size_t i = 0; i < rl->nobj; i++) {
		const char *obj = rl->argv.v[rl->obj_at[i]];
		char *path = obj[0] == '/' ? xstrdup(obj) : xasprintf("%s/%s", rl->cwd, obj);
		int newer = stat(path, &o) == 0 &&
			    (o.st_mtim.tv_sec > b.st_mtim.tv_sec ||
			     (o.st_mtim.tv_sec == b.st_mtim.tv_sec &&
			      o.st_mtim.tv_nsec > b.st_mtim.tv_nsec));
		if (newer) {
			error("%s %s: %s is newer than the tree's postgres %s: the tree "
			      "was rebuilt since and not linked again, so its objects are not "
			      "%s/bin/postgres's; rebuild the tree as the install was built",
			      tree_opt(r->o), r->builddir, path, bin, r->prefix);
			free(path);
			return -1;
		}
		free(path);
	}
	return 0;
}

/*
 * The build tree's linked postgres (the recorded link's -o) is the
 * install's: else every variant would be a relink of another build's
 * objects (a tree rebuilt with other flags since, as tune's one build
 * directory is), and the floor, named by the install's sha256, would be of
 * a binary nobody measured.  0, or -1 after the error.
 */
static int tree_is_install(const struct noise_result *r, const struct relink *rl)
{
	const char *out = rl->argv.v[rl->out_at];
	char *bin = out[0] == '/' ? xstrdup(out) : xasprintf("%s/%s", rl->cwd, out);
	char sha[65];
	int rc = 0;

	if (bolt_file_sha256(bin, sha) < 0)
		rc = error("%s %s: cannot read its postgres %s (the link its compile log "
			   "records): %s", tree_opt(r->o), r->builddir, bin, strerror(errno));
	else if (strcmp(sha, r->sha256))
		rc = error("%s %s: its postgres %s is not %s/bin/postgres (sha256 %.12s... "
			   "against %.12s...): the tree was built again since, or is another "
			   "build's; the variants would relink other objects.  Rebuild the tree "
			   "as the install was built, or give the tree it was installed from",
			   tree_opt(r->o), r->builddir, bin, r->prefix, sha, r->sha256);
	else
		rc = objects_not_newer(r, rl, bin);
	free(bin);
	return rc;
}

/* Everything before the first variant: paths, the tree's owner, the link. */
static int noise_setup(struct noise_result *r, struct relink *rl, int *wfd)
{
	const struct noise_opts *o = r->o;
	const char *skip[] = { BUILD_CHECK_TREE, NULL };
	struct strbuf note = STRBUF_INIT;
	char *pg;
	int rc = -1;

	if (!(r->prefix = path_real_as("--install", o->prefix)))
		return -1;
	if (!(r->builddir = find_builddir(o, r->prefix)))
		return -1;
	if (geteuid() == 0 && build_tree_ours(r->builddir, skip) < 0)
		return -1;
	if (relink_find(r->builddir, rl, &note) < 0) {
		error("%s", note.buf);
		goto out;
	}
	r->lto = rl->lto;
	r->link_line = rl->line;
	r->objects = rl->nobj;
	/* the tree before the work directory: a refused tree makes nothing */
	pg = xasprintf("%s/bin/postgres", r->prefix);
	if (bolt_file_sha256(pg, r->sha256) < 0)
		error("cannot read %s: %s", pg, strerror(errno));
	else
		rc = tree_is_install(r, rl);
	free(pg);
	if (rc < 0)
		goto out;
	r->workdir = o->workdir ? path_absolute(o->workdir) : xasprintf("%s.noise", r->prefix);
	if ((*wfd = workdir_open("--workdir", r->workdir)) < 0)
		rc = -1;
out:
	strbuf_release(&note);
	return rc;
}

/* Variant k: relinked into WORKDIR/vNN.postgres, copied into its prefix. */
static int make_variant(struct noise_result *r, const struct relink *rl, int k)
{
	struct noise_variant *v = &r->v[k];
	struct strbuf note = STRBUF_INIT;
	size_t *perm = xmalloc(sizeof(*perm) * rl->nobj);
	char *bin = xasprintf("%s/v%02d.postgres", r->workdir, k + 1);
	char *log = xasprintf("%s/v%02d.link.log", r->workdir, k + 1);
	char *dir = xasprintf("%s/v%02d", r->workdir, k + 1);
	double t0 = clock_seconds();
	int rc = -1;

	v->seed = noise_variant_seed(r->o->seed, k + 1);
	v->prefix = xasprintf("%s/prefix", dir);
	noise_shuffle(perm, rl->nobj, v->seed);
	if (!r->o->quiet)
		fprintf(stderr, "noise: variant %d/%d: relinking postgres (%zu objects, seed %llu%s) ...\n",
			k + 1, r->o->variants, rl->nobj, (unsigned long long)v->seed,
			r->lto ? "; an LTO link: minutes" : "");
	if (relink_run(rl, perm, bin, log, &note) < 0) {
		error("variant %d: %s", k + 1, note.buf);
		goto out;
	}
	v->link_seconds = clock_seconds() - t0;
	if ((mkdir(dir, 0755) < 0 && errno != EEXIST) || bolt_copy_prefix(r->prefix, v->prefix, bin) < 0) {
		error("variant %d: cannot make its prefix %s", k + 1, v->prefix);
		goto out;
	}
	if (bolt_file_sha256(bin, v->sha256) < 0) {
		error("cannot read %s: %s", bin, strerror(errno));
		goto out;
	}
	unlink(bin);
	rc = 0;
out:
	strbuf_release(&note);
	free(perm);
	free(bin);
	free(log);
	free(dir);
	return rc;
}

/* Instructions of variant k on workload w; 0 or -1. */
static int measure_instr(struct noise_result *r, size_t w, int k, enum instr_counter c)
{
	const char *wl = r->o->workloads.v[w];
	struct strbuf note = STRBUF_INIT;
	int rc = instr_measure(r->v[k].prefix, wl, r->workdir, r->o->statements, c,
			       noise_value(r, w, NOISE_INSTR, k), &note);
	if (rc < 0)
		error("variant %d, %s: instructions: %s", k + 1, wl, note.buf);
	strbuf_release(&note);
	return rc;
}

/* The cycles estimate and its parts of variant k on workload w; 0 or -1. */
static int measure_cycles(struct noise_result *r, size_t w, int k)
{
	const char *wl = r->o->workloads.v[w];
	struct strbuf note = STRBUF_INIT;
	struct cycles_tx t;
	int rc = cycles_measure(r->v[k].prefix, wl, r->workdir, r->o->statements, &t, &note);
	if (rc < 0) {
		error("variant %d, %s: cycles: %s", k + 1, wl, note.buf);
	} else {
		*noise_value(r, w, NOISE_CYC_EST, k) = t.estimate;
		*noise_value(r, w, NOISE_CYC_IR, k) = t.ir;
		*noise_value(r, w, NOISE_CYC_I1MR, k) = t.i1mr;
		*noise_value(r, w, NOISE_CYC_L1M, k) = t.l1m;
		*noise_value(r, w, NOISE_CYC_LLM, k) = t.llm;
		*noise_value(r, w, NOISE_CYC_BM, k) = t.bm;
	}
	strbuf_release(&note);
	return rc;
}

/* Every workload and metric on variant k; 0 or -1. */
static int measure_variant(struct noise_result *r, int k, enum instr_counter c)
{
	const struct noise_opts *o = r->o;
	for (size_t w = 0; w < o->workloads.nr; w++) {
		if ((o->metrics & METRIC_INSTR) && measure_instr(r, w, k, c) < 0)
			return -1;
		if ((o->metrics & METRIC_CYCLES) && measure_cycles(r, w, k) < 0)
			return -1;
		if (o->quiet)
			continue;
		fprintf(stderr, "noise: variant %d/%d %-12s", k + 1, o->variants, o->workloads.v[w]);
		if (o->metrics & METRIC_INSTR)
			fprintf(stderr, " instructions %.2f", *noise_value(r, w, NOISE_INSTR, k));
		if (o->metrics & METRIC_CYCLES)
			fprintf(stderr, "%s estimate %.2f", o->metrics & METRIC_INSTR ? "," : "",
				*noise_value(r, w, NOISE_CYC_EST, k));
		fputc('\n', stderr);
	}
	return 0;
}

/* The counter of the instructions metric (perf where it counts). */
static int pick_counter(struct noise_result *r, enum instr_counter *c)
{
	struct strbuf probe = STRBUF_INIT;
	*c = INSTR_COUNTER_CALLGRIND;
	r->counter = "none";
	if (r->o->metrics & METRIC_INSTR) {
		instr_pick_counter(INSTR_COUNTER_AUTO, c, &probe);
		r->counter = instr_counter_name(*c);
		if (!r->o->quiet)
			fprintf(stderr, "noise: instructions counted by %s (%s)\n", r->counter, probe.buf);
	}
	strbuf_release(&probe);
	return 0;
}

/* Where the document goes: --json, or PREFIX/pgopt-noise.json. */
static char *result_path(const struct noise_opts *o, const char *prefix)
{
	return o->json ? xstrdup(o->json) : xasprintf("%s/%s", prefix, NOISE_FLOOR_FILE);
}

int noise_reusable(const struct noise_opts *o)
{
	struct noise_floor f;
	struct strbuf err = STRBUF_INIT;
	char *path = result_path(o, o->prefix), *pg = xasprintf("%s/bin/postgres", o->prefix);
	int yes = 0;

	if (access(path, F_OK) != 0)
		goto out;
	if (noise_floor_load(&f, path, &err) == 0) {
		yes = noise_floor_matches(&f, pg, &err) > 0 &&
		      noise_floor_covers(&f, &o->workloads, o->metrics, o->variants, &err);
		noise_floor_release(&f);
	}
	if (yes)
		fprintf(stderr, "noise: %s is a floor of %s over at least %d variants, of every "
			"workload and metric asked: reused (--reuse), nothing measured\n", path,
			pg, o->variants);
	else
		fprintf(stderr, "noise: %s not reused: %s; measuring\n", path, err.buf);
out:
	strbuf_release(&err);
	free(path);
	free(pg);
	return yes;
}

/* The document, atomically, where --json (or the default) says. */
static int write_document(const struct noise_result *r)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = result_path(r->o, r->prefix);
	int rc;
	noise_json(r, &sb);
	rc = write_result(path, sb.buf, sb.len);
	if (rc == 0 && !r->o->quiet && !result_is_stdout(path))
		fprintf(stderr, "noise: wrote %s\n", path);
	strbuf_release(&sb);
	free(path);
	return rc;
}

/* The per-function spread of every workload, when the cycles estimate was
 * measured on 2 or more variants; 0 or -1. */
static int measure_functions(struct noise_result *r)
{
	const struct noise_opts *o = r->o;
	if (!(o->metrics & METRIC_CYCLES) || o->variants < 2)
		return 0;
	r->fns = xcalloc(o->workloads.nr, sizeof(*r->fns));
	for (size_t w = 0; w < o->workloads.nr; w++) {
		if (!o->quiet)
			fprintf(stderr, "noise: %-12s per-function spread (pgbuild explain's rows of "
				"variant 1 against each other variant) ...\n", o->workloads.v[w]);
		if (noise_functions_of(r, w, &r->fns[w]) < 0)
			return error("%s: the per-function spread could not be computed",
				     o->workloads.v[w]);
	}
	return 0;
}

static void result_release(struct noise_result *r)
{
	for (size_t w = 0; r->fns && w < r->o->workloads.nr; w++)
		noise_functions_release(&r->fns[w]);
	free(r->fns);
	for (int k = 0; r->v && k < r->o->variants; k++)
		free(r->v[k].prefix);
	free(r->v);
	free(r->values);
	free(r->prefix);
	free(r->builddir);
	free(r->workdir);
}

int noise_run(const struct noise_opts *o)
{
	struct noise_result r = { .o = o };
	struct relink rl = RELINK_INIT;
	size_t nvals = o->workloads.nr * NOISE_NMETRICS * (size_t)o->variants;
	enum instr_counter counter;
	double t0 = clock_seconds();
	time_t now = time(NULL);
	int rc = PGBUILD_EXIT_ERROR, wfd = -1;

	if (o->reuse && noise_reusable(o))
		return PGBUILD_EXIT_OK;
	strftime(r.started, sizeof(r.started), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	r.v = xcalloc((size_t)o->variants, sizeof(*r.v));
	r.values = xmalloc(sizeof(*r.values) * nvals);
	for (size_t i = 0; i < nvals; i++)
		r.values[i] = NAN;
	if (noise_setup(&r, &rl, &wfd) < 0 || pick_counter(&r, &counter) < 0)
		goto out;
	for (int k = 0; k < o->variants; k++)
		if (make_variant(&r, &rl, k) < 0 || measure_variant(&r, k, counter) < 0)
			goto out;
	if (measure_functions(&r) < 0)
		goto out;
	r.seconds = clock_seconds() - t0;
	if (!o->no_table)
		noise_print_table(&r, stdout);
	if (write_document(&r) == 0)
		rc = PGBUILD_EXIT_OK;
out:
	if (wfd >= 0)
		close(wfd);
	relink_release(&rl);
	result_release(&r);
	return rc;
}
