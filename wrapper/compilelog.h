/*
 * compilelog.h - the compile log: one JSON object per pgoptcc invocation,
 * appended to $PGOPT_LOGDIR/compile.jsonl.
 *
 * The file is opened before the compiler runs, so a log directory that
 * cannot be written stops the build before anything happens (fail closed).
 * Each record is written with one write() while holding an exclusive flock,
 * on a file opened O_APPEND, so parallel makes never tear or interleave
 * records.
 */
#ifndef PGOPT_COMPILELOG_H
#define PGOPT_COMPILELOG_H

#include "wrapper/common/strbuf.h"

struct compilelog {
	int fd;        /* open log file, -1 when logging is off */
	char *path;    /* its path */
};

/* Open (creating dir and file, mode 0644) dir/compile.jsonl.  Returns 0 or
 * -1 with errno set; err gets a one-line description. */
int compilelog_open(struct compilelog *log, const char *dir, struct strbuf *err);

/* Append one record (a JSON object without the newline).  Returns 0 or -1. */
int compilelog_append(struct compilelog *log, const struct strbuf *record);

void compilelog_close(struct compilelog *log);

/* Current time as "2026-11-29T20:31:02.123456Z". */
void compilelog_timestamp(struct strbuf *out);

#endif
