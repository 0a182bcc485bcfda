/*
 * textfile.c - the end of a text file; see textfile.h.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "wrapper/common/safefs.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/textfile.h"
#include "wrapper/common/xalloc.h"

char *textfile_last_line(const char *path, const char *want)
{
	struct strbuf sb = STRBUF_INIT;
	char *res = NULL;

	if (sfs_read(AT_FDCWD, path, SFS_IN_LOG, 0, &sb, NULL) >= 0) {
		char *save = NULL;
		for (char *l = strtok_r(sb.buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			if (want ? !strstr(l, want) : !l[strspn(l, " \t\r")])
				continue;
			free(res);
			res = xstrdup(l);
		}
	}
	strbuf_release(&sb);
	if (res) {
		/* no trailing blanks or carriage return */
		size_t n = strlen(res);
		while (n && (res[n - 1] == ' ' || res[n - 1] == '\t' || res[n - 1] == '\r'))
			res[--n] = '\0';
	}
	return res;
}

const char *text_tail(const char *text, size_t len, int lines)
{
	const char *p;
	int n = 0;

	while (len && (text[len - 1] == '\n' || text[len - 1] == ' ' ||
		       text[len - 1] == '\t' || text[len - 1] == '\r'))
		len--;
	for (p = text + len; p > text; p--)
		if (p[-1] == '\n' && ++n >= lines)
			break;
	return p;
}

const char *text_next_line(const char *text, size_t len, size_t *pos, size_t *n)
{
	const char *l = text + *pos, *nl;

	if (*pos >= len)
		return NULL;
	nl = memchr(l, '\n', len - *pos);
	*n = nl ? (size_t)(nl - l) : len - *pos;
	*pos += *n + (nl ? 1 : 0);
	return l;
}

void text_wrap(FILE *fp, int width, int first, int indent, const char *text)
{
	int col = first, start = 1;
	fprintf(fp, "%*s", first, "");
	while (*text) {
		size_t n = strcspn(text, " ");
		if (!start && col + 1 + (int)n > width) {
			fprintf(fp, "\n%*s", indent, "");
			col = indent;
			start = 1;
		}
		if (!start) {
			fputc(' ', fp);
			col++;
		}
		fprintf(fp, "%.*s", (int)n, text);
		col += (int)n;
		start = 0;
		text += n;
		while (*text == ' ')
			text++;
	}
	fputc('\n', fp);
}

void textfile_print_tail(const char *path, int lines, FILE *fp)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p;

	if (sfs_read(AT_FDCWD, path, SFS_IN_LOG, 0, &sb, NULL) < 0) {
		strbuf_release(&sb);
		return;
	}
	strbuf_rtrim(&sb);
	p = text_tail(sb.buf, sb.len, lines);
	fprintf(fp, "%s\n", p);
	strbuf_release(&sb);
}

void textfile_note_tail(const char *path, struct strbuf *note)
{
	char *last = textfile_last_line(path, NULL);
	if (last && *last)
		strbuf_addf(note, " (%s; log %s)", last, path);
	else
		strbuf_addf(note, " (log %s: no line to show)", path);
	free(last);
}
