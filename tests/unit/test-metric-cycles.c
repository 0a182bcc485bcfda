/*
 * test-metric-cycles.c - the cycles metric's arithmetic: callgrind.out parsed by
 * event name (the events in another order, a file from a run without cache
 * or branch simulation, no summary, trailing values left off), the N/10N
 * difference and the estimate Ir + 10*Bm + 10*L1m + 100*LLm; the script of
 * mixed, the held-out workload.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pgbuild/metric/cycles.h"
#include "pgbuild/metric/single.h"

/* The head of a real callgrind 3.19 file (select-only, N = 200). */
static const char real_file[] =
	"# callgrind format\n"
	"version: 1\n"
	"creator: callgrind-3.19.0\n"
	"cmd:  /p/bin/postgres --single -D /w/cycles-data -c fsync=off postgres\n"
	"desc: I1 cache: 32768 B, 64 B, 8-way associative\n"
	"desc: LL cache: 33554432 B, 64 B, 16-way associative\n"
	"positions: line\n"
	"events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim\n"
	"summary: 43242630 9623220 12211707 551493 290335 288319 7225 15784 181248 10364799 323826 324276 72332\n"
	"\n"
	"ob=/usr/lib/x86_64-linux-gnu/libz.so.1.2.13\n"
	"fn=0x00000000000033f0\n"
	"0 12 1 0 3 0 0 3 0 0 1\n"
	"totals: 43242628 9623220 12211707 551492 290335 288319 7224 15784 181248 10364799 323826 324276 72332\n";

static void test_parse_real(void **state)
{
	struct cycles_counts c;
	struct strbuf why = STRBUF_INIT;
	(void)state;
	assert_int_equal(cycles_parse_callgrind(real_file, &c, &why), 0);
	/* summary:, not totals: */
	assert_true(c.v[CYC_IR] == 43242630);
	assert_true(c.v[CYC_I1MR] == 551493);
	assert_true(c.v[CYC_D1MR] == 290335);
	assert_true(c.v[CYC_D1MW] == 288319);
	assert_true(c.v[CYC_ILMR] == 7225);
	assert_true(c.v[CYC_DLMR] == 15784);
	assert_true(c.v[CYC_DLMW] == 181248);
	assert_true(c.v[CYC_BC] == 10364799);
	assert_true(c.v[CYC_BCM] == 323826);
	assert_true(c.v[CYC_BI] == 324276);
	assert_true(c.v[CYC_BIM] == 72332);
	strbuf_release(&why);
}

/* Columns are read by name: another order gives the same numbers. */
static void test_parse_by_name(void **state)
{
	struct cycles_counts c;
	struct strbuf why = STRBUF_INIT;
	const char *text =
		"events: Bim Bi Bcm Bc DLmw DLmr ILmr D1mw D1mr I1mr Ir\n"
		"summary: 11 10 9 8 7 6 5 4 3 2 1000\n";
	(void)state;
	assert_int_equal(cycles_parse_callgrind(text, &c, &why), 0);
	assert_true(c.v[CYC_IR] == 1000);
	assert_true(c.v[CYC_I1MR] == 2);
	assert_true(c.v[CYC_BIM] == 11);
	assert_true(c.v[CYC_DLMW] == 7);
	strbuf_release(&why);
}

/* Trailing values may be left off: they are 0. */
static void test_parse_trailing_zero(void **state)
{
	struct cycles_counts c;
	struct strbuf why = STRBUF_INIT;
	const char *text =
		"events: Ir I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim\n"
		"totals: 500 1 2 3\n";
	(void)state;
	assert_int_equal(cycles_parse_callgrind(text, &c, &why), 0);
	assert_true(c.v[CYC_IR] == 500);
	assert_true(c.v[CYC_D1MW] == 3);
	assert_true(c.v[CYC_BIM] == 0);
	strbuf_release(&why);
}

static void expect_refused(const char *text, const char *needle)
{
	struct cycles_counts c;
	struct strbuf why = STRBUF_INIT;
	assert_int_equal(cycles_parse_callgrind(text, &c, &why), -1);
	if (!strstr(why.buf, needle))
		fail_msg("reason \"%s\" does not say \"%s\"", why.buf, needle);
	strbuf_release(&why);
}

/* Files the metric cannot use say why. */
static void test_parse_refused(void **state)
{
	(void)state;
	/* plain callgrind (today's instruction count): no cache events */
	expect_refused("events: Ir\nsummary: 209537609\n", "I1mr, D1mr, D1mw, ILmr, DLmr, DLmw missing: "
		       "callgrind ran without --cache-sim=yes");
	/* cache simulation only */
	expect_refused("events: Ir I1mr D1mr D1mw ILmr DLmr DLmw\nsummary: 9 1 1 1 0 0 0\n",
		       "Bc, Bcm, Bi, Bim missing: callgrind ran without --branch-sim=yes");
	expect_refused("version: 1\nsummary: 5\n", "no \"events:\" line");
	expect_refused("events: Ir I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim\n", "no \"summary:\"");
	expect_refused("events: Ir I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim\nsummary: 0\n",
		       "no instructions");
	expect_refused("events: Ir I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim\nsummary: 10 x\n",
		       "summary value 2 is not a count");
	expect_refused("events: Dr Dw\nsummary: 1 2\n", "no Ir event");
}

