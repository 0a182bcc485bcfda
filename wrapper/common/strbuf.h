/*
 * strbuf.h - a growable string buffer (after git's strbuf and PostgreSQL's
 * StringInfo).
 *
 * Invariants: after strbuf_init() or STRBUF_INIT, buf is never NULL and is
 * always NUL-terminated at buf[len]; len excludes the NUL.  The buffer may
 * hold NUL bytes (strbuf_add).  Ownership: strbuf_release() frees and
 * re-initialises; strbuf_detach() hands the string to the caller (who frees
 * it) and re-initialises the strbuf.
 */
#ifndef PGOPT_STRBUF_H
#define PGOPT_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	size_t alloc; /* bytes allocated; 0 means buf points at a static "" */
	size_t len;   /* bytes used, not counting the terminating NUL */
	char *buf;    /* the data, always NUL-terminated */
};

extern char strbuf_slopbuf[];
#define STRBUF_INIT { 0, 0, strbuf_slopbuf }

/* --- life cycle --- */
void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
char *strbuf_detach(struct strbuf *sb, size_t *len);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_setlen(struct strbuf *sb, size_t len);
#define strbuf_reset(sb) strbuf_setlen((sb), 0)

/* --- adding --- */
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/* Append s with &, <, >, " and ' escaped (HTML text and attribute values;
 * NULL appends nothing). */
void strbuf_addstr_html(struct strbuf *out, const char *s);

/* --- editing --- */
void strbuf_rtrim(struct strbuf *sb);
void strbuf_trim(struct strbuf *sb);

/* --- descriptors (a file by name: sfs_read in safefs.h, the one reader) --- */
/* Append what fd gives until end of file (EINTR retried); returns bytes
 * read, or -1 with errno set (what was read before stays in sb). */
long strbuf_read_fd(struct strbuf *sb, int fd);
/* Read one line (without its '\n') into sb, replacing its content.
 * Returns 0 on success, EOF at end of file. */
int strbuf_getline(struct strbuf *sb, void *fp /* FILE * */);

#endif
