/*
 * fixture.h - what the unit tests share: fixture(NAME) is the text of
 * their recorded input tests/unit/data/NAME (malloced; the test fails when
 * it is missing or empty); scratch_dir_make and scratch_dir_remove give a
 * test (or a group's setup and teardown) a private scratch directory;
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

/* Remove dir and everything below it (rm -rf, no process), then free the
 * path; 0, or -1 with errno set.  NULL: nothing to do. */
static inline int scratch_dir_remove(char *dir)
{
	int rc = dir ? remove_tree(dir) : 0;
	free(dir);
	return rc;
}

#endif
