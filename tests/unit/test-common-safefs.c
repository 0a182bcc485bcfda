/*
 * test-common-safefs.c - wrapper/common/safefs.c: the bounded reader and
 * the descriptor-relative operations, against the links, FIFOs, devices and
 * oversized files another user could plant.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "fdio.h"
#include "safefs.h"
#include "strbuf.h"
#include "xalloc.h"

static char top[64];
static int topfd = -1;

static int setup(void **state)
{
	(void)state;
	snprintf(top, sizeof(top), "/tmp/pgopt-safefs-XXXXXX");
	if (!mkdtemp(top))
		return -1;
	topfd = open(top, O_RDONLY | O_DIRECTORY);
	return topfd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[128];
	(void)state;
	close(topfd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	return system(cmd) == 0 ? 0 : -1;
}

/* write text to top/rel */
static void put(const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", top, rel);
	assert_int_equal(write_file_atomic_quiet(p, text, strlen(text)), 0);
	free(p);
}

static void mk(const char *rel)
{
	char *p = xasprintf("%s/%s", top, rel);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
}

static void ln(const char *target, const char *rel)
{
	char *p = xasprintf("%s/%s", top, rel);
	assert_int_equal(symlink(target, p), 0);
	free(p);
}

static char *slurp(const char *rel)
{
	struct strbuf sb = STRBUF_INIT;
	char *p = xasprintf("%s/%s", top, rel);
	if (strbuf_read_file(&sb, p) < 0)
		strbuf_addstr(&sb, "(missing)");
	free(p);
	return strbuf_detach(&sb, NULL);
}

