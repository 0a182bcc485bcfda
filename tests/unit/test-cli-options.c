/*
 * test-cli-options.c - unit tests of pgbuild/cli/: the range-checked numeric
 * option values every pgbuild command parses, one table row per case, with
 * the one-line error each bad value prints (captured from stderr);
 * comma-separated lists, one-of-a-set words with their did-you-mean,
 * NAME=VALUE settings and the table of settings refused with their
 * reasons (also in a --temp-config file and in PGOPTIONS), the output-path
 * checks, the shared vocabulary's values, and cli_getopt's short options
 * derived from the table.  Numbers are decimal only: hex, blanks, inf and nan are
 * refused, and an exponent where an integer is meant.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "pgbuild/bench/bench.h"
#include "pgbuild/bench/servercpu.h"
#include "pgbuild/cli/cli.h"
#include "pgbuild/metric/workloads.h"
#include "pgbuild/pgbuild.h"
#include "tests/unit/fixture.h"

/*
 * End the capture and check one parse: its return value, and no output on
 * success, else one error line naming the option and the value (the whole
 * line when want_err is given).
 */
static void check_outcome(int ret, int want_ret, const char *opt, const char *arg,
			  const char *want_err)
{
	const char *err_buf = capture_end();
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
		/* decimal only: what strtol/strtod would also have taken */
		{ "010", 1, 1000, 0, 10, NULL },		/* not octal 8 */
		{ "0x10", 1, 1000,
		  -1, 0, "pgbuild: error: invalid value \"0x10\" for --pairs: expected a decimal integer from 1 to 1000\n" },
		{ " 5", 1, 1000,
		  -1, 0, "pgbuild: error: invalid value \" 5\" for --pairs: expected a decimal integer from 1 to 1000\n" },
		{ "1e3", 1, 1000,
		  -1, 0, "pgbuild: error: invalid value \"1e3\" for --pairs: expected an integer from 1 to 1000\n" },
		{ "inf", 1, 1000,
		  -1, 0, "pgbuild: error: invalid value \"inf\" for --pairs: expected a decimal integer from 1 to 1000\n" },
		{ "nan", 1, 1000, -1, 0, NULL },
		{ "5 ", 1, 1000, -1, 0, NULL },
		{ "--5", -10, 10, -1, 0, NULL },
		{ "+", 1, 1000, -1, 0, NULL },
	};
	(void)state;
	error_set_program("pgbuild", 2);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int v = -42;
		capture_begin();
		int ret = cli_parse_int("--pairs", t[i].arg, t[i].min, t[i].max, &v);
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
		/* decimal notation, with a base-10 exponent (what %g prints) */
		{ "1e-05", 0, INFINITY, 0, 1e-5, NULL },
		{ ".5", 0, INFINITY, 0, 0.5, NULL },
		{ "5.", 0, INFINITY, 0, 5, NULL },
		{ "+.5E+1", 0, INFINITY, 0, 5, NULL },
		{ "0x10", 0, INFINITY,
		  -1, 0, "pgbuild: error: invalid value \"0x10\" for --duration: expected a decimal number >= 0\n" },
		{ "0x1p3", 0.1, 3600,
		  -1, 0, "pgbuild: error: invalid value \"0x1p3\" for --duration: expected a decimal number from 0.1 to 3600\n" },
		{ "infinity", 0, INFINITY,
		  -1, 0, "pgbuild: error: invalid value \"infinity\" for --duration: expected a decimal number >= 0\n" },
		{ " 5", 0, INFINITY, -1, 0, NULL },
		{ "5 ", 0, INFINITY, -1, 0, NULL },
		{ ".", 0, INFINITY, -1, 0, NULL },
		{ "-", 0, INFINITY, -1, 0, NULL },
		{ "1e", 0, INFINITY, -1, 0, NULL },
		{ "1,5", 0, INFINITY, -1, 0, NULL },
	};
	(void)state;
	error_set_program("pgbuild", 2);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		double v = -42;
		capture_begin();
		int ret = cli_parse_number("--duration", t[i].arg, t[i].min, t[i].max, &v);
		check_outcome(ret, t[i].ret, "--duration", t[i].arg, t[i].err);
		assert_true(v == (ret == 0 ? t[i].value : -42));
	}
}

static void test_list_option(void **state)
{
	struct strvec sv = STRVEC_INIT;
	(void)state;
	cli_parse_list("select-only", &sv);
	cli_parse_list("tpcb,,select1,", &sv);
	cli_parse_list(",", &sv);
	cli_parse_list("", &sv);
	assert_int_equal(sv.nr, 3);
	assert_string_equal(sv.v[0], "select-only");
	assert_string_equal(sv.v[1], "tpcb");
	assert_string_equal(sv.v[2], "select1");
	assert_null(sv.v[3]);
	strvec_clear(&sv);
}

static void test_seconds_and_int64(void **state)
{
	static const struct {
		const char *arg;
		int allow_zero, ret;
		double value;
	} t[] = {
		{ "0.5", 0, 0, 0.5 }, { "10", 0, 0, 10 }, { "0", 1, 0, 0 }, { "0", 0, -1, 0 },
		{ "-1", 1, -1, 0 }, { "x", 0, -1, 0 }, { "31536000", 0, 0, 31536000 },
		{ "31536001", 0, -1, 0 }, { "inf", 0, -1, 0 }, { "0x10", 0, -1, 0 },
		{ "1e-4", 0, 0, 1e-4 }, { "nan", 1, -1, 0 },
	};
	int64_t v64 = 7;
	(void)state;
	error_set_program("pgbuild", 2);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		double v = -42;
		capture_begin();
		int ret = cli_parse_seconds("--duration", t[i].arg, t[i].allow_zero, &v);
		check_outcome(ret, t[i].ret, "--duration", t[i].arg,
			      NULL);
		assert_true(v == (ret == 0 ? t[i].value : -42));
	}
	capture_begin();
	assert_int_equal(cli_parse_seconds("--duration", "0", 0, &(double){ 0 }), -1);
	check_outcome(-1, -1, "--duration", "0",
		      "pgbuild: error: invalid value \"0\" for --duration: expected a number of "
		      "seconds > 0 (at most a year)\n");
	capture_begin();
	assert_int_equal(cli_parse_int64("--seed", "9223372036854775807", 0, INT64_MAX, &v64), 0);
	check_outcome(0, 0, "--seed", "", NULL);
	assert_true(v64 == INT64_MAX);
	capture_begin();
	assert_int_equal(cli_parse_int64("--transactions", "0", 1, 100, &v64), -1);
	check_outcome(-1, -1, "--transactions", "0",
		      "pgbuild: error: invalid value \"0\" for --transactions: expected an integer "
		      "from 1 to 100\n");
	assert_true(v64 == INT64_MAX);
	capture_begin();
	assert_int_equal(cli_parse_seconds("--warmup", "0x2", 1, &(double){ 0 }), -1);
	check_outcome(-1, -1, "--warmup", "0x2",
		      "pgbuild: error: invalid value \"0x2\" for --warmup: expected a decimal number "
		      "of seconds >= 0 (at most a year)\n");
	capture_begin();
	assert_int_equal(cli_parse_int64("--seed", "0x10", 0, INT64_MAX, &v64), -1);
	check_outcome(-1, -1, "--seed", "0x10",
		      "pgbuild: error: invalid value \"0x10\" for --seed: expected a decimal integer "
		      "from 0 to 9223372036854775807\n");
}

