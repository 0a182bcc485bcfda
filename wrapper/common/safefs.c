/*
 * safefs.c - file operations below a verified directory descriptor, and
 * the bounded reader; see safefs.h for the rules.
 *
 * Every path below an anchor is walked one component at a time with
 * openat(O_NOFOLLOW | O_DIRECTORY), so no component is ever resolved by
 * the kernel through a link that another user planted, and no ".." may
 * leave the anchor.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wrapper/common/fdio.h"
#include "wrapper/common/rmtree.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/safefs-walk.h"
#include "wrapper/common/xalloc.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

const char *sfs_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "a regular file";
	case S_IFDIR: return "a directory";
	case S_IFIFO: return "a FIFO";
	case S_IFLNK: return "a symbolic link";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFSOCK: return "a socket";
	default: return "not a regular file";
	}
}

/*
 * openat(fd, name) of a directory, never through a link: Linux says
 * ENOTDIR for a link when O_DIRECTORY is given, and that is reported as
 * ELOOP here, so callers and messages see "a symbolic link" either way.
 */
int sfs_open_subdir(int fd, const char *name)
{
	int sub = openat(fd, name, DIR_FLAGS);
	if (sub < 0 && errno == ENOTDIR) {
		struct stat st;
		if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			errno = ELOOP;
		else
			errno = ENOTDIR;
	}
	return sub;
}

/* Append "cannot WHAT REL: REASON" to err, keep errno, return -1. */
int sfs_fail(struct strbuf *err, const char *what, const char *rel, const char *reason)
{
	int e = errno;
	if (err) {
		if (!reason)
			reason = e == ELOOP ? "a component is a symbolic link (refused)"
					    : strerror(e);
		strbuf_addf(err, "cannot %s %s: %s", what, rel, reason);
	}
	errno = e;
	return -1;
}

/* The directory to start from: dirfd itself, or "/" for an absolute rel
 * (a new descriptor either way, so callers always close what they get). */
static int start_fd(int dirfd, const char *rel)
{
	if (rel[0] == '/')
		return open("/", DIR_FLAGS);
	if (dirfd == AT_FDCWD)
		return open(".", DIR_FLAGS);
	return fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
}

/*
 * Walk rel's directories below dirfd with O_NOFOLLOW, up to (not
 * including) the last component when last is not NULL.  Returns the
 * descriptor of the directory reached, with *last pointing at the last
 * component's name in the malloced copy *copy; -1 with errno on failure
 * (EINVAL: "..", or no last component where one is wanted).
 */
int sfs_walk(int dirfd, const char *rel, char **copy, const char **last)
{
	char *p, *next;
	int fd = start_fd(dirfd, rel);

	*copy = xstrdup(rel);
	if (last)
		*last = NULL;
	if (fd < 0)
		return -1;
	for (p = *copy; *p; p = next) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		next = strchr(p, '/');
		if (next)
			*next++ = '\0';
		else
			next = p + strlen(p);
		if (!strcmp(p, "."))
			continue;
		if (!strcmp(p, "..")) {
			close(fd);
			errno = EINVAL;
			return -1;
		}
		if (last) {
			/* is this the last component? */
			const char *q = next;
			while (*q == '/')
				q++;
			if (!*q) {
				*last = p;
				return fd;
			}
		}
		int sub = sfs_open_subdir(fd, p);
		int e = errno;
		close(fd);
		if (sub < 0) {
			errno = e;
			return -1;
		}
		fd = sub;
	}
	if (last) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/* Is the error from walk one of "..", or a missing last component? */
const char *sfs_walk_reason(void)
{
	return errno == EINVAL ? "expected a path without \"..\" that names a file" : NULL;
}

int sfs_open_dir(int dirfd, const char *rel, struct strbuf *err)
{
	char *copy;
	int fd = sfs_walk(dirfd, rel, &copy, NULL);
	free(copy);
	if (fd < 0)
		return sfs_fail(err, "open the directory", rel, sfs_walk_reason());
	return fd;
}

