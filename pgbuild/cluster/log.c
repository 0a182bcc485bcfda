/*
 * cluster/log.c - the server log of a private cluster: read back through
 * the descriptor kept since it was created, and scanned for crashes; see
 * cluster.h.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "pgbuild/cluster/cluster.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/strbuf.h"

int cluster_scan_log_text(const char *text, struct strbuf *problems)
{
	static const char *const patterns[] = {
		"PANIC:",
		"terminated by signal",
		"exited with exit code",
		"was terminated by exception",
		"TRAP:",
		"server process (PID",
		NULL,
	};
	/* normal at shutdown, though it reads like a crash */
	static const char *const harmless[] = {
		"background worker \"logical replication launcher\" (PID",
		NULL,
	};
	int found = 0;
	const char *line = text;

	while (*line) {
		const char *e = strchr(line, '\n');
		size_t len = e ? (size_t)(e - line) : strlen(line);
		int skip = 0;
		for (int i = 0; harmless[i]; i++)
			if (memmem(line, len, harmless[i], strlen(harmless[i])) &&
			    memmem(line, len, "exit code 1", 11))
				skip = 1;
		for (int i = 0; patterns[i] && !skip; i++) {
			if (memmem(line, len, patterns[i], strlen(patterns[i]))) {
				found++;
				if (problems)
					strbuf_addf(problems, "server log: %.*s\n",
						    (int)(len > 300 ? 300 : len), line);
				break;
			}
		}
		line += len + (e ? 1 : 0);
	}
	return found;
}

int cluster_log_line_is_crash(const char *line, size_t len)
{
	static const char *const crash[] = {
		"terminated by signal", "PANIC:", "TRAP:", "terminated by exception", NULL
	};
	for (int i = 0; crash[i]; i++)
		if (memmem(line, len, crash[i], strlen(crash[i])))
			return 1;
	return 0;
}

void cluster_log_crashes(const char *text, struct strbuf *out)
{
	for (const char *l = text; *l;) {
		size_t len = strcspn(l, "\n");
		if (cluster_log_line_is_crash(l, len)) {
			strbuf_add(out, l, len);
			strbuf_addch(out, '\n');
		}
		l += len + (l[len] ? 1 : 0);
	}
}

/* pread n bytes at off of the log into out; the bytes read, or -1. */
static long log_pread(struct cluster *c, off_t off, size_t n, struct strbuf *out)
{
	size_t start = out->len;
	strbuf_grow(out, n);
	while (out->len - start < n) {
		ssize_t r = pread(c->logfd, out->buf + out->len, n - (out->len - start),
				  off + (off_t)(out->len - start));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			strbuf_setlen(out, start);
			return -1;
		}
		if (r == 0)
			break;
		strbuf_setlen(out, out->len + (size_t)r);
	}
	return (long)(out->len - start);
}

long cluster_read_log(struct cluster *c, struct strbuf *out, size_t limit)
{
	struct stat st;
	off_t from = 0;

	if (c->logfd < 0 || fstat(c->logfd, &st) < 0)
		return -1;
	if ((uintmax_t)st.st_size > limit)
		from = st.st_size - (off_t)limit;
	return log_pread(c, from, (size_t)(st.st_size - from), out);
}

int cluster_check_log(struct cluster *c, struct strbuf *problems)
{
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	int found;
	size_t n;

	if (c->logfd < 0 || fstat(c->logfd, &st) < 0)
		return 0;
	if (st.st_size < c->log_checked)
		c->log_checked = 0;     /* truncated: from the start */
	/* the server writes this file: at most SFS_READ_LIMIT at once */
	n = (size_t)(st.st_size - c->log_checked);
	if (n > SFS_READ_LIMIT)
		n = SFS_READ_LIMIT;
	if (log_pread(c, c->log_checked, n, &sb) < 0) {
		strbuf_release(&sb);
		return 0;
	}
	c->log_checked = (long)st.st_size;
	found = cluster_scan_log_text(sb.buf, problems);
	strbuf_release(&sb);
	return found;
}
