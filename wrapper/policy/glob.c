/*
 * glob.c - glob syntax check, brace expansion and matching; see glob.h.
 */
#include <stdlib.h>
#include <string.h>

#include "wrapper/policy/glob.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/xalloc.h"

#define GLOB_MAX_EXPANSIONS 1024
/* Limits far above any real glob of a source path.  They bound the brace
 * expansion, which recurses once per '{' and copies the glob at each level:
 * a 100 KB line of "{}" overflowed the stack after minutes of copying, and
 * ten "{a,b}" followed by hundreds of "{}" took seconds per compile. */
#define GLOB_MAX_LEN 1024
#define GLOB_MAX_BRACES 32

/* Index of the '}' closing the '{' at s[open], or -1. */
static long brace_close(const char *s, size_t open)
{
	int depth = 0;
	for (size_t i = open; s[i]; i++) {
		if (s[i] == '\\' && s[i + 1]) {
			i++;
			continue;
		}
		if (s[i] == '{')
			depth++;
		else if (s[i] == '}' && --depth == 0)
			return (long)i;
	}
	return -1;
}

static int expand_braces(const char *s, struct strvec *out)
{
	size_t i;
	for (i = 0; s[i]; i++) {
		if (s[i] == '\\' && s[i + 1]) {
			i++;
			continue;
		}
		if (s[i] == '{')
			break;
	}
	if (!s[i]) {
		if (out->nr >= GLOB_MAX_EXPANSIONS)
			return -1;
		strvec_push(out, s);
		return 0;
	}
	long close = brace_close(s, i);
	if (close < 0)
		return -1;
	/* split the body at top-level commas */
	size_t start = i + 1;
	int depth = 0;
	for (size_t j = i + 1; j <= (size_t)close; j++) {
		if (s[j] == '\\' && j < (size_t)close) {
			j++;
			continue;
		}
		if (s[j] == '{')
			depth++;
		else if (s[j] == '}' && depth > 0 && j != (size_t)close)
			depth--;
		if ((s[j] == ',' && depth == 0) || j == (size_t)close) {
			struct strbuf alt = STRBUF_INIT;
			strbuf_add(&alt, s, i);
			strbuf_add(&alt, s + start, j - start);
			strbuf_addstr(&alt, s + close + 1);
			int r = expand_braces(alt.buf, out);
			strbuf_release(&alt);
			if (r < 0)
				return -1;
			start = j + 1;
		}
	}
	return 0;
}

int glob_compile(const char *glob, struct strvec *out, const char **why)
{
	int depth = 0, braces = 0;
	if (!*glob) {
		*why = "a non-empty glob";
		return -1;
	}
	if (strlen(glob) > GLOB_MAX_LEN) {
		*why = "a glob of at most 1024 bytes";
		return -1;
	}
	for (size_t i = 0; glob[i]; i++) {
		if (glob[i] == '\\') {
			if (!glob[i + 1]) {
				*why = "a character after '\\'";
				return -1;
			}
			i++;
		} else if (glob[i] == '[') {
			size_t j = i + 1;
			if (glob[j] == '!' || glob[j] == '^')
				j++;
			if (glob[j] == ']')
				j++;
			while (glob[j] && glob[j] != ']')
				j++;
			if (!glob[j]) {
				*why = "']' closing the '[' set";
				return -1;
			}
			i = j;
		} else if (glob[i] == '{') {
			depth++;
			if (++braces > GLOB_MAX_BRACES) {
				*why = "at most 32 '{' in a glob";
				return -1;
			}
		} else if (glob[i] == '}') {
			if (--depth < 0) {
				*why = "'{' before '}'";
				return -1;
			}
		}
	}
	if (depth) {
		*why = "'}' closing the '{' alternatives";
		return -1;
	}
	if (expand_braces(glob, out) < 0) {
		*why = "fewer than 1024 brace alternatives";
		return -1;
	}
	return 0;
}

/* Does the set starting at p (just after '[') contain c?  *end gets the
 * position after ']'. */
static int match_set(const char *p, char c, const char **end)
{
	int neg = 0, found = 0;
	if (*p == '!' || *p == '^') {
		neg = 1;
		p++;
	}
	const char *first = p;
	while (*p && (*p != ']' || p == first)) {
		char lo = *p, hi = *p;
		if (p[1] == '-' && p[2] && p[2] != ']') {
			hi = p[2];
			p += 2;
		}
		if (c >= lo && c <= hi)
			found = 1;
		p++;
	}
	*end = *p ? p + 1 : p;
	return neg ? !found : found;
}

/*
 * Matching backtracks at every '*': a glob with many of them against a long
 * path is exponential (32 '*' took 1.7 s per compile).  A match is a function
 * of the positions in the glob and in the path only, so each position pair
 * that failed once is remembered and never tried again: at most
 * (glob length + 1) x (path length + 1) attempts.
 */
struct memo {
	const char *p0, *s0;
	size_t slen1;           /* path length + 1 */
	unsigned char *failed;  /* one bit per (glob, path) position pair */
};