int sfs_open_anchor(const char *path, uid_t owner, int private_only, struct strbuf *err)
{
	struct stat st;
	int fd = sfs_open_subdir(AT_FDCWD, path);

	if (fd < 0)
		return sfs_fail(err, "open the directory", path,
			    errno == ELOOP ? "it is a symbolic link (refused)" : NULL);
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return sfs_fail(err, "inspect", path, NULL);
	}
	if ((owner != (uid_t)-1 && st.st_uid != owner) ||
	    (private_only && (st.st_mode & 022))) {
		if (err)
			strbuf_addf(err, "refusing the directory %s: it is owned by uid %ld with mode %04o, "
				    "expected owner uid %ld%s", path, (long)st.st_uid,
				    (unsigned)(st.st_mode & 07777), (long)owner,
				    private_only ? " and no write access for group or others" : "");
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

long sfs_read_fd(int fd, const char *name, size_t limit, struct strbuf *out,
		 struct strbuf *err)
{
	struct stat st;
	size_t start = out->len;

	if (fstat(fd, &st) < 0)
		return sfs_fail(err, "read", name, NULL);
	if (!S_ISREG(st.st_mode)) {
		char reason[80];
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		snprintf(reason, sizeof(reason), "it is %s, expected a regular file",
			 sfs_kind(st.st_mode));
		return sfs_fail(err, "read", name, reason);
	}
	if ((uintmax_t)st.st_size > limit)
		goto too_big;
	for (;;) {
		ssize_t n;
		strbuf_grow(out, 65536);
		n = read(fd, out->buf + out->len, out->alloc - out->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			strbuf_setlen(out, start);
			errno = e;
			return sfs_fail(err, "read", name, NULL);
		}
		if (n == 0)
			break;
		strbuf_setlen(out, out->len + (size_t)n);
		if (out->len - start > limit)
			goto too_big;
	}
	return (long)(out->len - start);

too_big:
	strbuf_setlen(out, start);
	errno = EFBIG;
	{
		char reason[80];
		snprintf(reason, sizeof(reason), "it is larger than %zu %s",
			 limit >= (1u << 20) ? limit >> 20 : limit,
			 limit >= (1u << 20) ? "MiB" : "bytes");
		return sfs_fail(err, "read", name, reason);
	}
}

long sfs_read(int dirfd, const char *rel, size_t limit, unsigned flags,
	      struct strbuf *out, struct strbuf *err)
{
	long n;
	int fd, e;

	if (flags & SFS_NOFOLLOW) {
		char *copy;
		const char *last;
		int pfd = sfs_walk(dirfd, rel, &copy, &last);
		if (pfd < 0) {
			free(copy);
			return sfs_fail(err, "read", rel, sfs_walk_reason());
		}
		fd = openat(pfd, last, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
		e = errno;
		close(pfd);
		free(copy);
		errno = e;
	} else {
		fd = openat(dirfd, rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	}
	if (fd < 0)
		return sfs_fail(err, "read", rel, errno == ELOOP && (flags & SFS_NOFOLLOW) ?
			    "it is a symbolic link (refused)" : NULL);
	n = sfs_read_fd(fd, rel, limit, out, err);
	e = errno;
	close(fd);
	errno = e;
	return n;
}

int sfs_create(int dirfd, const char *rel, int flags, mode_t mode, struct strbuf *err)
{
	char *copy;
	const char *last;
	int pfd = sfs_walk(dirfd, rel, &copy, &last), fd, e;

	if (pfd < 0) {
		free(copy);
		return sfs_fail(err, "create", rel, sfs_walk_reason());
	}
	fd = openat(pfd, last, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	e = errno;
	close(pfd);
	free(copy);
	errno = e;
	if (fd < 0)
		return sfs_fail(err, "create", rel, errno == EEXIST ?
			    "it exists already (refused: a new file was expected)" : NULL);
	return fd;
}

int sfs_write_atomic(int dirfd, const char *rel, const void *buf, size_t len,
		     mode_t mode, struct strbuf *err)
{
	char *copy, tmp[NAME_MAX + 1];
	const char *last;
	int pfd = sfs_walk(dirfd, rel, &copy, &last), fd = -1, e;

	if (pfd < 0) {
		free(copy);
		return sfs_fail(err, "write", rel, sfs_walk_reason());
	}
	for (int tries = 0; fd < 0 && tries < 8; tries++) {
		unsigned long long r = 0;
		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r = (unsigned long long)getpid() * 2654435761u + (unsigned)tries;
		snprintf(tmp, sizeof(tmp), ".%.200s.%016llx.tmp", last, r);
		fd = openat(pfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0)
		goto failed;
	if (fchmod(fd, mode) < 0 || write_all(fd, buf, len) < 0 || fsync(fd) < 0) {
		e = errno;
		close(fd);
		errno = e;
		goto failed_tmp;
	}
	if (close(fd) < 0)
		goto failed_tmp;
	if (renameat(pfd, tmp, pfd, last) < 0)
		goto failed_tmp;
	close(pfd);
	free(copy);
	return 0;

failed_tmp:
	e = errno;
	unlinkat(pfd, tmp, 0);
	errno = e;
failed:
	e = errno;
	close(pfd);
	free(copy);
	errno = e;
	return sfs_fail(err, "write", rel, NULL);
}

int sfs_mkdir(int dirfd, const char *rel, mode_t mode, uid_t uid, gid_t gid,
	      int exist_ok, struct strbuf *err)
{
	char *copy;
	const char *last;
	struct stat st;
	int pfd = sfs_walk(dirfd, rel, &copy, &last), fd, e;

	if (pfd < 0) {
		free(copy);
		return sfs_fail(err, "make the directory", rel, sfs_walk_reason());
	}
	if (mkdirat(pfd, last, 0700) < 0 && !(errno == EEXIST && exist_ok)) {
		e = errno;
		close(pfd);
		free(copy);
		errno = e;
		return sfs_fail(err, "make the directory", rel, NULL);
	}
	fd = sfs_open_subdir(pfd, last);
	e = errno;
	close(pfd);
	free(copy);
	if (fd < 0) {
		errno = e;
		return sfs_fail(err, "make the directory", rel, errno == ELOOP || errno == ENOTDIR ?
			    "something other than a directory is there (refused)" : NULL);
	}
	if (fstat(fd, &st) < 0)
		goto failed;
	if (st.st_uid != geteuid() && (uid == (uid_t)-1 || st.st_uid != uid)) {
		close(fd);
		errno = EPERM;
		return sfs_fail(err, "make the directory", rel,
			    "it exists and belongs to another user (refused)");
	}
	if (fchmod(fd, mode) < 0 ||
	    (uid != (uid_t)-1 && fchown(fd, uid, gid) < 0))
		goto failed;
	return fd;

failed:
	e = errno;
	close(fd);
	errno = e;
	return sfs_fail(err, "make the directory", rel, NULL);
}

/* chown -R -P of the directory open as fd (its entries; fd itself is the
 * caller's); adds to *changed; dev is the file system not to leave. */
static int chown_entries(int fd, uid_t uid, gid_t gid, dev_t dev, int depth,
			 long *changed, const char *top, struct strbuf *err)
{
	int dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	struct dirent *de;
	int rc = 0;

	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return sfs_fail(err, "read the directory below", top, NULL);
	}
	if (depth > SFS_MAX_DEPTH) {
		closedir(d);
		errno = ELOOP;
		return sfs_fail(err, "walk", top, "directories nested too deep");
	}
	while (rc == 0 && (errno = 0, de = readdir(d))) {
		struct stat st;
		const char *name = de->d_name;
		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue;
			rc = sfs_fail(err, "inspect an entry below", top, NULL);
			break;
		}
		if (st.st_dev != dev)
			continue;     /* a mount point: not ours to hand over */
		if (st.st_uid != uid || st.st_gid != gid) {
			if (fchownat(fd, name, uid, gid, AT_SYMLINK_NOFOLLOW) < 0) {
				if (errno == ENOENT)
					continue;
				rc = sfs_fail(err, "change the owner of an entry below", top, NULL);
				break;
			}
			(*changed)++;
		}
		if (S_ISDIR(st.st_mode)) {
			int sub = sfs_open_subdir(fd, name);
			if (sub < 0) {
				if (errno == ENOENT)
					continue;
				/* replaced by a link or a file since fstatat */
				rc = sfs_fail(err, "enter a directory below", top, NULL);
				break;
			}
			rc = chown_entries(sub, uid, gid, dev, depth + 1, changed, top, err);
			close(sub);
		}
	}
	if (rc == 0 && errno) {
		rc = sfs_fail(err, "read the directory below", top, NULL);
	}
	closedir(d);
	return rc;
}

long sfs_chown_tree(int dirfd, const char *rel, uid_t uid, gid_t gid, struct strbuf *err)
{
	struct stat st;
	long changed = 0;
	int fd = sfs_open_dir(dirfd, rel, err), rc;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return sfs_fail(err, "inspect", rel, NULL);
	}
	if (st.st_uid != uid || st.st_gid != gid) {
		if (fchown(fd, uid, gid) < 0) {
			int e = errno;
			close(fd);
			errno = e;
			return sfs_fail(err, "change the owner of", rel, NULL);
		}
		changed++;
	}
	rc = chown_entries(fd, uid, gid, st.st_dev, 0, &changed, rel, err);
	close(fd);
	return rc < 0 ? -1 : changed;
}

int sfs_remove(int dirfd, const char *rel, struct strbuf *err)
{
	char *copy;
	const char *last;
	int pfd = sfs_walk(dirfd, rel, &copy, &last), rc, e;

	if (pfd < 0) {
		free(copy);
		if (errno == ENOENT)
			return 0;
		return sfs_fail(err, "remove", rel, sfs_walk_reason());
	}
	rc = remove_tree_at(pfd, last);
	e = errno;
	close(pfd);
	free(copy);
	errno = e;
	return rc < 0 ? sfs_fail(err, "remove", rel, NULL) : 0;
}

/* ---------------- trees root hands over or takes back ---------------- */

/* Could someone other than uid (and group gid) change this entry? */
static int entry_foreign(const struct stat *st, uid_t uid, gid_t gid)
{
	if (st->st_uid != uid)
		return 1;
	if (S_ISLNK(st->st_mode))
		return 0;       /* a link's own mode means nothing */
	if (st->st_mode & S_IWOTH)
		return 1;
	return (st->st_mode & S_IWGRP) && st->st_gid != gid;
}

/* Is name one of the NULL-terminated list? */
static int listed(const char *const *list, const char *name)
{
	for (; list && *list; list++)
		if (!strcmp(*list, name))
			return 1;
	return 0;
}

/* The walk of sfs_tree_foreign. */
struct foreign_walk {
	uid_t uid;
	gid_t gid;
	dev_t dev;               /* the file system not to leave */
	const char *const *skip; /* top-level names not looked at */
	struct strbuf path;      /* of the directory being read, relative */
	struct strbuf *bad;
	uid_t *owner;
	struct strbuf *err;
	const char *top;         /* rel, for messages */
};

/* 1: found (in w->bad), 0: none below fd, -1: error. */
static int foreign_entries(int fd, struct foreign_walk *w, int depth)
{
	int dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0), rc = 0;
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	struct dirent *de;

	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return sfs_fail(w->err, "read the directory below", w->top, NULL);
	}
	if (depth > SFS_MAX_DEPTH) {
		closedir(d);
		errno = ELOOP;
		return sfs_fail(w->err, "walk", w->top, "directories nested too deep");
	}
	while (rc == 0 && (errno = 0, de = readdir(d))) {
		struct stat st;
		size_t len = w->path.len;
		const char *name = de->d_name;
		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		if (depth == 0 && listed(w->skip, name))
			continue;
		if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue;
			rc = sfs_fail(w->err, "inspect an entry below", w->top, NULL);
			break;
		}
		if (st.st_dev != w->dev)
			continue;
		strbuf_addf(&w->path, "%s%s", len ? "/" : "", name);
		if (entry_foreign(&st, w->uid, w->gid)) {
			strbuf_add(w->bad, w->path.buf, w->path.len);
			*w->owner = st.st_uid;
			rc = 1;
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			int sub = sfs_open_subdir(fd, name);
			if (sub < 0) {
				if (errno != ENOENT)
					rc = sfs_fail(w->err, "enter a directory below", w->top, NULL);
			} else {
				rc = foreign_entries(sub, w, depth + 1);
				close(sub);
			}
		}
		strbuf_setlen(&w->path, len);
	}
	if (rc == 0 && errno)
		rc = sfs_fail(w->err, "read the directory below", w->top, NULL);
	closedir(d);
	return rc;
}

