/*
 * json.h - a small JSON writer and reader.
 *
 * Writer: appends to a strbuf and keeps a stack of "first element" flags so
 * callers never juggle commas:
 *
 *     struct json_writer jw = JSON_WRITER_INIT(&sb);
 *     json_object_begin(&jw);
 *     json_key(&jw, "tu");  json_string(&jw, "src/backend/a.c");
 *     json_key(&jw, "size"); json_int(&jw, 4096);
 *     json_object_end(&jw);
 *
 * Strings are escaped per RFC 8259; bytes that are not valid UTF-8 are
 * written as \u00XX of the byte so the output is always valid JSON.
 *
 * Reader: json_parse() builds a tree of json_value; errors report the byte
 * offset, line and column and what was expected.  Depth is limited
 * (JSON_MAX_DEPTH) so hostile input cannot exhaust the stack.
 */
#ifndef PGOPT_JSON_H
#define PGOPT_JSON_H

#include <stddef.h>
#include <stdint.h>
#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"

#define JSON_MAX_DEPTH 64

/* ---------------- writer ---------------- */

struct json_writer {
	struct strbuf *out;              /* where the text goes */
	int depth;                       /* current nesting level */
	unsigned char first[JSON_MAX_DEPTH]; /* 1 until the level has an element */
	int after_key;                   /* a key was written, value comes next */
};

#define JSON_WRITER_INIT(sb) { (sb), 0, { 1 }, 0 }

void json_writer_init(struct json_writer *jw, struct strbuf *out);
void json_object_begin(struct json_writer *jw);
void json_object_end(struct json_writer *jw);
void json_array_begin(struct json_writer *jw);
void json_array_end(struct json_writer *jw);
void json_key(struct json_writer *jw, const char *key);
void json_string(struct json_writer *jw, const char *s);   /* NULL -> null */
void json_stringn(struct json_writer *jw, const char *s, size_t n);
void json_int(struct json_writer *jw, int64_t v);
void json_double(struct json_writer *jw, double v);       /* NaN/inf -> null */
void json_bool(struct json_writer *jw, int v);
void json_null(struct json_writer *jw);
/* an array of sv's strings */
void json_strvec(struct json_writer *jw, const struct strvec *sv);
/* Insert already-valid JSON text as one value. */
void json_raw(struct json_writer *jw, const char *text);

/* Write a parsed value back out (NULL -> null; integral numbers below 2^53
 * as integers). */
struct json_value;
void json_value_write(struct json_writer *jw, const struct json_value *v);

/* Append s as a quoted, escaped JSON string. */
void json_escape(struct strbuf *out, const char *s, size_t n);

/* ---------------- reader ---------------- */

enum json_type {
	JSON_NULL,
	JSON_BOOL,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
};

struct json_value {
	enum json_type type;
	union {
		int boolean;          /* JSON_BOOL */
		double number;        /* JSON_NUMBER */
		struct {              /* JSON_STRING: NUL-terminated, may hold NULs */
			char *s;
			size_t len;
		} str;
		struct {              /* JSON_ARRAY / JSON_OBJECT */
			struct json_value **items;
			char **keys;  /* NULL for arrays; keys[i] names items[i] */
			size_t nr;
		} list;
	} u;
};

/*
 * Parse text[0..len) as exactly one JSON value (surrounding white space
 * allowed).  On error returns NULL and, if err is not NULL, fills it with
 * "line L, column C: expected ..." text.
 */
struct json_value *json_parse(const char *text, size_t len, struct strbuf *err);
void json_free(struct json_value *v);

/* Lookups; all return NULL/default when the value has another type. */
const struct json_value *json_get(const struct json_value *obj, const char *key);
const struct json_value *json_at(const struct json_value *arr, size_t i);
size_t json_len(const struct json_value *v);
const char *json_get_str(const struct json_value *obj, const char *key);
double json_get_num(const struct json_value *obj, const char *key, double def);
/* The strings of an array joined by single spaces (others skipped); "" for
 * none or a non-array.  Allocated: the caller frees it. */
char *json_join_strings(const struct json_value *arr);

#endif
