/*
 * deb.c - a Debian package built through pgoptcc and checked, in one
 * command (`pgbuild deb`); see deb.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgbuild/gate/verdict.h"
#include "pgbuild/build/buildlog.h"
#include "pgbuild/build/regress.h"
#include "pgbuild/build/source.h"
#include "pgbuild/cli/cli.h"
#include "pgbuild/cluster/workdir.h"
#include "pgbuild/pgbuild.h"
#include "pgbuild/pipeline/deb.h"
#include "pgbuild/pipeline/debcheck.h"
#include "pgbuild/pipeline/debenv.h"
#include "pgbuild/stage/stage.h"
#include "wrapper/common/bundle-verify.h"
#include "wrapper/common/copytree.h"
#include "wrapper/common/sha256.h"
#include "wrapper/policy/bundle-policy.h"
#include "wrapper/policy/policy.h"

enum {
	DS_SOURCE, DS_BUILD, DS_VERIFY, DS_COMPARE, DS_REGRESS, DS_MODULES, DS_GATE, DS_REPORT,
	DS_NR
};
static const char *const stage_names[DS_NR] = {
	"source", "build", "verify", "compare", "regress", "modules", "gate", "report",
};

/* One run: the options and the paths that follow from them. */
struct deb {
	const struct deb_opts *o;
	struct pipeline p;
	char *workdir, *src, *dsc, *policy, *bundle;
	char *logdir;          /* src/debian/pgopt-log */
	char *builddir;        /* src/BUILDDIR */
	char *server;          /* WORKDIR/root/usr/lib/postgresql/N, after the build */
	char *baseline;        /* ARCHIVE */
	char *fragment, *masq; /* DATADIR's fragment, LIBDIR's masquerade */
	char *source_key, *build_key;
	char *archive;         /* --archive DIR, absolute, or NULL */
	struct debenv_chroot chroot; /* --chroot: where and with what */
};

static char *file_sha256(const char *path)
{
	char hex[SHA256_HEX_SIZE];
	return sha256_file(AT_FDCWD, path, SFS_IN_BINARY, 0, hex, NULL) < 0 ? NULL : xstrdup(hex);
}

/* ---------------- stage 1: the source and the recipe ---------------- */

/* debian/rules with the fragment's lines after its first include line. */
static int add_recipe(struct deb *d)
{
	char *rules = xasprintf("%s/debian/rules", d->src);
	struct strbuf text = STRBUF_INIT, out = STRBUF_INIT;
	const char *s, *at = NULL;
	int rc = 0;

	if (sfs_read(AT_FDCWD, rules, SFS_IN_TEXT, 0, &text, &out) < 0) {
		rc = error("%s", out.buf);
		goto out;
	}
	for (s = text.buf; *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : s + strlen(s))
		if (!strncmp(s, "include ", 8)) {
			at = s;
			break;
		}
	if (!at)  /* no include line: after the first line (#!/usr/bin/make -f) */
		at = text.buf;
	at = strchr(at, '\n') ? strchr(at, '\n') + 1 : at + strlen(at);
	strbuf_add(&out, text.buf, (size_t)(at - text.buf));
	strbuf_addf(&out, "# added by pgbuild deb: the package is built through pgoptcc\n"
		    "PGOPT_MASQ := %s\nPGOPT_PGBUILD := %s\ninclude %s\n", d->masq, pgbuild_self(),
		    d->fragment);
	strbuf_addstr(&out, at);
	if (write_file_atomic(rules, out.buf, out.len) < 0 || chmod(rules, 0755) < 0)
		rc = error("cannot rewrite %s: %s", rules, strerror(errno));
out:
	free(rules);
	strbuf_release(&text);
	strbuf_release(&out);
	return rc;
}

static int st_source(struct pipeline *p, int id)
{
	struct deb *d = p->ctx;
	struct strvec a = STRVEC_INIT;
	int rc;

	if (access(d->src, F_OK) == 0 && remove_tree(d->src) < 0)
		return error("cannot remove the old %s: %s", d->src, strerror(errno));
	strvec_pushl(&a, "dpkg-source", "-x", d->dsc, d->src, NULL);
	rc = stage_run_command(p, id, &a, d->workdir, NULL, 0);
	strvec_clear(&a);
	if (rc != 0) {
		error("dpkg-source -x %s failed (exit %d; log: %s/%s.log)", d->dsc, rc, p->logdir,
		      p->names[id]);
		return PGBUILD_EXIT_ERROR;
	}
	if (add_recipe(d) < 0)
		return PGBUILD_EXIT_ERROR;
	if (d->policy) {
		struct strbuf text = STRBUF_INIT;
		char *to = xasprintf("%s/debian/pgopt.policy", d->src);
		rc = sfs_read(AT_FDCWD, d->policy, SFS_IN_TEXT, 0, &text, NULL) < 0 ? -1 : write_file_atomic(to, text.buf, text.len);
		free(to);
		strbuf_release(&text);
		if (rc < 0) {
			error("cannot copy the policy %s into the source package", d->policy);
			return PGBUILD_EXIT_ERROR;
		}
	}
	if (d->bundle) {
		char *to = xasprintf("%s/debian/pgopt-bundle", d->src);
		struct strbuf out = STRBUF_INIT;
		rc = copytree_run(d->bundle, to, COPYTREE_AS, &out);
		if (rc != 0)
			error("cannot copy the bundle %s into %s: %s", d->bundle, to, out.buf);
		free(to);
		strbuf_release(&out);
		if (rc != 0)
			return PGBUILD_EXIT_ERROR;
	}
	return 0;
}