/* The scanners other parsers build on (the gate's "+5%"). */
static void test_decimal_scanners(void **state)
{
	static const struct { const char *s; size_t integer, decimal; } t[] = {
		{ "12", 2, 2 }, { "-12", 3, 3 }, { "+5%", 2, 2 }, { "1.05", 1, 4 },
		{ "1e3", 1, 3 }, { "1e", 1, 1 }, { "1e+", 1, 1 }, { "2.5e-1x", 1, 6 },
		{ ".5", 0, 2 }, { "5.%", 1, 2 }, { ".", 0, 0 }, { "", 0, 0 }, { "x1", 0, 0 },
		{ "0x10", 1, 1 }, { " 5", 0, 0 }, { "inf", 0, 0 }, { "nan", 0, 0 }, { "++1", 0, 0 },
	};
	double d = -1;
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (cli_scan_integer(t[i].s) != t[i].integer || cli_scan_decimal(t[i].s) != t[i].decimal) {
			fprintf(stderr, "\"%s\": integer %zu decimal %zu, want %zu %zu\n", t[i].s,
				cli_scan_integer(t[i].s), cli_scan_decimal(t[i].s), t[i].integer,
				t[i].decimal);
			fail();
		}
	}
	assert_int_equal(cli_parse_decimal("2.5", &d), 0);
	assert_true(d == 2.5);
	assert_int_equal(cli_parse_decimal("0x10", &d), -1);
	assert_int_equal(cli_parse_decimal("1e400", &d), -1);
	assert_true(d == 2.5);
}

static void test_choice_and_setting(void **state)
{
	static const char *const metrics[] = { "tps", "instructions", "both", NULL };
	struct strvec sv = STRVEC_INIT;
	int k = -1;
	(void)state;
	error_set_program("pgbuild", 2);
	capture_begin();
	assert_int_equal(cli_parse_choice("--metric", "both", metrics, &k), 0);
	check_outcome(0, 0, "--metric", "", NULL);
	assert_int_equal(k, 2);
	capture_begin();
	assert_int_equal(cli_parse_choice("--metric", "instruction", metrics, &k), -1);
	check_outcome(-1, -1, "--metric", "instruction",
		      "pgbuild: error: invalid value \"instruction\" for --metric: expected tps, "
		      "instructions or both (did you mean \"instructions\"?)\n");
	capture_begin();
	assert_int_equal(cli_parse_choice("--metric", "cycles", metrics, &k), -1);
	check_outcome(-1, -1, "--metric", "cycles",
		      "pgbuild: error: invalid value \"cycles\" for --metric: expected tps, "
		      "instructions or both\n");
	assert_int_equal(k, 2);         /* untouched */
	capture_begin();
	assert_int_equal(cli_parse_setting("--set", "fsync=off", &sv), 0);
	check_outcome(0, 0, "--set", "", NULL);
	for (const char *const *bad = (const char *const[]){ "fsync", "=on", "", NULL }; *bad; bad++) {
		capture_begin();
		assert_int_equal(cli_parse_setting("--set", *bad, &sv), -1);
		check_outcome(-1, -1, "--set", *bad, NULL);
	}
	assert_int_equal(sv.nr, 1);
	strvec_clear(&sv);
}

static void test_cpus(void **state)
{
	/* cpus: the CPUs a valid list names, one bit each (such a list is
	 * refused on a machine that does not let pgbuild run on all of them:
	 * "no CPU N here") */
	static const struct { const char *list; int ret, count; unsigned cpus; } t[] = {
		{ "0", 0, 1, 0x1 }, { "0-1,3", 0, 3, 0xb }, { "2-2", 0, 1, 0x4 }, { "0,0", 0, 1, 0x1 },
		{ "", -1, 0, 0 }, { " 1", -1, 0, 0 }, { "+1", -1, 0, 0 }, { "-1", -1, 0, 0 },
		{ "0-1,", -1, 0, 0 }, { "1-", -1, 0, 0 }, { "2-1", -1, 0, 0 }, { "0x1", -1, 0, 0 },
		{ "1e0", -1, 0, 0 }, { "99999999999", -1, 0, 0 }, { "0-1 ", -1, 0, 0 },
	};
	cpu_set_t here;
	(void)state;
	error_set_program("pgbuild", 2);
	assert_int_equal(sched_getaffinity(0, sizeof(here), &here), 0);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		cpu_set_t set;
		int want = t[i].ret;
		for (int c = 0; c < 32; c++)
			if ((t[i].cpus >> c & 1) && !CPU_ISSET(c, &here))
				want = -1;
		capture_begin();
		int ret = servercpu_parse_cpus(t[i].list, &set);
		check_outcome(ret, want, "--cpus", t[i].list, NULL);
		if (ret == 0)
			assert_int_equal(CPU_COUNT(&set), t[i].count);
		else if (t[i].ret == 0)
			print_message("--cpus %s: refused here (not every CPU of it is this "
				      "machine's)\n", t[i].list);
	}
}

/* Every row of the table, in every spelling PostgreSQL accepts, is
 * refused with its reason; the settings a benchmark needs pass. */
