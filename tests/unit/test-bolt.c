/*
 * test-bolt.c - pgbuild/bolt: the parsers of what llvm-bolt prints (the
 * coverage line, the two dyno-stats blocks, the layout lines, its error
 * line) on real BOLT 15 output captured from runs (tests/unit/data/
 * bolt-optimize.log: `pgbuild bolt`'s optimize step on the BOLT-ready
 * PostgreSQL 15.18 build of tests/pg; bolt-instrument.log: its instrument
 * step; bolt-bad-profile.log: llvm-bolt refusing a profile that is not
 * one; bolt-stale.log: llvm-bolt given the profile of a changed program,
 * tests/t/35's), the staleness decision of a kept profile, and the count sum of an
 * .fdata file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "pgbuild/bolt/bolt.h"
#include "pgbuild/pgbuild.h"

#include "tests/unit/fixture.h"

static void test_dyno_line(void **state)
{
	uint64_t v;
	double ch;
	int has;
	(void)state;
	assert_int_equal(bolt_parse_dyno_line("          1464455493 : executed forward branches",
					      &v, &ch, &has), 0);
	assert_true(v == 1464455493ULL);
	assert_int_equal(has, 0);
	assert_int_equal(bolt_parse_dyno_line("   109044559 : taken forward branches (-79.3%)",
					      &v, &ch, &has), 1);
	assert_true(v == 109044559ULL && has == 1);
	assert_true(ch > -79.31 && ch < -79.29);
	assert_int_equal(bolt_parse_dyno_line("   1603300175 : executed forward branches (+9.5%)",
					      &v, &ch, &has), 0);
	assert_true(ch > 9.49 && ch < 9.51);
	assert_int_equal(bolt_parse_dyno_line("   28980378 : PLT calls (=)", &v, &ch, &has), 7);
	assert_true(has == 1 && ch == 0);
	assert_int_equal(bolt_parse_dyno_line("   0 : taken unknown indirect branches (=)",
					      &v, &ch, &has), 12);
	assert_true(v == 0);
	/* not dyno-stats lines */
	assert_int_equal(bolt_parse_dyno_line("BOLT-INFO: 75678 instructions were shortened",
					      &v, &ch, &has), -1);
	assert_int_equal(bolt_parse_dyno_line("   12 : frobnicated branches", &v, &ch, &has), -1);
	assert_int_equal(bolt_parse_dyno_line("   12 : taken branches (x%)", &v, &ch, &has), -1);
	assert_int_equal(bolt_parse_dyno_line("", &v, &ch, &has), -1);
	assert_int_equal(bolt_parse_dyno_line("   12 taken branches", &v, &ch, &has), -1);
}

static void test_optimize_log(void **state)
{
	char *log = fixture("bolt-optimize.log");
	struct bolt_stats st;
	(void)state;
	assert_int_equal(bolt_parse_stats(log, &st), 0);
	assert_int_equal(st.functions_profiled, 2398);
	assert_int_equal(st.functions, 13627);
	assert_true(st.profiled_percent > 17.59 && st.profiled_percent < 17.61);
	assert_int_equal(st.have_dyno, 1);
	assert_true(st.before[0] == 1260909030ULL);        /* executed forward branches */
	assert_true(st.after[0] == 1367939336ULL);
	assert_true(st.before[8] == 12703656869ULL);       /* executed instructions */
	assert_true(st.after[8] == 12551118429ULL);
	assert_true(st.change[8] > -1.21 && st.change[8] < -1.19);
	assert_true(st.after[14] == 278074441ULL);         /* taken branches */
	assert_true(st.change[14] > -65.71 && st.change[14] < -65.69);
	assert_true(st.change[5] == 0 && st.after[5] == st.before[5]);  /* calls (=) */
	assert_true(st.before[17] == 1595385450ULL);       /* all conditional branches */
	assert_int_equal(st.reordered_functions, 1797);
	assert_int_equal(st.hot_bytes, 491897);
	assert_int_equal(st.cold_bytes, 845951);
	assert_int_equal(st.build_id_patched, 1);
	free(log);
}