/* ---------------- stage 2: the package build, extracted ---------------- */

static int is_deb(const char *name)
{
	size_t n = strlen(name);
	return n > 4 && !strcmp(name + n - 4, ".deb");
}

/* Remove WORKDIR's .debs (an earlier build's); 0 or -1. */
static int remove_debs(const char *dir)
{
	DIR *dh = opendir(dir);
	struct dirent *e;
	int rc = 0;
	if (!dh)
		return -1;
	while ((e = readdir(dh)))
		if (is_deb(e->d_name) && unlinkat(dirfd(dh), e->d_name, 0) < 0)
			rc = -1;
	closedir(dh);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every .deb of WORKDIR extracted into root/ or dbg/ (debcheck_extract);
 * the count, or -1 with why in err. */
static int extract_debs(struct deb *d, struct strbuf *err)
{
	char *root = xasprintf("%s/root", d->workdir), *dbg = xasprintf("%s/dbg", d->workdir);
	struct strvec pkgs = STRVEC_INIT, dbgs = STRVEC_INIT;
	DIR *dh = opendir(d->workdir);
	struct dirent *e;
	int n = -1;

	while (dh && (e = readdir(dh)))
		if (is_deb(e->d_name))
			strvec_pushf(strstr(e->d_name, "-dbgsym_") ? &dbgs : &pkgs, "%s/%s",
				     d->workdir, e->d_name);
	if (dh)
		closedir(dh);
	/* readdir's order is no order: the same tree on every run */
	if (pkgs.nr)
		qsort(pkgs.v, pkgs.nr, sizeof(*pkgs.v), cmp_str);
	if (dbgs.nr)
		qsort(dbgs.v, dbgs.nr, sizeof(*dbgs.v), cmp_str);
	if (debcheck_extract((const char *const *)pkgs.v, pkgs.nr, root, err) == 0 &&
	    debcheck_extract((const char *const *)dbgs.v, dbgs.nr, dbg, err) == 0)
		n = (int)(pkgs.nr + dbgs.nr);
	strvec_clear(&pkgs);
	strvec_clear(&dbgs);
	free(root);
	free(dbg);
	return n;
}

/* The packaged server: WORKDIR/root/usr/lib/postgresql/N with bin/postgres. */
static char *find_server(const char *workdir)
{
	char *base = xasprintf("%s/root/usr/lib/postgresql", workdir), *found = NULL;
	DIR *dh = opendir(base);
	struct dirent *e;
	while (dh && !found && (e = readdir(dh))) {
		char *pg;
		if (e->d_name[0] == '.')
			continue;
		pg = xasprintf("%s/%s/bin/postgres", base, e->d_name);
		if (access(pg, X_OK) == 0)
			found = xasprintf("%s/%s", base, e->d_name);
		free(pg);
	}
	if (dh)
		closedir(dh);
	free(base);
	return found;
}

/* Run args in dir with env added, its output into the open log fd; its
 * exit code (2 when it could not run). */
static int run_logged(int fd, const struct strvec *args, const char *dir, const struct strvec *env)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	int rc;
	strvec_pushv(&cp.args, (const char *const *)args->v);
	if (env)
		strvec_pushv(&cp.env, (const char *const *)env->v);
	cp.dir = dir;
	cp.no_stdin = 1;
	cp.out = cp.err = fd;
	rc = run_command_forwarding(&cp);
	child_process_clear(&cp);
	return rc < 0 ? PGBUILD_EXIT_ERROR : rc;
}

/* A step of the build failed: say so with the end of the log. */
static int build_failed(struct pipeline *p, int id, const char *what, int rc)
{
	char *log = stage_log(p, id);
	error("%s failed (exit %d); the end of its log %s:", what, rc, log);
	textfile_print_tail(log, 15, stderr);
	free(log);
	return PGBUILD_EXIT_ERROR;
}

