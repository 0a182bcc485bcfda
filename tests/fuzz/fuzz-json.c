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

#include "wrapper/common/json.h"

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
		json_value_write(&jw, v);
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
