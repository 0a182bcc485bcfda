/*
 * test-common-safefs-walk.c - the one walk of a tree below a descriptor
 * (sfs_walk_tree in wrapper/common/safefs-tree.c): the entries a visitor
 * sees and their paths, links never entered (also when one replaces a
 * directory during the walk), entries that vanish during it, the
 * visitor's skip, stop and error, the second visit after a directory with
 * its own descriptor, and the one depth limit with its one message in
 * every walk built on it (sfs_chown_tree, sfs_tree_foreign,
 * sfs_link_tree, bundle_verify), and in remove_tree (rmtree.h), which
 * cannot be built on it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "wrapper/common/bundle-verify.h"
#include "wrapper/common/rmtree.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/xalloc.h"

#include "tests/unit/fixture.h"

static char *top;             /* this test's directory */
static int topfd = -1;

static int setup(void **state)
{
	(void)state;
	top = scratch_dir_make("pgopt-walk");
	topfd = top ? open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	return topfd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	close(topfd);
	return scratch_dir_remove(top);
}

static int open_rel(const char *rel)
{
	int fd = sfs_open_dir(topfd, rel, NULL);
	assert_true(fd >= 0);
	return fd;
}

/* What a test's visitor does and saw. */
struct seen {
	struct strbuf log;       /* "REL:KIND[:after]" per visit, one a line, in order */
	const char *skip;        /* rel to answer SFS_WALK_SKIP */
	const char *fail;        /* rel to answer SFS_WALK_ERROR (with a sentence) */
	const char *stop;        /* rel to answer SFS_WALK_STOP */
	const char *after;       /* rel to answer SFS_WALK_AFTER, with an out */
	const char *gone;        /* rel to remove when visited */
	const char *swap;        /* rel of a directory to replace by a link when visited */
	int sweep;               /* the first visit removes its siblings a..e */
	int out;                 /* the out set for after */
	int bad_parent_out;      /* an entry in after saw another parent_out */
	int visits;              /* of this walk */
	int stopped;             /* SFS_WALK_STOP was answered */
	int visits_after_stop;
};