/* The environment of a build daemon's dpkg-buildpackage, in the chroot:
 * nothing of ours but the fragment's knobs. */
static void chroot_env(const struct deb *d, struct strvec *env)
{
	static const char *const knobs[] = { "PGOPT_MIN_APPLIES", "PGOPT_BOLT_BINARIES", NULL };
	strvec_pushf(env, "PATH=%s", DEBENV_PATH);
	strvec_pushl(env, "HOME=/pgbuild-nonexistent", "LC_ALL=C.UTF-8", NULL);
	strvec_pushf(env, "DEB_BUILD_OPTIONS=nocheck parallel=%d", d->o->jobs);
	for (int i = 0; knobs[i]; i++)
		if (getenv(knobs[i]))
			strvec_pushf(env, "%s=%s", knobs[i], getenv(knobs[i]));
}

/* dpkg-buildpackage in a chroot made for it; the exit code of the stage. */
static int build_in_chroot(struct pipeline *p, int id, int fd, const struct strvec *dpkg)
{
	struct deb *d = p->ctx;
	struct strvec a = STRVEC_INIT, env = STRVEC_INIT;
	char el[32];
	double t0 = clock_seconds();
	int rc;

	if (debenv_chroot_remove(d->chroot.dir) < 0)
		return PGBUILD_EXIT_ERROR;
	debenv_mmdebstrap_argv(&d->chroot, &a, &env);
	dprintf(fd, "pgbuild deb: the chroot: mmdebstrap --variant=buildd %s %s, with the "
		"Build-Depends of %s/debian/control\n", d->chroot.suite, d->chroot.dir, d->src);
	rc = run_logged(fd, &a, d->workdir, &env);
	strvec_clear(&a);
	strvec_clear(&env);
	if (rc != 0)
		return build_failed(p, id, "mmdebstrap (making the chroot)", rc);
	fmt_duration(clock_seconds() - t0, 1, el, sizeof(el));
	if (!d->o->quiet)
		fprintf(stderr, "          chroot %s (%s, buildd: the Build-Depends and pgoptcc's "
			"libraries) made in %s\n", d->chroot.dir, d->chroot.suite, el);
	dprintf(fd, "pgbuild deb: chroot made in %s; the build, without network\n", el);
	chroot_env(d, &env);
	debenv_chroot_argv(&d->chroot, d->src, &env, dpkg, 0, &a);
	rc = run_logged(fd, &a, d->workdir, NULL);
	strvec_clear(&a);
	strvec_clear(&env);
	if (rc != 0)
		return build_failed(p, id, "dpkg-buildpackage (in the chroot)", rc);
	/* the build daemon's chroot is thrown away; a failed one is kept */
	if (debenv_chroot_remove(d->chroot.dir) < 0)
		return PGBUILD_EXIT_ERROR;
	return 0;
}

static int st_build(struct pipeline *p, int id)
{
	struct deb *d = p->ctx;
	struct strvec a = STRVEC_INIT, env = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	char *log;
	int rc, n, fd;

	if (remove_debs(d->workdir) < 0) {
		error("cannot remove the earlier .debs of %s: %s", d->workdir, strerror(errno));
		return PGBUILD_EXIT_ERROR;
	}
	log = stage_log(p, id);
	fd = stage_log_open(p, id);
	if (fd < 0) {
		free(log);
		return PGBUILD_EXIT_ERROR;
	}
	free(log);
	if (!d->o->chroot) {
		/* before anything is built: a host that would build another package */
		struct strbuf note = STRBUF_INIT, why = STRBUF_INIT;
		rc = debenv_check_host(d->src, DEBENV_PATH, &note, &why);
		if (rc == 0 && note.len && !d->o->quiet)
			fprintf(stderr, "          on this machine (PATH=%s): of the programs a "
				"build looks for, only the Build-Depends' (%s)\n", DEBENV_PATH, note.buf);
		if (rc < 0) {
			error("%s", why.buf);
			dprintf(fd, "pgbuild deb: %s\npgbuild deb: the build was refused before it "
				"started (the archive's build environment is not this machine's)\n",
				why.buf);
			close(fd);
		}
		strbuf_release(&note);
		strbuf_release(&why);
		if (rc < 0)
			return PGBUILD_EXIT_ERROR;
	}
	strvec_push(&a, "dpkg-buildpackage");
	strvec_pushl(&a, "-B", "-uc", "-us", NULL);
	strvec_pushf(&a, "-j%d", d->o->jobs);
	if (d->o->chroot) {
		rc = build_in_chroot(p, id, fd, &a);
	} else {
		/* no test suite in the build: the regress stage runs it on what was built */
		strvec_pushf(&env, "DEB_BUILD_OPTIONS=nocheck parallel=%d", d->o->jobs);
		/* a build daemon's PATH (what debenv_check_host looked at) */
		strvec_pushf(&env, "PATH=%s", DEBENV_PATH);
		/* the package's own compiler and flags, and the fragment's settings:
		 * not the caller's (the caller's PGOPT_PREFIX, a ccache, and the
		 * fragment's knobs PGOPT_MIN_APPLIES, PGOPT_BOLT_BINARIES do pass) */
		strvec_pushl(&env, "CC", "CFLAGS", "CPPFLAGS", "LDFLAGS", "PGOPT_POLICY", "PGOPT_LOGDIR",
			     "PGOPT_ROOT", "PGOPT_RECORDS", "PGOPT_BUNDLE", "PGOPT_PROFILE", NULL);
		rc = run_logged(fd, &a, d->src, &env);
		if (rc != 0)
			rc = build_failed(p, id, "dpkg-buildpackage", rc);
	}
	close(fd);
	strvec_clear(&a);
	strvec_clear(&env);
	if (rc != 0)
		return rc;
	n = extract_debs(d, &err);
	if (n <= 0) {
		error("%s", n < 0 ? err.buf : "the build made no .deb");
		strbuf_release(&err);
		return PGBUILD_EXIT_ERROR;
	}
	strbuf_release(&err);
	return 0;
}

