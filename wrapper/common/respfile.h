/*
 * respfile.h - expand @response files the way gcc does.
 *
 * gcc (libiberty's expandargv/buildargv) replaces an argument "@FILE" by the
 * words of FILE: words are separated by white space; single and double
 * quotes group; a backslash makes the next character literal everywhere;
 * response files may name further response files.  An @FILE that cannot be
 * read is left as it is (gcc then reports it as a missing input), so we do
 * the same and the real compiler produces the real error.  @files are read
 * the bounded way (safefs.h, sfs_read): one that is a FIFO or a device, or
 * over SFS_READ_LIMIT bytes, makes the whole command line too hard (it
 * goes to gcc unchanged) instead of blocking or filling memory.
 */
#ifndef PGOPT_RESPFILE_H
#define PGOPT_RESPFILE_H

#include "wrapper/common/strvec.h"

/* Maximum nesting of @files, as a guard against a file including itself. */
#define RESPFILE_MAX_DEPTH 32
/* Maximum number of @files read in one expansion (gcc's libiberty stops at
 * 2000 too): files naming each other twice would otherwise double the work
 * at every level. */
#define RESPFILE_MAX_FILES 2000

/*
 * Append to out the expansion of argv[0..argc).  Returns the number of
 * @files expanded (0: out is a copy of argv), or -1 when the nesting or
 * file-count limit was exceeded or an @file is no regular file or too big.
 */
int respfile_expand(int argc, const char *const *argv, struct strvec *out);

/* Split text into words by gcc's quoting rules; appends to out.  1 when a
 * quote was left open (gcc takes the word to the end; a policy refuses
 * it), else 0. */
int respfile_split(const char *text, size_t len, struct strvec *out);

#endif
