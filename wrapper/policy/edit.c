/*
 * edit.c - policy documents: load, query, edit, write; see edit.h.
 *
 * An edit works on a copy of the lines, which commit() parses: on success
 * the copy and its parse replace the document's, otherwise both are
 * dropped and the parser's reason is the edit's.
 */
#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "wrapper/common/error.h"
#include "wrapper/common/fdio.h"
#include "wrapper/common/respfile.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/xalloc.h"
#include "wrapper/policy/edit.h"

/* The keys set once in [global] (policy.h). */
static const char *const global_keys[] = { "lto", "bolt", "hot", "cold", "plugin", NULL };

/* The line (1-based) of [global] key in p; 0 when unset, -1 when key is
 * none of global_keys. */
static int key_line(const struct policy *p, const char *key)
{
	if (!strcmp(key, "lto"))
		return p->lto_line;
	if (!strcmp(key, "bolt"))
		return p->bolt_line;
	if (!strcmp(key, "hot"))
		return p->hot_line;
	if (!strcmp(key, "cold"))
		return p->cold_line;
	if (!strcmp(key, "plugin"))
		return p->plugin_line;
	return -1;
}

static int is_global_key_line(const struct policy *p, int line)
{
	for (int i = 0; global_keys[i]; i++)
		if (key_line(p, global_keys[i]) == line)
			return 1;
	return 0;
}

/* ---------------- text and lines ---------------- */

static void split_lines(struct policy_doc *d, const char *text, size_t len)
{
	size_t pos = 0;
	d->bom = len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3);
	if (d->bom)
		pos = 3;
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		strvec_push_nodup(&d->lines, xstrndup(text + pos, n));
		pos += n + 1;
	}
	d->final_newline = len == 0 || text[len - 1] == '\n';
}

static void join_lines(const struct strvec *lines, int bom, int final_newline,
		       struct strbuf *out)
{
	if (bom)
		strbuf_addstr(out, "\xEF\xBB\xBF");
	for (size_t i = 0; i < lines->nr; i++) {
		strbuf_addstr(out, lines->v[i]);
		if (i + 1 < lines->nr || final_newline)
			strbuf_addch(out, '\n');
	}
}

void policy_doc_text(const struct policy_doc *d, struct strbuf *out)
{
	join_lines(&d->lines, d->bom, d->final_newline, out);
}

int policy_doc_write(const struct policy_doc *d, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int r;
	policy_doc_text(d, &sb);
	r = write_file_atomic(path, sb.buf, sb.len);
	strbuf_release(&sb);
	return r;
}

static void copy_lines(struct strvec *dst, const struct strvec *src)
{
	strvec_init(dst);
	for (size_t i = 0; i < src->nr; i++)
		strvec_push(dst, src->v[i]);
}

/*
 * Make lines (taken over) the document's if they parse; otherwise drop
 * them and leave the reason in err.
 */
static int commit(struct policy_doc *d, struct strvec *lines, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	struct policy p;
	int r;

	join_lines(lines, d->bom, d->final_newline, &text);
	r = policy_parse_flags(&p, d->path, text.buf, text.len, d->flags, err);
	if (r < 0) {
		policy_release(&p);
		strvec_clear(lines);
	} else {
		policy_release(&d->pol);
		strvec_clear(&d->lines);
		d->pol = p;
		d->lines = *lines;
	}
	strbuf_release(&text);
	return r;
}

/* ---------------- loading ---------------- */

void policy_doc_init(struct policy_doc *d, const char *path, unsigned flags)
{
	struct strbuf err = STRBUF_INIT;
	memset(d, 0, sizeof(*d));
	d->path = xstrdup(path);
	d->flags = flags;
	d->final_newline = 1;
	strvec_init(&d->lines);
	/* the empty text always parses */
	if (policy_parse_flags(&d->pol, path, "", 0, flags, &err) < 0)
		BUG("the empty policy does not parse: %s", err.buf);
	strbuf_release(&err);
}

int policy_doc_parse(struct policy_doc *d, const char *path, const char *text, size_t len,
		     unsigned flags, struct strbuf *err)
{
	policy_doc_init(d, path, flags);
	policy_release(&d->pol);
	if (policy_parse_flags(&d->pol, path, text, len, flags, err) < 0)
		return -1;
	split_lines(d, text, len);
	return 0;
}

