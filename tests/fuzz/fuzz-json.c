/*
 * fuzz-json.c - libFuzzer harness for the JSON reader (wrapper/common/json.c)
 * that `pgbuild report` and `gate` use on compile logs and results.
 *
 * A value that parses is walked with the lookup functions and written back
 * with the writer; the written text must parse again.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static void write_value(struct json_writer *jw, const struct json_value *v)
{
	switch (v->type) {
	case JSON_NULL: json_null(jw); break;
	case JSON_BOOL: json_bool(jw, v->u.boolean); break;
	case JSON_NUMBER: json_double(jw, v->u.number); break;
	case JSON_STRING: json_stringn(jw, v->u.str.s, v->u.str.len); break;
	case JSON_ARRAY:
		json_array_begin(jw);
		for (size_t i = 0; i < json_len(v); i++)
			write_value(jw, json_at(v, i));
		json_array_end(jw);
		break;
	case JSON_OBJECT:
		json_object_begin(jw);
		for (size_t i = 0; i < v->u.list.nr; i++) {
			json_key(jw, v->u.list.keys[i]);
			write_value(jw, v->u.list.items[i]);
		}
		json_object_end(jw);
		break;
	default:
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT, sb = STRBUF_INIT;
	struct json_value *v = json_parse((const char *)data, size, &err), *again;

	if (!v) {
		if (!err.len || memchr(err.buf, '\n', err.len))
			abort(); /* an error is one line saying what was expected */
		strbuf_release(&err);
		return 0;
	}
	(void)json_get_str(v, "tu");
	(void)json_get_num(v, "ms", 0);
	(void)json_get(v, "argv_out");
	(void)json_at(v, 0);
	{
		struct json_writer jw = JSON_WRITER_INIT(&sb);
		write_value(&jw, v);
	}
	again = json_parse(sb.buf, sb.len, &err);
	if (!again)
		abort(); /* the writer's output must be valid JSON */
	json_free(again);
	json_free(v);
	strbuf_release(&sb);
	strbuf_release(&err);
	return 0;
}
