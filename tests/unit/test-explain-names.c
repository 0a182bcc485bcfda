/*
 * test-explain-names.c - GCC's symbol names traced back to source
 * functions and matched across two builds (explain/names.h), on real
 * symbol lists: `nm -p -a -S --defined-only` of the shared PostgreSQL
 * builds of tests/pg (stock -O2 and the LTO candidate), an LTO binary's
 * statics scoped by the plugin records' files, and a shared library's
 * .localalias, and a binary BOLT rewrote (NAME.cold.N, NAME.org.N).
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

#include "pgbuild/explain/names.h"
#include "pgbuild/pgbuild.h"
#include "tests/unit/fixture.h"

/* One side read from a fixture: the symbols and the strings they point at. */
struct side {
	struct explain_sym *v;    /* text symbols */
	size_t nr, alloc;         /* used, allocated */
	struct strvec strings;    /* names and files (owned) */
};

/* The lines of text, without their newlines. */
static void split_lines(struct strvec *out, const char *text)
{
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text);
		char *line = xmalloc(n + 1);
		memcpy(line, text, n);
		line[n] = '\0';
		strvec_push_nodup(out, line);
		text += n + (nl ? 1 : 0);
	}
}

/* name -> file of the plugin's records; a name with two files is unknown. */
static const char *record_file(const char *records, const char *name, struct strvec *keep)
{
	const char *found = NULL;
	int n = 0;
	struct strvec lines = STRVEC_INIT;
	split_lines(&lines, records);
	for (size_t i = 0; i < lines.nr; i++) {
		char *sp = strchr(lines.v[i], ' ');
		if (lines.v[i][0] == '#' || !sp)
			continue;
		if ((size_t)(sp - lines.v[i]) == strlen(name) && !strncmp(lines.v[i], name, strlen(name))) {
			strvec_push(keep, sp + 1);
			found = keep->v[keep->nr - 1];
			n++;
		}
	}
	strvec_clear(&lines);
	return n == 1 ? found : NULL;
}

/* Parse nm lines: "ADDR SIZE TYPE NAME", "ADDR TYPE NAME", "ADDR a FILE". */
static void load_side(struct side *s, const char *fixture_name, const char *records)
{
	char *text = fixture(fixture_name);
	struct strvec lines = STRVEC_INIT;
	const char *file = "";
	memset(s, 0, sizeof(*s));
	strvec_init(&s->strings);
	split_lines(&lines, text);
	for (size_t i = 0; i < lines.nr; i++) {
		struct strvec w = STRVEC_INIT;
		const char *type, *name, *size;
		if (lines.v[i][0] == '#')
			continue;
		strvec_split(&w, lines.v[i]);
		if (w.nr >= 2 && !strcmp(w.v[1], "a")) {
			strvec_push(&s->strings, w.nr > 2 ? w.v[2] : "");
			file = s->strings.v[s->strings.nr - 1];
			strvec_clear(&w);
			continue;
		}
		assert_true(w.nr == 3 || w.nr == 4);
		size = w.nr == 4 ? w.v[1] : "0";
		type = w.v[w.nr - 2];
		name = w.v[w.nr - 1];
		ALLOC_GROW(s->v, s->nr + 1, s->alloc);
		strvec_push(&s->strings, name);
		s->v[s->nr].name = s->strings.v[s->strings.nr - 1];
		s->v[s->nr].addr = strtoull(w.v[0], NULL, 16);
		s->v[s->nr].size = strtoull(size, NULL, 16);
		s->v[s->nr].global = type[0] == 'T' || type[0] == 'W';
		s->v[s->nr].file = s->v[s->nr].global ? "" : file;
		if (records && !s->v[s->nr].global) {
			const char *f = record_file(records, name, &s->strings);
			s->v[s->nr].file = f ? f : "";
		}
		s->nr++;
		strvec_clear(&w);
	}
	strvec_clear(&lines);
	free(text);
}

