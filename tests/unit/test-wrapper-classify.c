/*
 * test-wrapper-classify.c - table-driven tests of the command-line classifier, the
 * option table and @response file splitting.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "wrapper/classify.h"
#include "wrapper/compopt.h"
#include "wrapper/common/respfile.h"
#include "wrapper/common/strvec.h"

static void test_table_sorted(void **state)
{
	unsigned n;
	const struct compopt *t = compopt_table(&n);
	(void)state;
	for (unsigned i = 1; i < n; i++) {
		if (strcmp(t[i - 1].name, t[i].name) >= 0)
			fail_msg("compopt table not sorted at %s / %s", t[i - 1].name, t[i].name);
	}
	assert_non_null(compopt_find("-include"));
	assert_null(compopt_find("-Wall"));
	assert_string_equal(compopt_find_prefix("-I/usr/include")->name, "-I");
	assert_string_equal(compopt_find_prefix("-include/x.h")->name, "-include");
	assert_null(compopt_find_prefix("-MD"));
	assert_null(compopt_find_prefix("-Wl,-O1"));
	assert_string_equal(compopt_find_prefix("--output=x.o")->name, "--output=");
	assert_string_equal(compopt_find_prefix("--include-directory=/x")->name,
			    "--include-directory=");
	assert_null(compopt_find_prefix("--outputx"));
	assert_null(compopt_find_prefix("--compile"));
}

struct row {
	const char *cmdline;   /* words separated by spaces */
	const char *kind;
	const char *reason;
	const char *source;    /* expected source or NULL */
	const char *output;    /* expected -o or NULL */
};

