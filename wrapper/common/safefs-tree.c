/*
 * common/safefs-tree.c - whole trees below verified directory descriptors:
 * the one walk of a tree (sfs_walk_tree), and on it the trees handed over
 * (sfs_chown_tree), checked before root works in them (sfs_tree_foreign),
 * and copied in and out as hard links or copies (sfs_link_tree,
 * sfs_copy_back); see safefs.h for the rules.
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

/* The state of one sfs_walk_tree. */
struct tree_walk {
	enum sfs_walk_next (*visit)(struct sfs_entry *e, void *ctx);
	void *ctx;
	struct strbuf path;      /* "TOP/REL" of the directory or entry at hand */
	size_t top_len;          /* where REL starts in path */
	const char *top;         /* the top, for the depth message */
	struct strbuf *err;
};

static int walk_dir(struct tree_walk *w, int fd, int depth, int parent_out);

/* Hand e to the visitor (its strings pointing at w->path): its answer, and
 * what the walk does then: 0 go on, 1 stop (found), -1 stop (error). */
static int visit(struct tree_walk *w, struct sfs_entry *e, enum sfs_walk_next *next)
{
	e->path = w->path.buf;
	e->rel = w->path.buf + w->top_len;
	*next = w->visit(e, w->ctx);
	return *next < 0 ? -1 : *next == SFS_WALK_STOP;
}

/* Into the directory e (its visit said so); 0, 1 (stopped) or -1. */
static int enter(struct tree_walk *w, const struct sfs_entry *e)
{
	char why[64];
	int sub, rc;

	if (e->depth + 1 > SFS_MAX_DEPTH) {
		snprintf(why, sizeof(why), "directories nested too deep (more than %d levels)",
			 SFS_MAX_DEPTH);
		errno = ELOOP;
		return sfs_fail(w->err, "walk", *w->top ? w->top : ".", why);
	}
	sub = sfs_open_subdir(e->fd, e->name);
	if (sub < 0)          /* vanished: empty; replaced by a link or a file: refused */
		return errno == ENOENT ? 0 : sfs_fail(w->err, "open the directory", w->path.buf, NULL);
	rc = walk_dir(w, sub, e->depth + 1, e->out);
	close(sub);
	return rc;
}

/* One entry of a directory: visited, and entered when a directory;
 * 0 (go on), 1 (stopped) or -1. */
static int walk_entry(struct tree_walk *w, struct sfs_entry *e)
{
	enum sfs_walk_next next, again;
	int rc;

	if (fstatat(e->fd, e->name, &e->st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : sfs_fail(w->err, "inspect", w->path.buf, NULL);
	rc = visit(w, e, &next);
	if (rc == 0 && next != SFS_WALK_SKIP && S_ISDIR(e->st.st_mode))
		rc = enter(w, e);
	if (rc == 0 && next == SFS_WALK_AFTER && S_ISDIR(e->st.st_mode)) {
		e->after = 1;
		rc = visit(w, e, &again);
	}
	if (e->out >= 0)
		close(e->out);
	return rc;
}

/* Every entry of the directory fd (w->path), depth levels below the top. */
static int walk_dir(struct tree_walk *w, int fd, int depth, int parent_out)
{
	int dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0), rc = 0;
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	struct dirent *de;

	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return sfs_fail(w->err, "read the directory", w->path.buf, NULL);
	}
	rewinddir(d);         /* the offset is fd's: the caller's may have been read */
	while (rc == 0 && (errno = 0, de = readdir(d))) {
		struct sfs_entry e = { fd, de->d_name, NULL, NULL, { 0 }, depth, 0, parent_out, -1,
				       w->err };
		size_t len = w->path.len;
		if (!strcmp(e.name, ".") || !strcmp(e.name, ".."))
			continue;
		strbuf_addf(&w->path, "%s%s", len ? "/" : "", e.name);
		rc = walk_entry(w, &e);
		strbuf_setlen(&w->path, len);
	}
	if (rc == 0 && errno)
		rc = sfs_fail(w->err, "read the directory", w->path.buf, NULL);
	closedir(d);
	return rc;
}

