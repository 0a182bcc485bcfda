/*
 * test-metric-workloads.c - the invariants of metric/workloads.c's and
 * metric/datasets.c's tables: every row complete (a bench row has a bench
 * script that parses, a single-user row a writer, a count and a data set
 * the single-user server can load, every name unique, the checks fit the
 * data), the roles consistent (nothing chosen on the broad suite), the
 * lists bench, gate and the help texts use come from the table, and each
 * single-user writer runs its bench script's statements; an unknown
 * workload is an error, never another workload's script.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "pgbuild/bench/bench.h"
#include "pgbuild/metric/single.h"
#include "pgbuild/metric/workloads.h"

static int line_count(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Every line of text (statements, one a line) ends in ';'. */
static void assert_statement_lines(const char *what, const char *text)
{
	const char *p = text;
	if (!text)
		return;
	assert_true(*text && text[strlen(text) - 1] == '\n');
	while (*p) {
		const char *eol = strchr(p, '\n');
		if (eol[-1] != ';')
			fail_msg("%s: a line that is not one whole statement: %.*s", what,
				 (int)(eol - p), p);
		p = eol + 1;
	}
}

static void test_rows(void **state)
{
	int train = 0, heldout = 0, def = 0, broad = 0;
	(void)state;
	for (const struct workload_row *w = workloads; w->name; w++) {
		const struct workload_data *d = w->data ? workloads_data(w->data) : NULL;
		for (const struct workload_row *u = w + 1; u->name; u++)
			assert_string_not_equal(w->name, u->name);
		assert_non_null(w->desc);
		assert_true((unsigned)w->kind < WK_NKINDS);
		assert_string_not_equal(workloads_kind_name(w->kind), "?");
		/* a data set of the table, or none at all (sql decides, regress
		 * is not a script) */
		if (w->data)
			assert_non_null(d);
		else
			assert_false(w->flags & WL_BUILTIN);
		if (w->flags & WL_BUILTIN) {
			struct bench_workload bw;
			assert_true(w->flags & WL_BENCH);
			assert_non_null(w->bench[0].text);
			assert_int_equal(bench_workload_init(&bw, w->name, NULL), 0);
			assert_true(bw.nscripts >= 1);
			assert_ptr_equal(bw.data, d);
			bench_workload_release(&bw);
		} else {
			assert_null(w->bench[0].text);
		}
		if (w->flags & WL_SINGLE) {
			assert_non_null(w->single);
			assert_true(w->single_n > 0);
			assert_true(w->single_stmts > 0);
			assert_non_null(d);
			assert_false(d->copy);
		} else {
			assert_null(w->single);
			assert_int_equal(w->single_n, 0);
		}
		/* a size of its own only over a data set that scales */
		if (w->scale)
			assert_non_null(d->scale_sql);
		/* the checks fit the data */
		if (w->checks & (WLC_PGBENCH_READ | WLC_TPCB | WLC_PGBENCH_STEP))
			assert_string_equal(w->data, "pgbench");
		if (w->checks & WLC_TPCC)
			assert_string_equal(w->data, "tpcc");
		if (w->checks & (WLC_UNCHANGED | WLC_COUNTED))
			assert_true(d && d->snapshot && d->figures);
		if (w->flags & WL_BENCH && d && d->snapshot)
			assert_true(w->checks != 0);
		/* roles */
		if (w->flags & (WL_TRAIN | WL_HELDOUT | WL_DEFAULT))
			assert_true(w->flags & WL_BUILTIN);
		assert_false((w->flags & WL_TRAIN) && (w->flags & WL_HELDOUT));
		assert_int_equal(!!(w->flags & WL_CHOSEN), w->chosen != NULL);
		if (w->flags & WL_BROAD) {
			assert_false(w->flags & (WL_CHOSEN | WL_TRAIN | WL_HELDOUT | WL_DEFAULT));
			assert_true(w->flags & WL_BUILTIN);
			assert_non_null(strstr(workloads_role_note(w->name), "held out"));
			broad++;
		}
		if (w->flags & WL_CHOSEN)
			assert_non_null(strstr(workloads_role_note(w->name), "used to choose: "));
		assert_non_null(workloads_role_note(w->name));
		train += !!(w->flags & WL_TRAIN);
		heldout += !!(w->flags & WL_HELDOUT);
		def += !!(w->flags & WL_DEFAULT);
	}
	assert_true(train > 0);
	assert_int_equal(heldout, 1);
	assert_int_equal(def, 1);
	assert_true(broad > 0);
}

