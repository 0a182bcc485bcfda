/*
 * verifysrc.c - where `pgbuild verify` finds a build (a build record, or
 * any build's compile log); see verifysrc.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgbuild/build/buildlog.h"
#include "pgbuild/build/verifysrc.h"
#include "pgbuild/pgbuild.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/sha256.h"

/* --policy FILE|none resolved into s->policy; 0 or -1. */
static int given_policy(const char *policy, struct verify_src *s)
{
	char real[PATH_MAX];

	if (!strcmp(policy, "none"))
		return 0;
	if (!realpath(policy, real))
		return error("--policy \"%s\": %s", policy, strerror(errno));
	s->policy = xstrdup(real);
	return 0;
}

/*
 * The policy a compile log or build record names (data): used only when
 * the file at that path still holds what the build read, sha (hex) of
 * its text, checked before a byte of it is parsed: a log that names
 * another file (a root-only one, whose lines the parser's messages would
 * show) is refused without reading it as a policy.  what: where the name
 * comes from.  0 with s->policy set, or -1.
 */
static int data_policy(const char *path, const char *sha, const char *what,
		       struct verify_src *s)
{
	char hex[SHA256_HEX_SIZE];
	struct strbuf err = STRBUF_INIT;
	int rc = 0;

	if (!sha || !*sha)
		rc = error("%s names the policy %s without the sha256 of its text: verify reads "
			   "no file a log or record names unchecked (give --policy FILE|none)",
			   what, path);
	else if (path[0] != '/' || sha256_file(AT_FDCWD, path, SFS_IN_TEXT, SFS_NOFOLLOW, hex, &err) < 0)
		rc = error("the policy %s names, %s: %s (give --policy)", what, path,
			   path[0] != '/' ? "expected an absolute path" : err.buf);
	else if (strcmp(hex, sha))
		rc = error("the policy %s names, %s, is not the file the build read (its "
			   "sha256 is not the recorded one): give --policy FILE|none", what, path);
	else
		s->policy = xstrdup(path);
	strbuf_release(&err);
	return rc;
}

/* The replay loads the policy as the build did: with the hardening
 * classes its caller allowed (PGOPT_WEAKEN).  A replay's objects are
 * compared, never shipped. */
static void replay_weakened(struct verify_src *s)
{
	struct strbuf w = STRBUF_INIT;
	if (!s->weakened.nr)
		return;
	for (size_t i = 0; i < s->weakened.nr; i++)
		strbuf_addf(&w, "%s%s", i ? "," : "", s->weakened.v[i]);
	strvec_pushf(&s->env, "PGOPT_WEAKEN=%s", w.buf);
	strbuf_release(&w);
}

/* Add the names of a "weakened" array to s->weakened. */
static void add_weakened(struct verify_src *s, const struct json_value *arr)
{
	for (size_t i = 0; arr && arr->type == JSON_ARRAY && i < json_len(arr); i++)
		if (json_at(arr, i)->type == JSON_STRING &&
		    strvec_find(&s->weakened, json_at(arr, i)->u.str.s) < 0)
			strvec_push(&s->weakened, json_at(arr, i)->u.str.s);
}

/* ---------------- a build record (pgbuild build) ---------------- */

