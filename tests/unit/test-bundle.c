/*
 * test-bundle.c - profile bundles as logic: where a unit's profile lives in
 * a bundle (policy_bundle_gcda), GCC's profile warnings read back from its
 * stderr (wrapper/bundle.c, on lines GCC 12 printed in tests/t/35), the
 * .gcda/.gcno reader (profile/gcov.c) on files written here in GCC 12's
 * format, the weighing of a build's compiles against a manifest
 * (bundle/check.c), and the check every use makes first
 * (common/bundle-verify.c: links, FIFOs, hard links, unlisted, missing
 * and changed files, paths outside the bundle, a policy's lists outside
 * it) with pgoptcc's verification stamp (wrapper/bundle.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "pgbuild/bundle/bundle.h"
#include "pgbuild/pgbuild.h"
#include "pgbuild/profile/gcov.h"
#include "wrapper/bundle.h"
#include "wrapper/common/bundle-verify.h"
#include "wrapper/common/sha256.h"
#include "wrapper/policy/policy.h"

static void gcda_is(const char *tu, const char *object, const char *want)
{
	char *got = policy_bundle_gcda(tu, object);
	if (!want)
		assert_null(got);
	else
		assert_string_equal(got, want);
	free(got);
}

static void test_gcda_path(void **state)
{
	(void)state;
	gcda_is("src/backend/access/heap/heapam.c", "heapam.o", "gcda/src/backend/access/heap/heapam.gcda");
	gcda_is("src/backend/access/heap/heapam.c", "/b/src/backend/access/heap/heapam.o",
		"gcda/src/backend/access/heap/heapam.gcda");
	/* one source, two objects: two profiles */
	gcda_is("src/common/string.c", "string_srv.o", "gcda/src/common/string_srv.gcda");
	gcda_is("main.c", "sub/main.o", "gcda/main.gcda");
	gcda_is("src/x.c", "x", "gcda/src/x.gcda");
	/* no bundle can hold these */
	gcda_is("/abs/x.c", "x.o", NULL);
	gcda_is("../x.c", "x.o", NULL);
	gcda_is("src/../../x.c", "x.o", NULL);
	gcda_is("src/..", "x.o", NULL);
	gcda_is("src/x.c", ".o", NULL);
	gcda_is("src/x.c", "dir/", NULL);
	gcda_is(NULL, "x.o", NULL);
	gcda_is("src/x.c", NULL, NULL);
}

static struct bundle_use scan(const char *text)
{
	struct bundle_use u;
	memset(&u, 0, sizeof(u));
	strvec_init(&u.mismatched);
	strvec_init(&u.moved);
	strvec_init(&u.missing);
	bundle_scan_diagnostics(&u, text, strlen(text));
	return u;
}

static char *joined(const struct strvec *sv)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < sv->nr; i++)
		strbuf_addf(&sb, "%s%s", i ? " " : "", sv->v[i]);
	return strbuf_detach(&sb, NULL);
}

static void lists_are(struct bundle_use *u, const char *mism, const char *moved, const char *missing)
{
	char *a = joined(&u->mismatched), *b = joined(&u->moved), *c = joined(&u->missing);
	assert_string_equal(a, mism);
	assert_string_equal(b, moved);
	assert_string_equal(c, missing);
	free(a);
	free(b);
	free(c);
	bundle_use_release(u);
}

