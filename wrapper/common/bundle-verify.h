/*
 * bundle-verify.h - a profile bundle checked against its manifest before
 * any of it is used: the one check pgoptcc (its bundle setting) and
 * pgbuild (`bundle show|check|bolt|create --bundle`, `build --bundle`,
 * `tune --bundle`, `deb --bundle`) make.
 *
 * A bundle (pgbuild bundle create) is made on one host and used on
 * another, often by root, for a package others install: every byte of it
 * is a stranger's.  Its manifest, DIR/pgopt-bundle.json, lists every file
 * of the bundle with its sha256 ("files": {"gcda/src/x.gcda": "HEX", ...});
 * the bundle is usable only when the tree below DIR is exactly that:
 *
 *   - every path the manifest lists is relative, with no ".", ".." or
 *     empty component and no control character, and is listed once;
 *   - the tree, walked through descriptors (sfs_walk_tree: every directory
 *     opened O_NOFOLLOW below its parent's), holds directories and regular
 *     files only: a symbolic link, FIFO, socket or device anywhere is
 *     refused;
 *   - every regular file but the manifest is listed, has one name (a hard
 *     link may be another file's, a root-only one), and its sha256
 *     (sha256_file, the limit of its kind: bundle_file_kind) is the
 *     manifest's; every listed file is there.
 * A refusal is one sentence naming the bundle's file and the reason ("is a
 * symbolic link", "is not listed in the manifest", "its sha256 is Y, the
 * manifest says X").  The check is over before any member is read for use,
 * and a member is then read again only through bundle_verified_read, which
 * hashes the very bytes it returns: what a caller copies is what was
 * checked, even when the bundle's owner changes a file afterwards.
 *
 * The bundle's policy may name hot and cold lists, which the build reads:
 * they must be files of the bundle too (bundle_verified_list_ok, called by
 * policy_bundle_check in wrapper/policy/bundle-policy.h: the policy is
 * parsed by its own module, which this layer does not include).  What
 * the manifest's other members mean (the PGO units, the BOLT profile) is
 * the business of pgbuild/bundle/bundle.h.
 */
#ifndef PGOPT_BUNDLE_VERIFY_H
#define PGOPT_BUNDLE_VERIFY_H

#include <stddef.h>
#include <sys/stat.h>

#include "wrapper/common/json.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/sha256.h"
#include "wrapper/common/strbuf.h"

/* The manifest, at the bundle's top, and the kind it declares. */
#define BUNDLE_MANIFEST_NAME "pgopt-bundle.json"
#define BUNDLE_MANIFEST_KIND "pgopt-bundle"
/* The bundle's policy, at its top (PGOPT_POLICY=DIR/pgopt.policy). */
#define BUNDLE_POLICY_NAME "pgopt.policy"

/* One file of a bundle, as its manifest lists it. */
struct bundle_file {
	char *rel;                    /* its path inside the bundle ("gcda/src/x.gcda") */
	char sha256[SHA256_HEX_SIZE]; /* its sha256, lowercase hex, as the manifest says */
};

/* A bundle whose tree was found to be what its manifest lists. */
struct bundle_verified {
	char *dir;                    /* the bundle's path as given, for messages */
	int dirfd;                    /* its directory: members are read below it */
	struct stat dir_st;           /* ... its fstat */
	struct stat manifest_st;      /* the manifest's fstat, taken on the descriptor read */
	char manifest_sha256[SHA256_HEX_SIZE]; /* the manifest's own sha256 ("" when not read) */
	struct json_value *manifest;  /* the parsed manifest (NULL: the list came from elsewhere,
				       * pgoptcc's stamp) */
	struct bundle_file *files;    /* every listed file, sorted by rel */
	size_t nr, alloc;
};

#define BUNDLE_VERIFIED_INIT { NULL, -1, { 0 }, { 0 }, "", NULL, NULL, 0, 0 }

/*
 * Check the bundle at dir (the caller's path: links on the way to it are
 * followed, none below it) as the header says.  0 with bv filled (its
 * manifest parsed: kind "pgopt-bundle", version 1), or -1 with one
 * sentence in err and bv released.
 */
int bundle_verify(const char *dir, struct bundle_verified *bv, struct strbuf *err);

/*
 * Open the bundle at dir without checking it: bv->dirfd, bv->dir_st and
 * bv->manifest_st (the manifest must be a regular file, not a link), the
 * list empty.  For a caller that takes the list from a record of an
 * earlier bundle_verify (pgoptcc's stamp: wrapper/bundle.h) and then
 * reads members with bundle_verified_read.  0, or -1 with err.
 */
int bundle_verified_open(const char *dir, struct bundle_verified *bv, struct strbuf *err);

/* Add rel with its sha256 to the list (kept sorted by
 * bundle_verified_sort); 0, or -1 with err when rel is no path inside a
 * bundle or hex no sha256. */
int bundle_verified_add(struct bundle_verified *bv, const char *rel, const char *hex,
			struct strbuf *err);
/* Sort the list; -1 with err when a path is listed twice. */
int bundle_verified_sort(struct bundle_verified *bv, struct strbuf *err);

/* The listed file rel, or NULL. */
const struct bundle_file *bundle_verified_find(const struct bundle_verified *bv, const char *rel);

/*
 * Read the member rel for use: below bv->dirfd, every component
 * O_NOFOLLOW, a regular file with one name of at most its kind's limit,
 * whose bytes (appended to out) hash to the manifest's sha256.  Returns 1;
 * 0 when rel is not listed and nothing is there (a unit without a
 * profile); -1 with err when rel is there but not listed, or not what the
 * manifest says.
 */
int bundle_verified_read(const struct bundle_verified *bv, const char *rel, struct strbuf *out,
			 struct strbuf *err);

void bundle_verified_release(struct bundle_verified *bv);

/*
 * The bundle's policy (DIR/pgopt.policy, parsed with that path: lists
 * resolve against DIR) names list as its key ("hot", "cold") list: it
 * must be one of the bundle's files, or a bundle could make the build
 * read any file (hot = /etc/shadow).  0 (list NULL too), or -1 with err.
 */
int bundle_verified_list_ok(const struct bundle_verified *bv, const char *key, const char *list,
			    struct strbuf *err);

/*
 * Is rel a path inside a bundle: relative, no ".", ".." or empty
 * component, no control character, at most PATH_MAX?  1 or 0.
 */
int bundle_path_ok(const char *rel);

/* The kind a member is read as (its limit): .gcda counts, .fdata and
 * .profdata profiles, .json manifests, everything else text. */
enum sfs_input bundle_file_kind(const char *rel);

#endif
