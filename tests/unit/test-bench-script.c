/*
 * test-bench-script.c - unit tests of pgbuild bench's pgbench-subset
 * scripts (bench-script.c): parsing into commands, :var to $n and to
 * literal text, \gset, \sleep, expression evaluation and its errors,
 * pgbench's random functions (ranges, shapes, parameter checks), the
 * PRNG's bounds, and the built-in workloads all parse.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pgbuild/bench/bench.h"
#include "wrapper/common/error.h"
#include "wrapper/common/xalloc.h"
#include "tests/unit/fixture.h"

static void test_parse_sql_and_set(void **state)
{
	struct bench_vars vars = { 0 };
	struct bench_script s = { 0 };
	struct bench_value v[8];
	struct strbuf sb = STRBUF_INIT;
	const char *text =
		"-- comment line\n"
		"\\set aid random(1, 100000 * :scale)\n"
		"\n"
		"SELECT abalance::int, 'a:b' FROM t\n"
		"  WHERE aid = :aid AND x = :aid;\n"
		"\\gset\n"
		"END;\n";
	int scale = bench_var_index(&vars, "scale", 1);

	assert_int_equal(bench_script_parse(&s, text, "t.sql", &vars, 3), 0);
	assert_int_equal(s.ncmds, 3);
	assert_int_equal(s.cmds[0].kind, BCMD_SET);
	assert_int_equal(s.cmds[0].line, 2);
	assert_int_equal(s.cmds[1].kind, BCMD_SQL);
	assert_int_equal(s.cmds[1].line, 4);
	assert_string_equal(s.cmds[1].sql,
			    "SELECT abalance::int, 'a:b' FROM t\nWHERE aid = $1 AND x = $2");
	assert_int_equal(s.cmds[1].nparams, 2);
	assert_true(s.cmds[1].gset);
	assert_false(s.cmds[2].gset);
	assert_string_equal(s.cmds[1].stmt_name, "pgb_3_1");
	assert_string_equal(s.cmds[2].sql, "END");

	memset(v, 0, sizeof(v));
	v[scale].i = 1;
	v[bench_var_index(&vars, "aid", 0)].i = 42;
	bench_command_text(&s.cmds[1], v, &sb);
	assert_string_equal(sb.buf,
			    "SELECT abalance::int, 'a:b' FROM t\nWHERE aid = 42 AND x = 42");
	v[bench_var_index(&vars, "aid", 0)].isnull = 1;
	bench_command_text(&s.cmds[1], v, &sb);
	assert_non_null(strstr(sb.buf, "aid = NULL AND x = NULL"));
	strbuf_release(&sb);
	bench_script_free(&s);
	bench_vars_free(&vars);
}

/* pgbench's \gset: in place of ';' at the end of the SQL (the next line is
 * a command of its own), on its own line after SQL lines without ';', and
 * with a prefix before the column names; anything else after it refused. */
