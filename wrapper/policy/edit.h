/*
 * edit.h - a policy as a document: loaded with its lines and comments,
 * queried, edited and written back with comments and order kept.
 *
 * Whoever writes or rewrites a policy (pgbuild pgo, optimize, tune,
 * profile, sensitivity) does it here, never by hand: the document holds
 * the text line by line and, beside it, the parse of that text (policy.h)
 * by the same parser and vocabulary pgoptcc uses.  Every edit changes a
 * copy of the lines and parses it again; an edit that would make the
 * policy invalid is refused with the parser's "PATH:LINE: reason" and the
 * document stays as it was.  So a document is always a valid policy.
 *
 * Where edits go (the order a person would write):
 *   - a [global] key (lto, bolt, hot, cold, plugin) that is set already:
 *     its line is rewritten in place, indentation and comment kept;
 *   - a new one: after the first [global] header and the key lines right
 *     below it; with no [global], "[global]" and the key open the file;
 *   - a new section: at the end;
 *   - flags: a new "cflags += ..." (or -=, ldflags) line after the last
 *     setting of the section (comments and blank lines before the next
 *     header belong to the next section and stay there).
 * Text outside the edited lines is kept byte for byte, a byte-order mark
 * and a missing final newline too: load and write give the same bytes.
 */
#ifndef PGOPT_POLICY_EDIT_H
#define PGOPT_POLICY_EDIT_H

#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"
#include "wrapper/policy/policy.h"

struct policy_doc {
	char *path;          /* named in messages; relative lists resolve
			      * against its directory */
	unsigned flags;      /* POLICY_UNCHECKED or 0: how edits are checked */
	int bom;             /* the text began with a UTF-8 byte-order mark */
	int final_newline;   /* the last line ends with '\n' (empty text: 1) */
	struct strvec lines; /* the lines, without their '\n' */
	struct policy pol;   /* the parse of the lines as they are now */
};

/* ---------------- loading and writing ---------------- */

/* An empty document (no lines) that will be named path. */
void policy_doc_init(struct policy_doc *d, const char *path, unsigned flags);
/* Parse text into d (path as for policy_parse_flags).  0, or -1 with
 * "PATH:LINE: ..." in err (call policy_doc_release either way). */
int policy_doc_parse(struct policy_doc *d, const char *path, const char *text, size_t len,
		     unsigned flags, struct strbuf *err);
/* Read path (the bounded way, as policy_load) and parse it; the document
 * is named by the file's absolute path.  The hot and cold lists are not
 * read (policy_load does that for a build). */
int policy_doc_load(struct policy_doc *d, const char *path, unsigned flags, struct strbuf *err);
void policy_doc_release(struct policy_doc *d);

/* Append the text of d to out. */
void policy_doc_text(const struct policy_doc *d, struct strbuf *out);
/* Write d to path atomically (write_file_atomic); 0, or -1 reported. */
int policy_doc_write(const struct policy_doc *d, const char *path);

/* ---------------- queries (d->pol holds the rest) ---------------- */

/* The value of [global] key (lto, bolt, hot, cold, plugin) as written,
 * malloced; NULL when the policy does not set it. */
char *policy_doc_value(const struct policy_doc *d, const char *key);
/* The index in d->pol.sections of the first section headed [glob]
 * ("global" for [global]), or -1. */
int policy_doc_section(const struct policy_doc *d, const char *glob);

/* Do two policy texts say the same: every line but comments and blank
 * lines, leading and trailing blanks ignored (no parse: any two texts)? */
int policy_text_same(const char *a, const char *b);

/* ---------------- edits: 0 (or an index), or -1 with the reason ---------------- */

/* Set [global] key to value ("lto", "on"). */
int policy_doc_set(struct policy_doc *d, const char *key, const char *value,
		   struct strbuf *err);
/* Take [global] key out: its line removed, or with note kept as the
 * comment "# NOTE LINE".  Not set: nothing to do, 0. */
int policy_doc_unset(struct policy_doc *d, const char *key, const char *note,
		     struct strbuf *err);
/* Append section [glob] ("global" for [global]); its index. */
int policy_doc_add_section(struct policy_doc *d, const char *glob, struct strbuf *err);
/* In section sec, add the line "KEY += FLAGS" (add) or "KEY -= FLAGS";
 * key is cflags or ldflags, flags one or more words in gcc's quoting. */
int policy_doc_add_flags(struct policy_doc *d, int sec, const char *key, int add,
			 const char *flags, struct strbuf *err);
/* Take flag out of section sec's "KEY += ..." lines (a line left without
 * flags goes); the number of words taken out.  To remove a flag make or an
 * earlier section gives, add a "-=" line instead. */
int policy_doc_drop_flag(struct policy_doc *d, int sec, const char *key, const char *flag,
			 struct strbuf *err);
/* Append comment lines: "# " and each line of text ("" appends one empty
 * line). */
void policy_doc_add_comment(struct policy_doc *d, const char *text);

#endif
