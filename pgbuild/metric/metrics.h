/*
 * metric/metrics.h - the metrics a gate measures, one descriptor each:
 * the one table `--metric`'s words, the threshold keys, the gate
 * document's keys, the repeat resolutions, the noise floor's columns and
 * the report's rows are read from.  It sits in metric/, below gate/,
 * report/, noise/, tune/ and optimize/, which look things up here and
 * iterate over it instead of spelling them.
 *
 * A metric is what one kind of run measures per transaction, chosen by
 * one `--metric` word and one METRIC_* bit (metric/metric.h):
 *
 *   tps           interleaved wall-clock pairs (bench/): throughput B/A,
 *                 decided on the confidence interval of the pairs' ratios
 *   instructions  the single-user server counted by perf or callgrind
 *                 (instr.h): A/B, decided at observed +- its resolution
 *   cycles        the single-user server under callgrind's cache
 *                 simulation (cycles.h): the estimate's A/B, the same way
 *
 * Sub-figures.  The runs of a metric may give more figures than the one
 * it is named after: tps's runs give the latency percentiles and the
 * server CPU per transaction; the cycles run gives its instructions,
 * misses and branch mispredictions next to the estimate.  They are of
 * two kinds, and the descriptor holds both:
 *   - figures (struct metric_figure): decided on their own, with their own
 *     threshold keys, direction and ratio (latency <= B/A, cpu >= A/B),
 *     measured in the metric's runs and so needing its --metric word
 *     (a threshold on cpu needs --metric tps);
 *   - rows (struct metric_row): what every output shows of the metric's
 *     measurement, in order (report lines, HTML rows, the gate
 *     document's keys, the noise floor's columns); one of them, `decides`,
 *     is the number the metric's threshold is decided on.
 *
 * A new metric is one descriptor in metrics.c (its word and bit, keys,
 * unit, direction, resolution, rows), plus the code that measures it when
 * it needs a new kind of run (a file in metric/ and its call in
 * gate/measure.c) and its field in gate.h's struct gate_workload.
 */
#ifndef PGBUILD_METRICS_H
#define PGBUILD_METRICS_H

#include <stddef.h>

#include "pgbuild/metric/metric.h"

enum metric_direction {
	METRIC_HIGHER_IS_BETTER,   /* tps */
	METRIC_LOWER_IS_BETTER,    /* per transaction: instructions, cycles, latency, CPU */
};

/* What runs a metric. */
enum metric_run {
	METRIC_RUN_BENCH,      /* bench/'s interleaved wall-clock pairs */
	METRIC_RUN_COUNT,      /* the single-user server, counted (metric/instr.h) */
	METRIC_RUN_SIMULATE,   /* the single-user server under callgrind's cache
				  simulation (metric/cycles.h) */
};

/* A figure of a metric's runs decided on its own (see the header comment). */
struct metric_figure {
	const char *name;           /* in messages: "latency", "server CPU" */
	const char *const *keys;    /* its --gate keys, NULL-terminated */
	const char *alias;          /* another --gate key, or NULL */
	const char *json_key;       /* its object in a gate document's workload */
	const char *unit;
	enum metric_direction dir;
	const char *ratio;          /* "B/A" or "A/B": what its threshold bounds */
	const char *method;         /* how it is measured (the gate document's
				       "method"), or NULL */
};

/* tps's figures, by index into its figures. */
enum { METRIC_TPS_CPU, METRIC_TPS_LATENCY };

/* One row of what the outputs show of a measurement. */
struct metric_row {
	const char *label;          /* report and HTML rows: "I1 misses" */
	const char *json_key;       /* in the gate document's a, b objects;
				       NULL: the metric's own a, b */
	const char *noise_key;      /* its column in pgopt-noise.json, NULL: none */
};

struct metric_desc {
	unsigned bit;               /* METRIC_* */
	const char *name;           /* the --metric word, its --gate key and
				       its object in a gate document's workload */
	const char *alias;          /* another --gate key, or NULL */
	const char *label;          /* in messages: "cycles estimate" */
	const char *figure;         /* the figure in a sentence: "the cycles estimate" */
	const char *ratio_name;     /* "throughput": "X is a speed ratio" */
	const char *title;          /* the report's heading: "instructions per transaction" */
	const char *unit;           /* of one build's figure */
	enum metric_direction dir;
	const char *ratio;          /* "B/A" or "A/B": the speedup its threshold bounds */
	double resolution;          /* the repeat resolution a deterministic metric
				       is decided at (observed +- it); 0: an interval
				       of the pairs' ratios */
	const char *resolution_text; /* "repeat 0.01%", NULL with resolution 0 */
	enum metric_run run;
	const char *method;         /* how it is measured, one sentence */
	const char *needs;          /* the --metric it takes */
	unsigned default_unless;    /* with no --gate, NAME>=1 bounds it unless one
				       of these bits is measured too (which then
				       decides: instructions next to tps are shown) */
	const struct metric_row *rows; /* what the outputs show, in order */
	size_t nrows;
	size_t decides;             /* the row its threshold is decided on */
	const struct metric_figure *figures; /* decided on their own; NULL-name ended */
};

/* The descriptors in the order outputs list them, ended by a NULL name. */
extern const struct metric_desc metrics[];

/* The figure i (METRIC_TPS_*) of the metric of bit. */
const struct metric_figure *metrics_figure(unsigned bit, size_t i);
/* The descriptor of a --metric word or --gate key (name or alias), or NULL. */
const struct metric_desc *metrics_find(const char *name);
/* The descriptor of one METRIC_* bit, or NULL. */
const struct metric_desc *metrics_of(unsigned bit);
/* The figure with the --gate key key (one of its keys or its alias) and
 * its metric in *m, or NULL. */
const struct metric_figure *metrics_find_figure(const char *key,
						const struct metric_desc **m);
/* The index of key among f's keys (not its alias), or -1. */
int metrics_figure_key(const struct metric_figure *f, const char *key);
/* Every bit of the table or-ed; the bits of the deterministic ones (a
 * repeat resolution: what the noise floor measures). */
unsigned metrics_all(void);
unsigned metrics_deterministic(void);
/* The names of bits in table order as one phrase, "instructions and
 * cycles" (static; built once per mask). */
const char *metrics_list(unsigned bits);

/*
 * The --metric words: every name in table order, NULL-terminated;
 * metrics_word_bits(i) the bits of the i-th.  ("both", the old word for
 * tps,instructions, is no longer one: cli_parse_metrics says so.)
 */
const char *const *metrics_words(void);
unsigned metrics_word_bits(size_t i);

/*
 * The noise floor's columns (pgopt-noise.json's per-workload keys): per
 * metric with noise keys, in table order, the deciding row's first, then
 * the others.  metrics_noise_column(i) is the i-th key, NULL past the
 * last; metrics_noise_bit(i) the bit of the metric it belongs to.
 */
size_t metrics_noise_columns(void);
const char *metrics_noise_column(size_t i);
unsigned metrics_noise_bit(size_t i);

#endif