static int load_record(const struct verify_opts *o, struct verify_src *s)
{
	char *recpath = xasprintf("%s/%s", o->prefix, BUILDLOG_RECORD);
	struct json_value *rec = NULL;
	struct buildlog_env e;
	int rc = -1;

	if (access(recpath, F_OK) < 0) {
		error("--install \"%s\" has no %s: verify needs an install made by pgbuild build "
		      "(for any other build through pgoptcc: --log DIR --builddir DIR)",
		      o->prefix, BUILDLOG_RECORD);
		goto out;
	}
	if (!(rec = buildlog_read_json(recpath)))
		goto out;
	s->builddir = xstrdup(o->builddir ? o->builddir : json_get_str(rec, "builddir") ?
			      json_get_str(rec, "builddir") : "");
	if (o->policy) {
		if (given_policy(o->policy, s) < 0)
			goto out;
	} else if (json_get_str(json_get(rec, "policy"), "path")) {
		/* the text the record holds is what the build read */
		const char *text = json_get_str(json_get(rec, "policy"), "content");
		char sha[SHA256_HEX_SIZE] = "";
		if (text) {
			struct sha256 c;
			sha256_init(&c);
			sha256_update(&c, text, strlen(text));
			sha256_final_hex(&c, sha);
		}
		if (data_policy(json_get_str(json_get(rec, "policy"), "path"), sha, recpath, s) < 0)
			goto out;
	}
	s->logfile = xasprintf("%s/pgopt-log/%s", s->builddir, BUILDLOG_COMPILE);
	if (access(s->logfile, R_OK) < 0) {
		error("no compile log %s (is --builddir right?)", s->logfile);
		goto out;
	}
	/* the record's environment is data: only what the replay needs, each
	 * value checked; the compiler is compared, never run */
	buildlog_env_read(rec, recpath, &e);
	if (e.profile)
		strvec_pushf(&s->env, "PGOPT_PROFILE=%s", e.profile);
	if (e.bundle)
		strvec_pushf(&s->env, "PGOPT_BUNDLE=%s", e.bundle);
	if (e.cc) {
		s->record = xstrdup(recpath);
		s->record_cc = xstrdup(e.cc);
	}
	buildlog_env_release(&e);
	add_weakened(s, json_get(json_get(rec, "policy"), "weakened"));
	replay_weakened(s);
	strvec_pushf(&s->links, "%s/src/backend/postgres", s->builddir);
	strvec_pushf(&s->binaries, "%s/bin/postgres", o->prefix);
	rc = 0;
out:
	json_free(rec);
	free(recpath);
	return rc;
}

/* ---------------- any build's compile log ---------------- */

/* What a scan of the compile log found. */
struct log_scan {
	const char *builddir;
	size_t blen;
	long parsed, last_line;   /* records, and the line of the last */
	long bad_line;            /* the first line that is no record, or 0 */
	long compiles;            /* successful compiles in the build directory */
	struct strvec policies;   /* the policies they ran under ("none") */
	char *policy_sha;         /* the policy_sha256 they record ("" none) */
	int sha_differs;          /* ... and not all the same one */
	struct strvec links;      /* the outputs of its successful links */
	struct verify_src *s;     /* where the weakened classes go */
};

static int in_builddir(const struct log_scan *ls, const char *cwd)
{
	return cwd && !strncmp(cwd, ls->builddir, ls->blen) &&
	       (cwd[ls->blen] == '/' || cwd[ls->blen] == '\0');
}

static int scan_record(const struct json_value *rec, long line, void *data)
{
	struct log_scan *ls = data;
	const char *policy;

	if (!ls->bad_line && line != ls->last_line + 1)
		ls->bad_line = ls->last_line + 1;
	ls->last_line = line;
	if (!json_get_str(rec, "kind")) {
		if (!ls->bad_line)
			ls->bad_line = line;
		return 0;
	}
	ls->parsed++;
	if (!in_builddir(ls, json_get_str(rec, "cwd")))
		return 0;
	add_weakened(ls->s, json_get(rec, "weakened"));
	if (buildlog_is_link(rec)) {
		strvec_push_nodup(&ls->links, buildlog_output_path(rec));
	} else if (buildlog_is_compile(rec)) {
		ls->compiles++;
		policy = json_get_str(rec, "policy");
		if (strvec_find(&ls->policies, policy ? policy : "none") < 0)
			strvec_push(&ls->policies, policy ? policy : "none");
		if (policy) {
			const char *sha = json_get_str(rec, "policy_sha256");
			if (!ls->policy_sha)
				ls->policy_sha = xstrdup(sha ? sha : "");
			else if (strcmp(ls->policy_sha, sha ? sha : ""))
				ls->sha_differs = 1;
		}
	}
	return 0;
}

/* The log's policy when --policy does not name one; 0 or -1. */
static int log_policy(const struct log_scan *ls, struct verify_src *s)
{
	struct strbuf all = STRBUF_INIT;

	if (ls->policies.nr > 1) {
		for (size_t i = 0; i < ls->policies.nr; i++)
			strbuf_addf(&all, "%s%s", i ? ", " : "", ls->policies.v[i]);
		error("the compile log %s records compiles under %zu policies (%s): "
		      "give --policy FILE|none", s->logfile, ls->policies.nr, all.buf);
		strbuf_release(&all);
		return -1;
	}
	if (!strcmp(ls->policies.v[0], "none"))
		return 0;
	if (ls->sha_differs)
		return error("the compile log %s records compiles under different texts of the "
			     "policy %s: give --policy FILE|none", s->logfile, ls->policies.v[0]);
	return data_policy(ls->policies.v[0], ls->policy_sha, s->logfile, s);
}