static int match(struct memo *m, const char *p, const char *s);

static int match_at(struct memo *m, const char *p, const char *s)
{
	size_t k = (size_t)(p - m->p0) * m->slen1 + (size_t)(s - m->s0);
	if (m->failed[k / 8] & (1u << (k % 8)))
		return 0;
	if (match(m, p, s))
		return 1;
	m->failed[k / 8] |= (unsigned char)(1u << (k % 8));
	return 0;
}

static int match(struct memo *m, const char *p, const char *s)
{
	while (*p) {
		if (p[0] == '*' && p[1] == '*') {
			while (*p == '*')
				p++;
			if (*p == '/') {
				/* "**" + "/": zero or more whole directories */
				const char *rest = p + 1;
				if (match_at(m, rest, s))
					return 1;
				for (const char *t = s; *t; t++)
					if (*t == '/' && match_at(m, rest, t + 1))
						return 1;
				return 0;
			}
			if (!*p)
				return 1;
			for (const char *t = s;; t++) {
				if (match_at(m, p, t))
					return 1;
				if (!*t)
					return 0;
			}
		}
		if (*p == '*') {
			p++;
			for (const char *t = s;; t++) {
				if (match_at(m, p, t))
					return 1;
				if (!*t || *t == '/')
					return 0;
			}
		}
		if (!*s)
			return 0;
		if (*p == '?') {
			if (*s == '/')
				return 0;
		} else if (*p == '[') {
			const char *end;
			if (*s == '/' || !match_set(p + 1, *s, &end))
				return 0;
			p = end;
			s++;
			continue;
		} else {
			if (*p == '\\' && p[1])
				p++;
			if (*p != *s)
				return 0;
		}
		p++;
		s++;
	}
	return *s == '\0';
}

int glob_match(const char *p, const char *s)
{
	size_t plen = strlen(p), slen = strlen(s);
	struct memo m = { p, s, slen + 1, NULL };
	int r;
	m.failed = xcalloc(((plen + 1) * (slen + 1) + 7) / 8, 1);
	r = match_at(&m, p, s);
	free(m.failed);
	return r;
}

/*
 * Walk the pattern's tokens from the end, keeping the set of how many
 * characters of the suffix are still to be matched (bit k of `live`: the
 * last len-k characters are matched).  A literal, '?' or a set takes the
 * next suffix character if it can; '*' and '**' take any number of them
 * (none is '/'); "**" + "/" only matches nothing or something ending in '/',
 * so it takes none.  Once the whole suffix is matched, whatever comes
 * before can match something.
 */
int glob_can_match_suffix(const char *p, const char *suffix)
{
	size_t len = strlen(suffix), n = strlen(p);
	unsigned long long live = 1ull << len; /* all len characters still to match */

	if (len > 60)
		return 1;
	while (n > 0 && live) {
		unsigned long long next = 0;
		size_t start = n - 1;
		int kind; /* 0 one char (literal/?/set), 1 '*' or '**', 2 "**" + "/" */
		char lit = 0;
		const char *set = NULL;

		/* find the token ending at p[n-1] */
		if (p[n - 1] == '*') {
			while (start > 0 && p[start - 1] == '*')
				start--;
			kind = 1;
		} else if (p[n - 1] == '/' && n >= 3 && p[n - 2] == '*' && p[n - 3] == '*') {
			start = n - 3;
			while (start > 0 && p[start - 1] == '*')
				start--;
			kind = 2;
		} else {
			/* a literal, possibly escaped, or the end of a set: scan
			 * forward from the start to find token boundaries */
			size_t i = 0, tok = 0;
			while (i < n) {
				tok = i;
				if (p[i] == '\\' && i + 1 < n)
					i += 2;
				else if (p[i] == '[') {
					size_t j = i + 1;
					if (p[j] == '!' || p[j] == '^')
						j++;
					if (p[j] == ']')
						j++;
					while (j < n && p[j] != ']')
						j++;
					i = j + 1;
				} else
					i++;
			}
			start = tok;
			kind = 0;
			if (p[start] == '[')
				set = p + start + 1;
			else if (p[start] == '\\' && start + 1 < n)
				lit = p[start + 1];
			else
				lit = p[start];
		}
		for (size_t k = 0; k <= len; k++) {
			if (!(live & (1ull << k)))
				continue;
			if (k == 0) {
				next |= 1; /* the suffix is done: anything before fits */
				continue;
			}
			if (kind == 1) {
				for (size_t m = 0; m <= k; m++)
					next |= 1ull << m;
			} else if (kind == 2) {
				next |= 1ull << k;
			} else {
				char c = suffix[k - 1];
				const char *end;
				int ok = set ? match_set(set, c, &end)
					     : (lit == '?' && !(p[start] == '\\')) ? c != '/' : lit == c;
				if (ok)
					next |= 1ull << (k - 1);
			}
		}
		live = next;
		n = start;
	}
	return (live & 1) != 0;
}
