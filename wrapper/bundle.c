/*
 * bundle.c - a profile bundle applied to one compile; see bundle.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wrapper/bundle.h"
#include "wrapper/common/fdio.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/xalloc.h"
#include "wrapper/policy/policy.h"

/* See bundle.h. */
int bundle_lookup(const char *dir, const char *tu, const char *object, struct bundle_use *u)
{
	char *rel = policy_bundle_gcda(tu, object);
	char *src;
	struct stat st;
	size_t n;

	if (!rel || !dir || !*dir)
		goto none;
	src = xasprintf("%s/%s", dir, rel);
	if (stat(src, &st) < 0 || !S_ISREG(st.st_mode)) {
		free(src);
		goto none;
	}
	memset(u, 0, sizeof(*u));
	strvec_init(&u->mismatched);
	strvec_init(&u->moved);
	strvec_init(&u->missing);
	u->rel = rel;
	u->src = src;
	n = strlen(object);
	{
		const char *base = strrchr(object, '/');
		const char *dot = strrchr(base ? base + 1 : object, '.');
		if (dot)
			n = (size_t)(dot - object);
	}
	u->dest = xasprintf("%.*s.gcda", (int)n, object);
	return 1;
none:
	free(rel);
	return 0;
}

/* See bundle.h. */
int bundle_place(const struct bundle_use *u, struct strbuf *err)
{
	struct strbuf data = STRBUF_INIT, have = STRBUF_INIT, e = STRBUF_INIT;
	int r = 0;

	if (sfs_read(AT_FDCWD, u->src, SFS_IN_PROFILE, 0, &data, &e) < 0) {
		strbuf_addf(err, "cannot read the bundle's profile: %s", e.buf);
		r = -1;
	} else if (sfs_read(AT_FDCWD, u->dest, SFS_IN_PROFILE, SFS_NOFOLLOW, &have, NULL) ==
			   (long)data.len &&
		   !memcmp(have.buf, data.buf, data.len)) {
		r = 0;  /* already there */
	} else if (write_file_atomic_quiet(u->dest, data.buf, data.len) < 0) {
		strbuf_addf(err, "cannot write the profile %s for the compile: %s", u->dest,
			    strerror(errno));
		r = -1;
	}
	strbuf_release(&data);
	strbuf_release(&have);
	strbuf_release(&e);
	return r;
}

/* The first quoted name of line [s, end): 'x' or the UTF-8 quotes around
 * x; NULL when there is none. */
static char *quoted_name(const char *s, const char *end)
{
	static const char lq[] = "\xe2\x80\x98", rq[] = "\xe2\x80\x99";
	for (const char *p = s; p < end; p++) {
		const char *close = NULL, *start = NULL;
		if (*p == '\'') {
			start = p + 1;
			close = memchr(start, '\'', (size_t)(end - start));
		} else if (end - p >= 3 && !memcmp(p, lq, 3)) {
			start = p + 3;
			for (const char *q = start; end - q >= 3; q++)
				if (!memcmp(q, rq, 3)) {
					close = q;
					break;
				}
		}
		if (close && close > start)
			return xasprintf("%.*s", (int)(close - start), start);
		if (close)
			p = close;
	}
	return NULL;
}

/* Does [s, end) contain needle? */
static int has(const char *s, const char *end, const char *needle)
{
	size_t n = strlen(needle);
	for (const char *p = s; end - p >= (long)n; p++)
		if (!memcmp(p, needle, n))
			return 1;
	return 0;
}

static void add_once(struct strvec *sv, char *name)
{
	if (strvec_find(sv, name) < 0)
		strvec_push_nodup(sv, name);
	else
		free(name);
}

/* See bundle.h. */
void bundle_scan_diagnostics(struct bundle_use *u, const char *text, size_t len)
{
	const char *end = text + len;
	for (const char *s = text; s < end;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end;
		struct strvec *to = NULL;

		/* the option in brackets ends the line: -Wcoverage-mismatch,
		 * or -Werror=coverage-mismatch when a policy made it an error */
		if (has(s, e, "coverage-mismatch]"))
			to = has(s, e, "source locations") ? &u->moved : &u->mismatched;
		else if (has(s, e, "missing-profile]"))
			to = &u->missing;
		if (to) {
			char *name = quoted_name(s, e);
			if (name)
				add_once(to, name);
		}
		s = nl ? nl + 1 : end;
	}
	/* a function both moved and mismatched (two counters) lost its profile */
	for (size_t i = 0; i < u->mismatched.nr; i++) {
		long at = strvec_find(&u->moved, u->mismatched.v[i]);
		if (at >= 0)
			strvec_remove(&u->moved, (size_t)at);
	}
}

void bundle_use_release(struct bundle_use *u)
{
	free(u->rel);
	free(u->src);
	free(u->dest);
	strvec_clear(&u->mismatched);
	strvec_clear(&u->moved);
	strvec_clear(&u->missing);
	memset(u, 0, sizeof(*u));
}
