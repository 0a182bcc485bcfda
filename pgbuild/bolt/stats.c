/*
 * stats.c - what llvm-bolt says about a rewrite: the coverage line, the two
 * program-wide dyno-stats blocks, a few layout lines, its error line; see
 * bolt.h.
 *
 * The output of BOLT 15 parsed here (from a real run, kept as the unit
 * tests' fixture tests/unit/data/bolt-optimize.log):
 *
 *   BOLT-INFO: 2350 out of 13627 functions in the binary (17.2%) have non-empty execution profile
 *   BOLT-INFO: basic block reordering modified layout of 1757 (12.67%) functions
 *   BOLT-INFO: splitting separates 480401 hot bytes from 830888 cold bytes (36.64% of ...).
 *   BOLT-INFO: program-wide dynostats after all optimizations before SCTC and FOP:
 *
 *             1464455493 : executed forward branches
 *             ...                                        (18 lines: the input's layout)
 *
 *             1603300175 : executed forward branches (+9.5%)
 *             ...                                        (18 lines: after BOLT's passes)
 *   BOLT-INFO: patched build-id (flipped last bit)
 *
 * and, with a profile trained on another build of the code (a bundle's,
 * pgbuild/bundle/bundle.h), BOLT's own count of what no longer fits:
 *
 *   BOLT-WARNING: 1 (33.3% of all profiled) function have invalid (possibly stale) profile. ...
 *   BOLT-WARNING: 5249003 out of 5249007 samples in the binary (100.0%) belong to functions
 *   with invalid (possibly stale) profile.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/bolt/bolt.h"
#include "pgbuild/pgbuild.h"

const char *const bolt_dyno_names[BOLT_DYNO_NR] = {
	"executed forward branches",
	"taken forward branches",
	"executed backward branches",
	"taken backward branches",
	"executed unconditional branches",
	"all function calls",
	"indirect calls",
	"PLT calls",
	"executed instructions",
	"executed load instructions",
	"executed store instructions",
	"taken jump table branches",
	"taken unknown indirect branches",
	"total branches",
	"taken branches",
	"non-taken conditional branches",
	"taken conditional branches",
	"all conditional branches",
};

static int dyno_index(const char *name, size_t len)
{
	for (int i = 0; i < BOLT_DYNO_NR; i++)
		if (strlen(bolt_dyno_names[i]) == len && !memcmp(bolt_dyno_names[i], name, len))
			return i;
	return -1;
}

int bolt_parse_dyno_line(const char *line, uint64_t *value, double *change, int *has_change)
{
	const char *p = line, *name, *end;
	char *num_end;
	unsigned long long v;
	int idx;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!isdigit((unsigned char)*p))
		return -1;
	v = strtoull(p, &num_end, 10);
	if (strncmp(num_end, " : ", 3))
		return -1;
	name = num_end + 3;
	end = name + strcspn(name, "\n");
	while (end > name && (end[-1] == ' ' || end[-1] == '\r'))
		end--;
	*change = 0;
	*has_change = 0;
	if (end > name && end[-1] == ')') {
		const char *open = end - 1;
		while (open > name && *open != '(')
			open--;
		if (open > name && open[-1] == ' ') {
			if (!strncmp(open, "(=)", 3)) {
				*has_change = 1;
			} else {
				char *pe;
				double c = strtod(open + 1, &pe);
				if (pe == open + 1 || *pe != '%')
					return -1;
				*change = c;
				*has_change = 1;
			}
			end = open - 1;
		}
	}
	if ((idx = dyno_index(name, (size_t)(end - name))) < 0)
		return -1;
	*value = (uint64_t)v;
	return idx;
}

/* "BOLT-INFO: N out of M functions in the binary (P%) have non-empty ..." */
static int parse_coverage(const char *line, struct bolt_stats *st)
{
	long n, m;
	double pct;
	if (!strstr(line, " have non-empty execution profile") ||
	    sscanf(line, "BOLT-INFO: %ld out of %ld functions in the binary (%lf%%)", &n, &m, &pct) != 3)
		return 0;
	st->functions_profiled = n;
	st->functions = m;
	st->profiled_percent = pct;
	return 1;
}

/* The one-line facts beside the coverage. */
static void parse_info(const char *line, struct bolt_stats *st)
{
	long a, b;
	if (sscanf(line, "BOLT-INFO: basic block reordering modified layout of %ld", &a) == 1)
		st->reordered_functions = a;
	else if (sscanf(line, "BOLT-INFO: splitting separates %ld hot bytes from %ld cold bytes",
			&a, &b) == 2) {
		st->hot_bytes = a;
		st->cold_bytes = b;
	} else if (strstr(line, "BOLT-INFO: patched build-id (flipped last bit)")) {
		st->build_id_patched = 1;
	} else if (strstr(line, "have invalid (possibly stale) profile") &&
		   sscanf(line, "BOLT-WARNING: %ld (", &a) == 1) {
		st->stale_functions = a;
	} else if (strstr(line, "belong to functions with invalid (possibly stale) profile")) {
		long long n, m;
		if (sscanf(line, "BOLT-WARNING: %lld out of %lld samples", &n, &m) == 2) {
			st->stale_samples = n;
			st->samples = m;
		}
	}
}

