/*
 * test-noise.c - the layout noise floor's arithmetic: the spread of a
 * metric (mean, sample SD, range in percent of the mean), the seeded
 * shuffle (a permutation, the same for one seed, another for another),
 * which words of a link line are its object files, and the floor read
 * back (floor.h): a good file, a floor of another binary, a workload it
 * does not have, malformed files with their messages, and the rule
 * max(repeat, 3 x SD) at its edge both ways.
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
#include <sys/stat.h>
#include <unistd.h>

#include "pgbuild/build/relink.h"
#include "pgbuild/bolt/bolt.h"
#include "pgbuild/metric/metric.h"
#include "pgbuild/noise/floor.h"
#include "pgbuild/noise/noise.h"
#include "pgbuild/pgbuild.h"
#include "wrapper/common/rmtree.h"
#include "wrapper/common/xalloc.h"

static void test_stats(void **state)
{
	const double v[] = { 151620, 152000, 152889, 151900, 152300 };
	struct noise_stats st;
	(void)state;
	noise_stats_of(v, 5, &st);
	assert_int_equal(st.n, 5);
	assert_true(fabs(st.mean - 152141.8) < 1e-6);
	/* sum of squares 934184.8 over n - 1 = 4 */
	assert_true(fabs(st.sd - sqrt(934184.8 / 4)) < 1e-6);
	assert_true(st.min == 151620 && st.max == 152889);
	assert_true(fabs(st.range_pct - 100.0 * 1269 / 152141.8) < 1e-9);
	assert_true(fabs(st.sd_pct - 100 * st.sd / st.mean) < 1e-12);
	assert_true(st.min <= st.mean && st.mean <= st.max);
}

/* Equal values: no spread; one value: SD 0, not NaN. */
static void test_stats_edges(void **state)
{
	const double same[] = { 7, 7, 7 };
	struct noise_stats st;
	(void)state;
	noise_stats_of(same, 3, &st);
	assert_true(st.sd == 0 && st.range_pct == 0 && st.sd_pct == 0 && st.mean == 7);
	noise_stats_of(same, 1, &st);
	assert_true(st.sd == 0 && st.n == 1);
	/* equal values whose sum rounds (0.1 + 0.1 + 0.1 = 0.30000000000000004):
	 * the mean stays inside their range (tests/pg/55 met it on a variant's
	 * instruction count) */
	{
		const double tenth[] = { 0.1, 0.1, 0.1 };
		noise_stats_of(tenth, 3, &st);
		assert_true(st.min <= st.mean && st.mean <= st.max);
		assert_true(st.mean == 0.1);
	}
}

static int is_permutation(const size_t *p, size_t n)
{
	char *seen = calloc(n, 1);
	int ok = 1;
	for (size_t i = 0; i < n; i++) {
		if (p[i] >= n || seen[p[i]])
			ok = 0;
		else
			seen[p[i]] = 1;
	}
	free(seen);
	return ok;
}

static void test_shuffle_seeded(void **state)
{
	enum { N = 700 };
	static size_t a[N], b[N], c[N];
	size_t moved = 0;
	(void)state;
	noise_shuffle(a, N, noise_variant_seed(1, 1));
	noise_shuffle(b, N, noise_variant_seed(1, 1));
	noise_shuffle(c, N, noise_variant_seed(1, 2));
	assert_true(is_permutation(a, N) && is_permutation(c, N));
	assert_memory_equal(a, b, sizeof(a));          /* reproducible */
	assert_memory_not_equal(a, c, sizeof(a));      /* another variant, another order */
	for (size_t i = 0; i < N; i++)
		moved += a[i] != i;
	assert_true(moved > N / 2);                    /* really shuffled */
	/* the same order on every machine: splitmix64 from seed 1, variant 1 */
	assert_true(noise_variant_seed(1, 1) == noise_variant_seed(1, 1));
	assert_true(noise_variant_seed(1, 1) != noise_variant_seed(2, 1));
}

static void test_shuffle_small(void **state)
{
	size_t p[2];
	(void)state;
	noise_shuffle(p, 0, 5);
	noise_shuffle(p, 1, 5);
	assert_int_equal(p[0], 0);
	noise_shuffle(p, 2, 5);
	assert_true(is_permutation(p, 2));
}