static void test_gset_forms(void **state)
{
	static const struct {
		const char *text;
		int ncmds, gset_at;        /* commands, the one with \gset */
		const char *sql, *prefix;  /* its text and prefix */
		const char *err;           /* or the error */
	} t[] = {
		{ "SELECT 1 AS v \\gset\n\\sleep 1 ms\n", 2, 0, "SELECT 1 AS v", NULL, NULL },
		{ "SELECT :r AS v \\gset\nSELECT :v;\n", 2, 0, "SELECT $1 AS v", NULL, NULL },
		{ "SELECT 1 AS v\\gset p_\nSELECT :p_v;\n", 2, 0, "SELECT 1 AS v", "p_", NULL },
		{ "SELECT 1 AS v;\n\\gset p_\n", 1, 0, "SELECT 1 AS v", "p_", NULL },
		{ "SELECT 1\n  AS v\n\\gset\nSELECT :v;\n", 2, 0, "SELECT 1\nAS v", NULL, NULL },
		/* not a meta-command: in a string, a dollar quote, a comment */
		{ "SELECT '\\gset' AS v;\n", 1, -1, "SELECT '\\gset' AS v", NULL, NULL },
		{ "SELECT E'\\'\\gset' AS v;\n", 1, -1, "SELECT E'\\'\\gset' AS v", NULL, NULL },
		{ "SELECT $q$ \\gset $q$ AS v;\n", 1, -1, "SELECT $q$ \\gset $q$ AS v", NULL, NULL },
		{ "SELECT 1 AS v -- \\gset\n;\n", 1, -1, "SELECT 1 AS v -- \\gset", NULL, NULL },
		{ "SELECT 1;\n\\gset_p\n", 0, 0, NULL, NULL,
		  "g.sql:2: unsupported meta-command \"\\gset_p\" (supported: \\set, \\sleep, \\gset)" },
		{ "SELECT 1 AS v \\gset p234567890123456789012345678901234567890123456789012345678901234\n",
		  0, 0, NULL, NULL, "g.sql:1: \\gset: a prefix of at most 63 characters" },
		{ "SELECT 1 AS v \\gset p_ x\n", 0, 0, NULL, NULL,
		  "g.sql:1: unexpected \"x\" after \\gset (expected \\gset or \\gset PREFIX)" },
		{ "SELECT 1;\n\\gset\n\\gset\n", 0, 0, NULL, NULL,
		  "g.sql:3: \\gset must follow an SQL command" },
		{ "SELECT 1\n\\sleep 1\n", 0, 0, NULL, NULL,
		  "g.sql:2: meta-command inside an SQL command (missing \";\"?)" },
	};
	(void)state;
	error_set_program("pgbuild", 2);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct bench_vars vars = { 0 };
		struct bench_script s = { 0 };
		int rc;
		bench_var_index(&vars, "r", 1);
		capture_begin();
		rc = bench_script_parse(&s, t[i].text, "g.sql", &vars, 0);
		if (t[i].err) {
			char *want = xasprintf("pgbuild: error: %s\n", t[i].err);
			assert_int_equal(rc, -1);
			assert_string_equal(capture_end(), want);
			free(want);
		} else {
			assert_string_equal(capture_end(), "");
			if (rc != 0)
				fail_msg("case %zu: %s", i, t[i].text);
			assert_int_equal(s.ncmds, t[i].ncmds);
			if (t[i].gset_at < 0) {     /* no \gset: the one command's text */
				assert_false(s.cmds[0].gset);
				assert_string_equal(s.cmds[0].sql, t[i].sql);
				bench_script_free(&s);
				bench_vars_free(&vars);
				continue;
			}
			assert_true(s.cmds[t[i].gset_at].gset);
			assert_string_equal(s.cmds[t[i].gset_at].sql, t[i].sql);
			if (t[i].prefix)
				assert_string_equal(s.cmds[t[i].gset_at].gset_prefix, t[i].prefix);
			else
				assert_null(s.cmds[t[i].gset_at].gset_prefix);
			for (int k = 0; k < s.ncmds; k++)
				if (k != t[i].gset_at)
					assert_false(s.cmds[k].gset);
			bench_script_free(&s);
		}
		bench_vars_free(&vars);
	}
}

static int64_t eval(const char *expr, const char **msg)
{
	struct bench_vars vars = { 0 };
	struct bench_script s = { 0 };
	struct bench_value v[4] = { { 0, 0 } };
	struct bench_prng r;
	char text[200];
	int64_t out = -999;
	bench_var_index(&vars, "scale", 1);
	v[0].i = 10;
	snprintf(text, sizeof(text), "\\set x %s\nSELECT :x;\n", expr);
	assert_int_equal(bench_script_parse(&s, text, "e.sql", &vars, 0), 0);
	bench_prng_seed(&r, 7);
	*msg = NULL;
	if (bench_expr_eval(s.cmds[0].expr, v, &r, &out, msg) < 0)
		out = -999;
	bench_script_free(&s);
	bench_vars_free(&vars);
	return out;
}

static void test_expressions(void **state)
{
	const char *msg;
	assert_int_equal(eval("1 + 2 * 3", &msg), 7);
	assert_int_equal(eval("(1 + 2) * 3", &msg), 9);
	assert_int_equal(eval("100000 * :scale", &msg), 1000000);
	assert_int_equal(eval("scale - 20", &msg), -10);
	assert_int_equal(eval("-7 / 2", &msg), -3);
	assert_int_equal(eval("17 % 5", &msg), 2);
	assert_int_equal(eval("abs(-4)", &msg), 4);
	assert_int_equal(eval("random(5, 5)", &msg), 5);
	assert_int_equal(eval("1 / 0", &msg), -999);
	assert_string_equal(msg, "division by zero");
	assert_int_equal(eval("random(2, 1)", &msg), -999);
	assert_non_null(strstr(msg, "lower bound"));
	for (int i = 0; i < 20; i++) {
		int64_t x = eval("random(-3, 3)", &msg);
		assert_true(x >= -3 && x <= 3);
	}
}