/* a profile of another build of the code: BOLT's stale counts */
static void test_stale_log(void **state)
{
	char *log = fixture("bolt-stale.log");
	struct bolt_stats st;
	(void)state;
	assert_int_equal(bolt_parse_stats(log, &st), 0);
	assert_int_equal(st.functions_profiled, 4);
	assert_int_equal(st.stale_functions, 1);
	assert_true(st.stale_samples == 2648000 && st.samples == 2673013);
	free(log);
	/* a profile that fits says nothing of staleness */
	log = fixture("bolt-optimize.log");
	assert_int_equal(bolt_parse_stats(log, &st), 0);
	assert_int_equal(st.stale_functions, 0);
	assert_true(st.stale_samples == -1 && st.samples == -1);
	free(log);
}

static void test_instrument_log(void **state)
{
	char *log = fixture("bolt-instrument.log");
	struct bolt_stats st;
	(void)state;
	/* a rewrite without a profile still prints the coverage line */
	assert_int_equal(bolt_parse_stats(log, &st), 0);
	assert_int_equal(st.functions_profiled, 0);
	assert_int_equal(st.functions, 13627);
	assert_int_equal(st.have_dyno, 0);
	assert_int_equal(st.reordered_functions, -1);
	free(log);
}

static void test_refused(void **state)
{
	char *log = fixture("bolt-bad-profile.log");
	struct bolt_stats st;
	char *line;
	(void)state;
	assert_int_equal(bolt_parse_stats(log, &st), -1);
	assert_int_equal(st.functions, -1);
	line = bolt_error_line(log);
	assert_string_equal(line, "BOLT-ERROR: 'cannot pre-process profile': Input/output error.");
	free(line);
	line = bolt_error_line("/usr/lib/llvm-15/bin/llvm-bolt: 'x': The file was not recognized "
			       "as a valid object file.\n\n");
	assert_non_null(strstr(line, "not recognized"));
	free(line);
	line = bolt_error_line("");
	assert_string_equal(line, "(no output)");
	free(line);
}

static void test_truncated_dyno(void **state)
{
	char *log = fixture("bolt-optimize.log");
	char *cut = strstr(log, "(+8.5%)");
	struct bolt_stats st;
	(void)state;
	/* the second block cut after its first line: no dyno-stats */
	assert_non_null(cut);
	cut[strlen("(+8.5%)")] = '\0';
	assert_int_equal(bolt_parse_stats(log, &st), 0);
	assert_int_equal(st.have_dyno, 0);
	free(log);
}

static void test_stats_json(void **state)
{
	char *log = fixture("bolt-optimize.log");
	struct bolt_stats st;
	struct strbuf sb = STRBUF_INIT;
	struct json_writer jw = JSON_WRITER_INIT(&sb);
	struct json_value *v;
	const struct json_value *d;
	(void)state;
	bolt_parse_stats(log, &st);
	json_object_begin(&jw);
	bolt_stats_json(&jw, &st);
	json_object_end(&jw);
	v = json_parse(sb.buf, sb.len, NULL);
	assert_non_null(v);
	assert_int_equal((long)json_get_num(json_get(v, "coverage"), "functions_with_profile", 0), 2398);
	d = json_get(v, "dyno_stats");
	assert_true(json_get_num(json_get(d, "before"), "executed_forward_branches", 0) == 1260909030.0);
	assert_true(json_get_num(json_get(d, "after"), "plt_calls", 0) == 23504291.0);
	assert_true(json_get_num(json_get(d, "change_percent"), "taken_forward_branches", 0) < -80.3);
	assert_int_equal(json_get(json_get(v, "layout"), "build_id_patched")->u.boolean, 1);
	json_free(v);
	strbuf_release(&sb);
	free(log);
}