static const struct row rows[] = {
	{ "-c foo.c", "compile", "c_compile", "foo.c", NULL },
	{ "-O2 -Wall -c -o foo.o foo.c", "compile", "c_compile", "foo.c", "foo.o" },
	{ "-c foo.c -ofoo.o", "compile", "c_compile", "foo.c", "foo.o" },
	{ "-S foo.c", "compile", "c_assemble", "foo.c", NULL },
	{ "-I inc -D X=1 -include h.h -c x.c", "compile", "c_compile", "x.c", NULL },
	{ "-I x.c -c y.c", "compile", "c_compile", "y.c", NULL },
	{ "-MF dep.c -MD -c y.c", "compile", "c_compile", "y.c", NULL },
	{ "-MMD -MP -MF .deps/a.Po -c a.c", "compile", "c_compile", "a.c", NULL },
	{ "-x c -c weird.txt", "compile", "c_compile", "weird.txt", NULL },
	{ "-xc -c weird.txt", "compile", "c_compile", "weird.txt", NULL },
	{ "-c foo.c bar.c", "passthrough", "multiple_sources", NULL, NULL },
	{ "-c foo.s", "passthrough", "assembler", NULL, NULL },
	{ "-c foo.S", "passthrough", "assembler", NULL, NULL },
	{ "-x assembler-with-cpp -c foo.c", "passthrough", "assembler", NULL, NULL },
	{ "-c foo.cpp", "passthrough", "other_language", NULL, NULL },
	{ "-x c++ -c foo.c", "passthrough", "other_language", NULL, NULL },
	{ "-x c++ -c foo.c -x none", "passthrough", "other_language", NULL, NULL },
	{ "-c foo.h", "passthrough", "other_language", NULL, NULL },
	{ "-E foo.c", "passthrough", "preprocess", NULL, NULL },
	{ "-E -dM -", "passthrough", "preprocess", NULL, NULL },
	{ "-M foo.c", "passthrough", "dependency_only", NULL, NULL },
	{ "-MM foo.c", "passthrough", "dependency_only", NULL, NULL },
	{ "--version", "passthrough", "query", NULL, NULL },
	{ "-dumpversion", "passthrough", "query", NULL, NULL },
	{ "-print-file-name=plugin", "passthrough", "query", NULL, NULL },
	{ "-print-search-dirs", "passthrough", "query", NULL, NULL },
	{ "-v", "passthrough", "no_input", NULL, NULL },
	{ "", "passthrough", "no_input", NULL, NULL },
	{ "-Wl,--version", "passthrough", "no_input", NULL, NULL },
	{ "-c", "passthrough", "no_input", NULL, NULL },
	{ "-### -c foo.c", "passthrough", "too_hard", NULL, NULL },
	{ "-c foo.c -o", "passthrough", "too_hard", NULL, NULL },
	{ "-c conftest.c", "passthrough", "conftest", NULL, NULL },
	{ "-o conftest -O2 conftest.c -lm", "passthrough", "conftest", NULL, NULL },
	{ "-o conftest conftest.o", "passthrough", "conftest", NULL, NULL },
	{ "-c ../meson-private/tmpab12/testfile.c", "passthrough", "meson_probe", NULL, NULL },
	{ "sanitycheckc.c -o sanitycheckc.exe", "passthrough", "meson_probe", NULL, NULL },
	{ "-x c -c -", "passthrough", "stdin_input", NULL, NULL },
	{ "-O2 foo.c -o foo", "passthrough", "compile_and_link", NULL, "foo" },
	{ "foo.c bar.o -o foo", "passthrough", "compile_and_link", NULL, "foo" },
	{ "-o postgres a.o b.o -lm", "link", "link_executable", NULL, "postgres" },
	{ "a.o libpgport.a -Wl,--export-dynamic -o postgres", "link", "link_executable", NULL, "postgres" },
	{ "-shared -o x.so a.o", "link", "link_shared", NULL, "x.so" },
	{ "-r -o all.o a.o b.o", "link", "link_relocatable", NULL, "all.o" },
	{ "-rdynamic -o prog a.o", "link", "link_executable", NULL, "prog" },
	{ "-lm", "link", "link_executable", NULL, NULL },
	{ "foo.s -o foo", "passthrough", "assembler", NULL, "foo" },
	/* gcc's long aliases mean what their short options mean */
	{ "--compile foo.c", "compile", "c_compile", "foo.c", NULL },
	{ "--assemble foo.c", "compile", "c_assemble", "foo.c", NULL },
	{ "--compile foo.c --output=foo.o", "compile", "c_compile", "foo.c", "foo.o" },
	{ "--compile foo.c --output foo.o", "compile", "c_compile", "foo.c", "foo.o" },
	{ "--compile --output x.c y.c", "compile", "c_compile", "y.c", "x.c" },
	{ "--language=c++ -c foo.c", "passthrough", "other_language", NULL, NULL },
	{ "--language c++ -c foo.c", "passthrough", "other_language", NULL, NULL },
	{ "--language=c -c weird.txt", "compile", "c_compile", "weird.txt", NULL },
	{ "--language=c++ -c foo.c --language=none", "passthrough", "other_language", NULL, NULL },
	{ "--preprocess foo.c", "passthrough", "preprocess", NULL, NULL },
	{ "--dependencies foo.c", "passthrough", "dependency_only", NULL, NULL },
	{ "--user-dependencies foo.c", "passthrough", "dependency_only", NULL, NULL },
	{ "-M --write-dependencies -c foo.c", "compile", "c_compile", "foo.c", NULL },
	{ "--user-dependencies --write-user-dependencies -c foo.c", "compile", "c_compile", "foo.c", NULL },
	{ "--include x.c -c y.c", "compile", "c_compile", "y.c", NULL },
	{ "--include=x.h --imacros m.c -c y.c", "compile", "c_compile", "y.c", NULL },
	{ "--include-directory x.c --define-macro y.c -c z.c", "compile", "c_compile", "z.c", NULL },
	{ "--include-directory=inc --undefine-macro=X -c z.c", "compile", "c_compile", "z.c", NULL },
	{ "--library-directory x.o --for-linker y.o --force-link z.o -o p a.o", "link",
	  "link_executable", NULL, "p" },
	{ "--shared --output=x.so a.o", "link", "link_shared", NULL, "x.so" },
	{ "--std c11 --sysroot x.c --prefix y.c --specs z.c -c w.c", "compile", "c_compile", "w.c", NULL },
	{ "-c foo.c --output", "passthrough", "too_hard", NULL, NULL },
	{ "--compile conftest.c --output=conftest.o", "passthrough", "conftest", NULL, "conftest.o" },
};

