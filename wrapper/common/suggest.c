/*
 * suggest.c - closest-word suggestions; see suggest.h.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "wrapper/common/suggest.h"
#include "wrapper/common/xalloc.h"

size_t suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), w = lb + 1, d;
	size_t *m = xmalloc((la + 1) * w * sizeof(*m));

	/* m[i*w+j]: distance between the first i chars of a and j of b */
	for (size_t i = 0; i <= la; i++)
		m[i * w] = i;
	for (size_t j = 0; j <= lb; j++)
		m[j] = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t best = m[(i - 1) * w + j - 1] + (a[i - 1] != b[j - 1]);
			if (m[(i - 1) * w + j] + 1 < best)
				best = m[(i - 1) * w + j] + 1;
			if (m[i * w + j - 1] + 1 < best)
				best = m[i * w + j - 1] + 1;
			/* two neighbours swapped ("blot" for "bolt") cost one */
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    m[(i - 2) * w + j - 2] + 1 < best)
				best = m[(i - 2) * w + j - 2] + 1;
			m[i * w + j] = best;
		}
	}
	d = m[la * w + lb];
	free(m);
	return d;
}

const char *suggest_word(const char *word, const char *const *candidates)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1, limit = strlen(word) <= 3 ? 1 : 2;
	char *lower;

	/* keys are lowercase: CFLAGS means cflags */
	for (size_t i = 0; candidates[i]; i++)
		if (!strcasecmp(word, candidates[i]))
			return candidates[i];
	/* words far longer than any candidate are not misspellings; this
	 * also bounds the work (and the table) for hostile input */
	if (strlen(word) > 64)
		return NULL;
	lower = xstrdup(word);
	for (char *p = lower; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	for (size_t i = 0; candidates[i]; i++) {
		size_t d = suggest_distance(lower, candidates[i]);
		if (d <= limit && d < best_d) {
			best = candidates[i];
			best_d = d;
		}
	}
	free(lower);
	return best;
}
