/*
 * metric/metrics.c - the table of metrics; see metrics.h.
 */
#include <string.h>

#include "pgbuild/metric/cycles.h"
#include "pgbuild/metric/instr.h"
#include "pgbuild/metric/metrics.h"
#include "wrapper/common/strbuf.h"

static const char *const latency_keys[] = { "avg", "p50", "p90", "p99", "p999", "max", NULL };
static const char *const cpu_keys[] = { "cpu", NULL };

static const struct metric_figure tps_figures[] = {
	[METRIC_TPS_CPU] = {
		.name = "server CPU", .keys = cpu_keys, .alias = "server-cpu",
		.json_key = "server_cpu_us_per_tx",
		.unit = "us/transaction", .dir = METRIC_LOWER_IS_BETTER, .ratio = "A/B",
		.method = "user+system CPU of the postmaster and its children over the "
			  "timed run (/proc), per transaction; A/B > 1: B cheaper",
	},
	[METRIC_TPS_LATENCY] = {
		.name = "latency", .keys = latency_keys, .json_key = "latency_ms",
		.unit = "ms", .dir = METRIC_LOWER_IS_BETTER, .ratio = "B/A",
	},
	{ .name = NULL },
};

static const struct metric_figure no_figures[] = {
	{ .name = NULL },
};

static const struct metric_row tps_rows[] = {
	{ "tps", NULL, NULL },
};

static const struct metric_row instr_rows[] = {
	{ "instructions", NULL, "instructions" },
};

/* the order of cycles_tx_values() (metric/cycles.h) */
static const struct metric_row cycles_rows[CYCLES_ROWS] = {
	{ "instructions", "instructions", "cycles_ir" },
	{ "I1 misses", "i1_misses", "i1_misses" },
	{ "L1 misses", "l1_misses", "l1_misses" },
	{ "LL misses", "ll_misses", "ll_misses" },
	{ "branch mispredictions", "branch_mispredictions", "branch_mispredictions" },
	{ "estimate", "estimate", "cycles_estimate" },
};

#define NROWS(a) (sizeof(a) / sizeof((a)[0]))

const struct metric_desc metrics[] = {
	{
		.bit = METRIC_TPS, .name = "tps",
		.label = "throughput", .figure = "throughput", .ratio_name = "throughput",
		.title = "throughput", .unit = "transactions/s",
		.dir = METRIC_HIGHER_IS_BETTER, .ratio = "B/A",
		.run = METRIC_RUN_BENCH,
		.method = "interleaved A/B pairs of wall-clock bench runs",
		.needs = "tps (alone or in a list: --metric tps,instructions)",
		.rows = tps_rows, .nrows = NROWS(tps_rows), .decides = 0,
		.figures = tps_figures,
	},
	{
		.bit = METRIC_INSTR, .name = "instructions", .alias = "instr",
		.label = "instructions", .figure = "instructions", .ratio_name = "instructions",
		.title = "instructions per transaction", .unit = "instructions/transaction",
		.dir = METRIC_LOWER_IS_BETTER, .ratio = "A/B",
		.resolution = INSTR_RESOLUTION, .resolution_text = "repeat 0.01%",
		.run = METRIC_RUN_COUNT,
		.method = "instructions per transaction of the server (user space); "
			  "a proxy that does not see cache or memory effects",
		.needs = "instructions (alone or in a list: --metric tps,instructions)",
		.default_unless = METRIC_TPS,
		.rows = instr_rows, .nrows = NROWS(instr_rows), .decides = 0,
		.figures = no_figures,
	},
	{
		.bit = METRIC_CYCLES, .name = "cycles",
		.label = "cycles estimate", .figure = "the cycles estimate", .ratio_name = "cycles",
		.title = "cycles estimate per transaction", .unit = "estimated cycles/transaction",
		.dir = METRIC_LOWER_IS_BETTER, .ratio = "A/B",
		.resolution = CYCLES_RESOLUTION, .resolution_text = "repeat 0.1%",
		.run = METRIC_RUN_SIMULATE,
		.method = CYCLES_SIMULATION,
		.needs = "cycles (alone or in a list: --metric tps,cycles)",
		.rows = cycles_rows, .nrows = NROWS(cycles_rows), .decides = CYCLES_ROW_ESTIMATE,
		.figures = no_figures,
	},
	{ .name = NULL },
};