/* Own the names and files (the strvec of strings goes). */
static void pin_strings(struct side *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		s->v[i].name = xstrdup(s->v[i].name);
		s->v[i].file = xstrdup(s->v[i].file);
	}
	strvec_clear(&s->strings);
}

static void free_side(struct side *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		free((char *)s->v[i].name);
		free((char *)s->v[i].file);
	}
	free(s->v);
}

/* The shared builds' fixtures, matched (scoped or not). */
static void build_pg(struct explain_symtab *t, struct side *a, struct side *b, int scoped)
{
	char *records = fixture("explain-files-coscup.txt");
	const struct explain_sym *syms[2];
	size_t n[2];
	load_side(a, "explain-nm-base.txt", NULL);
	pin_strings(a);
	load_side(b, "explain-nm-coscup.txt", records);
	pin_strings(b);
	free(records);
	syms[0] = a->v;
	syms[1] = b->v;
	n[0] = a->nr;
	n[1] = b->nr;
	memset(t, 0, sizeof(*t));
	explain_symtab_build(t, syms, n, scoped);
}

static void test_suffixes(void **state)
{
	static const struct { const char *sym, *base; unsigned kinds; } cases[] = {
		{ "ATExecAddIndex.constprop.0.isra.0", "ATExecAddIndex",
		  EXPLAIN_NK_CONSTPROP | EXPLAIN_NK_ISRA },
		{ "heap_getattr.lto_priv.5.lto_priv.0", "heap_getattr", EXPLAIN_NK_LTO_PRIV },
		{ "check_collation_set.part.0.lto_priv.1", "check_collation_set",
		  EXPLAIN_NK_PART | EXPLAIN_NK_LTO_PRIV },
		{ "find_install_path.part.0.constprop.0", "find_install_path",
		  EXPLAIN_NK_PART | EXPLAIN_NK_CONSTPROP },
		{ "readtup_heap.cold", "readtup_heap", EXPLAIN_NK_COLD },
		{ "ltree_execute.localalias", "ltree_execute", EXPLAIN_NK_LOCALALIAS },
		{ "ExecEvalExprSwitchContext.isra", "ExecEvalExprSwitchContext", EXPLAIN_NK_ISRA },
		{ "transformExprRecurse.lto_priv.0'2", "transformExprRecurse",
		  EXPLAIN_NK_LTO_PRIV | EXPLAIN_NK_RECURSION },
		{ "ExplainNode", "ExplainNode", 0 },
		{ "heap_getattr.lto_priv.5.lto_priv.0.org.0", "heap_getattr",
		  EXPLAIN_NK_LTO_PRIV | EXPLAIN_NK_BOLT_ORG },
		{ "AllocSetAlloc.cold.0", "AllocSetAlloc", EXPLAIN_NK_COLD },
		/* clang's ThinLTO renames a static it exports from its module */
		{ "AdvanceXLInsertBuffer.llvm.15496340320902866641", "AdvanceXLInsertBuffer",
		  EXPLAIN_NK_LLVM },
		{ "fn.llvm.12'2", "fn", EXPLAIN_NK_LLVM | EXPLAIN_NK_RECURSION },
		{ "x.llvm", "x", EXPLAIN_NK_LLVM },
		{ "x.str.1", "x.str.1", 0 },           /* not GCC's: kept */
		{ ".cold", ".cold", 0 },               /* nothing before it */
	};
	struct strbuf base = STRBUF_INIT;
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned k = explain_name_base(cases[i].sym, &base);
		assert_string_equal(base.buf, cases[i].base);
		assert_int_equal(k, cases[i].kinds);
	}
	strbuf_release(&base);
}

/* Every dotted word of the real builds' function names is in the table. */
static void test_real_names_stripped(void **state)
{
	struct side a, b;
	struct strbuf base = STRBUF_INIT;
	(void)state;
	load_side(&a, "explain-nm-base.txt", NULL);
	load_side(&b, "explain-nm-coscup.txt", NULL);
	assert_true(a.nr > 100 && b.nr > 50);
	for (int s = 0; s < 2; s++) {
		const struct side *x = s ? &b : &a;
		for (size_t i = 0; i < x->nr; i++) {
			explain_name_base(x->v[i].name, &base);
			assert_null(strchr(base.buf, '.'));
			assert_true(base.len > 0);
		}
	}
	strvec_clear(&a.strings);
	strvec_clear(&b.strings);
	free(a.v);
	free(b.v);
	strbuf_release(&base);
}

