/*
 * rmtree.h - removing a directory tree (`rm -rf` without a process).
 */
#ifndef PGOPT_RMTREE_H
#define PGOPT_RMTREE_H

/*
 * Remove path and everything below it, like `rm -rf -- path`: a directory
 * is emptied depth-first and removed, a file or a symbolic link (never
 * followed) is unlinked, a missing path is success.  Uses only
 * async-signal-safe system calls (open, getdents64, unlinkat, rmdir,
 * close), so a signal handler may call it.  At most SFS_MAX_DEPTH
 * (safefs.h) levels of directories below path are read, as sfs_walk_tree
 * reads them; a directory deeper down is not read (-1, ELOOP).  Silent:
 * returns 0, or -1 with errno set to the first failure (what could be
 * removed is removed).
 */
int remove_tree(const char *path);

/* The same for name relative to the directory open as dirfd (AT_FDCWD:
 * the current directory); name's last component is never followed. */
int remove_tree_at(int dirfd, const char *name);

#endif