static void test_read_bounded(void **state)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	char *fifo = xasprintf("%s/fifo", top), *big;
	(void)state;

	mk("r");
	put("r/ok", "hello\n");
	assert_int_equal(sfs_read(topfd, "r/ok", 100, SFS_NOFOLLOW, &out, &err), 6);
	assert_string_equal(out.buf, "hello\n");

	/* over the limit: nothing kept, EFBIG, the limit named */
	strbuf_setlen(&out, 0);
	assert_int_equal(sfs_read(topfd, "r/ok", 5, 0, &out, &err), -1);
	assert_int_equal(errno, EFBIG);
	assert_int_equal(out.len, 0);
	assert_non_null(strstr(err.buf, "cannot read r/ok: it is larger than 5 bytes"));

	/* a FIFO returns at once (no writer needed), refused by kind */
	assert_int_equal(mkfifo(fifo, 0644), 0);
	strbuf_setlen(&err, 0);
	assert_int_equal(sfs_read(AT_FDCWD, fifo, SFS_READ_LIMIT, 0, &out, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.buf, "it is a FIFO, expected a regular file"));

	/* a device that never ends */
	strbuf_setlen(&err, 0);
	assert_int_equal(sfs_read(AT_FDCWD, "/dev/zero", SFS_READ_LIMIT, 0, &out, &err), -1);
	assert_non_null(strstr(err.buf, "a character device"));

	/* a directory */
	assert_int_equal(sfs_read(topfd, "r", SFS_READ_LIMIT, 0, &out, NULL), -1);
	assert_int_equal(errno, EISDIR);

	/* links: followed without SFS_NOFOLLOW, refused with it, also in the middle */
	ln("ok", "r/link");
	ln("r", "rdir");
	strbuf_setlen(&out, 0);
	assert_int_equal(sfs_read(topfd, "r/link", 100, 0, &out, NULL), 6);
	assert_int_equal(sfs_read(topfd, "r/link", 100, SFS_NOFOLLOW, &out, NULL), -1);
	assert_int_equal(errno, ELOOP);
	strbuf_setlen(&err, 0);
	assert_int_equal(sfs_read(topfd, "rdir/ok", 100, SFS_NOFOLLOW, &out, &err), -1);
	assert_int_equal(errno, ELOOP);
	assert_non_null(strstr(err.buf, "symbolic link"));
	/* ".." never leaves the anchor */
	assert_int_equal(sfs_read(topfd, "r/../r/ok", 100, SFS_NOFOLLOW, &out, NULL), -1);
	assert_int_equal(errno, EINVAL);

	/* exactly at the limit is fine; a byte more is not */
	big = xmalloc(4097);
	memset(big, 'x', 4096);
	big[4096] = '\0';
	put("r/big", big);
	strbuf_setlen(&out, 0);
	assert_int_equal(sfs_read(topfd, "r/big", 4096, 0, &out, NULL), 4096);
	assert_int_equal(sfs_read(topfd, "r/big", 4095, 0, &out, NULL), -1);
	free(big);

	/* through a descriptor the caller opened (and checked): the same rules */
	{
		int fd = openat(topfd, "r/ok", O_RDONLY | O_NONBLOCK);
		strbuf_setlen(&out, 0);
		assert_int_equal(sfs_read_fd(fd, "r/ok", 100, &out, &err), 6);
		assert_string_equal(out.buf, "hello\n");
		close(fd);
		fd = open(fifo, O_RDONLY | O_NONBLOCK);
		strbuf_setlen(&err, 0);
		assert_int_equal(sfs_read_fd(fd, "the fifo", 100, &out, &err), -1);
		assert_int_equal(errno, EINVAL);
		assert_non_null(strstr(err.buf, "cannot read the fifo: it is a FIFO, expected a regular file"));
		close(fd);
	}
	free(fifo);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_create_and_write(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *victim;
	int fd;
	(void)state;

	mk("w");
	put("victim", "root's file\n");
	victim = xasprintf("%s/victim", top);

	/* a new file */
	fd = sfs_create(topfd, "w/new", O_WRONLY, 0600, &err);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "n", 1), 1);
	close(fd);
	/* it exists: refused, never opened */
	assert_int_equal(sfs_create(topfd, "w/new", O_WRONLY, 0600, &err), -1);
	assert_int_equal(errno, EEXIST);

	/* a planted link where the file goes: refused, its target untouched */
	ln(victim, "w/log");
	strbuf_setlen(&err, 0);
	assert_int_equal(sfs_create(topfd, "w/log", O_WRONLY | O_TRUNC, 0644, &err), -1);
	assert_int_equal(errno, EEXIST);
	assert_non_null(strstr(err.buf, "cannot create w/log: it exists already"));
	{
		char *t = slurp("victim");
		assert_string_equal(t, "root's file\n");
		free(t);
	}

	/* atomic replace: the link itself is replaced, the target untouched */
	assert_int_equal(sfs_write_atomic(topfd, "w/log", "mine\n", 5, 0644, &err), 0);
	{
		struct stat st;
		char *t = slurp("victim"), *l = slurp("w/log");
		char *p = xasprintf("%s/w/log", top);
		assert_string_equal(t, "root's file\n");
		assert_string_equal(l, "mine\n");
		assert_int_equal(lstat(p, &st), 0);
		assert_true(S_ISREG(st.st_mode));
		assert_int_equal(st.st_mode & 0777, 0644);
		free(t);
		free(l);
		free(p);
	}

	/* a linked directory on the way: refused */
	ln("w", "wlink");
	assert_int_equal(sfs_create(topfd, "wlink/x", O_WRONLY, 0644, NULL), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(sfs_write_atomic(topfd, "wlink/x", "x", 1, 0644, NULL), -1);
	assert_int_equal(errno, ELOOP);

	/* no temporary file left behind in w/ */
	{
		char *cmd = xasprintf("test $(ls -A %s/w | wc -l) = 2", top);
		assert_int_equal(system(cmd), 0);
		free(cmd);
	}
	free(victim);
	strbuf_release(&err);
}