static void test_sleep(void **state)
{
	struct bench_vars vars = { 0 };
	struct bench_script s = { 0 };
	struct bench_value v[4] = { { 0, 0 } };
	struct bench_prng r;
	int64_t out;
	const char *msg = NULL;

	bench_var_index(&vars, "scale", 1);
	assert_int_equal(bench_script_parse(&s, "\\sleep 5 ms\n\\sleep :scale us\n"
					    "\\sleep 2\nSELECT 1;\n", "s.sql", &vars, 0), 0);
	assert_int_equal(s.ncmds, 4);
	assert_int_equal(s.cmds[0].kind, BCMD_SLEEP);
	assert_int_equal(s.cmds[0].sleep_unit, 1000);
	assert_int_equal(s.cmds[1].sleep_unit, 1);
	assert_int_equal(s.cmds[2].sleep_unit, 1000000);
	assert_int_equal(s.cmds[2].line, 3);
	v[0].i = 42;
	bench_prng_seed(&r, 1);
	assert_int_equal(bench_expr_eval(s.cmds[1].expr, v, &r, &out, &msg), 0);
	assert_int_equal(out, 42);
	bench_script_free(&s);
	bench_vars_free(&vars);
}

/* pgbench's shapes: in range, and where the mass should be. */
static void test_random_functions(void **state)
{
	struct bench_prng r;
	const char *msg;
	int64_t n = 200000, ones = 0, low = 0, mid = 0;
	double sum = 0;

	bench_prng_seed(&r, 3);
	for (int64_t i = 0; i < n; i++) {       /* gaussian 2.5 on 1..100: mean 50.5 */
		int64_t x = bench_random_gaussian(&r, 1, 100, 2.5);
		assert_true(x >= 1 && x <= 100);
		sum += (double)x;
		mid += x > 30 && x <= 70;       /* within +-1 sd (0.4 of 2.5 each side) */
	}
	assert_true(sum / n > 50 && sum / n < 51);
	assert_true(mid > 0.65 * n && mid < 0.71 * n);
	for (int64_t i = 0; i < n; i++) {       /* exponential 3: P(x <= 23) = 1 - e^-0.69 */
		int64_t x = bench_random_exponential(&r, 1, 100, 3.0);
		assert_true(x >= 1 && x <= 100);
		low += x <= 23;
	}
	assert_true(low > 0.49 * n && low < 0.53 * n);
	for (int64_t i = 0; i < n; i++) {       /* zipfian 1.5 on 1..1000: P(1) = 1/H = 0.39 */
		int64_t x = bench_random_zipfian(&r, 1, 1000, 1.5);
		assert_true(x >= 1 && x <= 1000);
		ones += x == 1;
	}
	assert_true(ones > 0.37 * n && ones < 0.41 * n);
	assert_int_equal(eval("random_gaussian(7, 7, 2.0)", &msg), 7);
	assert_int_equal(eval("random_zipfian(3, 3, 1.001)", &msg), 3);
	assert_int_equal(eval("random_exponential(5, 1, 1.5)", &msg), -999);
	assert_non_null(strstr(msg, "lower bound"));
	for (int i = 0; i < 20; i++) {
		int64_t x = eval("random_exponential(10, 20, 0.5)", &msg);
		assert_true(x >= 10 && x <= 20);
	}
}

