/*
 * tune/policy.c - what `pgbuild tune` tunes: the candidate flags (refusing
 * the ones PostgreSQL must not get), the scope, and the policy of one set
 * of flags, written with the policy editor; see tuner.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wrapper/policy/edit.h"
#include "wrapper/policy/policy.h"
#include "pgbuild/build/build.h"
#include "pgbuild/pgbuild.h"
#include "pgbuild/tune/tuner.h"

/* ---------------- candidates ---------------- */

/* Why flag (one candidate, possibly several words) cannot be tuned, or NULL;
 * weaken: the hardening classes the caller lets a policy weaken. */
static const char *refuse_reason(struct tuner *tu, const char *cand, unsigned weaken)
{
	static char buf[256];
	struct strvec words = STRVEC_INIT;
	const char *why = NULL;
	strvec_split(&words, cand);
	for (size_t i = 0; i < words.nr && !why; i++) {
		const char *w = words.v[i];
		const char *r = policy_refusal(w, 1, 0, POLICY_WEAKEN(weaken));
		if (r && words.nr == 1) {
			why = r;
		} else if (r) {
			snprintf(buf, sizeof(buf), "%s: %s", w, r);
			why = buf;
		} else if (w[0] != '-') {
			snprintf(buf, sizeof(buf), "%s: not a flag%s", w,
				 i && !strcmp(words.v[i - 1], "--param") ?
				 " (write --param=NAME=VALUE as one word)" : "");
			why = buf;
		} else if ((!strcmp(w, "-flto") || !strncmp(w, "-flto=", 6)) && !tu->global) {
			why = "LTO applies to the whole link: only with --scope global";
		} else if (!strcmp(w, "-fprofile-use")) {
			why = "needs a profile: give -fprofile-use=DIR (see pgbuild pgo)";
		}
	}
	/* "-fno-X" of a required flag, e.g. -fno-wrapv, is on the unsafe
	 * list; adding a required flag is harmless */
	strvec_clear(&words);
	return why;
}

