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

/* Where "-" writes: the standard output, or its copy once claimed. */
static int result_fd = STDOUT_FILENO;

int result_is_stdout(const char *path)
{
	return path && !strcmp(path, "-");
}

int result_stdout_fd(void)
{
	return result_fd;
}

int result_stdout_claim(void)
{
	int fd;

	if (result_fd != STDOUT_FILENO)
		return 0;
	fflush(stdout);
	/* close-on-exec: a child never gets the result's descriptor */
	if ((fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)) < 0)
		return -1;
	if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	/* stdout is the standard error now: line by line, as a terminal's */
	setvbuf(stdout, NULL, _IOLBF, 0);
	result_fd = fd;
	return 0;
}

int write_result(const char *path, const void *buf, size_t len)
{
	if (!result_is_stdout(path))
		return write_file_atomic(path, buf, len);
	fflush(stdout);
	if (write_all(result_fd, buf, len) < 0 ||
	    (len && ((const char *)buf)[len - 1] != '\n' && write_all(result_fd, "\n", 1) < 0))
		return error("cannot write the result to the standard output: %s", strerror(errno));
	return 0;
}