const struct metric_desc *metrics_find(const char *name)
{
	for (const struct metric_desc *m = metrics; m->name; m++)
		if (!strcmp(m->name, name) || (m->alias && !strcmp(m->alias, name)))
			return m;
	return NULL;
}

const struct metric_desc *metrics_of(unsigned bit)
{
	for (const struct metric_desc *m = metrics; m->name; m++)
		if (m->bit == bit)
			return m;
	return NULL;
}

const struct metric_figure *metrics_figure(unsigned bit, size_t i)
{
	const struct metric_desc *m = metrics_of(bit);
	const struct metric_figure *f = m ? m->figures : NULL;
	for (size_t k = 0; f && f->name; k++, f++)
		if (k == i)
			return f;
	return NULL;
}

int metrics_figure_key(const struct metric_figure *f, const char *key)
{
	for (int i = 0; f->keys[i]; i++)
		if (!strcmp(f->keys[i], key))
			return i;
	return -1;
}

const struct metric_figure *metrics_find_figure(const char *key,
						const struct metric_desc **m)
{
	for (const struct metric_desc *d = metrics; d->name; d++)
		for (const struct metric_figure *f = d->figures; f->name; f++)
			if (metrics_figure_key(f, key) >= 0 || (f->alias && !strcmp(f->alias, key))) {
				if (m)
					*m = d;
				return f;
			}
	return NULL;
}

unsigned metrics_all(void)
{
	unsigned bits = 0;
	for (const struct metric_desc *m = metrics; m->name; m++)
		bits |= m->bit;
	return bits;
}

unsigned metrics_deterministic(void)
{
	unsigned bits = 0;
	for (const struct metric_desc *m = metrics; m->name; m++)
		if (m->resolution > 0)
			bits |= m->bit;
	return bits;
}

#define METRICS_MAX 16

/* METRIC_* bits fit in these (metrics_list's cache) */
#define METRICS_NBITS 8

const char *metrics_list(unsigned bits)
{
	static char *cache[1u << METRICS_NBITS];
	struct strbuf sb = STRBUF_INIT;
	size_t n = 0, k = 0;

	bits &= metrics_all() & ((1u << METRICS_NBITS) - 1);
	if (cache[bits])
		return cache[bits];
	for (const struct metric_desc *m = metrics; m->name; m++)
		n += (bits & m->bit) != 0;
	for (const struct metric_desc *m = metrics; m->name; m++) {
		if (!(bits & m->bit))
			continue;
		k++;
		strbuf_addf(&sb, "%s%s", k == 1 ? "" : k == n ? " and " : ", ", m->name);
	}
	cache[bits] = strbuf_detach(&sb, NULL);
	return cache[bits];
}

const char *const *metrics_words(void)
{
	static const char *words[METRICS_MAX + 2];
	size_t n = 0;

	if (words[0])
		return words;
	for (const struct metric_desc *m = metrics; m->name && n < METRICS_MAX; m++)
		words[n++] = m->name;
	words[n] = NULL;
	return words;
}

unsigned metrics_word_bits(size_t i)
{
	const char *const *w = metrics_words();
	for (size_t k = 0; k < i; k++)
		if (!w[k])
			return 0;
	return !w[i] ? 0 : metrics[i].bit;
}

/* The i-th column's metric and row, or -1 past the last. */
static int noise_at(size_t i, const struct metric_desc **md)
{
	for (const struct metric_desc *m = metrics; m->name; m++) {
		size_t n = m->rows[m->decides].noise_key ? m->nrows : 0;
		if (i < n) {
			*md = m;
			/* the deciding row first, then the others in order */
			return i == 0 ? (int)m->decides : (int)(i - 1 + (i - 1 >= m->decides));
		}
		i -= n;
	}
	return -1;
}

size_t metrics_noise_columns(void)
{
	size_t n = 0;
	while (metrics_noise_column(n))
		n++;
	return n;
}

const char *metrics_noise_column(size_t i)
{
	const struct metric_desc *m;
	int r = noise_at(i, &m);
	return r < 0 ? NULL : m->rows[r].noise_key;
}

unsigned metrics_noise_bit(size_t i)
{
	const struct metric_desc *m;
	return noise_at(i, &m) < 0 ? 0 : m->bit;
}
