/*
 * textfile.h - the end of a text file (a log): its last line, its last
 * lines.
 *
 * pgbuild runs long child processes with their output in log files and
 * shows people the end of a log when something failed.
 */
#ifndef PGOPT_TEXTFILE_H
#define PGOPT_TEXTFILE_H

#include <stddef.h>
#include <stdio.h>

/*
 * The last non-empty line of the file at path (with want: the last line
 * containing want), without its newline, malloced; NULL when the file
 * cannot be read or has no such line.
 */
char *textfile_last_line(const char *path, const char *want);

/* " (LAST LINE; log PATH)" on note for the log of a command that failed,
 * or " (log PATH: no line to show)" when it has none (or cannot be read). */
struct strbuf;
void textfile_note_tail(const char *path, struct strbuf *note);

/*
 * Where the last `lines` lines of text[0..len) begin (trailing newlines
 * and blanks not counted): a pointer into text.
 */
const char *text_tail(const char *text, size_t len, int lines);

/*
 * The lines of text[0..len), one per call: the line starting at *pos
 * (without its newline; *n its length), *pos moved past it; NULL at the
 * end.  A last line without a newline is a line.
 *
 *     size_t pos = 0, n;
 *     for (const char *l; (l = text_next_line(sb.buf, sb.len, &pos, &n)); ) ...
 */
const char *text_next_line(const char *text, size_t len, size_t *pos, size_t *n);

/*
 * text on fp wrapped at width columns on its spaces: the first line
 * indented by first, the others by indent; a newline at the end.  A word
 * longer than the line stands alone.  (The terminal renderings: report,
 * explain.)
 */
void text_wrap(FILE *fp, int width, int first, int indent, const char *text);

/*
 * Print the last `lines` lines of the file at path to fp (nothing when it
 * cannot be read).
 */
void textfile_print_tail(const char *path, int lines, FILE *fp);

#endif
