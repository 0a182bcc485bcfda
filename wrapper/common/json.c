/*
 * json.c - JSON writer and reader; see json.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wrapper/common/error.h"
#include "wrapper/common/json.h"
#include "wrapper/common/xalloc.h"

/* ---------------- writer ---------------- */

void json_writer_init(struct json_writer *jw, struct strbuf *out)
{
	memset(jw, 0, sizeof(*jw));
	jw->out = out;
	jw->first[0] = 1;
}

/* Comma handling before any value or key. */
static void json_sep(struct json_writer *jw)
{
	if (jw->after_key) {
		jw->after_key = 0;
		return;
	}
	if (!jw->first[jw->depth])
		strbuf_addch(jw->out, ',');
	jw->first[jw->depth] = 0;
}

static void json_push(struct json_writer *jw, char c)
{
	json_sep(jw);
	strbuf_addch(jw->out, c);
	if (jw->depth + 1 >= JSON_MAX_DEPTH)
		BUG("json writer nested too deep");
	jw->first[++jw->depth] = 1;
}

void json_object_begin(struct json_writer *jw) { json_push(jw, '{'); }
void json_array_begin(struct json_writer *jw) { json_push(jw, '['); }

void json_object_end(struct json_writer *jw)
{
	jw->depth--;
	strbuf_addch(jw->out, '}');
}

void json_array_end(struct json_writer *jw)
{
	jw->depth--;
	strbuf_addch(jw->out, ']');
}

/* Length of a valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned cp;
	if (s[0] < 0x80)
		return 1;
	else if ((s[0] & 0xe0) == 0xc0) { len = 2; cp = s[0] & 0x1f; }
	else if ((s[0] & 0xf0) == 0xe0) { len = 3; cp = s[0] & 0x0f; }
	else if ((s[0] & 0xf8) == 0xf0) { len = 4; cp = s[0] & 0x07; }
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

void json_escape(struct strbuf *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	strbuf_grow(out, n + 2);
	strbuf_addch(out, '"');
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		size_t l;
		switch (c) {
		case '"': strbuf_addstr(out, "\\\""); i++; continue;
		case '\\': strbuf_addstr(out, "\\\\"); i++; continue;
		case '\n': strbuf_addstr(out, "\\n"); i++; continue;
		case '\r': strbuf_addstr(out, "\\r"); i++; continue;
		case '\t': strbuf_addstr(out, "\\t"); i++; continue;
		case '\b': strbuf_addstr(out, "\\b"); i++; continue;
		case '\f': strbuf_addstr(out, "\\f"); i++; continue;
		default: break;
		}
		if (c < 0x20 || c == 0x7f) {
			strbuf_addf(out, "\\u%04x", c);
			i++;
			continue;
		}
		l = utf8_len(p + i, n - i);
		if (!l) {
			/* invalid UTF-8: keep the byte's value, stay valid JSON */
			strbuf_addf(out, "\\u%04x", c);
			i++;
			continue;
		}
		strbuf_add(out, p + i, l);
		i += l;
	}
	strbuf_addch(out, '"');
}

void json_key(struct json_writer *jw, const char *key)
{
	json_sep(jw);
	json_escape(jw->out, key, strlen(key));
	strbuf_addch(jw->out, ':');
	jw->after_key = 1;
}

void json_string(struct json_writer *jw, const char *s)
{
	if (!s) {
		json_null(jw);
		return;
	}
	json_stringn(jw, s, strlen(s));
}

void json_stringn(struct json_writer *jw, const char *s, size_t n)
{
	json_sep(jw);
	json_escape(jw->out, s, n);
}

void json_int(struct json_writer *jw, int64_t v)
{
	json_sep(jw);
	strbuf_addf(jw->out, "%lld", (long long)v);
}

void json_double(struct json_writer *jw, double v)
{
	json_sep(jw);
	if (isnan(v) || isinf(v))
		strbuf_addstr(jw->out, "null");
	else
		strbuf_addf(jw->out, "%.17g", v);
}

void json_bool(struct json_writer *jw, int v)
{
	json_sep(jw);
	strbuf_addstr(jw->out, v ? "true" : "false");
}

void json_null(struct json_writer *jw)
{
	json_sep(jw);
	strbuf_addstr(jw->out, "null");
}

void json_strvec(struct json_writer *jw, const struct strvec *sv)
{
	json_array_begin(jw);
	for (size_t i = 0; i < sv->nr; i++)
		json_string(jw, sv->v[i]);
	json_array_end(jw);
}