static void test_diagnostics(void **state)
{
	/* GCC 12 in a UTF-8 locale (tests/t/35), with its source lines */
	static const char utf8[] =
		"hot.c: In function \xe2\x80\x98hot_branch\xe2\x80\x99:\n"
		"hot.c:2:5: warning: number of counters in profile data for function \xe2\x80\x98hot_branch\xe2\x80\x99 does not match its profile data (counter \xe2\x80\x98" "arcs\xe2\x80\x99, expected 2 and have 3) [-Wcoverage-mismatch]\n"
		"    2 | int hot_branch(int x) { if (x % 3) return x * 2; if (x == 7) return 1; return x - 1; }\n"
		"      |     ^~~~~~~~~~\n"
		"hot.c:2:5: warning: the control flow of function \xe2\x80\x98hot_branch\xe2\x80\x99 does not match its profile data (counter \xe2\x80\x98time_profiler\xe2\x80\x99) [-Wcoverage-mismatch]\n"
		"foo.c:8:5: warning: source locations for function \xe2\x80\x98" "cold\xe2\x80\x99 have changed, the profile data may be out of date [-Wcoverage-mismatch]\n"
		"foo.c:8:5: warning: source locations for function \xe2\x80\x98" "cold\xe2\x80\x99 have changed, the profile data may be out of date [-Wcoverage-mismatch]\n"
		"foo.c:10:5: warning: profile for function \xe2\x80\x98newf\xe2\x80\x99 not found in profile data [-Wmissing-profile]\n";
	/* the C locale's quotes, a warning made an error, and a function both
	 * moved and changed (it lost its profile) */
	static const char c_locale[] =
		"x.c:4:5: warning: source locations for function 'g' have changed, the profile data may be out of date [-Wcoverage-mismatch]\n"
		"x.c:4:5: error: the control flow of function 'g' does not match its profile data (counter 'arcs') [-Werror=coverage-mismatch]\n"
		"x.c:9:5: warning: source locations for function 'h' have changed, the profile data may be out of date [-Wcoverage-mismatch]";
	/* nothing to count: other warnings, a line without a name */
	static const char other[] =
		"x.c:1:1: warning: unused variable 'y' [-Wunused-variable]\n"
		"x.c: warning: something [-Wcoverage-mismatch]\n";
	struct bundle_use u;
	(void)state;
	u = scan(utf8);
	lists_are(&u, "hot_branch", "cold", "newf");
	u = scan(c_locale);
	lists_are(&u, "g", "h", "");
	u = scan(other);
	lists_are(&u, "", "", "");
	u = scan("");
	lists_are(&u, "", "", "");
}

/* ---------------- .gcda / .gcno in GCC 12's format ---------------- */

static void put32(struct strbuf *sb, uint32_t w)
{
	strbuf_add(sb, &w, 4);
}

static void put_string(struct strbuf *sb, const char *s)
{
	put32(sb, (uint32_t)strlen(s) + 1);
	strbuf_add(sb, s, strlen(s) + 1);
}

/* A .gcda: two functions, the second with all-zero counters (a negative
 * length, nothing stored), then the end word. */
static void make_gcda(struct strbuf *sb)
{
	put32(sb, 0x67636461u); put32(sb, 0x4232322au); put32(sb, 7); put32(sb, 0);
	put32(sb, 0xa1000000u); put32(sb, 8); put32(sb, 1); put32(sb, 0);  /* summary */
	put32(sb, 0x01000000u); put32(sb, 12); put32(sb, 11); put32(sb, 0x22); put32(sb, 0x33);
	put32(sb, 0x01a10000u); put32(sb, 24);
	put32(sb, 5); put32(sb, 0);          /* 5 */
	put32(sb, 0); put32(sb, 1);          /* 2^32 */
	put32(sb, 7); put32(sb, 0);          /* 7 */
	put32(sb, 0x01000000u); put32(sb, 12); put32(sb, 12); put32(sb, 0x44); put32(sb, 0x55);
	put32(sb, 0x01a10000u); put32(sb, (uint32_t)-16);
	put32(sb, 0);
}

static void make_gcno(struct strbuf *sb)
{
	put32(sb, 0x67636e6fu); put32(sb, 0x4232322au); put32(sb, 7); put32(sb, 0);
	put_string(sb, "/build/dir");
	put32(sb, 1);
	/* function 12 first (the order of the notes need not be the data's) */
	put32(sb, 0x01000000u); put32(sb, 12 + (4 + 5) + 4 + (4 + 4) + 16);
	put32(sb, 12); put32(sb, 0x44); put32(sb, 0x55); put_string(sb, "cold"); put32(sb, 0);
	put_string(sb, "x.c"); put32(sb, 3); put32(sb, 1); put32(sb, 3); put32(sb, 9);
	put32(sb, 0x01410000u); put32(sb, 4); put32(sb, 3);  /* blocks: skipped */
	put32(sb, 0x01000000u); put32(sb, 12 + (4 + 4) + 4 + (4 + 4) + 16);
	put32(sb, 11); put32(sb, 0x22); put32(sb, 0x33); put_string(sb, "hot"); put32(sb, 0);
	put_string(sb, "x.c"); put32(sb, 1); put32(sb, 1); put32(sb, 2); put32(sb, 9);
}