int policy_doc_load(struct policy_doc *d, const char *path, unsigned flags, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT, e = STRBUF_INIT;
	char abspath[PATH_MAX];
	int r;

	if (sfs_read(AT_FDCWD, path, SFS_IN_TEXT, 0, &text, &e) < 0) {
		policy_doc_init(d, path, flags);
		strbuf_addstr(err, e.buf);
		r = -1;
	} else {
		r = policy_doc_parse(d, realpath(path, abspath) ? abspath : path, text.buf,
				     text.len, flags, err);
	}
	strbuf_release(&text);
	strbuf_release(&e);
	return r;
}

void policy_doc_release(struct policy_doc *d)
{
	free(d->path);
	strvec_clear(&d->lines);
	policy_release(&d->pol);
	memset(d, 0, sizeof(*d));
}

/* ---------------- queries ---------------- */

/* The parts of a setting line: its indentation [0, lead), and from tail
 * on the blanks and comment after the value. */
static void line_parts(const char *line, size_t *lead, size_t *tail)
{
	size_t c = policy_comment_start(line);
	*lead = strspn(line, " \t");
	while (c > *lead && isspace((unsigned char)line[c - 1]))
		c--;
	*tail = c;
}

char *policy_doc_value(const struct policy_doc *d, const char *key)
{
	int line = key_line(&d->pol, key);
	const char *text, *eq;
	size_t lead, tail;

	if (line <= 0)
		return NULL;
	text = d->lines.v[line - 1];
	line_parts(text, &lead, &tail);
	eq = strchr(text, '=');
	if (!eq || (size_t)(eq - text) >= tail)
		return NULL;
	eq++;
	while (isspace((unsigned char)*eq) && (size_t)(eq - text) < tail)
		eq++;
	return xstrndup(eq, tail - (size_t)(eq - text));
}

int policy_doc_section(const struct policy_doc *d, const char *glob)
{
	for (size_t i = 0; i < d->pol.nr_sections; i++)
		if (!strcmp(d->pol.sections[i].glob, glob))
			return (int)i;
	return -1;
}

/* s[0..n) without leading and trailing blanks, into out (reset). */
static void trimmed(struct strbuf *out, const char *s, size_t n)
{
	strbuf_reset(out);
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	strbuf_add(out, s, n);
}

/* The next meaningful line of *p (comments and blank lines skipped), into
 * line; 0 at the end. */
static int next_line(const char **p, struct strbuf *line)
{
	while (**p) {
		const char *s = *p, *e = strchr(s, '\n');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		*p = s + n + (e ? 1 : 0);
		trimmed(line, s, n);
		if (line->len && line->buf[0] != '#')
			return 1;
	}
	return 0;
}

int policy_text_same(const char *a, const char *b)
{
	struct strbuf la = STRBUF_INIT, lb = STRBUF_INIT;
	int ha, hb, same = 1;

	do {
		ha = next_line(&a, &la);
		hb = next_line(&b, &lb);
		if (ha != hb || (ha && strcmp(la.buf, lb.buf)))
			same = 0;
	} while (same && ha);
	strbuf_release(&la);
	strbuf_release(&lb);
	return same;
}

/* ---------------- edits ---------------- */

/* Text an edit puts on a line: one line, and no comment in it. */
static int check_words(const struct policy_doc *d, const char *what, const char *text,
		       struct strbuf *err)
{
	if (strchr(text, '\n') || strchr(text, '\r')) {
		strbuf_addf(err, "%s: expected %s on one line, got \"%s\"", d->path, what, text);
		return -1;
	}
	if (policy_comment_start(text) != strlen(text)) {
		strbuf_addf(err, "%s: expected %s without a comment ('#' after a blank), got \"%s\"",
			    d->path, what, text);
		return -1;
	}
	return 0;
}

/* Where a new [global] key goes: below the first [global] header and the
 * key lines right after it; -1 when there is no [global]. */