static void test_refused_settings(void **state)
{
	static const char *const refused[] = {
		"listen_addresses=127.0.0.1", "LISTEN_ADDRESSES=*", "Listen-Addresses=*", "port=5999",
		"unix_socket_directories=/tmp", "unix_socket_permissions=0777",
		"unix_socket_group=users", "hba_file=/tmp/h", "ident_file=/tmp/i",
		"krb_server_keyfile=/tmp/k", "ssl=on", "ssl_cert_file=/tmp/c", "SSL_CIPHERS=x",
		"ssl_passphrase_command=/bin/true", "shared_preload_libraries=pg_stat_statements",
		"local_preload_libraries=x", "session_preload_libraries=x", "dynamic_library_path=/tmp",
		"jit_provider=x", "archive_library=x", "archive_command=/bin/true",
		"restore_command=x", "archive_cleanup_command=x", "recovery_end_command=x",
		"data_directory=/tmp", "config_file=/tmp/c", "external_pid_file=/tmp/p",
		"log_directory=/tmp", "log_filename=../../x", "stats_temp_directory=/tmp",
		"include=/tmp/x", "include_dir=/tmp", "include-if-exists=/tmp/x",
	};
	static const char *const allowed[] = {
		"fsync=off", "shared_buffers=1GB", "max_connections=200", "autovacuum=off",
		"sslutils.mode=x", "ssl2=x", "portal_x.y=1", "included.x=1", "listen=1",
		"log_min_messages=debug1", "jit=off", "session_replication_role=replica",
	};
	struct strvec sv = STRVEC_INIT;
	const char *prev = "";
	size_t nrows = 0;
	(void)state;
	error_set_program("pgbuild", 2);
	/* one sorted table; every row canonical with a reason */
	for (const struct cli_guc_refused *r = cli_guc_refused; r->name; r++, nrows++) {
		char *canon = cli_guc_canonical(r->name, strlen(r->name));
		assert_true(strcmp(prev, r->name) < 0);
		assert_string_equal(canon, r->name);
		assert_true(r->reason < CLI_GUC_NREASONS);
		assert_non_null(cli_guc_reasons[r->reason]);
		assert_ptr_equal(cli_guc_refusal(r->name), r);
		free(canon);
		prev = r->name;
	}
	assert_true(nrows >= 25);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		const char *eq = strchr(refused[i], '=');
		char *name = cli_guc_canonical(refused[i], (size_t)(eq - refused[i]));
		const struct cli_guc_refused *r = cli_guc_refusal(name);
		char *want;
		assert_non_null(r);
		want = xasprintf("pgbuild: error: invalid value \"%s\" for --set: %s %s\n", refused[i],
				 name, cli_guc_reasons[r->reason]);
		capture_begin();
		assert_int_equal(cli_parse_setting("--set", refused[i], &sv), -1);
		check_outcome(-1, -1, "--set", refused[i], want);
		free(want);
		free(name);
	}
	assert_int_equal(sv.nr, 0);
	/* the reasons as the messages give them */
	assert_int_equal(cli_guc_refusal("listen_addresses")->reason, CLI_GUC_OPENS);
	assert_non_null(strstr(cli_guc_reasons[CLI_GUC_OPENS], "opens the cluster to other users"));
	assert_int_equal(cli_guc_refusal("shared_preload_libraries")->reason, CLI_GUC_LOADS);
	assert_string_equal(cli_guc_reasons[CLI_GUC_LOADS], "loads code into the server");
	assert_int_equal(cli_guc_refusal("data_directory")->reason, CLI_GUC_MOVES);
	assert_non_null(strstr(cli_guc_reasons[CLI_GUC_MOVES], "moves the server's files"));
	assert_int_equal(cli_guc_refusal("archive_command")->reason, CLI_GUC_RUNS);
	assert_int_equal(cli_guc_refusal("include_if_exists")->reason, CLI_GUC_READS);
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
		capture_begin();
		assert_int_equal(cli_parse_setting("--set", allowed[i], &sv), 0);
		check_outcome(0, 0, "--set", "", NULL);
	}
	/* kept in the server's spelling */
	capture_begin();
	assert_int_equal(cli_parse_setting("--set", "Shared-Buffers=1GB", &sv), 0);
	check_outcome(0, 0, "--set", "", NULL);
	assert_string_equal(sv.v[sv.nr - 1], "shared_buffers=1GB");
	assert_string_equal(sv.v[0], "fsync=off");
	/* not a setting name */
	for (const char *const *bad = (const char *const[]){ "a b=1", "x;y=1", "'port'=1", NULL };
	     *bad; bad++) {
		capture_begin();
		assert_int_equal(cli_parse_setting("--set", *bad, &sv), -1);
		check_outcome(-1, -1, "--set", *bad, NULL);
	}
	strvec_clear(&sv);
}

/* words joined with '|', for comparing a split in one string */
static char *joined(const struct strvec *v)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < v->nr; i++)
		strbuf_addf(&sb, "%s%s", i ? "|" : "", v->v[i]);
	return strbuf_detach(&sb, NULL);
}

/* PGOPTIONS split as pg_split_opts splits it: blanks (isspace), a
 * backslash taking the next character, a last one dropped. */
static void test_pgoptions_split(void **state)
{
	static const struct { const char *in, *words; } t[] = {
		{ "", "" },
		{ "   ", "" },
		{ "-c a=b", "-c|a=b" },
		{ "  -c\ta=b\n--x=y  ", "-c|a=b|--x=y" },
		{ "-c\va=b\f-F\r-i", "-c|a=b|-F|-i" },
		{ "-c a=b\\ c", "-c|a=b c" },
		{ "-c\\ a=b", "-c a=b" },
		{ "a\\\\b", "a\\b" },
		{ "a\\", "a" },
		{ "\\ ", " " },
		{ "-c\\\ta=1", "-c\ta=1" },
		{ "'-c a=b'", "'-c|a=b'" },      /* no quoting */
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct strvec w = STRVEC_INIT;
		char *got;
		cli_guc_split_options(t[i].in, &w);
		got = joined(&w);
		if (strcmp(got, t[i].words))
			fail_msg("split \"%s\": got \"%s\", want \"%s\"", t[i].in, got, t[i].words);
		free(got);
		strvec_clear(&w);
	}
}