static void test_gcov(void **state)
{
	struct strbuf d = STRBUF_INIT, n = STRBUF_INIT, err = STRBUF_INIT;
	struct gcov_unit u = { 0 };
	(void)state;
	make_gcda(&d);
	make_gcno(&n);
	assert_int_equal(gcov_parse_gcda((unsigned char *)d.buf, d.len, "x.gcda", &u, &err), 0);
	assert_int_equal(gcov_parse_gcno((unsigned char *)n.buf, n.len, "x.gcno", &u, &err), 0);
	assert_int_equal(u.nr, 2);
	assert_string_equal(u.v[0].name, "hot");
	assert_true(u.v[0].arcs == 12 + ((uint64_t)1 << 32));
	assert_int_equal(u.v[0].cfg_checksum, 0x33);
	assert_string_equal(u.v[1].name, "cold");
	assert_true(u.v[1].arcs == 0);
	assert_true(u.arcs == u.v[0].arcs);
	gcov_unit_release(&u);

	/* errors name the file and what was expected */
	assert_int_equal(gcov_parse_gcda((unsigned char *)n.buf, n.len, "n.gcda", &u, &err), -1);
	assert_non_null(strstr(err.buf, "n.gcda: not a GCC .gcda file (magic 67636e6f)"));
	gcov_unit_release(&u);
	strbuf_setlen(&err, 0);
	assert_int_equal(gcov_parse_gcda((unsigned char *)d.buf, 60, "t.gcda", &u, &err), -1);
	assert_non_null(strstr(err.buf, "t.gcda: expected a record's data, found the end of the file"));
	gcov_unit_release(&u);
	strbuf_setlen(&err, 0);
	assert_int_equal(gcov_parse_gcda((unsigned char *)d.buf, 10, "h.gcda", &u, &err), -1);
	assert_non_null(strstr(err.buf, "h.gcda: expected a 4-byte word"));
	gcov_unit_release(&u);
	strbuf_release(&d);
	strbuf_release(&n);
	strbuf_release(&err);
}

/* ---------------- weighing ---------------- */

static const char manifest_text[] =
	"{\"kind\":\"pgopt-bundle\",\"version\":1,\"pgo\":{\"units\":["
	"{\"tu\":\"src/a.c\",\"object\":\"src/a.o\",\"profile\":\"gcda/src/a.gcda\",\"weight\":600,"
	" \"functions\":{\"hot\":500,\"warm\":100}},"
	"{\"tu\":\"src/b.c\",\"object\":\"src/b.o\",\"profile\":\"gcda/src/b.gcda\",\"weight\":300,"
	" \"functions\":{\"b\":300}},"
	"{\"tu\":\"src/c.c\",\"object\":\"src/c.o\",\"profile\":\"gcda/src/c.gcda\",\"weight\":100,"
	" \"functions\":{\"c\":100}}]}}";

static int same(const char *a, const char *b)
{
	return !strcmp(a, b);
}

static struct bundle_compile compile(const char *tu, const char *obj, const char *dir,
				     const char *profile, const char *refused)
{
	struct bundle_compile c;
	memset(&c, 0, sizeof(c));
	c.tu = xstrdup(tu);
	c.object = xstrdup(obj);
	c.dir = dir ? xstrdup(dir) : NULL;
	c.profile = profile ? xstrdup(profile) : NULL;
	strvec_init(&c.refused);
	strvec_init(&c.moved);
	strvec_init(&c.missing);
	if (refused)
		strvec_split(&c.refused, refused);
	return c;
}