/* ---------------- stages 3-8: the checks ---------------- */

static int st_verify(struct pipeline *p, int id)
{
	struct deb *d = p->ctx;
	struct strvec a = STRVEC_INIT;
	char *records = xasprintf("%s/records", d->logdir);
	int rc;
	strvec_pushl(&a, "verify", "--log", d->logdir, "--builddir", d->builddir, NULL);
	if (access(records, F_OK) == 0)
		strvec_pushl(&a, "--debug-dir", records, NULL);
	rc = stage_run_pgbuild(p, id, &a, 0);
	strvec_clear(&a);
	free(records);
	return rc;
}

/* An in-process check with its report in the stage's log. */
static int run_check(struct pipeline *p, int id, int (*check)(struct deb *d, FILE *log))
{
	int fd = stage_log_open(p, id), rc;
	FILE *fp = fd < 0 ? NULL : fdopen(fd, "w");
	if (!fp) {
		if (fd >= 0)
			close(fd);
		return PGBUILD_EXIT_ERROR;
	}
	rc = check(p->ctx, fp);
	if (fclose(fp) != 0)
		rc = PGBUILD_EXIT_ERROR;
	return rc;
}

static int compare_check(struct deb *d, FILE *log)
{
	return debcheck_compare(d->workdir, d->archive, log);
}

static int st_compare(struct pipeline *p, int id)
{
	return run_check(p, id, compare_check);
}

static int st_regress(struct pipeline *p, int id)
{
	struct deb *d = p->ctx;
	struct regress_opts ro;
	struct strvec settings = STRVEC_INIT;
	char *json = xasprintf("%s/regress.json", d->workdir);
	int rc;

	regress_opts_init(&ro);
	ro.builddir = d->builddir;
	ro.prefix = d->server;
	ro.json = json;
	/* every query JIT-compiled: a JIT provider that cannot load fails */
	for (int i = 0; debcheck_jit[i]; i++)
		if (cli_parse_setting("--set", debcheck_jit[i], &settings) < 0)
			BUG("debcheck_jit: %s", debcheck_jit[i]);
	ro.settings = &settings;
	rc = stage_run_regress(p, id, &ro, NULL);
	strvec_clear(&settings);
	free(json);
	return rc;
}

static int modules_check(struct deb *d, FILE *log)
{
	return debcheck_modules(d->server, log);
}

static int st_modules(struct pipeline *p, int id)
{
	return run_check(p, id, modules_check);
}

/* Did the suite and the modules check pass (or "failed"), where they ran? */
/*
 * What the gate's verdict is told about the suites: the regression suite's
 * own document (so the verdict has its counts) unless the modules stage
 * failed, which the document does not know; else the word.  NULL when the
 * suite did not run.  The caller frees.
 */
static char *regress_result(const struct pipeline *p, const struct deb *d)
{
	char *rj;

	if (!stage_finished(p, DS_REGRESS))
		return NULL;
	if (p->st[DS_REGRESS].exit != 0 ||
	    (stage_finished(p, DS_MODULES) && p->st[DS_MODULES].exit != 0))
		return xstrdup("failed");
	rj = xasprintf("%s/regress.json", d->workdir);
	if (access(rj, R_OK) == 0)
		return rj;
	free(rj);
	return xstrdup("passed");
}