/* The switches as process_postgres_switches takes them: every setting
 * they set, and what the backend could not read. */
static void test_pgoptions_switches(void **state)
{
	static const struct { const char *in; int ret; const char *settings, *why; } t[] = {
		{ "", 0, "", NULL },
		{ "-c work_mem=1MB", 0, "work_mem=1MB", NULL },
		{ "-cwork_mem=1MB", 0, "work_mem=1MB", NULL },
		{ "--work-mem=1MB", 0, "work_mem=1MB", NULL },
		{ "--Shared-Preload-Libraries=x", 0, "shared_preload_libraries=x", NULL },
		{ "--shared_preload_libraries=x", 0, "shared_preload_libraries=x", NULL },
		/* grouped: a switch without argument, then -c (its argument the
		 * rest of the word, else the next word) */
		{ "-Fc shared_preload_libraries=x", 0, "fsync=false|shared_preload_libraries=x", NULL },
		{ "-Fcshared_preload_libraries=x", 0, "fsync=false|shared_preload_libraries=x", NULL },
		{ "-iFc a=1", 0, "listen_addresses=*|fsync=false|a=1", NULL },
		{ "-F-shared-preload-libraries=x", 0, "fsync=false|shared_preload_libraries=x", NULL },
		{ "-F- shared_preload_libraries=x", 0, "fsync=false|shared_preload_libraries=x", NULL },
		/* -B takes an argument: "c" is it, and the next word no switch */
		{ "-Bc shared_preload_libraries=x", -1, "shared_buffers=c",
		  "\"shared_preload_libraries=x\" is not a switch" },
		{ "-B 128MB -N 5 -S 4MB -W 1", 0,
		  "shared_buffers=128MB|max_connections=5|work_mem=4MB|post_auth_delay=1", NULL },
		{ "-p5999", 0, "port=5999", NULL },
		{ "-h 0.0.0.0 -k /tmp -l", 0,
		  "listen_addresses=0.0.0.0|unix_socket_directories=/tmp|ssl=true", NULL },
		{ "-D /tmp/d", 0, "data_directory=/tmp/d", NULL },
		{ "-e -O -P -s", 0, "datestyle=euro|allow_system_table_mods=true|"
		  "ignore_system_indexes=true|log_statement_stats=true", NULL },
		{ "-d 5 -f s -t pa -C x -n -T -E -j -b -r f -v 3", 0, "", NULL },
		{ "-c a\\ b=1", 0, "a b=1", NULL },     /* the server says "a b" is none */
		/* the name " shared_preload_libraries": the server knows none */
		{ "-c\\ shared_preload_libraries=x", 0, " shared_preload_libraries=x", NULL },
		{ "-c a=b\\ -c\\ shared_preload_libraries=x", 0, "a=b -c shared_preload_libraries=x", NULL },
		{ "-c", -1, "", "-c needs an argument" },
		{ "-c fsync", -1, "", "-c fsync needs a value (NAME=VALUE)" },
		{ "--fsync", -1, "", "--fsync needs a value (NAME=VALUE)" },
		{ "-x", -1, "", "-x is not a switch of the server" },
		{ "fsync=off", -1, "", "\"fsync=off\" is not a switch" },
		{ "-", -1, "", "\"-\" is not a switch" },
		{ "-c a=1 --", 0, "a=1", NULL },
		{ "-- -c a=1", -1, "", "\"-c\" is not a switch" },
		/* permuted: the switches after a stray word are read too */
		{ "x -c shared_preload_libraries=y", -1, "shared_preload_libraries=y",
		  "\"x\" is not a switch" },
		/* an unknown switch stops the backend: nothing after it is read */
		{ "-c a=1 -x -c b=2", -1, "a=1", "-x is not a switch of the server" },
		{ "x -x", -1, "", "\"x\" is not a switch" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct strvec set = STRVEC_INIT;
		struct strbuf why = STRBUF_INIT;
		int ret = cli_guc_read_options(t[i].in, &set, &why);
		char *got = joined(&set);
		if (ret != t[i].ret || strcmp(got, t[i].settings) ||
		    strcmp(why.buf, t[i].why ? t[i].why : ""))
			fail_msg("\"%s\": got %d \"%s\" (%s), want %d \"%s\" (%s)", t[i].in, ret, got,
				 why.buf, t[i].ret, t[i].settings, t[i].why ? t[i].why : "");
		free(got);
		strvec_clear(&set);
		strbuf_release(&why);
	}
}

/* PGOPTIONS, which libpq sends with every connection: its settings too,
 * read as the backend reads them; what it cannot read is refused. */
static void test_pgoptions(void **state)
{
	static const struct { const char *env; int ret; const char *name; } t[] = {
		{ "", 0, NULL },
		{ "-c work_mem=1MB --statement-timeout=5s", 0, NULL },
		{ "-c session_preload_libraries=x", -1, "session_preload_libraries" },
		{ "-csession_preload_libraries=x", -1, "session_preload_libraries" },
		{ "--Local-Preload-Libraries=x", -1, "local_preload_libraries" },
		{ "--shared_preload_libraries=x", -1, "shared_preload_libraries" },
		{ "--shared-preload-libraries=x", -1, "shared_preload_libraries" },
		{ "-Fc shared_preload_libraries=x", -1, "shared_preload_libraries" },
		{ "-Fcshared_preload_libraries=x", -1, "shared_preload_libraries" },
		{ "-F-session_preload_libraries=x", -1, "session_preload_libraries" },
		{ "-c work_mem=1MB  -c\tdynamic_library_path=/tmp", -1, "dynamic_library_path" },
		{ "-i", -1, "listen_addresses" },
		{ "-Fi", -1, "listen_addresses" },
		{ "-p 5999", -1, "port" },
		{ "-k /tmp", -1, "unix_socket_directories" },
		{ "-l", -1, "ssl" },
		{ "-h *", -1, "listen_addresses" },
		/* a refused setting is named before what cannot be read */
		{ "-c shared_preload_libraries=x junk", -1, "shared_preload_libraries" },
		{ "junk -c shared_preload_libraries=x", -1, "shared_preload_libraries" },
		{ "-c a\\ b=1 -c jit=off", 0, NULL },  /* "a b": the server refuses it */
		{ "-B 100 -F", 0, NULL },
	};
	static const char *const unread[] = {
		"-c", "-Bc shared_preload_libraries=x", "fsync=off", "-x", "-c fsync",
	};
	(void)state;
	error_set_program("pgbuild", 2);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *want = NULL;
		assert_int_equal(setenv("PGOPTIONS", t[i].env, 1), 0);
		if (t[i].name)
			want = xasprintf("pgbuild: error: PGOPTIONS=\"%s\": %s %s (libpq sends PGOPTIONS "
					 "with every connection to the servers pgbuild starts); unset it\n",
					 t[i].env, t[i].name,
					 cli_guc_reasons[cli_guc_refusal(t[i].name)->reason]);
		capture_begin();
		check_outcome(cli_guc_check_env(), t[i].ret, "PGOPTIONS", t[i].env, want);
		free(want);
	}
	for (size_t i = 0; i < sizeof(unread) / sizeof(unread[0]); i++) {
		assert_int_equal(setenv("PGOPTIONS", unread[i], 1), 0);
		capture_begin();
		assert_int_equal(cli_guc_check_env(), -1);
		fflush(stderr);
		assert_non_null(strstr(capture_buf, "the server would refuse every connection"));
		check_outcome(-1, -1, "PGOPTIONS", unread[i], NULL);
	}
	assert_int_equal(unsetenv("PGOPTIONS"), 0);
	capture_begin();
	check_outcome(cli_guc_check_env(), 0, "", "", NULL);
}

