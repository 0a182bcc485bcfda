/*
 * test-profile.c - unit tests of pgbuild/profile/data.c (and the pure parts
 * of profile/run.c): perf report and gcov JSON parsing, symbol base names,
 * the name -> unit map (globals win, statics may be ambiguous), ranking,
 * coverage cut-offs, hot/cold lists, the emitted policy (parsed back with
 * the wrapper's own policy parser), the JSON round trip, and the user's
 * policy as pgo copies it into its generated policies (profile/pgo.c), the
 * training workloads' options (--train, and -W its older spelling), and the
 * walks of .gcda trees (a training's, a build tree's) and of pgo's relink.
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

#include "wrapper/policy/policy.h"
#include "pgbuild/profile/data.h"
#include "pgbuild/profile/pgo.h"
#include "pgbuild/cli/cli.h"
#include "pgbuild/build/build.h"
#include "pgbuild/profile/run.h"
#include "wrapper/common/dir.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/xalloc.h"

#include "tests/unit/fixture.h"

/* What `perf report --stdio --no-children -n --sort dso,sym -g none -t TAB` prints. */
static const char perf_text[] =
	"# To display the perf.data header info, please use --header/--header-only options.\n"
	"#\n"
	"# Samples: 2K of event 'cpu-clock'\n"
	"# Overhead\t     Samples\tShared Object      \tSymbol                                       \n"
	" 38.61% \t 851        \t[kernel.kallsyms]  \t[k] finish_task_switch.isra.0\n"
	" 3.09%  \t 68         \tpostgres           \t[.] _bt_compare\n"
	" 3.04%  \t 67         \tpostgres           \t[.] hash_search_with_hash_value\n"
	" 1.27%  \t 28         \tpostgres           \t[.] heap_page_prune_opt\n"
	" 1.13%  \t 25         \t[vdso]             \t[.] __vdso_gettimeofday\n"
	" 0.82%  \t 18         \tpostgres           \t[.] 0x000000000043cb22\n"
	" 0.68%  \t 15         \tpostgres           \t[.] LWLockRelease\n"
	" 0.50%  \t 11         \tpostgres           \t[.] tuplesort_heap.isra.0\n"
	" 0.30%  \t 7          \tpostgres           \t[.] tuplesort_heap.cold\n"
	" 0.40%  \t 9          \tlibc.so.6          \t[.] __strlen_evex\n"
	"\n";

