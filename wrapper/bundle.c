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
#include "wrapper/common/bundle-verify.h"
#include "wrapper/common/error.h"
#include "wrapper/common/fdio.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/textfile.h"
#include "wrapper/common/xalloc.h"
#include "wrapper/policy/bundle-policy.h"
#include "wrapper/policy/policy.h"

#define STAMP_DIR "bundle-verified"
#define STAMP_HEAD "pgoptcc-bundle-stamp 1"

/* The stamp's first line: the manifest's identity (bundle.h). */
static char *stamp_key(const struct bundle_verified *bv)
{
	const struct stat *m = &bv->manifest_st;
	return xasprintf(STAMP_HEAD " %llu %llu %lld %lld.%09ld %lld.%09ld",
			 (unsigned long long)m->st_dev, (unsigned long long)m->st_ino,
			 (long long)m->st_size,
			 (long long)m->st_mtim.tv_sec, m->st_mtim.tv_nsec,
			 (long long)m->st_ctim.tv_sec, m->st_ctim.tv_nsec);
}

static char *stamp_name(const struct bundle_verified *bv)
{
	return xasprintf("%llx-%llx", (unsigned long long)bv->dir_st.st_dev,
			 (unsigned long long)bv->dir_st.st_ino);
}

/* LOGDIR/bundle-verified: the caller's, 0700 (made so, or refused), or -1. */
static int stamp_dir(const char *logdir)
{
	struct strbuf e = STRBUF_INIT;
	int lfd = open(logdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd;

	fd = lfd < 0 ? -1 : sfs_mkdir(lfd, STAMP_DIR, 0700, (uid_t)-1, (gid_t)-1, 1, &e);
	if (lfd >= 0 && fd < 0)
		verbose("bundle: no verification stamp in %s: %s", logdir, e.buf);
	if (lfd >= 0)
		close(lfd);
	strbuf_release(&e);
	return fd;
}

/* The list of the stamp for bv's manifest into bv; 0, or -1 (no such
 * stamp, or another manifest's: bv's list left empty). */
static int stamp_load(int sfd, struct bundle_verified *bv)
{
	struct strbuf text = STRBUF_INIT, e = STRBUF_INIT;
	char *name = stamp_name(bv), *key = stamp_key(bv);
	size_t pos = 0, n, klen = strlen(key);
	const char *l;
	int rc = -1;

	if (sfs_read(sfd, name, SFS_IN_MANIFEST, SFS_NOFOLLOW, &text, NULL) < 0 ||
	    !(l = text_next_line(text.buf, text.len, &pos, &n)) || n != klen || memcmp(l, key, n))
		goto out;
	rc = 0;
	while (rc == 0 && (l = text_next_line(text.buf, text.len, &pos, &n))) {
		/* "HEX  REL", as sha256sum writes */
		char *line = xstrndup(l, n);
		if (n < SHA256_HEX_SIZE + 2 || line[SHA256_HEX_SIZE - 1] != ' ' ||
		    line[SHA256_HEX_SIZE] != ' ') {
			rc = -1;
		} else {
			line[SHA256_HEX_SIZE - 1] = '\0';
			rc = bundle_verified_add(bv, line + SHA256_HEX_SIZE + 1, line, &e);
		}
		free(line);
	}
	if (rc == 0)
		rc = bundle_verified_sort(bv, &e);
out:
	if (rc < 0) {
		for (size_t i = 0; i < bv->nr; i++)
			free(bv->files[i].rel);
		bv->nr = 0;
	}
	strbuf_release(&text);
	strbuf_release(&e);
	free(name);
	free(key);
	return rc;
}

/* Record bv's list (just checked) for the next compiles. */
static void stamp_save(int sfd, const struct bundle_verified *bv)
{
	struct strbuf sb = STRBUF_INIT, e = STRBUF_INIT;
	char *name = stamp_name(bv), *key = stamp_key(bv);

	strbuf_addf(&sb, "%s\n", key);
	for (size_t i = 0; i < bv->nr; i++)
		strbuf_addf(&sb, "%s  %s\n", bv->files[i].sha256, bv->files[i].rel);
	if (sfs_write_atomic(sfd, name, sb.buf, sb.len, 0600, &e) < 0)
		verbose("bundle: cannot write the verification stamp: %s", e.buf);
	strbuf_release(&sb);
	strbuf_release(&e);
	free(name);
	free(key);
}

/* With a stamp's list: the files a compile may read besides its profile
 * (the policy and its lists: text), hashed again. */
static int recheck_text(const struct bundle_verified *bv, struct strbuf *err)
{
	struct strbuf scratch = STRBUF_INIT;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < bv->nr; i++)
		if (bundle_file_kind(bv->files[i].rel) == SFS_IN_TEXT) {
			strbuf_reset(&scratch);
			if (bundle_verified_read(bv, bv->files[i].rel, &scratch, err) < 0)
				rc = -1;
		}
	strbuf_release(&scratch);
	return rc;
}