static void test_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct strvec argv = STRVEC_INIT;
		struct classification c;
		strvec_push(&argv, "gcc");
		strvec_split(&argv, rows[i].cmdline);
		classify_args((int)argv.nr, (const char *const *)argv.v, &c);
		if (strcmp(classify_kind_name(c.kind), rows[i].kind) ||
		    strcmp(classify_reason_name(c.reason), rows[i].reason))
			fail_msg("\"%s\": got %s/%s, want %s/%s", rows[i].cmdline,
				 classify_kind_name(c.kind), classify_reason_name(c.reason),
				 rows[i].kind, rows[i].reason);
		if (rows[i].source)
			assert_string_equal(c.source, rows[i].source);
		if (rows[i].output) {
			assert_non_null(c.output);
			assert_string_equal(c.output, rows[i].output);
		}
		strvec_clear(&argv);
	}
}

static void split_is(const char *text, const char *const *want, size_t n)
{
	struct strvec out = STRVEC_INIT;
	respfile_split(text, strlen(text), &out);
	if (out.nr != n)
		fail_msg("\"%s\": %zu words, want %zu", text, out.nr, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(out.v[i], want[i]);
	strvec_clear(&out);
}

static void test_respfile_split(void **state)
{
	(void)state;
	split_is("-c  foo.c\n-o foo.o", (const char *[]){ "-c", "foo.c", "-o", "foo.o" }, 4);
	split_is("'a b' \"c d\" e\\ f", (const char *[]){ "a b", "c d", "e f" }, 3);
	split_is("-DX=\"1\\\"2\"", (const char *[]){ "-DX=1\"2" }, 1);
	split_is("'' x", (const char *[]){ "", "x" }, 2);
	split_is("  \t\n", NULL, 0);
	split_is("a\\\\b", (const char *[]){ "a\\b" }, 1);
	split_is("'it''s'", (const char *[]){ "its" }, 1);
}

static void test_respfile_expand(void **state)
{
	char dir[] = "/tmp/pgopt-unit-XXXXXX";
	char *f1, *f2, *f3;
	FILE *fp;
	struct strvec out = STRVEC_INIT;
	(void)state;
	assert_non_null(mkdtemp(dir));
	f1 = malloc(strlen(dir) + 10); sprintf(f1, "%s/one", dir);
	f2 = malloc(strlen(dir) + 10); sprintf(f2, "%s/two", dir);
	f3 = malloc(strlen(dir) + 10); sprintf(f3, "%s/self", dir);
	fp = fopen(f1, "w"); fprintf(fp, "-c 'my file.c' @%s\n", f2); fclose(fp);
	fp = fopen(f2, "w"); fprintf(fp, "-o out.o"); fclose(fp);
	fp = fopen(f3, "w"); fprintf(fp, "@%s", f3); fclose(fp);
	{
		char *at = malloc(strlen(f1) + 2);
		sprintf(at, "@%s", f1);
		const char *argv[] = { "-O2", at, "@/nonexistent/file" };
		assert_int_equal(respfile_expand(3, argv, &out), 2);
		assert_int_equal(out.nr, 6);
		assert_string_equal(out.v[0], "-O2");
		assert_string_equal(out.v[2], "my file.c");
		assert_string_equal(out.v[4], "out.o");
		assert_string_equal(out.v[5], "@/nonexistent/file");
		free(at);
	}
	strvec_clear(&out);
	{
		char *at = malloc(strlen(f3) + 2);
		sprintf(at, "@%s", f3);
		const char *argv[] = { at };
		assert_int_equal(respfile_expand(1, argv, &out), -1);
		free(at);
	}
	strvec_clear(&out);
	/* a FIFO or a device: too hard (gcc gets the command), never read */
	{
		char *fifo = malloc(strlen(dir) + 10);
		sprintf(fifo, "%s/fifo", dir);
		assert_int_equal(mkfifo(fifo, 0644), 0);
		char *at = malloc(strlen(fifo) + 2);
		sprintf(at, "@%s", fifo);
		const char *argv[] = { "-c", at };
		assert_int_equal(respfile_expand(2, argv, &out), -1);
		strvec_clear(&out);
		const char *argv2[] = { "-c", "@/dev/zero" };
		assert_int_equal(respfile_expand(2, argv2, &out), -1);
		strvec_clear(&out);
		unlink(fifo);
		free(at);
		free(fifo);
	}
	unlink(f1); unlink(f2); unlink(f3); rmdir(dir);
	free(f1); free(f2); free(f3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_sorted),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_respfile_split),
		cmocka_unit_test(test_respfile_expand),
	};
	return cmocka_run_group_tests_name("classify", tests, NULL, NULL);
}
