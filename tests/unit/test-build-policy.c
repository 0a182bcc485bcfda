/*
 * test-build-policy.c - unit tests of pgbuild/build/policy.c on policy
 * files the test writes: the hash `pgbuild build` records as
 * policy.sha256 (what decides whether an incremental build must replay
 * its compiles) is the hash of the policy's text and of every hot/cold
 * list it names, so the same text anywhere hashes alike and an edited
 * list is a policy change; "none" hashes the empty text; the LTO mode and
 * the lists are read as pgoptcc reads them; a policy pgoptcc would refuse
 * is refused with its FILE:LINE.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pgbuild/build/build.h"
#include "pgbuild/pgbuild.h"
#include "tests/unit/fixture.h"
#include "wrapper/common/sha256.h"

static char *tmpdir;

static int setup(void **state)
{
	if (!(tmpdir = scratch_dir_make("test-build-policy")))
		return -1;
	unsetenv("PGOPT_UNCHECKED_FLAGS");
	return 0;
}

static int teardown(void **state)
{
	scratch_dir_remove(tmpdir);
	return 0;
}

static char *write_tmp(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", tmpdir, name);
	assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
	return path;
}

static void sha_hex(const char *text, size_t len, char hex[SHA256_HEX_SIZE])
{
	struct sha256 c;
	sha256_init(&c);
	sha256_update(&c, text, len);
	sha256_final_hex(&c, hex);
}

static void test_none_and_text(void **state)
{
	static const char text[] = "[global]\ncflags += -O2\n\n[src/a.c]\ncflags += -O3\n";
	char hex[SHA256_HEX_SIZE], *sha, *p1, *p2, *sha2;

	sha = build_policy_sha("none");
	assert_non_null(sha);
	assert_string_equal(sha, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	free(sha);

	/* a policy naming no list: the hash of its text, wherever it lives */
	p1 = write_tmp("one.policy", text);
	p2 = write_tmp("two.policy", text);
	sha = build_policy_sha(p1);
	sha2 = build_policy_sha(p2);
	sha_hex(text, strlen(text), hex);
	assert_non_null(sha);
	assert_string_equal(sha, hex);
	assert_string_equal(sha, sha2);
	free(sha2);

	/* a comment is an edit of the text: another hash */
	free(p2);
	p2 = write_tmp("two.policy", "# edited\n[global]\ncflags += -O2\n\n[src/a.c]\ncflags += -O3\n");
	sha2 = build_policy_sha(p2);
	assert_non_null(sha2);
	assert_string_not_equal(sha, sha2);
	free(sha);
	free(sha2);
	free(p1);
	free(p2);
}

/* Every lto value is recorded as written (pgopt-build.json's policy.lto). */
static void test_lto_modes(void **state)
{
	static const char *const modes[] = { "on", "fat", "slim", "off" };
	(void)state;
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		char *text = xasprintf("[global]\nlto = %s\n", modes[i]);
		char *p = write_tmp("lto.policy", text);
		struct build b;
		build_init(&b);
		b.o.policy = p;
		assert_int_equal(build_load_policy(&b), 0);
		assert_string_equal(b.lto_mode, modes[i]);
		assert_int_equal(b.lto, strcmp(modes[i], "off") != 0);
		build_release(&b);
		free(text);
		free(p);
	}
}

static void test_lists_are_the_policy(void **state)
{
	char *hot = write_tmp("hot.txt", "ExecInterpExpr\nhash_search\n");
	char *cold = write_tmp("cold.txt", "elog_start\n");
	char *p = write_tmp("lists.policy", "[global]\nlto = on\nhot = hot.txt\ncold = cold.txt\n");
	char *before, *after;
	struct build b;

	build_init(&b);
	b.o.policy = p;
	assert_int_equal(build_load_policy(&b), 0);
	assert_string_equal(b.lto_mode, "on");
	assert_int_equal(b.lto, 1);
	/* key, path pairs, paths relative to the policy made absolute */
	assert_int_equal(b.policy_refs.nr, 4);
	assert_string_equal(b.policy_refs.v[0], "hot");
	assert_non_null(strstr(b.policy_refs.v[1], "/hot.txt"));
	assert_string_equal(b.policy_refs.v[2], "cold");
	assert_string_equal(b.policy_ref_text.v[0], "ExecInterpExpr\nhash_search\n");
	assert_string_equal(b.policy_ref_text.v[1], "elog_start\n");
	before = xstrdup(b.policy_sha);
	build_release(&b);

	/* the policy's text is the same; its hot list is not */
	after = build_policy_sha(p);
	assert_non_null(after);
	assert_string_equal(after, before);
	free(after);
	free(write_tmp("hot.txt", "ExecInterpExpr\n"));
	after = build_policy_sha(p);
	assert_non_null(after);
	assert_string_not_equal(before, after);
	free(before);
	free(after);
	free(hot);
	free(cold);
	free(p);
}

static void test_refused(void **state)
{
	static const struct {
		const char *text;
		const char *want;     /* in the error, after the file's name */
	} t[] = {
		{ "[global]\ncflgs += -O2\n", ":2: " },
		{ "[global]\nlto = yes\n", ":2: " },
		{ "[src/a.c]\nlto = on\n", ":2: " },
		{ "[global]\nhot = no-such-list.txt\n", "no-such-list.txt" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(*t); i++) {
		char *p = write_tmp("bad.policy", t[i].text);
		char *err = NULL, *sha, *want = xasprintf("bad.policy%s", t[i].want);
		size_t len = 0;
		FILE *saved = stderr;

		stderr = open_memstream(&err, &len);
		sha = build_policy_sha(p);
		fclose(stderr);
		stderr = saved;
		if (sha || !strstr(err, t[i].want) || (t[i].want[0] == ':' && !strstr(err, want)))
			fail_msg("%s: sha %s, error \"%s\"", t[i].text, sha ? sha : "(null)", err);
		free(want);
		free(err);
		free(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none_and_text),
		cmocka_unit_test(test_lists_are_the_policy),
		cmocka_unit_test(test_lto_modes),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