int bolt_parse_stats(const char *log, struct bolt_stats *st)
{
	const char *line = log;
	int block = -1;          /* dyno-stats block being read: 0, 1; -1 none */
	int seen[2] = { 0, 0 };  /* lines read in each block */
	int found = 0;

	memset(st, 0, sizeof(*st));
	st->functions_profiled = st->functions = -1;
	st->reordered_functions = st->hot_bytes = st->cold_bytes = -1;
	st->stale_samples = st->samples = -1;
	while (*line) {
		size_t len = strcspn(line, "\n");
		char *l = xstrndup(line, len);
		uint64_t v;
		double ch;
		int has, idx;

		if (strstr(l, "program-wide dynostats after all optimizations")) {
			block = 0;
			seen[0] = seen[1] = 0;
		} else if (block >= 0 && (idx = bolt_parse_dyno_line(l, &v, &ch, &has)) >= 0) {
			/* the second block's lines carry a change, the first's not */
			int k = has ? 1 : 0;
			if (k == 0) {
				st->before[idx] = v;
			} else {
				st->after[idx] = v;
				st->change[idx] = ch;
			}
			seen[k]++;
		} else if (block >= 0 && l[strspn(l, " \t\r")] != '\0') {
			block = -1;     /* the blocks end at the first other line */
		}
		if (parse_coverage(l, st))
			found = 1;
		parse_info(l, st);
		free(l);
		line += len + (line[len] ? 1 : 0);
	}
	st->have_dyno = seen[0] == BOLT_DYNO_NR && seen[1] == BOLT_DYNO_NR;
	return found ? 0 : -1;
}

/* "executed forward branches" -> "executed_forward_branches" ("PLT calls":
 * "plt_calls"), malloced. */
static char *json_name(const char *name)
{
	char *s = xstrdup(name);
	for (char *p = s; *p; p++)
		*p = *p == ' ' || *p == '-' ? '_' : (char)tolower((unsigned char)*p);
	return s;
}

static void dyno_block(struct json_writer *jw, const char *key, const uint64_t *v,
		       const double *d)
{
	json_key(jw, key);
	json_object_begin(jw);
	for (int i = 0; i < BOLT_DYNO_NR; i++) {
		char *k = json_name(bolt_dyno_names[i]);
		json_key(jw, k);
		if (v)
			json_int(jw, (int64_t)v[i]);
		else
			json_double(jw, d[i]);
		free(k);
	}
	json_object_end(jw);
}

static void json_long_or_null(struct json_writer *jw, const char *key, long v)
{
	json_key(jw, key);
	if (v < 0)
		json_null(jw);
	else
		json_int(jw, v);
}

void bolt_stats_json(struct json_writer *jw, const struct bolt_stats *st)
{
	json_key(jw, "coverage");
	json_object_begin(jw);
	json_long_or_null(jw, "functions_with_profile", st->functions_profiled);
	json_long_or_null(jw, "functions", st->functions);
	json_key(jw, "percent");
	if (st->functions < 0)
		json_null(jw);
	else
		json_double(jw, st->profiled_percent);
	json_key(jw, "stale_functions"); json_int(jw, st->stale_functions);
	json_long_or_null(jw, "stale_samples", (long)st->stale_samples);
	json_long_or_null(jw, "samples", (long)st->samples);
	json_object_end(jw);
	json_key(jw, "dyno_stats");
	if (!st->have_dyno) {
		json_null(jw);
	} else {
		json_object_begin(jw);
		dyno_block(jw, "before", st->before, NULL);
		dyno_block(jw, "after", st->after, NULL);
		dyno_block(jw, "change_percent", NULL, st->change);
		json_object_end(jw);
	}
	json_key(jw, "layout");
	json_object_begin(jw);
	json_long_or_null(jw, "reordered_functions", st->reordered_functions);
	json_long_or_null(jw, "hot_bytes", st->hot_bytes);
	json_long_or_null(jw, "cold_bytes", st->cold_bytes);
	json_key(jw, "build_id_patched"); json_bool(jw, st->build_id_patched);
	json_object_end(jw);
}

char *bolt_error_line(const char *log)
{
	const char *line = log, *best = NULL;
	size_t best_len = 0;
	int best_rank = 0;   /* 3 BOLT-ERROR, 2 another error, 1 any line */

	while (*line) {
		size_t len = strcspn(line, "\n");
		int rank = 0;
		if (len && line[strspn(line, " \t\r")] != '\n')
			rank = 1;
		if (rank && (memmem(line, len, "error", 5) || memmem(line, len, "ERROR", 5)))
			rank = 2;
		if (rank && memmem(line, len, "BOLT-ERROR", 10))
			rank = 3;
		if (rank && rank >= best_rank) {
			best = line;
			best_len = len;
			best_rank = rank;
		}
		line += len + (line[len] ? 1 : 0);
	}
	return best ? xstrndup(best, best_len) : xstrdup("(no output)");
}
