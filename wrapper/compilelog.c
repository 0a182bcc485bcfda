/*
 * compilelog.c - atomic appends to compile.jsonl; see compilelog.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "wrapper/compilelog.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/xalloc.h"

/* mkdir -p */
static int mkdirs(const char *dir)
{
	char *p = xstrdup(dir);
	int r = 0;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			r = -1;
			break;
		}
		*s = '/';
	}
	if (!r && mkdir(p, 0755) < 0 && errno != EEXIST)
		r = -1;
	free(p);
	return r;
}

int compilelog_open(struct compilelog *log, const char *dir, struct strbuf *err)
{
	struct stat st;
	int e;
	log->fd = -1;
	log->path = xasprintf("%s/compile.jsonl", dir);
	if (mkdirs(dir) < 0) {
		e = errno;
		strbuf_addf(err, "cannot create log directory %s: %s", dir, strerror(e));
		errno = e;
		return -1;
	}
	/* never through a link, never blocking on a FIFO: only a regular file
	 * (O_NONBLOCK changes nothing for one) */
	log->fd = open(log->path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		       0644);
	if (log->fd < 0) {
		e = errno;
		/* ENXIO: a FIFO nobody reads (or a device); say which, for the message */
		if (e == ENXIO && lstat(log->path, &st) == 0 && !S_ISREG(st.st_mode))
			strbuf_addf(err, "cannot open compile log %s: it is %s, expected a regular file",
				    log->path, sfs_kind(st.st_mode));
		else
			strbuf_addf(err, "cannot open compile log %s: %s", log->path,
				    e == ELOOP ? "it is a symbolic link, expected a regular file"
					       : strerror(e));
		errno = e;
		return -1;
	}
	if (fstat(log->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		e = errno;
		if (fstat(log->fd, &st) == 0) {
			strbuf_addf(err, "cannot open compile log %s: it is %s, expected a regular file",
				    log->path, sfs_kind(st.st_mode));
			e = EINVAL;
		} else {
			strbuf_addf(err, "cannot open compile log %s: %s", log->path, strerror(e));
		}
		close(log->fd);
		log->fd = -1;
		errno = e;
		return -1;
	}
	return 0;
}

int compilelog_append(struct compilelog *log, const struct strbuf *record)
{
	struct strbuf line = STRBUF_INIT;
	ssize_t n;
	int r = 0, e = 0;

	if (log->fd < 0)
		return 0;
	strbuf_add(&line, record->buf, record->len);
	strbuf_addch(&line, '\n');
	while (flock(log->fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			strbuf_release(&line);
			return -1;
		}
	}
	do {
		n = write(log->fd, line.buf, line.len);
	} while (n < 0 && errno == EINTR);
	if (n != (ssize_t)line.len) {
		r = -1;
		e = n < 0 ? errno : ENOSPC;
		/* never leave half a record: cut back what was written */
		if (n > 0) {
			struct stat st;
			if (fstat(log->fd, &st) == 0 && st.st_size >= n)
				if (ftruncate(log->fd, st.st_size - n) < 0)
					e = errno;
		}
	}
	flock(log->fd, LOCK_UN);
	strbuf_release(&line);
	if (r)
		errno = e;
	return r;
}

void compilelog_close(struct compilelog *log)
{
	if (log->fd >= 0)
		close(log->fd);
	log->fd = -1;
	free(log->path);
	log->path = NULL;
}

void compilelog_timestamp(struct strbuf *out)
{
	struct timeval tv;
	struct tm tm;
	char buf[32];
	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	strbuf_addf(out, "%s.%06ldZ", buf, (long)tv.tv_usec);
}
