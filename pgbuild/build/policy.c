/*
 * policy.c - the policy of a build as pgbuild records it: read, checked by
 * the policy library pgoptcc uses (errors name file:line), its LTO mode,
 * the hot/cold lists it names and the hash of all of it; see build.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/build/build.h"
#include "pgbuild/pgbuild.h"
#include "wrapper/common/boolean.h"
#include "wrapper/common/sha256.h"
#include "wrapper/policy/policy.h"

static char *sha256_text(const char *text, size_t len)
{
	struct sha256 c;
	char hex[SHA256_HEX_SIZE];
	sha256_init(&c);
	sha256_update(&c, text, len);
	sha256_final_hex(&c, hex);
	return xstrdup(hex);
}

/* See build.h: PGOPT_UNCHECKED_FLAGS a boolean read as pgoptcc reads it
 * (boolean.h); PGOPT_WEAKEN a list of hardening classes. */
int build_policy_flags(unsigned *flags)
{
	const char *v = getenv("PGOPT_UNCHECKED_FLAGS");
	const char *w = getenv("PGOPT_WEAKEN");
	unsigned weaken = 0;

	*flags = 0;
	if (v && boolean_parse(v) < 0)
		return error("PGOPT_UNCHECKED_FLAGS=%s: expected a boolean: " BOOLEAN_WORDS, v);
	if (v && boolean_parse(v) > 0)
		*flags |= POLICY_UNCHECKED_FLAGS;
	if (w) {
		struct strbuf err = STRBUF_INIT;
		int rc = vocab_parse_weaken(w, &weaken, &err);
		if (rc < 0)
			error("PGOPT_WEAKEN=%s: %s", w, err.buf);
		strbuf_release(&err);
		if (rc < 0)
			return -1;
	}
	*flags |= POLICY_WEAKEN(weaken);
	return 0;
}

/* The function lists (hot = FILE, cold = FILE) p names, and their text. */
static void record_lists(struct build *b, const struct policy *p)
{
	for (int i = 0; i < 2; i++) {
		const char *key = i ? "cold" : "hot", *path = i ? p->cold : p->hot;
		struct strbuf sb = STRBUF_INIT;
		if (!path)
			continue;
		strvec_push(&b->policy_refs, key);
		strvec_push(&b->policy_refs, path);
		if (sfs_read(AT_FDCWD, path, SFS_IN_TEXT, 0, &sb, NULL) < 0)
			strvec_push(&b->policy_ref_text, "");
		else
			strvec_push(&b->policy_ref_text, sb.buf);
		strbuf_release(&sb);
	}
}

/*
 * Check the policy with the policy library, as pgoptcc
 * --pgopt-check-policy does (errors "FILE:LINE: reason", the lists must
 * be readable, warnings for sections that can never match), and take its
 * LTO mode ("off", "on", "fat" or "slim") and lists.  Returns 0 or -1.
 */
static int check_policy(struct build *b)
{
	struct policy p;
	struct strbuf err = STRBUF_INIT;
	unsigned flags;
	int r = -1;

	if (build_policy_flags(&flags) < 0)
		return -1;
	if (policy_load(&p, b->policy, flags, &err) < 0) {
		error("%s", err.buf);
		goto out;
	}
	for (size_t i = 0; i < p.warnings.nr; i++)
		warning("%s", p.warnings.v[i]);
	b->lto_mode = xstrdup(p.lto == LTO_OFF ? "off" : p.lto == LTO_ON ? "on" :
			      p.lto == LTO_SLIM ? "slim" : "fat");
	record_lists(b, &p);
	b->weakened = policy_weakens(&p);
	r = 0;
out:
	policy_release(&p);
	strbuf_release(&err);
	return r;
}

int build_load_policy(struct build *b)
{
	const char *p = b->o.policy;
	char real[PATH_MAX];

	if (strcmp(p, "none")) {
		if (!realpath(p, real))
			return error("--policy \"%s\": %s", p, strerror(errno));
		struct strbuf err = STRBUF_INIT;
		if (sfs_read(AT_FDCWD, real, SFS_IN_TEXT, 0, &b->policy_text, &err) < 0) {
			int rc = error("--policy \"%s\": %s", p, err.buf);
			strbuf_release(&err);
			return rc;
		}
		strbuf_release(&err);
		b->policy = xstrdup(real);
	}
	if (b->policy && check_policy(b) < 0)
		return -1;
	/* the hash covers the files the policy names, so an edited hot/cold
	 * list is a policy change (a policy naming none hashes as before) */
	{
		struct strbuf all = STRBUF_INIT;
		strbuf_add(&all, b->policy_text.buf, b->policy_text.len);
		for (size_t i = 0; i + 1 < b->policy_refs.nr; i += 2)
			strbuf_addf(&all, "\n--- %s = %s ---\n%s", b->policy_refs.v[i],
				    b->policy_refs.v[i + 1], b->policy_ref_text.v[i / 2]);
		b->policy_sha = sha256_text(all.buf, all.len);
		strbuf_release(&all);
	}
	if (!b->lto_mode)
		b->lto_mode = xstrdup("off");
	b->lto = strcmp(b->lto_mode, "off") != 0;
	return 0;
}

/*
 * The hash pgbuild build records as policy.sha256 for a policy: its text and
 * every file it names (hot/cold lists); "none" hashes the empty text.  NULL,
 * with the error printed, when the policy is unreadable or rejected.
 */
char *build_policy_sha(const char *policy)
{
	struct build b;
	char *sha = NULL;

	memset(&b, 0, sizeof(b));
	b.o.policy = policy;
	strvec_init(&b.policy_refs);
	strvec_init(&b.policy_ref_text);
	if (build_load_policy(&b) == 0) {
		sha = b.policy_sha;
		b.policy_sha = NULL;
	}
	strbuf_release(&b.policy_text);
	strvec_clear(&b.policy_refs);
	strvec_clear(&b.policy_ref_text);
	free(b.policy);
	free(b.lto_mode);
	free(b.policy_sha);
	return sha;
}