static void test_weigh(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct json_value *m = json_parse(manifest_text, strlen(manifest_text), &err);
	struct bundle_compile c[4];
	struct bundle_weigh w;
	(void)state;
	assert_non_null(m);
	/* a: hot refused (and one function without weight); b: built without
	 * the bundle; c: not built; a compile of another bundle */
	c[0] = compile("src/a.c", "/p/src/a.o", "/B", "gcda/src/a.gcda", "hot nocount");
	c[1] = compile("src/b.c", "/p/src/b.o", NULL, NULL, NULL);
	c[2] = compile("src/d.c", "/p/src/d.o", "/other", "gcda/src/d.gcda", NULL);
	c[3] = compile("src/c.c", "/p/src/c.o", "/other", "gcda/src/c.gcda", NULL);
	assert_int_equal(bundle_weigh(m, c, 4, same, "/B", &w, &err), 0);
	assert_true(w.weight == 1000);
	assert_true(w.used == 100);           /* warm alone */
	assert_int_equal(w.compiled, 1);
	assert_int_equal(w.refused, 2);
	assert_int_equal(w.foreign, 2);
	assert_string_equal(w.units[0].state, "used");
	assert_true(w.units[0].lost == 500);
	assert_string_equal(w.units[1].state, "without its profile");
	assert_true(w.units[1].lost == 300);
	assert_string_equal(w.units[2].state, "without its profile");  /* another bundle's */
	bundle_weigh_release(&w);
	/* "not found": a function the training ran (another id: a static
	 * function from another source path) loses its weight, a new one
	 * weighs nothing */
	for (int i = 0; i < 4; i++)
		bundle_compile_release(&c[i]);
	c[0] = compile("src/a.c", "/q/src/a.o", "/B", "gcda/src/a.gcda", NULL);
	strvec_split(&c[0].missing, "warm brand_new");
	assert_int_equal(bundle_weigh(m, c, 1, same, "/B", &w, &err), 0);
	assert_true(w.units[0].lost == 100 && w.missing == 2 && w.not_found == 1);
	bundle_weigh_release(&w);
	bundle_compile_release(&c[0]);
	/* all used */
	c[0] = compile("src/a.c", "/q/src/a.o", "/B", "gcda/src/a.gcda", NULL);
	c[1] = compile("src/b.c", "/q/src/b.o", "/B", "gcda/src/b.gcda", NULL);
	c[2] = compile("src/c.c", "/q/src/c.o", "/B", "gcda/src/c.gcda", NULL);
	assert_int_equal(bundle_weigh(m, c, 3, same, "/B", &w, &err), 0);
	assert_true(w.used == 1000 && w.compiled == 3 && w.foreign == 0);
	bundle_weigh_release(&w);
	/* nothing built */
	assert_int_equal(bundle_weigh(m, c, 0, same, "/B", &w, &err), 0);
	assert_true(w.used == 0 && !strcmp(w.units[2].state, "not built"));
	bundle_weigh_release(&w);
	for (int i = 0; i < 3; i++)
		bundle_compile_release(&c[i]);
	json_free(m);
	/* a bundle without PGO */
	m = json_parse("{\"pgo\":null}", 12, &err);
	assert_int_equal(bundle_weigh(m, NULL, 0, same, "/B", &w, &err), -1);
	assert_non_null(strstr(err.buf, "the bundle has no PGO profile"));
	json_free(m);
	strbuf_release(&err);
}


/* ---------------- the check before any use ---------------- */

static char top[64];          /* this test's directory */
static char bdir[96];         /* the bundle in it */

/* The files of the test bundle: path, content (NULL: end). */
struct member {
	const char *rel, *text;
};

static const struct member good[] = {
	{ "pgopt.policy", "[global]\nhot = lists/hot.txt\n" },
	{ "lists/hot.txt", "hot_step\n" },
	{ "gcda/src/a.gcda", "adcg\x01\x02\x03 counts" },
	{ NULL, NULL },
};

static void put_at(const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", bdir, rel), *slash = strrchr(p, '/');
	*slash = '\0';
	assert_int_equal(mkdir_p(p), 0);
	*slash = '/';
	assert_int_equal(write_file_atomic_quiet(p, text, strlen(text)), 0);
	free(p);
}

static void hex_of(const char *text, char hex[SHA256_HEX_SIZE])
{
	struct sha256 c;
	sha256_init(&c);
	sha256_update(&c, text, strlen(text));
	sha256_final_hex(&c, hex);
}

/* The manifest listing files (and the lines of extra, "path": "value"). */
static void put_manifest(const struct member *files, const char *extra)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "{\"kind\":\"pgopt-bundle\",\"version\":1,\"policy\":\"pgopt.policy\",\"files\":{");
	for (size_t i = 0; files[i].rel; i++) {
		char hex[SHA256_HEX_SIZE];
		hex_of(files[i].text, hex);
		strbuf_addf(&sb, "%s\"%s\":\"%s\"", i ? "," : "", files[i].rel, hex);
	}
	if (extra)
		strbuf_addf(&sb, ",%s", extra);
	strbuf_addstr(&sb, "}}\n");
	put_at(BUNDLE_MANIFEST_NAME, sb.buf);
	strbuf_release(&sb);
}