/* Objects: words ending in .o that are not -o's or -Xlinker's argument. */
static void test_objects(void **state)
{
	struct strvec argv = STRVEC_INIT;
	size_t *at, out_at, n;
	(void)state;
	strvec_pushl(&argv, "/usr/bin/gcc", "-O2", "access/brin/brin.o", "-Xlinker", "x.o",
		     "main/main.o", "../../src/timezone/pgtz.o", "../../src/port/libpgport_srv.a",
		     "-Wl,--export-dynamic", "-lm", "-o", "postgres", NULL);
	n = relink_objects(&argv, &at, &out_at);
	assert_int_equal(n, 3);
	assert_string_equal(argv.v[at[0]], "access/brin/brin.o");
	assert_string_equal(argv.v[at[1]], "main/main.o");
	assert_string_equal(argv.v[at[2]], "../../src/timezone/pgtz.o");
	assert_string_equal(argv.v[out_at], "postgres");
	free(at);
	strvec_clear(&argv);
}

/* ---------------- the floor read back (floor.h) ---------------- */

static char tmpdir[] = "/tmp/test-noise-floor.XXXXXX";
static char pg_sha[65];

static void write_text(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* A prefix TMP/prefix with a bin/postgres of known bytes. */
static int floor_setup(void **state)
{
	char *p;
	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	p = xasprintf("%s/prefix", tmpdir);
	mkdir(p, 0755);
	free(p);
	p = xasprintf("%s/prefix/bin", tmpdir);
	mkdir(p, 0755);
	free(p);
	p = xasprintf("%s/prefix/bin/postgres", tmpdir);
	write_text(p, "not really postgres, but bytes with a sha256\n");
	if (bolt_file_sha256(p, pg_sha) < 0)
		return -1;
	free(p);
	return 0;
}

static int floor_teardown(void **state)
{
	(void)state;
	return remove_tree(tmpdir) < 0 ? -1 : 0;
}

/* A pgopt-noise.json at path: sha, 5 variants, select-only with the two
 * SDs in percent (a negative one: that metric absent). */
static void write_floor(const char *path, const char *sha, double instr_pct, double cyc_pct)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "{\"postgres_sha256\":\"%s\",\"variants\":[{},{},{},{},{}],"
		    "\"workloads\":{\"select-only\":{", sha);
	if (instr_pct >= 0)
		strbuf_addf(&sb, "\"instructions\":{\"mean\":92000,\"sd_pct\":%.17g}%s", instr_pct,
			    cyc_pct >= 0 ? "," : "");
	if (cyc_pct >= 0)
		strbuf_addf(&sb, "\"cycles_estimate\":{\"mean\":152000,\"sd_pct\":%.17g}", cyc_pct);
	strbuf_addstr(&sb, "}}}\n");
	write_text(path, sb.buf);
	strbuf_release(&sb);
}