/* The bundle bundle_trust checked, for bundle_lookup: pgoptcc runs one
 * command per process. */
static struct bundle_verified trusted = BUNDLE_VERIFIED_INIT;

/* See bundle.h. */
int bundle_trust(const char *dir, const char *logdir, struct strbuf *err)
{
	struct bundle_verified *bv = &trusted;
	int sfd = -1, rc = 1;

	bundle_verified_release(bv);
	if (logdir && *logdir) {
		struct strbuf e = STRBUF_INIT;   /* bundle_verify says it again */
		if (bundle_verified_open(dir, bv, &e) == 0) {
			if ((sfd = stamp_dir(logdir)) >= 0 && stamp_load(sfd, bv) == 0)
				rc = recheck_text(bv, err);
			else
				bundle_verified_release(bv);
		}
		strbuf_release(&e);
	}
	if (rc > 0) {
		rc = bundle_verify(dir, bv, err);
		if (rc == 0 && sfd >= 0)
			stamp_save(sfd, bv);
	}
	if (sfd >= 0)
		close(sfd);
	if (rc == 0)
		rc = policy_bundle_check(bv, err);
	if (rc < 0)
		bundle_verified_release(bv);
	return rc;
}

/* See bundle.h. */
int bundle_lookup(const char *tu, const char *object, struct bundle_use *u, struct strbuf *err)
{
	struct strbuf data = STRBUF_INIT;
	char *rel;
	int r;

	if (trusted.dirfd < 0 || !(rel = policy_bundle_gcda(tu, object)))
		return 0;
	r = bundle_verified_read(&trusted, rel, &data, err);
	if (r <= 0) {
		free(rel);
		strbuf_release(&data);
		return r;
	}
	memset(u, 0, sizeof(*u));
	strvec_init(&u->mismatched);
	strvec_init(&u->moved);
	strvec_init(&u->missing);
	u->rel = rel;
	u->src = xasprintf("%s/%s", trusted.dir, rel);
	u->data = data;
	{
		const char *base = strrchr(object, '/');
		const char *dot = strrchr(base ? base + 1 : object, '.');
		size_t n = dot ? (size_t)(dot - object) : strlen(object);
		u->dest = xasprintf("%.*s.gcda", (int)n, object);
	}
	return 1;
}

/* See bundle.h. */
int bundle_place(const struct bundle_use *u, struct strbuf *err)
{
	struct strbuf have = STRBUF_INIT;
	int r = 0;

	if (sfs_read(AT_FDCWD, u->dest, SFS_IN_COUNTS, SFS_NOFOLLOW, &have, NULL) ==
		    (long)u->data.len &&
	    !memcmp(have.buf, u->data.buf, u->data.len)) {
		r = 0;  /* already there */
	} else if (write_file_atomic_quiet(u->dest, u->data.buf, u->data.len) < 0) {
		strbuf_addf(err, "cannot write the profile %s for the compile: %s", u->dest,
			    strerror(errno));
		r = -1;
	}
	strbuf_release(&have);
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
	strbuf_release(&u->data);
	free(u->dest);
	strvec_clear(&u->mismatched);
	strvec_clear(&u->moved);
	strvec_clear(&u->missing);
	memset(u, 0, sizeof(*u));
}
