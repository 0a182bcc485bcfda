/*
 * gate/threshold.c - the gate's threshold expressions: the list, the
 * parser of `--gate` (see gate.h for the items) and the check of the
 * thresholds against the metrics and workloads measured.  Pure, like
 * expr.c, which decides them.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/cli/cli.h"
#include "pgbuild/metric/metrics.h"
#include "wrapper/common/error.h"
#include "pgbuild/gate/gate.h"
#include "pgbuild/metric/single.h"
#include "wrapper/common/strvec.h"
#include "wrapper/common/xalloc.h"

/* ---------------- expressions ---------------- */

void gate_thresholds_add(struct gate_thresholds *th, const char *text,
			 const char *workload, enum gate_kind kind, int lat, double value)
{
	struct gate_threshold *t;
	ALLOC_GROW(th->v, th->nr + 1, th->alloc);
	t = &th->v[th->nr++];
	t->text = xstrdup(text);
	t->workload = workload ? xstrdup(workload) : NULL;
	t->kind = kind;
	t->lat = lat;
	t->value = value;
}

void gate_thresholds_clear(struct gate_thresholds *th)
{
	for (size_t i = 0; i < th->nr; i++) {
		free(th->v[i].text);
		free(th->v[i].workload);
	}
	free(th->v);
	memset(th, 0, sizeof(*th));
}

int gate_is_claim(const struct gate_threshold *t)
{
	if (t->kind == GATE_LATENCY)
		return t->value < 1;
	return t->value > 1;
}

static int valid_workload_name(const char *s, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '-' || s[i] == '_'))
			return 0;
	return 1;
}

/*
 * "1.05" -> 1.05, "+5%" -> 1.05, "-2%" -> 0.98, "5%" -> 1.05; -1 on error.
 * The number is decimal (cli_scan_decimal): "0x1.1", "inf", "nan" are
 * refused, as in every option.  An unsigned percentage of 100% or more
 * ("105%") is refused: it reads as a ratio written in percent (1.05) as
 * easily as a change (+105%, 2.05), and the two differ by 2x.
 */
static int parse_value(const char *s, double *out, const char **why)
{
	static char msg[256];
	const char *num, *end;
	char *text, *cend;
	int sign = 0;
	size_t n;
	double v;
	if (*s == '+' || *s == '-')
		sign = *s == '+' ? 1 : -1;
	if (!*s) {
		*why = "missing value";
		return -1;
	}
	num = sign ? s + 1 : s;
	n = *num == '+' || *num == '-' ? 0 : cli_scan_decimal(num);
	if (!n) {
		*why = "expected a ratio like 1.05 or a percentage like +5%";
		return -1;
	}
	end = num + n;
	if (*end && strcmp(end, "%")) {
		/* what C would read further is not decimal: "0x10", "1e3x" */
		(void)strtod(num, &cend);
		*why = cend > end ? "expected a decimal number (no hex, inf or nan), e.g. 1.05 "
				    "or +5%" : "trailing characters after the number";
		return -1;
	}
	text = xstrndup(num, n);
	v = strtod(text, NULL);
	free(text);
	if (!isfinite(v)) {
		*why = "the number is out of range";
		return -1;
	}
	if (*end == '%') {
		if (!sign && v >= 100) {
			snprintf(msg, sizeof(msg), "%g%% is ambiguous: as the ratio %.4g write +%g%% "
				 "or %.4g; as %g%% more write +%g%% or %.4g", v, v / 100, v - 100,
				 v / 100, v, v, 1 + v / 100);
			*why = msg;
			return -1;
		}
		*out = 1 + (sign < 0 ? -v : v) / 100;
		if (*out <= 0) {
			*why = "a percentage of -100% or less leaves nothing";
			return -1;
		}
		return 0;
	}
	if (sign) {
		*why = "a signed value needs %, e.g. +5% (or write the ratio, e.g. 1.05)";
		return -1;
	}
	if (v == 0) {
		*why = "a ratio must be greater than 0";
		return -1;
	}
	*out = v;
	return 0;
}

