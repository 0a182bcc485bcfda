/*
 * test-elf-elfrec.c - unit tests of pgbuild/elf/elfrec.c on real ELF files made by
 * gcc/ar at test time: an object with a .pgopt.log record, hot/cold
 * sections and .GCC.command.line; an archive; a linked executable that
 * concatenates the records; and corrupt or truncated input, which must give
 * an error and never crash.
 */
#include <fcntl.h>
#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "wrapper/common/safefs.h"
#include "pgbuild/elf/elfrec.h"

static char dir[64];

static void sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("command failed: %s", cmd);
}

static void write_file(const char *name, const char *text, size_t len)
{
	char path[256];
	FILE *fp;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(fwrite(text, 1, len, fp), len);
	fclose(fp);
}

static char *path_of(const char *name)
{
	static char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

/* A source whose object carries a two-line record, like pgopt.so's. */
static void make_source(const char *name, const char *tu, const char *fn)
{
	char text[2048];
	int n = snprintf(text, sizeof(text),
		"__asm__(\".pushsection .pgopt.log,\\\"\\\",@progbits\\n"
		"\\t.ascii \\\"{\\\\\\\"kind\\\\\\\":\\\\\\\"unit\\\\\\\",\\\\\\\"tu\\\\\\\":\\\\\\\"%s\\\\\\\"}\\\\n\\\"\\n"
		"\\t.ascii \\\"{\\\\\\\"kind\\\\\\\":\\\\\\\"fn\\\\\\\",\\\\\\\"name\\\\\\\":\\\\\\\"%s\\\\\\\"}\\\\n\\\"\\n"
		"\\t.popsection\");\n"
		"__attribute__((hot)) int %s(int x) { return x * 3; }\n"
		"__attribute__((cold)) int %s_cold(int x) { return x - 1; }\n"
		"int %s_plain(int x) { return x + 1; }\n",
		tu, fn, fn, fn, fn);
	write_file(name, text, (size_t)n);
}

static int setup(void **state)
{
	strcpy(dir, "/tmp/test-elf-elfrec.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	make_source("a.c", "src/a.c", "alpha");
	make_source("b.c", "src/b.c", "beta");
	{
		static const char main_c[] = "int alpha(int); int beta(int);\n"
			"int main(int c, char **v) { (void)v; return alpha(c) + beta(c); }\n";
		write_file("main.c", main_c, sizeof(main_c) - 1);
	}
	sh("cd %s && gcc -O2 -frecord-gcc-switches -c a.c b.c main.c", dir);
	sh("cd %s && ar rcs lib.a a.o b.o && gcc -o prog main.o lib.a", dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? -1 : 0;
}

static void test_object(void **state)
{
	struct elfrec_file f;
	struct strbuf err = STRBUF_INIT;
	const struct elfrec_object *o;
	const struct elfrec_func *fn;
	struct elfrec_unit *units;

	assert_int_equal(elfrec_open(path_of("a.o"), &f, &err), 0);
	assert_int_equal(f.nr, 1);
	assert_int_equal(f.is_archive, 0);
	o = &f.objs[0];
	assert_null(o->member);
	assert_int_equal(o->elf_type, ET_REL);
	assert_int_equal(o->is_lto, 0);
	assert_int_equal(o->ncmdlines, 1);
	assert_non_null(strstr(o->cmdlines[0], "-O2"));
	assert_int_equal(o->nlog, 2);
	assert_string_equal(o->log[0], "{\"kind\":\"unit\",\"tu\":\"src/a.c\"}");

	fn = elfrec_find_func(o, "alpha", NULL);
	assert_non_null(fn);
	assert_string_equal(fn->section, ".text.hot");
	assert_true(fn->size > 0);
	assert_int_equal(fn->global, 1);
	fn = elfrec_find_func(o, "alpha_cold", NULL);
	assert_non_null(fn);
	assert_string_equal(fn->section, ".text.unlikely");
	assert_string_equal(elfrec_find_func(o, "alpha_plain", NULL)->section, ".text");
	assert_null(elfrec_find_func(o, "nonexistent", NULL));
	assert_true(o->text_hot_size > 0);
	assert_true(o->text_unlikely_size > 0);
	assert_true(o->text_size >= o->text_hot_size + o->text_unlikely_size);

	assert_int_equal(elfrec_units(o, &units, &err), 1);
	assert_string_equal(json_get_str(units[0].unit, "tu"), "src/a.c");
	assert_int_equal(units[0].nfns, 1);
	assert_string_equal(json_get_str(units[0].fns[0], "name"), "alpha");
	elfrec_units_free(units, 1);
	elfrec_release(&f);
	strbuf_release(&err);
}

static void test_archive(void **state)
{
	struct elfrec_file f;
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(elfrec_open(path_of("lib.a"), &f, &err), 0);
	assert_int_equal(f.is_archive, 1);
	assert_int_equal(f.nr, 2);
	assert_string_equal(f.objs[0].member, "a.o");
	assert_string_equal(f.objs[1].member, "b.o");
	assert_int_equal(f.objs[1].nlog, 2);
	assert_non_null(elfrec_find_func(&f.objs[1], "beta", NULL));
	elfrec_release(&f);
	strbuf_release(&err);
}

static void test_executable(void **state)
{
	struct elfrec_file f;
	struct strbuf err = STRBUF_INIT;
	struct elfrec_unit *units;
	long n;
	assert_int_equal(elfrec_open(path_of("prog"), &f, &err), 0);
	assert_int_equal(f.nr, 1);
	assert_true(f.objs[0].elf_type == ET_EXEC || f.objs[0].elf_type == ET_DYN);
	/* the linker concatenated both objects' records */
	assert_int_equal(f.objs[0].nlog, 4);
	n = elfrec_units(&f.objs[0], &units, &err);
	assert_int_equal(n, 2);
	assert_string_equal(json_get_str(units[0].unit, "tu"), "src/a.c");
	assert_string_equal(json_get_str(units[1].unit, "tu"), "src/b.c");
	assert_string_equal(json_get_str(units[1].fns[0], "name"), "beta");
	elfrec_units_free(units, (size_t)n);
	/* in an executable .text.hot is merged into .text */
	assert_non_null(elfrec_find_func(&f.objs[0], "main", NULL));
	assert_true(elfrec_find_func(&f.objs[0], "alpha", NULL)->size > 0);
	elfrec_release(&f);
	strbuf_release(&err);
}

/* Two files with a static function of one name and different sizes,
 * linked into one executable, plus a global of a third file's name. */
static void test_same_name_statics(void **state)
{
	static const char s1[] = "static int __attribute__((noinline)) dup(int *p, int n)\n"
		"{ int s = 0; for (int i = 0; i < n; i++) s += p[i] * i ^ (s >> 3);\n"
		"  for (int i = 0; i < n; i++) s -= p[i] / (i + 1); return s; }\n"
		"int use1(int *p, int n) { return dup(p, n) + 1; }\n";
	static const char s2[] = "static int __attribute__((noinline)) dup(int *p, int n)\n"
		"{ return p[n]; }\n"
		"int use2(int *p, int n) { return dup(p, n) + 2; }\n"
		"int use1(int *, int);\n"
		"int main(int c, char **v) { int a[8] = { 0 }; (void)v; return use1(a, c) + use2(a, c); }\n";
	struct elfrec_file f;
	struct strbuf err = STRBUF_INIT;
	const struct elfrec_func *a, *b;
	(void)state;
	sh("mkdir -p %s/src/one %s/src/two", dir, dir);
	write_file("src/one/s1.c", s1, sizeof(s1) - 1);
	write_file("src/two/s2.c", s2, sizeof(s2) - 1);
	sh("cd %s && gcc -O2 -o dup src/one/s1.c src/two/s2.c", dir);
	assert_int_equal(elfrec_open(path_of("dup"), &f, &err), 0);
	a = elfrec_find_func(&f.objs[0], "dup", "src/one/s1.c");
	b = elfrec_find_func(&f.objs[0], "dup", "src/two/s2.c");
	assert_non_null(a);
	assert_non_null(b);
	assert_true(a != b);
	assert_string_equal(a->file, "s1.c");
	assert_string_equal(b->file, "s2.c");
	assert_true(a->size > b->size);
	/* no file, or a file that has no such symbol: ambiguous */
	assert_null(elfrec_find_func(&f.objs[0], "dup", NULL));
	assert_null(elfrec_find_func(&f.objs[0], "dup", "src/three.c"));
	/* a unique name is found whatever the file */
	assert_non_null(elfrec_find_func(&f.objs[0], "use1", "src/two/s2.c"));
	assert_non_null(elfrec_find_func(&f.objs[0], "main", NULL));
	elfrec_release(&f);
	strbuf_release(&err);
}

static void test_not_elf(void **state)
{
	struct elfrec_file f;
	struct strbuf err = STRBUF_INIT;
	write_file("text.o", "hello, world\n", 13);
	assert_int_equal(elfrec_open(path_of("text.o"), &f, &err), -1);
	assert_non_null(strstr(err.buf, "not an ELF file"));
	assert_non_null(strstr(err.buf, "text.o"));
	assert_int_equal(elfrec_open(path_of("missing.o"), &f, &err), -1);
	assert_non_null(strstr(err.buf, "No such file"));
	assert_int_equal(elfrec_open(dir, &f, &err), -1);
	assert_non_null(strstr(err.buf, "expected a regular file"));
	write_file("empty.o", "", 0);
	assert_int_equal(elfrec_open(path_of("empty.o"), &f, &err), -1);
	strbuf_release(&err);
}

static char *slurp(const char *path, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	assert_true(sfs_read(AT_FDCWD, path, SFS_IN_BINARY, 0, &sb, NULL) > 0);
	return strbuf_detach(&sb, len);
}

/* Every truncation of an object, an archive and an executable: an error
 * (or, for a cut in trailing data nothing points into, success), never a
 * crash. */
static void test_truncated(void **state)
{
	static const char *const names[] = { "a.o", "lib.a", "prog" };
	struct strbuf err = STRBUF_INIT;
	for (size_t k = 0; k < 3; k++) {
		size_t len, errors = 0, tried = 0;
		char *data = slurp(path_of(names[k]), &len);
		size_t step = len / 300 + 1;
		for (size_t cut = 0; cut < len; cut += step) {
			struct elfrec_file f;
			write_file("cut.o", data, cut);
			tried++;
			if (elfrec_open(path_of("cut.o"), &f, &err) < 0) {
				errors++;
				assert_true(err.len > 0);
			} else {
				elfrec_release(&f);
			}
		}
		/* cutting away the section headers (at the end) must be seen */
		assert_true(errors > tried / 2);
		free(data);
	}
	strbuf_release(&err);
}

/* Flip bytes all over an object (deterministically): never a crash. */
static void test_corrupt(void **state)
{
	struct strbuf err = STRBUF_INIT;
	size_t len;
	char *data = slurp(path_of("a.o"), &len);
	uint32_t seed = 12345;
	for (int round = 0; round < 400; round++) {
		struct elfrec_file f;
		char *copy = malloc(len);
		memcpy(copy, data, len);
		for (int i = 0; i < 8; i++) {
			seed = seed * 1103515245u + 12345u;
			copy[(seed >> 8) % len] = (char)(seed >> 24);
		}
		write_file("bad.o", copy, len);
		if (elfrec_open(path_of("bad.o"), &f, &err) == 0) {
			struct elfrec_unit *units;
			for (size_t i = 0; i < f.nr; i++) {
				long n = elfrec_units(&f.objs[i], &units, &err);
				if (n >= 0)
					elfrec_units_free(units, (size_t)n);
			}
			elfrec_release(&f);
		}
		free(copy);
	}
	free(data);
	strbuf_release(&err);
}

static void test_units_errors(void **state)
{
	struct elfrec_object o = { 0 };
	struct elfrec_unit *units;
	struct strbuf err = STRBUF_INIT;
	char *lines[3];

	lines[0] = "{\"kind\":\"fn\",\"name\":\"x\"}";
	o.log = lines;
	o.nlog = 1;
	assert_int_equal(elfrec_units(&o, &units, &err), -1);
	assert_non_null(strstr(err.buf, "line 1: function record before any unit record"));

	lines[0] = "{\"kind\":\"unit\",\"tu\":\"a.c\"}";
	lines[1] = "{\"kind\":\"fn\",\"name\":";
	o.nlog = 2;
	assert_int_equal(elfrec_units(&o, &units, &err), -1);
	assert_non_null(strstr(err.buf, ".pgopt.log line 2:"));

	lines[1] = "[1,2]";
	assert_int_equal(elfrec_units(&o, &units, &err), -1);
	assert_non_null(strstr(err.buf, "not a JSON object"));

	lines[1] = "{\"kind\":\"fn\",\"name\":\"f\"}";
	lines[2] = "{\"kind\":\"unit\",\"tu\":\"b.c\"}";
	o.nlog = 3;
	assert_int_equal(elfrec_units(&o, &units, &err), 2);
	assert_int_equal(units[0].nfns, 1);
	assert_int_equal(units[1].nfns, 0);
	elfrec_units_free(units, 2);

	o.nlog = 0;
	assert_int_equal(elfrec_units(&o, &units, &err), 0);
	strbuf_release(&err);
}

/* Sizes as `size` reports them, and the symbol table choice: a shared
 * library with a .symtab, then stripped (.dynsym only), read with and
 * without ELFREC_DYNSYM and ELFREC_SIZES_ONLY. */
static void test_sizes_and_symbols(void **state)
{
	struct elfrec_file f, d, z;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	const struct elfrec_object *o;
	char cmd[512];
	FILE *p;
	unsigned long long text = 0;
	sh("cd %s && gcc -O2 -shared -fPIC -o libx.so a.c b.c", dir);
	assert_int_equal(elfrec_open(path_of("libx.so"), &f, &err), 0);
	o = &f.objs[0];
	assert_int_equal(o->has_symtab, 1);
	assert_int_equal(o->has_dynsym, 1);
	assert_true(o->dot_text_size > 0 && o->dot_text_size <= o->text_size);
	/* `size`'s text column is the read-only allocated sections */
	snprintf(cmd, sizeof(cmd), "size %s/libx.so", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(strbuf_getline(&out, p), 0);   /* the header */
	assert_int_equal(strbuf_getline(&out, p), 0);
	pclose(p);
	assert_int_equal(sscanf(out.buf, "%llu", &text), 1);
	assert_int_equal(o->readonly_size, text);
	/* .symtab holds the local (static-less here) functions too */
	assert_non_null(elfrec_find_func(o, "alpha_plain", NULL));

	/* the exported functions only */
	assert_int_equal(elfrec_open_flags(path_of("libx.so"), ELFREC_DYNSYM, &d, &err), 0);
	assert_true(d.objs[0].nfuncs > 0 && d.objs[0].nfuncs <= o->nfuncs);
	for (size_t i = 0; i < d.objs[0].nfuncs; i++)
		assert_int_equal(d.objs[0].funcs[i].global, 1);
	elfrec_release(&d);

	/* sizes only: the same sizes, no symbols */
	assert_int_equal(elfrec_open_flags(path_of("libx.so"), ELFREC_SIZES_ONLY, &z, &err), 0);
	assert_int_equal(z.objs[0].nfuncs, 0);
	assert_int_equal(z.objs[0].nlog, 0);
	assert_int_equal(z.objs[0].readonly_size, o->readonly_size);
	assert_int_equal(z.objs[0].dot_text_size, o->dot_text_size);
	elfrec_release(&z);
	elfrec_release(&f);

	/* -z now: DT_FLAGS BIND_NOW / DT_FLAGS_1 NOW; lazy binding: neither */
	sh("cd %s && gcc -O2 -shared -fPIC -Wl,-z,lazy -o liblazy.so a.c b.c && "
	   "gcc -O2 -shared -fPIC -Wl,-z,now -o libnow.so a.c b.c", dir);
	assert_int_equal(elfrec_open(path_of("liblazy.so"), &f, &err), 0);
	assert_int_equal(f.objs[0].bind_now, 0);
	elfrec_release(&f);
	assert_int_equal(elfrec_open(path_of("libnow.so"), &f, &err), 0);
	assert_int_equal(f.objs[0].bind_now, 1);
	elfrec_release(&f);

	/* stripped: no .symtab, the .dynsym functions */
	sh("cd %s && strip -o libs.so libx.so", dir);
	assert_int_equal(elfrec_open(path_of("libs.so"), &f, &err), 0);
	assert_int_equal(f.objs[0].has_symtab, 0);
	assert_int_equal(f.objs[0].has_dynsym, 1);
	assert_non_null(elfrec_find_func(&f.objs[0], "alpha", NULL));
	elfrec_release(&f);
	strbuf_release(&err);
	strbuf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_object),
		cmocka_unit_test(test_archive),
		cmocka_unit_test(test_executable),
		cmocka_unit_test(test_same_name_statics),
		cmocka_unit_test(test_sizes_and_symbols),
		cmocka_unit_test(test_not_elf),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_units_errors),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