void json_raw(struct json_writer *jw, const char *text)
{
	json_sep(jw);
	strbuf_addstr(jw->out, text);
}

void json_value_write(struct json_writer *jw, const struct json_value *v)
{
	if (!v) {
		json_null(jw);
		return;
	}
	switch (v->type) {
	case JSON_NULL:
		json_null(jw);
		break;
	case JSON_BOOL:
		json_bool(jw, v->u.boolean);
		break;
	case JSON_NUMBER:
		if (v->u.number == floor(v->u.number) && fabs(v->u.number) < 9007199254740992.0)
			json_int(jw, (int64_t)v->u.number);
		else
			json_double(jw, v->u.number);
		break;
	case JSON_STRING:
		json_stringn(jw, v->u.str.s, v->u.str.len);
		break;
	case JSON_ARRAY:
	case JSON_OBJECT:
		if (v->type == JSON_ARRAY)
			json_array_begin(jw);
		else
			json_object_begin(jw);
		for (size_t i = 0; i < v->u.list.nr; i++) {
			if (v->type == JSON_OBJECT)
				json_key(jw, v->u.list.keys[i]);
			json_value_write(jw, v->u.list.items[i]);
		}
		if (v->type == JSON_ARRAY)
			json_array_end(jw);
		else
			json_object_end(jw);
		break;
	}
}

/* ---------------- reader ---------------- */

struct json_parser {
	const char *s;      /* input */
	size_t len;         /* input length */
	size_t pos;         /* next byte */
	int depth;          /* nesting */
	struct strbuf *err; /* error text, may be NULL */
	int failed;         /* an error was reported */
};

static void *jp_fail(struct json_parser *jp, const char *expected)
{
	if (!jp->failed && jp->err) {
		size_t line = 1, col = 1;
		for (size_t i = 0; i < jp->pos && i < jp->len; i++) {
			if (jp->s[i] == '\n') {
				line++;
				col = 1;
			} else
				col++;
		}
		strbuf_addf(jp->err, "line %zu, column %zu: expected %s", line, col,
			    expected);
	}
	jp->failed = 1;
	return NULL;
}

static void jp_ws(struct json_parser *jp)
{
	while (jp->pos < jp->len) {
		char c = jp->s[jp->pos];
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		jp->pos++;
	}
}

