/*
 * rmtree.c - remove a directory tree with async-signal-safe calls only;
 * see rmtree.h.
 *
 * No malloc, no stdio, no opendir (which allocates): the directory is read
 * with getdents64 into a buffer on the stack, one buffer per level (4 KiB),
 * so the depth is bounded, by the one limit of every walk of a tree
 * (SFS_MAX_DEPTH, safefs.h: 256 levels, 1 MiB of stack at most).  This is
 * why rmtree is not built on sfs_walk_tree, which allocates: a signal
 * handler calls it (cluster/cleanup.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <dirent.h>

#include "wrapper/common/rmtree.h"
#include "wrapper/common/safefs.h"

struct linux_dirent64 {
	ino64_t d_ino;          /* inode number */
	off64_t d_off;          /* offset of the next entry */
	unsigned short d_reclen; /* size of this entry */
	unsigned char d_type;   /* DT_DIR, DT_REG, ... or DT_UNKNOWN */
	char d_name[];          /* NUL-terminated name */
};

/* Keep the first errno of a failed call. */
static void note_error(int *first)
{
	if (!*first)
		*first = errno ? errno : EIO;
}

/* Remove everything inside the directory open as fd, depth levels below
 * the top (read at most SFS_MAX_DEPTH levels down, as sfs_walk_tree). */
static void empty_dir(int fd, int depth, int *first)
{
	char buf[4096] __attribute__((aligned(8)));
	int removed;

	if (depth > SFS_MAX_DEPTH) {
		errno = ELOOP;
		note_error(first);
		return;
	}
	do {
		long n;
		removed = 0;
		lseek(fd, 0, SEEK_SET);
		/* entries removed while reading can make getdents skip others:
		 * read again until a pass removes nothing */
		while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
			for (long off = 0; off < n;) {
				struct linux_dirent64 *d = (void *)(buf + off);
				const char *name = d->d_name;
				int isdir = d->d_type == DT_DIR;
				off += d->d_reclen;
				if (!strcmp(name, ".") || !strcmp(name, ".."))
					continue;
				if (d->d_type == DT_UNKNOWN) {
					struct stat st;
					if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
						isdir = S_ISDIR(st.st_mode);
				}
				if (isdir) {
					int sub = openat(fd, name, O_RDONLY | O_DIRECTORY |
							 O_NOFOLLOW | O_CLOEXEC);
					if (sub >= 0) {
						empty_dir(sub, depth + 1, first);
						close(sub);
					}
					if (unlinkat(fd, name, AT_REMOVEDIR) == 0)
						removed++;
					else if (errno != ENOENT)
						note_error(first);
				} else if (unlinkat(fd, name, 0) == 0) {
					removed++;
				} else if (errno != ENOENT) {
					note_error(first);
				}
			}
		}
		if (n < 0)
			note_error(first);
	} while (removed && !*first);
}

int remove_tree_at(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int first = 0;

	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		/* a file, or a symbolic link: unlink it, as rm -rf does */
		if (errno == ENOTDIR || errno == ELOOP) {
			if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
				return 0;
		}
		return -1;
	}
	empty_dir(fd, 0, &first);
	close(fd);
	if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		note_error(&first);
	if (first) {
		errno = first;
		return -1;
	}
	return 0;
}

int remove_tree(const char *path)
{
	return remove_tree_at(AT_FDCWD, path);
}