/*
 * The threshold kind of each metric of metric/metrics.h and of each of its
 * sub-figures (figure -1: the metric itself): the one place a kind meets
 * the table.
 */
static const struct {
	unsigned bit;
	int figure;
	enum gate_kind kind;
} kinds[] = {
	{ METRIC_TPS, -1, GATE_TPS },
	{ METRIC_TPS, METRIC_TPS_CPU, GATE_SERVER_CPU },
	{ METRIC_TPS, METRIC_TPS_LATENCY, GATE_LATENCY },
	{ METRIC_INSTR, -1, GATE_INSTRUCTIONS },
	{ METRIC_CYCLES, -1, GATE_CYCLES },
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

/* The kind (and latency index) of a --gate key: a metric's name or alias,
 * or a key of one of its figures.  0, or -1 when it is none. */
static int key_kind(const char *key, enum gate_kind *kind, int *lat)
{
	const struct metric_desc *m = metrics_find(key);
	const struct metric_figure *f = m ? NULL : metrics_find_figure(key, &m);

	for (size_t i = 0; m && i < NKINDS; i++) {
		if (kinds[i].bit != m->bit ||
		    (f ? metrics_figure(m->bit, (size_t)kinds[i].figure) != f : kinds[i].figure >= 0))
			continue;
		*kind = kinds[i].kind;
		if (kinds[i].kind == GATE_LATENCY)
			*lat = metrics_figure_key(f, key);
		return 0;
	}
	return -1;
}

/* The keys key_kind knows: the metrics' names, then their figures' keys
 * (aliases left out): "tps, instructions, cycles, cpu, avg, ..." */
static const char *known_keys(void)
{
	static char *list;
	struct strbuf sb = STRBUF_INIT;

	if (list)
		return list;
	for (const struct metric_desc *m = metrics; m->name; m++)
		strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", m->name);
	for (const struct metric_desc *m = metrics; m->name; m++)
		for (const struct metric_figure *f = m->figures; f->name; f++)
			for (size_t k = 0; f->keys[k]; k++)
				strbuf_addf(&sb, ", %s", f->keys[k]);
	list = strbuf_detach(&sb, NULL);
	return list;
}

/* What a threshold of kind bounds, in a message: "throughput", "server CPU". */
const char *gate_kind_name(enum gate_kind kind)
{
	for (size_t i = 0; i < NKINDS; i++)
		if (kinds[i].kind == kind)
			return kinds[i].figure < 0 ? metrics_of(kinds[i].bit)->ratio_name :
			       metrics_figure(kinds[i].bit, (size_t)kinds[i].figure)->name;
	return "?";
}

static int parse_item(struct gate_thresholds *th, const char *item, size_t nth,
		      struct strbuf *err)
{
	const char *op = NULL, *why = NULL, *dot;
	char *lhs = NULL, *key = NULL, *workload = NULL;
	int ge = 0, lat = -1, rc = -1;
	enum gate_kind kind = GATE_TPS;
	double value;

	for (const char *p = item; *p; p++) {
		if ((p[0] == '>' || p[0] == '<') && p[1] == '=') {
			op = p;
			ge = p[0] == '>';
			break;
		}
		if (p[0] == '=' || p[0] == '>' || p[0] == '<') {
			strbuf_addf(err, "item %zu \"%s\": expected >= or <=", nth, item);
			return -1;
		}
	}
	if (!op) {
		strbuf_addf(err, "item %zu \"%s\": expected NAME>=VALUE or NAME<=VALUE", nth, item);
		return -1;
	}
	lhs = xstrndup(item, (size_t)(op - item));
	if (parse_value(op + 2, &value, &why) < 0) {
		strbuf_addf(err, "item %zu \"%s\": value \"%s\": %s", nth, item, op + 2, why);
		goto out;
	}

	dot = strchr(lhs, '.');
	if (dot) {
		workload = xstrndup(lhs, (size_t)(dot - lhs));
		key = xstrdup(dot + 1);
		if (!valid_workload_name(workload, strlen(workload))) {
			strbuf_addf(err, "item %zu \"%s\": bad workload name \"%s\"", nth, item, workload);
			goto out;
		}
	} else {
		key = xstrdup(lhs);
	}
	if (key_kind(key, &kind, &lat) == 0) {
		;
	} else if (!dot) {
		/* a bare name is a workload's throughput */
		if (!valid_workload_name(key, strlen(key))) {
			strbuf_addf(err, "item %zu \"%s\": bad workload name \"%s\"", nth, item, key);
			goto out;
		}
		workload = key;
		key = NULL;
		kind = GATE_TPS;
	} else {
		strbuf_addf(err, "item %zu \"%s\": unknown metric \"%s\" (%s)", nth, item, key,
			    known_keys());
		goto out;
	}
	if (kind == GATE_LATENCY && ge) {
		strbuf_addf(err, "item %zu \"%s\": %s is a latency, bound it from above with <=",
			    nth, item, gate_lat_keys[lat]);
		goto out;
	}
	if (kind != GATE_LATENCY && !ge) {
		strbuf_addf(err, "item %zu \"%s\": %s is a speed ratio, bound it from below with >=",
			    nth, item, gate_kind_name(kind));
		goto out;
	}
	gate_thresholds_add(th, item, workload, kind, lat, value);
	rc = 0;
out:
	free(lhs);
	free(key);
	free(workload);
	return rc;
}

int gate_expr_parse(struct gate_thresholds *th, const char *text, struct strbuf *err)
{
	const char *p = text;
	size_t nth = 0;
	while (1) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		struct strbuf item = STRBUF_INIT;
		/* drop blanks anywhere in the item: "p99 <= +10 %" is fine */
		for (size_t i = 0; i < n; i++)
			if (!isspace((unsigned char)p[i]))
				strbuf_addch(&item, p[i]);
		nth++;
		if (!item.len) {
			strbuf_addf(err, "item %zu is empty", nth);
			strbuf_release(&item);
			return -1;
		}
		if (parse_item(th, item.buf, nth, err) < 0) {
			strbuf_release(&item);
			return -1;
		}
		strbuf_release(&item);
		if (!comma)
			break;
		p = comma + 1;
	}
	return 0;
}

