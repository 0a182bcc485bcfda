/*
 * test-metric-metrics.c - the invariants of metric/metrics.c's table and
 * that the words, keys, resolutions, rows and noise columns the gate,
 * the noise floor and the reports use come from it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "pgbuild/gate/gate.h"
#include "pgbuild/metric/metrics.h"
#include "pgbuild/noise/noise.h"

static void test_rows(void **state)
{
	unsigned bits = 0;
	(void)state;
	for (const struct metric_desc *m = metrics; m->name; m++) {
		char buf[64];
		/* one bit each, no two alike, no name or key twice */
		assert_int_equal(m->bit & (m->bit - 1), 0);
		assert_int_equal(bits & m->bit, 0);
		bits |= m->bit;
		for (const struct metric_desc *u = m + 1; u->name; u++) {
			assert_string_not_equal(m->name, u->name);
			assert_true(!m->alias || strcmp(m->alias, u->name));
		}
		assert_ptr_equal(metrics_find(m->name), m);
		assert_ptr_equal(metrics_of(m->bit), m);
		if (m->alias)
			assert_ptr_equal(metrics_find(m->alias), m);
		assert_non_null(m->label);
		assert_non_null(m->figure);
		assert_non_null(m->ratio_name);
		assert_non_null(m->title);
		assert_non_null(m->unit);
		assert_non_null(m->needs);
		assert_non_null(m->method);
		assert_true(!strncmp(m->needs, m->name, strlen(m->name)));
		assert_true(m->nrows > 0 && m->decides < m->nrows);
		assert_true(!strcmp(m->ratio, "A/B") || !strcmp(m->ratio, "B/A"));
		/* a faster build has the larger speedup */
		assert_string_equal(m->ratio, m->dir == METRIC_HIGHER_IS_BETTER ? "B/A" : "A/B");
		/* deterministic metrics: observed +- the repeat resolution, which
		 * the source text names; the wall-clock one has an interval */
		if (m->run == METRIC_RUN_BENCH) {
			assert_true(m->resolution == 0);
			assert_null(m->resolution_text);
		} else {
			assert_true(m->resolution > 0 && m->resolution < 0.01);
			snprintf(buf, sizeof(buf), "repeat %g%%", m->resolution * 100);
			assert_string_equal(m->resolution_text, buf);
		}
		for (const struct metric_figure *f = m->figures; f->name; f++) {
			const struct metric_desc *of = NULL;
			assert_non_null(f->keys[0]);
			assert_non_null(f->json_key);
			assert_ptr_equal(metrics_find_figure(f->keys[0], &of), f);
			assert_ptr_equal(of, m);
			assert_null(metrics_find(f->keys[0]));
		}
	}
	assert_int_equal(bits, metrics_all());
	assert_int_equal(bits, METRIC_TPS | METRIC_INSTR | METRIC_CYCLES);
	assert_int_equal(metrics_deterministic(), METRIC_INSTR | METRIC_CYCLES);
	assert_string_equal(metrics_list(metrics_deterministic()), "instructions and cycles");
	assert_string_equal(metrics_list(metrics_all()), "tps, instructions and cycles");
	assert_string_equal(metrics_list(METRIC_CYCLES), "cycles");
	assert_string_equal(metrics_list(0), "");
	/* with tps measured too, tps decides by default; instructions is shown */
	assert_int_equal(metrics_of(METRIC_INSTR)->default_unless, METRIC_TPS);
	assert_int_equal(metrics_of(METRIC_TPS)->default_unless, 0);
	assert_int_equal(metrics_of(METRIC_CYCLES)->default_unless, 0);
	assert_null(metrics_find("no-such"));
	assert_null(metrics_of(METRIC_TPS | METRIC_INSTR));
	assert_null(metrics_find_figure("tps", NULL));
}