static const struct explain_symrow *row(const struct explain_symtab *t, const char *key)
{
	const struct explain_symrow *r = explain_symtab_find(t, key);
	if (!r)
		fail_msg("no row %s", key);
	return r;
}

/* An LTO rename, a cold part and a function inlined away are one row. */
static void test_match_renames(void **state)
{
	struct explain_symtab t;
	struct side a, b;
	const struct explain_symrow *r;
	(void)state;
	build_pg(&t, &a, &b, 1);
	r = row(&t, "ExplainNode");
	assert_true(r->size[0] == 0x407f + 0x7 && r->cold[0] == 0x7);
	assert_true(r->size[1] == 0x4119 && r->cold[1] == 0);
	assert_int_equal(r->nsyms[0], 2);
	assert_true(r->kinds[1] & EXPLAIN_NK_LTO_PRIV);
	assert_string_equal(r->names[1], "ExplainNode.lto_priv.0");
	/* inlined into subquery_planner in the LTO build: A only */
	r = row(&t, "grouping_planner");
	assert_true(r->size[0] == 0x2e71 + 0x163 && isnan(r->size[1]));
	r = row(&t, "subquery_planner");
	assert_true(r->size[0] == 0xeca && r->size[1] == 0x3bc9);
	for (size_t i = 0; i < t.nr; i++) {
		assert_null(strstr(t.v[i].key, ".lto_priv"));
		assert_null(strstr(t.v[i].key, ".cold"));
		assert_null(strstr(t.v[i].key, ".isra"));
		assert_null(strstr(t.v[i].key, ".constprop"));
		assert_null(strstr(t.v[i].key, ".part"));
	}
	explain_symtab_clear(&t);
	free_side(&a);
	free_side(&b);
}

/* Statics of one name: told apart by file where both sides know it. */
static void test_match_statics(void **state)
{
	struct explain_symtab t;
	struct side a, b;
	const struct explain_symrow *r;
	struct strbuf key = STRBUF_INIT;
	(void)state;
	build_pg(&t, &a, &b, 1);
	/* two .part rests, varchar.c and varlena.c, on both sides */
	r = row(&t, "check_collation_set@varchar.c");
	assert_true(isfinite(r->size[0]) && isfinite(r->size[1]));
	r = row(&t, "check_collation_set@varlena.c");
	assert_true(isfinite(r->size[0]) && isfinite(r->size[1]));
	assert_null(explain_symtab_find(&t, "check_collation_set"));
	r = row(&t, "compare_int16@statscmds.c");
	assert_true(isfinite(r->size[0]) && isfinite(r->size[1]));
	explain_symtab_key(&t, "compare_int16.lto_priv.1", "src/backend/commands/statscmds.c", &key);
	assert_string_equal(key.buf, "compare_int16@statscmds.c");
	explain_symtab_key(&t, "ExplainNode.lto_priv.0", "src/backend/commands/explain.c", &key);
	assert_string_equal(key.buf, "ExplainNode");
	/* a header's static inline function: one row; LTO folded its eight
	 * copies into one body, counted once */
	r = row(&t, "heap_getattr");
	assert_null(explain_symtab_find(&t, "heap_getattr@heapam.c"));
	assert_int_equal(r->nsyms[0], 8);
	assert_true(r->size[0] == 8 * 0xe5);
	assert_int_equal(r->nsyms[1], 8);
	assert_true(r->size[1] == 0xe5);
	/* two statics the LTO records cannot tell apart: one row of both */
	r = row(&t, "readtup_heap");
	assert_true(r->size[0] == 0xe5 + 0x64 + 0x96 + 0x7f);
	assert_true(r->size[1] == 0x24d + 0x103);
	explain_symtab_clear(&t);
	strbuf_release(&key);
	free_side(&a);
	free_side(&b);
}

