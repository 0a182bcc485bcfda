/*
 * prepare.c - every check of `pgbuild bolt` before the long work, and the
 * decision whether the kept profile is reused; see bolt.h (bolt_prepare).
 */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgbuild/bolt/bolt.h"
#include "pgbuild/cli/cli.h"
#include "pgbuild/build/buildlog.h"
#include "pgbuild/cluster/workdir.h"
#include "pgbuild/pgbuild.h"
#include "pgbuild/profile/run.h"
#include "wrapper/policy/vocab.h"

void bolt_opts_init(struct bolt_opts *o)
{
	memset(o, 0, sizeof(*o));
	strvec_init(&o->workloads);
	strvec_init(&o->settings);
	o->duration = 5;
	o->clients = 2;
	o->scale = 1;
	o->regress = 1;
}

void bolt_opts_release(struct bolt_opts *o)
{
	strvec_clear(&o->workloads);
	strvec_clear(&o->settings);
}

const char *bolt_optimize_flags(const struct bolt_opts *o)
{
	return o->flags ? o->flags : BOLT_OPTIMIZE_FLAGS;
}

void bolt_push_flags(struct strvec *args, const char *flags)
{
	size_t first = args->nr;

	strvec_split(args, flags);
	for (size_t i = first; i < args->nr; i++)
		if (!strcmp(args->v[i], "-dyno-stats") || !strcmp(args->v[i], "--dyno-stats"))
			return;
	strvec_push(args, "-dyno-stats");
}

/* An option word's name: "-name=value" and "--name=value" give "name=value". */
static const char *flag_name(const char *word)
{
	return word + (word[0] == '-') + (word[0] == '-' && word[1] == '-');
}

char *bolt_plt_flag(const char *flags)
{
	struct strvec w = STRVEC_INIT;
	char *found = NULL;

	strvec_split(&w, flags ? flags : "");
	for (size_t i = 0; i < w.nr && !found; i++) {
		const char *name = flag_name(w.v[i]);
		if (!strncmp(name, "plt=", 4) && strcmp(name + 4, "none"))
			found = xstrdup(w.v[i]);
	}
	strvec_clear(&w);
	return found;
}

int bolt_check_flags(const char *opt, const char *flags)
{
	struct strvec w = STRVEC_INIT;
	int rc = 0;

	strvec_split(&w, flags);
	if (!w.nr)
		rc = -1, error("%s: no flags: give llvm-bolt's layout flags, e.g. \"%s\"", opt,
			       BOLT_OPTIMIZE_FLAGS);
	for (size_t i = 0; i < w.nr && !rc; i++) {
		const char *name = flag_name(w.v[i]);
		size_t len = strcspn(name, "=");
		struct strbuf why = STRBUF_INIT;

		if (w.v[i][0] != '-' || !len)
			rc = -1, error("%s: \"%s\" is not an option: every word is one of "
				       "llvm-bolt's options (-name or -name=value)", opt, w.v[i]);
		else if (vocab_bolt_check(w.v[i], &why) != VOCAB_OK)
			rc = -1, error("%s: \"%s\" is not a layout flag: %s", opt, w.v[i], why.buf);
		strbuf_release(&why);
	}
	strvec_clear(&w);
	return rc;
}

void bolt_release(struct bolt_run *b)
{
	free(b->in);
	free(b->in_binary);
	free(b->out);
	free(b->workdir);
	free(b->builddir);
	free(b->llvm_bolt);
	free(b->bolt_version);
	free(b->profile);
	free(b->regress_json);
	strbuf_release(&b->workloads);
	strbuf_release(&b->settings);
	json_free(b->in_record);
	json_free(b->manifest);
	memset(b, 0, sizeof(*b));
}

/* path made absolute with its existing part resolved (links, ..): the
 * path itself when it exists, else its parent's real path + its name. */