static int st_gate(struct pipeline *p, int id)
{
	struct deb *d = p->ctx;
	const struct deb_opts *o = d->o;
	struct strvec a = STRVEC_INIT;
	char *json = xasprintf("%s/gate.json", d->workdir);
	char *junit = xasprintf("%s/gate.junit.xml", d->workdir);
	char *gwd = xasprintf("%s/gate", d->workdir);
	int rc;

	strvec_pushl(&a, "gate", "--baseline", d->baseline, "--candidate", d->server, "--gate",
		     o->gate, "--metric", o->metric, "--json", json, "--junit", junit,
		     "--workdir", gwd, NULL);
	{
		char *copy = xstrdup(o->workloads), *save = NULL;
		for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save))
			strvec_pushl(&a, "--workload", w, NULL);
		free(copy);
	}
	{
		char *rr = regress_result(p, d);
		if (rr)
			strvec_pushl(&a, "--regress-result", rr, NULL);
		free(rr);
	}
	if (o->pairs)
		strvec_pushl(&a, "--pairs", o->pairs, NULL);
	if (o->duration)
		strvec_pushl(&a, "--duration", o->duration, NULL);
	if (o->gate_no_floor)
		/* the distribution's package has no build tree to relink, so no
		 * layout floor: its side is compared at the repeat resolution,
		 * said; a bound (cycles>=1.00: not more expensive) is decided
		 * there, a claim stays undecided (README.md's recipe) */
		strvec_pushl(&a, "--noise", "none", NULL);
	if (o->quiet)
		strvec_push(&a, "--quiet");
	rc = stage_run_pgbuild(p, id, &a, 1);
	strvec_clear(&a);
	free(json);
	free(junit);
	free(gwd);
	return rc;
}

static int st_report(struct pipeline *p, int id)
{
	struct deb *d = p->ctx;
	struct strvec a = STRVEC_INIT;
	char *json = xasprintf("%s/gate.json", d->workdir);
	char *html = xasprintf("%s/report.html", d->workdir);
	int rc;
	strvec_pushl(&a, "report", "--log", d->logdir, "--html", html, NULL);
	if (access(json, R_OK) == 0)
		strvec_pushl(&a, "--gate-result", json, NULL);
	rc = stage_run_pgbuild(p, id, &a, 0);
	strvec_clear(&a);
	free(json);
	free(html);
	return rc;
}

/* ---------------- the pipeline ---------------- */

static void state_header(struct json_writer *jw, void *ctx)
{
	const struct deb *d = ctx;
	json_key(jw, "dsc"); json_string(jw, d->dsc);
	json_key(jw, "policy"); json_string(jw, d->policy);
	json_key(jw, "bundle"); json_string(jw, d->bundle);
	json_key(jw, "server"); json_string(jw, d->server);
	json_key(jw, "baseline"); json_string(jw, d->baseline);
	json_key(jw, "environment"); json_string(jw, d->o->chroot ? "chroot" : "host");
	json_key(jw, "archive"); json_string(jw, d->archive);
}

/* The default source package: the one `pgbuild source` fetched. */
static char *default_dsc(void)
{
	struct build_source s = BUILD_SOURCE_INIT;
	char *dsc = NULL;
	if (build_source_resolve(NULL, &s, 1) < 0)
		return NULL;
	if (s.pkg_version)
		dsc = xasprintf("%s/debian/%s_%s.dsc", build_source_cache_dir(),
				strchr(BUILD_SOURCE_DEFAULT, ':') + 1, s.pkg_version);
	build_source_release(&s);
	if (!dsc)
		error("the default source has no Debian package version: give --dsc FILE");
	return dsc;
}

/*
 * Without compare (--no-compare) the gate's default baseline can only be
 * the installed package (debcheck_baseline): refused before the build when
 * the .dsc's Source is not installed at its Version as shipped (the binary
 * package that ships the server is named as its source: postgresql-N;
 * debcheck_baseline checks the one that does after the build).
 */
static int installed_preflight(const char *dsc)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	const char *body;
	char *source = NULL, *version = NULL;
	int rc = -1;

	if (sfs_read(AT_FDCWD, dsc, SFS_IN_TEXT, 0, &text, &err) < 0) {
		error("--dsc %s", err.buf);
		goto out;
	}
	body = text.buf;
	if (!strncmp(body, "-----BEGIN PGP SIGNED MESSAGE-----", 34)) {
		/* the armor's header lines end at the first empty line */
		const char *blank = strstr(body, "\n\n");
		body = blank ? blank + 2 : "";
	}
	source = debenv_control_field(body, "Source");
	version = debenv_control_field(body, "Version");
	if (!source || !version) {
		error("--dsc %s: no Source or Version field (a Debian source control file?)", dsc);
		goto out;
	}
	if (debcheck_installed(source, version, &err) < 0) {
		error("--no-compare: the gate's baseline would be the installed %s %s (the "
		      "archive's is downloaded by compare), but %s: drop --no-compare, give "
		      "--baseline PREFIX, or --no-gate", source, version, err.buf);
		goto out;
	}
	rc = 0;