int sfs_walk_tree(int fd, const char *top,
		  enum sfs_walk_next (*visit_fn)(struct sfs_entry *e, void *ctx), void *ctx,
		  struct strbuf *err)
{
	struct tree_walk w = { visit_fn, ctx, STRBUF_INIT, 0, top, err };
	int rc;

	strbuf_addstr(&w.path, top);
	w.top_len = w.path.len + (w.path.len > 0);
	rc = walk_dir(&w, fd, 0, -1);
	strbuf_release(&w.path);
	return rc;
}

/* Open the tree rel below dirfd (sfs_open_dir) and fstat it into st. */
static int open_tree(int dirfd, const char *rel, struct stat *st, struct strbuf *err)
{
	int fd = sfs_open_dir(dirfd, rel, err), e;

	if (fd >= 0 && fstat(fd, st) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return sfs_fail(err, "inspect", rel, NULL);
	}
	return fd;
}

/* The walk of sfs_chown_tree. */
struct chown_walk {
	uid_t uid;
	gid_t gid;
	dev_t dev;               /* the file system not to leave */
	long changed;            /* entries given to uid:gid */
};

static enum sfs_walk_next chown_entry(struct sfs_entry *e, void *ctx)
{
	struct chown_walk *w = ctx;

	if (e->st.st_dev != w->dev)
		return SFS_WALK_SKIP;     /* a mount point: not ours to hand over */
	if (e->st.st_uid == w->uid && e->st.st_gid == w->gid)
		return SFS_WALK_NEXT;
	if (fchownat(e->fd, e->name, w->uid, w->gid, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? SFS_WALK_SKIP
				       : sfs_fail(e->err, "change the owner of", e->path, NULL);
	w->changed++;
	return SFS_WALK_NEXT;
}

long sfs_chown_tree(int dirfd, const char *rel, uid_t uid, gid_t gid, struct strbuf *err)
{
	struct chown_walk w = { uid, gid, 0, 0 };
	struct stat st;
	int fd = open_tree(dirfd, rel, &st, err), rc;

	if (fd < 0)
		return -1;
	if (st.st_uid != uid || st.st_gid != gid) {
		if (fchown(fd, uid, gid) < 0) {
			int e = errno;
			close(fd);
			errno = e;
			return sfs_fail(err, "change the owner of", rel, NULL);
		}
		w.changed++;
	}
	w.dev = st.st_dev;
	rc = sfs_walk_tree(fd, rel, chown_entry, &w, err);
	close(fd);
	return rc < 0 ? -1 : w.changed;
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
	struct strbuf *bad;      /* the entry found, relative */
	uid_t *owner;            /* ... and its owner */
};

static enum sfs_walk_next foreign_entry(struct sfs_entry *e, void *ctx)
{
	struct foreign_walk *w = ctx;

	if ((e->depth == 0 && listed(w->skip, e->name)) || e->st.st_dev != w->dev)
		return SFS_WALK_SKIP;
	if (!entry_foreign(&e->st, w->uid, w->gid))
		return SFS_WALK_NEXT;
	strbuf_addstr(w->bad, e->rel);
	*w->owner = e->st.st_uid;
	return SFS_WALK_STOP;
}

int sfs_tree_foreign(int dirfd, const char *rel, uid_t uid, gid_t gid,
		     const char *const *skip, struct strbuf *bad, uid_t *owner,
		     struct strbuf *err)
{
	struct foreign_walk w = { uid, gid, 0, skip, bad, owner };
	struct stat st;
	int fd = open_tree(dirfd, rel, &st, err), rc;

	if (fd < 0)
		return -1;
	if (entry_foreign(&st, uid, gid)) {
		*owner = st.st_uid;
		close(fd);
		return 1;       /* rel itself: nothing appended */
	}
	w.dev = st.st_dev;
	rc = sfs_walk_tree(fd, rel, foreign_entry, &w, err);
	close(fd);
	return rc;
}

/* The walk of sfs_link_tree. */
struct link_walk {
	uid_t uid;
	gid_t gid;
	dev_t dev;               /* the source's file system */
	const char *const *skip; /* top-level names left out */
	int dfd;                 /* the copy's top directory */
	long made;
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

/* The copy's directory dfd, its entries made, becomes the user's with its
 * source's (st) mode plus u+rwx and times. */
static int hand_over(int dfd, const struct stat *st, const struct link_walk *w)
{
	struct timespec times[2] = { st->st_atim, st->st_mtim };

	return fchown(dfd, w->uid, w->gid) < 0 || fchmod(dfd, (st->st_mode & 0777) | 0700) < 0 ||
	       futimens(dfd, times) < 0 ? -1 : 0;
}

/* Make e in the copy (in e->parent_out, the copy's directory it is in). */
static enum sfs_walk_next link_entry(struct sfs_entry *e, void *ctx)
{
	struct link_walk *w = ctx;
	const struct stat *st = &e->st;
	struct timespec times[2] = { st->st_atim, st->st_mtim };
	int dfd = e->depth ? e->parent_out : w->dfd;

	if (e->depth == 0 && listed(w->skip, e->name))
		return SFS_WALK_SKIP;
	if (e->after)
		return hand_over(e->out, st, w) < 0 ? sfs_fail(e->err, "copy", e->path, NULL)
						    : SFS_WALK_NEXT;
	if (S_ISDIR(st->st_mode)) {
		if (st->st_dev != w->dev)
			return SFS_WALK_SKIP;   /* a mount point: not part of the tree */
		if (mkdirat(dfd, e->name, 0700) < 0 || (e->out = sfs_open_subdir(dfd, e->name)) < 0)
			return sfs_fail(e->err, "copy", e->path, NULL);
		w->made++;
		return SFS_WALK_AFTER;
	} else if (S_ISREG(st->st_mode)) {
		int shared = !(st->st_mode & (S_IWGRP | S_IWOTH | S_ISUID | S_ISGID));
		if (shared ? linkat(e->fd, e->name, dfd, e->name, 0) < 0
			   : copy_file_at(e->fd, dfd, e->name, st, w) < 0)
			return sfs_fail(e->err, "copy", e->path,
					errno == EXDEV ? "the tree spans file systems" : NULL);
	} else if (S_ISLNK(st->st_mode)) {
		char target[PATH_MAX], abs[PATH_MAX];
		ssize_t n = readlinkat(e->fd, e->name, target, sizeof(target) - 1);
		if (n >= 0 && (target[n] = '\0',
			       escaping_target(e->fd, target, e->depth, abs, sizeof(abs))))
			memcpy(target, abs, strlen(abs) + 1);
		if (n < 0 || symlinkat(target, dfd, e->name) < 0 ||
		    fchownat(dfd, e->name, w->uid, w->gid, AT_SYMLINK_NOFOLLOW) < 0)
			return sfs_fail(e->err, "copy", e->path, NULL);
		utimensat(dfd, e->name, times, AT_SYMLINK_NOFOLLOW);
	} else {
		return SFS_WALK_NEXT;   /* FIFOs, sockets, devices: not part of a build */
	}
	w->made++;
	return SFS_WALK_NEXT;
}

long sfs_link_tree(int srcfd, const char *src_rel, int dstfd, const char *dst_rel,
		   uid_t uid, gid_t gid, const char *const *skip, struct strbuf *err)
{
	struct link_walk w = { uid, gid, 0, skip, -1, 0 };
	struct stat st;
	char *copy;
	const char *last;
	int sfd = open_tree(srcfd, src_rel, &st, err), pfd, dfd, e;

	if (sfd < 0)
		return -1;
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
	w.dfd = dfd;
	if (sfs_walk_tree(sfd, src_rel, link_entry, &w, err) < 0)
		goto failed;
	if (hand_over(dfd, &st, &w) < 0) {
		sfs_fail(err, "hand over the copy", dst_rel, NULL);
		goto failed;
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