static struct json_value *jv_new(enum json_type t)
{
	struct json_value *v = xcalloc(1, sizeof(*v));
	v->type = t;
	return v;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

static int jp_hex4(struct json_parser *jp, unsigned *out)
{
	unsigned v = 0;
	if (jp->len - jp->pos < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		int h = hexval(jp->s[jp->pos + (size_t)i]);
		if (h < 0)
			return -1;
		v = v * 16 + (unsigned)h;
	}
	jp->pos += 4;
	*out = v;
	return 0;
}

static void put_utf8(struct strbuf *sb, unsigned cp)
{
	if (cp < 0x80)
		strbuf_addch(sb, (int)cp);
	else if (cp < 0x800) {
		strbuf_addch(sb, (int)(0xc0 | (cp >> 6)));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		strbuf_addch(sb, (int)(0xe0 | (cp >> 12)));
		strbuf_addch(sb, (int)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	} else {
		strbuf_addch(sb, (int)(0xf0 | (cp >> 18)));
		strbuf_addch(sb, (int)(0x80 | ((cp >> 12) & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	}
}

/* Parse a string at jp->pos (which is at '"') into sb. */
static int jp_string(struct json_parser *jp, struct strbuf *sb)
{
	jp->pos++; /* opening quote */
	while (jp->pos < jp->len) {
		unsigned char c = (unsigned char)jp->s[jp->pos++];
		if (c == '"')
			return 0;
		if (c < 0x20) {
			jp->pos--;
			jp_fail(jp, "a string without raw control characters");
			return -1;
		}
		if (c != '\\') {
			strbuf_addch(sb, c);
			continue;
		}
		if (jp->pos >= jp->len)
			break;
		c = (unsigned char)jp->s[jp->pos++];
		switch (c) {
		case '"': strbuf_addch(sb, '"'); break;
		case '\\': strbuf_addch(sb, '\\'); break;
		case '/': strbuf_addch(sb, '/'); break;
		case 'b': strbuf_addch(sb, '\b'); break;
		case 'f': strbuf_addch(sb, '\f'); break;
		case 'n': strbuf_addch(sb, '\n'); break;
		case 'r': strbuf_addch(sb, '\r'); break;
		case 't': strbuf_addch(sb, '\t'); break;
		case 'u': {
			unsigned cp, lo;
			if (jp_hex4(jp, &cp) < 0) {
				jp_fail(jp, "four hex digits after \\u");
				return -1;
			}
			if (cp >= 0xd800 && cp <= 0xdbff && jp->len - jp->pos >= 6 &&
			    jp->s[jp->pos] == '\\' && jp->s[jp->pos + 1] == 'u') {
				size_t save = jp->pos;
				jp->pos += 2;
				if (jp_hex4(jp, &lo) == 0 && lo >= 0xdc00 && lo <= 0xdfff)
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				else
					jp->pos = save;
			}
			put_utf8(sb, cp);
			break;
		}
		default:
			jp->pos--;
			jp_fail(jp, "a valid escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)");
			return -1;
		}
	}
	jp_fail(jp, "a closing '\"'");
	return -1;
}

static struct json_value *jp_value(struct json_parser *jp);

static struct json_value *jp_list(struct json_parser *jp, int is_object)
{
	struct json_value *v = jv_new(is_object ? JSON_OBJECT : JSON_ARRAY);
	size_t alloc = 0;
	char close = is_object ? '}' : ']';

	if (++jp->depth > JSON_MAX_DEPTH) {
		json_free(v);
		return jp_fail(jp, "less deeply nested input");
	}
	jp->pos++;
	jp_ws(jp);
	if (jp->pos < jp->len && jp->s[jp->pos] == close) {
		jp->pos++;
		jp->depth--;
		return v;
	}
	for (;;) {
		char *key = NULL;
		struct json_value *item;
		jp_ws(jp);
		if (is_object) {
			struct strbuf k = STRBUF_INIT;
			if (jp->pos >= jp->len || jp->s[jp->pos] != '"') {
				json_free(v);
				return jp_fail(jp, "a string key");
			}
			if (jp_string(jp, &k) < 0) {
				strbuf_release(&k);
				json_free(v);
				return NULL;
			}
			key = strbuf_detach(&k, NULL);
			jp_ws(jp);
			if (jp->pos >= jp->len || jp->s[jp->pos] != ':') {
				free(key);
				json_free(v);
				return jp_fail(jp, "':' after an object key");
			}
			jp->pos++;
		}
		item = jp_value(jp);
		if (!item) {
			free(key);
			json_free(v);
			return NULL;
		}
		if (v->u.list.nr + 1 > alloc) {
			alloc = alloc ? alloc * 2 : 4;
			v->u.list.items = xrealloc(v->u.list.items, alloc * sizeof(*v->u.list.items));
			if (is_object)
				v->u.list.keys = xrealloc(v->u.list.keys, alloc * sizeof(char *));
		}
		if (is_object)
			v->u.list.keys[v->u.list.nr] = key;
		v->u.list.items[v->u.list.nr++] = item;
		jp_ws(jp);
		if (jp->pos < jp->len && jp->s[jp->pos] == ',') {
			jp->pos++;
			continue;
		}
		if (jp->pos < jp->len && jp->s[jp->pos] == close) {
			jp->pos++;
			jp->depth--;
			return v;
		}
		json_free(v);
		return jp_fail(jp, is_object ? "',' or '}'" : "',' or ']'");
	}
}

static struct json_value *jp_number(struct json_parser *jp)
{
	size_t start = jp->pos;
	char buf[64];
	char *end;
	struct json_value *v;

	if (jp->pos < jp->len && jp->s[jp->pos] == '-')
		jp->pos++;
	if (jp->pos >= jp->len || jp->s[jp->pos] < '0' || jp->s[jp->pos] > '9')
		return jp_fail(jp, "a digit");
	if (jp->s[jp->pos] == '0')
		jp->pos++;
	else
		while (jp->pos < jp->len && jp->s[jp->pos] >= '0' && jp->s[jp->pos] <= '9')
			jp->pos++;
	if (jp->pos < jp->len && jp->s[jp->pos] == '.') {
		jp->pos++;
		if (jp->pos >= jp->len || jp->s[jp->pos] < '0' || jp->s[jp->pos] > '9')
			return jp_fail(jp, "a digit after '.'");
		while (jp->pos < jp->len && jp->s[jp->pos] >= '0' && jp->s[jp->pos] <= '9')
			jp->pos++;
	}
	if (jp->pos < jp->len && (jp->s[jp->pos] == 'e' || jp->s[jp->pos] == 'E')) {
		jp->pos++;
		if (jp->pos < jp->len && (jp->s[jp->pos] == '+' || jp->s[jp->pos] == '-'))
			jp->pos++;
		if (jp->pos >= jp->len || jp->s[jp->pos] < '0' || jp->s[jp->pos] > '9')
			return jp_fail(jp, "a digit in the exponent");
		while (jp->pos < jp->len && jp->s[jp->pos] >= '0' && jp->s[jp->pos] <= '9')
			jp->pos++;
	}
	if (jp->pos - start >= sizeof(buf))
		return jp_fail(jp, "a number of at most 63 characters");
	memcpy(buf, jp->s + start, jp->pos - start);
	buf[jp->pos - start] = '\0';
	v = jv_new(JSON_NUMBER);
	v->u.number = strtod(buf, &end);
	return v;
}

static int jp_word(struct json_parser *jp, const char *w)
{
	size_t n = strlen(w);
	if (jp->len - jp->pos >= n && !memcmp(jp->s + jp->pos, w, n)) {
		jp->pos += n;
		return 1;
	}
	return 0;
}

static struct json_value *jp_value(struct json_parser *jp)
{
	struct json_value *v;
	jp_ws(jp);
	if (jp->pos >= jp->len)
		return jp_fail(jp, "a value");
	switch (jp->s[jp->pos]) {
	case '{':
		return jp_list(jp, 1);
	case '[':
		return jp_list(jp, 0);
	case '"': {
		struct strbuf sb = STRBUF_INIT;
		if (jp_string(jp, &sb) < 0) {
			strbuf_release(&sb);
			return NULL;
		}
		v = jv_new(JSON_STRING);
		v->u.str.s = strbuf_detach(&sb, &v->u.str.len);
		return v;
	}
	case 't':
	case 'f':
		if (jp_word(jp, "true") || jp_word(jp, "false")) {
			v = jv_new(JSON_BOOL);
			v->u.boolean = jp->s[jp->pos - 1] == 'e' && jp->s[jp->pos - 2] == 'u';
			return v;
		}
		return jp_fail(jp, "true or false");
	case 'n':
		if (jp_word(jp, "null"))
			return jv_new(JSON_NULL);
		return jp_fail(jp, "null");
	default:
		return jp_number(jp);
	}
}

struct json_value *json_parse(const char *text, size_t len, struct strbuf *err)
{
	struct json_parser jp = { text, len, 0, 0, err, 0 };
	struct json_value *v = jp_value(&jp);
	if (!v)
		return NULL;
	jp_ws(&jp);
	if (jp.pos != jp.len) {
		json_free(v);
		return jp_fail(&jp, "end of input");
	}
	return v;
}

void json_free(struct json_value *v)
{
	if (!v)
		return;
	switch (v->type) {
	case JSON_STRING:
		free(v->u.str.s);
		break;
	case JSON_ARRAY:
	case JSON_OBJECT:
		for (size_t i = 0; i < v->u.list.nr; i++) {
			json_free(v->u.list.items[i]);
			if (v->u.list.keys)
				free(v->u.list.keys[i]);
		}
		free(v->u.list.items);
		free(v->u.list.keys);
		break;
	default:
		break;
	}
	free(v);
}

const struct json_value *json_get(const struct json_value *obj, const char *key)
{
	if (!obj || obj->type != JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < obj->u.list.nr; i++)
		if (!strcmp(obj->u.list.keys[i], key))
			return obj->u.list.items[i];
	return NULL;
}

const struct json_value *json_at(const struct json_value *arr, size_t i)
{
	if (!arr || (arr->type != JSON_ARRAY && arr->type != JSON_OBJECT) ||
	    i >= arr->u.list.nr)
		return NULL;
	return arr->u.list.items[i];
}

size_t json_len(const struct json_value *v)
{
	if (!v || (v->type != JSON_ARRAY && v->type != JSON_OBJECT))
		return 0;
	return v->u.list.nr;
}

const char *json_get_str(const struct json_value *obj, const char *key)
{
	const struct json_value *v = json_get(obj, key);
	return v && v->type == JSON_STRING ? v->u.str.s : NULL;
}

double json_get_num(const struct json_value *obj, const char *key, double def)
{
	const struct json_value *v = json_get(obj, key);
	return v && v->type == JSON_NUMBER ? v->u.number : def;
}

char *json_join_strings(const struct json_value *arr)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < json_len(arr); i++) {
		const struct json_value *v = json_at(arr, i);
		if (v->type != JSON_STRING)
			continue;
		if (sb.len)
			strbuf_addch(&sb, ' ');
		strbuf_addstr(&sb, v->u.str.s);
	}
	return strbuf_detach(&sb, NULL);
}
