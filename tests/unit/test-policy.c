/*
 * test-policy.c - policy parsing (every error names file:line and what was
 * expected), glob matching, policy application and TU naming.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "glob.h"
#include "policy.h"
#include "strbuf.h"
#include "strvec.h"
#include "tu.h"

static int parse(const char *text, struct policy *p, struct strbuf *err)
{
	return policy_parse(p, "/p/x.policy", text, strlen(text), err);
}

struct bad {
	const char *text;
	const char *error;   /* expected error text */
};

static const struct bad bad_policies[] = {
	{ "cflags += -O3\n", "/p/x.policy:1: expected a section header such as [global] before settings" },
	{ "[global]\nfoo = 1\n", "/p/x.policy:2: expected a known key (cflags, ldflags, lto, march, hot, cold, plugin), got \"foo\"" },
	{ "[global]\ncflags -= -fwrapv\n", "/p/x.policy:2: cannot remove -fwrapv: PostgreSQL requires it" },
	{ "[global]\n\n# c\ncflags -= -O2 -fno-strict-aliasing\n", "/p/x.policy:4: cannot remove -fno-strict-aliasing: PostgreSQL requires it" },
	{ "[global]\ncflags -= -fexcess-precision=standard\n", "/p/x.policy:2: cannot remove -fexcess-precision=standard: PostgreSQL requires it" },
	{ "[a.c]\ncflags += -ffast-math\n", "/p/x.policy:2: cannot add -ffast-math: it changes PostgreSQL's arithmetic or aliasing semantics" },
	{ "[global]\ncflags += -Ofast\n", "/p/x.policy:2: cannot add -Ofast: it changes PostgreSQL's arithmetic or aliasing semantics" },
	{ "[global]\ncflags += -fstrict-aliasing\n", "/p/x.policy:2: cannot add -fstrict-aliasing: it changes PostgreSQL's arithmetic or aliasing semantics" },
	{ "[global]\ncflags += -fno-wrapv\n", "/p/x.policy:2: cannot add -fno-wrapv: it changes PostgreSQL's arithmetic or aliasing semantics" },
	{ "[global]\ncflags += -funsafe-math-optimizations\n", "/p/x.policy:2: cannot add -funsafe-math-optimizations: it changes PostgreSQL's arithmetic or aliasing semantics" },
	{ "[global]\ncflags += -ffinite-math-only\n", "/p/x.policy:2: cannot add -ffinite-math-only: it changes PostgreSQL's arithmetic or aliasing semantics" },
	{ "[src/{a,b.c]\n", "/p/x.policy:1: bad glob \"src/{a,b.c\": expected '}' closing the '{' alternatives" },
	{ "[src/[ab.c]\n", "/p/x.policy:1: bad glob \"src/[ab.c\": expected ']' closing the '[' set" },
	{ "[src/a}.c]\n", "/p/x.policy:1: bad glob \"src/a}.c\": expected '{' before '}'" },
	{ "[]\n", "/p/x.policy:1: expected \"[GLOB]\" or \"[global]\"" },
	{ "[global\n", "/p/x.policy:1: expected \"[GLOB]\" or \"[global]\"" },
	{ "[global]\ncflags\n", "/p/x.policy:2: expected \"key += value\", \"key -= value\" or \"key = value\"" },
	{ "[global]\ncflags = -O2\n", "/p/x.policy:2: expected \"cflags += FLAGS\" or \"cflags -= FLAGS\"" },
	{ "[global]\ncflags +=\n", "/p/x.policy:2: expected at least one flag after +=" },
	{ "[global]\ncflags += O3\n", "/p/x.policy:2: expected flags starting with '-', got \"O3\"" },
	{ "[global]\nlto = maybe\n", "/p/x.policy:2: expected lto = on, off or fat, got \"maybe\"" },
	{ "[global]\nlto += on\n", "/p/x.policy:2: expected \"lto = VALUE\" (no += or -=)" },
	{ "[a.c]\nlto = on\n", "/p/x.policy:2: expected \"lto\" only in [global]" },
	{ "[a.c]\nldflags += -Wl,-O1\n", "/p/x.policy:2: expected ldflags only in [global] (links have no translation unit)" },
	{ "[global]\nplugin = perhaps\n", "/p/x.policy:2: expected plugin = on or off, got \"perhaps\"" },
	{ "[global]\nmarch =\n", "/p/x.policy:2: expected one CPU name after march =" },
	{ "[global]\nhot =\n", "/p/x.policy:2: expected a file name after hot =" },
};

static void test_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_policies) / sizeof(bad_policies[0]); i++) {
		struct policy p;
		struct strbuf err = STRBUF_INIT;
		if (parse(bad_policies[i].text, &p, &err) != -1)
			fail_msg("accepted: %s", bad_policies[i].text);
		if (strcmp(err.buf, bad_policies[i].error))
			fail_msg("policy %zu: got  <%s>\nwant <%s>", i, err.buf, bad_policies[i].error);
		policy_release(&p);
		strbuf_release(&err);
	}
}