int sfs_tree_foreign(int dirfd, const char *rel, uid_t uid, gid_t gid,
		     const char *const *skip, struct strbuf *bad, uid_t *owner,
		     struct strbuf *err)
{
	struct foreign_walk w = { uid, gid, 0, skip, STRBUF_INIT, bad, owner, err, rel };
	struct stat st;
	int fd = sfs_open_dir(dirfd, rel, err), rc;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return sfs_fail(err, "inspect", rel, NULL);
	}
	if (entry_foreign(&st, uid, gid)) {
		*owner = st.st_uid;
		close(fd);
		return 1;       /* rel itself: nothing appended */
	}
	w.dev = st.st_dev;
	rc = foreign_entries(fd, &w, 0);
	strbuf_release(&w.path);
	close(fd);
	return rc;
}

/* The walk of sfs_link_tree. */
struct link_walk {
	uid_t uid;
	gid_t gid;
	dev_t dev;               /* the source's file system */
	const char *const *skip; /* top-level names left out */
	long made;
	struct strbuf *err;
	const char *top;         /* src_rel, for messages */
};

/* Copy the regular file name (sfd) to a new file of uid's (dfd). */
static int copy_file_at(int sfd, int dfd, const char *name, const struct stat *st,
			const struct link_walk *w)
{
	char buf[65536];
	struct timespec times[2] = { st->st_atim, st->st_mtim };
	int in = openat(sfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), out, e;
	mode_t mode = st->st_mode & 0755;
	ssize_t n;

	if (in < 0)
		return -1;
	out = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0) {
		e = errno;
		close(in);
		errno = e;
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || write_all(out, buf, (size_t)n) < 0)
			goto failed;
	}
	if (fchown(out, w->uid, w->gid) < 0 || fchmod(out, mode) < 0 ||
	    futimens(out, times) < 0)
		goto failed;
	close(in);
	return close(out);
