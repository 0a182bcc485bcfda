/*
 * sha256.h - SHA-256 (FIPS 180-4), small and dependency-free.
 *
 * pgoptcc digests the hot/cold lists' contents into the command line it
 * passes on (-fplugin-arg-pgopt-list-digest=HEX), so ccache and pgbuild's
 * incremental rebuild, which compare command lines, see an edited list.
 * Running sha256sum per compile would cost a fork; this costs microseconds.
 *
 *     struct sha256 c;
 *     sha256_init(&c);
 *     sha256_update(&c, data, len);  ...
 *     sha256_final_hex(&c, hex);     hex: 65 bytes, lowercase, NUL-terminated
 */
#ifndef PGOPT_SHA256_H
#define PGOPT_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "wrapper/common/safefs.h"

struct sha256 {
	uint32_t h[8];
	uint64_t len;          /* bytes hashed so far */
	unsigned char buf[64]; /* partial block */
	size_t nbuf;
};

#define SHA256_HEX_SIZE 65

void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *data, size_t len);
void sha256_final_hex(struct sha256 *c, char hex[SHA256_HEX_SIZE]);

/*
 * The SHA-256 of the file at path (relative to dirfd, AT_FDCWD for a path
 * the caller named), read through the bounded reader: opened as
 * sfs_open_input does (kind's limit, a regular file, never a link as the
 * last component; flags SFS_NOFOLLOW for every component).  Returns 0 with
 * hex filled, or -1 with the reason appended to err ("cannot read PATH:
 * ...") when err is not NULL.
 */
int sha256_file(int dirfd, const char *path, enum sfs_input kind, unsigned flags,
		char hex[SHA256_HEX_SIZE], struct strbuf *err);

#endif