static char *floor_path(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

/* The figures of the measured stock floor: cycles SD 0.180%. */
static void test_floor_good(void **state)
{
	char *file = floor_path("good.json"), *pg = floor_path("prefix/bin/postgres");
	char *src = NULL, *want;
	struct strbuf err = STRBUF_INIT;
	struct noise_floor f;
	double sd, res;
	(void)state;

	write_floor(file, pg_sha, 0.00001, 0.180);
	assert_int_equal(noise_floor_load(&f, file, &err), 0);
	assert_int_equal(f.variants, 5);
	assert_int_equal(noise_floor_matches(&f, pg, &err), 1);
	assert_int_equal(noise_floor_sd(&f, "select-only", METRIC_CYCLES, &sd, &err), 0);
	assert_true(fabs(sd - 0.0018) < 1e-15);
	assert_int_equal(noise_floor_sd(&f, "select-only", METRIC_INSTR, &sd, &err), 0);
	assert_true(fabs(sd - 1e-7) < 1e-18);
	res = noise_floor_resolution(&f, "select-only", METRIC_CYCLES, &src);
	assert_true(fabs(res - 3 * 0.0018) < 1e-15);
	want = xasprintf("layout floor: 3 x SD 0.180%% over 5 variants, %s", file);
	assert_string_equal(src, want);
	free(src);
	free(want);
	/* instructions: 3 x 0.00001% is far below the repeat 0.01% */
	res = noise_floor_resolution(&f, "select-only", METRIC_INSTR, &src);
	assert_true(res == 1e-4);
	assert_true(!strncmp(src, "repeat 0.01% (above the layout floor: 3 x SD 0.000%", 51));
	free(src);
	/* no floor: the repeat resolution */
	res = noise_floor_resolution(NULL, "select-only", METRIC_CYCLES, &src);
	assert_true(res == 1e-3);
	assert_string_equal(src, "repeat 0.1%");
	free(src);
	noise_floor_release(&f);
	strbuf_release(&err);
	free(file);
	free(pg);
}

/* What a floor covers (noise --reuse, optimize's found floor): every
 * workload and metric asked, over enough variants; the first miss named.
 * And a command's --noise FILE before its first build. */
static void test_floor_covers(void **state)
{
	char *file = floor_path("covers.json"), *prefix = floor_path("prefix");
	struct strbuf err = STRBUF_INIT;
	struct strvec wl = STRVEC_INIT;
	struct noise_floor f;
	(void)state;

	write_floor(file, pg_sha, -1, 0.180); /* cycles only, 5 variants */
	assert_int_equal(noise_floor_load(&f, file, &err), 0);
	strvec_push(&wl, "select-only");
	assert_int_equal(noise_floor_covers(&f, &wl, METRIC_CYCLES, 5, &err), 1);
	assert_int_equal(noise_floor_covers(&f, &wl, METRIC_CYCLES, 2, &err), 1);
	assert_int_equal(err.len, 0);
	assert_int_equal(noise_floor_covers(&f, &wl, METRIC_CYCLES, 6, &err), 0);
	assert_non_null(strstr(err.buf, "covers.json is over 5 variants, not 6"));
	strbuf_reset(&err);
	assert_int_equal(noise_floor_covers(&f, &wl, METRIC_INSTR | METRIC_CYCLES, 2, &err), 0);
	assert_non_null(strstr(err.buf, "has no select-only figure of instructions"));
	strbuf_reset(&err);
	strvec_push(&wl, "tpcb");
	assert_int_equal(noise_floor_covers(&f, &wl, METRIC_CYCLES, 2, &err), 0);
	assert_non_null(strstr(err.buf, "has no workload tpcb"));
	noise_floor_release(&f);
	/* --noise: none and absent pass; a file needs the baseline given, and
	 * must be of its postgres */
	assert_int_equal(noise_floor_check_given(NULL, NULL, "stock", "x"), 0);
	assert_int_equal(noise_floor_check_given("none", NULL, "stock", "x"), 0);
	assert_int_equal(noise_floor_check_given(file, NULL, "the baseline", "x"),
			 PGBUILD_EXIT_ERROR);
	assert_int_equal(noise_floor_check_given(file, prefix, "the baseline", "x"), 0);
	write_floor(file, "0000000000000000000000000000000000000000000000000000000000000000", -1,
		    0.180);
	assert_int_equal(noise_floor_check_given(file, prefix, "the baseline", "x"),
			 PGBUILD_EXIT_ERROR);
	strvec_clear(&wl);
	strbuf_release(&err);
	free(file);
	free(prefix);
}

/* The per-function spread: NOISE_FLOOR_SDS sample SDs of the self
 * estimates; the document written with it is still a floor its reader
 * loads, and carries explain's "pgbuild-noise" kind. */
static void test_functions(void **state)
{
	struct noise_opts o;
	struct noise_result r;
	struct noise_variant v[3];
	struct noise_functions fns;
	double vals[3] = { 100, 102, 98 }, values[NOISE_NMETRICS * 3];
	struct noise_function f = { .function = "ExecScan", .object = "", .values = vals };
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	struct noise_floor fl;
	char *file = floor_path("functions.json");
	(void)state;
	noise_function_spread(&f, 3);
	assert_true(fabs(f.mean - 100) < 1e-12);
	assert_true(fabs(f.sd - 2) < 1e-12);
	assert_true(fabs(f.spread - 3 * 2) < 1e-12);

	noise_opts_init(&o);
	o.variants = 3;
	o.metrics = METRIC_CYCLES;
	strvec_push(&o.workloads, "select-only");
	memset(&r, 0, sizeof(r));
	memset(v, 0, sizeof(v));
	r.o = &o;
	r.prefix = "/p";
	r.builddir = "/p.build";
	memset(r.sha256, 'a', 64);
	r.counter = "none";
	r.v = v;
	for (int k = 0; k < 3; k++)
		v[k].prefix = "/p.noise/vNN/prefix";
	for (size_t i = 0; i < NOISE_NMETRICS * 3; i++)
		values[i] = 150000 + (double)(i % 3);
	r.values = values;
	fns.v = &f;
	fns.nr = fns.alloc = 1;
	r.fns = &fns;
	noise_json(&r, &sb);
	assert_non_null(strstr(sb.buf, "\"kind\":\"pgbuild-noise\""));
	assert_non_null(strstr(sb.buf, "\"functions\":[{\"function\":\"ExecScan\",\"object\":\"\",\"mean\":100,\"sd\":2,\"spread\":6}]"));
	write_text(file, sb.buf);
	if (noise_floor_load(&fl, file, &err) < 0)
		fail_msg("%s", err.buf);
	noise_floor_release(&fl);
	strvec_clear(&o.workloads);
	strbuf_release(&sb);
	strbuf_release(&err);
	free(file);
}

/* A floor of another binary: not used by default (a note), refused when named. */
static void test_floor_mismatch(void **state)
{
	char *prefix = floor_path("prefix"), *file = floor_path("prefix/pgopt-noise.json");
	char *pg = floor_path("prefix/bin/postgres"), *note = NULL, *src = NULL;
	char other[65];
	struct strbuf err = STRBUF_INIT;
	struct noise_floor f;
	double res;
	(void)state;

	memset(other, 'a', 64);
	other[64] = 0;
	write_floor(file, other, 0.001, 0.2);
	assert_int_equal(noise_floor_load(&f, file, &err), 0);
	assert_int_equal(noise_floor_matches(&f, pg, &err), 0);
	assert_non_null(strstr(err.buf, "was measured on another postgres (sha256 aaaaaaaaaaaa...)"));
	noise_floor_release(&f);
	assert_int_equal(noise_floor_find(&f, NULL, prefix, &note), NOISE_FLOOR_MISMATCH);
	assert_non_null(strstr(note, "no layout floor: "));
	assert_non_null(strstr(note, "the repeat resolution is used"));
	free(note);
	assert_int_equal(noise_floor_find(&f, file, prefix, &note), -1);
	assert_null(note);
	/* the one call: the repeat resolution */
	assert_int_equal(noise_floor_prefix(prefix, "select-only", METRIC_CYCLES, &res, &src), 0);
	assert_true(res == 1e-3);
	assert_string_equal(src, "repeat 0.1%");
	free(src);
	/* the same floor with the right hash: used */
	write_floor(file, pg_sha, 0.001, 0.2);
	assert_int_equal(noise_floor_find(&f, NULL, prefix, &note), NOISE_FLOOR_USED);
	noise_floor_release(&f);
	free(note);
	assert_int_equal(noise_floor_prefix(prefix, "select-only", METRIC_CYCLES, &res, &src), 0);
	assert_true(fabs(res - 0.006) < 1e-15);
	free(src);
	unlink(file);
	assert_int_equal(noise_floor_find(&f, NULL, prefix, &note), NOISE_FLOOR_ABSENT);
	free(note);
	assert_int_equal(noise_floor_find(&f, "none", prefix, &note), NOISE_FLOOR_NONE);
	free(note);
	strbuf_release(&err);
	free(prefix);
	free(file);
	free(pg);
}

/* A workload or metric the floor does not have: an error, and the repeat resolution. */
static void test_floor_missing(void **state)
{
	char *file = floor_path("missing.json"), *src = NULL, *want;
	struct strbuf err = STRBUF_INIT;
	struct noise_floor f;
	double sd, res;
	(void)state;

	write_floor(file, pg_sha, 0.001, -1);
	assert_int_equal(noise_floor_load(&f, file, &err), 0);
	assert_int_equal(noise_floor_sd(&f, "select1", METRIC_INSTR, &sd, &err), -1);
	want = xasprintf("%s has no workload select1", file);
	assert_string_equal(err.buf, want);
	free(want);
	strbuf_reset(&err);
	assert_int_equal(noise_floor_sd(&f, "select-only", METRIC_CYCLES, &sd, &err), -1);
	want = xasprintf("%s has no select-only figure of the cycles estimate", file);
	assert_string_equal(err.buf, want);
	free(want);
	res = noise_floor_resolution(&f, "select1", METRIC_CYCLES, &src);
	assert_true(res == 1e-3);
	want = xasprintf("repeat 0.1%% (%s has no workload select1)", file);
	assert_string_equal(src, want);
	free(want);
	free(src);
	noise_floor_release(&f);
	strbuf_release(&err);
	free(file);
}

/* Malformed files: the file and what was expected. */
static void test_floor_malformed(void **state)
{
	static const struct { const char *text, *msg; } cases[] = {
		{ "{\"postgres_sha256\":", ": not JSON: line 1, column 20: " },
		{ "[1,2]", ": expected a JSON object (a `pgbuild noise` document)" },
		{ "{\"variants\":[{},{}],\"workloads\":{}}",
		  ": expected \"postgres_sha256\", 64 lower-case hex digits" },
		{ "{\"postgres_sha256\":\"%s\",\"variants\":[{}],\"workloads\":{}}",
		  ": expected \"variants\", an array of at least 2 variants (an SD needs two)" },
		{ "{\"postgres_sha256\":\"%s\",\"variants\":[{},{}]}",
		  ": expected \"workloads\", an object of workloads" },
		{ "{\"postgres_sha256\":\"%s\",\"variants\":[{},{}],\"workloads\":{\"tpcb\":3}}",
		  ": workloads.tpcb: expected an object of metrics" },
		{ "{\"postgres_sha256\":\"%s\",\"variants\":[{},{}],\"workloads\":{\"tpcb\":"
		  "{\"cycles_estimate\":{\"sd_pct\":-1}}}}",
		  ": workloads.tpcb.cycles_estimate: expected an object with \"sd_pct\", a number >= 0" },
		{ "{\"postgres_sha256\":\"%s\",\"variants\":[{},{}],\"workloads\":{\"tpcb\":"
		  "{\"instructions\":{\"sd\":1}}}}",
		  ": workloads.tpcb.instructions: expected an object with \"sd_pct\"" },
	};
	char *file = floor_path("bad.json");
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
		struct noise_floor f;
		char *want = xasprintf("%s%s", file, cases[i].msg);
		strbuf_addf(&text, cases[i].text, pg_sha);
		write_text(file, text.buf);
		assert_int_equal(noise_floor_load(&f, file, &err), -1);
		if (strncmp(err.buf, want, strlen(want)))
			fail_msg("case %zu: \"%s\" does not start with \"%s\"", i, err.buf, want);
		assert_null(f.file);
		free(want);
		strbuf_release(&err);
		strbuf_release(&text);
	}
	{
		struct strbuf err = STRBUF_INIT;
		struct noise_floor f;
		char *none = floor_path("no-such.json");
		assert_int_equal(noise_floor_load(&f, none, &err), -1);
		assert_non_null(strstr(err.buf, "cannot read ")); assert_non_null(strstr(err.buf, "no-such.json: No such file or directory"));
		free(none);
		strbuf_release(&err);
	}
	free(file);
}