failed:
	e = errno;
	close(in);
	close(out);
	errno = e;
	return -1;
}

/* Make the entries of the directory sfd in dfd; 0 or -1. */
static int link_entries(int sfd, int dfd, struct link_walk *w, int depth)
{
	int dup_fd = fcntl(sfd, F_DUPFD_CLOEXEC, 0), rc = 0;
	DIR *d = dup_fd < 0 ? NULL : fdopendir(dup_fd);
	struct dirent *de;

	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return sfs_fail(w->err, "read the directory below", w->top, NULL);
	}
	if (depth > SFS_MAX_DEPTH) {
		closedir(d);
		errno = ELOOP;
		return sfs_fail(w->err, "copy", w->top, "directories nested too deep");
	}
	while (rc == 0 && (errno = 0, de = readdir(d))) {
		struct stat st;
		const char *name = de->d_name;
		struct timespec times[2];
		char what[NAME_MAX + 32];
		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		if (depth == 0 && listed(w->skip, name))
			continue;
		if (fstatat(sfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue;
			rc = sfs_fail(w->err, "inspect an entry below", w->top, NULL);
			break;
		}
		times[0] = st.st_atim;
		times[1] = st.st_mtim;
		snprintf(what, sizeof(what), "copy \"%.*s\" of", NAME_MAX, name);
		if (S_ISDIR(st.st_mode)) {
			int ssub, dsub;
			if (st.st_dev != w->dev)
				continue;       /* a mount point: not part of the tree */
			if (mkdirat(dfd, name, 0700) < 0) {
				rc = sfs_fail(w->err, what, w->top, NULL);
				break;
			}
			ssub = sfs_open_subdir(sfd, name);
			dsub = ssub < 0 ? -1 : sfs_open_subdir(dfd, name);
			if (ssub < 0 || dsub < 0) {
				rc = sfs_fail(w->err, what, w->top, NULL);
				if (ssub >= 0)
					close(ssub);
				break;
			}
			rc = link_entries(ssub, dsub, w, depth + 1);
			if (rc == 0 && (fchown(dsub, w->uid, w->gid) < 0 ||
					fchmod(dsub, (st.st_mode & 0777) | 0700) < 0 ||
					futimens(dsub, times) < 0))
				rc = sfs_fail(w->err, what, w->top, NULL);
			close(ssub);
			close(dsub);
		} else if (S_ISREG(st.st_mode)) {
			int shared = !(st.st_mode & (S_IWGRP | S_IWOTH | S_ISUID | S_ISGID));
			if (shared ? linkat(sfd, name, dfd, name, 0) < 0
				   : copy_file_at(sfd, dfd, name, &st, w) < 0)
				rc = sfs_fail(w->err, what, w->top,
					  errno == EXDEV ? "the tree spans file systems" : NULL);
		} else if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n = readlinkat(sfd, name, target, sizeof(target) - 1);
			if (n < 0 || (target[n] = '\0', symlinkat(target, dfd, name) < 0) ||
			    fchownat(dfd, name, w->uid, w->gid, AT_SYMLINK_NOFOLLOW) < 0)
				rc = sfs_fail(w->err, what, w->top, NULL);
			else
				utimensat(dfd, name, times, AT_SYMLINK_NOFOLLOW);
		} else {
			continue;       /* FIFOs, sockets, devices: not part of a build */
		}
		if (rc == 0)
			w->made++;
	}
	if (rc == 0 && errno)
		rc = sfs_fail(w->err, "read the directory below", w->top, NULL);
	closedir(d);
	return rc;
}

