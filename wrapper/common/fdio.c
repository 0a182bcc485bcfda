/*
 * fdio.c - writing to file descriptors; see fdio.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wrapper/common/error.h"
#include "wrapper/common/fdio.h"
#include "wrapper/common/xalloc.h"

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The steps of an atomic replace; on failure *step names the one that
 * failed ("write", "rename") and errno says why. */
static int replace_file(const char *path, const char *tmp, const void *buf, size_t len,
			const char **step)
{
	/* O_EXCL | O_NOFOLLOW: a file or link planted at the temporary name
	 * is never written through; a leftover of ours is removed once */
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644), e;

	*step = "write";
	if (fd < 0 && errno == EEXIST && unlink(tmp) == 0)
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (write_all(fd, buf, len) < 0 || fsync(fd) < 0) {
		e = errno;
		close(fd);
		unlink(tmp);
		errno = e;
		return -1;
	}
	if (close(fd) < 0) {
		e = errno;
		unlink(tmp);
		errno = e;
		return -1;
	}
	*step = "rename";
	if (rename(tmp, path) < 0) {
		e = errno;
		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

int write_file_atomic_quiet(const char *path, const void *buf, size_t len)
{
	char *tmp = xasprintf("%s.tmp%ld", path, (long)getpid());
	const char *step;
	int rc = replace_file(path, tmp, buf, len, &step), e = errno;
	free(tmp);
	errno = e;
	return rc;
}

int write_file_atomic(const char *path, const void *buf, size_t len)
{
	char *tmp = xasprintf("%s.tmp%ld", path, (long)getpid());
	const char *step;
	int rc = replace_file(path, tmp, buf, len, &step);

	if (rc < 0 && !strcmp(step, "rename"))
		error("cannot rename %s to %s: %s", tmp, path, strerror(errno));
	else if (rc < 0)
		error("cannot write %s: %s", tmp, strerror(errno));
	free(tmp);
	return rc;
}
