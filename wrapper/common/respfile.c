/*
 * respfile.c - @response file expansion with gcc's quoting rules; see
 * respfile.h.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "wrapper/common/respfile.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/xalloc.h"

int respfile_split(const char *text, size_t len, struct strvec *out)
{
	struct strbuf word = STRBUF_INIT;
	size_t i = 0;
	int unclosed = 0;

	while (i < len) {
		int squote = 0, dquote = 0, bsquote = 0, have = 0;
		while (i < len && isspace((unsigned char)text[i]))
			i++;
		if (i >= len)
			break;
		strbuf_reset(&word);
		for (; i < len; i++) {
			char ch = text[i];
			if (isspace((unsigned char)ch) && !squote && !dquote && !bsquote)
				break;
			have = 1;
			if (bsquote) {
				bsquote = 0;
				strbuf_addch(&word, ch);
			} else if (ch == '\\') {
				bsquote = 1;
			} else if (squote) {
				if (ch == '\'')
					squote = 0;
				else
					strbuf_addch(&word, ch);
			} else if (dquote) {
				if (ch == '"')
					dquote = 0;
				else
					strbuf_addch(&word, ch);
			} else if (ch == '\'') {
				squote = 1;
			} else if (ch == '"') {
				dquote = 1;
			} else {
				strbuf_addch(&word, ch);
			}
		}
		if (have)
			strvec_push(out, word.buf);
		unclosed |= squote || dquote;
	}
	strbuf_release(&word);
	return unclosed;
}

static int expand(int argc, const char *const *argv, struct strvec *out, int depth,
		  int *budget)
{
	int expanded = 0;
	for (int i = 0; i < argc; i++) {
		struct strbuf sb = STRBUF_INIT;
		struct strvec words = STRVEC_INIT;
		int r;
		if (argv[i][0] != '@') {
			strvec_push(out, argv[i]);
			continue;
		}
		/* bounded: a FIFO or a device (it would block or never end) or
		 * a file over the limit makes the command line too hard */
		if (sfs_read(AT_FDCWD, argv[i] + 1, SFS_IN_TEXT, 0, &sb, NULL) < 0) {
			strbuf_release(&sb);
			if (errno == EINVAL || errno == EFBIG)
				return -1;
			strvec_push(out, argv[i]); /* unreadable: gcc's own business */
			continue;
		}
		if (depth >= RESPFILE_MAX_DEPTH || --*budget < 0) {
			strbuf_release(&sb);
			return -1;
		}
		respfile_split(sb.buf, sb.len, &words);
		strbuf_release(&sb);
		r = expand((int)words.nr, (const char *const *)words.v, out, depth + 1, budget);
		strvec_clear(&words);
		if (r < 0)
			return -1;
		expanded += 1 + r;
	}
	return expanded;
}

int respfile_expand(int argc, const char *const *argv, struct strvec *out)
{
	int budget = RESPFILE_MAX_FILES;
	return expand(argc, argv, out, 0, &budget);
}