static void test_nul_byte(void **state)
{
	struct policy p;
	struct strbuf err = STRBUF_INIT;
	(void)state;
	assert_int_equal(policy_parse(&p, "/p/x.policy", "[global]\0x", 10, &err), -1);
	assert_string_equal(err.buf, "/p/x.policy:1: expected a text file (found a NUL byte)");
	policy_release(&p);
	strbuf_release(&err);
}

static void test_globs(void **state)
{
	struct { const char *glob, *path; int match; } cases[] = {
		{ "src/backend/utils/mmgr/*.c", "src/backend/utils/mmgr/aset.c", 1 },
		{ "src/backend/utils/mmgr/*.c", "src/backend/utils/mmgr/sub/aset.c", 0 },
		{ "src/backend/*.c", "src/backend/utils/x.c", 0 },
		{ "src/backend/**.c", "src/backend/utils/x.c", 1 },
		{ "src/backend/**/x.c", "src/backend/x.c", 1 },
		{ "src/backend/**/x.c", "src/backend/a/b/x.c", 1 },
		{ "src/backend/**/x.c", "src/backend/a/b/y.c", 0 },
		{ "src/**", "src/a/b/c.c", 1 },
		{ "**", "anything/at/all.c", 1 },
		{ "**/aset.c", "aset.c", 1 },
		{ "src/backend/{access/nbtree,utils/hash}/**", "src/backend/utils/hash/dynahash.c", 1 },
		{ "src/backend/{access/nbtree,utils/hash}/**", "src/backend/access/nbtree/nbtsearch.c", 1 },
		{ "src/backend/{access/nbtree,utils/hash}/**", "src/backend/access/heap/heapam.c", 0 },
		/* the example in policy.h */
		{ "src/backend/utils/{mmgr/aset,hash/dynahash}.c", "src/backend/utils/mmgr/aset.c", 1 },
		{ "src/backend/utils/{mmgr/aset,hash/dynahash}.c", "src/backend/utils/hash/dynahash.c", 1 },
		{ "src/backend/utils/{mmgr/aset,hash/dynahash}.c", "src/backend/utils/mmgr/mcxt.c", 0 },
		{ "src/{a,b{1,2}}/x.c", "src/b2/x.c", 1 },
		{ "src/{a,b{1,2}}/x.c", "src/b/x.c", 0 },
		{ "a?c.c", "abc.c", 1 },
		{ "a?c.c", "a/c.c", 0 },
		{ "[abc].c", "b.c", 1 },
		{ "[!abc].c", "b.c", 0 },
		{ "[a-c].c", "c.c", 1 },
		{ "x\\*.c", "x*.c", 1 },
		{ "x\\*.c", "xy.c", 0 },
		{ "*.c", "a.c", 1 },
		{ "*.c", "src/a.c", 0 },
		/* many wildcards: each (glob, path) position pair is tried once, so
		 * these answer at once instead of backtracking exponentially */
		{ "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b",
		  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 0 },
		{ "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a",
		  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 1 },
		{ "**/**/**/**/**/**/**/**/**/**/**/**/**/**/**/**/x.c", "a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/y.c", 0 },
		{ "**/**/**/**/**/**/**/**/**/**/**/**/**/**/**/**/y.c", "a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/y.c", 1 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strvec pats = STRVEC_INIT;
		const char *why;
		int m = 0;
		assert_int_equal(glob_compile(cases[i].glob, &pats, &why), 0);
		for (size_t j = 0; j < pats.nr; j++)
			m |= glob_match(pats.v[j], cases[i].path);
		if (m != cases[i].match)
			fail_msg("glob %s vs %s: got %d", cases[i].glob, cases[i].path, m);
		strvec_clear(&pats);
	}
}

static char *joined(const struct strvec *sv)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < sv->nr; i++)
		strbuf_addf(&sb, "%s%s", i ? " " : "", sv->v[i]);
	return strbuf_detach(&sb, NULL);
}

static void apply_is(const struct policy *p, const char *tu, const char *args,
		     const char *want_args, const char *want_rules)
{
	struct strvec sv = STRVEC_INIT;
	struct policy_result res;
	char *got, *rules;
	strvec_split(&sv, args);
	policy_apply(p, tu, &sv, &res);
	got = joined(&sv);
	rules = joined(&res.rules);
	if (strcmp(got, want_args))
		fail_msg("%s: args got <%s> want <%s>", tu ? tu : "(link)", got, want_args);
	if (strcmp(rules, want_rules))
		fail_msg("%s: rules got <%s> want <%s>", tu ? tu : "(link)", rules, want_rules);
	free(got);
	free(rules);
	policy_result_release(&res);
	strvec_clear(&sv);
}