static void test_base_name(void **state)
{
	struct { const char *in, *out; } t[] = {
		{ "foo", "foo" }, { "foo.isra.0", "foo" }, { "foo.cold", "foo" },
		{ "ExecInterpExpr.part.0.lto_priv.0", "ExecInterpExpr" },
		{ "[unknown]", "[unknown]" }, { ".hidden", ".hidden" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *b = prof_base_name(t[i].in);
		assert_string_equal(b, t[i].out);
		free(b);
	}
}

static void test_parse_perf(void **state)
{
	struct profile p;
	struct strbuf err = STRBUF_INIT;
	prof_init(&p, "perf");
	assert_int_equal(prof_parse_perf(&p, perf_text, "postgres", &err), 10);
	prof_finish(&p);
	assert_true(p.total == 851 + 68 + 67 + 28 + 25 + 18 + 15 + 11 + 7 + 9);
	assert_true(p.server == 68 + 67 + 28 + 18 + 15 + 11 + 7);
	assert_string_equal(p.v[0].name, "finish_task_switch.isra.0");
	assert_false(p.v[0].in_server);
	assert_string_equal(p.v[1].name, "_bt_compare");
	assert_true(p.v[1].in_server);
	/* unresolved addresses become one [unknown] entry */
	int unknown = 0;
	for (size_t i = 0; i < p.nr; i++)
		if (!strcmp(p.v[i].name, "[unknown]"))
			unknown++;
	assert_int_equal(unknown, 1);
	prof_release(&p);

	prof_init(&p, "perf");
	assert_int_equal(prof_parse_perf(&p, "# nothing\n", "postgres", &err), -1);
	assert_non_null(strstr(err.buf, "no samples"));
	prof_release(&p);
	strbuf_release(&err);
}

static void build_map(struct prof_map *m)
{
	prof_map_add(m, "_bt_compare", "src/backend/access/nbtree/nbtsearch.c", 1);
	prof_map_add(m, "hash_search_with_hash_value", "src/backend/utils/hash/dynahash.c", 1);
	prof_map_add(m, "hash_search", "src/backend/utils/hash/dynahash.c", 1);
	prof_map_add(m, "heap_page_prune_opt", "src/backend/access/heap/pruneheap.c", 1);
	prof_map_add(m, "LWLockRelease", "src/backend/storage/lmgr/lwlock.c", 1);
	prof_map_add(m, "LWLockAcquire", "src/backend/storage/lmgr/lwlock.c", 1);
	/* a static in two units: ambiguous */
	prof_map_add(m, "tuplesort_heap.isra.0", "src/backend/utils/sort/tuplesort.c", 0);
	prof_map_add(m, "tuplesort_heap", "src/backend/utils/sort/other.c", 0);
	/* a static and a global of one name: the global wins */
	prof_map_add(m, "dup", "src/a.c", 0);
	prof_map_add(m, "dup", "src/b.c", 1);
	/* the same definition twice (object and archive member) */
	prof_map_add(m, "LWLockAcquire", "src/backend/storage/lmgr/lwlock.c", 1);
	prof_map_sort(m);
}

static void test_map(void **state)
{
	struct prof_map m = PROF_MAP_INIT;
	int amb;
	build_map(&m);
	assert_string_equal(prof_map_lookup(&m, "_bt_compare", &amb), "src/backend/access/nbtree/nbtsearch.c");
	assert_int_equal(amb, 0);
	assert_string_equal(prof_map_lookup(&m, "dup", &amb), "src/b.c");
	assert_int_equal(amb, 0);
	assert_non_null(prof_map_lookup(&m, "tuplesort_heap", &amb));
	assert_int_equal(amb, 1);
	assert_null(prof_map_lookup(&m, "nonexistent", &amb));
	assert_null(prof_map_lookup(&m, "", NULL));
	size_t n = 0;
	for (size_t i = 0; i < m.nr; i++)
		n += !strcmp(m.v[i].name, "LWLockAcquire");
	assert_int_equal(n, 1);
	prof_map_release(&m);
}

static void profiled(struct profile *p, struct prof_map *m)
{
	struct strbuf err = STRBUF_INIT;
	prof_init(p, "perf");
	assert_true(prof_parse_perf(p, perf_text, "postgres", &err) > 0);
	build_map(m);
	prof_attribute(p, m);
	prof_finish(p);
	strbuf_release(&err);
}

static void test_attribute_and_files(void **state)
{
	struct profile p;
	struct prof_map m = PROF_MAP_INIT;
	profiled(&p, &m);
	/* 68+67+28+15+11+7 attributed; [unknown] (18) is not */
	assert_true(p.attributed == 68 + 67 + 28 + 15 + 11 + 7);
	assert_string_equal(p.files[0].tu, "src/backend/access/nbtree/nbtsearch.c");
	assert_true(p.files[0].weight == 68);
	assert_string_equal(p.files[1].tu, "src/backend/utils/hash/dynahash.c");
	/* both parts of tuplesort_heap land in one unit */
	for (size_t i = 0; i < p.nfiles; i++)
		if (strstr(p.files[i].tu, "sort/"))
			assert_true(p.files[i].weight == 18 && p.files[i].nfuncs == 2);
	/* kernel samples never get a unit */
	for (size_t i = 0; i < p.nr; i++)
		if (!p.v[i].in_server)
			assert_null(p.v[i].tu);
	/* coverage: 68 of 196 is 34.7%; 50% needs two files, 100% all five */
	assert_int_equal(prof_cover_files(&p, 30, 0), 1);
	assert_int_equal(prof_cover_files(&p, 50, 0), 2);
	assert_int_equal(prof_cover_files(&p, 100, 0), p.nfiles);
	assert_int_equal(prof_cover_files(&p, 100, 3), 3);
	prof_release(&p);
	prof_map_release(&m);
}

static void test_hot_and_cold_lists(void **state)
{
	struct profile p;
	struct prof_map m = PROF_MAP_INIT;
	struct strbuf sb = STRBUF_INIT;
	profiled(&p, &m);
	/* 50% of the server's 214 samples: 68 + 67 = 135 */
	assert_int_equal(prof_write_hotlist(&p, 50, 0, &sb), 2);
	assert_string_equal(sb.buf, "_bt_compare\nhash_search_with_hash_value\n");
	strbuf_setlen(&sb, 0);
	/* everything: C names once, no [unknown], no kernel symbols */
	size_t n = prof_write_hotlist(&p, 100, 0, &sb);
	assert_int_equal(n, 5);
	assert_null(strstr(sb.buf, "unknown"));
	assert_null(strstr(sb.buf, "finish_task_switch"));
	assert_null(strstr(sb.buf, ".isra"));
	strbuf_setlen(&sb, 0);
	assert_int_equal(prof_write_hotlist(&p, 100, 1, &sb), 1);
	strbuf_setlen(&sb, 0);
	/* cold: defined in the first 3 files, never seen (hash_search, LWLockAcquire
	 * is in lwlock.c, the 4th file) */
	n = prof_write_coldlist(&p, 3, &m, &sb);
	assert_int_equal(n, 1);
	assert_string_equal(sb.buf, "hash_search\n");
	strbuf_release(&sb);
	prof_release(&p);
	prof_map_release(&m);
}

static void test_policy_parses(void **state)
{
	struct profile p;
	struct prof_map m = PROF_MAP_INIT;
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	struct prof_policy_opts o = { 2, "-O3 -finline-functions", "hot.txt", NULL,
				      "generated\nby a test", NULL };
	profiled(&p, &m);
	assert_int_equal(prof_write_policy(&p, &o, &sb), 0);
	assert_non_null(strstr(sb.buf, "# generated\n# by a test\n"));
	assert_non_null(strstr(sb.buf, "[global]\nhot = hot.txt\n"));
	assert_non_null(strstr(sb.buf, "[src/backend/access/nbtree/nbtsearch.c]\ncflags += -O3 -finline-functions\n"));
	assert_non_null(strstr(sb.buf, "[src/backend/utils/hash/dynahash.c]\n"));
	assert_null(strstr(sb.buf, "pruneheap"));
	/* flags the parser refuses: no policy */
	{
		struct strbuf bad = STRBUF_INIT;
		struct prof_policy_opts ob = { 2, "-O3 -ffast-math", NULL, NULL, NULL, "/tmp/g.policy" };
		assert_int_equal(prof_write_policy(&p, &ob, &bad), -1);
		assert_int_equal(bad.len, 0);
		strbuf_release(&bad);
	}

	/* the wrapper's parser accepts it and applies it to exactly those files */
	struct policy pol;
	assert_int_equal(policy_parse(&pol, "/tmp/gen.policy", sb.buf, sb.len, &err), 0);
	assert_string_equal(pol.hot, "/tmp/hot.txt");
	struct strvec args = STRVEC_INIT;
	struct policy_result res;
	policy_apply(&pol, "src/backend/utils/hash/dynahash.c", &args, &res);
	assert_true(res.changed);
	assert_int_equal(res.added.nr, 2);
	policy_result_release(&res);
	strvec_clear(&args);
	policy_apply(&pol, "src/backend/access/heap/pruneheap.c", &args, &res);
	/* no flag; only the hot list (which loads the plugin everywhere) */
	assert_int_equal(res.added.nr, 0);
	assert_true(res.lists);
	policy_result_release(&res);
	strvec_clear(&args);
	policy_release(&pol);
	strbuf_release(&sb);
	strbuf_release(&err);
	prof_release(&p);
	prof_map_release(&m);
}

static void test_gcov(void **state)
{
	/* gcov 12 --json-format --stdout, trimmed: line counts per function */
	const char doc[] =
		"{\"gcc_version\": \"12.2.0\", \"files\": [{\"lines\": ["
		"{\"branches\": [], \"count\": 1000, \"line_number\": 1, \"unexecuted_block\": false},"
		"{\"branches\": [], \"count\": 0, \"line_number\": 2, \"unexecuted_block\": true, \"function_name\": \"cold_fn\"},"
		"{\"branches\": [], \"count\": 1001, \"line_number\": 3, \"unexecuted_block\": true, \"function_name\": \"main\"},"
		"{\"branches\": [], \"count\": 5, \"line_number\": 4, \"function_name\": \"main\"}],"
		"\"functions\": [], \"file\": \"a.c\"},"
		"{\"lines\": [{\"count\": 7, \"line_number\": 10, \"function_name\": \"inline_helper\"}], \"file\": \"a.h\"}],"
		"\"format_version\": \"1\", \"data_file\": \"obj/a.gcda\"}";
	struct profile p;
	struct strbuf err = STRBUF_INIT;
	prof_init(&p, "gcov");
	assert_int_equal(prof_parse_gcov(&p, doc, strlen(doc), "src/a.c", "src/a.o", 1, &err), 2);
	/* the same static name in another unit stays separate */
	assert_int_equal(prof_parse_gcov(&p, doc, strlen(doc), "src/b.c", "src/b.o", 0, &err), 2);
	prof_finish(&p);
	assert_int_equal(p.nr, 4);
	assert_string_equal(p.v[0].name, "main");
	assert_true(p.v[0].weight == 1006);
	assert_true(p.server == 1006 + 7);
	assert_true(p.attributed == p.server);
	assert_int_equal(p.nfiles, 1);
	assert_string_equal(p.files[0].tu, "src/a.c");
	assert_int_equal(prof_parse_gcov(&p, "{\"x\":1}", 7, "t", "t.o", 1, &err), -1);
	assert_int_equal(prof_parse_gcov(&p, "{", 1, "t", "t.o", 1, &err), -1);
	prof_release(&p);
	strbuf_release(&err);
}

static void test_json_round_trip(void **state)
{
	struct profile p, q;
	struct prof_map m = PROF_MAP_INIT;
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	struct json_writer jw = JSON_WRITER_INIT(&sb);
	profiled(&p, &m);
	prof_write_json(&p, 0, &jw);
	struct json_value *doc = json_parse(sb.buf, sb.len, &err);
	assert_non_null(doc);
	assert_int_equal(prof_read_json(&q, doc, &err), 0);
	assert_int_equal(q.nr, p.nr);
	assert_int_equal(q.nfiles, p.nfiles);
	assert_true(q.total == p.total && q.server == p.server && q.attributed == p.attributed);
	for (size_t i = 0; i < p.nfiles; i++)
		assert_string_equal(q.files[i].tu, p.files[i].tu);
	json_free(doc);
	prof_release(&q);
	const char *bad = "{\"method\":\"perf\",\"functions\":[{\"name\":\"x\"}]}";
	doc = json_parse(bad, strlen(bad), &err);
	assert_non_null(doc);
	strbuf_setlen(&err, 0);
	assert_int_equal(prof_read_json(&q, doc, &err), -1);
	assert_non_null(strstr(err.buf, "functions[0]"));
	json_free(doc);
	strbuf_release(&sb);
	strbuf_release(&err);
	prof_release(&p);
	prof_map_release(&m);
}

static void test_server_objects(void **state)
{
	assert_true(prof_object_in_server("src/backend/utils/hash/dynahash.o"));
	assert_true(prof_object_in_server("src/pl/plpgsql/src/pl_exec.o"));
	assert_true(prof_object_in_server("src/common/hashfn_srv.o"));
	assert_true(prof_object_in_server("src/port/pg_crc32c_sse42_srv.gcda"));
	assert_false(prof_object_in_server("src/common/hashfn.o"));
	assert_false(prof_object_in_server("src/common/hashfn_shlib.o"));
	assert_false(prof_object_in_server("src/bin/psql/command.o"));
	assert_false(prof_object_in_server("src/interfaces/libpq/fe-exec.o"));
}

static void test_many_entries(void **state)
{
	/* the index keeps merging right past many rehashes */
	struct profile p;
	char name[32];
	prof_init(&p, "gcov");
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < 5000; i++) {
			snprintf(name, sizeof(name), "f%d", i);
			prof_add_tu(&p, name, "x.o", i % 2 ? "a.c" : "b.c", 1, 1);
		}
	assert_int_equal(p.nr, 5000);
	prof_finish(&p);
	for (size_t i = 0; i < p.nr; i++)
		assert_true(p.v[i].weight == 3);
	prof_add_tu(&p, "f1", "x.o", "a.c", 1, 1);
	assert_int_equal(p.nr, 5000);
	prof_release(&p);
}

