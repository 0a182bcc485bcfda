/*
 * fixture.h - what the unit tests share: fixture(NAME) is the text of
 * their recorded input tests/unit/data/NAME (malloced; the test fails when
 * it is missing or empty); scratch_dir_make and scratch_dir_remove give a
 * test (or a group's setup and teardown) a private scratch directory, and
 * scratch_mkdir, scratch_put, scratch_symlink and scratch_exists make and
 * look at what is in it (DIR/REL; the test fails when one cannot);
 * skip_because(REASON) skips the rest of a test that cannot run here,
 * saying why: `make check-unit` lists every skip with its reason at the
 * end, and fails on a skip that gave none (cmocka's bare skip()).
 * Include after <cmocka.h>.
 */
#ifndef TESTS_UNIT_FIXTURE_H
#define TESTS_UNIT_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wrapper/common/fdio.h"
#include "wrapper/common/rmtree.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/xalloc.h"

/* A fixture next to this file (the tests run from the top directory). */
static inline char *fixture(const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	char *dir = xstrdup(__FILE__), *slash = strrchr(dir, '/');
	char *path;

	if (slash)
		*slash = '\0';
	path = xasprintf("%s/data/%s", slash ? dir : ".", name);
	assert_true(sfs_read(AT_FDCWD, path, SFS_IN_BINARY, 0, &sb, NULL) > 0);
	free(dir);
	free(path);
	return strbuf_detach(&sb, NULL);
}

/* Skip the rest of this test, with the reason ("# SKIP test: reason"). */
#define skip_because(reason) do { \
	print_message("# SKIP %s: %s\n", __func__, (reason)); \
	skip(); \
} while (0)

/*
 * A fresh private directory /tmp/NAME.XXXXXX (mkdtemp: mode 0700, owned
 * by the caller; TMPDIR is not read, tests that unset it get the same
 * place); its path, malloced, or NULL with errno set.
 */
static inline char *scratch_dir_make(const char *name)
{
	char *dir = xasprintf("/tmp/%s.XXXXXX", name);
	if (!mkdtemp(dir)) {
		free(dir);
		return NULL;
	}
	return dir;
}

/* Make the directory DIR/REL (0755 before the umask). */
static inline void scratch_mkdir(const char *dir, const char *rel)
{
	char *p = xasprintf("%s/%s", dir, rel);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
}

/* Write text to the file DIR/REL (write_file_atomic: its directory must
 * be there). */
static inline void scratch_put(const char *dir, const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", dir, rel);
	assert_int_equal(write_file_atomic_quiet(p, text, strlen(text)), 0);
	free(p);
}

/* Make DIR/REL a symbolic link to target. */
static inline void scratch_symlink(const char *dir, const char *target, const char *rel)
{
	char *p = xasprintf("%s/%s", dir, rel);
	assert_int_equal(symlink(target, p), 0);
	free(p);
}

/* Is DIR/REL there (a link is not followed)? */
static inline int scratch_exists(const char *dir, const char *rel)
{
	struct stat st;
	char *p = xasprintf("%s/%s", dir, rel);
	int there = lstat(p, &st) == 0;
	free(p);
	return there;
}

/* Remove dir and everything below it (rm -rf, no process), then free the
 * path; 0, or -1 with errno set.  NULL: nothing to do. */
static inline int scratch_dir_remove(char *dir)
{
	int rc = dir ? remove_tree(dir) : 0;
	free(dir);
	return rc;
}

/*
 * stderr while the code under test runs, so its error lines can be
 * compared: capture_begin() points stderr at memory, capture_end() puts it
 * back and returns what was written (valid until the next capture_end).
 */
static char *capture_buf;
static size_t capture_len;
static FILE *capture_saved;

static inline void capture_begin(void)
{
	capture_saved = stderr;
	stderr = open_memstream(&capture_buf, &capture_len);
	assert_non_null(stderr);
}

static inline const char *capture_end(void)
{
	static char *last;
	fclose(stderr);
	stderr = capture_saved;
	free(last);
	last = capture_buf;
	capture_buf = NULL;
	return last;
}

#endif