/* cli_guc_read_conf's settings as "LINE:name=value|..." */
static int conf_collect(const char *name, const char *value, int line, void *ctx)
{
	strvec_pushf(ctx, "%d:%s=%s", line, name, value);
	return 0;
}

/* A postgresql.conf tokenized as guc-file.l does: each setting with its
 * line, and the line the server could not read. */
static void test_conf_tokenizer(void **state)
{
	static const struct { const char *text; size_t len; int ret, line; const char *settings; } t[] = {
#define T(s) s, sizeof(s) - 1
		{ T(""), 0, 1, "" },
		{ T("fsync = off\n"), 0, 2, "1:fsync=off" },
		{ T("fsync off"), 0, 1, "1:fsync=off" },
		{ T("\n# c\n  Work_Mem\t=\t'4MB'  # why\n"), 0, 4, "3:work_mem=4MB" },
		{ T("a = 'it''s'\nb = 'x\\'y'\nc = '\\n\\101\\q'\n"), 0, 4,
		  "1:a=it's|2:b=x'y|3:c=\n" "Aq" },
		{ T("x.y = 1.5e3\nz = -0x1fkB\nw = .5\nv = 10ms\n"), 0, 5,
		  "1:x.y=1.5e3|2:z=-0x1fkB|3:w=.5|4:v=10ms" },
		{ T("d = /tmp/x\n"), -1, 1, "" },            /* unquoted, not a letter first */
		{ T("r = 1.5e\n"), -1, 1, "" },             /* 1.5, then e */
		{ T("h = 0x\n"), 0, 2, "1:h=0x" },           /* 0 and a unit letter */
		{ T("d = a/b:c-d.e\n"), 0, 2, "1:d=a/b:c-d.e" },
		{ T("include 'other.conf'\n"), 0, 2, "1:include=other.conf" },
		{ T("INCLUDE_DIR = 'conf.d'\ninclude_if_exists x\n"), 0, 3,
		  "1:include_dir=conf.d|2:include_if_exists=x" },
		{ T("a = 1\nb\n"), -1, 2, "1:a=1" },          /* no value */
		{ T("a = 1 2\n"), -1, 1, "" },                /* two values */
		{ T("a = 1; b = 2\n"), -1, 1, "" },
		{ T("'a' = 1\n"), -1, 1, "" },
		{ T("a-b = 1\n"), -1, 1, "" },
		{ T("a = 'open\nb = 1\n"), -1, 1, "" },      /* a quote does not span lines */
		{ T("a = 'x' \\\nb = 1\n"), -1, 1, "" },      /* no continuation lines */
		{ T("a = 1\r\nb = 2\r\n"), 0, 3, "1:a=1|2:b=2" },
		{ T("a = 1\fb = 2\n"), -1, 1, "" },
		/* a NUL byte anywhere: in a comment, in a quoted value, at the end */
		{ T("fsync = off # \0\n\nshared_preload_libraries = 'x'\n"), -1, 1, "" },
		{ T("a = 1\nb = 'x\0'\nshared_preload_libraries = 'x'\n"), -1, 2, "" },
		{ T("a = 1\n\0"), -1, 2, "" },
		{ T("a = 'x''"), -1, 1, "" },
#undef T
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct strvec set = STRVEC_INIT;
		struct strbuf why = STRBUF_INIT;
		int line = 0;
		int ret = cli_guc_read_conf(t[i].text, t[i].len, conf_collect, &set, &line, &why);
		char *got = joined(&set);
		if (ret != t[i].ret || strcmp(got, t[i].settings) || (ret < 0 && line != t[i].line) ||
		    (ret < 0) != (why.len > 0))
			fail_msg("case %zu \"%s\": got %d line %d \"%s\" (%s), want %d line %d \"%s\"", i,
				 t[i].text, ret, line, got, why.buf, t[i].ret, t[i].line, t[i].settings);
		free(got);
		strvec_clear(&set);
		strbuf_release(&why);
	}
}

/* A file name in a fresh directory; the directory in *dir (malloced). */
static char *scratch(char **dir, const char *name)
{
	*dir = scratch_dir_make("test-cli-options");
	assert_non_null(*dir);
	return xasprintf("%s/%s", *dir, name);
}

