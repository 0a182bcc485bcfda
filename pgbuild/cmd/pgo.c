/*
 * pgo.c - `pgbuild pgo`: a profile-guided PostgreSQL build in one command.
 *
 *   1. instrumented build: the user's policy (LTO switched off: the profile
 *      is taken and matched at compile time, LTO only costs link time here)
 *      plus  cflags += -fprofile-generate -ftest-coverage  for the server's
 *      units (src/backend, src/pl, src/timezone, contrib; or the --files
 *      globs) and  ldflags += -fprofile-generate, through `pgbuild build`
 *      into --prefix/--builddir;
 *   2. training: a private cluster of that install runs each workload
 *      (pgbuild bench); a fast shutdown makes every server process write its
 *      counts as .gcda files next to the objects in the build directory
 *      (handed to the server user first); the manifest
 *      <builddir>/pgopt-pgo.json records the workloads and a hash of every
 *      translation unit's source;
 *   3. optimized build in the same build directory: the user's policy (LTO
 *      as it says) plus  cflags += -fprofile-use -fprofile-partial-training
 *      (code the training never ran is optimized normally, not for size);
 *      pgbuild build's incremental mode recompiles every object whose flags
 *      changed, and GCC finds each object's .gcda next to it;
 *   4. PostgreSQL's regression suite on the result (pgbuild regress), and
 *      optionally a gate against a baseline (pgbuild gate).
 *
 * Profiles are kept and reused: a later `pgbuild pgo` with the same
 * workloads and instrumentation (the instrumented stage's policy, comments
 * aside - so adding `lto = on` to the policy reuses them) skips stages 1-2.  Stale profiles are
 * detected from the manifest: a unit whose source changed since training
 * has its .gcda removed (it is compiled without a profile) and is reported;
 * --retrain trains again.  GCC's own check (coverage-mismatch, e.g. after a
 * header change) is kept as a warning instead of an error.
 */
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "build/buildlog.h"
#include "pgbuild.h"
#include "profile/run.h"

#define PGO_MANIFEST "pgopt-pgo.json"
#define PGO_USE_CFLAGS "-fprofile-use -fprofile-partial-training -Wno-error=coverage-mismatch"

struct pgo_opts {
	const char *src;
	const char *prefix;
	const char *builddir;
	const char *policy;      /* user's policy, or NULL */
	struct strvec files;     /* --files globs; empty: every file */
	const char *baseline, *gate;
	int jobs;
	int retrain;
	int instrument_only;     /* stop after the instrumented build */
	int regress;
	int quiet;
};

static void pgo_usage(FILE *fp)
{
	fputs("usage: pgbuild pgo --workload W[,W...] --prefix OUT [--src SRC] [--policy FILE] [options]\n"
	      "\n"
	      "Profile-guided build: an instrumented build, training runs of the\n"
	      "workloads on a private cluster, then a -fprofile-use\n"
	      "-fprofile-partial-training build (with LTO when the policy says so),\n"
	      "checked with PostgreSQL's regression suite.  Profiles stay in the\n"
	      "build directory and are reused; units whose source changed since\n"
	      "training are reported and built without a profile.\n"
	      "\n"
	      "  --src SRC              source directory, tarball or debian:PACKAGE[=VERSION]\n"
	      "                         (default debian:postgresql-15)\n"
	      "  --prefix OUT           install prefix (required)\n"
	      "  --builddir DIR         build directory (default OUT.build)\n"
	      "  --policy FILE          the policy both builds start from (e.g. lto = on)\n"
	      "  --files GLOB           instrument and optimize only these units\n"
	      "                         (policy glob, repeatable; default the server's:\n"
	      "                         src/backend/** src/pl/** src/timezone/** contrib/**;\n"
	      "                         src/common and src/port are shared with libpq,\n"
	      "                         which must not link libgcov)\n"
	      "  -W, --workload W       training workload(s), comma-separated or repeated\n"
	      "                         (default select-only,tpcb)\n"
	      "  -c, --clients N        training clients (default 2)\n"
	      "  -T, --duration S       seconds per training workload (default 20)\n"
	      "  -s, --scale N          pgbench scale of the training data\n"
	      "  --retrain              train again even when the profiles are current\n"
	      "  --instrument-only      stop after the instrumented build (for\n"
	      "                         pgbuild profile --method gcov); a later run with\n"
	      "                         the same options continues from there\n"
	      "  --no-regress           skip the regression suite\n"
	      "  --baseline PREFIX --gate EXPR\n"
	      "                         gate the result against PREFIX (pgbuild gate)\n"
	      "  -j, --jobs N           make jobs\n"
	      "  -q, --quiet            less progress output\n"
	      "\n"
	      "Writes OUT/pgopt-pgo.json (stages, workloads, stale units).\n"
	      "Exit: 0 built and checked, 1 regression suite or gate failed,\n"
	      "2 could not build or train.\n",
	      fp);
}

