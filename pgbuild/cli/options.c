/*
 * options.c - option values shared by the pgbuild commands: range-checked
 * numbers and comma-separated lists.
 *
 * Each command reads its options with getopt_long and hands every numeric
 * value to one of these, which parse the whole string (no trailing
 * characters, no overflow, no NaN or infinity), check the range and, on a
 * bad value, print one error that names the option, the value and what was
 * expected:
 *
 *     case OPT_PAIRS:
 *             if (parse_int_option("--pairs", optarg, 1, 1000, &o.pairs) < 0)
 *                     goto usage;
 *
 *     pgbuild: error: invalid value "0" for --pairs: expected an integer from 1 to 1000
 *
 * They return 0, or -1 after the error (like error() itself) and leave
 * *out untouched then.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild.h"

/* The whole of arg as a base-10 integer in [min, max]; silent. */
static int parse_long(const char *arg, long min, long max, long *out)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || end == arg || *end || n < min || n > max)
		return -1;
	*out = n;
	return 0;
}

int parse_int_option(const char *opt, const char *arg, int min, int max, int *out)
{
	long n;

	if (parse_long(arg, min, max, &n) < 0)
		return error("invalid value \"%s\" for %s: expected an integer from %d to %d",
			     arg, opt, min, max);
	*out = (int)n;
	return 0;
}

int parse_number_option(const char *opt, const char *arg, double min, double max, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(d) || d < min || d > max) {
		if (isinf(max))
			return error("invalid value \"%s\" for %s: expected a number >= %g",
				     arg, opt, min);
		return error("invalid value \"%s\" for %s: expected a number from %g to %g",
			     arg, opt, min, max);
	}
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