static void test_mkdir_and_anchor(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct stat st;
	int fd;
	char *p;
	(void)state;

	fd = sfs_mkdir(topfd, "d", 0711, (uid_t)-1, (gid_t)-1, 0, &err);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0711);
	close(fd);
	/* exists: an error unless exist_ok */
	assert_int_equal(sfs_mkdir(topfd, "d", 0700, (uid_t)-1, (gid_t)-1, 0, NULL), -1);
	assert_int_equal(errno, EEXIST);
	fd = sfs_mkdir(topfd, "d", 0700, (uid_t)-1, (gid_t)-1, 1, NULL);
	assert_true(fd >= 0);
	close(fd);
	/* a link to another directory in its place: refused, the target's mode kept */
	mk("other");
	p = xasprintf("%s/other", top);
	assert_int_equal(chmod(p, 0755), 0);
	ln(p, "dl");
	strbuf_setlen(&err, 0);
	assert_int_equal(sfs_mkdir(topfd, "dl", 0700, (uid_t)-1, (gid_t)-1, 1, &err), -1);
	assert_non_null(strstr(err.buf, "something other than a directory"));
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0755);

	/* anchors: a link as the last component refused; owner and mode checked */
	free(p);
	p = xasprintf("%s/dl", top);
	strbuf_setlen(&err, 0);
	assert_int_equal(sfs_open_anchor(p, (uid_t)-1, 0, &err), -1);
	assert_non_null(strstr(err.buf, "it is a symbolic link"));
	free(p);
	p = xasprintf("%s/other", top);
	fd = sfs_open_anchor(p, geteuid(), 0, NULL);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chmod(p, 0777), 0);
	strbuf_setlen(&err, 0);
	assert_int_equal(sfs_open_anchor(p, geteuid(), 1, &err), -1);
	assert_int_equal(errno, EPERM);
	assert_non_null(strstr(err.buf, "mode 0777"));
	assert_int_equal(sfs_open_anchor(p, geteuid() + 1, 0, NULL), -1);
	free(p);
	strbuf_release(&err);
}

static void test_chown_tree(void **state)
{
	struct passwd *pw = getpwnam("nobody");
	struct stat st;
	char *outside, *p;
	long n;
	(void)state;

	mk("t");
	mk("t/sub");
	put("t/sub/f", "x");
	put("outside", "keep");
	outside = xasprintf("%s/outside", top);
	ln(outside, "t/sub/link");
	ln(top, "t/uplink");

	/* as ourselves: nothing changes owner */
	n = sfs_chown_tree(topfd, "t", geteuid(), getegid(), NULL);
	assert_int_equal(n, 0);
	if (geteuid() != 0 || !pw) {
		free(outside);
		skip();
	}
	/* as root: every entry, links themselves, never their targets */
	n = sfs_chown_tree(topfd, "t", pw->pw_uid, pw->pw_gid, NULL);
	assert_int_equal(n, 5);   /* t, sub, f, link, uplink */
	p = xasprintf("%s/t/sub/link", top);
	assert_int_equal(lstat(p, &st), 0);
	assert_int_equal(st.st_uid, pw->pw_uid);
	assert_int_equal(stat(outside, &st), 0);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(stat(top, &st), 0);
	assert_int_equal(st.st_uid, 0);
	/* a link as the tree itself: refused */
	assert_int_equal(sfs_chown_tree(topfd, "t/uplink", pw->pw_uid, pw->pw_gid, NULL), -1);
	assert_int_equal(errno, ELOOP);
	free(p);
	free(outside);
}

static void test_remove(void **state)
{
	char *t;
	(void)state;
	mk("x");
	mk("x/y");
	put("x/y/f", "x");
	put("keep", "kept");
	ln("../../keep", "x/y/l");
	ln(top, "x/top");
	assert_int_equal(sfs_remove(topfd, "x", NULL), 0);
	t = slurp("keep");
	assert_string_equal(t, "kept");
	free(t);
	t = slurp("x/y/f");
	assert_string_equal(t, "(missing)");
	free(t);
	/* missing: success; a link on the way: refused */
	assert_int_equal(sfs_remove(topfd, "x", NULL), 0);
	mk("z");
	put("z/f", "z");
	ln("z", "zl");
	assert_int_equal(sfs_remove(topfd, "zl/f", NULL), -1);
	assert_int_equal(errno, ELOOP);
	t = slurp("z/f");
	assert_string_equal(t, "z");
	free(t);
	/* the link itself is removed, not what it points to */
	assert_int_equal(sfs_remove(topfd, "zl", NULL), 0);
	t = slurp("z/f");
	assert_string_equal(t, "z");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_bounded),
		cmocka_unit_test(test_create_and_write),
		cmocka_unit_test(test_mkdir_and_anchor),
		cmocka_unit_test(test_chown_tree),
		cmocka_unit_test(test_remove),
	};
	return cmocka_run_group_tests_name("common/safefs", tests, setup, teardown);
}
