/*
 * test-build-pkgcompare.c - unit tests of pgbuild/build/pkgcompare.c (and
 * elfrec's dynamic view under it) on real ELF files gcc makes at test
 * time: an "archive" root with a program that exports a function (linked
 * -rdynamic, as postgres is), a module that needs a system library
 * (libdep.so.1, in a directory standing for /usr/lib) and calls the
 * program, and a library; "ours" built from the same sources with one
 * change per case: the module linked without -ldep (the llvmjit.so of the
 * issue: no NEEDED, its symbol undefined), an export removed, a file
 * missing, a library needed in addition; and what the linker decides
 * alone (a program's copy relocations, a library linked but unused).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "pgbuild/build/pkgcompare.h"
#include "pgbuild/elf/elfrec.h"

static char dir[64];
static char multiarch[64];   /* gcc -print-multiarch: x86_64-linux-gnu */

static void sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("command failed: %s", cmd);
}

/* The sources, the system library and the archive's root. */
static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/test-pkgcompare.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	{
		FILE *p = popen("gcc -print-multiarch", "r");
		if (!p || !fgets(multiarch, sizeof(multiarch), p))
			return -1;
		multiarch[strcspn(multiarch, "\n")] = '\0';
		pclose(p);
	}
	sh("cd %s && mkdir -p sys src && "
	   "printf 'int dep_fn(int x) { return x * 3; }\\n' > src/dep.c && "
	   "printf 'int prog_api(int x) { return x + 1; }\\nint main(void) { return prog_api(-1); }\\n' > src/prog.c && "
	   "printf 'int dep_fn(int); int prog_api(int);\\nint mod_api(int x) { return dep_fn(x) + prog_api(x); }\\n"
	   "#ifndef NO_EXTRA\\nint mod_extra(int x) { return x; }\\n#endif\\n"
	   "#ifdef WITH_M\\ndouble cos(double); double mod_m(double x) { return cos(x); }\\n#endif\\n' > src/mod.c && "
	   "printf 'int lib_fn(int x) { return x - 1; }\\n' > src/lib.c && "
	   "gcc -shared -fPIC -Wl,-soname,libdep.so.1 -o sys/libdep.so.1 src/dep.c", dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? -1 : 0;
}

/* A root ROOT (below dir) of the three files; mod.c compiled with
 * MODFLAGS, linked with MODLIBS. */
static void make_root(const char *root, const char *modflags, const char *modlibs)
{
	sh("cd %s && rm -rf %s && mkdir -p %s/usr/bin %s/usr/lib/mods %s/usr/lib/x86_64 && "
	   "gcc -rdynamic -o %s/usr/bin/prog src/prog.c && "
	   "gcc -shared -fPIC %s -o %s/usr/lib/mods/mod.so src/mod.c %s && "
	   "gcc -shared -fPIC -Wl,-soname,liblib.so.1 -o %s/usr/lib/x86_64/liblib.so.1 src/lib.c",
	   dir, root, root, root, root, root, modflags, root, modlibs, root);
}

static const struct pkgcmp_file files[] = {
	{ "usr/bin/prog", "pkg" },
	{ "usr/lib/mods/mod.so", "pkg" },
	{ "usr/lib/x86_64/liblib.so.1", "libpkg1" },
};

/* Compare root cand (files ncand of the list) with "arch". */
static void compare(const char *cand, size_t ncand, struct pkgcmp_result *r)
{
	char croot[128], aroot[128], sys[128], lib[128], usrlib[128];
	const char *libdirs[] = { sys, lib, usrlib, NULL };
	struct pkgcmp_opts o;
	struct strbuf err = STRBUF_INIT;

	snprintf(croot, sizeof(croot), "%s/%s", dir, cand);
	snprintf(aroot, sizeof(aroot), "%s/arch", dir);
	snprintf(sys, sizeof(sys), "%s/sys", dir);
	/* the system's libc, libm: as the dynamic linker's default path */
	snprintf(lib, sizeof(lib), "/lib/%s", multiarch);
	snprintf(usrlib, sizeof(usrlib), "/usr/lib/%s", multiarch);
	memset(&o, 0, sizeof(o));
	o.cand.root = croot;
	o.cand.files = files;
	o.cand.nfiles = ncand;
	o.arch.root = aroot;
	o.arch.files = files;
	o.arch.nfiles = 3;
	o.libdirs = libdirs;
	assert_int_equal(pkgcmp_compare(&o, r, &err), 0);
	strbuf_release(&err);
}

static const struct pkgcmp_finding *find(const struct pkgcmp_result *r, const char *path,
					 enum pkgcmp_kind kind)
{
	for (size_t i = 0; i < r->nr; i++)
		if (!strcmp(r->v[i].path, path) && r->v[i].kind == kind)
			return &r->v[i];
	return NULL;
}

static void make_arch(void)
{
	char libs[160];
	snprintf(libs, sizeof(libs), "-L%s/sys -l:libdep.so.1", dir);
	make_root("arch", "", libs);
}

