/*
 * test-pipeline-debenv.c - unit tests of pgbuild/pipeline/debenv.c: which
 * program names a build finds (NAME, NAME[-]VERSION), the source stanza
 * of a debian/control (continuation lines, comments, the first paragraph
 * only), the relations of a Build-Depends (alternatives, versions,
 * architecture and profile restrictions, substitution variables), and the
 * chroot's removal, refused while something is mounted below it (as
 * root, with a tmpfs: remove_tree would empty the mount).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "pgbuild/pipeline/debenv.h"
#include "wrapper/common/error.h"

static void test_probe_matches(void **state)
{
	static const struct {
		const char *program, *name;
		int match;
	} rows[] = {
		{ "llvm-config", "llvm-config", 1 },
		{ "llvm-config", "llvm-config-15", 1 },
		{ "llvm-config", "llvm-config-6.0", 1 },
		{ "llvm-config", "llvm-config-", 0 },
		{ "llvm-config", "llvm-config.", 0 },
		{ "llvm-config", "llvm-config-x", 0 },
		{ "llvm-config", "llvm-configure", 0 },
		{ "clang", "clang-14", 1 },
		{ "clang", "clang++-14", 0 },
		{ "clang", "clang-cpp-15", 0 },
		{ "clang", "clang-format", 0 },
		{ "python3", "python3.11", 1 },
		{ "python3", "python3-config", 0 },
		{ "python3", "python3.11-config", 0 },
		{ "tclsh", "tclsh8.6", 1 },
		{ "tclsh", "tcl", 0 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (debenv_probe_matches(rows[i].program, rows[i].name) != rows[i].match)
			fail_msg("%s against %s: expected %d", rows[i].program, rows[i].name,
				 rows[i].match);
}

static void test_control_field(void **state)
{
	static const char control[] =
		"# a comment\n"
		"Source: postgresql-15\n"
		"Build-Depends:\n"
		" autoconf,\n"
		"# a comment inside\n"
		" clang [!alpha !hppa],\n"
		"\tlibpam0g-dev | libpam-dev\n"
		"Build-Depends-Indep: docbook-xml\n"
		"\n"
		"Package: postgresql-15\n"
		"Build-Depends: not-this-one\n";
	char *v;
	(void)state;
	v = debenv_control_field(control, "build-depends");
	assert_string_equal(v, "autoconf,  clang [!alpha !hppa], \tlibpam0g-dev | libpam-dev");
	free(v);
	v = debenv_control_field(control, "Source");
	assert_string_equal(v, "postgresql-15");
	free(v);
	assert_null(debenv_control_field(control, "Build-Depends-Arch"));
	assert_null(debenv_control_field(control, "Package"));
}

static void test_relation_groups(void **state)
{
	struct strvec g = STRVEC_INIT;
	static const char *const want[] = {
		"autoconf", "clang", "debhelper-compat", "gdb", "libpam0g-dev|libpam-dev",
		"libselinux1-dev", "lz4|liblz4-tool", "python3", "perl",
	};
	(void)state;
	debenv_relation_groups("autoconf, clang [!alpha !hppa], debhelper-compat (= 13), "
			       "gdb <!nocheck>, libpam0g-dev | libpam-dev, "
			       "libselinux1-dev [linux-any], lz4 | liblz4-tool (>= 1.0) <!x>, "
			       "${shlibs:Depends}, python3:any, perl:native (>= 5)", &g);
	assert_int_equal(g.nr, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < g.nr; i++)
		assert_string_equal(g.v[i], want[i]);
	strvec_clear(&g);
	debenv_relation_groups(NULL, &g);
	debenv_relation_groups("", &g);
	assert_int_equal(g.nr, 0);
}

/* A chroot with a mount below it is never removed. */
static void test_chroot_remove(void **state)
{
	char dir[] = "/tmp/test-debenv.XXXXXX", sub[128], file[160];
	FILE *fp;
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/chroot/proc", dir);
	snprintf(file, sizeof(file), "%s/kept", sub);
	assert_int_equal(system("true"), 0);
	{
		char cmd[256];
		snprintf(cmd, sizeof(cmd), "mkdir -p %s", sub);
		assert_int_equal(system(cmd), 0);
	}
	if (geteuid() != 0 || mount("pgbuild-test", sub, "tmpfs", 0, "size=1m") < 0) {
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		assert_int_equal(system(cmd), 0);
		skip();
	}
	fp = fopen(file, "w");
	assert_non_null(fp);
	fclose(fp);
	{
		char chroot_dir[96];
		snprintf(chroot_dir, sizeof(chroot_dir), "%s/chroot", dir);
		assert_int_equal(debenv_chroot_remove(chroot_dir), -1);
		assert_int_equal(access(file, F_OK), 0);   /* the mount's file is there */
		assert_int_equal(umount(sub), 0);
		assert_int_equal(debenv_chroot_remove(chroot_dir), 0);
		assert_int_equal(access(chroot_dir, F_OK), -1);
		/* a chroot that is not there: nothing to do */
		assert_int_equal(debenv_chroot_remove(chroot_dir), 0);
	}
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_matches),
		cmocka_unit_test(test_control_field),
		cmocka_unit_test(test_relation_groups),
		cmocka_unit_test(test_chroot_remove),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