/* A manifest as bolt/train.c writes it. */
static struct json_value *manifest(const char *sha, const char *wl, double dur)
{
	char *t = xasprintf("{\"input_sha256\":\"%s\",\"workloads\":\"%s\",\"duration\":%g,"
			    "\"clients\":2,\"scale\":1}", sha, wl, dur);
	struct json_value *v = json_parse(t, strlen(t), NULL);
	free(t);
	assert_non_null(v);
	return v;
}

static void test_staleness(void **state)
{
	const char *A = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
	const char *B = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
	struct bolt_train_key k = { A, "select-only,tpcb", 5, 2, 1, "" };
	unsigned all = BOLT_CHECK_INPUT | BOLT_CHECK_WORKLOADS | BOLT_CHECK_TRAINING;
	struct json_value *m = manifest(A, "select-only,tpcb", 5);
	struct strbuf why = STRBUF_INIT;
	(void)state;

	assert_int_equal(bolt_profile_check(m, &k, all, &why), 1);
	assert_string_equal(why.buf, "");
	/* the input binary changed */
	k.input_sha256 = B;
	assert_int_equal(bolt_profile_check(m, &k, all, &why), 0);
	assert_string_equal(why.buf, "the input binary changed (sha256 bbbbbbbbbbbb... now, "
			    "aaaaaaaaaaaa... when trained)");
	strbuf_reset(&why);
	/* ... also when only the input is compared (a given --profile) */
	assert_int_equal(bolt_profile_check(m, &k, BOLT_CHECK_INPUT, &why), 0);
	strbuf_reset(&why);
	k.input_sha256 = A;
	/* the workloads changed (order counts: one cumulative session) */
	k.workloads = "tpcb,select-only";
	assert_int_equal(bolt_profile_check(m, &k, all, &why), 0);
	assert_string_equal(why.buf, "the workloads changed (trained on select-only,tpcb; now "
			    "tpcb,select-only)");
	strbuf_reset(&why);
	/* ... not compared for a --profile given without -W */
	assert_int_equal(bolt_profile_check(m, &k, BOLT_CHECK_INPUT, &why), 1);
	k.workloads = "select-only,tpcb";
	/* the training changed */
	k.duration = 20;
	assert_int_equal(bolt_profile_check(m, &k, all, &why), 0);
	assert_non_null(strstr(why.buf, "the training changed (trained 5 s per workload"));
	strbuf_reset(&why);
	assert_int_equal(bolt_profile_check(m, &k, BOLT_CHECK_INPUT | BOLT_CHECK_WORKLOADS, &why), 1);
	k.duration = 5;
	/* another --set: the training changed too */
	k.settings = "shared_buffers=1GB";
	assert_int_equal(bolt_profile_check(m, &k, all, &why), 0);
	assert_string_equal(why.buf, "the training settings changed (trained with \"\"; now "
			    "\"shared_buffers=1GB\")");
	strbuf_reset(&why);
	k.settings = "";
	assert_int_equal(bolt_profile_check(m, &k, all, &why), 1);
	/* no manifest: never current */
	assert_int_equal(bolt_profile_check(NULL, &k, all, &why), 0);
	assert_non_null(strstr(why.buf, "no manifest"));
	json_free(m);
	strbuf_release(&why);
}

static void test_fdata_count(void **state)
{
	char path[] = "/tmp/test-bolt-XXXXXX";
	int fd = mkstemp(path);
	const char *text = "1 _init/1 e 1 _init/1 12 0 1\n"
			   "1 toast_fetch_datum/1 b 1 toast_fetch_datum/1 11 0 4\n"
			   "1 f/1 19 1 f/1 1b 2 1234567890123\n";
	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write_all(fd, text, strlen(text)), 0);
	close(fd);
	assert_true(bolt_fdata_count(AT_FDCWD, path) == 1234567890128LL);
	/* read back from the server user's directory: a link is refused */
	{
		char *link = xasprintf("%s.link", path);
		assert_int_equal(symlink(path, link), 0);
		assert_true(bolt_fdata_count(AT_FDCWD, link) == -1);
		unlink(link);
		free(link);
	}
	unlink(path);
	assert_true(bolt_fdata_count(AT_FDCWD, path) == -1);
	assert_string_equal(bolt_manifest_path("/w/profile.fdata"), "/w/profile.fdata.json");
}

