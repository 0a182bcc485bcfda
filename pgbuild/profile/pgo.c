/*
 * pgo.c - a profile-guided PostgreSQL build in one command (`pgbuild pgo`);
 * see pgo.h.
 *
 *   1. instrumented build: the user's policy (LTO switched off: the profile
 *      is taken and matched at compile time, LTO only costs link time here)
 *      under PGOPT_PROFILE="generate GLOBS" (pgoptcc adds
 *      -fprofile-generate -ftest-coverage to the server's units: src/backend,
 *      src/pl, src/timezone, contrib, or the --files globs; and
 *      -fprofile-generate to links), through `pgbuild build` into
 *      --prefix/--builddir;
 *   2. training: a private cluster of that install runs each workload
 *      (pgbuild bench); a fast shutdown makes every server process write its
 *      counts as .gcda files below GCOV_PREFIX, a directory of the server
 *      user's, and pgbuild copies each one next to its object in the build
 *      directory (which stays ours: root never runs make in a tree the
 *      server user could change; profile/run.h); the manifest
 *      <builddir>/pgopt-pgo.json records the workloads and a hash of every
 *      translation unit's source;
 *   3. optimized build in the same build directory: the user's policy (LTO
 *      as it says) under PGOPT_PROFILE="use GLOBS" (-fprofile-use
 *      -fprofile-partial-training for those units: code the training never
 *      ran is optimized normally, not for size);
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
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pgbuild/gate/verdict.h"
#include "pgbuild/build/build.h"
#include "pgbuild/build/buildlog.h"
#include "pgbuild/build/regress.h"
#include "pgbuild/metric/workloads.h"
#include "pgbuild/pgbuild.h"
#include "pgbuild/stage/stage.h"
#include "pgbuild/profile/pgo.h"
#include "wrapper/common/sha256.h"
#include "wrapper/policy/edit.h"

/* The SHA-256 of a file's content; NULL when unreadable. */
static char *file_hash(const char *path)
{
	char hex[SHA256_HEX_SIZE];
	return sha256_file(AT_FDCWD, path, SFS_IN_TEXT, 0, hex, NULL) < 0 ? NULL : xstrdup(hex);
}

/* Relative hot and cold list paths made absolute (the parse has them
 * resolved against the policy's directory); lto out when drop_lto. */
static int pgo_rewrite(struct policy_doc *d, int drop_lto, struct strbuf *err)
{
	for (int i = 0; i < 2; i++) {
		const char *key = i ? "cold" : "hot", *abs = i ? d->pol.cold : d->pol.hot;
		char *v = policy_doc_value(d, key);
		int r = v && *v != '/' ? policy_doc_set(d, key, abs, err) : 0;
		free(v);
		if (r < 0)
			return -1;
	}
	if (drop_lto)
		return policy_doc_unset(d, "lto", "(instrumented stage without LTO)", err);
	return 0;
}

/* See pgo.h. */
int pgo_policy_text(const char *text, const char *path, int drop_lto, struct strbuf *out)
{
	struct policy_doc d;
	struct strbuf err = STRBUF_INIT;
	/* unchecked flags pass: pgbuild build checks the stage's policy with
	 * the caller's PGOPT_UNCHECKED_FLAGS */
	int r = policy_doc_parse(&d, path, text, strlen(text), POLICY_UNCHECKED, &err);

	if (r == 0)
		r = pgo_rewrite(&d, drop_lto, &err);
	if (r == 0) {
		policy_doc_text(&d, out);
		/* more is appended: the last line ends */
		if (out->len && out->buf[out->len - 1] != '\n')
			strbuf_addch(out, '\n');
	} else {
		error("%s", err.buf);
	}
	policy_doc_release(&d);
	strbuf_release(&err);
	return r;
}

