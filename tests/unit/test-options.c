/*
 * test-options.c - unit tests of pgbuild/options.c: the range-checked
 * numeric option values every pgbuild command parses, one table row per
 * case, with the one-line error each bad value prints (captured from
 * stderr), and comma-separated lists.
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

#include "pgbuild.h"

/* stderr while a parse runs, so its error line can be compared */
static char *err_buf;
static size_t err_len;
static FILE *saved_stderr;

static void capture_begin(void)
{
	saved_stderr = stderr;
	stderr = open_memstream(&err_buf, &err_len);
	assert_non_null(stderr);
}

/*
 * End the capture and check one parse: its return value, and no output on
 * success, else one error line naming the option and the value (the whole
 * line when want_err is given).
 */
static void check_outcome(int ret, int want_ret, const char *opt, const char *arg,
			  const char *want_err)
{
	fclose(stderr);
	stderr = saved_stderr;
	assert_int_equal(ret, want_ret);
	if (ret == 0) {
		assert_string_equal(err_buf, "");
	} else {
		assert_non_null(strstr(err_buf, opt));
		assert_non_null(strstr(err_buf, arg));
		assert_ptr_equal(strchr(err_buf, '\n'), err_buf + strlen(err_buf) - 1);
		if (want_err)
			assert_string_equal(err_buf, want_err);
	}
	free(err_buf);
	err_buf = NULL;
}

static void test_int_option(void **state)
{
	static const struct {
		const char *arg;
		int min, max;
		int ret, value;		/* value when ret is 0 */
		const char *err;	/* the whole line when ret is -1 */
	} t[] = {
		{ "1", 1, 1000, 0, 1, NULL },
		{ "1000", 1, 1000, 0, 1000, NULL },
		{ "+7", 1, 1000, 0, 7, NULL },
		{ "0", 0, 10000, 0, 0, NULL },
		{ "-3", -5, 5, 0, -3, NULL },
		{ "0", 1, 1000,
		  -1, 0, "pgbuild: error: invalid value \"0\" for --pairs: expected an integer from 1 to 1000\n" },
		{ "1001", 1, 1000,
		  -1, 0, "pgbuild: error: invalid value \"1001\" for --pairs: expected an integer from 1 to 1000\n" },
		{ "-1", 0, 10000,
		  -1, 0, "pgbuild: error: invalid value \"-1\" for --pairs: expected an integer from 0 to 10000\n" },
		{ "x", 1, 1000,
		  -1, 0, "pgbuild: error: invalid value \"x\" for --pairs: expected an integer from 1 to 1000\n" },
		{ "", 1, 1000,
		  -1, 0, "pgbuild: error: invalid value \"\" for --pairs: expected an integer from 1 to 1000\n" },
		{ "5x", 1, 1000, -1, 0, NULL },
		{ "2.5", 1, 1000, -1, 0, NULL },
		{ "1e1", 1, 1000, -1, 0, NULL },
		{ "0x10", 1, 1000, -1, 0, NULL },
		{ "99999999999999999999", 1, 1000, -1, 0, NULL },
		{ "4294967297", 0, 2147483647, -1, 0, NULL },	/* would wrap to 1 as an int */
	};
	(void)state;
	error_set_program("pgbuild", 2);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int v = -42;
		capture_begin();
		int ret = parse_int_option("--pairs", t[i].arg, t[i].min, t[i].max, &v);
		check_outcome(ret, t[i].ret, "--pairs", t[i].arg, t[i].err);
		assert_int_equal(v, ret == 0 ? t[i].value : -42);	/* untouched on error */
	}
}

static void test_number_option(void **state)
{
	static const struct {
		const char *arg;
		double min, max;
		int ret;
		double value;		/* when ret is 0 */
		const char *err;	/* the whole line when ret is -1 */
	} t[] = {
		{ "0.1", 0.1, 3600, 0, 0.1, NULL },
		{ "10", 0.1, 3600, 0, 10, NULL },
		{ "1e1", 0.1, 3600, 0, 10, NULL },
		{ "3600", 0.1, 3600, 0, 3600, NULL },
		{ "0", 0, INFINITY, 0, 0, NULL },
		{ "1e300", 0, INFINITY, 0, 1e300, NULL },
		{ "0.05", 0.1, 3600,
		  -1, 0, "pgbuild: error: invalid value \"0.05\" for --duration: expected a number from 0.1 to 3600\n" },
		{ "3601", 0.1, 3600,
		  -1, 0, "pgbuild: error: invalid value \"3601\" for --duration: expected a number from 0.1 to 3600\n" },
		{ "x", 0.1, INFINITY,
		  -1, 0, "pgbuild: error: invalid value \"x\" for --duration: expected a number >= 0.1\n" },
		{ "-1", 0, INFINITY,
		  -1, 0, "pgbuild: error: invalid value \"-1\" for --duration: expected a number >= 0\n" },
		{ "", 0, INFINITY, -1, 0, NULL },
		{ "1s", 0, INFINITY, -1, 0, NULL },
		{ "nan", 0, INFINITY, -1, 0, NULL },
		{ "inf", 0, INFINITY, -1, 0, NULL },
		{ "1e999", 0, INFINITY, -1, 0, NULL },
	};
	(void)state;
	error_set_program("pgbuild", 2);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		double v = -42;
		capture_begin();
		int ret = parse_number_option("--duration", t[i].arg, t[i].min, t[i].max, &v);
		check_outcome(ret, t[i].ret, "--duration", t[i].arg, t[i].err);
		assert_true(v == (ret == 0 ? t[i].value : -42));
	}
}

static void test_list_option(void **state)
{
	struct strvec sv = STRVEC_INIT;
	(void)state;
	parse_list_option("select-only", &sv);
	parse_list_option("tpcb,,select1,", &sv);
	parse_list_option(",", &sv);
	parse_list_option("", &sv);
	assert_int_equal(sv.nr, 3);
	assert_string_equal(sv.v[0], "select-only");
	assert_string_equal(sv.v[1], "tpcb");
	assert_string_equal(sv.v[2], "select1");
	assert_null(sv.v[3]);
	strvec_clear(&sv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_int_option),
		cmocka_unit_test(test_number_option),
		cmocka_unit_test(test_list_option),
	};
	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
