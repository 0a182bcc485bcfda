/*
 * test-explain-callgrind.c - callgrind output files read into per-function
 * self costs and call edges (explain/callgrind.h), on a real callgrind
 * 3.19 output of a small program (tests/unit/data/explain-callgrind-tiny.c)
 * written with and without name compression: the same table both ways,
 * the self costs adding up to the file's total, the calls counted, and
 * malformed files refused with the line.
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

#include "pgbuild/explain/callgrind.h"
#include "pgbuild/pgbuild.h"
#include "tests/unit/fixture.h"

static void load(struct cg_profile *p, const char *name)
{
	char *text = fixture(name);
	struct strbuf why = STRBUF_INIT;
	if (cg_parse(text, strlen(text), p, &why) < 0)
		fail_msg("%s: %s", name, why.buf);
	strbuf_release(&why);
	free(text);
}

static const struct cg_fn *fn(const struct cg_profile *p, const char *object, const char *name)
{
	long i = cg_find(p, object, name);
	if (i < 0)
		fail_msg("no function %s in %s", name, object);
	return &p->fns[i];
}

#define TINY "/tmp/explain-cg/tiny"
#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"

/* The self costs add up to the summary (what the cycles metric reads). */
static void test_totals(void **state)
{
	struct cg_profile p;
	struct cycles_counts c;
	struct strbuf why = STRBUF_INIT;
	char *text = fixture("explain-callgrind-tiny.out");
	(void)state;
	load(&p, "explain-callgrind-tiny.out");
	assert_int_equal(cycles_parse_callgrind(text, &c, &why), 0);
	for (int e = 0; e < CYC_NEVENTS; e++) {
		double sum = 0;
		for (size_t i = 0; i < p.nr; i++)
			sum += p.fns[i].self.v[e];
		assert_true(sum == c.v[e]);
		assert_true(p.totals.v[e] == c.v[e] && p.summary.v[e] == c.v[e]);
	}
	assert_true(c.v[CYC_IR] == 8851);
	cg_release(&p);
	strbuf_release(&why);
	free(text);
}

/* mid calls leaf 1 + 999 times (two call lines), main's inclusive cost is
 * its self cost and its calls', which is what (below main) paid for it. */
static void test_calls(void **state)
{
	struct cg_profile p;
	const struct cg_fn *mid, *main_fn, *below;
	double incl;
	(void)state;
	load(&p, "explain-callgrind-tiny.out");
	mid = fn(&p, TINY, "mid");
	assert_int_equal(mid->ncalls, 1);
	assert_string_equal(p.fns[mid->calls[0].callee].name, "leaf");
	assert_true(mid->calls[0].count == 1000);
	assert_true(mid->calls[0].incl.v[CYC_IR] == 2 + 1998);
	assert_true(fn(&p, TINY, "leaf")->self.v[CYC_IR] == 2000);
	main_fn = fn(&p, TINY, "main");
	incl = main_fn->self.v[CYC_IR];
	for (size_t k = 0; k < main_fn->ncalls; k++)
		incl += main_fn->calls[k].incl.v[CYC_IR];
	/* "(below main)" is a function name, in two objects */
	below = fn(&p, LIBC, "(below main)");
	assert_non_null(fn(&p, TINY, "(below main)"));
	assert_int_equal(below->ncalls, 1);
	assert_string_equal(p.fns[below->calls[0].callee].name, "main");
	assert_true(below->calls[0].incl.v[CYC_IR] == incl);
	/* a call into another object: main -> strtol in libc */
	{
		int found = 0;
		for (size_t k = 0; k < main_fn->ncalls; k++)
			found |= !strcmp(p.fns[main_fn->calls[k].callee].name, "strtol") &&
				 !strcmp(p.fns[main_fn->calls[k].callee].object, LIBC);
		assert_true(found);
	}
	cg_release(&p);
}

/* Compressed names give the same table. */
static void test_compressed(void **state)
{
	struct cg_profile a, b;
	(void)state;
	load(&a, "explain-callgrind-tiny.out");
	load(&b, "explain-callgrind-tiny-compressed.out");
	assert_int_equal(a.nr, b.nr);
	for (size_t i = 0; i < a.nr; i++) {
		const struct cg_fn *x = &a.fns[i], *y = fn(&b, x->object, x->name);
		assert_int_equal(x->ncalls, y->ncalls);
		assert_memory_equal(&x->self, &y->self, sizeof(x->self));
		for (size_t k = 0; k < x->ncalls; k++) {
			const struct cg_fn *cx = &a.fns[x->calls[k].callee];
			const struct cg_fn *cy = &b.fns[y->calls[k].callee];
			assert_string_equal(cx->name, cy->name);
			assert_string_equal(cx->object, cy->object);
			assert_true(x->calls[k].count == y->calls[k].count);
		}
	}
	cg_release(&a);
	cg_release(&b);
}

static void expect_refused(const char *text, const char *what)
{
	struct cg_profile p;
	struct strbuf why = STRBUF_INIT;
	assert_int_equal(cg_parse(text, strlen(text), &p, &why), -1);
	if (!strstr(why.buf, what))
		fail_msg("\"%s\" does not say \"%s\"", why.buf, what);
	strbuf_release(&why);
}

static void test_refused(void **state)
{
	(void)state;
	expect_refused("events: Ir\n0 5\n", "line 2: a cost line before any fn= line");
	expect_refused("events: Ir\nfn=a\ncfn=b\ncalls=1 0\n", "calls= without its cost line");
	expect_refused("events: Ir\nfn=a\ncfn=b\ncalls=1 0\nfn=c\n", "line 5: calls= without");
	expect_refused("events: Ir\nfn=(3)\n", "line 2: a compressed name used before");
	expect_refused("events: Ir\nfn=a\n0 x\n", "line 3: not a cost line");
	expect_refused("version: 1\nfn=a\n", "not a callgrind output file");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_totals),
		cmocka_unit_test(test_calls),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
