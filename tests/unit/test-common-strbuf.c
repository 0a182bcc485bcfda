/*
 * test-common-strbuf.c - strbuf (wrapper/common/strbuf.c): adding,
 * formatting, trimming, embedded NULs, growth and detaching.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "wrapper/common/copytree.h"
#include "wrapper/common/dir.h"
#include "wrapper/common/fdio.h"
#include "wrapper/common/json.h"
#include "wrapper/common/run-command.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"
#include "wrapper/common/xalloc.h"

static void test_strbuf(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *d;
	size_t n;
	(void)state;
	assert_string_equal(sb.buf, "");
	strbuf_addstr(&sb, "  hello");
	strbuf_addf(&sb, " %d %s  ", 42, "x");
	strbuf_trim(&sb);
	assert_string_equal(sb.buf, "hello 42 x");
	strbuf_add(&sb, "\0z", 2);
	assert_int_equal(sb.len, 12);
	for (int i = 0; i < 10000; i++)
		strbuf_addch(&sb, 'a');
	assert_int_equal(sb.len, 10012);
	assert_int_equal(sb.buf[sb.len], '\0');
	d = strbuf_detach(&sb, &n);
	assert_int_equal(n, 10012);
	assert_string_equal(sb.buf, "");
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strbuf),
	};
	return cmocka_run_group_tests_name("common-strbuf", tests, NULL, NULL);
}