static void test_settings_file(void **state)
{
	char *dir, *conf = scratch(&dir, "temp.conf"), *fifo = xasprintf("%s/fifo", dir);
	char *want;
	const char *good = "# planner\nenable_indexscan = off\n\tenable_bitmapscan off  # no =\n\n";
	const char *open_it = "fsync = off\n# listen_addresses = '*'\n  Listen_Addresses = '*'\n";
	const char *inc = "include_dir 'conf.d'\n";
	(void)state;
	error_set_program("pgbuild", 2);
	assert_int_equal(write_file_atomic(conf, good, strlen(good)), 0);
	capture_begin();
	assert_int_equal(cli_guc_check_file("--temp-config", conf), 0);
	check_outcome(0, 0, "--temp-config", "", NULL);
	/* a refused setting: named with its line and reason */
	assert_int_equal(write_file_atomic(conf, open_it, strlen(open_it)), 0);
	want = xasprintf("pgbuild: error: --temp-config \"%s\", line 3: listen_addresses %s\n", conf,
			 cli_guc_reasons[CLI_GUC_OPENS]);
	capture_begin();
	assert_int_equal(cli_guc_check_file("--temp-config", conf), -1);
	check_outcome(-1, -1, "--temp-config", conf, want);
	free(want);
	assert_int_equal(write_file_atomic(conf, inc, strlen(inc)), 0);
	capture_begin();
	assert_int_equal(cli_guc_check_file("--temp-config", conf), -1);
	check_outcome(-1, -1, "--temp-config", "include_dir", NULL);
	/* a FIFO is refused, never waited on; a missing file is one error */
	assert_int_equal(mkfifo(fifo, 0600), 0);
	capture_begin();
	assert_int_equal(cli_guc_check_file("--temp-config", fifo), -1);
	check_outcome(-1, -1, "--temp-config", fifo, NULL);
	unlink(fifo);
	capture_begin();
	assert_int_equal(cli_guc_check_file("--temp-config", fifo), -1);
	check_outcome(-1, -1, "--temp-config", fifo, NULL);
	unlink(conf);
	assert_int_equal(rmdir(dir), 0);
	free(fifo);
	free(conf);
	free(dir);
}

/* Output paths: the directory must exist and take a file; nothing is left. */
static void test_output_paths(void **state)
{
	char *dir, *file = scratch(&dir, "r.json");
	char *sub = xasprintf("%s/sub", dir), *missing = xasprintf("%s/no/r.json", dir);
	char *under_file = xasprintf("%s/r.json/x", dir), *deep = xasprintf("%s/a/b/c", dir);
	char *want;
	(void)state;
	error_set_program("pgbuild", 2);
	assert_int_equal(mkdir(sub, 0755), 0);
	/* good: a new file, an existing file, a new or existing directory */
	capture_begin();
	assert_int_equal(cli_check_output_file("--json", file), 0);
	assert_int_equal(write_file_atomic(file, "{}\n", 3), 0);
	assert_int_equal(cli_check_output_file("--json", file), 0);
	assert_int_equal(cli_check_output_dir("--prefix", sub), 0);
	assert_int_equal(cli_check_output_dir("--prefix", deep), 0);
	check_outcome(0, 0, "--json", "", NULL);
	/* bad: one line each naming the option, the path and why */
	want = xasprintf("pgbuild: error: --json \"%s\": directory %s/no does not exist\n", missing, dir);
	capture_begin();
	assert_int_equal(cli_check_output_file("--json", missing), -1);
	check_outcome(-1, -1, "--json", missing, want);
	free(want);
	want = xasprintf("pgbuild: error: --junit \"%s\": is a directory, expected a file name\n", sub);
	capture_begin();
	assert_int_equal(cli_check_output_file("--junit", sub), -1);
	check_outcome(-1, -1, "--junit", sub, want);
	free(want);
	capture_begin();
	assert_int_equal(cli_check_output_file("--html", "x/"), -1);
	check_outcome(-1, -1, "--html", "x/", NULL);
	capture_begin();
	assert_int_equal(cli_check_output_file("--json", ""), -1);
	check_outcome(-1, -1, "--json", "\"\"", NULL);
	want = xasprintf("pgbuild: error: --json \"%s\": %s is not a directory\n", under_file, file);
	capture_begin();
	assert_int_equal(cli_check_output_file("--json", under_file), -1);
	check_outcome(-1, -1, "--json", under_file, want);
	free(want);
	want = xasprintf("pgbuild: error: --prefix \"%s\": exists and is not a directory\n", file);
	capture_begin();
	assert_int_equal(cli_check_output_dir("--prefix", file), -1);
	check_outcome(-1, -1, "--prefix", file, want);
	free(want);
	capture_begin();
	assert_int_equal(cli_check_output_dir("--workdir", under_file), -1);
	check_outcome(-1, -1, "--workdir", under_file, NULL);
	/* "-" is --json's alone (CLI_OUT_JSON); a value that starts with "-"
	 * is the next option getopt took as the path */
	capture_begin();
	assert_int_equal(cli_check_output_file("--html", "-"), -1);
	check_outcome(-1, -1, "--html", "-", "pgbuild: error: --html \"-\": the standard output "
		      "is an output of --json only: expected a file name (./- for one named -)\n");
	capture_begin();
	assert_int_equal(cli_check_output_file("--json", "--units"), -1);
	check_outcome(-1, -1, "--json", "--units", "pgbuild: error: --json \"--units\": an "
		      "option where a file name was expected (./--units for one of that name)\n");
	capture_begin();
	assert_int_equal(cli_check_output_dir("--prefix", "-x"), -1);
	check_outcome(-1, -1, "--prefix", "-x", "pgbuild: error: --prefix \"-x\": an option "
		      "where a directory name was expected (./-x for one of that name)\n");
	assert_false(path_exists("-") || path_exists("--units") || path_exists("-x"));
	/* a directory that takes no file: /proc's top level refuses one (even root) */
	capture_begin();
	assert_int_equal(cli_check_output_file("--json", "/proc/r.json"), -1);
	check_outcome(-1, -1, "--json", "/proc/r.json", NULL);
	/* the list: NULL paths skipped, the first bad one reported, two files in one */
	{
		char *same = xasprintf("%s/./r.json", dir);
		const struct cli_output good[] = {
			CLI_OUT_FILE("--json", file), CLI_OUT_FILE("--junit", NULL),
			CLI_OUT_DIR("--workdir", sub), CLI_OUT_END
		};
		const struct cli_output dup[] = {
			CLI_OUT_FILE("--json", file), CLI_OUT_FILE("--junit", same), CLI_OUT_END
		};
		const struct cli_output bad[] = {
			CLI_OUT_FILE("--json", file), CLI_OUT_FILE("--junit", missing), CLI_OUT_END
		};
		capture_begin();
		assert_int_equal(cli_check_outputs(good), 0);
		check_outcome(0, 0, "", "", NULL);
		want = xasprintf("pgbuild: error: --junit \"%s\": the same file as --json \"%s\"\n",
				 same, file);
		capture_begin();
		assert_int_equal(cli_check_outputs(dup), -1);
		check_outcome(-1, -1, "--junit", same, want);
		free(want);
		capture_begin();
		assert_int_equal(cli_check_outputs(bad), -1);
		check_outcome(-1, -1, "--junit", missing, NULL);
		free(same);
	}
	/* no probe file, no directory made: only what the test made is there */
	assert_false(path_exists(deep));
	{
		DIR *d = opendir(dir);
		struct dirent *e;
		int n = 0;
		assert_non_null(d);
		while ((e = readdir(d)))
			n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
		closedir(d);
		assert_int_equal(n, 2);         /* r.json and sub */
	}
	unlink(file);
	rmdir(sub);
	assert_int_equal(rmdir(dir), 0);
	free(file);
	free(sub);
	free(missing);
	free(under_file);
	free(deep);
	free(dir);
}