/* The rows' sizes add up to the binaries' code, shared code once. */
static void test_match_sums(void **state)
{
	for (int scoped = 0; scoped < 2; scoped++) {
		struct explain_symtab t;
		struct side a, b;
		double rows[2] = { 0, 0 }, code[2] = { 0, 0 };
		(void)state;
		build_pg(&t, &a, &b, scoped);
		for (size_t i = 0; i < t.nr; i++) {
			for (int s = 0; s < 2; s++)
				rows[s] += isfinite(t.v[i].size[s]) ? t.v[i].size[s] : 0;
			if (!scoped)
				assert_null(strchr(t.v[i].key, '@'));
		}
		for (int s = 0; s < 2; s++) {
			const struct side *x = s ? &b : &a;
			for (size_t i = 0; i < x->nr; i++) {
				int first = 1;
				for (size_t k = 0; k < i; k++)
					first &= x->v[k].addr != x->v[i].addr;
				if (first)
					code[s] += (double)x->v[i].size;
			}
		}
		assert_true(rows[0] == code[0] && rows[1] == code[1]);
		explain_symtab_clear(&t);
		free_side(&a);
		free_side(&b);
	}
}

/* A .localalias is the global function's code, not more of it. */
static void test_localalias(void **state)
{
	struct side a;
	const struct explain_sym *syms[2];
	size_t n[2];
	struct explain_symtab t = { 0 };
	const struct explain_symrow *r;
	(void)state;
	load_side(&a, "explain-nm-ltree.txt", NULL);
	pin_strings(&a);
	syms[0] = syms[1] = a.v;
	n[0] = n[1] = a.nr;
	explain_symtab_build(&t, syms, n, 1);
	assert_int_equal(t.nr, 1);
	r = row(&t, "ltree_execute");
	assert_true(r->size[0] == 0xc3 && r->size[1] == 0xc3);
	assert_int_equal(r->nsyms[0], 2);
	assert_true(r->kinds[0] & EXPLAIN_NK_LOCALALIAS);
	explain_symtab_clear(&t);
	free_side(&a);
}

/* A binary BOLT rewrote: the moved code, its split part and the jump left
 * at the old address are the function, against the LTO build it came from. */
static void test_bolt(void **state)
{
	struct side a, b;
	const struct explain_sym *syms[2];
	size_t n[2];
	struct explain_symtab t = { 0 };
	const struct explain_symrow *r;
	(void)state;
	load_side(&a, "explain-nm-coscup.txt", NULL);
	pin_strings(&a);
	load_side(&b, "explain-nm-bolt.txt", NULL);
	pin_strings(&b);
	syms[0] = a.v;
	syms[1] = b.v;
	n[0] = a.nr;
	n[1] = b.nr;
	explain_symtab_build(&t, syms, n, 1);
	r = row(&t, "AllocSetAlloc");
	assert_true(r->size[1] == 0x27d + 0x3f + 0x5 && r->cold[1] == 0x3f);
	assert_int_equal(r->nsyms[1], 3);
	assert_true(r->kinds[1] & EXPLAIN_NK_BOLT_ORG);
	r = row(&t, "heap_getattr");
	assert_true(r->size[1] == 0xa4 + 0x2b + 0x5 && r->size[0] == 0xe5);
	r = row(&t, "PostgresMain");
	assert_true(r->size[1] == 0x150f + 0x1893 + 0x5 && r->cold[1] == 0x1893);
	for (size_t i = 0; i < t.nr; i++)
		assert_null(strstr(t.v[i].key, ".org"));
	explain_symtab_clear(&t);
	free_side(&a);
	free_side(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suffixes),
		cmocka_unit_test(test_real_names_stripped),
		cmocka_unit_test(test_match_renames),
		cmocka_unit_test(test_match_statics),
		cmocka_unit_test(test_match_sums),
		cmocka_unit_test(test_localalias),
		cmocka_unit_test(test_bolt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