/* FNV-1a 64 of a file's content, as 16 hex digits; NULL when unreadable. */
static char *file_hash(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	unsigned long long h = 14695981039346656037ULL;
	unsigned char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		for (size_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * 1099511628211ULL;
	fclose(fp);
	return xasprintf("%016llx", h);
}

/*
 * The user's policy for a generated policy in another directory: hot and
 * cold paths made absolute; without lto lines when drop_lto.
 */
static int policy_base(const char *path, int drop_lto, struct strbuf *out)
{
	struct strbuf text = STRBUF_INIT;
	char real[PATH_MAX];
	if (!path)
		return 0;
	if (strbuf_read_file(&text, path) < 0 || !realpath(path, real)) {
		strbuf_release(&text);
		return error("--policy %s: %s", path, strerror(errno));
	}
	char *dir = xstrdup(real);
	*strrchr(dir, '/') = '\0';
	strbuf_addf(out, "# from %s\n", real);
	const char *s = text.buf;
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		char *line = xstrndup(s, len);
		s += len + (nl ? 1 : 0);
		const char *k = line;
		while (*k == ' ' || *k == '\t')
			k++;
		size_t klen = strcspn(k, " \t=");
		const char *eq = strchr(k, '=');
		if (eq && (klen == 3 || klen == 4) &&
		    (!strncmp(k, "hot", klen) || !strncmp(k, "cold", klen) || !strncmp(k, "lto", klen))) {
			const char *v = eq + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			if (!strncmp(k, "lto", 3)) {
				if (drop_lto) {
					strbuf_addf(out, "# (instrumented stage without LTO) %s\n", line);
					free(line);
					continue;
				}
			} else if (*v && *v != '/') {
				strbuf_addf(out, "%.*s = %s/%s\n", (int)klen, k, dir, v);
				free(line);
				continue;
			}
		}
		strbuf_addf(out, "%s\n", line);
		free(line);
	}
	free(dir);
	strbuf_release(&text);
	return 0;
}

/*
 * The units instrumented and optimized by default: the server and its
 * modules.  Not src/common and src/port: one source there is compiled for
 * the server, the front ends and libpq alike (same unit name), and libpq
 * must not reference exit(), which libgcov does - PostgreSQL's build checks
 * that (it skips the check only under --enable-coverage).  Front-end code
 * gains nothing from a server workload's profile anyway.
 */
static const char *const pgo_server_globs[] = {
	"src/backend/**", "src/pl/**", "src/timezone/**", "contrib/**", NULL,
};

/* Append the PGO flags: for the server's units, or per --files glob. */
static void policy_add_flags(struct strbuf *out, const struct strvec *files,
			     const char *cflags, const char *ldflags)
{
	strbuf_addstr(out, "\n# added by pgbuild pgo\n");
	if (!files->nr) {
		for (int i = 0; pgo_server_globs[i]; i++)
			strbuf_addf(out, "[%s]\ncflags += %s\n", pgo_server_globs[i], cflags);
	} else {
		for (size_t i = 0; i < files->nr; i++)
			strbuf_addf(out, "[%s]\ncflags += %s\n", files->v[i], cflags);
	}
	if (ldflags)
		strbuf_addf(out, "[global]\nldflags += %s\n", ldflags);
}