/* The kinds of issue 44's suite are all in it, in-cache and beyond. */
static void test_broad_suite(void **state)
{
	int kinds[WK_NKINDS] = { 0 }, beyond = 0, single = 0;
	(void)state;
	for (const char *const *n = workloads_names(WL_BROAD); *n; n++) {
		const struct workload_row *w = workloads_find(*n);
		const char *size = workloads_size_note(*n);
		kinds[w->kind]++;
		assert_non_null(size);
		beyond += strstr(size, "beyond") != NULL;
		single += !!(w->flags & WL_SINGLE);
	}
	assert_true(kinds[WK_OLTP] && kinds[WK_ANALYTIC] && kinds[WK_BULK] && kinds[WK_TEXT] &&
		    kinds[WK_PLPGSQL]);
	assert_true(beyond >= 2);
	assert_true(single >= 5);
	/* what the role and size notes say */
	assert_string_equal(workloads_role_note("agg-join"),
			    "held out: nothing was chosen on it (the broad suite)");
	assert_non_null(strstr(workloads_role_note("mixed"), "--train regress"));
	assert_non_null(strstr(workloads_role_note("select-only"), "a default training workload"));
	assert_null(workloads_role_note("no-such"));
	assert_string_equal(workloads_size_note("select-only-s10"),
			    "about 157 MB at scale 10: beyond the cost model's 32 MiB LL");
	assert_string_equal(workloads_size_note("select-only"),
			    "about 16 MB at scale 1 (--scale): inside the cost model's 32 MiB LL");
	assert_null(workloads_size_note("select1"));
	assert_null(workloads_size_note("sql"));
}

static void test_datasets(void **state)
{
	(void)state;
	for (const struct workload_data *d = workload_datasets; d->name; d++) {
		for (const struct workload_data *e = d + 1; e->name; e++)
			assert_string_not_equal(d->name, e->name);
		assert_non_null(d->desc);
		assert_int_equal(!!d->tables, !!d->ddl);
		if (d->copy) {
			assert_null(d->fill);
			assert_true(bench_has_copy_generator(d->name));
		}
		if (d->snapshot)
			assert_non_null(d->figures);
		assert_true(d->mb >= 0);
		assert_statement_lines(d->name, d->ddl);
		assert_statement_lines(d->name, d->fill);
		assert_statement_lines(d->name, d->keys);
	}
	assert_non_null(workloads_data("none"));
	assert_null(workloads_data("no-such"));
}

static void test_lists(void **state)
{
	size_t n = 0;
	(void)state;
	for (const struct workload_row *w = workloads; w->name; w++)
		if (w->flags & WL_BENCH)
			assert_string_equal(bench_workload_names[n++], w->name);
	assert_null(bench_workload_names[n]);
	assert_string_equal(BENCH_WORKLOAD_NAMES, workloads_list(WL_BENCH));
	assert_string_equal(WORKLOADS_BENCH, workloads_list(WL_BENCH));
	assert_string_equal(WORKLOADS_BUILTIN, workloads_list(WL_BUILTIN));
	assert_string_equal(WORKLOADS_SINGLE, workloads_list(WL_SINGLE));
	assert_string_equal(SINGLE_WORKLOADS, workloads_list(WL_SINGLE));
	assert_string_equal(WORKLOADS_BROAD, workloads_list(WL_BROAD));
	/* the --train default as its help text spells it */
	{
		char buf[256];
		size_t k = 0;
		for (const char *const *t = workloads_names(WL_TRAIN); *t; t++)
			k += (size_t)snprintf(buf + k, sizeof(buf) - k, "%s%s", k ? "," : "", *t);
		assert_string_equal(WORKLOADS_TRAIN, buf);
	}
	assert_string_equal(workloads_list(WL_TRAIN), "select-only, tpcb");
	assert_string_equal(workloads_list(WL_HELDOUT), "mixed");
	assert_string_equal(workloads_list(WL_DEFAULT), "select-only");
	assert_string_equal(WORKLOADS_HELDOUT, workloads_list(WL_HELDOUT));
	assert_string_equal(WORKLOADS_DEFAULT, workloads_list(WL_DEFAULT));
	assert_string_equal(workloads_list(WL_CHOSEN), "select-only, tpcb, mixed");
}