/* Write text to the file DIR/REL, its directory made. */
static void put_in(const char *dir, const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", dir, rel);
	*strrchr(p, '/') = '\0';
	assert_int_equal(mkdir_p(p), 0);
	free(p);
	scratch_put(dir, rel, text);
}

/*
 * The .gcda walks (sfs_walk_tree): prof_gcda_begin removes a build tree's
 * old counts; prof_gcda_collect takes a training's .gcda back beside its
 * object (one without a .gcno is not), and a directory of the training
 * tree that is a symbolic link is not followed, though the build tree has
 * a directory of that name with an object; prof_count_gcda and
 * prof_remove_gcda count and remove the build tree's, not regress's test
 * tree's nor those behind a link.
 */
static void test_gcda_walks(void **state)
{
	char *top = scratch_dir_make("pgopt-gcda"), *build, *theirs, *elsewhere, *text;
	struct prof_gcda g = PROF_GCDA_INIT;
	struct strbuf sb = STRBUF_INIT;

	assert_non_null(top);
	build = xasprintf("%s/build", top);
	elsewhere = xasprintf("%s/elsewhere", top);
	put_in(build, "obj/a.gcno", "notes a");
	put_in(build, "obj/a.gcda", "old counts");
	put_in(build, "sub/c.gcno", "notes c");
	put_in(elsewhere, "c.gcda", "counts c");
	assert_int_equal(prof_gcda_begin(&g, build), 0);
	assert_false(scratch_exists(build, "obj/a.gcda"));

	theirs = xasprintf("%s%s", g.dir, g.builddir);
	put_in(theirs, "obj/a.gcda", "counts a");
	put_in(theirs, "obj/b.gcda", "counts b");      /* no b.gcno */
	text = xasprintf("%s/sub", theirs);
	assert_int_equal(symlink(elsewhere, text), 0);
	free(text);
	assert_int_equal(prof_gcda_collect(&g), 1);
	assert_int_equal(g.skipped, 2);                /* b.gcda, the link */
	text = xasprintf("%s/obj/a.gcda", build);
	assert_int_equal(sfs_read(AT_FDCWD, text, SFS_IN_COUNTS, 0, &sb, NULL), 8);
	assert_string_equal(sb.buf, "counts a");
	free(text);
	strbuf_release(&sb);
	assert_false(scratch_exists(build, "obj/b.gcda"));
	assert_false(scratch_exists(build, "sub/c.gcda"));
	prof_gcda_end(&g);

	put_in(build, BUILD_CHECK_TREE "/x.gcda", "regress's");
	text = xasprintf("%s/ln", build);
	assert_int_equal(symlink(elsewhere, text), 0);
	free(text);
	assert_int_equal(prof_count_gcda(build), 1);
	assert_int_equal(prof_remove_gcda(build), 1);
	assert_false(scratch_exists(build, "obj/a.gcda"));
	assert_true(scratch_exists(build, BUILD_CHECK_TREE "/x.gcda"));
	assert_true(scratch_exists(elsewhere, "c.gcda"));
	assert_int_equal(prof_count_gcda(build), 0);
	free(theirs);
	free(elsewhere);
	free(build);
	assert_int_equal(scratch_dir_remove(top), 0);
}

