/*
 * options.c - option values shared by the pgbuild commands: range-checked
 * numbers, comma-separated lists, one-of-a-set words and NAME=VALUE
 * settings; see cli.h.
 *
 * Each parser reads the whole string (no trailing characters, no overflow,
 * no NaN or infinity), checks the range and, on a bad value, prints one
 * error that names the option, the value and what was expected:
 *
 *     case OPT_PAIRS:
 *             if (parse_int_option("--pairs", optarg, 1, 1000, &o.pairs) < 0)
 *                     return cli_usage();
 *
 *     pgbuild: error: invalid value "0" for --pairs: expected an integer from 1 to 1000
 *
 * They return 0, or -1 after the error (like error() itself) and leave
 * *out untouched then.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild.h"
#include "suggest.h"

/* The whole of arg as a base-10 integer in [min, max]; silent. */
static int parse_long(const char *arg, long long min, long long max, long long *out)
{
	char *end;
	long long n;

	errno = 0;
	n = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || n < min || n > max)
		return -1;
	*out = n;
	return 0;
}

int parse_int_option(const char *opt, const char *arg, int min, int max, int *out)
{
	long long n;

	if (parse_long(arg, min, max, &n) < 0)
		return error("invalid value \"%s\" for %s: expected an integer from %d to %d",
			     arg, opt, min, max);
	*out = (int)n;
	return 0;
}

int parse_int64_option(const char *opt, const char *arg, int64_t min, int64_t max,
		       int64_t *out)
{
	long long n;

	if (parse_long(arg, min, max, &n) < 0)
		return error("invalid value \"%s\" for %s: expected an integer from %" PRId64
			     " to %" PRId64, arg, opt, min, max);
	*out = n;
	return 0;
}

/* The whole of arg as a finite number; silent. */
static int parse_double(const char *arg, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(d))
		return -1;
	*out = d;
	return 0;
}

int parse_number_option(const char *opt, const char *arg, double min, double max, double *out)
{
	double d;

	if (parse_double(arg, &d) < 0 || d < min || d > max) {
		if (isinf(max))
			return error("invalid value \"%s\" for %s: expected a number >= %g",
				     arg, opt, min);
		return error("invalid value \"%s\" for %s: expected a number from %g to %g",
			     arg, opt, min, max);
	}
	*out = d;
	return 0;
}

int parse_seconds_option(const char *opt, const char *arg, int allow_zero, double *out)
{
	double d;

	if (parse_double(arg, &d) < 0 || d < 0 || (!allow_zero && d == 0) ||
	    d > CLI_SECONDS_MAX)
		return error("invalid value \"%s\" for %s: expected a number of seconds %s "
			     "(at most a year)", arg, opt, allow_zero ? ">= 0" : "> 0");
	*out = d;
	return 0;
}

void parse_list_option(const char *arg, struct strvec *out)
{
	char *copy = xstrdup(arg), *save = NULL;

	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		strvec_push(out, tok);
	free(copy);
}

int parse_choice_option(const char *opt, const char *arg, const char *const *choices,
			int *out)
{
	struct strbuf list = STRBUF_INIT;
	const char *near;
	size_t n = 0;
	int rc;

	for (size_t i = 0; choices[i]; i++, n++)
		if (!strcmp(arg, choices[i])) {
			*out = (int)i;
			return 0;
		}
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&list, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", choices[i]);
	near = suggest_word(arg, choices);
	if (near)
		rc = error("invalid value \"%s\" for %s: expected %s (did you mean \"%s\"?)",
			   arg, opt, list.buf, near);
	else
		rc = error("invalid value \"%s\" for %s: expected %s", arg, opt, list.buf);
	strbuf_release(&list);
	return rc;
}

int parse_setting_option(const char *opt, const char *arg, struct strvec *out)
{
	if (!strchr(arg, '=') || arg[0] == '=')
		return error("invalid value \"%s\" for %s: expected NAME=VALUE", arg, opt);
	strvec_push(out, arg);
	return 0;
}

/* The --metric words; "both" last (it is two of the others). */
static const char *const metric_words[] = { "tps", "instructions", "cycles", "both", NULL };
static const unsigned metric_bits[] = { CLI_METRIC_TPS, CLI_METRIC_INSTR, CLI_METRIC_CYCLES,
					CLI_METRIC_TPS | CLI_METRIC_INSTR };

/* The items of arg or-ed into *mask; the first bad item in *bad (malloced). */
static int metrics_scan(const char *arg, unsigned *mask, char **bad)
{
	struct strvec items = STRVEC_INIT;
	unsigned m = 0;
	int rc = 0;

	*bad = NULL;
	parse_list_option(arg, &items);
	if (!items.nr) {
		*bad = xstrdup(arg);
		rc = -1;
	}
	for (size_t i = 0; i < items.nr && !rc; i++) {
		size_t k = 0;
		while (metric_words[k] && strcmp(metric_words[k], items.v[i]))
			k++;
		if (!metric_words[k]) {
			*bad = xstrdup(items.v[i]);
			rc = -1;
		} else {
			m |= metric_bits[k];
		}
	}
	strvec_clear(&items);
	if (!rc)
		*mask |= m;
	return rc;
}

int cli_metrics_mask(const char *arg, unsigned *mask)
{
	char *bad;
	int rc = metrics_scan(arg, mask, &bad);
	free(bad);
	return rc;
}

int cli_parse_metrics(const char *arg, unsigned *mask)
{
	const char *near;
	char *bad;
	int k, rc = 0;

	if (metrics_scan(arg, mask, &bad) == 0)
		return 0;
	if (!strcmp(bad, arg)) {
		/* one word: the one message of a bad choice, did-you-mean included */
		rc = parse_choice_option("--metric", arg, metric_words, &k);
	} else {
		near = suggest_word(bad, metric_words);
		rc = error("invalid value \"%s\" for --metric: item \"%s\" is not tps, "
			   "instructions, cycles or both%s%s%s", arg, bad,
			   near ? " (did you mean \"" : "", near ? near : "", near ? "\"?)" : "");
	}
	free(bad);
	return rc < 0 ? rc : -1;
}

const char *cli_metrics_text(unsigned mask)
{
	static char buf[64];
	buf[0] = '\0';
	for (size_t k = 0; k < 3; k++)
		if (mask & metric_bits[k])
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s",
				 buf[0] ? "," : "", metric_words[k]);
	return buf;
}

int cli_parse_cpus(const char *list, cpu_set_t *set)
{
	const char *p = list;
	CPU_ZERO(set);
	if (!*p)
		return error("invalid value \"\" for --cpus: expected a list like 0-1,3");
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b;
		if (end == p || a < 0 || a >= CPU_SETSIZE)
			return error("invalid value \"%s\" for --cpus: expected a list like 0-1,3", list);
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b >= CPU_SETSIZE)
				return error("invalid value \"%s\" for --cpus: expected a list like 0-1,3", list);
		}
		for (long c = a; c <= b; c++)
			CPU_SET(c, set);
		if (*end == ',')
			end++;
		else if (*end)
			return error("invalid value \"%s\" for --cpus: expected a list like 0-1,3", list);
		p = end;
	}
	return 0;
}