static long key_insert_at(const struct policy_doc *d)
{
	int sec = policy_doc_section(d, "global");
	size_t at;
	if (sec < 0)
		return -1;
	at = (size_t)d->pol.sections[sec].line;
	while (at < d->lines.nr && is_global_key_line(&d->pol, (int)at + 1))
		at++;
	return (long)at;
}

/* "key = value" in place of line (0-based) of lines, its indentation and
 * comment kept. */
static void rewrite_setting(struct strvec *lines, size_t line, const char *setting)
{
	const char *old = lines->v[line];
	size_t lead, tail;
	char *s;
	line_parts(old, &lead, &tail);
	s = xasprintf("%.*s%s%s", (int)lead, old, setting, old + tail);
	free(lines->v[line]);
	lines->v[line] = s;
}

int policy_doc_set(struct policy_doc *d, const char *key, const char *value,
		   struct strbuf *err)
{
	int line = key_line(&d->pol, key);
	struct strvec lines;
	char *setting;
	long at;

	if (line < 0) {
		strbuf_addf(err, "%s: expected a [global] key (lto, bolt, hot, cold, plugin), got \"%s\"",
			    d->path, key);
		return -1;
	}
	if (check_words(d, "a value", value, err) < 0)
		return -1;
	setting = xasprintf("%s = %s", key, value);
	copy_lines(&lines, &d->lines);
	if (line > 0) {
		rewrite_setting(&lines, (size_t)line - 1, setting);
	} else if ((at = key_insert_at(d)) >= 0) {
		strvec_insert(&lines, (size_t)at, setting);
	} else {
		strvec_insert(&lines, 0, setting);
		strvec_insert(&lines, 0, "[global]");
	}
	free(setting);
	return commit(d, &lines, err);
}

int policy_doc_unset(struct policy_doc *d, const char *key, const char *note,
		     struct strbuf *err)
{
	int line = key_line(&d->pol, key);
	struct strvec lines;

	if (line < 0) {
		strbuf_addf(err, "%s: expected a [global] key (lto, bolt, hot, cold, plugin), got \"%s\"",
			    d->path, key);
		return -1;
	}
	if (line == 0)
		return 0;
	copy_lines(&lines, &d->lines);
	if (note) {
		char *s = xasprintf("# %s %s", note, lines.v[line - 1]);
		free(lines.v[line - 1]);
		lines.v[line - 1] = s;
	} else {
		strvec_remove(&lines, (size_t)line - 1);
	}
	return commit(d, &lines, err);
}

int policy_doc_add_section(struct policy_doc *d, const char *glob, struct strbuf *err)
{
	struct strvec lines;
	if (check_words(d, "a glob", glob, err) < 0)
		return -1;
	/* the parser takes the header's text trimmed: the glob must be it */
	if (!*glob || isspace((unsigned char)glob[0]) ||
	    isspace((unsigned char)glob[strlen(glob) - 1])) {
		strbuf_addf(err, "%s: expected a glob without blanks around it, got \"%s\"", d->path,
			    glob);
		return -1;
	}
	copy_lines(&lines, &d->lines);
	strvec_pushf(&lines, "[%s]", glob);
	if (commit(d, &lines, err) < 0)
		return -1;
	return (int)d->pol.nr_sections - 1;
}

/* Does the line (0-based) hold a setting, not a comment or a blank? */
static int is_setting(const char *line)
{
	size_t lead, tail;
	line_parts(line, &lead, &tail);
	return tail > lead;
}

/* The end of section sec: after its last setting (or its header). */
static size_t section_end(const struct policy_doc *d, int sec)
{
	size_t first = (size_t)d->pol.sections[sec].line;  /* after the header */
	size_t next = (size_t)sec + 1 < d->pol.nr_sections ?
		      (size_t)d->pol.sections[sec + 1].line - 1 : d->lines.nr;
	size_t end = first;
	for (size_t i = first; i < next; i++)
		if (is_setting(d->lines.v[i]))
			end = i + 1;
	return end;
}