static void test_single(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	assert_int_equal(single_default_n("select-only"), 200);
	assert_int_equal(single_default_n("mixed"), 40);
	assert_int_equal(single_default_n("tpcc-lite"), 0);
	assert_false(single_supported("sql"));
	assert_false(single_supported("no-such"));
	assert_false(single_supported("select-only-s100"));
	assert_null(workloads_find("no-such"));
	/* an unknown workload, or one without a script, is an error: never
	 * tpcb's script, as an unknown name once was */
	assert_int_equal(single_make_script("no-such", 3, &sb), -1);
	assert_int_equal(single_make_script("tpcc-lite", 3, &sb), -1);
	assert_int_equal(single_make_script("sql", 3, &sb), -1);
	assert_int_equal(sb.len, 0);
	assert_int_equal(single_load_sql("tpcc-lite", &sb), -1);
	assert_int_equal(single_load_sql("no-such", &sb), -1);
	assert_null(single_template_name("no-such"));
	/* the templates: one per data set and scale */
	{
		char *a = single_template_name("select-only"), *b = single_template_name("mixed");
		char *c = single_template_name("tpcb-s10"), *e = single_template_name("bulk-index");
		assert_string_equal(a, "template-pgbench-s1");
		assert_string_equal(b, "template-pgbench-s1");
		assert_string_equal(c, "template-pgbench-s10");
		assert_string_equal(e, "template-bulk");
		free(a);
		free(b);
		free(c);
		free(e);
	}
	strbuf_release(&sb);
}

/* The single-user template of pgbench at scale 1 is the one the metrics
 * have always loaded: its counts depend on it. */
static void test_pgbench_template(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	assert_int_equal(single_load_sql("select-only", &sb), 0);
	assert_string_equal(sb.buf,
		"CREATE TABLE pgbench_branches (bid int NOT NULL PRIMARY KEY, bbalance int, filler char(88)) WITH (fillfactor=100);\n"
		"CREATE TABLE pgbench_tellers (tid int NOT NULL PRIMARY KEY, bid int, tbalance int, filler char(84)) WITH (fillfactor=100);\n"
		"CREATE TABLE pgbench_accounts (aid int NOT NULL PRIMARY KEY, bid int, abalance int, filler char(84)) WITH (fillfactor=100);\n"
		"CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22));\n"
		"INSERT INTO pgbench_branches SELECT g, 0, NULL FROM generate_series(1, 1) g;\n"
		"INSERT INTO pgbench_tellers SELECT g, (g - 1) / 10 + 1, 0, NULL FROM generate_series(1, 10 * 1) g;\n"
		"INSERT INTO pgbench_accounts SELECT g, (g - 1) / 100000 + 1, 0, '' FROM generate_series(1, 100000 * 1) g;\n"
		"VACUUM ANALYZE;\n"
		"CHECKPOINT;\n");
	strbuf_reset(&sb);
	assert_int_equal(single_load_sql("select1", &sb), 0);
	assert_string_equal(sb.buf, "VACUUM ANALYZE;\nCHECKPOINT;\n");
	strbuf_release(&sb);
}

/*
 * The scripts the single-user metrics have always run, transaction 0 of
 * the fixed LCG: select-only's, tpcb's, select1's and mixed's text is a
 * figure (the instructions counted per transaction), so it must not move.
 */