static void test_vocabulary(void **state)
{
	struct strvec wl = STRVEC_INIT;
	int n = 0;
	double d = 0;
	(void)state;
	error_set_program("pgbuild", 2);
	/* one range each, whatever the command */
	capture_begin();
	assert_int_equal(cli_parse_clients("10000", &n), 0);
	check_outcome(0, 0, "--clients", "", NULL);
	capture_begin();
	assert_int_equal(cli_parse_clients("10001", &n), -1);
	check_outcome(-1, -1, "--clients", "10001", NULL);
	capture_begin();
	assert_int_equal(cli_parse_jobs("1025", &n), -1);
	check_outcome(-1, -1, "--jobs", "1025", NULL);
	capture_begin();
	assert_int_equal(cli_parse_duration("0.25", &d), 0);
	check_outcome(0, 0, "--duration", "", NULL);
	assert_true(d == 0.25);
	/* --pairs: one parser, one message, with or without auto */
	{
		static const struct {
			const char *arg;
			int with_auto;  /* the command takes auto */
			int ret, value, is_auto;
			const char *err;
		} t[] = {
			{ "9", 1, 0, 9, 0, NULL },
			{ "3", 1, 0, 3, 0, NULL },      /* refused later by preflight_pairs */
			{ "auto", 1, 0, -1, 1, NULL },
			{ "1000", 0, 0, 1000, -1, NULL },
			{ "0", 1, -1, -1, -1, "pgbuild: error: invalid value \"0\" for --pairs: "
			  "expected an integer from 6 to 1000, or auto\n" },
			{ "1001", 1, -1, -1, -1, "pgbuild: error: invalid value \"1001\" for --pairs: "
			  "expected an integer from 6 to 1000, or auto\n" },
			{ "0x10", 1, -1, -1, -1, "pgbuild: error: invalid value \"0x10\" for --pairs: "
			  "expected a decimal integer from 6 to 1000, or auto\n" },
			{ "auto", 0, -1, -1, -1, "pgbuild: error: invalid value \"auto\" for --pairs: "
			  "expected an integer from 6 to 1000\n" },
			{ "0", 0, -1, -1, -1, "pgbuild: error: invalid value \"0\" for --pairs: "
			  "expected an integer from 6 to 1000\n" },
		};
		for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
			int v = -1, a = -1;
			capture_begin();
			int ret = cli_parse_pairs(t[i].arg, &v, t[i].with_auto ? &a : NULL);
			check_outcome(ret, t[i].ret, "--pairs", t[i].arg, t[i].err);
			assert_int_equal(v, t[i].value);
			assert_int_equal(a, t[i].is_auto);
		}
	}
	/* -W: comma-separated and repeatable, every item checked */
	capture_begin();
	assert_int_equal(cli_parse_workloads("select-only,tpcb", &wl), 0);
	assert_int_equal(cli_parse_workloads("select1", &wl), 0);
	check_outcome(0, 0, "--workload", "", NULL);
	assert_int_equal(wl.nr, 3);
	assert_string_equal(wl.v[2], "select1");
	capture_begin();
	assert_int_equal(cli_parse_workloads("tpcb,selectonly", &wl), -1);
	check_outcome(-1, -1, "workload", "selectonly",
		      "pgbuild: error: unknown workload \"selectonly\" (did you mean "
		      "\"select-only\"?): expected " WORKLOADS_BENCH "\n");
	capture_begin();
	assert_int_equal(cli_parse_workloads(",", &wl), -1);
	check_outcome(-1, -1, "--workload", ",", NULL);
	strvec_clear(&wl);
	/* the regression suite trains (pgo, bolt, profile); it is no bench
	 * script, so what measures refuses it */
	capture_begin();
	assert_int_equal(cli_parse_training("regress,tpcb", &wl), 0);
	check_outcome(0, 0, "--train", "", NULL);
	assert_int_equal(wl.nr, 2);
	assert_string_equal(wl.v[0], "regress");
	capture_begin();
	assert_int_equal(cli_parse_training("regress,selectonly", &wl), -1);
	check_outcome(-1, -1, "workload", "selectonly", NULL);
	capture_begin();
	assert_int_equal(cli_parse_workloads("regress", &wl), -1);
	check_outcome(-1, -1, "workload", "regress", NULL);
	strvec_clear(&wl);
}

/* The short options cli_getopt accepts are exactly the table's letters. */
static void test_getopt_table(void **state)
{
	static const struct option opts[] = {
		CLI_OPT_WORKLOAD,
		CLI_OPT_JOBS,
		CLI_OPT_QUIET,
		{ "pairs", required_argument, NULL, OPT_PAIRS },
		CLI_OPT_HELP,
		CLI_OPT_END
	};
	char *argv[] = { "x", "-W", "tpcb", "-qj4", "--pairs=7", "-T", "5", "arg", NULL };
	int c, seen[4] = { 0 };
	FILE *saved = stderr;
	char *err = NULL;
	size_t errlen = 0;
	(void)state;
	stderr = open_memstream(&err, &errlen);
	optind = 1;
	opterr = 1;
	while ((c = cli_getopt(8, argv, opts)) != -1) {
		if (c == 'W') { assert_string_equal(optarg, "tpcb"); seen[0]++; }
		else if (c == 'q') seen[1]++;
		else if (c == 'j') { assert_string_equal(optarg, "4"); seen[2]++; }
		else if (c == OPT_PAIRS) { assert_string_equal(optarg, "7"); seen[3]++; }
		else assert_int_equal(c, '?');   /* -T is not in this table */
	}
	fclose(stderr);
	stderr = saved;
	assert_int_equal(seen[0] + seen[1] + seen[2] + seen[3], 4);
	/* one error of ours, getopt silent (opterr is cleared) */
	assert_non_null(strstr(err, "error: unknown option \"-T\" for pgbuild\n"));
	assert_null(strstr(err, "invalid option"));
	free(err);
	/* the rows of the vocabulary */
	assert_string_equal(((struct option)CLI_OPT_WORKLOAD).name, "workload");
	assert_int_equal(((struct option)CLI_OPT_CLIENTS).val, 'c');
	assert_int_equal(((struct option)CLI_OPT_DURATION).val, 'T');
	assert_int_equal(((struct option)CLI_OPT_SCALE).val, 's');
	assert_int_equal(((struct option)CLI_OPT_JOBS).val, 'j');
}