/* See pgo.h. */
int pgo_policy_base(const char *path, int drop_lto, struct strbuf *out)
{
	struct strbuf text = STRBUF_INIT;
	char real[PATH_MAX];
	int r;
	if (!path || !strcmp(path, "none"))
		return 0;       /* the empty policy, as pgbuild build's --policy none */
	{
		struct strbuf err = STRBUF_INIT;
		if (sfs_read(AT_FDCWD, path, SFS_IN_TEXT, 0, &text, &err) < 0 || !realpath(path, real)) {
			r = error("--policy: %s", err.len ? err.buf : strerror(errno));
			strbuf_release(&err);
			strbuf_release(&text);
			return r;
		}
		strbuf_release(&err);
	}
	strbuf_addf(out, "# from %s\n", real);
	r = pgo_policy_text(text.buf, real, drop_lto, out);
	strbuf_release(&text);
	return r;
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

/*
 * The PGOPT_PROFILE value of a stage ("generate GLOB..." or "use GLOB..."):
 * the server's units, or the --files globs.  A policy may not name the
 * profile flags (they write and read files beside the objects): pgoptcc
 * adds them for this setting, which only the caller can give.
 */
static char *profile_setting(const struct strvec *files, const char *mode)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, mode);
	if (!files->nr)
		for (int i = 0; pgo_server_globs[i]; i++)
			strbuf_addf(&sb, " %s", pgo_server_globs[i]);
	for (size_t i = 0; i < files->nr; i++)
		strbuf_addf(&sb, " %s", files->v[i]);
	return strbuf_detach(&sb, NULL);
}

/* Say in the stage's policy what the environment adds: for whoever reads
 * it, for the build record (its content, with the flags: an instrumented
 * install is known by them) and for pgbuild build's check that the
 * policy changed (the hash covers comments). */
static void policy_add_profile_note(struct strbuf *out, const char *setting,
				    const char *cflags, const char *ldflags)
{
	strbuf_addf(out, "\n# added by pgbuild pgo: this stage is built with\n"
		    "#   PGOPT_PROFILE=%s\n"
		    "# in the build's environment, for which pgoptcc adds %s to the\n"
		    "# compiles of those units%s%s%s\n",
		    setting, cflags, ldflags ? " and " : "", ldflags ? ldflags : "",
		    ldflags ? " to links" : "");
}

static int write_text(const char *path, const char *text)
{
	return write_file_atomic(path, text, strlen(text));
}

/* One entry below src/ or contrib/ for pgo_force_relink: a link target is
 * removed (tmp_install, an installed copy, is not looked in); ctx counts
 * them. */
static enum sfs_walk_next relink_entry(struct sfs_entry *e, void *ctx)
{
	long *removed = ctx;
	const char *base = e->name;
	size_t n = strlen(base);