static void test_single_pinned(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	assert_int_equal(single_make_script("select-only", 2, &sb), 0);
	assert_string_equal(sb.buf, "SELECT abalance FROM pgbench_accounts WHERE aid = 18265;\n"
			    "SELECT abalance FROM pgbench_accounts WHERE aid = 32422;\n");
	strbuf_reset(&sb);
	assert_int_equal(single_make_script("tpcb", 1, &sb), 0);
	assert_string_equal(sb.buf, "BEGIN;\n"
		"UPDATE pgbench_accounts SET abalance = abalance + -2125 WHERE aid = 18265;\n"
		"SELECT abalance FROM pgbench_accounts WHERE aid = 18265;\n"
		"UPDATE pgbench_tellers SET tbalance = tbalance + -2125 WHERE tid = 4;\n"
		"UPDATE pgbench_branches SET bbalance = bbalance + -2125 WHERE bid = 1;\n"
		"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (4, 1, 18265, -2125, CURRENT_TIMESTAMP);\n"
		"END;\n");
	strbuf_reset(&sb);
	assert_int_equal(single_make_script("select1", 2, &sb), 0);
	assert_string_equal(sb.buf, "SELECT 1;\nSELECT 1;\n");
	strbuf_reset(&sb);
	assert_int_equal(single_make_script("mixed", 1, &sb), 0);
	assert_string_equal(sb.buf,
		"SELECT count(*), sum(abalance) FROM pgbench_accounts WHERE aid BETWEEN 18266 AND 18316;\n"
		"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime, filler) VALUES (4, 1, 18266, 0, CURRENT_TIMESTAMP, left(md5(CAST(18266 AS text)), 22));\n"
		"SELECT string_agg(relname, ',' ORDER BY relname) FROM pg_class;\n");
	strbuf_release(&sb);
}

/*
 * SQL with its values taken out: every number (and bench's $n) becomes
 * '#', and "# + #" folds to '#' (the single-user writer adds mixed's 50
 * itself); identifiers keep their digits (md5, t1).
 */
static void normalize(const char *in, struct strbuf *out)
{
	strbuf_reset(out);
	for (const char *p = in; *p;) {
		char prev = out->len ? out->buf[out->len - 1] : ' ';
		int ident = isalnum((unsigned char)prev) || prev == '_';
		if ((*p == '$' && isdigit((unsigned char)p[1])) ||
		    (!ident && isdigit((unsigned char)*p)) ||
		    (!ident && *p == '-' && isdigit((unsigned char)p[1]) && (prev == ' ' || prev == '('))) {
			p++;
			while (isdigit((unsigned char)*p) || *p == '.')
				p++;
			/* "# + #" and "# - #" are one value */
			if (out->len >= 4 && out->buf[out->len - 1] == ' ' &&
			    (out->buf[out->len - 2] == '+' || out->buf[out->len - 2] == '-') &&
			    out->buf[out->len - 3] == ' ' && out->buf[out->len - 4] == '#') {
				strbuf_setlen(out, out->len - 3);
				continue;
			}
			strbuf_addch(out, '#');
			continue;
		}
		strbuf_addch(out, *p++);
	}
	while (out->len && (out->buf[out->len - 1] == ';' || isspace((unsigned char)out->buf[out->len - 1])))
		strbuf_setlen(out, out->len - 1);
}

/* Each single-user writer runs its bench script's statements, in order,
 * one per line, the same every time. */
