/*
 * test-common-safefs.c - wrapper/common/safefs.c: the bounded reader and
 * the descriptor-relative operations, against the links, FIFOs, devices and
 * oversized files another user could plant; the owner and mode rule of
 * a directory root works in (sfs_root_only).
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

#include "wrapper/common/safefs.h"
#include "wrapper/common/sha256.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/xalloc.h"

#include "tests/unit/fixture.h"

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

static char *slurp(const char *rel)
{
	struct strbuf sb = STRBUF_INIT;
	char *p = xasprintf("%s/%s", top, rel);
	char *real = realpath(p, NULL);  /* the test looks through links */
	if (!real || sfs_read(AT_FDCWD, real, SFS_IN_BINARY, 0, &sb, NULL) < 0)
		strbuf_addstr(&sb, "(missing)");
	free(real);
	free(p);
	return strbuf_detach(&sb, NULL);
}

/* A sparse file of size bytes at rel (no disk used). */
static void sparse(const char *rel, off_t size)
{
	char *p = xasprintf("%s/%s", top, rel);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, size), 0);
	close(fd);
	free(p);
}

static void test_read_bounded(void **state)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	char *fifo = xasprintf("%s/fifo", top);
	(void)state;

	scratch_mkdir(top, "r");
	scratch_put(top, "r/ok", "hello\n");
	assert_int_equal(sfs_read(topfd, "r/ok", SFS_IN_TEXT, SFS_NOFOLLOW, &out, &err), 6);
	assert_string_equal(out.buf, "hello\n");

	/* every kind has its limit, and the message names it and the kind */
	assert_int_equal(sfs_input_limit(SFS_IN_TEXT), SFS_READ_LIMIT);
	for (int k = 0; k < SFS_IN_KINDS; k++) {
		assert_true(sfs_input_limit((enum sfs_input)k) >= ((size_t)1 << 20));
		assert_non_null(sfs_input_name((enum sfs_input)k));
	}
	assert_true(sfs_input_limit(SFS_IN_COMPILE_LOG) > sfs_input_limit(SFS_IN_TEXT));

	/* over the limit: nothing kept, EFBIG, the limit and the kind named;
	 * exactly at the limit is fine */
	sparse("r/big", (off_t)SFS_READ_LIMIT + 1);
	strbuf_setlen(&out, 0);
	assert_int_equal(sfs_read(topfd, "r/big", SFS_IN_TEXT, 0, &out, &err), -1);
	assert_int_equal(errno, EFBIG);
	assert_int_equal(out.len, 0);
	assert_non_null(strstr(err.buf, "cannot read r/big: it is larger than 16 MiB, "
			       "the limit for a policy, list or script"));
	sparse("r/big", (off_t)SFS_READ_LIMIT);
	assert_int_equal(sfs_read(topfd, "r/big", SFS_IN_TEXT, 0, &out, NULL),
			 (long)SFS_READ_LIMIT);
	strbuf_release(&out);
	sparse("r/big", (off_t)sfs_input_limit(SFS_IN_JSON) + 1);
	strbuf_setlen(&err, 0);
	assert_int_equal(sfs_read(topfd, "r/big", SFS_IN_JSON, 0, &out, &err), -1);
	assert_non_null(strstr(err.buf, "larger than 64 MiB, the limit for a JSON result"));
	/* sfs_open_input refuses it before a byte is read */
	assert_int_equal(sfs_open_input(topfd, "r/big", SFS_IN_JSON, 0, NULL, NULL), -1);
	assert_int_equal(errno, EFBIG);

	/* a FIFO returns at once (no writer needed), refused by kind */
	assert_int_equal(mkfifo(fifo, 0644), 0);
	strbuf_setlen(&err, 0);
	assert_int_equal(sfs_read(AT_FDCWD, fifo, SFS_IN_JSON, 0, &out, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.buf, "it is a FIFO, expected a regular file"));

	/* a device that never ends */
	strbuf_setlen(&err, 0);
	assert_int_equal(sfs_read(AT_FDCWD, "/dev/zero", SFS_IN_LOG, 0, &out, &err), -1);
	assert_non_null(strstr(err.buf, "a character device"));

	/* a directory */
	assert_int_equal(sfs_read(topfd, "r", SFS_IN_TEXT, 0, &out, NULL), -1);
	assert_int_equal(errno, EISDIR);

	/* links: the last component never (with or without SFS_NOFOLLOW);
	 * a directory on the way only without it */
	scratch_symlink(top, "ok", "r/link");
	scratch_symlink(top, "r", "rdir");
	strbuf_setlen(&out, 0);
	strbuf_setlen(&err, 0);
	assert_int_equal(sfs_read(topfd, "r/link", SFS_IN_TEXT, 0, &out, &err), -1);
	assert_int_equal(errno, ELOOP);
	assert_non_null(strstr(err.buf, "cannot read r/link: it is a symbolic link (refused)"));
	assert_int_equal(sfs_read(topfd, "r/link", SFS_IN_TEXT, SFS_NOFOLLOW, &out, NULL), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(sfs_read(topfd, "rdir/ok", SFS_IN_TEXT, 0, &out, NULL), 6);
	strbuf_setlen(&err, 0);
	assert_int_equal(sfs_read(topfd, "rdir/ok", SFS_IN_TEXT, SFS_NOFOLLOW, &out, &err), -1);
	assert_int_equal(errno, ELOOP);
	assert_non_null(strstr(err.buf, "symbolic link"));
	/* ".." never leaves the anchor */
	assert_int_equal(sfs_read(topfd, "r/../r/ok", SFS_IN_TEXT, SFS_NOFOLLOW, &out, NULL), -1);
	assert_int_equal(errno, EINVAL);

	/* a name for messages */
	strbuf_setlen(&err, 0);
	assert_int_equal(sfs_open_input_as(topfd, "r/link", "/the/full/path", SFS_IN_TEXT, 0,
					   NULL, &err), -1);
	assert_non_null(strstr(err.buf, "cannot read /the/full/path: it is a symbolic link"));

	/* through a descriptor the caller opened (and checked): the same rules */
	{
		int fd = openat(topfd, "r/ok", O_RDONLY | O_NONBLOCK);
		strbuf_setlen(&out, 0);
		assert_int_equal(sfs_read_fd(fd, "r/ok", SFS_IN_TEXT, &out, &err), 6);
		assert_string_equal(out.buf, "hello\n");
		close(fd);
		fd = open(fifo, O_RDONLY | O_NONBLOCK);
		strbuf_setlen(&err, 0);
		assert_int_equal(sfs_read_fd(fd, "the fifo", SFS_IN_TEXT, &out, &err), -1);
		assert_int_equal(errno, EINVAL);
		assert_non_null(strstr(err.buf, "cannot read the fifo: it is a FIFO, expected a regular file"));
		close(fd);
	}
	/* the one hash of a file reads through the same rules */
	{
		char hex[SHA256_HEX_SIZE];
		assert_int_equal(sha256_file(topfd, "r/ok", SFS_IN_TEXT, 0, hex, NULL), 0);
		assert_string_equal(hex, "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03");
		strbuf_setlen(&err, 0);
		assert_int_equal(sha256_file(topfd, "r/link", SFS_IN_TEXT, 0, hex, &err), -1);
		assert_non_null(strstr(err.buf, "symbolic link"));
		assert_int_equal(sha256_file(AT_FDCWD, fifo, SFS_IN_TEXT, 0, hex, NULL), -1);
		assert_int_equal(errno, EINVAL);
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

	scratch_mkdir(top, "w");
	scratch_put(top, "victim", "root's file\n");
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
	scratch_symlink(top, victim, "w/log");
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
	scratch_symlink(top, "w", "wlink");
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

/* The one rule for a directory root works in or reads from (--workdir, a
 * compile log directory): as root, root's and writable by no one else;
 * not root, nothing is checked. */
static void test_root_only(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct passwd *nobody = getpwnam("nobody");
	int fd;
	(void)state;

	scratch_mkdir(top, "ro");
	fd = sfs_open_dir(topfd, "ro", NULL);
	assert_true(fd >= 0);
	assert_int_equal(fchmod(fd, 0755), 0);
	assert_int_equal(sfs_root_only(fd, "--log", "D", "reads it", &err), 0);
	if (geteuid() != 0) {
		assert_int_equal(fchmod(fd, 0777), 0);
		assert_int_equal(sfs_root_only(fd, "--log", "D", "reads it", &err), 0);
		close(fd);
		skip();
	}
	assert_int_equal(fchmod(fd, 01777), 0); /* sticky is no exemption */
	assert_int_equal(sfs_root_only(fd, "--log", "D", "reads it", &err), -1);
	assert_int_equal(errno, EPERM);
	assert_non_null(strstr(err.buf, "--log D: another user can change what is in it (mode 1777, "
				   "owner root): "));
	assert_non_null(strstr(err.buf, " runs as root and reads it; give a directory only root "
				   "can write (chown root D; chmod go-w D)"));
	assert_int_equal(fchmod(fd, 0755), 0);
	if (nobody) {
		strbuf_reset(&err);
		assert_int_equal(fchown(fd, nobody->pw_uid, (gid_t)-1), 0);
		assert_int_equal(sfs_root_only(fd, "--log", "D", "reads it", &err), -1);
		assert_non_null(strstr(err.buf, "(mode 0755, owner nobody)"));
	}
	close(fd);
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
	scratch_mkdir(top, "other");
	p = xasprintf("%s/other", top);
	assert_int_equal(chmod(p, 0755), 0);
	scratch_symlink(top, p, "dl");
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
	/* as root: a directory another user owns is taken only when it is to
	 * be theirs (handed over before), never as one of ours */
	{
		struct passwd *pw = getpwnam("nobody");
		if (geteuid() == 0 && pw) {
			fd = sfs_mkdir(topfd, "theirs", 0700, pw->pw_uid, pw->pw_gid, 0, NULL);
			assert_true(fd >= 0);
			close(fd);
			assert_int_equal(sfs_mkdir(topfd, "theirs", 0700, (uid_t)-1, (gid_t)-1, 1,
						   NULL), -1);
			assert_int_equal(errno, EPERM);
			fd = sfs_mkdir(topfd, "theirs", 0700, pw->pw_uid, pw->pw_gid, 1, NULL);
			assert_true(fd >= 0);
			close(fd);
		}
	}
	strbuf_release(&err);
}

static void test_chown_tree(void **state)
{
	struct passwd *pw = getpwnam("nobody");
	struct stat st;
	char *outside, *p;
	long n;
	(void)state;

	scratch_mkdir(top, "t");
	scratch_mkdir(top, "t/sub");
	scratch_put(top, "t/sub/f", "x");
	scratch_put(top, "outside", "keep");
	outside = xasprintf("%s/outside", top);
	scratch_symlink(top, outside, "t/sub/link");
	scratch_symlink(top, top, "t/uplink");

	/* as ourselves: nothing changes owner */
	n = sfs_chown_tree(topfd, "t", geteuid(), getegid(), NULL);
	assert_int_equal(n, 0);
	if (geteuid() != 0 || !pw) {
		free(outside);
		skip_because("changing owners needs root and the user nobody");
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
	scratch_mkdir(top, "x");
	scratch_mkdir(top, "x/y");
	scratch_put(top, "x/y/f", "x");
	scratch_put(top, "keep", "kept");
	scratch_symlink(top, "../../keep", "x/y/l");
	scratch_symlink(top, top, "x/top");
	assert_int_equal(sfs_remove(topfd, "x", NULL), 0);
	t = slurp("keep");
	assert_string_equal(t, "kept");
	free(t);
	t = slurp("x/y/f");
	assert_string_equal(t, "(missing)");
	free(t);
	/* missing: success; a link on the way: refused */
	assert_int_equal(sfs_remove(topfd, "x", NULL), 0);
	scratch_mkdir(top, "z");
	scratch_put(top, "z/f", "z");
	scratch_symlink(top, "z", "zl");
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

static void test_tree_foreign(void **state)
{
	struct passwd *pw = getpwnam("nobody");
	struct strbuf bad = STRBUF_INIT;
	const char *skip[] = { "ignored", NULL };
	uid_t owner = 12345;
	char *p;
	(void)state;

	scratch_mkdir(top, "ft");
	scratch_mkdir(top, "ft/a");
	scratch_mkdir(top, "ft/ignored");
	scratch_put(top, "ft/a/Makefile", "all:\n");
	scratch_symlink(top, "/etc", "ft/a/link");
	/* all ours, links and a skipped entry aside */
	assert_int_equal(sfs_tree_foreign(topfd, "ft", geteuid(), getegid(), skip, &bad, &owner,
					  NULL), 0);
	assert_int_equal(bad.len, 0);
	/* a file others may write: found, with its path */
	p = xasprintf("%s/ft/a/Makefile", top);
	assert_int_equal(chmod(p, 0666), 0);
	assert_int_equal(sfs_tree_foreign(topfd, "ft", geteuid(), getegid(), skip, &bad, &owner,
					  NULL), 1);
	assert_string_equal(bad.buf, "a/Makefile");
	assert_int_equal(owner, geteuid());
	assert_int_equal(chmod(p, 0644), 0);
	/* a directory others may write, in a skipped entry: not looked at */
	free(p);
	p = xasprintf("%s/ft/ignored", top);
	assert_int_equal(chmod(p, 0777), 0);
	strbuf_reset(&bad);
	assert_int_equal(sfs_tree_foreign(topfd, "ft", geteuid(), getegid(), skip, &bad, &owner,
					  NULL), 0);
	/* the tree itself, and a link as the tree: refused */
	assert_int_equal(sfs_tree_foreign(topfd, "ft/ignored", geteuid(), getegid(), NULL, &bad,
					  &owner, NULL), 1);
	assert_int_equal(bad.len, 0);
	assert_int_equal(sfs_tree_foreign(topfd, "ft/a/link", geteuid(), getegid(), NULL, &bad,
					  &owner, NULL), -1);
	assert_int_equal(errno, ELOOP);
	free(p);
	if (geteuid() != 0 || !pw) {
		strbuf_release(&bad);
		skip_because("files of another owner need root and the user nobody");
	}
	/* as root: an entry another user owns (a tree handed over before) */
	p = xasprintf("%s/ft/a", top);
	assert_int_equal(chown(p, pw->pw_uid, pw->pw_gid), 0);
	assert_int_equal(sfs_tree_foreign(topfd, "ft", 0, 0, skip, &bad, &owner, NULL), 1);
	assert_string_equal(bad.buf, "a");
	assert_int_equal(owner, pw->pw_uid);
	free(p);
	strbuf_release(&bad);
}

static void test_link_tree(void **state)
{
	struct passwd *pw = getpwnam("nobody");
	struct stat st, st2;
	const char *skip[] = { "skipped", NULL };
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char *p, *q, *t;
	(void)state;

	scratch_mkdir(top, "src");
	scratch_mkdir(top, "src/d");
	scratch_mkdir(top, "src/skipped");
	scratch_put(top, "src/d/Makefile", "all:\n");
	scratch_put(top, "src/open", "anyone may write me");
	scratch_put(top, "src/skipped/x", "x");
	scratch_symlink(top, "d/Makefile", "src/rel");
	scratch_symlink(top, "/etc/passwd", "src/abs");
	p = xasprintf("%s/src/open", top);
	assert_int_equal(chmod(p, 0666), 0);
	free(p);
	p = xasprintf("%s/src/fifo", top);
	assert_int_equal(mkfifo(p, 0644), 0);
	free(p);
	if (geteuid() == 0 && pw) {
		uid = pw->pw_uid;
		gid = pw->pw_gid;
	}
	/* d, d/Makefile, open, rel, abs, and the top */
	assert_int_equal(sfs_link_tree(topfd, "src", topfd, "farm", uid, gid, skip, NULL), 6);
	/* a safe file is the same inode; a file others may write is a copy */
	p = xasprintf("%s/src/d/Makefile", top);
	q = xasprintf("%s/farm/d/Makefile", top);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(stat(q, &st2), 0);
	assert_true(st.st_ino == st2.st_ino);
	assert_int_equal(st2.st_uid, st.st_uid);
	free(p);
	free(q);
	p = xasprintf("%s/src/open", top);
	q = xasprintf("%s/farm/open", top);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(stat(q, &st2), 0);
	assert_true(st.st_ino != st2.st_ino);
	assert_int_equal(st2.st_uid, uid);
	assert_int_equal(st2.st_mode & 0777, 0644);
	t = slurp("farm/open");
	assert_string_equal(t, "anyone may write me");
	free(t);
	free(p);
	free(q);
	/* links made again, directories the user's, the rest left out */
	t = slurp("farm/rel");
	assert_string_equal(t, "all:\n");
	free(t);
	p = xasprintf("%s/farm/abs", top);
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	free(p);
	p = xasprintf("%s/farm/d", top);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_uid, uid);
	free(p);
	t = slurp("farm/skipped/x");
	assert_string_equal(t, "(missing)");
	free(t);
	p = xasprintf("%s/farm/fifo", top);
	assert_int_equal(lstat(p, &st), -1);
	free(p);
	p = xasprintf("%s/farm", top);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_uid, uid);
	free(p);
	/* the copy exists: refused, the source untouched */
	assert_int_equal(sfs_link_tree(topfd, "src", topfd, "farm", uid, gid, skip, NULL), -1);
	assert_int_equal(errno, EEXIST);
	assert_int_equal(sfs_remove(topfd, "farm", NULL), 0);
	t = slurp("src/d/Makefile");
	assert_string_equal(t, "all:\n");
	free(t);
}

/* A relative link out of the tree (a vpath build's src/Makefile.port ->
 * ../../src/makefiles/...) still names its file from a copy at another
 * depth; one inside the tree stays relative. */
static void test_link_tree_escaping(void **state)
{
	char buf[256];
	char *p, *t;
	ssize_t n;
	(void)state;

	scratch_mkdir(top, "b");
	scratch_mkdir(top, "b/d");
	scratch_put(top, "beside", "beside the tree\n");
	scratch_put(top, "b/d/in", "inside\n");
	scratch_symlink(top, "../../beside", "b/d/up");
	scratch_symlink(top, "in", "b/d/rel");
	scratch_mkdir(top, "deeper");
	assert_int_equal(sfs_link_tree(topfd, "b", topfd, "deeper/copy", geteuid(), getegid(),
				       NULL, NULL), 5);
	t = slurp("deeper/copy/d/up");
	assert_string_equal(t, "beside the tree\n");
	free(t);
	p = xasprintf("%s/deeper/copy/d/up", top);
	n = readlink(p, buf, sizeof(buf) - 1);
	assert_true(n > 0 && buf[0] == '/');
	free(p);
	p = xasprintf("%s/deeper/copy/d/rel", top);
	n = readlink(p, buf, sizeof(buf) - 1);
	assert_true(n == 2 && !strncmp(buf, "in", 2));
	free(p);
	assert_int_equal(sfs_remove(topfd, "deeper", NULL), 0);
}

static void test_copy_back(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *t;
	(void)state;

	scratch_mkdir(top, "cb");
	scratch_put(top, "cb/data.gcda", "counts");
	scratch_put(top, "secret", "root only");
	scratch_symlink(top, "../secret", "cb/planted.gcda");
	assert_int_equal(sfs_copy_back(topfd, "cb/data.gcda", topfd, "back.gcda", SFS_IN_COUNTS, 0644,
				       &err), 6);
	t = slurp("back.gcda");
	assert_string_equal(t, "counts");
	free(t);
	/* a planted link is refused and nothing is written */
	assert_int_equal(sfs_copy_back(topfd, "cb/planted.gcda", topfd, "stolen", SFS_IN_COUNTS, 0644,
				       &err), -1);
	assert_int_equal(errno, ELOOP);
	assert_non_null(strstr(err.buf, "symbolic link"));
	t = slurp("stolen");
	assert_string_equal(t, "(missing)");
	free(t);
	/* over the limit: refused */
	sparse("cb/big.gcda", (off_t)sfs_input_limit(SFS_IN_COUNTS) + 1);
	assert_int_equal(sfs_copy_back(topfd, "cb/big.gcda", topfd, "back2", SFS_IN_COUNTS, 0644,
				       NULL), -1);
	assert_int_equal(errno, EFBIG);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_bounded),
		cmocka_unit_test(test_create_and_write),
		cmocka_unit_test(test_mkdir_and_anchor),
		cmocka_unit_test(test_root_only),
		cmocka_unit_test(test_chown_tree),
		cmocka_unit_test(test_remove),
		cmocka_unit_test(test_tree_foreign),
		cmocka_unit_test(test_link_tree),
		cmocka_unit_test(test_link_tree_escaping),
		cmocka_unit_test(test_copy_back),
	};
	return cmocka_run_group_tests_name("common/safefs", tests, setup, teardown);
}