/* pgo_force_relink: the link targets below src/ and contrib/ are removed,
 * none in tmp_install, none behind a link to a directory. */
static void test_force_relink(void **state)
{
	char *top = scratch_dir_make("pgopt-relink"), *build, *elsewhere, *text;

	assert_non_null(top);
	build = xasprintf("%s/build", top);
	elsewhere = xasprintf("%s/elsewhere", top);
	put_in(build, "src/backend/objfiles.txt", "x");
	put_in(build, "src/backend/x.o", "x");
	put_in(build, "src/interfaces/libpq/libpq.so.5", "x");
	put_in(build, "src/port/libpgport.a", "x");
	put_in(build, "src/test/tmp_install/lib/kept.so", "x");
	put_in(build, "contrib/hstore/hstore.so", "x");
	put_in(build, "config.a", "x");                /* not below src/ or contrib/ */
	put_in(elsewhere, "objfiles.txt", "x");
	text = xasprintf("%s/src/ln", build);
	assert_int_equal(symlink(elsewhere, text), 0);
	free(text);
	assert_int_equal(pgo_force_relink(build), 4);
	assert_false(scratch_exists(build, "src/backend/objfiles.txt"));
	assert_false(scratch_exists(build, "src/interfaces/libpq/libpq.so.5"));
	assert_false(scratch_exists(build, "src/port/libpgport.a"));
	assert_false(scratch_exists(build, "contrib/hstore/hstore.so"));
	assert_true(scratch_exists(build, "src/backend/x.o"));
	assert_true(scratch_exists(build, "src/test/tmp_install/lib/kept.so"));
	assert_true(scratch_exists(build, "config.a"));
	assert_true(scratch_exists(build, "src/ln"));
	assert_true(scratch_exists(elsewhere, "objfiles.txt"));
	free(elsewhere);
	free(build);
	assert_int_equal(scratch_dir_remove(top), 0);
}

