/*
 * common/safefs-tree.c - whole trees below verified directory descriptors:
 * handed over (sfs_chown_tree), checked before root works in them
 * (sfs_tree_foreign), and copied in and out as hard links or copies
 * (sfs_link_tree, sfs_copy_back); see safefs.h for the rules.
 *
 * Every directory is entered with openat(O_NOFOLLOW | O_DIRECTORY) below
 * the one before (safefs-walk.h), never by a path.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wrapper/common/fdio.h"
#include "wrapper/common/rmtree.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/safefs-walk.h"
#include "wrapper/common/xalloc.h"

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

/*
 * A relative link target that climbs out of the linked tree (depth: how
 * far below its top the link is), such as a vpath build's
 * src/Makefile.port -> ../../src/makefiles/Makefile.linux into the source
 * tree beside it, would point elsewhere from the copy: made absolute from
 * the source directory sfd's own path into out.  0: target kept as it is.
 */
static int escaping_target(int sfd, const char *target, int depth, char *out, size_t outsz)
{
	char fdpath[64], dir[PATH_MAX];
	const char *p = target;
	long level = depth;
	ssize_t n;

	if (target[0] == '/')
		return 0;
	while (*p) {
		size_t len = strcspn(p, "/");
		if (len == 2 && !strncmp(p, "..", 2))
			level--;
		else if (len && !(len == 1 && p[0] == '.'))
			level++;
		if (level < 0)
			break;
		p += len;
		p += strspn(p, "/");
	}
	if (level >= 0)
		return 0;
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", sfd);
	n = readlink(fdpath, dir, sizeof(dir) - 1);
	if (n <= 0 || dir[0] != '/')
		return 0;
	dir[n] = '\0';
	return snprintf(out, outsz, "%s/%s", dir, target) < (int)outsz;
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
			char target[PATH_MAX], abs[PATH_MAX];
			ssize_t n = readlinkat(sfd, name, target, sizeof(target) - 1);
			if (n >= 0 && (target[n] = '\0', escaping_target(sfd, target, depth, abs, sizeof(abs))))
				memcpy(target, abs, strlen(abs) + 1);
			if (n < 0 || symlinkat(target, dfd, name) < 0 ||
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
		   enum sfs_input kind, mode_t mode, struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	long n = sfs_read(srcfd, src_rel, kind, SFS_NOFOLLOW, &sb, err);

	if (n >= 0 && sfs_write_atomic(dstfd, dst_rel, sb.buf, sb.len, mode, err) < 0)
		n = -1;
	strbuf_release(&sb);
	return n;
}