/* --bolt-flags: what is a layout flag, and -dyno-stats always there */
static void test_flags(void **state)
{
	struct strvec a = STRVEC_INIT;
	struct bolt_opts o;
	(void)state;
	bolt_opts_init(&o);
	assert_string_equal(bolt_optimize_flags(&o), BOLT_OPTIMIZE_FLAGS);
	o.flags = "-reorder-functions=none";
	assert_string_equal(bolt_optimize_flags(&o), "-reorder-functions=none");
	bolt_opts_release(&o);
	assert_int_equal(bolt_check_flags("f", BOLT_OPTIMIZE_FLAGS), 0);
	assert_int_equal(bolt_check_flags("f", "--reorder-blocks=cache+ -plt=hot"), 0);
	/* an allow-list: names it does not know are refused, even when
	 * harmless-looking; a refused name's longer variants too */
	assert_int_equal(bolt_check_flags("f", "-dyno-stats -output-y"), -1);
	assert_int_equal(bolt_check_flags("f", "-dyno-stats -data-layout-x"), -1);
	assert_int_equal(bolt_check_flags("f", "-runtime-instrumentation-lib=/tmp/x.a"), -1);
	assert_int_equal(bolt_check_flags("f", "-generate-function-order=f -icf=1"), -1);
	assert_int_equal(bolt_check_flags("f", "-function-order=/root/secret"), -1);
	assert_int_equal(bolt_check_flags("f", "-asm-dump"), -1);
	assert_int_equal(bolt_check_flags("f", "-reorder-blocks=nonsense"), -1);
	assert_int_equal(bolt_check_flags("f", "-split-functions -split-all-cold -split-eh -hugify "
					  "-peepholes=all -plt=hot -reorder-functions=cdsort"), 0);
	assert_int_equal(bolt_check_flags("f", ""), -1);
	assert_int_equal(bolt_check_flags("f", "  "), -1);
	assert_int_equal(bolt_check_flags("f", "-"), -1);
	assert_int_equal(bolt_check_flags("f", "--=x"), -1);
	assert_int_equal(bolt_check_flags("f", "-icf=1 split"), -1);
	assert_int_equal(bolt_check_flags("f", "-icf=1 -o"), -1);
	assert_int_equal(bolt_check_flags("f", "--data=p.fdata"), -1);
	assert_int_equal(bolt_check_flags("f", "-instrument"), -1);
	assert_int_equal(bolt_check_flags("f", "-instrumentation-file=x"), -1);
	assert_int_equal(bolt_check_flags("f", "-w=x"), -1);
	assert_int_equal(bolt_check_flags("f", "-print-all"), -1);
	assert_int_equal(bolt_check_flags("f", "--version"), -1);
	bolt_push_flags(&a, "-icf=1");
	assert_int_equal(a.nr, 2);
	assert_string_equal(a.v[1], "-dyno-stats");
	strvec_clear(&a);
	strvec_push(&a, "in");
	bolt_push_flags(&a, "--dyno-stats -icf=1");
	assert_int_equal(a.nr, 3);
	strvec_clear(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dyno_line),
		cmocka_unit_test(test_optimize_log),
		cmocka_unit_test(test_stale_log),
		cmocka_unit_test(test_instrument_log),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_truncated_dyno),
		cmocka_unit_test(test_stats_json),
		cmocka_unit_test(test_staleness),
		cmocka_unit_test(test_fdata_count),
		cmocka_unit_test(test_flags),
	};
	error_set_program("pgbuild", 2);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