/* pgo's generated policies live in the build tree: the user's relative
 * list paths must still name the user's files, and the instrumented stage
 * drops lto. */
static void test_pgo_policy_base(void **state)
{
	char dir[] = "/tmp/test-profile.XXXXXX";
	char *path, *hot;
	struct strbuf out = STRBUF_INIT;
	FILE *fp;
	(void)state;
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/p.policy", dir);
	hot = xasprintf("hot = %s/h.txt\n", dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("[global]\nhot = h.txt\n  cold=/abs/c.txt\nlto = on\n[src/x.c]\ncflags += -O3\n", fp);
	fclose(fp);

	assert_int_equal(pgo_policy_base(path, 0, &out), 0);
	assert_non_null(strstr(out.buf, hot));                 /* made absolute */
	assert_non_null(strstr(out.buf, "  cold=/abs/c.txt\n")); /* absolute: as written */
	assert_non_null(strstr(out.buf, "\nlto = on\n"));
	assert_non_null(strstr(out.buf, "[src/x.c]\ncflags += -O3\n"));

	strbuf_reset(&out);
	assert_int_equal(pgo_policy_base(path, 1, &out), 0);
	assert_non_null(strstr(out.buf, "# (instrumented stage without LTO) lto = on\n"));
	assert_null(strstr(out.buf, "\nlto = on\n"));

	strbuf_reset(&out);
	assert_int_equal(pgo_policy_base(NULL, 0, &out), 0);   /* no policy */
	assert_int_equal(out.len, 0);
	unlink(path);
	assert_int_equal(pgo_policy_base(path, 0, &out), -1);  /* gone: an error */
	rmdir(dir);
	strbuf_release(&out);
	free(path);
	free(hot);
}

/* a recorded policy's text, made absolute against its own directory (the
 * policy's path given, the lists resolve beside it): what optimize compares
 * a seeded build's policy with; text that is no policy is an error */
static void test_pgo_policy_text(void **state)
{
	struct strbuf out = STRBUF_INIT;
	(void)state;
	assert_int_equal(pgo_policy_text("# c\n[global]\nhot = h.txt\ncold = /abs/c.txt\nlto = on\n",
					 "/src/pol/p.policy", 0, &out), 0);
	assert_string_equal(out.buf, "# c\n[global]\nhot = /src/pol/h.txt\ncold = /abs/c.txt\nlto = on\n");
	strbuf_reset(&out);
	/* no final newline */
	assert_int_equal(pgo_policy_text("[global]\nhot=h.txt", "/d/p.policy", 1, &out), 0);
	assert_string_equal(out.buf, "[global]\nhot = /d/h.txt\n");
	strbuf_reset(&out);
	assert_int_equal(pgo_policy_text("[global]\nlto = maybe\n", "/d/p.policy", 0, &out), -1);
	assert_int_equal(out.len, 0);
	strbuf_release(&out);
}

/* --train and -W fill one training list, each checked when given. */
static void test_train_option(void **state)
{
	struct prof_run r;
	(void)state;
	prof_run_init(&r);
	assert_int_equal(prof_run_option(&r, OPT_TRAIN, "select-only,mixed"), 1);
	assert_int_equal(prof_run_option(&r, 'W', "tpcb"), 1);
	assert_int_equal(r.workloads.nr, 3);
	assert_string_equal(r.workloads.v[0], "select-only");
	assert_string_equal(r.workloads.v[1], "mixed");
	assert_string_equal(r.workloads.v[2], "tpcb");
	/* a misspelt one is an error now, not after a build */
	assert_int_equal(prof_run_option(&r, OPT_TRAIN, "selectonly"), -1);
	/* not a training option */
	assert_int_equal(prof_run_option(&r, OPT_PREFIX, "x"), 0);
	prof_run_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base_name),
		cmocka_unit_test(test_parse_perf),
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_attribute_and_files),
		cmocka_unit_test(test_hot_and_cold_lists),
		cmocka_unit_test(test_policy_parses),
		cmocka_unit_test(test_gcov),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_server_objects),
		cmocka_unit_test(test_many_entries),
		cmocka_unit_test(test_pgo_policy_base),
		cmocka_unit_test(test_pgo_policy_text),
		cmocka_unit_test(test_train_option),
		cmocka_unit_test(test_gcda_walks),
		cmocka_unit_test(test_force_relink),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