static int check_flag_edit(const struct policy_doc *d, int sec, const char *key,
			   struct strbuf *err)
{
	if (sec < 0 || (size_t)sec >= d->pol.nr_sections) {
		strbuf_addf(err, "%s: expected a section index below %zu, got %d", d->path,
			    d->pol.nr_sections, sec);
		return -1;
	}
	if (strcmp(key, "cflags") && strcmp(key, "ldflags")) {
		strbuf_addf(err, "%s: expected cflags or ldflags, got \"%s\"", d->path, key);
		return -1;
	}
	return 0;
}

int policy_doc_add_flags(struct policy_doc *d, int sec, const char *key, int add,
			 const char *flags, struct strbuf *err)
{
	struct strvec lines;
	char *line;
	if (check_flag_edit(d, sec, key, err) < 0 || check_words(d, "flags", flags, err) < 0)
		return -1;
	line = xasprintf("%s %s %s", key, add ? "+=" : "-=", flags);
	copy_lines(&lines, &d->lines);
	strvec_insert(&lines, section_end(d, sec), line);
	free(line);
	return commit(d, &lines, err);
}

/* A word in gcc's quoting (respfile.h): as it is when nothing in it needs
 * quoting, else in double quotes with '"' and '\' escaped. */
static void add_quoted(struct strbuf *out, const char *w)
{
	if (*w && !strpbrk(w, " \t'\"\\#")) {
		strbuf_addstr(out, w);
		return;
	}
	strbuf_addch(out, '"');
	for (; *w; w++) {
		if (*w == '"' || *w == '\\')
			strbuf_addch(out, '\\');
		strbuf_addch(out, *w);
	}
	strbuf_addch(out, '"');
}

/* Line (0-based) "KEY += WORDS" without flag: its new text, NULL when no
 * word is left; *taken counts the words taken out. */
static char *line_without(const char *line, const char *key, const char *flag, int *taken)
{
	struct strvec words = STRVEC_INIT;
	struct strbuf sb = STRBUF_INIT;
	size_t lead, tail, n = 0;
	const char *op;

	line_parts(line, &lead, &tail);
	op = strstr(line, "+=");
	respfile_split(op + 2, tail - (size_t)(op + 2 - line), &words);
	strbuf_addf(&sb, "%.*s%s +=", (int)lead, line, key);
	for (size_t i = 0; i < words.nr; i++) {
		if (!strcmp(words.v[i], flag)) {
			(*taken)++;
			continue;
		}
		strbuf_addch(&sb, ' ');
		add_quoted(&sb, words.v[i]);
		n++;
	}
	strbuf_addstr(&sb, line + tail);
	strvec_clear(&words);
	if (!n) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

int policy_doc_drop_flag(struct policy_doc *d, int sec, const char *key, const char *flag,
			 struct strbuf *err)
{
	const struct policy_section *s;
	struct strvec lines;
	int taken = 0, link = key[0] == 'l', last = 0;

	if (check_flag_edit(d, sec, key, err) < 0)
		return -1;
	s = &d->pol.sections[sec];
	copy_lines(&lines, &d->lines);
	/* from the last line up, so a line taken out moves none still to do */
	for (size_t j = s->nr_ops; j-- > 0;) {
		const struct policy_op *op = &s->ops[j];
		char *now;
		if (!op->add || op->link != link || strcmp(op->flag, flag) || op->line == last)
			continue;
		last = op->line;
		now = line_without(lines.v[op->line - 1], key, flag, &taken);
		if (now) {
			free(lines.v[op->line - 1]);
			lines.v[op->line - 1] = now;
		} else {
			strvec_remove(&lines, (size_t)op->line - 1);
		}
	}
	if (!taken) {
		strvec_clear(&lines);
		return 0;
	}
	return commit(d, &lines, err) < 0 ? -1 : taken;
}

void policy_doc_add_comment(struct policy_doc *d, const char *text)
{
	struct strbuf err = STRBUF_INIT;
	struct strvec lines;
	const char *s = text;

	copy_lines(&lines, &d->lines);
	if (!*s)
		strvec_push(&lines, "");
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		strvec_pushf(&lines, "# %.*s", (int)n, s);
		s += n + (nl ? 1 : 0);
	}
	/* comments change no setting: only the lines' numbers */
	if (commit(d, &lines, &err) < 0)
		BUG("a comment made the policy invalid: %s", err.buf);
	strbuf_release(&err);
}