static char *resolve(const char *path)
{
	char real[PATH_MAX];
	char *abs = path_absolute(path), *dir, *base, *r;

	if (realpath(abs, real)) {
		free(abs);
		return xstrdup(real);
	}
	dir = xstrdup(abs);
	base = xstrdup(abs);
	if (realpath(dirname(dir), real))
		r = xasprintf("%s/%s", strcmp(real, "/") ? real : "", basename(base));
	else
		r = xstrdup(abs);
	free(dir);
	free(base);
	free(abs);
	return r;
}

/* Is a inside directory b (not b itself)? */
static int is_below(const char *a, const char *b)
{
	size_t n = strlen(b);
	return !strncmp(a, b, n) && a[n] == '/';
}

static int prepare_paths(struct bolt_run *b)
{
	const struct bolt_opts *o = b->o;

	if (!(b->in = path_real(o->install)))
		return -1;
	b->in_binary = xasprintf("%s/bin/postgres", b->in);
	b->out = resolve(o->prefix);
	b->workdir = o->workdir ? resolve(o->workdir) : xasprintf("%s.bolt", b->out);
	if (!strcmp(b->out, b->in))
		return error("--prefix %s is --install itself: BOLT's output goes into a new prefix, "
			     "never in place", o->prefix);
	if (is_below(b->out, b->in))
		return error("--prefix %s is inside --install %s: give a directory outside it",
			     b->out, b->in);
	if (is_below(b->in, b->out))
		return error("--install %s is inside --prefix %s, which is replaced: give another "
			     "--prefix", b->in, b->out);
	if (!strcmp(b->workdir, b->out) || is_below(b->workdir, b->out) ||
	    !strcmp(b->workdir, b->in) || is_below(b->workdir, b->in))
		return error("--workdir %s is inside --install or --prefix: give a directory of its own",
			     b->workdir);
	return 0;
}

/* See bolt.h. */
const char *bolt_dir_of(const char *given, const char **origin)
{
	const char *env = getenv(BOLT_DIR_ENV);

	if (given) {
		*origin = "--bolt";
		return given;
	}
	if (env && *env) {
		*origin = "$" BOLT_DIR_ENV;
		return env;
	}
	*origin = "the default";
	return BOLT_DEFAULT_DIR;
}

/* See bolt.h. */
int bolt_check_dir_quiet(const char *dir)
{
	char *prog = xasprintf("%s/llvm-bolt", dir);
	int ok = is_executable(prog);

	free(prog);
	return ok ? 0 : -1;
}

/* See bolt.h. */
int bolt_check_dir(const char *dir, const char *origin)
{
	if (bolt_check_dir_quiet(dir) == 0)
		return 0;
	return error("BOLT is not installed: no llvm-bolt in %s (%s); install BOLT 15, "
		     "Debian's %s package (apt-get install %s, or `make deps` in "
		     "pgoptcc's source tree), or another LLVM's (bolt-19: --bolt "
		     "/usr/lib/llvm-19/bin)", dir, origin, BOLT_PACKAGE, BOLT_PACKAGE);
}

/* See bolt.h. */
int bolt_prepare_tools(struct bolt_run *b)
{
	const char *origin, *dir = bolt_dir_of(b->o->bolt_dir, &origin);
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT;
	const char *v;

	if (bolt_check_dir(dir, origin) < 0)
		return -1;
	b->llvm_bolt = xasprintf("%s/llvm-bolt", dir);
	strvec_pushl(&cp.args, b->llvm_bolt, "--version", NULL);
	cp.no_stdin = 1;
	if (capture_command(&cp, &out, 1) != 0) {
		child_process_clear(&cp);
		strbuf_release(&out);
		return error("%s --version failed: is it LLVM BOLT?", b->llvm_bolt);
	}
	child_process_clear(&cp);
	v = strstr(out.buf, "LLVM version");
	while (v && v > out.buf && v[-1] != '\n')
		v--;
	b->bolt_version = v ? xstrndup(v, strcspn(v, "\n")) : xstrdup("unknown");
	strbuf_release(&out);
	return 0;
}

/* What training needs: BOLT's instrumentation runtime, which llvm-bolt
 * finds in ../lib beside itself, and IN's initdb. */