static int write_text(const char *path, const char *text)
{
	return write_file_atomic(path, text, strlen(text));
}

/*
 * PostgreSQL's Makefile.global declares `.SECONDARY:` with no prerequisites,
 * so make treats every object as an intermediate file: an object deleted
 * because its flags changed (pgbuild build's incremental mode) is NOT
 * rebuilt while the target made from it (objfiles.txt, a shared library,
 * a static library) is newer than the sources.  Between the stages every
 * profiled object changes flags, so pgo removes those targets first:
 * objfiles.txt lists (regenerated from the objects: postgres is relinked)
 * and the libraries below src/ and contrib/ (relinked from their objects).
 * Unchanged objects are not recompiled.
 */
static long relink_removed;

static int relink_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	const char *base = path + ftw->base;
	size_t n = strlen(base);
	if (flag == FTW_D && !strcmp(base, "tmp_install"))
		return FTW_SKIP_SUBTREE;
	if (flag != FTW_F && flag != FTW_SL)
		return FTW_CONTINUE;
	if (!strcmp(base, "objfiles.txt") || (n > 3 && !strcmp(base + n - 3, ".so")) ||
	    strstr(base, ".so.") || (n > 2 && !strcmp(base + n - 2, ".a"))) {
		if (unlink(path) == 0)
			relink_removed++;
	}
	return FTW_CONTINUE;
}

static void force_relink(const char *builddir)
{
	static const char *const tops[] = { "src", "contrib", NULL };
	relink_removed = 0;
	for (int i = 0; tops[i]; i++) {
		char *d = xasprintf("%s/%s", builddir, tops[i]);
		if (access(d, F_OK) == 0)
			nftw(d, relink_one, 32, FTW_PHYS | FTW_ACTIONRETVAL);
		free(d);
	}
	verbose("pgo: removed %ld link targets so make relinks them", relink_removed);
}

static int run_build(const struct pgo_opts *o, const char *builddir, const char *policy)
{
	char *cs = xasprintf("%s/config.status", builddir);
	if (access(cs, F_OK) == 0)
		force_relink(builddir);
	free(cs);
	struct child_process cp = CHILD_PROCESS_INIT;
	strvec_pushl(&cp.args, pgbuild_self(), "build", "--policy", policy, "--prefix",
		     o->prefix, "--builddir", builddir, "--no-bench", NULL);
	if (o->src)
		strvec_pushl(&cp.args, "--src", o->src, NULL);
	if (o->jobs > 0)
		strvec_pushf(&cp.args, "--jobs=%d", o->jobs);
	if (o->quiet)
		strvec_push(&cp.args, "--quiet");
	cp.no_stdin = 1;
	cp.out = 2;  /* build's results are progress for us */
	int code = run_command_forwarding(&cp);
	child_process_clear(&cp);
	if (code != 0)
		return error("pgbuild build --policy %s failed (exit %d)", policy, code);
	return 0;
}

/* tu -> source path, for every unit compiled in the build directory. */
struct pgo_source {
	char *tu;
	char *hash;
};

static int collect_tu(const struct json_value *rec, long line, void *data)
{
	(void)line;
	struct strvec *tus = data;
	const char *tu = json_get_str(rec, "tu");
	if (buildlog_is_compile(rec) && tu && strvec_find(tus, tu) < 0)
		strvec_push(tus, tu);
	return 0;
}

/* Hashes of the sources of every unit of the build: json array text. */
static void source_hashes(const char *builddir, const char *srcdir, struct json_writer *jw)
{
	char *log = xasprintf("%s/pgopt-log/%s", builddir, BUILDLOG_COMPILE);
	struct strvec tus = STRVEC_INIT;
	buildlog_each(log, 1, collect_tu, &tus);
	json_object_begin(jw);
	for (size_t i = 0; i < tus.nr; i++) {
		char *path = xasprintf("%s/%s", srcdir, tus.v[i]);
		char *h = file_hash(path);
		if (h) {
			json_key(jw, tus.v[i]);
			json_string(jw, h);
		}
		free(h);
		free(path);
	}
	json_object_end(jw);
	strvec_clear(&tus);
	free(log);
}