/* elfrec's dynamic view: NEEDED, SONAME, PT_INTERP, the dynamic symbols. */
static void test_dynamic_view(void **state)
{
	struct elfrec_file f;
	struct strbuf err = STRBUF_INIT;
	char path[160];
	int dep_undef = 0, api_def = 0, prog_undef = 0;
	(void)state;
	make_arch();
	snprintf(path, sizeof(path), "%s/arch/usr/lib/mods/mod.so", dir);
	assert_int_equal(elfrec_open_flags(path, ELFREC_SIZES_ONLY | ELFREC_DYNAMIC, &f, &err), 0);
	assert_int_equal(f.objs[0].nneeded >= 1, 1);
	assert_string_equal(f.objs[0].needed[0], "libdep.so.1");
	assert_int_equal(f.objs[0].is_program, 0);
	for (size_t i = 0; i < f.objs[0].ndynsyms; i++) {
		const struct elfrec_dynsym *s = &f.objs[0].dynsyms[i];
		dep_undef += !strcmp(s->name, "dep_fn") && !s->defined;
		prog_undef += !strcmp(s->name, "prog_api") && !s->defined;
		api_def += !strcmp(s->name, "mod_api") && s->defined;
	}
	assert_int_equal(dep_undef + prog_undef + api_def, 3);
	elfrec_release(&f);
	snprintf(path, sizeof(path), "%s/arch/usr/lib/x86_64/liblib.so.1", dir);
	assert_int_equal(elfrec_open_flags(path, ELFREC_DYNAMIC, &f, &err), 0);
	assert_string_equal(f.objs[0].soname, "liblib.so.1");
	elfrec_release(&f);
	snprintf(path, sizeof(path), "%s/arch/usr/bin/prog", dir);
	assert_int_equal(elfrec_open_flags(path, ELFREC_SIZES_ONLY | ELFREC_DYNAMIC, &f, &err), 0);
	assert_int_equal(f.objs[0].is_program, 1);
	elfrec_release(&f);
	/* without the flag: none of it */
	assert_int_equal(elfrec_open_flags(path, ELFREC_SIZES_ONLY, &f, &err), 0);
	assert_int_equal(f.objs[0].nneeded, 0);
	assert_int_equal(f.objs[0].ndynsyms, 0);
	elfrec_release(&f);
	strbuf_release(&err);
}

/* The same build: nothing differs; prog_api (the program's export) is
 * no undefined symbol of the module. */
static void test_same(void **state)
{
	struct pkgcmp_result r = PKGCMP_RESULT_INIT;
	char libs[160];
	(void)state;
	make_arch();
	snprintf(libs, sizeof(libs), "-L%s/sys -l:libdep.so.1", dir);
	make_root("same", "", libs);
	compare("same", 3, &r);
	assert_int_equal(r.files, 3);
	assert_int_equal(r.failures, 0);
	assert_int_equal(r.nr, 0);
	pkgcmp_release(&r);
}

/* The module linked without its library: the NEEDED it lost and the
 * symbol it leaves undefined, both failures naming the file. */
static void test_lost_needed(void **state)
{
	struct pkgcmp_result r = PKGCMP_RESULT_INIT;
	const struct pkgcmp_finding *f;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	(void)state;
	make_arch();
	make_root("noneeded", "", "");
	compare("noneeded", 3, &r);
	assert_int_equal(r.failed, 1);
	f = find(&r, "usr/lib/mods/mod.so", PKGCMP_LOST_NEEDED);
	assert_non_null(f);
	assert_int_equal(f->items.nr, 1);
	assert_string_equal(f->items.v[0], "libdep.so.1");
	assert_string_equal(f->package, "pkg");
	f = find(&r, "usr/lib/mods/mod.so", PKGCMP_UNRESOLVED);
	assert_non_null(f);
	assert_int_equal(f->items.nr, 1);
	assert_string_equal(f->items.v[0], "dep_fn");
	mem = open_memstream(&text, &len);
	pkgcmp_print(mem, &r, 5);
	fclose(mem);
	assert_non_null(strstr(text, "FAIL usr/lib/mods/mod.so (pkg): does not need what the "
				     "archive's needs: libdep.so.1\n"));
	assert_non_null(strstr(text, "FAIL usr/lib/mods/mod.so (pkg): leaves undefined what no "
				     "library it needs defines (the archive's does not): dep_fn\n"));
	free(text);
	pkgcmp_release(&r);
}

/* An export removed: a failure naming it. */
static void test_lost_export(void **state)
{
	struct pkgcmp_result r = PKGCMP_RESULT_INIT;
	const struct pkgcmp_finding *f;
	char libs[160];
	(void)state;
	make_arch();
	snprintf(libs, sizeof(libs), "-L%s/sys -l:libdep.so.1", dir);
	make_root("noexport", "-DNO_EXTRA", libs);
	compare("noexport", 3, &r);
	f = find(&r, "usr/lib/mods/mod.so", PKGCMP_LOST_EXPORT);
	assert_non_null(f);
	assert_int_equal(f->items.nr, 1);
	assert_string_equal(f->items.v[0], "mod_extra");
	assert_int_equal(r.failures, 1);
	pkgcmp_release(&r);
}