static void rm_rel(const char *rel)
{
	char *cmd = xasprintf("rm -rf '%s/%s'", top, rel);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static enum sfs_walk_next record(struct sfs_entry *e, void *ctx)
{
	struct seen *s = ctx;
	size_t n = s->after ? strlen(s->after) : 0;

	s->visits++;
	s->visits_after_stop += s->stopped;
	strbuf_addf(&s->log, "%s:%s%s\n", e->rel, S_ISDIR(e->st.st_mode) ? "dir" :
		    S_ISLNK(e->st.st_mode) ? "link" : "file", e->after ? ":after" : "");
	if (n && !strncmp(e->rel, s->after, n) && e->rel[n] == '/' && !strchr(e->rel + n + 1, '/') &&
	    e->parent_out != s->out)
		s->bad_parent_out = 1;
	if (s->sweep && s->visits == 1)
		for (char c = 'a'; c <= 'e'; c++)
			if (c != e->name[0])
				assert_int_equal(unlinkat(e->fd, (char[]){ c, 0 }, 0), 0);
	if (s->gone && !strcmp(e->rel, s->gone) && !e->after)
		rm_rel(e->path);
	if (s->swap && !strcmp(e->rel, s->swap)) {
		rm_rel(e->path);
		assert_int_equal(symlinkat("/", topfd, e->path), 0);
	}
	if (s->skip && !strcmp(e->rel, s->skip))
		return SFS_WALK_SKIP;
	if (s->fail && !strcmp(e->rel, s->fail)) {
		strbuf_addf(e->err, "%s: refused by the visitor", e->path);
		return SFS_WALK_ERROR;
	}
	if (s->stop && !strcmp(e->rel, s->stop)) {
		s->stopped = 1;
		return SFS_WALK_STOP;
	}
	if (s->after && !strcmp(e->rel, s->after)) {
		if (e->after)
			assert_int_equal(e->out, s->out);
		else
			e->out = s->out = dup(topfd);
		return SFS_WALK_AFTER;
	}
	return SFS_WALK_NEXT;
}

/* Walk top/rel (named rel) with s; the walk's return. */
static int walk(const char *rel, struct seen *s, struct strbuf *err)
{
	int fd = open_rel(rel), rc;
	strbuf_reset(&s->log);
	strbuf_reset(err);
	s->visits = s->stopped = s->visits_after_stop = 0;
	rc = sfs_walk_tree(fd, rel, record, s, err);
	close(fd);
	return rc;
}

static int logged(const struct seen *s, const char *line)
{
	char *l = xasprintf("%s\n", line);
	int found = strstr(s->log.buf, l) != NULL;
	free(l);
	return found;
}

/* Where line is in the log (it must be there). */
static size_t log_at(const struct seen *s, const char *line)
{
	char *l = xasprintf("%s\n", line), *at = strstr(s->log.buf, l);
	assert_non_null(at);
	free(l);
	return (size_t)(at - s->log.buf);
}

/* The entry a visitor gets at depth 3, checked inside the visit. */
static enum sfs_walk_next check_deep(struct sfs_entry *e, void *ctx)
{
	struct stat st;
	const char *want = ctx;
	if (strcmp(e->name, "f"))
		return SFS_WALK_NEXT;
	assert_string_equal(e->rel, "a/b/c/f");
	assert_string_equal(e->path, want);
	assert_int_equal(e->depth, 3);
	assert_int_equal(e->parent_out, -1);
	assert_int_equal(fstatat(e->fd, e->name, &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_true(st.st_ino == e->st.st_ino);
	return SFS_WALK_STOP;
}

/* Every entry, pre-order, with its path below the top; names, depth and
 * the descriptor of the directory it is in. */
static void test_paths(void **state)
{
	struct seen s = { .log = STRBUF_INIT };
	struct strbuf err = STRBUF_INIT;
	char *want = xasprintf("%s/p/a/b/c/f", top);
	int fd;
	(void)state;

	scratch_mkdir(top, "p");
	scratch_mkdir(top, "p/a");
	scratch_mkdir(top, "p/a/b");
	scratch_mkdir(top, "p/a/b/c");
	scratch_put(top, "p/a/b/c/f", "f");
	assert_int_equal(walk("p", &s, &err), 0);
	assert_int_equal(err.len, 0);
	assert_string_equal(s.log.buf, "a:dir\na/b:dir\na/b/c:dir\na/b/c/f:file\n");
	fd = open_rel("p");
	assert_int_equal(sfs_walk_tree(fd, "p", check_deep, "p/a/b/c/f", NULL), 1);
	assert_int_equal(sfs_walk_tree(fd, "", check_deep, "a/b/c/f", NULL), 1);
	{
		char *name = xasprintf("%s/p", top);
		assert_int_equal(sfs_walk_tree(fd, name, check_deep, want, NULL), 1);
		free(name);
	}
	close(fd);
	free(want);
	strbuf_release(&s.log);
	strbuf_release(&err);
}

/* A link to a directory is a link to the visitor and never entered, also
 * when it replaces a directory after the visitor saw it. */
static void test_links(void **state)
{
	struct seen s = { .log = STRBUF_INIT };
	struct strbuf err = STRBUF_INIT;
	(void)state;

	scratch_mkdir(top, "l");
	scratch_mkdir(top, "l/real");
	scratch_put(top, "l/real/f", "f");
	scratch_symlink(top, "real", "l/tolink");
	scratch_symlink(top, "/etc", "l/etc");
	assert_int_equal(walk("l", &s, &err), 0);
	assert_true(logged(&s, "tolink:link"));
	assert_true(logged(&s, "etc:link"));
	assert_true(logged(&s, "real/f:file"));
	assert_null(strstr(s.log.buf, "tolink/"));
	assert_null(strstr(s.log.buf, "etc/"));

	/* a directory replaced by a link between its fstatat and its open */
	s.swap = "real";
	assert_int_equal(walk("l", &s, &err), -1);
	assert_int_equal(errno, ELOOP);
	assert_string_equal(err.buf, "cannot open the directory l/real: a component is a "
				     "symbolic link (refused)");
	assert_true(logged(&s, "real:dir"));
	assert_null(strstr(s.log.buf, "real/"));
	strbuf_release(&s.log);
	strbuf_release(&err);
}

/* Entries removed during the walk are skipped; a directory removed before
 * it is entered is walked as empty. */
static void test_vanished(void **state)
{
	struct seen s = { .log = STRBUF_INIT };
	struct strbuf err = STRBUF_INIT;
	(void)state;

	/* readdir still returns the names the first visit removed */
	scratch_mkdir(top, "v");
	for (char c = 'a'; c <= 'e'; c++) {
		char rel[] = { 'v', '/', c, 0 };
		scratch_put(top, rel, "x");
	}
	s.sweep = 1;
	assert_int_equal(walk("v", &s, &err), 0);
	assert_int_equal(err.len, 0);
	assert_int_equal(s.visits, 1);
	s.sweep = 0;

	/* a directory gone before it is entered: empty, its second visit made */
	scratch_mkdir(top, "v/gone");
	scratch_put(top, "v/gone/f", "f");
	s.gone = s.after = "gone";
	assert_int_equal(walk("v", &s, &err), 0);
	assert_int_equal(err.len, 0);
	assert_true(logged(&s, "gone:dir:after"));
	assert_null(strstr(s.log.buf, "gone/f"));
	strbuf_release(&s.log);
	strbuf_release(&err);
}

/* The visitor's answers: skip a directory, stop, fail. */
static void test_answers(void **state)
{
	struct seen s = { .log = STRBUF_INIT };
	struct strbuf err = STRBUF_INIT;
	(void)state;

	scratch_mkdir(top, "s");
	scratch_mkdir(top, "s/a");
	scratch_mkdir(top, "s/b");
	scratch_put(top, "s/a/x", "x");
	scratch_put(top, "s/b/y", "y");
	scratch_put(top, "s/c", "c");
	s.skip = "a";
	assert_int_equal(walk("s", &s, &err), 0);
	assert_true(logged(&s, "a:dir"));
	assert_null(strstr(s.log.buf, "a/x"));
	assert_true(logged(&s, "b/y:file"));
	assert_true(logged(&s, "c:file"));
	s.skip = NULL;

	/* an error deep down ends the walk with the visitor's sentence */
	s.fail = "b/y";
	assert_int_equal(walk("s", &s, &err), -1);
	assert_string_equal(err.buf, "s/b/y: refused by the visitor");
	s.fail = NULL;

	/* stop: 1, and nothing visited after */
	s.stop = "b";
	assert_int_equal(walk("s", &s, &err), 1);
	assert_int_equal(err.len, 0);
	assert_int_equal(s.visits_after_stop, 0);
	assert_null(strstr(s.log.buf, "b/y"));
	s.stop = NULL;
	strbuf_release(&s.log);
	strbuf_release(&err);
}

/* SFS_WALK_AFTER: the second visit after the directory's entries, its out
 * the entries' parent_out, closed by the walker; none when they failed. */
static void test_after(void **state)
{
	struct seen s = { .log = STRBUF_INIT };
	struct strbuf err = STRBUF_INIT;
	(void)state;

	scratch_mkdir(top, "o");
	scratch_mkdir(top, "o/a");
	scratch_mkdir(top, "o/a/y");
	scratch_put(top, "o/a/x", "x");
	scratch_put(top, "o/a/y/z", "z");
	s.after = "a";
	assert_int_equal(walk("o", &s, &err), 0);
	assert_true(log_at(&s, "a:dir") < log_at(&s, "a/x:file"));
	assert_true(log_at(&s, "a/x:file") < log_at(&s, "a:dir:after"));
	assert_true(log_at(&s, "a/y/z:file") < log_at(&s, "a:dir:after"));
	assert_false(logged(&s, "a/y:dir:after"));
	assert_int_equal(s.bad_parent_out, 0);
	assert_int_equal(fcntl(s.out, F_GETFD), -1);
	assert_int_equal(errno, EBADF);

	s.fail = "a/y/z";
	assert_int_equal(walk("o", &s, &err), -1);
	assert_false(logged(&s, "a:dir:after"));
	assert_int_equal(fcntl(s.out, F_GETFD), -1);
	strbuf_release(&s.log);
	strbuf_release(&err);
}

/* A chain of n directories "d" in top/rel (made), and a file "f" in the
 * last one when leaf is set. */
static void chain_leaf(const char *rel, int n, int leaf)
{
	int fd = open_rel(rel);
	for (int i = 0; i < n; i++) {
		int sub;
		assert_int_equal(mkdirat(fd, "d", 0755), 0);
		sub = openat(fd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		assert_true(sub >= 0);
		close(fd);
		fd = sub;
	}
	if (leaf) {
		int f = openat(fd, "f", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		assert_true(f >= 0);
		close(f);
	}
	close(fd);
}

static void chain(const char *rel, int n)
{
	chain_leaf(rel, n, 0);
}


/* SFS_MAX_DEPTH levels are walked, one more is refused with one message
 * by every walk (the four had three limits and four messages). */
static void test_depth(void **state)
{
	const char *msg = "cannot walk deep: directories nested too deep (more than 256 levels)";
	struct seen s = { .log = STRBUF_INIT };
	struct bundle_verified bv = BUNDLE_VERIFIED_INIT;
	struct strbuf err = STRBUF_INIT, bad = STRBUF_INIT;
	uid_t owner;
	char *b, *want;
	(void)state;

	assert_int_equal(SFS_MAX_DEPTH, 256);
	scratch_mkdir(top, "deep");
	chain("deep", SFS_MAX_DEPTH);
	assert_int_equal(walk("deep", &s, &err), 0);
	assert_int_equal(err.len, 0);
	b = xasprintf("%s/deep", top);
	scratch_put(top, "deep/" BUNDLE_MANIFEST_NAME, "{\"kind\":\"pgopt-bundle\",\"version\":1,\"files\":{}}");
	assert_int_equal(bundle_verify(b, &bv, &err), 0);
	bundle_verified_release(&bv);

	rm_rel("deep/d");
	chain("deep", SFS_MAX_DEPTH + 1);
	assert_int_equal(walk("deep", &s, &err), -1);
	assert_int_equal(errno, ELOOP);
	assert_string_equal(err.buf, msg);
	strbuf_reset(&err);
	assert_int_equal(sfs_chown_tree(topfd, "deep", geteuid(), getegid(), &err), -1);
	assert_string_equal(err.buf, msg);
	strbuf_reset(&err);
	assert_int_equal(sfs_tree_foreign(topfd, "deep", geteuid(), getegid(), NULL, &bad, &owner,
					  &err), -1);
	assert_string_equal(err.buf, msg);
	strbuf_reset(&err);
	assert_int_equal(sfs_link_tree(topfd, "deep", topfd, "copy", geteuid(), getegid(), NULL,
				       &err), -1);
	assert_string_equal(err.buf, msg);
	assert_false(scratch_exists(top, "copy"));     /* removed whole: rmtree goes as deep */
	strbuf_reset(&err);
	assert_int_equal(bundle_verify(b, &bv, &err), -1);
	want = xasprintf("cannot walk %s: directories nested too deep (more than 256 levels)", b);
	assert_string_equal(err.buf, want);
	rm_rel("deep");       /* deeper than the teardown's remove_tree goes */
	free(want);
	free(b);
	strbuf_release(&s.log);
	strbuf_release(&err);
	strbuf_release(&bad);
}

/* The same limit in remove_tree (it had 64 levels): a tree of 100 levels,
 * beyond the old limit, is walked and removed; one of SFS_MAX_DEPTH levels
 * with a file at the bottom too; one level more is refused by both, at the
 * same directory. */
static void test_depth_remove(void **state)
{
	struct seen s = { .log = STRBUF_INIT };
	struct strbuf err = STRBUF_INIT;
	(void)state;

	scratch_mkdir(top, "mid");
	chain_leaf("mid", 100, 1);
	assert_int_equal(walk("mid", &s, &err), 0);
	assert_int_equal(s.visits, 101);
	assert_int_equal(remove_tree_at(topfd, "mid"), 0);
	assert_false(scratch_exists(top, "mid"));

	scratch_mkdir(top, "max");
	chain_leaf("max", SFS_MAX_DEPTH, 1);
	assert_int_equal(walk("max", &s, &err), 0);
	assert_int_equal(s.visits, SFS_MAX_DEPTH + 1);
	assert_int_equal(remove_tree_at(topfd, "max"), 0);
	assert_false(scratch_exists(top, "max"));

	scratch_mkdir(top, "over");
	chain_leaf("over", SFS_MAX_DEPTH + 1, 1);
	assert_int_equal(walk("over", &s, &err), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(remove_tree_at(topfd, "over"), -1);
	assert_int_equal(errno, ELOOP);
	assert_true(scratch_exists(top, "over"));
	rm_rel("over");
	strbuf_release(&s.log);
	strbuf_release(&err);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_paths),
	cmocka_unit_test(test_links),
	cmocka_unit_test(test_vanished),
	cmocka_unit_test(test_answers),
	cmocka_unit_test(test_after),
	cmocka_unit_test(test_depth),
	cmocka_unit_test(test_depth_remove),
};

int main(void)
{
	return cmocka_run_group_tests(tests, setup, teardown);
}
