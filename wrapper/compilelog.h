/*
 * compilelog.h - the compile log: one JSON object per pgoptcc invocation,
 * appended to $PGOPT_LOGDIR/compile.jsonl; the record of an invocation;
 * the guard that removes an output whose record could not be written.
 *
 * The file is opened before the compiler runs, so a log directory that
 * cannot be written stops the build before anything happens (fail closed).
 * Each record is written with one write() while holding an exclusive flock,
 * on a file opened O_APPEND, so parallel makes never tear or interleave
 * records.
 */
#ifndef PGOPT_COMPILELOG_H
#define PGOPT_COMPILELOG_H

#include <sys/stat.h>

#include "wrapper/common/strbuf.h"

struct compilelog {
	int fd;        /* open log file, -1 when logging is off */
	char *path;    /* its path */
	int dirfd;     /* the log directory (valid while fd >= 0): its side
			* directories are opened below it */
};

/*
 * Open (creating dir and file, mode 0644) dir/compile.jsonl.  The log
 * directory is the caller's path (followed as given); as root it must be
 * one only root can write (sfs_root_only, the rule of pgbuild's
 * --workdir): another user could otherwise plant links where root writes
 * next.  Its side directories functions/ (pgopt.so's records) and records/
 * (records = side), when they exist, must be real directories (no link)
 * passing the same rule.  compile.jsonl is opened below the directory's
 * descriptor, never through a link or a FIFO.  Returns 0 or -1 with errno
 * set; err gets a one-line description.
 */
int compilelog_open(struct compilelog *log, const char *dir, struct strbuf *err);

/* Append one record (a JSON object without the newline).  Returns 0 or -1. */
int compilelog_append(struct compilelog *log, const struct strbuf *record);

void compilelog_close(struct compilelog *log);

/* Current time as "2026-11-29T20:31:02.123456Z". */
void compilelog_timestamp(struct strbuf *out);

struct invocation;
struct json_writer;
struct strvec;

/* "key": [the strings of sv] */
void compilelog_key_strvec(struct json_writer *jw, const char *key, const struct strvec *sv);

/*
 * The output file gcc writes, when it is known: -o, else gcc's default
 * (SOURCE.o / SOURCE.s for -c / -S of one source, a.out for a link).
 * NULL for queries, preprocessing and dependency-only runs to stdout, and
 * several sources compiled at once.  Passthrough records get it too.
 */
char *compilelog_output(const struct invocation *inv);

/* Append this invocation's record; 0, or -1 with errno set when it
 * could not be written. */
int compilelog_write_record(struct invocation *inv, struct compilelog *log, int code,
			    double ms);

/*
 * The output file of this invocation, watched so that it can be removed
 * when its record cannot be written: make would otherwise take the object
 * as up to date and the record would be lost for good.  The directory is
 * opened (as gcc will resolve it) before the compiler runs, and only an
 * entry in that directory that the compile made or rewrote is removed: a
 * regular file that was not there before, or whose inode or times have
 * changed since.
 */
struct compilelog_guard {
	char *path;        /* as the command line names it, or NULL */
	int dirfd;         /* its directory, or -1 */
	char *base;        /* its name in that directory */
	int existed;       /* it was there before the compile */
	struct stat before; /* ... and then looked like this */
};

/* Watch inv's output (compilelog_output), before the compiler runs. */
void compilelog_guard_begin(const struct invocation *inv, struct compilelog_guard *g);

/* Remove the output if this compile made it: 1 removed, 0 nothing to
 * remove, -1 with errno when it could not be removed. */
int compilelog_guard_remove(struct compilelog_guard *g);

/* Stop watching; frees what begin took. */
void compilelog_guard_end(struct compilelog_guard *g);

#endif