/* the values gate/, noise/ and the documents were written with */
static void test_values(void **state)
{
	const struct metric_desc *tps = metrics_of(METRIC_TPS), *in = metrics_of(METRIC_INSTR),
				 *cy = metrics_of(METRIC_CYCLES);
	const struct metric_figure *lat, *cpu;
	(void)state;
	assert_string_equal(tps->name, "tps");
	assert_string_equal(in->name, "instructions");
	assert_ptr_equal(metrics_find("instr"), in);
	assert_string_equal(cy->name, "cycles");
	assert_true(in->resolution == GATE_INSTR_RESOLUTION);
	assert_true(cy->resolution == CYCLES_RESOLUTION);
	lat = metrics_find_figure("p99", NULL);
	cpu = metrics_find_figure("server-cpu", NULL);
	assert_non_null(lat);
	assert_non_null(cpu);
	assert_string_equal(lat->json_key, "latency_ms");
	assert_string_equal(cpu->json_key, "server_cpu_us_per_tx");
	assert_ptr_equal(metrics_find_figure("cpu", NULL), cpu);
	assert_ptr_equal(metrics_figure(METRIC_TPS, METRIC_TPS_LATENCY), lat);
	assert_ptr_equal(metrics_figure(METRIC_TPS, METRIC_TPS_CPU), cpu);
	assert_null(metrics_figure(METRIC_TPS, 2));
	assert_null(metrics_figure(METRIC_CYCLES, 0));
	assert_string_equal(cy->method, CYCLES_SIMULATION);
	/* the latency keys are the gate's, in its order */
	for (int k = 0; k < GATE_NLAT; k++) {
		assert_string_equal(lat->keys[k], gate_lat_keys[k]);
		assert_int_equal(metrics_figure_key(lat, gate_lat_keys[k]), k);
	}
	assert_null(lat->keys[GATE_NLAT]);
	/* the cycles rows, in gate_cycles_rows()'s order (cycles_tx_values) */
	{
		static const char *const labels[] = {
			"instructions", "I1 misses", "L1 misses", "LL misses",
			"branch mispredictions", "estimate",
		};
		assert_int_equal(cy->nrows, GATE_CYCLES_ROWS);
		for (size_t k = 0; k < cy->nrows; k++)
			assert_string_equal(cy->rows[k].label, labels[k]);
	}
	assert_string_equal(cy->rows[cy->decides].json_key, "estimate");
	{
		struct cycles_tx t = { 1, 2, 3, 4, 5, 6 }, u;
		double v[CYCLES_ROWS];
		cycles_tx_values(&t, v);
		assert_true(v[0] == t.ir && v[1] == t.i1mr && v[4] == t.bm);
		assert_true(v[CYCLES_ROW_ESTIMATE] == t.estimate);
		cycles_tx_set(&u, v);
		assert_memory_equal(&t, &u, sizeof(t));
	}
}

static void test_words(void **state)
{
	const char *const *w = metrics_words();
	size_t n = 0;
	(void)state;
	for (const struct metric_desc *m = metrics; m->name; m++, n++) {
		assert_string_equal(w[n], m->name);
		assert_int_equal(metrics_word_bits(n), m->bit);
	}
	assert_null(w[n]);  /* "both" is no word any more */
	assert_int_equal(metrics_word_bits(n), 0);
	assert_ptr_equal(metrics_words(), w);
}

/* the noise floor's columns: noise.h's indices, its JSON keys */
static void test_noise(void **state)
{
	static const char *const keys[] = {
		"instructions", "cycles_estimate", "cycles_ir", "i1_misses", "l1_misses",
		"ll_misses", "branch_mispredictions",
	};
	(void)state;
	assert_int_equal(metrics_noise_columns(), NOISE_NMETRICS);
	assert_int_equal(sizeof(keys) / sizeof(keys[0]), NOISE_NMETRICS);
	for (size_t i = 0; i < NOISE_NMETRICS; i++)
		assert_string_equal(metrics_noise_column(i), keys[i]);
	assert_null(metrics_noise_column(NOISE_NMETRICS));
	assert_int_equal(metrics_noise_bit(NOISE_INSTR), METRIC_INSTR);
	assert_int_equal(metrics_noise_bit(NOISE_CYC_EST), METRIC_CYCLES);
	assert_int_equal(metrics_noise_bit(NOISE_CYC_BM), METRIC_CYCLES);
	assert_int_equal(metrics_noise_bit(NOISE_NMETRICS), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_noise),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
