/*
 * common/safefs-walk.h - the steps below a directory descriptor that
 * safefs.c (single paths) and safefs-tree.c (whole trees: sfs_walk_tree)
 * share.  Not for callers: they include safefs.h.
 */
#ifndef PGOPT_SAFEFS_WALK_H
#define PGOPT_SAFEFS_WALK_H

#include "wrapper/common/strbuf.h"

/* openat(fd, name) of a directory, never through a link (ELOOP for one). */
int sfs_open_subdir(int fd, const char *name);

/* Append "cannot WHAT REL: REASON" to err (may be NULL; REASON NULL: from
 * errno), keep errno, return -1. */
int sfs_fail(struct strbuf *err, const char *what, const char *rel, const char *reason);

/*
 * Walk rel's directories below dirfd with O_NOFOLLOW, up to (not
 * including) the last component when last is not NULL; see safefs.c.
 * The descriptor reached, or -1 with errno; *copy is the caller's to free.
 */
int sfs_walk(int dirfd, const char *rel, char **copy, const char **last);

/* The reason to give for sfs_walk's EINVAL, or NULL: from errno. */
const char *sfs_walk_reason(void);

#endif