static void test_single_is_bench(void **state)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, x = STRBUF_INIT, y = STRBUF_INIT;
	(void)state;
	for (const struct workload_row *w = workloads; w->name; w++) {
		struct bench_workload bw;
		const char *line;
		int k = 0, tx;
		if (!(w->flags & WL_SINGLE))
			continue;
		strbuf_reset(&a);
		strbuf_reset(&b);
		assert_int_equal(single_make_script(w->name, 3, &a), 0);
		assert_int_equal(single_make_script(w->name, 3, &b), 0);
		assert_string_equal(a.buf, b.buf);
		assert_int_equal(line_count(a.buf), 3 * w->single_stmts);
		assert_int_equal(bench_workload_init(&bw, w->name, NULL), 0);
		assert_int_equal(bw.nscripts, 1);
		line = a.buf;
		for (tx = 0; tx < 3; tx++) {
			for (k = 0; k < bw.scripts[0].ncmds; k++) {
				const struct bench_command *c = &bw.scripts[0].cmds[k];
				const char *eol;
				char *one;
				if (c->kind != BCMD_SQL)
					continue;
				eol = strchr(line, '\n');
				assert_non_null(eol);
				assert_true(eol > line && eol[-1] == ';');
				one = strndup(line, (size_t)(eol - line));
				normalize(one, &x);
				normalize(c->sql, &y);
				if (strcmp(x.buf, y.buf))
					fail_msg("%s: single-user \"%s\" is not bench's \"%s\"", w->name,
						 x.buf, y.buf);
				free(one);
				line = eol + 1;
			}
		}
		assert_string_equal(line, "");
		bench_workload_release(&bw);
	}
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&x);
	strbuf_release(&y);
}

/* bench: an unknown name is an error, and a size that is part of a
 * workload is not overridden by --scale. */
static void test_bench_rows(void **state)
{
	struct bench_workload w;
	(void)state;
	assert_int_equal(bench_workload_init(&w, "select-onyl", NULL), -1);
	bench_workload_release(&w);
	assert_int_equal(bench_workload_init(&w, "regress", NULL), -1);
	bench_workload_release(&w);
	assert_int_equal(bench_workload_init(&w, "select-only-s100", NULL), 0);
	assert_int_equal(bench_workload_scale(&w, 0), 100);
	assert_int_equal(bench_workload_scale(&w, 100), 100);
	assert_int_equal(bench_workload_scale(&w, 2), -1);
	assert_string_equal(w.data->name, "pgbench");
	assert_int_equal(w.checks, WLC_PGBENCH_READ);
	bench_workload_release(&w);
	assert_int_equal(bench_workload_init(&w, "tpcb", NULL), 0);
	assert_int_equal(bench_workload_scale(&w, 0), 1);
	assert_int_equal(bench_workload_scale(&w, 7), 7);
	assert_int_equal(w.checks, WLC_TPCB);
	bench_workload_release(&w);
	assert_int_equal(bench_workload_init(&w, "tpcc-lite", NULL), 0);
	assert_int_equal(w.nscripts, 2);
	assert_string_equal(w.scripts[0].name, "new-order");
	assert_int_equal(w.scripts[0].weight, 45);
	assert_string_equal(w.scripts[1].name, "payment");
	assert_non_null(w.gen);
	bench_workload_release(&w);
}

/* A run whose server reported an ERROR is not a measurement of the
 * script: single_log_errors finds the line and names it. */
static void test_log_errors(void **state)
{
	char path[] = "/tmp/test-metric-workloads.XXXXXX";
	struct strbuf note = STRBUF_INIT;
	int fd = mkstemp(path);
	static const char bad[] = "==1== Callgrind\nbackend> \n"
		"ERROR:  function bulk_round(integer, integer) does not exist at character 8\n"
		"backend> \n";
	static const char good[] = "==1== Callgrind\nbackend>  1: ?column? = \"1\"\n";
	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, bad, sizeof(bad) - 1), (ssize_t)sizeof(bad) - 1);
	assert_int_equal(single_log_errors(path, &note), -1);
	assert_non_null(strstr(note.buf, "\"ERROR:  function bulk_round(integer, integer) does not "
				"exist at character 8\""));
	strbuf_reset(&note);
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(pwrite(fd, good, sizeof(good) - 1, 0), (ssize_t)sizeof(good) - 1);
	assert_int_equal(single_log_errors(path, &note), 0);
	assert_int_equal(note.len, 0);
	close(fd);
	unlink(path);
	strbuf_release(&note);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_broad_suite),
		cmocka_unit_test(test_datasets),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_single),
		cmocka_unit_test(test_pgbench_template),
		cmocka_unit_test(test_single_pinned),
		cmocka_unit_test(test_single_is_bench),
		cmocka_unit_test(test_bench_rows),
		cmocka_unit_test(test_log_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
