/*
 * stages.c - the words of `pgbuild optimize`: --stages, and the lto
 * stage's policy (the user's, with "bolt = ready" added); see optimize.h.
 */
#include <ctype.h>
#include <string.h>

#include "pgbuild/cli/cli.h"
#include "wrapper/common/error.h"
#include "pgbuild/optimize/optimize.h"
#include "wrapper/common/xalloc.h"

const char *const optimize_stage_names[OS_NR] = { "stock", "lto", "pgo", "tuned", "bolt" };

int optimize_parse_stages(const char *arg, unsigned *mask)
{
	struct strvec items = STRVEC_INIT;
	int rc = 0;

	parse_list_option(arg, &items);
	if (!items.nr)
		rc = error("invalid value \"%s\" for --stages: expected a comma-separated list of "
			   "stock, lto, pgo, tuned, bolt", arg);
	for (size_t i = 0; i < items.nr && !rc; i++) {
		int k;
		for (k = 0; k < OS_NR; k++)
			if (!strcmp(items.v[i], optimize_stage_names[k]))
				break;
		if (k == OS_NR)
			rc = error("invalid stage \"%s\" in --stages: expected stock, lto, pgo, "
				   "tuned or bolt", items.v[i]);
		else
			*mask |= 1u << k;
	}
	*mask |= 1u << OS_STOCK;
	strvec_clear(&items);
	return rc ? -1 : 0;
}

/* s[0..n) without leading and trailing blanks, into out (reset). */
static void trimmed(struct strbuf *out, const char *s, size_t n)
{
	strbuf_reset(out);
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	strbuf_add(out, s, n);
}

/* The next meaningful line of *p (comments and blank lines skipped), into
 * line; 0 at the end. */
static int next_line(const char **p, struct strbuf *line)
{
	while (**p) {
		const char *s = *p, *e = strchr(s, '\n');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		*p = s + n + (e ? 1 : 0);
		trimmed(line, s, n);
		if (line->len && line->buf[0] != '#')
			return 1;
	}
	return 0;
}

int optimize_policy_same(const char *a, const char *b)
{
	struct strbuf la = STRBUF_INIT, lb = STRBUF_INIT;
	int ha, hb, same = 1;

	do {
		ha = next_line(&a, &la);
		hb = next_line(&b, &lb);
		if (ha != hb || (ha && strcmp(la.buf, lb.buf)))
			same = 0;
	} while (same && ha);
	strbuf_release(&la);
	strbuf_release(&lb);
	return same;
}

/* "key = value" of line (trimmed) into key and value; 0 when not one. */
static int split_assignment(const char *line, struct strbuf *key, struct strbuf *value)
{
	const char *eq = strchr(line, '=');
	if (!eq || line[0] == '[')
		return 0;
	trimmed(key, line, (size_t)(eq - line));
	trimmed(value, eq + 1, strlen(eq + 1));
	return 1;
}

int optimize_policy_text(const char *user_text, int lto, struct strbuf *out, struct strbuf *err)
{
	const char *p = user_text ? user_text : OPTIMIZE_DEFAULT_POLICY;
	struct strbuf line = STRBUF_INIT, key = STRBUF_INIT, value = STRBUF_INIT;
	struct strbuf add = STRBUF_INIT;
	int in_global = 0, has_global = 0, has_bolt = 0, has_lto = 0, rc = 0;

	while (next_line(&p, &line)) {
		if (line.buf[0] == '[') {
			in_global = !strcmp(line.buf, "[global]");
			has_global |= in_global;
		} else if (in_global && split_assignment(line.buf, &key, &value) &&
			   !strcmp(key.buf, "lto")) {
			has_lto = 1;
		} else if (in_global && split_assignment(line.buf, &key, &value) &&
			   !strcmp(key.buf, "bolt")) {
			has_bolt = 1;
			if (strcmp(value.buf, "ready")) {
				strbuf_addf(err, "its [global] says \"bolt = %s\": every stage BOLT may "
					    "stack on is built with \"bolt = ready\" (remove the line: "
					    "optimize adds it)",
					    value.buf);
				rc = -1;
			}
		}
	}
	if (lto && !has_lto)
		strbuf_addstr(&add, "lto = on\n");
	if (!has_bolt)
		strbuf_addstr(&add, "bolt = ready\n");
	strbuf_reset(out);
	if (!has_global)
		strbuf_addf(out, "[global]\n%s", add.buf);
	if (user_text) {
		/* the user's text unchanged, with the lines after its [global] */
		const char *g = has_global && add.len ? strstr(user_text, "[global]") : NULL;
		if (g) {
			const char *nl = strchr(g, '\n');
			size_t head = nl ? (size_t)(nl + 1 - user_text) : strlen(user_text);
			strbuf_add(out, user_text, head);
			if (!nl)
				strbuf_addch(out, '\n');
			strbuf_add(out, add.buf, add.len);
			strbuf_addstr(out, user_text + head);
		} else {
			strbuf_addstr(out, user_text);
		}
	} else {
		strbuf_addstr(out, OPTIMIZE_DEFAULT_POLICY);
	}
	strbuf_release(&line);
	strbuf_release(&key);
	strbuf_release(&value);
	strbuf_release(&add);
	return rc;
}
