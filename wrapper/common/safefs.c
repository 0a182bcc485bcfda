/*
 * common/safefs.c - file operations below a verified directory
 * descriptor, the walker they share with safefs-tree.c (whole trees), and
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

/* The kinds of files read back, their limits and names (safefs.h). */
static const struct {
	size_t limit;
	const char *name;
} sfs_inputs[SFS_IN_KINDS] = {
	[SFS_IN_TEXT] = { SFS_READ_LIMIT, "a policy, list or script" },
	[SFS_IN_SETTINGS] = { (size_t)16 << 20, "a settings file" },
	[SFS_IN_MANIFEST] = { (size_t)16 << 20, "a manifest or build record" },
	[SFS_IN_JSON] = { (size_t)64 << 20, "a JSON result" },
	[SFS_IN_LOG] = { (size_t)64 << 20, "a log" },
	[SFS_IN_COMPILE_LOG] = { (size_t)256 << 20, "a compile log" },
	[SFS_IN_COUNTS] = { (size_t)64 << 20, "a file of counts" },
	[SFS_IN_PROFILE] = { (size_t)256 << 20, "a profile" },
	[SFS_IN_CALLGRIND] = { (size_t)512 << 20, "a callgrind output" },
	[SFS_IN_BINARY] = { (size_t)1 << 30, "a program or library" },
	[SFS_IN_SYSTEM] = { (size_t)1 << 20, "a system file" },
};

size_t sfs_input_limit(enum sfs_input kind)
{
	return (unsigned)kind < SFS_IN_KINDS ? sfs_inputs[kind].limit : 0;
}

const char *sfs_input_name(enum sfs_input kind)
{
	return (unsigned)kind < SFS_IN_KINDS ? sfs_inputs[kind].name : "a file";
}

/* "it is larger than 16 MiB, the limit for a log" (EFBIG kept). */
static int too_big(struct strbuf *err, const char *name, enum sfs_input kind)
{
	size_t limit = sfs_input_limit(kind);
	char reason[128];
	errno = EFBIG;
	snprintf(reason, sizeof(reason), "it is larger than %zu %s, the limit for %s",
		 limit >= (1u << 20) ? limit >> 20 : limit,
		 limit >= (1u << 20) ? "MiB" : "bytes", sfs_input_name(kind));
	return sfs_fail(err, "read", name, reason);
}

/* Refuse what fstat says is no regular file, or too long for kind. */
static int check_input(int fd, const char *name, enum sfs_input kind, struct stat *st,
		       struct strbuf *err)
{
	if (fstat(fd, st) < 0)
		return sfs_fail(err, "read", name, NULL);
	if (!S_ISREG(st->st_mode)) {
		char reason[80];
		errno = S_ISDIR(st->st_mode) ? EISDIR : EINVAL;
		snprintf(reason, sizeof(reason), "it is %s, expected a regular file",
			 sfs_kind(st->st_mode));
		return sfs_fail(err, "read", name, reason);
	}
	if ((uintmax_t)st->st_size > sfs_input_limit(kind))
		return too_big(err, name, kind);
	return 0;
}

long sfs_read_fd(int fd, const char *name, enum sfs_input kind, struct strbuf *out,
		 struct strbuf *err)
{
	struct stat st;
	size_t start = out->len, limit = sfs_input_limit(kind);

	if (check_input(fd, name, kind, &st, err) < 0)
		return -1;
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
		if (out->len - start > limit) {
			strbuf_setlen(out, start);
			return too_big(err, name, kind);
		}
	}
	return (long)(out->len - start);
}

int sfs_open_input(int dirfd, const char *rel, enum sfs_input kind, unsigned flags,
		   struct stat *st, struct strbuf *err)
{
	return sfs_open_input_as(dirfd, rel, rel, kind, flags, st, err);
}

int sfs_open_input_as(int dirfd, const char *rel, const char *name, enum sfs_input kind,
		      unsigned flags, struct stat *st, struct strbuf *err)
{
	struct stat local;
	int fd, e;

	if (flags & SFS_NOFOLLOW) {
		char *copy;
		const char *last;
		int pfd = sfs_walk(dirfd, rel, &copy, &last);
		if (pfd < 0) {
			free(copy);
			return sfs_fail(err, "read", name, sfs_walk_reason());
		}
		fd = openat(pfd, last, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
		e = errno;
		close(pfd);
		free(copy);
		errno = e;
	} else {
		fd = openat(dirfd, rel, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		return sfs_fail(err, "read", name, errno == ELOOP ?
			    "it is a symbolic link (refused)" : NULL);
	if (check_input(fd, name, kind, st ? st : &local, err) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

long sfs_read(int dirfd, const char *rel, enum sfs_input kind, unsigned flags,
	      struct strbuf *out, struct strbuf *err)
{
	return sfs_read_as(dirfd, rel, rel, kind, flags, out, err);
}

long sfs_read_as(int dirfd, const char *rel, const char *name, enum sfs_input kind,
		 unsigned flags, struct strbuf *out, struct strbuf *err)
{
	long n;
	int fd = sfs_open_input_as(dirfd, rel, name, kind, flags, NULL, err), e;

	if (fd < 0)
		return -1;
	n = sfs_read_fd(fd, name, kind, out, err);
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