	if (S_ISDIR(e->st.st_mode))
		return strcmp(base, "tmp_install") ? SFS_WALK_NEXT : SFS_WALK_SKIP;
	if (!strcmp(base, "objfiles.txt") || (n > 3 && !strcmp(base + n - 3, ".so")) ||
	    strstr(base, ".so.") || (n > 2 && !strcmp(base + n - 2, ".a"))) {
		if (unlinkat(e->fd, base, 0) == 0)
			(*removed)++;
	}
	return SFS_WALK_NEXT;
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
long pgo_force_relink(const char *builddir)
{
	static const char *const tops[] = { "src", "contrib", NULL };
	struct strbuf err = STRBUF_INIT;
	long removed = 0;

	for (int i = 0; tops[i]; i++) {
		char *d = xasprintf("%s/%s", builddir, tops[i]);
		int fd = open(d, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 && sfs_walk_tree(fd, d, relink_entry, &removed, &err) < 0) {
			warning("%s", err.buf);
			strbuf_reset(&err);
		}
		if (fd >= 0)
			close(fd);
		free(d);
	}
	strbuf_release(&err);
	verbose("pgo: removed %ld link targets so make relinks them", removed);
	return removed;
}

static int run_build(const struct pgo_opts *o, const char *builddir, const char *policy,
		     const char *profile)
{
	char *cs = xasprintf("%s/config.status", builddir);
	if (access(cs, F_OK) == 0)
		pgo_force_relink(builddir);
	free(cs);
	struct child_process cp = CHILD_PROCESS_INIT;
	struct build_step b = {
		.src = o->src, .policy = policy, .prefix = o->prefix, .builddir = builddir,
		.configure_args = o->configure_args, .jobs = o->jobs, .quiet = o->quiet,
	};
	strvec_push(&cp.args, pgbuild_self());
	stage_build_argv(&cp.args, &b);
	/* the profile flags: for pgoptcc, from the caller's environment */
	strvec_pushf(&cp.env, "PGOPT_PROFILE=%s", profile);
	cp.no_stdin = 1;
	cp.out = 2;  /* build's results are progress for us */
	int code = run_command_forwarding(&cp);
	child_process_clear(&cp);
	if (code != 0)
		return error("pgbuild build --policy %s failed (exit %d)", policy, code);
	return 0;
}

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
	buildlog_each(log, 1, collect_tu, &tus, NULL);
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

/* ---------------- the run, in phases ---------------- */

/* Everything one pgo run works with. */
struct pgo {
	struct pgo_opts *o;
	char *builddir, *prefix;      /* absolute */
	char *ipolicy, *upolicy;      /* the instrumented and optimized policies */
	char *iprofile, *uprofile;    /* their PGOPT_PROFILE values */
	char *mpath;                  /* the profile manifest in the build directory */
	char *ipolicy_text;           /* the instrumented policy's text */
	struct strbuf upolicy_text;   /* the optimized policy's text */
	char *wl;                     /* the workloads, comma-separated */
	struct json_value *manifest;  /* of the profiles reused, or NULL */
	struct strvec stale;          /* units whose source changed since training */
	long gcda;                    /* profile data files */
	int trained;                  /* trained in this run */
	int llvm;                     /* the compiler is clang: one merged profile */
	char *profdata;               /* clang: BUILDDIR/PROF_LLVM_PROFDATA */
	int regress_code, gate_code;  /* -1: not run */
	double t_instr, t_train, t_use, t_regress;
};

void pgo_opts_init(struct pgo_opts *o)
{
	memset(o, 0, sizeof(*o));
	strvec_init(&o->files);
	o->regress = 1;
	prof_run_init(&o->run);
	o->run.duration = 20;
}

void pgo_opts_release(struct pgo_opts *o)
{
	strvec_clear(&o->files);
	prof_run_release(&o->run);
}

/* Absolute build directory and prefix (children run elsewhere), and the
 * two policies' texts. */
static int prepare(struct pgo *p)
{
	struct pgo_opts *o = p->o;
	struct strbuf pol = STRBUF_INIT;
	char *bd = o->builddir ? xstrdup(o->builddir) : xasprintf("%s.build", o->prefix);
	char real[PATH_MAX];
	int rc = mkdir_p(bd);

	if (rc == 0 && !(p->builddir = path_real(bd)))
		rc = -1;
	free(bd);
	/* before its link targets are removed and make runs there */
	if (rc == 0) {
		const char *skip[] = { BUILD_CHECK_TREE, NULL };
		rc = build_tree_ours(p->builddir, skip);
	}
	if (rc < 0 || mkdir_p(o->prefix) < 0)
		return -1;
	p->prefix = xstrdup(realpath(o->prefix, real) ? real : o->prefix);
	o->prefix = p->prefix;
	p->ipolicy = xasprintf("%s/pgo-instrument.policy", p->builddir);
	p->upolicy = xasprintf("%s/pgo-use.policy", p->builddir);
	p->mpath = xasprintf("%s/%s", p->builddir, PGO_MANIFEST);
	p->iprofile = profile_setting(&o->files, "generate");
	/* clang reads one merged profile, named in the mode */
	p->llvm = build_compiler_is_llvm(build_compiler());
	p->profdata = xasprintf("%s/%s", p->builddir, PROF_LLVM_PROFDATA);
	{
		char *mode = p->llvm ? xasprintf("use=%s", p->profdata) : xstrdup("use");
		p->uprofile = profile_setting(&o->files, mode);
		free(mode);
	}
	if (pgo_policy_base(o->policy, 1, &pol) < 0)
		return -1;
	if (p->llvm)
		policy_add_profile_note(&pol, p->iprofile, POLICY_PROFILE_GENERATE_LLVM,
					POLICY_PROFILE_GENERATE_LLVM);
	else
		policy_add_profile_note(&pol, p->iprofile, PROF_INSTRUMENT_CFLAGS,
					PROF_INSTRUMENT_LDFLAGS);
	p->ipolicy_text = strbuf_detach(&pol, NULL);
	if (pgo_policy_base(o->policy, 0, &p->upolicy_text) < 0)
		return -1;
	policy_add_profile_note(&p->upolicy_text, p->uprofile,
				p->llvm ? POLICY_PROFILE_USE_LLVM : PGO_USE_CFLAGS, NULL);
	return 0;
}

/* Can the profiles of an earlier run be reused (same workloads, same
 * instrumentation, data files present)?  Then the stale ones are dropped. */
static void reuse_profiles(struct pgo *p)
{
	struct pgo_opts *o = p->o;
	const char *mw, *mi, *mp;
	char *k1, *k2;
	long have;
	int same;

	if (o->retrain || o->instrument_only || access(p->mpath, R_OK) != 0 ||
	    !(p->manifest = buildlog_read_json(p->mpath)))
		return;
	mw = json_get_str(p->manifest, "workloads");
	mi = json_get_str(p->manifest, "instrument_policy");
	mp = json_get_str(p->manifest, "instrument_profile");
	/* clang: the merged profile, counted as the raw files it merged */
	have = !p->llvm ? prof_count_gcda(p->builddir) :
	       access(p->profdata, R_OK) == 0 ? (long)json_get_num(p->manifest, "gcda_files", 0) : 0;
	k1 = mi ? policy_key(mi) : NULL;
	k2 = policy_key(p->ipolicy_text);
	/* the instrumentation is the policy's meaning and the profile setting
	 * (which units), comments aside */
	same = k1 && !strcmp(k1, k2) && mp && !strcmp(mp, p->iprofile) &&
	       !strcmp(json_get_str(p->manifest, "profile_format") ?
		       json_get_str(p->manifest, "profile_format") : "gcda",
		       p->llvm ? "llvm-profdata" : "gcda");
	free(k1);
	free(k2);
	if (mw && same && !strcmp(mw, p->wl) && have > 0) {
		/* clang's profile is one file: a changed function is left out by
		 * clang itself (its hash no longer matches) */
		if (!p->llvm)
			check_stale(p->manifest, p->builddir, &p->stale);
		p->gcda = have;
		if (!o->quiet)
			fprintf(stderr, "pgo: reusing the profiles of %s (%ld data files, trained on %s)\n",
				json_get_str(p->manifest, "trained") ?
				json_get_str(p->manifest, "trained") : "?", have, p->wl);
	} else {
		json_free(p->manifest);
		p->manifest = NULL;
	}
}

/* Stage 1: the instrumented build. */
static int instrumented_build(struct pgo *p)
{
	double t0;
	if (write_text(p->ipolicy, p->ipolicy_text) < 0)
		return -1;
	if (!p->o->quiet)
		fprintf(stderr, "pgo: stage 1/3: instrumented build (%s)\n", p->ipolicy);
	t0 = clock_seconds();
	if (run_build(p->o, p->builddir, p->ipolicy, p->iprofile) < 0)
		return -1;
	p->t_instr = clock_seconds() - t0;
	return 0;
}

/* The manifest of the profiles: workloads, instrumentation, source hashes. */
static int write_manifest(struct pgo *p)
{
	struct pgo_opts *o = p->o;
	struct json_value *rec = prof_build_record(o->prefix);
	const char *srcdir = json_get_str(json_get(rec, "source"), "dir");
	struct strbuf sb = STRBUF_INIT;
	struct json_writer jw = JSON_WRITER_INIT(&sb);
	time_t t = time(NULL);
	char when[32];
	int rc;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	json_object_begin(&jw);
	json_key(&jw, "kind"); json_string(&jw, "pgbuild-pgo-profile");
	json_key(&jw, "trained"); json_string(&jw, when);
	json_key(&jw, "workloads"); json_string(&jw, p->wl);
	json_key(&jw, "clients"); json_int(&jw, o->run.clients);
	json_key(&jw, "duration"); json_double(&jw, o->run.duration);
	json_key(&jw, "gcda_files"); json_int(&jw, p->gcda);
	json_key(&jw, "profile_format"); json_string(&jw, p->llvm ? "llvm-profdata" : "gcda");
	json_key(&jw, "instrument_policy"); json_string(&jw, p->ipolicy_text);
	json_key(&jw, "instrument_profile"); json_string(&jw, p->iprofile);
	json_key(&jw, "source_dir"); json_string(&jw, srcdir);
	json_key(&jw, "sources");
	if (srcdir)
		source_hashes(p->builddir, srcdir, &jw);
	else
		json_null(&jw);
	json_object_end(&jw);
	strbuf_addch(&sb, '\n');
	rc = write_text(p->mpath, sb.buf);
	strbuf_release(&sb);
	json_free(rec);
	return rc;
}

/* Stage 2: training on a private cluster of the instrumented install. */
static int train(struct pgo *p)
{
	struct pgo_opts *o = p->o;
	struct prof_gcda g;
	double t0;
	int rc;

	if (!o->quiet)
		fprintf(stderr, "pgo: stage 2/3: training on %s\n", p->wl);
	t0 = clock_seconds();
	if (prof_gcda_begin(&g, p->builddir) < 0)
		return -1;
	if (p->llvm && unlink(p->profdata) < 0 && errno != ENOENT) {
		prof_gcda_end(&g);
		return error("cannot remove %s: %s", p->profdata, strerror(errno));
	}
	o->run.prefix = o->prefix;
	o->run.builddir = p->builddir;
	o->run.quiet = o->quiet;
	o->run.gcov_dir = g.dir;
	rc = prof_run_workloads(&o->run);
	if (rc == 0 && !p->llvm && prof_gcda_collect(&g) < 0)
		rc = -1;
	if (rc == 0 && p->llvm) {
		char *tool = build_compiler_tool(build_compiler(), "profdata");
		if (!tool)
			rc = error("llvm-profdata of %s not found (beside it, or llvm-profdata-N on "
				   "PATH): clang's raw profiles cannot be merged", build_compiler());
		else if ((p->gcda = prof_profraw_merge(&g, tool, p->profdata)) < 0)
			rc = -1;
		free(tool);
	}
	o->run.gcov_dir = NULL;
	prof_gcda_end(&g);
	if (rc < 0)
		return -1;
	if (!p->llvm)
		p->gcda = prof_count_gcda(p->builddir);
	p->t_train = clock_seconds() - t0;
	if (p->gcda <= 0)
		return error("training wrote no profile data below %s", p->builddir);
	if (!o->quiet)
		fprintf(stderr, "pgo: %ld profile data files\n%s", p->gcda, o->run.summary.buf);
	p->trained = 1;
	return write_manifest(p);
}

/* Stage 3: the build with the profiles. */
static int optimized_build(struct pgo *p)
{
	double t0;
	if (p->stale.nr) {
		char *list = joined(&p->stale, " ");
		warning("%zu unit(s) changed since the training: their profiles are stale and "
			"were dropped (built without profile; --retrain to train again): %s",
			p->stale.nr, list);
		free(list);
	}
	if (write_text(p->upolicy, p->upolicy_text.buf) < 0)
		return -1;
	if (!p->o->quiet)
		fprintf(stderr, "pgo: stage 3/3: optimized build (%s)\n", p->upolicy);
	t0 = clock_seconds();
	if (run_build(p->o, p->builddir, p->upolicy, p->uprofile) < 0)
		return -1;
	p->t_use = clock_seconds() - t0;
	return 0;
}

/* The regression suite and the gate; returns the exit code. */
static int checks(struct pgo *p)
{
	struct pgo_opts *o = p->o;
	int ret = PGBUILD_EXIT_OK;

	if (o->regress) {
		struct regress_opts ro;
		double t0 = clock_seconds();
		regress_opts_init(&ro);
		ro.builddir = p->builddir;
		ro.quiet = o->quiet;
		p->regress_code = regress_run_child(&ro, -1, 1);
		p->t_regress = clock_seconds() - t0;
		if (p->regress_code != 0)
			ret = p->regress_code == 1 ? PGBUILD_EXIT_FAIL : PGBUILD_EXIT_ERROR;
	}
	if (o->gate && ret == PGBUILD_EXIT_OK) {
		struct child_process cp = CHILD_PROCESS_INIT;
		char *json = xasprintf("%s/pgopt-pgo-gate.json", p->builddir);
		strvec_pushl(&cp.args, pgbuild_self(), "gate", "--baseline", o->baseline,
			     "--candidate", o->prefix, "--gate", o->gate, "--json", json, NULL);
		if (p->regress_code == 0)
			strvec_pushl(&cp.args, "--regress-result", "passed", NULL);
		stage_gate_argv(&cp.args, &o->gate_step);
		cp.no_stdin = 1;
		p->gate_code = run_command(&cp);
		child_process_clear(&cp);
		/* the gate's verdict, in words, as run and deb end */
		if (p->gate_code != PGBUILD_EXIT_ERROR)
			gate_verdict_say(json, stdout);
		free(json);
		/* fail and undecided are the gate's verdicts, passed on as
		 * they are (exitcodes.h); anything else could not run */
		if (p->gate_code != 0)
			ret = p->gate_code == PGBUILD_EXIT_FAIL || p->gate_code == PGBUILD_EXIT_UNDECIDED
				      ? p->gate_code : PGBUILD_EXIT_ERROR;
	}
	return ret;
}

/* OUT/pgopt-pgo.json; 0 or -1. */
static int write_record(const struct pgo *p)
{
	const struct pgo_opts *o = p->o;
	struct strbuf sb = STRBUF_INIT;
	struct json_writer jw = JSON_WRITER_INIT(&sb);
	char *path = xasprintf("%s/%s", o->prefix, PGO_MANIFEST);
	int rc;

	json_object_begin(&jw);
	json_key(&jw, "kind"); json_string(&jw, "pgbuild-pgo");
	json_key(&jw, "builddir"); json_string(&jw, p->builddir);
	json_key(&jw, "workloads"); json_string(&jw, p->wl);
	json_key(&jw, "trained_now"); json_bool(&jw, p->trained);
	json_key(&jw, "gcda_files"); json_int(&jw, p->gcda);
	json_key(&jw, "profile_format"); json_string(&jw, p->llvm ? "llvm-profdata" : "gcda");
	json_key(&jw, "use_flags");
	if (p->llvm) {
		char *f = xasprintf("-fprofile-use=%s", p->profdata);
		json_string(&jw, f);
		free(f);
	} else {
		json_string(&jw, PGO_USE_CFLAGS);
	}
	json_key(&jw, "files");
	json_strvec(&jw, &o->files);
	json_key(&jw, "stale");
	json_strvec(&jw, &p->stale);
	json_key(&jw, "seconds");
	json_object_begin(&jw);
	json_key(&jw, "instrumented_build"); json_double(&jw, p->t_instr);
	json_key(&jw, "training"); json_double(&jw, p->t_train);
	json_key(&jw, "optimized_build"); json_double(&jw, p->t_use);
	json_key(&jw, "regress"); json_double(&jw, p->t_regress);
	json_object_end(&jw);
	json_key(&jw, "regress");
	json_string(&jw, p->regress_code < 0 ? "not run" : p->regress_code == 0 ? "passed" : "failed");
	json_key(&jw, "gate");
	if (p->gate_code < 0)
		json_null(&jw);
	else
		json_string(&jw, p->gate_code == 0 ? "passed" : p->gate_code == 1 ? "failed" :
			    p->gate_code == PGBUILD_EXIT_UNDECIDED ? "undecided" : "error");
	json_object_end(&jw);
	strbuf_addch(&sb, '\n');
	rc = write_text(path, sb.buf);
	free(path);
	strbuf_release(&sb);
	return rc;
}

static void release(struct pgo *p)
{
	json_free(p->manifest);
	strvec_clear(&p->stale);
	strbuf_release(&p->upolicy_text);
	free(p->ipolicy_text);
	free(p->builddir);
	free(p->prefix);
	free(p->ipolicy);
	free(p->upolicy);
	free(p->iprofile);
	free(p->uprofile);
	free(p->mpath);
	free(p->profdata);
	free(p->wl);
}

int pgo_run(struct pgo_opts *o)
{
	struct pgo p;
	int ret = PGBUILD_EXIT_ERROR;

	memset(&p, 0, sizeof(p));
	p.o = o;
	p.regress_code = p.gate_code = -1;
	strvec_init(&p.stale);
	strbuf_init(&p.upolicy_text, 0);
	if (!o->run.workloads.nr)
		workloads_push(&o->run.workloads, WL_TRAIN);
	p.wl = joined(&o->run.workloads, ",");
	if (prepare(&p) < 0)
		goto out;
	reuse_profiles(&p);
	if (!p.manifest) {
		if (instrumented_build(&p) < 0)
			goto out;
		if (o->instrument_only) {
			printf("pgo: instrumented install in %s (build %.0f s); profile it with "
			       "pgbuild profile --install %s --method gcov\n", o->prefix, p.t_instr,
			       o->prefix);
			ret = PGBUILD_EXIT_OK;
			goto out;
		}
		if (train(&p) < 0)
			goto out;
	}
	if (optimized_build(&p) < 0)
		goto out;
	ret = checks(&p);
	if (write_record(&p) < 0)
		ret = PGBUILD_EXIT_ERROR;
	printf("pgo: %s: trained on %s (%s), %ld profile data files, %zu stale; "
	       "build %.0f s + training %.0f s + optimized build %.0f s; regression suite %s\n",
	       ret == PGBUILD_EXIT_OK ? "OK" : "FAILED", p.wl, p.trained ? "now" : "reused", p.gcda,
	       p.stale.nr, p.t_instr, p.t_train, p.t_use,
	       p.regress_code < 0 ? "not run" : p.regress_code == 0 ? "passed" : "FAILED");
out:
	release(&p);
	return ret;
}
