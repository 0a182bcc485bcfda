/*
 * bundle-verify.c - a profile bundle checked against its manifest; see
 * bundle-verify.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wrapper/common/bundle-verify.h"
#include "wrapper/common/xalloc.h"

/* See bundle-verify.h. */
int bundle_path_ok(const char *rel)
{
	const char *p = rel;

	if (!*rel || *rel == '/' || strlen(rel) >= PATH_MAX)
		return 0;
	for (const unsigned char *c = (const unsigned char *)rel; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return 0;
	while (*p) {
		size_t n = strcspn(p, "/");
		if (!n || (n == 2 && !strncmp(p, "..", 2)) || (n == 1 && *p == '.'))
			return 0;
		if (p[n] == '/' && !p[n + 1])
			return 0;     /* "dir/": an empty last component */
		p += n + (p[n] == '/');
	}
	return 1;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

/* See bundle-verify.h. */
enum sfs_input bundle_file_kind(const char *rel)
{
	if (ends_with(rel, ".gcda"))
		return SFS_IN_COUNTS;
	if (ends_with(rel, ".fdata") || ends_with(rel, ".profdata"))
		return SFS_IN_PROFILE;
	if (ends_with(rel, ".json"))
		return SFS_IN_MANIFEST;
	return SFS_IN_TEXT;
}

static int is_sha256(const char *s)
{
	size_t i;
	for (i = 0; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return i == SHA256_HEX_SIZE - 1;
}

void bundle_verified_release(struct bundle_verified *bv)
{
	if (bv->dirfd >= 0)
		close(bv->dirfd);
	for (size_t i = 0; i < bv->nr; i++)
		free(bv->files[i].rel);
	free(bv->files);
	free(bv->dir);
	json_free(bv->manifest);
	memset(bv, 0, sizeof(*bv));
	bv->dirfd = -1;
}

/* See bundle-verify.h. */
int bundle_verified_add(struct bundle_verified *bv, const char *rel, const char *hex,
			struct strbuf *err)
{
	if (!bundle_path_ok(rel)) {
		strbuf_addf(err, "%s/%s: files: \"%s\" is no path inside the bundle (expected a "
			    "relative path without \".\", \"..\" or empty components)",
			    bv->dir, BUNDLE_MANIFEST_NAME, rel);
		return -1;
	}
	if (!strcmp(rel, BUNDLE_MANIFEST_NAME)) {
		strbuf_addf(err, "%s/%s: files: the manifest lists itself (it holds the others' "
			    "sha256, not its own)", bv->dir, BUNDLE_MANIFEST_NAME);
		return -1;
	}
	if (!hex || !is_sha256(hex)) {
		strbuf_addf(err, "%s/%s: files: \"%s\": expected its sha256 (64 lowercase "
			    "hexadecimal digits)", bv->dir, BUNDLE_MANIFEST_NAME, rel);
		return -1;
	}
	if (bv->nr == bv->alloc) {
		bv->alloc = bv->alloc ? 2 * bv->alloc : 64;
		bv->files = xrealloc(bv->files, bv->alloc * sizeof(*bv->files));
	}
	bv->files[bv->nr].rel = xstrdup(rel);
	memcpy(bv->files[bv->nr].sha256, hex, SHA256_HEX_SIZE);
	bv->nr++;
	return 0;
}

static int by_rel(const void *a, const void *b)
{
	return strcmp(((const struct bundle_file *)a)->rel, ((const struct bundle_file *)b)->rel);
}

/* See bundle-verify.h. */
int bundle_verified_sort(struct bundle_verified *bv, struct strbuf *err)
{
	if (bv->nr)
		qsort(bv->files, bv->nr, sizeof(*bv->files), by_rel);
	for (size_t i = 1; i < bv->nr; i++)
		if (!strcmp(bv->files[i - 1].rel, bv->files[i].rel)) {
			strbuf_addf(err, "%s/%s: files: \"%s\" is listed twice", bv->dir,
				    BUNDLE_MANIFEST_NAME, bv->files[i].rel);
			return -1;
		}
	return 0;
}

/* See bundle-verify.h. */
const struct bundle_file *bundle_verified_find(const struct bundle_verified *bv, const char *rel)
{
	struct bundle_file key = { (char *)rel, "" };
	if (!bv->nr)
		return NULL;
	return bsearch(&key, bv->files, bv->nr, sizeof(*bv->files), by_rel);
}

/* See bundle-verify.h. */
int bundle_verified_open(const char *dir, struct bundle_verified *bv, struct strbuf *err)
{
	int e;

	memset(bv, 0, sizeof(*bv));
	bv->dir = xstrdup(dir);
	/* the caller's path: followed to the directory, nothing below it */
	bv->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (bv->dirfd < 0 || fstat(bv->dirfd, &bv->dir_st) < 0) {
		e = errno;
		strbuf_addf(err, "%s is no profile bundle: %s (expected a directory pgbuild bundle "
			    "create wrote)", dir, strerror(e));
		goto fail;
	}
	if (fstatat(bv->dirfd, BUNDLE_MANIFEST_NAME, &bv->manifest_st, AT_SYMLINK_NOFOLLOW) < 0) {
		e = errno;
		strbuf_addf(err, "%s is no profile bundle: %s/%s: %s (expected a directory pgbuild "
			    "bundle create wrote)", dir, dir, BUNDLE_MANIFEST_NAME, strerror(e));
		goto fail;
	}
	if (!S_ISREG(bv->manifest_st.st_mode)) {
		strbuf_addf(err, "%s/%s is %s: a bundle's manifest is a regular file", dir,
			    BUNDLE_MANIFEST_NAME, sfs_kind(bv->manifest_st.st_mode));
		e = EINVAL;
		goto fail;
	}
	return 0;
fail:
	bundle_verified_release(bv);
	errno = e;
	return -1;
}

/* Read, parse and list the manifest (through one descriptor: the bytes
 * hashed are the bytes parsed). */
static int read_manifest(struct bundle_verified *bv, struct strbuf *err)
{
	char *name = xasprintf("%s/%s", bv->dir, BUNDLE_MANIFEST_NAME);
	struct strbuf text = STRBUF_INIT, e = STRBUF_INIT;
	const struct json_value *files;
	struct sha256 c;
	int fd, rc = -1;

	fd = sfs_open_input_as(bv->dirfd, BUNDLE_MANIFEST_NAME, name, SFS_IN_MANIFEST, SFS_NOFOLLOW,
			       &bv->manifest_st, &e);
	if (fd < 0 || sfs_read_fd(fd, name, SFS_IN_MANIFEST, &text, &e) < 0) {
		strbuf_addf(err, "%s is no profile bundle: %s", bv->dir, e.buf);
		goto out;
	}
	if (bv->manifest_st.st_nlink > 1) {
		strbuf_addf(err, "%s has %lu names (a hard link: a bundle's files have one)", name,
			    (unsigned long)bv->manifest_st.st_nlink);
		goto out;
	}
	sha256_init(&c);
	sha256_update(&c, text.buf, text.len);
	sha256_final_hex(&c, bv->manifest_sha256);
	if (!(bv->manifest = json_parse(text.buf, text.len, &e))) {
		strbuf_addf(err, "%s: %s", name, e.buf);
		goto out;
	}
	if (bv->manifest->type != JSON_OBJECT || !json_get_str(bv->manifest, "kind") ||
	    strcmp(json_get_str(bv->manifest, "kind"), BUNDLE_MANIFEST_KIND) ||
	    json_get_num(bv->manifest, "version", 0) != 1) {
		strbuf_addf(err, "%s: expected \"kind\": \"%s\" and \"version\": 1", name,
			    BUNDLE_MANIFEST_KIND);
		goto out;
	}
	files = json_get(bv->manifest, "files");
	if (!files || files->type != JSON_OBJECT) {
		strbuf_addf(err, "%s: expected a \"files\" object (path: sha256)", name);
		goto out;
	}
	for (size_t i = 0; i < files->u.list.nr; i++) {
		const struct json_value *v = files->u.list.items[i];
		if (bundle_verified_add(bv, files->u.list.keys[i],
					v->type == JSON_STRING ? v->u.str.s : NULL, err) < 0)
			goto out;
	}
	rc = bundle_verified_sort(bv, err);
out:
	if (fd >= 0)
		close(fd);
	strbuf_release(&text);
	strbuf_release(&e);
	free(name);
	return rc;
}

/* The walk of bundle_verify. */
struct bundle_walk {
	const struct bundle_verified *bv;
	unsigned char *seen;          /* per listed file: found in the tree */
};

/* One entry of the tree: a directory, the manifest, or a regular file that
 * is listed, has one name and the manifest's sha256. */
static enum sfs_walk_next check_entry(struct sfs_entry *e, void *ctx)
{
	const struct bundle_walk *w = ctx;
	const struct bundle_file *f;
	char hex[SHA256_HEX_SIZE];
	struct strbuf why = STRBUF_INIT;
	enum sfs_walk_next next = SFS_WALK_ERROR;

	if (S_ISDIR(e->st.st_mode))
		return SFS_WALK_NEXT;
	if (!S_ISREG(e->st.st_mode)) {
		strbuf_addf(e->err, "%s is %s: a bundle holds regular files and directories only",
			    e->path, sfs_kind(e->st.st_mode));
		return SFS_WALK_ERROR;
	}
	if (e->depth == 0 && !strcmp(e->name, BUNDLE_MANIFEST_NAME))
		return SFS_WALK_NEXT;
	if (!(f = bundle_verified_find(w->bv, e->rel)))
		strbuf_addf(e->err, "%s is not listed in the manifest (a bundle holds only the files "
			    "%s lists)", e->path, BUNDLE_MANIFEST_NAME);
	else if (e->st.st_nlink > 1)
		strbuf_addf(e->err, "%s has %lu names (a hard link: a bundle's files have one)",
			    e->path, (unsigned long)e->st.st_nlink);
	else if (sha256_file(e->fd, e->name, bundle_file_kind(e->rel), SFS_NOFOLLOW, hex, &why) < 0)
		strbuf_addf(e->err, "%s: %s", e->path, why.buf);
	else if (strcmp(hex, f->sha256))
		strbuf_addf(e->err, "%s: its sha256 is %s, the manifest says %s: the bundle was "
			    "changed after it was made", e->path, hex, f->sha256);
	else {
		w->seen[f - w->bv->files] = 1;
		next = SFS_WALK_NEXT;
	}
	strbuf_release(&why);
	return next;
}

/* See bundle-verify.h. */
int bundle_verify(const char *dir, struct bundle_verified *bv, struct strbuf *err)
{
	unsigned char *seen = NULL;
	int rc = bundle_verified_open(dir, bv, err);

	if (rc == 0)
		rc = read_manifest(bv, err);
	if (rc == 0) {
		struct bundle_walk w = { bv, seen = xcalloc(bv->nr + 1, 1) };
		rc = sfs_walk_tree(bv->dirfd, dir, check_entry, &w, err);
	}
	for (size_t i = 0; rc == 0 && i < bv->nr; i++)
		if (!seen[i]) {
			strbuf_addf(err, "%s/%s is listed in the manifest and missing from the bundle",
				    dir, bv->files[i].rel);
			rc = -1;
		}
	if (rc < 0 && bv->dir)
		bundle_verified_release(bv);
	free(seen);
	return rc;
}

/* See bundle-verify.h. */
int bundle_verified_read(const struct bundle_verified *bv, const char *rel, struct strbuf *out,
			 struct strbuf *err)
{
	const struct bundle_file *f = bundle_verified_find(bv, rel);
	char *name = xasprintf("%s/%s", bv->dir, rel), hex[SHA256_HEX_SIZE];
	struct strbuf data = STRBUF_INIT, e = STRBUF_INIT;
	struct stat st;
	struct sha256 c;
	int fd = -1, rc = -1;

	if (!f) {
		/* not listed: a unit without a profile, unless something is there */
		if (!bundle_path_ok(rel) ||
		    (fstatat(bv->dirfd, rel, &st, AT_SYMLINK_NOFOLLOW) < 0 &&
		     (errno == ENOENT || errno == ENOTDIR)))
			rc = 0;
		else
			strbuf_addf(err, "%s is not listed in the manifest (a bundle holds only the "
				    "files %s lists)", name, BUNDLE_MANIFEST_NAME);
		goto out;
	}
	fd = sfs_open_input_as(bv->dirfd, rel, name, bundle_file_kind(rel), SFS_NOFOLLOW, &st, &e);
	if (fd < 0 || sfs_read_fd(fd, name, bundle_file_kind(rel), &data, &e) < 0) {
		strbuf_addf(err, "%s", e.buf);
		goto out;
	}
	if (st.st_nlink > 1) {
		strbuf_addf(err, "%s has %lu names (a hard link: a bundle's files have one)", name,
			    (unsigned long)st.st_nlink);
		goto out;
	}
	sha256_init(&c);
	sha256_update(&c, data.buf, data.len);
	sha256_final_hex(&c, hex);
	if (strcmp(hex, f->sha256)) {
		strbuf_addf(err, "%s: its sha256 is %s, the manifest says %s: the bundle was changed "
			    "after it was made", name, hex, f->sha256);
		goto out;
	}
	strbuf_add(out, data.buf, data.len);
	rc = 1;
out:
	if (fd >= 0)
		close(fd);
	strbuf_release(&data);
	strbuf_release(&e);
	free(name);
	return rc;
}

/* See bundle-verify.h. */
int bundle_verified_list_ok(const struct bundle_verified *bv, const char *key, const char *list,
			    struct strbuf *err)
{
	size_t n = strlen(bv->dir);

	if (!list || (!strncmp(list, bv->dir, n) && list[n] == '/' &&
		      bundle_path_ok(list + n + 1) && bundle_verified_find(bv, list + n + 1)))
		return 0;
	strbuf_addf(err, "%s/%s: %s = %s: a bundle's policy names lists among the bundle's files "
		    "only", bv->dir, BUNDLE_POLICY_NAME, key, list);
	return -1;
}