/* A fresh bundle of files, with its manifest. */
static void make_bundle(const struct member *files)
{
	char *cmd = xasprintf("rm -rf %s", bdir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	for (size_t i = 0; files[i].rel; i++)
		put_at(files[i].rel, files[i].text);
	put_manifest(files, NULL);
}

static int setup(void **state)
{
	(void)state;
	snprintf(top, sizeof(top), "/tmp/pgopt-bundle-XXXXXX");
	if (!mkdtemp(top))
		return -1;
	snprintf(bdir, sizeof(bdir), "%s/B", top);
	return 0;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf %s", top);
	int r = system(cmd);
	(void)state;
	free(cmd);
	return r == 0 ? 0 : -1;
}

static char *at(const char *rel)
{
	return xasprintf("%s/%s", bdir, rel);
}

/* bundle_verify refuses, with want in its sentence. */
static void refused(const char *want)
{
	struct bundle_verified bv = BUNDLE_VERIFIED_INIT;
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(bundle_verify(bdir, &bv, &err), -1);
	if (!strstr(err.buf, want))
		fail_msg("expected \"%s\" in \"%s\"", want, err.buf);
	assert_int_equal(bv.dirfd, -1);
	strbuf_release(&err);
}

static void test_verify(void **state)
{
	struct bundle_verified bv = BUNDLE_VERIFIED_INIT;
	struct strbuf err = STRBUF_INIT, data = STRBUF_INIT;
	char hex[SHA256_HEX_SIZE], *p, *q;
	(void)state;

	make_bundle(good);
	assert_int_equal(bundle_verify(bdir, &bv, &err), 0);
	assert_int_equal(bv.nr, 3);
	assert_string_equal(bv.files[0].rel, "gcda/src/a.gcda");   /* sorted */
	hex_of(good[2].text, hex);
	assert_string_equal(bv.files[0].sha256, hex);
	assert_non_null(bv.manifest);
	assert_int_equal(bundle_verified_read(&bv, "gcda/src/a.gcda", &data, &err), 1);
	assert_string_equal(data.buf, good[2].text);
	/* not listed and not there: a unit without a profile */
	assert_int_equal(bundle_verified_read(&bv, "gcda/src/b.gcda", &data, &err), 0);
	assert_int_equal(err.len, 0);
	/* the policy's lists: its own files only */
	p = at("lists/hot.txt");
	assert_int_equal(bundle_verified_list_ok(&bv, "hot", p, &err), 0);
	assert_int_equal(bundle_verified_list_ok(&bv, "hot", NULL, &err), 0);
	free(p);
	p = at("../lists/hot.txt");
	q = at("lists/none.txt");
	assert_int_equal(bundle_verified_list_ok(&bv, "hot", "/etc/shadow", &err), -1);
	assert_int_equal(bundle_verified_list_ok(&bv, "hot", p, &err), -1);
	assert_int_equal(bundle_verified_list_ok(&bv, "cold", q, &err), -1);
	assert_non_null(strstr(err.buf, "pgopt.policy: hot = /etc/shadow: a bundle's policy names "
				      "lists among the bundle's files only"));
	free(p);
	free(q);
	strbuf_reset(&err);

	/* read after the check: changed, replaced by a link, an unlisted file */
	put_at("gcda/src/a.gcda", "other bytes");
	assert_int_equal(bundle_verified_read(&bv, "gcda/src/a.gcda", &data, &err), -1);
	assert_non_null(strstr(err.buf, "gcda/src/a.gcda: its sha256 is "));
	assert_non_null(strstr(err.buf, hex));
	strbuf_reset(&err);
	p = at("gcda/src/a.gcda");
	assert_int_equal(unlink(p), 0);
	assert_int_equal(symlink("/etc/shadow", p), 0);
	free(p);
	assert_int_equal(bundle_verified_read(&bv, "gcda/src/a.gcda", &data, &err), -1);
	assert_non_null(strstr(err.buf, "symbolic link"));
	strbuf_reset(&err);
	put_at("gcda/src/b.gcda", "planted");
	assert_int_equal(bundle_verified_read(&bv, "gcda/src/b.gcda", &data, &err), -1);
	assert_non_null(strstr(err.buf, "B/gcda/src/b.gcda is not listed in the manifest"));
	/* nothing was appended by the refusals */
	assert_string_equal(data.buf, good[2].text);
	bundle_verified_release(&bv);
	strbuf_release(&err);
	strbuf_release(&data);
}

static void test_verify_refusals(void **state)
{
	char *p, *q;
	(void)state;

	/* a member replaced by a link to a root-only file */
	make_bundle(good);
	p = at("gcda/src/a.gcda");
	unlink(p);
	assert_int_equal(symlink("/etc/shadow", p), 0);
	refused("B/gcda/src/a.gcda is a symbolic link: a bundle holds regular files and directories only");
	/* a directory replaced by a link */
	make_bundle(good);
	q = xasprintf("rm -rf %s/gcda && ln -s /etc %s/gcda", bdir, bdir);
	assert_int_equal(system(q), 0);
	free(q);
	refused("B/gcda is a symbolic link");
	/* changed bytes */
	make_bundle(good);
	put_at("gcda/src/a.gcda", "changed");
	refused("B/gcda/src/a.gcda: its sha256 is ");
	refused(", the manifest says ");
	/* a file the manifest does not list */
	make_bundle(good);
	put_at("gcda/src/extra.gcda", "x");
	refused("B/gcda/src/extra.gcda is not listed in the manifest");
	/* a FIFO */
	make_bundle(good);
	unlink(p);
	assert_int_equal(mkfifo(p, 0644), 0);
	refused("B/gcda/src/a.gcda is a FIFO: a bundle holds regular files and directories only");
	/* a listed file missing */
	make_bundle(good);
	unlink(p);
	refused("B/gcda/src/a.gcda is listed in the manifest and missing from the bundle");
	/* a hard link: it could be another file's */
	make_bundle(good);
	q = xasprintf("%s/other-name", top);
	unlink(q);
	assert_int_equal(link(p, q), 0);
	refused("has 2 names (a hard link");
	free(q);
	/* the manifest itself a link */
	make_bundle(good);
	q = xasprintf("mv %s/%s %s/m.json && ln -s %s/m.json %s/%s", bdir, BUNDLE_MANIFEST_NAME, top,
		      top, bdir, BUNDLE_MANIFEST_NAME);
	assert_int_equal(system(q), 0);
	free(q);
	refused("pgopt-bundle.json is a symbolic link: a bundle's manifest is a regular file");
	/* ... or a hard link */
	make_bundle(good);
	q = xasprintf("%s/manifest-name", top);
	unlink(q);
	free(p);
	p = at(BUNDLE_MANIFEST_NAME);
	assert_int_equal(link(p, q), 0);
	refused("pgopt-bundle.json has 2 names (a hard link");
	free(q);
	free(p);
	p = at("gcda/src/a.gcda");
	/* paths outside the bundle, malformed entries */
	static const struct {
		const char *extra, *want;
	} bad[] = {
		{ "\"../secret\":\"" "0000000000000000000000000000000000000000000000000000000000000000\"",
		  "files: \"../secret\" is no path inside the bundle" },
		{ "\"/etc/shadow\":\"" "0000000000000000000000000000000000000000000000000000000000000000\"",
		  "files: \"/etc/shadow\" is no path inside the bundle" },
		{ "\"gcda/./x\":\"" "0000000000000000000000000000000000000000000000000000000000000000\"",
		  "files: \"gcda/./x\" is no path inside the bundle" },
		{ "\"gcda//x\":\"" "0000000000000000000000000000000000000000000000000000000000000000\"",
		  "files: \"gcda//x\" is no path inside the bundle" },
		{ "\"a\\nb\":\"" "0000000000000000000000000000000000000000000000000000000000000000\"",
		  "is no path inside the bundle" },
		{ "\"gcda/src/a.gcda\":\"" "0000000000000000000000000000000000000000000000000000000000000000\"",
		  "files: \"gcda/src/a.gcda\" is listed twice" },
		{ "\"x\":\"abc\"", "files: \"x\": expected its sha256" },
		{ "\"x\":1", "files: \"x\": expected its sha256" },
		{ "\"pgopt-bundle.json\":\"" "0000000000000000000000000000000000000000000000000000000000000000\"",
		  "the manifest lists itself" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		make_bundle(good);
		put_manifest(good, bad[i].extra);
		refused(bad[i].want);
	}
	make_bundle(good);
	put_at(BUNDLE_MANIFEST_NAME, "{\"kind\":\"other\",\"version\":1,\"files\":{}}");
	refused("expected \"kind\": \"pgopt-bundle\" and \"version\": 1");
	free(p);
}

/* pgoptcc's side: the stamp, and what every compile still checks. */
static void test_trust_stamp(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct bundle_use u;
	char *logdir = xasprintf("%s/log", top), *stamps = xasprintf("%s/log/bundle-verified", top);
	char *gcda = at("gcda/src/a.gcda"), *manifest = at(BUNDLE_MANIFEST_NAME);
	struct stat st;
	(void)state;

	make_bundle(good);
	assert_int_equal(mkdir_p(logdir), 0);
	assert_int_equal(bundle_trust(bdir, logdir, &err), 0);
	assert_int_equal(stat(stamps, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(bundle_lookup("src/a.c", "obj/a.o", &u, &err), 1);
	assert_string_equal(u.data.buf, good[2].text);
	assert_string_equal(u.dest, "obj/a.gcda");
	assert_string_equal(u.rel, "gcda/src/a.gcda");
	bundle_use_release(&u);
	assert_int_equal(bundle_lookup("src/b.c", "obj/b.o", &u, &err), 0);

	/* a profile changed after the first check: the stamp spares the
	 * whole check, the compile that reads the file refuses it */
	put_at("gcda/src/a.gcda", "changed later");
	assert_int_equal(bundle_trust(bdir, logdir, &err), 0);
	assert_int_equal(bundle_lookup("src/a.c", "obj/a.o", &u, &err), -1);
	assert_non_null(strstr(err.buf, "gcda/src/a.gcda: its sha256 is "));
	strbuf_reset(&err);
	/* ... without a stamp the whole check refuses at once */
	assert_int_equal(bundle_trust(bdir, NULL, &err), -1);
	assert_non_null(strstr(err.buf, "gcda/src/a.gcda: its sha256 is "));
	strbuf_reset(&err);
	/* a changed policy is refused with the stamp too (it is hashed again) */
	make_bundle(good);
	assert_int_equal(bundle_trust(bdir, logdir, &err), 0);
	put_at("pgopt.policy", "[global]\nhot = /etc/shadow\n");
	assert_int_equal(bundle_trust(bdir, logdir, &err), -1);
	assert_non_null(strstr(err.buf, "B/pgopt.policy: its sha256 is "));
	strbuf_reset(&err);
	/* a policy whose list is outside the bundle, listed with its hash */
	{
		static const struct member outside[] = {
			{ "pgopt.policy", "[global]\nhot = /etc/shadow\n" },
			{ "gcda/src/a.gcda", "adcg" },
			{ NULL, NULL },
		};
		make_bundle(outside);
		assert_int_equal(bundle_trust(bdir, logdir, &err), -1);
		assert_non_null(strstr(err.buf, "hot = /etc/shadow: a bundle's policy names lists among "
					       "the bundle's files only"));
		strbuf_reset(&err);
	}
	/* a new manifest (new ctime) is checked whole again */
	make_bundle(good);
	assert_int_equal(bundle_trust(bdir, logdir, &err), 0);
	put_at("gcda/src/a.gcda", "changed");
	put_manifest(good, NULL);
	assert_int_equal(bundle_trust(bdir, logdir, &err), -1);
	assert_non_null(strstr(err.buf, "gcda/src/a.gcda: its sha256 is "));
	strbuf_reset(&err);
	/* a stamp directory that is not the caller's is not trusted */
	if (geteuid() == 0) {
		make_bundle(good);
		assert_int_equal(bundle_trust(bdir, logdir, &err), 0);
		put_at("gcda/src/a.gcda", "changed");
		assert_int_equal(chown(stamps, 65534, 65534), 0);
		assert_int_equal(bundle_trust(bdir, logdir, &err), -1);
		assert_non_null(strstr(err.buf, "gcda/src/a.gcda: its sha256 is "));
		strbuf_reset(&err);
	}
	free(logdir);
	free(stamps);
	free(gcda);
	free(manifest);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gcda_path),
		cmocka_unit_test(test_diagnostics),
		cmocka_unit_test(test_gcov),
		cmocka_unit_test(test_weigh),
		cmocka_unit_test(test_verify),
		cmocka_unit_test(test_verify_refusals),
		cmocka_unit_test(test_trust_stamp),
	};
	error_set_program("pgbuild", 2);
	return cmocka_run_group_tests(tests, setup, teardown);
}