/* The object (.o) paths of tu in the build, to find its .gcda files. */
static int drop_tu_profiles(const char *builddir, const char *tu)
{
	char *log = xasprintf("%s/pgopt-log/%s", builddir, BUILDLOG_COMPILE);
	struct buildlog_objs os = { 0 };
	int dropped = 0;
	buildlog_objs_read(&os, log, NULL, NULL, 0);
	for (size_t i = 0; i < os.nr; i++) {
		const char *p = os.v[i].path;
		size_t n = strlen(p);
		if (!os.v[i].tu || strcmp(os.v[i].tu, tu) || n < 3 || strcmp(p + n - 2, ".o"))
			continue;
		char *g = xasprintf("%.*s.gcda", (int)(n - 2), p);
		if (unlink(g) == 0)
			dropped++;
		free(g);
	}
	buildlog_objs_free(&os);
	free(log);
	return dropped;
}

/*
 * Compare the manifest's source hashes with the tree: units that changed
 * get their profiles dropped and are listed in stale.
 */
static void check_stale(const struct json_value *manifest, const char *builddir,
			struct strvec *stale)
{
	const char *srcdir = json_get_str(manifest, "source_dir");
	const struct json_value *src = json_get(manifest, "sources");
	if (!srcdir || !src || src->type != JSON_OBJECT)
		return;
	for (size_t i = 0; i < src->u.list.nr; i++) {
		const char *tu = src->u.list.keys[i];
		const struct json_value *v = src->u.list.items[i];
		if (v->type != JSON_STRING)
			continue;
		char *path = xasprintf("%s/%s", srcdir, tu);
		char *h = file_hash(path);
		if (!h || strcmp(h, v->u.str.s)) {
			strvec_push(stale, tu);
			drop_tu_profiles(builddir, tu);
		}
		free(h);
		free(path);
	}
}

/* A policy's text without comments and blank lines: what it means, for
 * comparing the instrumentation of two runs. */
static char *policy_key(const char *text)
{
	struct strbuf sb = STRBUF_INIT;
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) : strlen(text);
		const char *k = text;
		while (k < text + len && (*k == ' ' || *k == '\t'))
			k++;
		if (k < text + len && *k != '#') {
			strbuf_add(&sb, k, (size_t)(text + len - k));
			strbuf_rtrim(&sb);
			strbuf_addch(&sb, '\n');
		}
		text += len + (nl ? 1 : 0);
	}
	return strbuf_detach(&sb, NULL);
}

static char *joined(const struct strvec *sv, const char *sep)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < sv->nr; i++)
		strbuf_addf(&sb, "%s%s", i ? sep : "", sv->v[i]);
	return strbuf_detach(&sb, NULL);
}