out:
	free(source);
	free(version);
	strbuf_release(&text);
	strbuf_release(&err);
	return rc;
}

/* One sha256 of what the .debs of dir hold: each one's name and sha256, in
 * name order (read through the bounded reader); malloced, or NULL after
 * the error. */
static char *archive_digest(const char *dir)
{
	struct strvec names = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	struct sha256 c;
	char hex[SHA256_HEX_SIZE], *out = NULL, *real = realpath(dir, NULL);
	DIR *dh = real ? opendir(real) : NULL;
	struct dirent *e;

	if (!dh) {
		error("--archive %s: %s", dir, strerror(errno));
		free(real);
		return NULL;
	}
	while ((e = readdir(dh)))
		if (is_deb(e->d_name))
			strvec_push(&names, e->d_name);
	closedir(dh);
	if (names.nr)
		qsort(names.v, names.nr, sizeof(*names.v), cmp_str);
	sha256_init(&c);
	for (size_t i = 0; i < names.nr; i++) {
		char *path = xasprintf("%s/%s", real, names.v[i]);
		int rc = sha256_file(AT_FDCWD, path, SFS_IN_BINARY, 0, hex, &err);
		free(path);
		if (rc < 0) {
			error("--archive: %s", err.buf);
			goto done;
		}
		sha256_update(&c, names.v[i], strlen(names.v[i]) + 1);
		sha256_update(&c, hex, strlen(hex) + 1);
	}
	sha256_final_hex(&c, hex);
	out = xstrdup(hex);
done:
	strvec_clear(&names);
	strbuf_release(&err);
	free(real);
	return out;
}

/* Paths, the fragment and the masquerade of this install, the keys. */
static int prepare(struct deb *d)
{
	const struct deb_opts *o = d->o;
	char *psha = NULL, *bsha = NULL, *dsha;
	int fd;

	d->dsc = o->dsc ? path_absolute(o->dsc) : default_dsc();
	if (!d->dsc)
		return -1;
	if (access(d->dsc, R_OK) < 0)
		return error("--dsc %s: %s", d->dsc, strerror(errno));
	if (!o->no_gate && !o->baseline && o->no_compare && installed_preflight(d->dsc) < 0)
		return -1;
	if (o->policy) {
		d->policy = path_absolute(o->policy);
		if (!(psha = file_sha256(d->policy)))
			return error("--policy %s: %s", d->policy, strerror(errno));
	}
	if (o->bundle) {
		/* every file against the manifest, before the bundle is copied */
		struct bundle_verified bv = BUNDLE_VERIFIED_INIT;
		struct strbuf err = STRBUF_INIT;
		d->bundle = path_absolute(o->bundle);
		if (bundle_verify(d->bundle, &bv, &err) < 0 || policy_bundle_check(&bv, &err) < 0) {
			error("--bundle %s: %s", d->bundle, err.buf);
			bundle_verified_release(&bv);
			strbuf_release(&err);
			free(psha);
			return -1;
		}
		bsha = xstrdup(bv.manifest_sha256);
		bundle_verified_release(&bv);
	}
	d->fragment = xasprintf("%s/examples/pgoptcc-deb.mk", pgbuild_datadir());
	d->masq = xasprintf("%s/masq", pgbuild_libdir());
	if (access(d->fragment, R_OK) < 0)
		return error("no debian/rules fragment %s: %s (make install, or make in pgoptcc's tree)",
			     d->fragment, strerror(errno));
	{
		char *gcc = xasprintf("%s/gcc", d->masq);
		int okm = access(gcc, X_OK) == 0;
		free(gcc);
		if (!okm)
			return error("no masquerade %s/gcc (make install, or make in pgoptcc's tree)",
				     d->masq);
	}
	d->workdir = path_absolute(o->workdir);
	if ((fd = workdir_open("--workdir", d->workdir)) < 0)
		return -1;
	close(fd);
	{
		/* resolved once: below it every path is opened without following
		 * a link (debcheck_extract, the stage logs) */
		char *real = realpath(d->workdir, NULL);
		if (real) {
			free(d->workdir);
			d->workdir = real;
		}
	}
	if (o->archive) {
		struct stat st;
		d->archive = path_absolute(o->archive);
		if (stat(d->archive, &st) < 0 || !S_ISDIR(st.st_mode))
			return error("--archive %s: %s", d->archive,
				     errno && !S_ISDIR(st.st_mode) ? strerror(errno) : "not a directory");
	}
	d->src = xasprintf("%s/src", d->workdir);
	d->logdir = xasprintf("%s/debian/pgopt-log", d->src);
	d->builddir = !strcmp(o->builddir, ".") ? xstrdup(d->src)
						  : xasprintf("%s/%s", d->src, o->builddir);
	dsha = file_sha256(d->dsc);
	d->source_key = xasprintf("dsc=%s sha=%s policy=%s bundle=%s fragment=%s", d->dsc,
				  dsha ? dsha : "?", psha ? psha : "-", bsha ? bsha : "-",
				  d->fragment);
	d->build_key = xasprintf("%s jobs=%d env=%s", d->source_key, o->jobs,
				 o->chroot ? "chroot" : "host");
	if (o->chroot) {
		char *bolt = d->bundle ? xasprintf("%s/bolt/profile.fdata", d->bundle) : NULL;
		int has_bolt = bolt && access(bolt, F_OK) == 0;
		free(bolt);
		if (has_bolt) {
			free(dsha);
			free(psha);
			free(bsha);
			return error("--chroot with a bundle that has a BOLT profile (%s/bolt): the "
				     "chroot has no llvm-bolt for the fragment's bundle bolt; build on "
				     "this machine", d->bundle);
		}
		d->chroot.dir = xasprintf("%s/chroot", d->workdir);
		d->chroot.workdir = d->workdir;
		d->chroot.control = xasprintf("%s/debian/control", d->src);
		if (debenv_chroot_prepare(&d->chroot) < 0) {
			free(dsha);
			free(psha);
			free(bsha);
			return -1;
		}
	}
	free(dsha);
	free(psha);
	free(bsha);
	stage_init(&d->p, "pgbuild-deb", stage_names, DS_NR, d->workdir, o->restart);
	d->p.quiet = o->quiet;
	d->p.header = state_header;
	d->p.ctx = d;
	return 0;
}