static int check_training(const struct bolt_run *b)
{
	char *dir = xstrdup(b->llvm_bolt), *rt, *initdb = xasprintf("%s/bin/initdb", b->in);
	int ok;

	rt = xasprintf("%s/../lib/libbolt_rt_instr.a", dirname(dir));
	ok = access(rt, R_OK) == 0;
	if (!ok)
		error("BOLT's instrumentation runtime %s is missing: llvm-bolt finds it in ../lib "
		      "beside itself (the llvm-bolt-15 name on PATH does not: use --bolt %s)",
		      rt, BOLT_DEFAULT_DIR);
	else if (!(ok = is_executable(initdb)))
		error("--install %s has no bin/initdb, which training needs: give an installed "
		      "PostgreSQL (or a trained --profile)", b->in);
	free(initdb);
	free(rt);
	free(dir);
	return ok ? 0 : -1;
}

static int prepare_input(struct bolt_run *b)
{
	struct strbuf why = STRBUF_INIT;
	char *rec = xasprintf("%s/%s", b->in, BUILDLOG_RECORD);
	int r = bolt_binary_ready(b->in_binary, bolt_optimize_flags(b->o), &why), ok = r > 0;

	if (!ok)
		error("%s", why.buf);
	strbuf_release(&why);
	if (ok && bolt_file_sha256(b->in_binary, b->in_sha) < 0)
		ok = 0;
	if (ok && path_exists(rec) && !(b->in_record = buildlog_read_json(rec)))
		ok = 0;
	free(rec);
	return ok ? 0 : -1;
}

/* An existing directory with nothing in it? */
static int dir_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int empty = 1;

	if (!d)
		return 0;
	while (empty && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = 0;
	closedir(d);
	return empty;
}

/* OUT: absent, empty, a previous bolt output, or (--force) an install. */
static int prepare_out(struct bolt_run *b)
{
	char *rec, *bin;
	struct json_value *v = NULL;
	int is_bolt, installed;

	if (!path_exists(b->out))
		return 0;
	b->replace_out = 1;
	if (dir_empty(b->out))
		return 0;
	rec = xasprintf("%s/%s", b->out, BUILDLOG_RECORD);
	bin = xasprintf("%s/bin/postgres", b->out);
	if (path_exists(rec))
		v = buildlog_read_json(rec);
	is_bolt = json_get(v, "bolt") && json_get(v, "bolt")->type == JSON_OBJECT;
	installed = path_exists(bin);
	json_free(v);
	free(rec);
	free(bin);
	if (is_bolt || (b->o->force && installed))
		return 0;
	if (installed)
		return error("--prefix %s exists and is not the output of pgbuild bolt (its %s has no "
			     "\"bolt\"): choose another directory, or give --force to replace the "
			     "PostgreSQL installed there", b->out, BUILDLOG_RECORD);
	return error("--prefix %s exists and is neither an installed PostgreSQL nor the output of "
		     "pgbuild bolt: choose another directory (it is not replaced, even with --force)",
		     b->out);
}

/* Read a manifest (NULL when there is none). */
static struct json_value *read_manifest(const char *profile)
{
	char *m = bolt_manifest_path(profile);
	struct json_value *v = path_exists(m) ? buildlog_read_json(m) : NULL;
	free(m);
	return v;
}

/* A --profile FILE: refused when its manifest says it is stale. */
static int given_profile(struct bolt_run *b, const struct bolt_train_key *k)
{
	struct strbuf why = STRBUF_INIT;
	unsigned what = BOLT_CHECK_INPUT | (b->o->workloads_given ? BOLT_CHECK_WORKLOADS : 0);
	int ok = 1;

	if (cli_check_input("--profile", b->o->profile) < 0 || !(b->profile = path_real(b->o->profile)))
		return -1;
	b->reuse = 1;
	b->manifest = read_manifest(b->profile);
	if (!b->manifest) {
		char *m = bolt_manifest_path(b->profile);
		warning("--profile %s has no manifest (%s): whether it was trained on %s is not "
			"checked", b->profile, m, b->in_binary);
		free(m);
	} else if (!bolt_profile_check(b->manifest, k, what, &why)) {
		error("--profile %s is stale: %s; train again (without --profile) or give the "
		      "profile of this binary", b->profile, why.buf);
		ok = 0;
	}
	strbuf_release(&why);
	return ok ? 0 : -1;
}