/* A spelling whose meaning moved is refused with the one to write, where
 * the table has that one and not the old; elsewhere it is unknown. */
static void test_moved_spellings(void **state)
{
	static const struct option reads[] = { CLI_OPT_INSTALL, CLI_OPT_END };
	static const struct option installs[] = { CLI_OPT_PREFIX, CLI_OPT_END };
	static const struct option both[] = { CLI_OPT_INSTALL, CLI_OPT_PREFIX, CLI_OPT_END };
	static const struct option sens[] = {
		{ "low-install", required_argument, NULL, OPT_LOW_INSTALL },
		{ "high-install", required_argument, NULL, OPT_HIGH_INSTALL }, CLI_OPT_END
	};
	static const struct {
		const char *word;
		const struct option *table;
		const char *want;
	} cases[] = {
		{ "--prefix", reads, "--prefix names where a command installs; the installed "
		  "PostgreSQL to use is --install DIR" },
		{ "--prefix=/x", reads, "the installed PostgreSQL to use is --install DIR" },
		{ "--out", both, "--out is now --prefix DIR, where a command installs (and the "
		  "installed PostgreSQL it reads is --install DIR)" },
		{ "--out", installs, "unknown option \"--out\"" },
		{ "--low-prefix", sens, "--low-prefix names an installed PostgreSQL, which is "
		  "--low-install DIR" },
		{ "--high-prefix", sens, "--high-prefix names an installed PostgreSQL, which is "
		  "--high-install DIR" },
		{ "--prefx", installs, "unknown option \"--prefx\" for pgbuild (did you mean "
		  "\"--prefix\"?)" },
	};
	(void)state;
	error_set_program("pgbuild", 2);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		FILE *saved = stderr;
		char *err = NULL;
		size_t errlen = 0;
		stderr = open_memstream(&err, &errlen);
		assert_int_equal(cli_option_error(cases[i].word, cases[i].table), -1);
		fclose(stderr);
		stderr = saved;
		assert_non_null(strstr(err, cases[i].want));
		assert_ptr_equal(strchr(err, '\n'), err + strlen(err) - 1);
		free(err);
	}
}

/* pgbench's letters (cli/pgbench.c), the one parser bench and gate share */
static void test_pgbench_letters(void **state)
{
	struct cli_pgbench p = CLI_PGBENCH_INIT;
	int threads = -1;
	(void)state;
	capture_begin();
	assert_int_equal(cli_pgbench_option(&p, 'S', NULL), 1);
	assert_int_equal(cli_pgbench_option(&p, 'b', "si"), 1);          /* pgbench's prefix */
	assert_int_equal(cli_pgbench_option(&p, 'b', "tpcb-like@3"), 1);
	assert_int_equal(cli_pgbench_option(&p, 'f', "x.sql"), 1);
	assert_int_equal(cli_pgbench_option(&p, 'M', "extended"), 1);
	assert_int_equal(cli_pgbench_option(&p, 'j', "4"), 1);
	assert_int_equal(cli_pgbench_option(&p, 'W', "tpcb"), 0);        /* not one of them */
	check_outcome(0, 0, "", "", NULL);
	assert_int_equal(p.nspecs, 4);
	assert_string_equal(p.specs[0].builtin, "select-only");
	assert_string_equal(p.specs[1].builtin, "simple-update");
	assert_string_equal(p.specs[2].builtin, "tpcb");
	assert_int_equal(p.specs[2].weight, 3);
	assert_string_equal(p.specs[3].file, "x.sql");
	assert_int_equal(p.weighted, 1);
	assert_int_equal(p.protocol, PROTO_EXTENDED);
	/* -j: at most one thread a client, as pgbench */
	assert_int_equal(cli_pgbench_threads(&p, 2, &threads), 0);
	assert_int_equal(threads, 2);
	capture_begin();
	assert_int_equal(cli_pgbench_option(&p, 'M', "binary"), -1);
	check_outcome(-1, -1, "--protocol", "binary", "pgbuild: error: invalid value \"binary\" for "
		      "--protocol: expected simple, extended or prepared\n");
	assert_int_equal(cli_pgbench_option(&p, OPT_THREADS, "3"), 1);
	capture_begin();
	assert_int_equal(cli_pgbench_threads(&p, 8, &threads), PGBUILD_EXIT_ERROR);
	assert_non_null(strstr(capture_end(), "-j 4 and --threads 3 say different things: give one"));
	cli_pgbench_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_int_option),
		cmocka_unit_test(test_number_option),
		cmocka_unit_test(test_list_option),
		cmocka_unit_test(test_seconds_and_int64),
		cmocka_unit_test(test_decimal_scanners),
		cmocka_unit_test(test_cpus),
		cmocka_unit_test(test_refused_settings),
		cmocka_unit_test(test_settings_file),
		cmocka_unit_test(test_pgoptions_split),
		cmocka_unit_test(test_pgoptions_switches),
		cmocka_unit_test(test_pgoptions),
		cmocka_unit_test(test_conf_tokenizer),
		cmocka_unit_test(test_output_paths),
		cmocka_unit_test(test_choice_and_setting),
		cmocka_unit_test(test_vocabulary),
		cmocka_unit_test(test_getopt_table),
		cmocka_unit_test(test_moved_spellings),
		cmocka_unit_test(test_pgbench_letters),
	};
	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