unsigned gate_kind_metric(enum gate_kind kind)
{
	for (size_t i = 0; i < NKINDS; i++)
		if (kinds[i].kind == kind)
			return kinds[i].bit;
	return METRIC_TPS;
}

int gate_thresholds_check(const struct gate_thresholds *th, unsigned metrics,
			  const struct strvec *workloads)
{
	for (size_t i = 0; i < th->nr; i++) {
		const struct gate_threshold *t = &th->v[i];
		unsigned need = gate_kind_metric(t->kind);
		if (!(metrics & need))
			return error("threshold \"%s\" needs --metric %s", t->text,
				     metrics_of(need)->needs);
		if (t->kind != GATE_CYCLES)
			continue;
		if (t->workload && !single_supported(t->workload))
			return error("threshold \"%s\": workload \"%s\" has no single-user "
				     "script, which the cycles metric runs (%s)", t->text,
				     t->workload, SINGLE_WORKLOADS);
		for (size_t k = 0; !t->workload && workloads && k < workloads->nr; k++)
			if (!single_supported(workloads->v[k]))
				return error("threshold \"%s\" applies to workload \"%s\", which has "
					     "no single-user script for the cycles metric (%s); name "
					     "the workloads: select-only.cycles>=...", t->text,
					     workloads->v[k], SINGLE_WORKLOADS);
	}
	return 0;
}
