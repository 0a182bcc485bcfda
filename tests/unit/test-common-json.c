/*
 * test-common-json.c - the JSON writer and reader (wrapper/common/json.c).
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

static void test_json_writer(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_writer jw;
	(void)state;
	json_writer_init(&jw, &sb);
	json_object_begin(&jw);
	json_key(&jw, "s"); json_string(&jw, "q\"b\\n\n\t\x01\x7f");
	json_key(&jw, "bad"); json_string(&jw, "\xff\xc3\xa9");
	json_key(&jw, "a"); json_array_begin(&jw); json_int(&jw, -3); json_double(&jw, 0.5);
	json_bool(&jw, 1); json_null(&jw); json_object_begin(&jw); json_object_end(&jw);
	json_array_end(&jw);
	json_key(&jw, "n"); json_string(&jw, NULL);
	{
		struct strvec sv = STRVEC_INIT, empty = STRVEC_INIT;
		strvec_pushl(&sv, "x", "y\"", NULL);
		json_key(&jw, "sv"); json_strvec(&jw, &sv);
		json_key(&jw, "e"); json_strvec(&jw, &empty);
		strvec_clear(&sv);
	}
	json_object_end(&jw);
	assert_string_equal(sb.buf,
		"{\"s\":\"q\\\"b\\\\n\\n\\t\\u0001\\u007f\",\"bad\":\"\\u00ff\xc3\xa9\","
		"\"a\":[-3,0.5,true,null,{}],\"n\":null,\"sv\":[\"x\",\"y\\\"\"],\"e\":[]}");
	strbuf_release(&sb);
}

static void test_json_reader(void **state)
{
	struct strbuf err = STRBUF_INIT;
	const char *text = "{\"a\": [1, 2.5e1, \"x\\u00e9\\ud83d\\ude00\"], \"b\": true,"
			   " \"c\": false, \"d\": null, \"e\": {\"f\": -0.5}}";
	struct json_value *v = json_parse(text, strlen(text), &err);
	(void)state;
	assert_non_null(v);
	assert_int_equal(json_len(json_get(v, "a")), 3);
	assert_true(json_at(json_get(v, "a"), 1)->u.number == 25.0);
	assert_string_equal(json_at(json_get(v, "a"), 2)->u.str.s, "x\xc3\xa9\xf0\x9f\x98\x80");
	assert_int_equal(json_get(v, "b")->u.boolean, 1);
	assert_int_equal(json_get(v, "c")->u.boolean, 0);
	assert_int_equal(json_get(v, "d")->type, JSON_NULL);
	assert_true(json_get_num(json_get(v, "e"), "f", 0) == -0.5);
	assert_null(json_get(v, "zz"));
	{
		/* round trip through the writer */
		struct strbuf sb = STRBUF_INIT;
		struct json_writer jw;
		json_writer_init(&jw, &sb);
		json_value_write(&jw, v);
		assert_string_equal(sb.buf, "{\"a\":[1,25,\"x\xc3\xa9\xf0\x9f\x98\x80\"],\"b\":true,"
					    "\"c\":false,\"d\":null,\"e\":{\"f\":-0.5}}");
		strbuf_release(&sb);
	}
	json_free(v);

	static const struct { const char *text, *err; } bad[] = {
		{ "", "line 1, column 1: expected a value" },
		{ "{\"a\" 1}", "line 1, column 6: expected ':' after an object key" },
		{ "[1,\n 2", "line 2, column 3: expected ',' or ']'" },
		{ "\"abc", "line 1, column 5: expected a closing '\"'" },
		{ "[01]", "line 1, column 3: expected ',' or ']'" },
		{ "tru", "line 1, column 1: expected true or false" },
		{ "{} x", "line 1, column 4: expected end of input" },
		{ "\"\\x\"", "line 1, column 3: expected a valid escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strbuf_reset(&err);
		assert_null(json_parse(bad[i].text, strlen(bad[i].text), &err));
		if (strcmp(err.buf, bad[i].err))
			fail_msg("<%s>: got <%s> want <%s>", bad[i].text, err.buf, bad[i].err);
	}
	{
		/* depth limit, not a stack overflow */
		struct strbuf deep = STRBUF_INIT;
		for (int i = 0; i < 100000; i++)
			strbuf_addch(&deep, '[');
		strbuf_reset(&err);
		assert_null(json_parse(deep.buf, deep.len, &err));
		assert_non_null(strstr(err.buf, "less deeply nested"));
		strbuf_release(&deep);
	}
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_writer),
		cmocka_unit_test(test_json_reader),
	};
	return cmocka_run_group_tests_name("common-json", tests, NULL, NULL);
}
