/*
 * fdio.h - writing to file descriptors, and replacing whole files.
 *
 * Every file pgoptcc and pgbuild write as a whole (JSON results, state,
 * policies, lists, logs of one run) is written with write_file_atomic, so
 * a reader never sees half a file and a failed write never leaves one.
 */
#ifndef PGOPT_FDIO_H
#define PGOPT_FDIO_H

#include <stddef.h>

/*
 * write(2) all len bytes of buf to fd, going on after short writes and
 * EINTR.  Async-signal-safe (no allocation, no stdio), so signal handlers
 * may use it.  Returns 0, or -1 with errno set (0 bytes written counts as
 * an error: EIO).
 */
int write_all(int fd, const void *buf, size_t len);

/*
 * Replace path with buf atomically: write PATH.tmpPID (mode 0644 less the
 * umask), fsync it, rename it over path.  A reader sees the old file or the
 * new one, never a part.  Returns 0, or -1 with the error reported and the
 * temporary file removed.
 */
int write_file_atomic(const char *path, const void *buf, size_t len);

/*
 * The same without a message, for callers that say more than the errno:
 * returns 0, or -1 with errno set (the temporary file removed, path
 * untouched).
 */
int write_file_atomic_quiet(const char *path, const void *buf, size_t len);

#endif
