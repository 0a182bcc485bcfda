/*
 * fixture.h - the unit tests' recorded inputs: fixture(NAME) is the text
 * of tests/unit/data/NAME (malloced; the test fails when it is missing or
 * empty).  Include after <cmocka.h> and "pgbuild.h".
 */
#ifndef TESTS_UNIT_FIXTURE_H
#define TESTS_UNIT_FIXTURE_H

/* A fixture next to this file (the tests run from the top directory). */
static char *fixture(const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	char *dir = xstrdup(__FILE__), *slash = strrchr(dir, '/');
	char *path;

	if (slash)
		*slash = '\0';
	path = xasprintf("%s/data/%s", slash ? dir : ".", name);
	assert_true(strbuf_read_file(&sb, path) > 0);
	free(dir);
	free(path);
	return strbuf_detach(&sb, NULL);
}

#endif