static void test_parse_errors(void **state)
{
	static const char *const bad[] = {
		"\\set\nSELECT 1;\n",
		"\\set x\nSELECT 1;\n",
		"\\set x random(1)\nSELECT 1;\n",
		"\\set x 1 +\nSELECT 1;\n",
		"\\set x 1 2\nSELECT 1;\n",
		"\\set x :y\nSELECT 1;\n",
		"\\set x nosuch(1)\nSELECT 1;\n",
		"\\set x 99999999999999999999\nSELECT 1;\n",
		"\\sleep 1 hours\nSELECT 1;\n",
		"\\sleep\nSELECT 1;\n",
		"\\sleep x\nSELECT 1;\n",
		"\\set x random_gaussian(1, 10, 1.5)\nSELECT 1;\n",
		"\\set x random_gaussian(1, 10)\nSELECT 1;\n",
		"\\set x random_gaussian(1, 10, :scale)\nSELECT 1;\n",
		"\\set x random_exponential(1, 10, 0)\nSELECT 1;\n",
		"\\set x random_zipfian(1, 10, 1.0)\nSELECT 1;\n",
		"\\set x random_zipfian(1, 10, 1001)\nSELECT 1;\n",
		"\\set x random_uniform(1, 10)\nSELECT 1;\n",
		"\\gset\n",
		"SELECT 1\n\\set x 1\nSELECT 2;\n",
		"-- only a comment\n",
		NULL,
	};
	error_set_program("test", 2);
	for (int i = 0; bad[i]; i++) {
		struct bench_vars vars = { 0 };
		struct bench_script s = { 0 };
		bench_var_index(&vars, "scale", 1);
		if (bench_script_parse(&s, bad[i], "bad.sql", &vars, 0) == 0)
			fail_msg("accepted: %s", bad[i]);
		assert_null(s.cmds); /* a failed parse keeps nothing */
		bench_vars_free(&vars);
	}
	{	/* too many variables: the half-built SQL command is freed too */
		struct bench_vars vars = { 0 };
		struct bench_script s = { 0 };
		struct strbuf sb = STRBUF_INIT;
		strbuf_addstr(&sb, "SELECT 1;\nSELECT 0");
		for (int i = 0; i <= BENCH_MAX_PARAMS; i++)
			strbuf_addstr(&sb, " + :x");
		strbuf_addstr(&sb, ";\n");
		assert_int_equal(bench_script_parse(&s, sb.buf, "many.sql", &vars, 0), -1);
		assert_null(s.cmds);
		bench_vars_free(&vars);
		strbuf_release(&sb);
	}
}

static void test_prng_bounds(void **state)
{
	struct bench_prng r;
	int seen[10] = { 0 };
	bench_prng_seed(&r, 1);
	for (int i = 0; i < 100000; i++) {
		int64_t x = bench_random(&r, 1, 10);
		assert_true(x >= 1 && x <= 10);
		seen[x - 1]++;
	}
	for (int i = 0; i < 10; i++)   /* roughly uniform */
		assert_true(seen[i] > 9000 && seen[i] < 11000);
	assert_true(bench_random(&r, INT64_MIN, INT64_MAX) || 1);
}

static void test_builtin_workloads_parse(void **state)
{
	static const char *const names[] = { "select-only", "tpcb", "select1", "point-select",
					     "tpcc-lite", "simple-update", NULL };
	for (int i = 0; names[i]; i++) {
		struct bench_workload w;
		assert_int_equal(bench_workload_init(&w, names[i], NULL), 0);
		assert_true(w.nscripts >= 1);
		for (int k = 0; k < w.nscripts; k++)
			bench_script_free(&w.scripts[k]);
		free(w.scripts);
		bench_vars_free(&w.vars);
	}
}

/* -b NAME@W mixes: weights, one data set, no single workload's checks;
 * a two-script or fixed-scale workload refused. */
static void test_mix(void **state)
{
	const struct bench_script_spec ok[] = {
		{ "select-only", NULL, 9 }, { "tpcb", NULL, 1 }, { "simple-update", NULL, 2 },
	};
	const struct bench_script_spec two[] = { { "select-only", NULL, 1 }, { "tpcc-lite", NULL, 1 } };
	const struct bench_script_spec fixed[] = { { "select-only-s10", NULL, 1 }, { "tpcb", NULL, 1 } };
	struct bench_workload w;

	assert_int_equal(bench_workload_init_mix(&w, ok, 3), 0);
	assert_int_equal(w.nscripts, 3);
	assert_int_equal(w.total_weight, 12);
	assert_int_equal(w.scripts[0].weight, 9);
	assert_string_equal(w.scripts[1].name, "tpcb");
	assert_string_equal(w.scripts[1].file, "<tpcb>");
	assert_string_equal(w.data->name, "pgbench");
	assert_int_equal(w.checks, 0);
	assert_non_null(strstr(w.unchecked, "a mix of scripts"));
	bench_workload_release(&w);
	error_set_program("test", 2);
	assert_int_equal(bench_workload_init_mix(&w, two, 2), -1);
	bench_workload_release(&w);
	assert_int_equal(bench_workload_init_mix(&w, fixed, 2), -1);
	bench_workload_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_sql_and_set),
		cmocka_unit_test(test_gset_forms),
		cmocka_unit_test(test_expressions),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_sleep),
		cmocka_unit_test(test_random_functions),
		cmocka_unit_test(test_prng_bounds),
		cmocka_unit_test(test_builtin_workloads_parse),
		cmocka_unit_test(test_mix),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
