/*
 * options.c - option values shared by the pgbuild commands: range-checked
 * numbers, comma-separated lists, one-of-a-set words and NAME=VALUE
 * settings; see cli.h.
 *
 * Each parser reads the whole string in decimal notation (no blanks, no
 * trailing characters, no hex, no overflow, no NaN or infinity; an
 * exponent only where a fraction may be), checks the range and, on a bad
 * value, prints one error that names the option, the value and what was
 * expected:
 *
 *     case 'j':
 *             if (cli_parse_int("--jobs", optarg, 1, 1024, &o.jobs) < 0)
 *                     return cli_usage();
 *
 *     pgbuild: error: invalid value "0" for --jobs: expected an integer from 1 to 1024
 *
 * They return 0, or -1 after the error (like error() itself) and leave
 * *out untouched then.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/cli/cli.h"
#include "pgbuild/pgbuild.h"
#include "wrapper/common/suggest.h"

/*
 * Decimal notation only.  strtoll and strtod read more than a person means
 * by a number: leading blanks, "0x10" (strtod: 16; strtol with base 0:
 * also "010" = 8), "1e3" where an integer is meant, "inf", "nan",
 * "0x1p3".  These scanners accept exactly
 *
 *     integer  [+-]digits
 *     number   [+-](digits[.digits] | .digits)[(e|E)[+-]digits]
 *
 * (the exponent is base 10 too: what %g prints, as pgbuild does when it
 * hands a duration to the commands it runs) and return the length of the
 * prefix of s that is one, 0 when none is.
 */
static size_t scan_digits(const char *s)
{
	size_t n = 0;
	while (s[n] >= '0' && s[n] <= '9')
		n++;
	return n;
}

size_t cli_scan_integer(const char *s)
{
	size_t sign = *s == '+' || *s == '-', d = scan_digits(s + sign);
	return d ? sign + d : 0;
}

size_t cli_scan_decimal(const char *s)
{
	size_t n = *s == '+' || *s == '-', whole = scan_digits(s + n), frac = 0;

	n += whole;
	if (s[n] == '.') {
		frac = scan_digits(s + n + 1);
		if (whole || frac)
			n += 1 + frac;
	}
	if (!whole && !frac)
		return 0;
	if (s[n] == 'e' || s[n] == 'E') {
		size_t e = n + 1 + (s[n + 1] == '+' || s[n + 1] == '-'), d = scan_digits(s + e);
		if (d)
			n = e + d;
	}
	return n;
}

/* Does C read arg as a number although it is not in decimal notation
 * ("0x10", " 5", "inf")?  Then the error says "decimal". */
static int c_number_not_decimal(const char *arg)
{
	char *end;
	errno = 0;
	(void)strtod(arg, &end);
	return end != arg && !*end;
}

/* The whole of arg as a decimal integer in [min, max]; silent. */
static int parse_long(const char *arg, long long min, long long max, long long *out)
{
	char *end;
	long long n;

	if (!*arg || cli_scan_integer(arg) != strlen(arg))
		return -1;
	errno = 0;
	n = strtoll(arg, &end, 10);
	if (errno || *end || n < min || n > max)
		return -1;
	*out = n;
	return 0;
}

/* What an error says was expected: "a decimal number" when arg is a
 * number to C but not in decimal notation ("0x10", " 5", "inf"), else
 * "a number"; the same for integers. */
static int not_decimal(const char *arg)
{
	return cli_scan_decimal(arg) != strlen(arg) && c_number_not_decimal(arg);
}

static const char *an_integer(const char *arg)
{
	return not_decimal(arg) ? "a decimal integer" : "an integer";
}

static const char *a_number(const char *arg)
{
	return not_decimal(arg) ? "a decimal number" : "a number";
}

int cli_parse_int(const char *opt, const char *arg, int min, int max, int *out)
{
	long long n;

	if (parse_long(arg, min, max, &n) < 0)
		return error("invalid value \"%s\" for %s: expected %s from %d to %d",
			     arg, opt, an_integer(arg), min, max);
	*out = (int)n;
	return 0;
}