/* The kept profile: reused when current, else trained again (one line why). */
static int prepare_profile(struct bolt_run *b)
{
	const struct bolt_opts *o = b->o;
	struct bolt_train_key k = { b->in_sha, b->workloads.buf, o->duration, o->clients, o->scale,
				    b->settings.buf };
	struct strbuf why = STRBUF_INIT;

	if (o->profile)
		return given_profile(b, &k);
	b->profile = bolt_path(b, "profile.fdata");
	if (!path_exists(b->profile))
		return check_training(b);
	if (o->retrain) {
		fprintf(stderr, "bolt: --retrain: training again (the kept profile %s is replaced)\n",
			b->profile);
		return check_training(b);
	}
	b->manifest = read_manifest(b->profile);
	if (bolt_profile_check(b->manifest, &k, BOLT_CHECK_INPUT | BOLT_CHECK_WORKLOADS |
			       BOLT_CHECK_TRAINING, &why)) {
		b->reuse = 1;
		if (!o->quiet)
			fprintf(stderr, "bolt: reusing the profile %s (trained on %s for this binary, "
				"%s)\n", b->profile, b->workloads.buf,
				json_get_str(b->manifest, "trained_at") ?
				json_get_str(b->manifest, "trained_at") : "?");
	} else {
		fprintf(stderr, "bolt: the kept profile %s is stale: %s: training again\n",
			b->profile, why.buf);
		json_free(b->manifest);
		b->manifest = NULL;
	}
	strbuf_release(&why);
	return b->reuse ? 0 : check_training(b);
}

/* The build tree the suite runs from: --builddir, else IN's record. */
static int prepare_builddir(struct bolt_run *b)
{
	const char *dir = b->o->builddir;
	char *cfg;
	int ok;

	int trains = 0;
	for (size_t i = 0; i < b->o->workloads.nr; i++)
		trains |= !strcmp(b->o->workloads.v[i], PROF_WORKLOAD_REGRESS);
	if (!b->o->regress && !trains)
		return 0;
	if (!dir)
		dir = json_get_str(b->in_record, "builddir");
	if (!dir)
		return error("no build tree for the regression suite: %s/%s records none; give "
			     "--builddir DIR (the build tree %s was installed from)%s",
			     b->in, BUILDLOG_RECORD, b->in,
			     trains ? "" : " or --no-regress");
	if (!(b->builddir = path_real(dir)))
		return -1;
	cfg = xasprintf("%s/config.status", b->builddir);
	ok = path_exists(cfg);
	free(cfg);
	if (!ok)
		return error("--builddir %s is not a configured PostgreSQL build tree (no "
			     "config.status)", b->builddir);
	return 0;
}

int bolt_prepare(struct bolt_run *b, const struct bolt_opts *o)
{
	memset(b, 0, sizeof(*b));
	b->o = o;
	b->regress_rc = -1;
	strbuf_init(&b->workloads, 0);
	strbuf_init(&b->settings, 0);
	for (size_t i = 0; i < o->workloads.nr; i++)
		strbuf_addf(&b->workloads, "%s%s", i ? "," : "", o->workloads.v[i]);
	for (size_t i = 0; i < o->settings.nr; i++)
		strbuf_addf(&b->settings, "%s%s", i ? " " : "", o->settings.v[i]);
	if (prepare_paths(b) < 0 || prepare_input(b) < 0 || bolt_prepare_tools(b) < 0 ||
	    prepare_out(b) < 0 || prepare_builddir(b) < 0 || prepare_profile(b) < 0)
		return -1;
	{
		const char *dirs[] = { b->workdir, b->out, b->in, b->builddir, NULL };
		return workdir_server_reach(dirs);
	}
}