/* A library needed in addition, with a new export: notes, no failure. */
static void test_new_needed(void **state)
{
	struct pkgcmp_result r = PKGCMP_RESULT_INIT;
	const struct pkgcmp_finding *f;
	char libs[160];
	(void)state;
	make_arch();
	snprintf(libs, sizeof(libs), "-L%s/sys -l:libdep.so.1 -Wl,--no-as-needed -lm", dir);
	make_root("more", "-DWITH_M", libs);
	compare("more", 3, &r);
	assert_int_equal(r.failures, 0);
	f = find(&r, "usr/lib/mods/mod.so", PKGCMP_NEW_NEEDED);
	assert_non_null(f);
	assert_int_equal(strvec_find(&f->items, "libm.so.6") >= 0, 1);
	assert_non_null(find(&r, "usr/lib/mods/mod.so", PKGCMP_NEW_EXPORT));
	assert_int_equal(pkgcmp_kind_fails(PKGCMP_NEW_NEEDED), 0);
	pkgcmp_release(&r);
}

/* A file of the package the archive's holds and ours not: a failure. */
static void test_missing_file(void **state)
{
	struct pkgcmp_result r = PKGCMP_RESULT_INIT;
	char libs[160];
	(void)state;
	make_arch();
	snprintf(libs, sizeof(libs), "-L%s/sys -l:libdep.so.1", dir);
	make_root("fewer", "", libs);
	sh("rm %s/fewer/usr/lib/mods/mod.so", dir);
	compare("fewer", 1, &r);   /* ours lists only usr/bin/prog */
	assert_non_null(find(&r, "usr/lib/mods/mod.so", PKGCMP_MISSING_FILE));
	/* liblib.so.1 is of libpkg1, a package ours has not built: not compared */
	assert_null(find(&r, "usr/lib/x86_64/liblib.so.1", PKGCMP_MISSING_FILE));
	assert_int_equal(r.failures, 1);
	pkgcmp_release(&r);
}

/* What the linker decides alone: a program's copy relocations of a
 * library's variables (stdout, defined in the archive's -no-pie program,
 * reached through the GOT in ours) are no exports of its own, and a
 * library linked but not used (--no-as-needed -lm in the archive's, left
 * out by ours) is a note, not a lost dependency. */
static void test_linker_choices(void **state)
{
	struct pkgcmp_result r = PKGCMP_RESULT_INIT;
	const struct pkgcmp_finding *f;
	char libs[160];
	(void)state;
	make_arch();
	sh("cd %s && printf '#include <stdio.h>\nint prog_api(int x) { return x + 1; }\n"
	   "int main(void) { fputs(\"x\", stdout); return prog_api(-1); }\n' > src/prog2.c && "
	   "gcc -no-pie -rdynamic -o arch/usr/bin/prog src/prog2.c -Wl,--no-as-needed -lm && "
	   "readelf --dyn-syms -W arch/usr/bin/prog | grep -q ' stdout'", dir);
	snprintf(libs, sizeof(libs), "-L%s/sys -l:libdep.so.1", dir);
	make_root("pic", "", libs);
	sh("cd %s && gcc -fPIC -pie -rdynamic -o pic/usr/bin/prog src/prog2.c -Wl,--as-needed -lm", dir);
	compare("pic", 3, &r);
	assert_null(find(&r, "usr/bin/prog", PKGCMP_LOST_EXPORT));
	assert_null(find(&r, "usr/bin/prog", PKGCMP_LOST_NEEDED));
	f = find(&r, "usr/bin/prog", PKGCMP_UNUSED_NEEDED);
	assert_non_null(f);
	assert_string_equal(f->items.v[0], "libm.so.6");
	assert_int_equal(r.failures, 0);
	pkgcmp_release(&r);
}

/* A root that is not there: an error, no findings. */
static void test_no_root(void **state)
{
	struct pkgcmp_result r = PKGCMP_RESULT_INIT;
	struct pkgcmp_opts o;
	struct strbuf err = STRBUF_INIT;
	(void)state;
	memset(&o, 0, sizeof(o));
	o.cand.root = "/nonexistent-pkgcompare";
	o.arch.root = "/";
	assert_int_equal(pkgcmp_compare(&o, &r, &err), -1);
	assert_string_equal(err.buf, "/nonexistent-pkgcompare: No such file or directory");
	assert_int_equal(r.nr, 0);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dynamic_view),
		cmocka_unit_test(test_same),
		cmocka_unit_test(test_lost_needed),
		cmocka_unit_test(test_lost_export),
		cmocka_unit_test(test_new_needed),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_linker_choices),
		cmocka_unit_test(test_no_root),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