/* (S(10N) - S(N)) / 9N per event, the sums, and the estimate. */
static void test_per_tx_and_estimate(void **state)
{
	struct cycles_counts c1 = { { 0 } }, c10 = { { 0 } };
	struct cycles_tx t;
	(void)state;
	for (int e = 0; e < CYC_NEVENTS; e++)
		c1.v[e] = 1000 + e;    /* start-up cost, removed by the difference */
	/* n = 2: the long run has 9n = 18 transactions more */
	c10.v[CYC_IR] = c1.v[CYC_IR] + 18 * 90000;
	c10.v[CYC_I1MR] = c1.v[CYC_I1MR] + 18 * 3000;
	c10.v[CYC_D1MR] = c1.v[CYC_D1MR] + 18 * 1000;
	c10.v[CYC_D1MW] = c1.v[CYC_D1MW] + 18 * 300;
	c10.v[CYC_ILMR] = c1.v[CYC_ILMR] + 18 * 0.5;
	c10.v[CYC_DLMR] = c1.v[CYC_DLMR] + 18 * 2;
	c10.v[CYC_DLMW] = c1.v[CYC_DLMW] + 18 * 5;
	c10.v[CYC_BC] = c1.v[CYC_BC] + 18 * 20000;
	c10.v[CYC_BCM] = c1.v[CYC_BCM] + 18 * 1000;
	c10.v[CYC_BI] = c1.v[CYC_BI] + 18 * 400;
	c10.v[CYC_BIM] = c1.v[CYC_BIM] + 18 * 300;
	cycles_per_tx(&c1, &c10, 2, &t);
	assert_true(fabs(t.ir - 90000) < 1e-9);
	assert_true(fabs(t.i1mr - 3000) < 1e-9);
	assert_true(fabs(t.l1m - 4300) < 1e-9);
	assert_true(fabs(t.llm - 7.5) < 1e-9);
	assert_true(fabs(t.bm - 1300) < 1e-9);
	/* 90000 + 10*1300 + 10*4300 + 100*7.5 */
	assert_true(fabs(t.estimate - 146750) < 1e-9);
	assert_true(fabs(cycles_estimate(&t) - t.estimate) < 1e-9);
}

/* The figures of FINDINGS' stock select-only row: 151,636 per transaction. */
static void test_estimate_published(void **state)
{
	struct cycles_tx t = { .ir = 92230, .i1mr = 3205, .l1m = 3205 + 1345, .llm = 7.4,
			       .bm = 1317 };
	(void)state;
	assert_true(fabs(cycles_estimate(&t) - 151640) < 1);
}

/* The held-out workload's script: three statements per transaction, the
 * same text every time (A and B run the same transactions). */
static void test_mixed_script(void **state)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	const char *p;
	size_t lines = 0;
	(void)state;
	assert_true(single_supported("mixed"));
	assert_int_equal(single_default_n("mixed"), 40);
	assert_false(single_supported("tpcc-lite"));
	single_make_script("mixed", 5, &a);
	single_make_script("mixed", 5, &b);
	assert_string_equal(a.buf, b.buf);
	for (p = a.buf; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 15);
	assert_non_null(strstr(a.buf, "SELECT count(*), sum(abalance) FROM pgbench_accounts "
			       "WHERE aid BETWEEN "));
	assert_non_null(strstr(a.buf, "left(md5(CAST("));
	assert_non_null(strstr(a.buf, "SELECT string_agg(relname, ',' ORDER BY relname) FROM "
			       "pg_class;\n"));
	/* a 51-row range: aid BETWEEN X AND X + 50, inside the 100000 rows */
	{
		unsigned long lo, hi;
		p = strstr(a.buf, "BETWEEN ");
		assert_int_equal(sscanf(p, "BETWEEN %lu AND %lu", &lo, &hi), 2);
		assert_int_equal(hi - lo, 50);
		assert_true(lo >= 1 && hi <= 100000);
	}
	strbuf_release(&a);
	strbuf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_real),
		cmocka_unit_test(test_mixed_script),
		cmocka_unit_test(test_parse_by_name),
		cmocka_unit_test(test_parse_trailing_zero),
		cmocka_unit_test(test_parse_refused),
		cmocka_unit_test(test_per_tx_and_estimate),
		cmocka_unit_test(test_estimate_published),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