static void skip(struct deb *d, int id, const char *why)
{
	stage_forget(&d->p, id);
	fprintf(stderr, "[%d/%d] %-9s skipped: %s\n", id + 1, DS_NR, stage_names[id], why);
}

/* Two checks' exit codes as one: could not run (2) over failed (1) over
 * undecided (3) over passed (0). */
static int worse(int a, int b)
{
	static const int rank[] = { 0, 2, 3, 1 }; /* by exit code 0..3 */
	int ra = a >= 0 && a <= 3 ? rank[a] : 3, rb = b >= 0 && b <= 3 ? rank[b] : 3;
	return ra >= rb ? (a >= 0 && a <= 3 ? a : PGBUILD_EXIT_ERROR)
			: (b >= 0 && b <= 3 ? b : PGBUILD_EXIT_ERROR);
}

static void print_report(struct deb *d)
{
	struct strbuf text = STRBUF_INIT;
	char *log = stage_log(&d->p, DS_REPORT);
	sfs_read(AT_FDCWD, log, SFS_IN_LOG, 0, &text, NULL);
	fputs(text.buf, stdout);
	putchar('\n');
	{
		char *json = xasprintf("%s/gate.json", d->workdir);
		gate_verdict_say(json, stdout);
		free(json);
	}
	printf("packages: %s/*.deb (extracted: %s/root, %s/dbg)\nreport: %s/report.html\n",
	       d->workdir, d->workdir, d->workdir, d->workdir);
	strbuf_release(&text);
	free(log);
}