long sfs_link_tree(int srcfd, const char *src_rel, int dstfd, const char *dst_rel,
		   uid_t uid, gid_t gid, const char *const *skip, struct strbuf *err)
{
	struct link_walk w = { uid, gid, 0, skip, 0, err, src_rel };
	struct stat st;
	char *copy;
	const char *last;
	int sfd = sfs_open_dir(srcfd, src_rel, err), pfd, dfd, e;

	if (sfd < 0)
		return -1;
	if (fstat(sfd, &st) < 0) {
		close(sfd);
		return sfs_fail(err, "inspect", src_rel, NULL);
	}
	w.dev = st.st_dev;
	pfd = sfs_walk(dstfd, dst_rel, &copy, &last);
	if (pfd < 0) {
		e = errno;
		free(copy);
		close(sfd);
		errno = e;
		return sfs_fail(err, "make the copy", dst_rel, sfs_walk_reason());
	}
	if (mkdirat(pfd, last, 0700) < 0 || (dfd = sfs_open_subdir(pfd, last)) < 0) {
		e = errno;
		close(pfd);
		free(copy);
		close(sfd);
		errno = e;
		return sfs_fail(err, "make the copy", dst_rel, NULL);
	}
	if (link_entries(sfd, dfd, &w, 0) < 0)
		goto failed;
	{
		struct timespec times[2] = { st.st_atim, st.st_mtim };
		if (fchown(dfd, uid, gid) < 0 || fchmod(dfd, (st.st_mode & 0777) | 0700) < 0 ||
		    futimens(dfd, times) < 0) {
			sfs_fail(err, "hand over the copy", dst_rel, NULL);
			goto failed;
		}
	}
	close(dfd);
	close(pfd);
	close(sfd);
	free(copy);
	return w.made + 1;

failed:
	e = errno;
	close(dfd);
	remove_tree_at(pfd, last);
	close(pfd);
	close(sfd);
	free(copy);
	errno = e;
	return -1;
}

long sfs_copy_back(int srcfd, const char *src_rel, int dstfd, const char *dst_rel,
		   size_t limit, mode_t mode, struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	long n = sfs_read(srcfd, src_rel, limit, SFS_NOFOLLOW, &sb, err);

	if (n >= 0 && sfs_write_atomic(dstfd, dst_rel, sb.buf, sb.len, mode, err) < 0)
		n = -1;
	strbuf_release(&sb);
	return n;
}