PGBUILD_COMMAND(pgo, "profile-guided build: instrument, train on workloads, -fprofile-use, regress")
{
	static const struct option longopts[] = {
		{ "src", required_argument, NULL, 'S' },
		{ "prefix", required_argument, NULL, 'p' },
		{ "builddir", required_argument, NULL, 'B' },
		{ "policy", required_argument, NULL, 'P' },
		{ "files", required_argument, NULL, 'f' },
		{ "workload", required_argument, NULL, 'W' },
		{ "clients", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'T' },
		{ "scale", required_argument, NULL, 's' },
		{ "retrain", no_argument, NULL, 'r' },
		{ "instrument-only", no_argument, NULL, 'I' },
		{ "no-regress", no_argument, NULL, 'R' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "gate", required_argument, NULL, 'g' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pgo_opts o = { 0 };
	struct prof_run run;
	struct strvec stale = STRVEC_INIT;
	struct strbuf pol = STRBUF_INIT, sb = STRBUF_INIT;
	struct json_value *manifest = NULL, *rec = NULL;
	char *builddir = NULL, *prefix = NULL, *ipolicy = NULL, *upolicy = NULL, *mpath = NULL;
	char *wl = NULL;
	int c, ret = PGBUILD_EXIT_ERROR, trained = 0, regress_code = -1, gate_code = -1;
	double t_instr = 0, t_train = 0, t_use = 0, t_regress = 0, t0;
	long gcda = 0;

	strvec_init(&o.files);
	o.regress = 1;
	prof_run_init(&run);
	run.duration = 20;
	optind = 1;
	while ((c = getopt_long(argc, argv, "W:c:T:s:j:qh", longopts, NULL)) != -1) {
		int r = prof_run_option(&run, c, optarg);
		if (r < 0)
			goto out;
		if (r > 0)
			continue;
		switch (c) {
		case 'S': o.src = optarg; break;
		case 'p': o.prefix = optarg; break;
		case 'B': o.builddir = optarg; break;
		case 'P': o.policy = optarg; break;
		case 'f':
			if (!*optarg || strchr(optarg, ']') || strchr(optarg, '\n')) {
				error("--files: expected a policy glob, got \"%s\"", optarg);
				goto out;
			}
			strvec_push(&o.files, optarg);
			break;
		case 'j':
			if (parse_int_option("--jobs", optarg, 1, 100000, &o.jobs) < 0)
				goto out;
			break;
		case 'r': o.retrain = 1; break;
		case 'I': o.instrument_only = 1; break;
		case 'R': o.regress = 0; break;
		case 'b': o.baseline = optarg; break;
		case 'g': o.gate = optarg; break;
		case 'q': o.quiet = 1; break;
		case 'h':
			pgo_usage(stdout);
			ret = PGBUILD_EXIT_OK;
			goto out;
		default:
			fputs("Try \"pgbuild pgo --help\".\n", stderr);
			goto out;
		}
	}
	if (optind < argc) {
		error("unexpected argument \"%s\"", argv[optind]);
		goto out;
	}
	if (!o.prefix) {
		error("--prefix is required");
		fputs("Try \"pgbuild pgo --help\".\n", stderr);
		goto out;
	}
	if (!o.baseline != !o.gate) {
		error("--baseline and --gate go together");
		goto out;
	}
	if (o.policy && access(o.policy, R_OK) < 0) {
		error("--policy %s: %s", o.policy, strerror(errno));
		goto out;
	}
	if (!run.workloads.nr)
		strvec_pushl(&run.workloads, "select-only", "tpcb", NULL);
	wl = joined(&run.workloads, ",");

	/* absolute paths: children run elsewhere */
	{
		char real[PATH_MAX];
		struct stat st;
		builddir = o.builddir ? xstrdup(o.builddir) : xasprintf("%s.build", o.prefix);
		if (mkdir_p(builddir) < 0)
			goto out;
		if (!realpath(builddir, real) || stat(real, &st) < 0) {
			error("--builddir %s: %s", builddir, strerror(errno));
			goto out;
		}
		free(builddir);
		builddir = xstrdup(real);
		if (mkdir_p(o.prefix) < 0)
			goto out;
		prefix = xstrdup(realpath(o.prefix, real) ? real : o.prefix);
		o.prefix = prefix;
	}
	ipolicy = xasprintf("%s/pgo-instrument.policy", builddir);
	upolicy = xasprintf("%s/pgo-use.policy", builddir);
	mpath = xasprintf("%s/%s", builddir, PGO_MANIFEST);

	/* the two policies */
	if (policy_base(o.policy, 1, &pol) < 0)
		goto out;
	policy_add_flags(&pol, &o.files, PROF_INSTRUMENT_CFLAGS, PROF_INSTRUMENT_LDFLAGS);
	char *ipolicy_text = strbuf_detach(&pol, NULL);
	if (policy_base(o.policy, 0, &pol) < 0) {
		free(ipolicy_text);
		goto out;
	}
	policy_add_flags(&pol, &o.files, PGO_USE_CFLAGS, NULL);

	/* can the profiles of an earlier run be reused? */
	if (!o.retrain && !o.instrument_only && access(mpath, R_OK) == 0 &&
	    (manifest = buildlog_read_json(mpath))) {
		const char *mw = json_get_str(manifest, "workloads");
		const char *mi = json_get_str(manifest, "instrument_policy");
		long have = prof_count_gcda(builddir);
		char *k1 = mi ? policy_key(mi) : NULL, *k2 = policy_key(ipolicy_text);
		int same = k1 && !strcmp(k1, k2);
		free(k1);
		free(k2);
		if (mw && same && !strcmp(mw, wl) && have > 0) {
			check_stale(manifest, builddir, &stale);
			gcda = have;
			if (!o.quiet)
				fprintf(stderr, "pgo: reusing the profiles of %s (%ld data files, trained on %s)\n",
					json_get_str(manifest, "trained") ? json_get_str(manifest, "trained") : "?",
					have, wl);
		} else {
			json_free(manifest);
			manifest = NULL;
		}
	}
	if (!manifest) {
		/* 1. instrumented build */
		if (write_text(ipolicy, ipolicy_text) < 0) {
			free(ipolicy_text);
			goto out;
		}
		if (!o.quiet)
			fprintf(stderr, "pgo: stage 1/3: instrumented build (%s)\n", ipolicy);
		t0 = clock_seconds();
		if (run_build(&o, builddir, ipolicy) < 0) {
			free(ipolicy_text);
			goto out;
		}
		t_instr = clock_seconds() - t0;
		if (o.instrument_only) {
			printf("pgo: instrumented install in %s (build %.0f s); profile it with "
			       "pgbuild profile --prefix %s --method gcov\n", o.prefix, t_instr, o.prefix);
			free(ipolicy_text);
			ret = PGBUILD_EXIT_OK;
			goto out;
		}

		/* 2. training */
		if (!o.quiet)
			fprintf(stderr, "pgo: stage 2/3: training on %s\n", wl);
		t0 = clock_seconds();
		if (prof_remove_gcda(builddir) < 0 || prof_hand_tree(builddir) < 0) {
			free(ipolicy_text);
			goto out;
		}
		run.prefix = o.prefix;
		run.quiet = o.quiet;
		if (prof_run_workloads(&run) < 0) {
			free(ipolicy_text);
			goto out;
		}
		gcda = prof_count_gcda(builddir);
		t_train = clock_seconds() - t0;
		if (gcda <= 0) {
			error("training wrote no profile data below %s", builddir);
			free(ipolicy_text);
			goto out;
		}
		if (!o.quiet)
			fprintf(stderr, "pgo: %ld profile data files\n%s", gcda, run.summary.buf);
		trained = 1;

		/* the manifest */
		rec = prof_build_record(o.prefix);
		const char *srcdir = json_get_str(json_get(rec, "source"), "dir");
		struct json_writer jw = JSON_WRITER_INIT(&sb);
		time_t t = time(NULL);
		char when[32];
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
		json_object_begin(&jw);
		json_key(&jw, "kind"); json_string(&jw, "pgbuild-pgo-profile");
		json_key(&jw, "trained"); json_string(&jw, when);
		json_key(&jw, "workloads"); json_string(&jw, wl);
		json_key(&jw, "clients"); json_int(&jw, run.clients);
		json_key(&jw, "duration"); json_int(&jw, run.duration);
		json_key(&jw, "gcda_files"); json_int(&jw, gcda);
		json_key(&jw, "instrument_policy"); json_string(&jw, ipolicy_text);
		json_key(&jw, "source_dir"); json_string(&jw, srcdir);
		json_key(&jw, "sources");
		if (srcdir)
			source_hashes(builddir, srcdir, &jw);
		else
			json_null(&jw);
		json_object_end(&jw);
		strbuf_addch(&sb, '\n');
		if (write_text(mpath, sb.buf) < 0) {
			free(ipolicy_text);
			goto out;
		}
		strbuf_setlen(&sb, 0);
	}
	free(ipolicy_text);

	/* 3. the optimized build */
	if (stale.nr) {
		char *list = joined(&stale, " ");
		warning("%zu unit(s) changed since the training: their profiles are stale and "
			"were dropped (built without profile; --retrain to train again): %s",
			stale.nr, list);
		free(list);
	}
	if (write_text(upolicy, pol.buf) < 0)
		goto out;
	if (!o.quiet)
		fprintf(stderr, "pgo: stage 3/3: optimized build (%s)\n", upolicy);
	t0 = clock_seconds();
	if (run_build(&o, builddir, upolicy) < 0)
		goto out;
	t_use = clock_seconds() - t0;

	/* 4. checks */
	ret = PGBUILD_EXIT_OK;
	if (o.regress) {
		struct child_process cp = CHILD_PROCESS_INIT;
		strvec_pushl(&cp.args, pgbuild_self(), "regress", "--builddir", builddir, NULL);
		cp.no_stdin = 1;
		t0 = clock_seconds();
		regress_code = run_command(&cp);
		t_regress = clock_seconds() - t0;
		child_process_clear(&cp);
		if (regress_code != 0)
			ret = regress_code == 1 ? PGBUILD_EXIT_FAIL : PGBUILD_EXIT_ERROR;
	}
	if (o.gate && ret == PGBUILD_EXIT_OK) {
		struct child_process cp = CHILD_PROCESS_INIT;
		strvec_pushl(&cp.args, pgbuild_self(), "gate", "--baseline", o.baseline,
			     "--candidate", o.prefix, "--gate", o.gate, NULL);
		if (regress_code == 0)
			strvec_pushl(&cp.args, "--regress-result", "passed", NULL);
		cp.no_stdin = 1;
		gate_code = run_command(&cp);
		child_process_clear(&cp);
		if (gate_code != 0)
			ret = gate_code == 1 ? PGBUILD_EXIT_FAIL : PGBUILD_EXIT_ERROR;
	}

	/* the record */
	{
		struct json_writer jw = JSON_WRITER_INIT(&sb);
		json_object_begin(&jw);
		json_key(&jw, "kind"); json_string(&jw, "pgbuild-pgo");
		json_key(&jw, "builddir"); json_string(&jw, builddir);
		json_key(&jw, "workloads"); json_string(&jw, wl);
		json_key(&jw, "trained_now"); json_bool(&jw, trained);
		json_key(&jw, "gcda_files"); json_int(&jw, gcda);
		json_key(&jw, "use_flags"); json_string(&jw, PGO_USE_CFLAGS);
		json_key(&jw, "files");
		json_strvec(&jw, &o.files);
		json_key(&jw, "stale");
		json_strvec(&jw, &stale);
		json_key(&jw, "seconds");
		json_object_begin(&jw);
		json_key(&jw, "instrumented_build"); json_double(&jw, t_instr);
		json_key(&jw, "training"); json_double(&jw, t_train);
		json_key(&jw, "optimized_build"); json_double(&jw, t_use);
		json_key(&jw, "regress"); json_double(&jw, t_regress);
		json_object_end(&jw);
		json_key(&jw, "regress");
		json_string(&jw, regress_code < 0 ? "not run" : regress_code == 0 ? "passed" : "failed");
		json_key(&jw, "gate");
		if (gate_code < 0)
			json_null(&jw);
		else
			json_string(&jw, gate_code == 0 ? "passed" : gate_code == 1 ? "failed" : "error");
		json_object_end(&jw);
		strbuf_addch(&sb, '\n');
		char *path = xasprintf("%s/%s", o.prefix, PGO_MANIFEST);
		if (write_text(path, sb.buf) < 0)
			ret = PGBUILD_EXIT_ERROR;
		free(path);
	}
	printf("pgo: %s: trained on %s (%s), %ld profile data files, %zu stale; "
	       "build %.0f s + training %.0f s + optimized build %.0f s; regression suite %s\n",
	       ret == PGBUILD_EXIT_OK ? "OK" : "FAILED", wl, trained ? "now" : "reused", gcda,
	       stale.nr, t_instr, t_train, t_use,
	       regress_code < 0 ? "not run" : regress_code == 0 ? "passed" : "FAILED");
out:
	json_free(manifest);
	json_free(rec);
	strvec_clear(&stale);
	strvec_clear(&o.files);
	strbuf_release(&pol);
	strbuf_release(&sb);
	prof_run_release(&run);
	free(builddir);
	free(prefix);
	free(ipolicy);
	free(upolicy);
	free(mpath);
	free(wl);
	return ret;
}
