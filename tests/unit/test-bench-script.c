/*
 * test-bench-script.c - unit tests of pgbuild bench's pgbench-subset
 * scripts (bench-script.c): parsing into commands, :var to $n and to
 * literal text, \gset, expression evaluation and its errors, the PRNG's
 * bounds, and the built-in workloads all parse.
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
		"\\sleep 1\n",
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
					     "tpcc-lite", NULL };
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_sql_and_set),
		cmocka_unit_test(test_expressions),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_prng_bounds),
		cmocka_unit_test(test_builtin_workloads_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