/* The links to check: every existing output, or --binary's; 0 or -1. */
static int log_links(const struct verify_opts *o, const struct log_scan *ls,
		     struct verify_src *s)
{
	char want[PATH_MAX];

	if (o->binary) {
		char *p = o->binary[0] == '/' ? xstrdup(o->binary) :
			  xasprintf("%s/%s", s->builddir, o->binary);
		if (!realpath(p, want)) {
			error("--binary \"%s\": %s", p, strerror(errno));
			free(p);
			return -1;
		}
		free(p);
	}
	for (size_t i = 0; i < ls->links.nr; i++) {
		char real[PATH_MAX];
		if (!realpath(ls->links.v[i], real) || (o->binary && strcmp(real, want)))
			continue;
		if (strvec_find(&s->links, ls->links.v[i]) >= 0)
			continue;
		strvec_push(&s->links, ls->links.v[i]);
		strvec_push(&s->binaries, real);
	}
	if (!s->links.nr)
		return error(o->binary ? "the compile log %s records no link of --binary %s" :
			     "the compile log %s records no link in %s whose output still exists",
			     s->logfile, o->binary ? want : s->builddir);
	return 0;
}

static int load_log(const struct verify_opts *o, struct verify_src *s)
{
	char real[PATH_MAX];
	struct log_scan ls;
	struct stat st;
	long lines;
	int rc = -1;

	if (stat(o->logdir, &st) < 0)
		return error("--log \"%s\": %s", o->logdir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return error("--log \"%s\": not a directory (the directory pgoptcc logged into)",
			     o->logdir);
	if (buildlog_dir_check("--log", o->logdir) < 0)
		return -1;
	if (!o->builddir)
		return error("--log needs --builddir DIR (the build tree of the build that logged there)");
	if (!realpath(o->builddir, real))
		return error("--builddir \"%s\": %s", o->builddir, strerror(errno));
	s->builddir = xstrdup(real);
	s->logfile = xasprintf("%s/%s", o->logdir, BUILDLOG_COMPILE);
	if (access(s->logfile, F_OK) < 0)
		return error("--log \"%s\" has no readable %s (%s): name the directory pgoptcc "
			     "logged into (--pgopt-logdir=DIR or PGOPT_LOGDIR)", o->logdir,
			     BUILDLOG_COMPILE, strerror(errno));
	memset(&ls, 0, sizeof(ls));
	ls.builddir = s->builddir;
	ls.blen = strlen(s->builddir);
	ls.s = s;
	strvec_init(&ls.policies);
	ls.policy_sha = NULL;
	ls.sha_differs = 0;
	strvec_init(&ls.links);
	{
		struct strbuf why = STRBUF_INIT;
		lines = buildlog_each(s->logfile, 1, scan_record, &ls, &why);
		if (lines < 0) {
			error("--log: %s", why.buf);
			strbuf_release(&why);
			goto out;
		}
		strbuf_release(&why);
	}
	/* a build killed mid-write may leave half a last line */
	if (!ls.bad_line && ls.last_line + 1 < lines)
		ls.bad_line = ls.last_line + 1;
	if (ls.bad_line) {
		error("%s:%ld: not a pgoptcc compile-log record (one JSON object with a \"kind\" "
		      "per line)", s->logfile, ls.bad_line);
		goto out;
	}
	if (!ls.compiles) {
		error("the compile log %s records no successful compile in --builddir %s "
		      "(%ld records in all): is it this build's log?", s->logfile, s->builddir,
		      ls.parsed);
		goto out;
	}
	if ((o->policy ? given_policy(o->policy, s) : log_policy(&ls, s)) < 0 ||
	    log_links(o, &ls, s) < 0)
		goto out;
	replay_weakened(s);
	rc = 0;
out:
	strvec_clear(&ls.policies);
	free(ls.policy_sha);
	strvec_clear(&ls.links);
	return rc;
}

int verifysrc_load(const struct verify_opts *o, struct verify_src *s)
{
	memset(s, 0, sizeof(*s));
	strvec_init(&s->env);
	strvec_init(&s->links);
	strvec_init(&s->binaries);
	strvec_init(&s->weakened);
	return o->logdir ? load_log(o, s) : load_record(o, s);
}

void verifysrc_release(struct verify_src *s)
{
	free(s->builddir);
	free(s->policy);
	free(s->logfile);
	free(s->record);
	free(s->record_cc);
	strvec_clear(&s->env);
	strvec_clear(&s->links);
	strvec_clear(&s->binaries);
	strvec_clear(&s->weakened);
}