int tuner_load_candidates(struct tuner *tu, const char *path)
{
	struct strbuf text = STRBUF_INIT;
	char *save = NULL, *line;
	int lineno = 0, rc = 0;
	unsigned flags;

	/* the vocabulary's check, with the hardening the caller lets the
	 * policy weaken (--weaken, PGOPT_WEAKEN) */
	if (build_policy_flags(&flags) < 0)
		return -1;
	{
		struct strbuf err = STRBUF_INIT;
		char *name = xasprintf("--candidates %s", path);
		long got = sfs_read_as(AT_FDCWD, path, name, SFS_IN_TEXT, 0, &text, &err);
		free(name);
		if (got < 0) {
			error("%s", err.buf);
			strbuf_release(&err);
			strbuf_release(&text);
			return -1;
		}
		strbuf_release(&err);
	}
	for (line = strtok_r(text.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct strbuf c = STRBUF_INIT;
		char *hash = strchr(line, '#');
		const char *why;
		lineno++;
		if (hash)
			*hash = 0;
		strbuf_addstr(&c, line);
		strbuf_trim(&c);
		if (!c.len) {
			strbuf_release(&c);
			continue;
		}
		/* normalise blanks so the state's names are stable */
		{
			struct strvec w = STRVEC_INIT;
			strvec_split(&w, c.buf);
			strbuf_reset(&c);
			for (size_t i = 0; i < w.nr; i++)
				strbuf_addf(&c, "%s%s", i ? " " : "", w.v[i]);
			strvec_clear(&w);
		}
		if ((why = refuse_reason(tu, c.buf, POLICY_WEAKEN_MASK(flags)))) {
			warning("%s: refused candidate \"%s\": %s", path, c.buf, why);
			strvec_pushf(&tu->refused, "%s: %s", c.buf, why);
		} else if (tune_engine_add_flag(&tu->t, c.buf) < 0) {
			if (tu->t.flags.nr >= TUNE_MAX_FLAGS)
				rc = error("%s: more than %d candidates", path, TUNE_MAX_FLAGS);
			else
				warning("%s: duplicate candidate \"%s\" ignored", path, c.buf);
		}
		strbuf_release(&c);
		if (rc)
			break;
	}
	strbuf_release(&text);
	if (!rc && !tu->t.flags.nr)
		rc = error("%s: no candidate flags left to tune", path);
	return rc;
}

/* DATADIR/pgoptcc/tune-candidates.txt (the build tree has a copy) */
const char *tuner_default_candidates(void)
{
	static char *p;
	if (!p)
		p = xasprintf("%s/tune-candidates.txt", pgbuild_datadir());
	return p;
}

int tuner_load_scope(struct tuner *tu)
{
	const char *s = tu->o.scope;
	if (!strcmp(s, "global")) {
		tu->global = 1;
		return 0;
	}
	if (s[0] == '@') {
		struct strbuf text = STRBUF_INIT;
		char *save = NULL;
		struct strbuf err = STRBUF_INIT;
		char *name = xasprintf("--scope file %s", s + 1);
		long got = sfs_read_as(AT_FDCWD, s + 1, name, SFS_IN_TEXT, 0, &text, &err);
		free(name);
		if (got < 0) {
			int rc = error("%s", err.buf);
			strbuf_release(&err);
			strbuf_release(&text);
			return rc;
		}
		strbuf_release(&err);
		for (char *l = strtok_r(text.buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			struct strvec w = STRVEC_INIT;
			char *hash = strchr(l, '#');
			if (hash)
				*hash = 0;
			strvec_split(&w, l);
			if (w.nr)
				strvec_push(&tu->scope_globs, w.v[0]);
			strvec_clear(&w);
		}
		strbuf_release(&text);
		if (!tu->scope_globs.nr)
			return error("--scope file %s names no files", s + 1);
		return 0;
	}
	if (strchr(s, ']') || strchr(s, '\n') || !*s)
		return error("invalid value \"%s\" for --scope: expected global, a glob or @FILE", s);
	strvec_push(&tu->scope_globs, s);
	return 0;
}

/* ---------------- policies ---------------- */

/* The flags of set for cflags, space-separated, into cflags; 1 when set
 * holds -flto (lto = on instead). */
static int set_cflags(struct tuner *tu, tune_set set, struct strbuf *cflags)
{
	int lto = 0;
	for (size_t i = 0; i < tu->t.flags.nr; i++) {
		const char *f = tu->t.flags.v[i];
		if (!(set & ((tune_set)1 << i)))
			continue;
		if (!strcmp(f, "-flto") || !strncmp(f, "-flto=", 6))
			lto = 1;
		else
			strbuf_addf(cflags, "%s%s", cflags->len ? " " : "", f);
	}
	return lto;
}

/* The comment lines of the policy of set. */
static void policy_comments(struct tuner *tu, tune_set set, struct policy_doc *d)
{
	char *flags = tune_set_text(&tu->t, set);
	char *c = xasprintf("pgbuild tune: %s for %s (%s), scope %s", *flags ? flags : "stock",
			    tu->o.workload, tu->o.metric, tu->o.scope);
	policy_doc_add_comment(d, c);
	if (tu->o.bundle) {
		/* the text differs from the same flags without the profile, so
		 * an incremental build never takes one for the other */
		free(c);
		c = xasprintf("on the bundle's policy above, built with its PGO profile: "
			      "PGOPT_BUNDLE=%s", tu->o.bundle);
		policy_doc_add_comment(d, c);
	}
	if (!tu->o.plugin)
		policy_doc_add_comment(d, "distccd refuses -fplugin: without the plugin the compiles can be distributed");
	free(c);
	free(flags);
}

/* The sections of the policy of set: [global] (plugin, lto, the flags
 * with --scope global), else one per scope glob with the flags. */
static int policy_sections(struct tuner *tu, tune_set set, struct policy_doc *d,
			   struct strbuf *err)
{
	struct strbuf cflags = STRBUF_INIT;
	int lto = set_cflags(tu, set, &cflags), rc = 0;
	/* [global]: the bundle's policy may have one already */
	int global = policy_doc_section(d, "global");

	if (global < 0 && (tu->global || !tu->o.plugin))
		rc = global = policy_doc_add_section(d, "global", err);
	rc = rc < 0 ? -1 : 0;
	if (!rc && !tu->o.plugin)
		rc = policy_doc_set(d, "plugin", "off", err);
	if (!rc && tu->global && lto)
		rc = policy_doc_set(d, "lto", "on", err);
	if (!rc && tu->global && cflags.len)
		rc = policy_doc_add_flags(d, global, "cflags", 1, cflags.buf, err);
	for (size_t i = 0; !rc && !tu->global && cflags.len && i < tu->scope_globs.nr; i++) {
		int sec = policy_doc_add_section(d, tu->scope_globs.v[i], err);
		rc = sec < 0 ? -1 : policy_doc_add_flags(d, sec, "cflags", 1, cflags.buf, err);
	}
	strbuf_release(&cflags);
	return rc;
}

/*
 * The text of set's policy (to be written at path), built with the policy
 * editor: every edit is checked by the wrapper's own parser (unsafe flags
 * are errors there), so no unsafe policy is ever written.  NULL, with the
 * error printed, when the parser refuses it.
 */
char *tuner_policy_text(struct tuner *tu, tune_set set, const char *path)
{
	struct policy_doc d;
	struct strbuf err = STRBUF_INIT, sb = STRBUF_INIT;
	char *text = NULL;

	if (tu->o.bundle) {
		/* the policy the bundle was trained with, then the set's flags:
		 * its profile is the instrumented build's of that policy */
		char *bp = xasprintf("%s/pgopt.policy", tu->o.bundle);
		struct strbuf btext = STRBUF_INIT;
		int r = sfs_read(AT_FDCWD, bp, SFS_IN_TEXT, 0, &btext, &err);
		if (r < 0)
			error("the bundle's policy: %s", err.buf);
		else if (policy_doc_parse(&d, bp, btext.buf, btext.len, 0, &err) < 0)
			error("%s", err.buf);
		strbuf_release(&btext);
		free(bp);
		if (r < 0 || err.len) {
			if (r < 0)
				policy_doc_init(&d, path, 0);
			policy_doc_release(&d);
			strbuf_release(&err);
			return NULL;
		}
	} else {
		policy_doc_init(&d, path, 0);
	}
	policy_comments(tu, set, &d);
	if (policy_sections(tu, set, &d, &err) < 0) {
		error("generated policy rejected by pgoptcc's parser: %s", err.buf);
	} else {
		policy_doc_text(&d, &sb);
		text = strbuf_detach(&sb, NULL);
	}
	policy_doc_release(&d);
	strbuf_release(&err);
	return text;
}