int cli_parse_pairs(const char *arg, int *out, int *is_auto)
{
	long long n;

	if (is_auto && !strcmp(arg, "auto")) {
		*is_auto = 1;
		return 0;
	}
	if (parse_long(arg, 1, CLI_PAIRS_MAX, &n) < 0)
		return error("invalid value \"%s\" for --pairs: expected %s from %d to %d%s",
			     arg, an_integer(arg), CLI_PAIRS_MIN, CLI_PAIRS_MAX,
			     is_auto ? ", or auto" : "");
	if (is_auto)
		*is_auto = 0;
	*out = (int)n;
	return 0;
}

int cli_parse_int64(const char *opt, const char *arg, int64_t min, int64_t max,
		       int64_t *out)
{
	long long n;

	if (parse_long(arg, min, max, &n) < 0)
		return error("invalid value \"%s\" for %s: expected %s from %" PRId64
			     " to %" PRId64, arg, opt, an_integer(arg), min, max);
	*out = n;
	return 0;
}

int cli_parse_decimal(const char *arg, double *out)
{
	char *end;
	double d;

	if (!*arg || cli_scan_decimal(arg) != strlen(arg))
		return -1;
	errno = 0;
	d = strtod(arg, &end);
	if (errno || *end || !isfinite(d))
		return -1;
	*out = d;
	return 0;
}

int cli_parse_number(const char *opt, const char *arg, double min, double max, double *out)
{
	double d;

	if (cli_parse_decimal(arg, &d) < 0 || d < min || d > max) {
		if (isinf(max))
			return error("invalid value \"%s\" for %s: expected %s >= %g",
				     arg, opt, a_number(arg), min);
		return error("invalid value \"%s\" for %s: expected %s from %g to %g",
			     arg, opt, a_number(arg), min, max);
	}
	*out = d;
	return 0;
}

int cli_parse_seconds(const char *opt, const char *arg, int allow_zero, double *out)
{
	double d;

	if (cli_parse_decimal(arg, &d) < 0 || d < 0 || (!allow_zero && d == 0) ||
	    d > CLI_SECONDS_MAX)
		return error("invalid value \"%s\" for %s: expected %s of seconds %s "
			     "(at most a year)", arg, opt, a_number(arg), allow_zero ? ">= 0" : "> 0");
	*out = d;
	return 0;
}

void cli_parse_list(const char *arg, struct strvec *out)
{
	char *copy = xstrdup(arg), *save = NULL;

	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		strvec_push(out, tok);
	free(copy);
}

int cli_parse_choice(const char *opt, const char *arg, const char *const *choices,
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


/* The items of arg or-ed into *mask; the first bad item in *bad (malloced). */
static int metrics_scan(const char *arg, unsigned *mask, char **bad)
{
	const char *const *metric_words = metrics_words();
	struct strvec items = STRVEC_INIT;
	unsigned m = 0;
	int rc = 0;

	*bad = NULL;
	cli_parse_list(arg, &items);
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
			m |= metrics_word_bits(k);
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
	const char *const *metric_words = metrics_words();
	struct strbuf list = STRBUF_INIT;
	const char *near;
	char *bad;
	int k, rc = 0;

	if (metrics_scan(arg, mask, &bad) == 0)
		return 0;
	if (!strcmp(bad, "both")) {
		rc = error("invalid value \"%s\" for --metric: \"both\" is spelled "
			   "tps,instructions", arg);
	} else if (!strcmp(bad, arg)) {
		/* one word: the one message of a bad choice, did-you-mean included */
		rc = cli_parse_choice("--metric", arg, metric_words, &k);
	} else {
		near = suggest_word(bad, metric_words);
		for (size_t i = 0; metric_words[i]; i++)
			strbuf_addf(&list, "%s%s", i == 0 ? "" : metric_words[i + 1] ? ", " : " or ",
				    metric_words[i]);
		rc = error("invalid value \"%s\" for --metric: item \"%s\" is not %s%s%s%s",
			   arg, bad, list.buf,
			   near ? " (did you mean \"" : "", near ? near : "", near ? "\"?)" : "");
		strbuf_release(&list);
	}
	free(bad);
	return rc < 0 ? rc : -1;
}

const char *cli_metrics_text(unsigned mask)
{
	static char buf[64];
	buf[0] = '\0';
	for (const struct metric_desc *m = metrics; m->name; m++)
		if (mask & m->bit)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s",
				 buf[0] ? "," : "", m->name);
	return buf;
}