/* max(repeat, 3 x SD) at its edge, both ways, for both metrics. */
static void test_floor_edge(void **state)
{
	static const struct { unsigned metric; double pct; int floor_wins; } cases[] = {
		{ METRIC_CYCLES, 0.0334, 1 },  /* 3 x 0.0334% = 0.1002% > 0.1% */
		{ METRIC_CYCLES, 0.0333, 0 },  /* 0.0999% < 0.1% */
		{ METRIC_INSTR, 0.00334, 1 },  /* 0.01002% > 0.01% */
		{ METRIC_INSTR, 0.00333, 0 },
	};
	char *file = floor_path("edge.json");
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf err = STRBUF_INIT;
		struct noise_floor f;
		double repeat = noise_floor_repeat(cases[i].metric), res;
		char *src;
		write_floor(file, pg_sha, cases[i].pct, cases[i].pct);
		assert_int_equal(noise_floor_load(&f, file, &err), 0);
		res = noise_floor_resolution(&f, "select-only", cases[i].metric, &src);
		if (cases[i].floor_wins) {
			assert_true(res > repeat);
			assert_true(fabs(res - 3 * cases[i].pct / 100) < 1e-15);
			assert_true(!strncmp(src, "layout floor: 3 x SD ", 21));
		} else {
			assert_true(res == repeat);
			assert_true(!strncmp(src, "repeat ", 7));
			assert_non_null(strstr(src, "(above the layout floor: 3 x SD "));
		}
		free(src);
		noise_floor_release(&f);
		strbuf_release(&err);
	}
	free(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_stats_edges),
		cmocka_unit_test(test_shuffle_seeded),
		cmocka_unit_test(test_shuffle_small),
		cmocka_unit_test(test_objects),
		cmocka_unit_test(test_floor_good),
		cmocka_unit_test(test_floor_mismatch),
		cmocka_unit_test(test_floor_missing),
		cmocka_unit_test(test_floor_malformed),
		cmocka_unit_test(test_floor_edge),
		cmocka_unit_test(test_floor_covers),
		cmocka_unit_test(test_functions),
	};
	return cmocka_run_group_tests(tests, floor_setup, floor_teardown);
}