static void test_apply(void **state)
{
	struct policy p;
	struct strbuf err = STRBUF_INIT;
	const char *text =
		"# comment\n"
		"[global]\n"
		"cflags += -march=native   # add\n"
		"cflags -= -g\n"
		"\n"
		"[src/backend/utils/mmgr/*.c]\n"
		"cflags += -O3 -finline-functions\n"
		"[src/backend/{access/nbtree,utils/hash}/**]\n"
		"cflags += -O3 '-DX=a b'\n"
		"[src/backend/utils/mmgr/aset.c]\n"
		"cflags -= -O3\n";
	(void)state;
	assert_int_equal(parse(text, &p, &err), 0);
	assert_int_equal(p.nr_sections, 4);
	apply_is(&p, "src/backend/utils/mmgr/mcxt.c", "-g -O2 -c mcxt.c -g",
		 "-O2 -c mcxt.c -march=native -O3 -finline-functions",
		 "/p/x.policy:2 /p/x.policy:6");
	apply_is(&p, "src/backend/utils/mmgr/aset.c", "-g -O2 -c aset.c",
		 "-O2 -c aset.c -march=native -finline-functions",
		 "/p/x.policy:2 /p/x.policy:6 /p/x.policy:10");
	apply_is(&p, "src/backend/utils/hash/dynahash.c", "-O2 -c d.c",
		 "-O2 -c d.c -march=native -O3 -DX=a b",
		 "/p/x.policy:2 /p/x.policy:8");
	apply_is(&p, "src/port/x.c", "-O2 -g -c x.c", "-O2 -c x.c -march=native",
		 "/p/x.policy:2");
	/* links: global removals apply; cflags additions only with LTO */
	apply_is(&p, NULL, "-g -o postgres a.o", "-o postgres a.o", "/p/x.policy:2");
	policy_release(&p);

	assert_int_equal(parse("[global]\nlto = on\ncflags += -O3\nldflags += -Wl,-O1\n", &p, &err), 0);
	apply_is(&p, NULL, "-O2 -o postgres a.o", "-O2 -o postgres a.o -O3 -Wl,-O1 -flto=auto",
		 "/p/x.policy:1");
	apply_is(&p, "a.c", "-O2 -c a.c", "-O2 -c a.c -O3 -flto=auto", "/p/x.policy:1");
	policy_release(&p);
	assert_int_equal(parse("[global]\nlto = fat\nhot = h.txt\nplugin = off\n", &p, &err), 0);
	assert_string_equal(p.hot, "/p/h.txt");
	assert_int_equal(p.plugin, 0);
	apply_is(&p, "a.c", "-c a.c", "-c a.c -flto=auto -ffat-lto-objects", "/p/x.policy:1");
	policy_release(&p);

	/* a hot list alone changes every compile (the plugin must run), not
	 * a link, and nothing when the policy switches the plugin off */
	{
		struct strvec sv = STRVEC_INIT;
		struct policy_result res;
		assert_int_equal(parse("[global]\nhot = h.txt\n[src/x.c]\ncflags += -O3\n", &p, &err), 0);
		strvec_split(&sv, "-O2 -c y.c");
		policy_apply(&p, "src/y.c", &sv, &res);
		assert_int_equal(res.lists, 1);
		assert_int_equal(res.changed, 1);
		assert_int_equal(res.added.nr, 0);
		policy_result_release(&res);
		policy_apply(&p, NULL, &sv, &res);
		assert_int_equal(res.lists, 0);
		assert_int_equal(res.changed, 0);
		policy_result_release(&res);
		policy_release(&p);
		assert_int_equal(parse("[global]\ncold = c.txt\nplugin = off\n", &p, &err), 0);
		policy_apply(&p, "src/y.c", &sv, &res);
		assert_int_equal(res.changed, 0);
		policy_result_release(&res);
		policy_release(&p);
		strvec_clear(&sv);
	}
	strbuf_release(&err);
}

static void test_tu(void **state)
{
	char *s;
	(void)state;
	s = tu_normalize("a/./b/../c"); assert_string_equal(s, "a/c"); free(s);
	s = tu_normalize("/x//y/"); assert_string_equal(s, "/x/y"); free(s);
	s = tu_normalize("../../a"); assert_string_equal(s, "../../a"); free(s);
	s = tu_normalize("a/.."); assert_string_equal(s, "."); free(s);
	s = tu_normalize("/a/../.."); assert_string_equal(s, "/"); free(s);
	s = tu_name("../x/a.c", "/r/src/y", "/r"); assert_string_equal(s, "src/x/a.c"); free(s);
	s = tu_name("/r/src/a.c", "/elsewhere", "/r/"); assert_string_equal(s, "src/a.c"); free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_globs),
		cmocka_unit_test(test_apply),
		cmocka_unit_test(test_tu),
	};
	return cmocka_run_group_tests_name("policy", tests, NULL, NULL);
}