int deb_pipeline(const struct deb_opts *o)
{
	struct deb d;
	struct strbuf what = STRBUF_INIT, key = STRBUF_INIT;
	int rc = PGBUILD_EXIT_ERROR, v, checks = 0, compared = 0;

	memset(&d, 0, sizeof(d));
	d.o = o;
	if (prepare(&d) < 0)
		goto out;
	strbuf_addf(&what, "dpkg-source -x %s, and the recipe", d.dsc);
	if (stage_run(&d.p, DS_SOURCE, d.source_key, what.buf, st_source) != 0)
		goto out;
	strbuf_reset(&what);
	strbuf_addf(&what, "dpkg-buildpackage -B -j%d (through pgoptcc), %s", o->jobs,
		    o->chroot ? "in a clean chroot (mmdebstrap)" : "on this machine");
	if (stage_run(&d.p, DS_BUILD, d.build_key, what.buf, st_build) != 0)
		goto out;
	d.server = find_server(d.workdir);
	d.baseline = o->baseline ? path_absolute(o->baseline) : NULL;
	v = stage_run(&d.p, DS_VERIFY, d.build_key, "pgbuild verify --log --builddir", st_verify);
	if (v != 0) {
		rc = v;
		goto report;
	}
	if (o->no_compare) {
		skip(&d, DS_COMPARE, "--no-compare");
	} else {
		strbuf_reset(&key);
		char *digest = d.archive ? archive_digest(d.archive) : NULL;
		if (d.archive && !digest) {
			rc = PGBUILD_EXIT_ERROR;
			goto out;
		}
		/* what --archive holds, not its name: a repacked one compares again */
		strbuf_addf(&key, "%s archive=%s%s%s", d.build_key, d.archive ? d.archive : "apt",
			    digest ? " sha256=" : "", digest ? digest : "");
		free(digest);
		strbuf_reset(&what);
		strbuf_addf(&what, "every ELF file against the archive's package (%s)",
			    d.archive ? d.archive : "apt-get download");
		v = stage_run(&d.p, DS_COMPARE, key.buf, what.buf, st_compare);
		compared = v == 0 || v == PGBUILD_EXIT_FAIL;
		checks = worse(checks, v);
	}
	if (o->no_regress)
		skip(&d, DS_REGRESS, "--no-regress");
	else if (!d.server)
		skip(&d, DS_REGRESS, "no package holds a PostgreSQL server (usr/lib/postgresql/N/bin/postgres)");
	else
		checks = worse(checks, stage_run(&d.p, DS_REGRESS, d.build_key,
						 "pgbuild regress --install (installcheck), JIT forced "
						 "on every query", st_regress));
	if (o->no_modules)
		skip(&d, DS_MODULES, "--no-modules");
	else if (!d.server)
		skip(&d, DS_MODULES, "no package holds a PostgreSQL server");
	else
		checks = worse(checks, stage_run(&d.p, DS_MODULES, d.build_key,
						 "LOAD every module, CREATE EXTENSION every extension, "
						 "JIT forced", st_modules));
	if (o->no_gate) {
		skip(&d, DS_GATE, "--no-gate");
	} else if (!d.server) {
		skip(&d, DS_GATE, "no package holds a PostgreSQL server");
	} else {
		struct strbuf whose = STRBUF_INIT, err = STRBUF_INIT, ident = STRBUF_INIT;
		char *rr, *pg;
		int have;
		/* the archive's extracted tree is this run's only when compare ran
		 * to the end now or earlier (exit 0 or 1: it extracted) */
		if (!d.baseline && !(d.baseline = debcheck_baseline(d.workdir, d.archive, d.server,
								    compared, &whose, &ident, &err))) {
			error("%s", err.buf);
			strbuf_release(&err);
			strbuf_release(&ident);
			strbuf_release(&whose);
			rc = PGBUILD_EXIT_ERROR;
			goto report;
		}
		strbuf_release(&err);
		pg = xasprintf("%s/bin/postgres", d.baseline);
		have = access(pg, X_OK) == 0;
		free(pg);
		if (!have) {
			error("the baseline %s has no bin/postgres: give --baseline PREFIX, or --no-gate",
			      d.baseline);
			strbuf_release(&whose);
			strbuf_release(&ident);
			rc = PGBUILD_EXIT_ERROR;
			goto report;
		}
		if (whose.len && !o->quiet) {
			printf("gate: the baseline is %s\n", whose.buf);
			fflush(stdout);   /* before the stage's line */
		}
		strbuf_release(&whose);
		rr = regress_result(&d.p, &d);
		strbuf_reset(&key);
		strbuf_addf(&key, "%s base=%s%s%s gate=%s wl=%s metric=%s pairs=%s dur=%s regress=%s%s",
			    d.build_key, d.baseline, ident.len ? " " : "", ident.buf, o->gate,
			    o->workloads, o->metric,
			    o->pairs ? o->pairs : "", o->duration ? o->duration : "", rr ? rr : "-",
			    o->gate_no_floor ? " noise=none" : "");
		free(rr);
		strbuf_reset(&what);
		strbuf_addf(&what, "pgbuild gate --baseline %s --gate '%s'%s", d.baseline, o->gate,
			    o->gate_no_floor ? " --noise none" : "");
		checks = worse(checks, stage_run(&d.p, DS_GATE, key.buf, what.buf, st_gate));
		strbuf_release(&ident);
	}
	rc = checks;
report:
	stage_forget(&d.p, DS_REPORT); /* always rewritten: cheap */
	if (stage_run(&d.p, DS_REPORT, d.build_key, "pgbuild report", st_report) == 0 && !o->quiet)
		print_report(&d);
out:
	stage_release(&d.p);
	strbuf_release(&what);
	strbuf_release(&key);
	free(d.workdir);
	free(d.src);
	free(d.dsc);
	free(d.policy);
	free(d.bundle);
	free(d.logdir);
	free(d.builddir);
	free(d.server);
	free(d.baseline);
	free(d.fragment);
	free(d.masq);
	free(d.source_key);
	free(d.build_key);
	free(d.archive);
	free((char *)d.chroot.dir);
	free((char *)d.chroot.control);
	debenv_chroot_release(&d.chroot);
	return rc;
}
