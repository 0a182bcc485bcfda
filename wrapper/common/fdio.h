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

/*
 * A result a caller asked for by name (pgbuild's --json FILE): path
 * replaced as write_file_atomic replaces it, or, when path is "-", buf
 * written to the standard output (with a final newline if it has none).
 * Returns 0, or -1 with the error reported.
 */
int write_result(const char *path, const void *buf, size_t len);

/* Is path "-", the standard output? */
int result_is_stdout(const char *path);

/*
 * Give the standard output to the result alone: write_result("-") writes
 * to the standard output as it is now, and from here on everything else
 * the program and its children print there goes to the standard error, so
 * that `--json - | jq` reads one document.  Once (later calls do nothing);
 * 0, or -1 with errno set.
 */
int result_stdout_claim(void);

/* The descriptor write_result("-") writes to (1, or the claimed copy);
 * async-signal-safe, for a handler that writes an interrupted result. */
int result_stdout_fd(void);

#endif
