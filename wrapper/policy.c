/*
 * policy.c - policy parsing, checking and application; see policy.h.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "glob.h"
#include "policy.h"
#include "respfile.h"
#include "xalloc.h"

/* PostgreSQL's required flags: configure adds them because the code relies
 * on them.  A policy may never remove them. */
static const char *const required_flags[] = {
	"-fno-strict-aliasing", "-fwrapv", "-fexcess-precision=standard", NULL
};

/* Flags that break PostgreSQL's semantics (float results, overflow checks,
 * aliasing): never added. */
static const char *const unsafe_flags[] = {
	"-ffast-math", "-Ofast", "-funsafe-math-optimizations",
	"-ffinite-math-only", "-fno-wrapv", "-fstrict-aliasing",
	"-fassociative-math", "-freciprocal-math", "-fno-signed-zeros",
	"-fno-trapping-math", "-fexcess-precision=fast", "-fno-math-errno",
	"-fcx-limited-range", NULL
};

const char *policy_forbidden_add(const char *flag)
{
	for (int i = 0; unsafe_flags[i]; i++)
		if (!strcmp(flag, unsafe_flags[i]))
			return "it changes PostgreSQL's arithmetic or aliasing semantics";
	return NULL;
}

const char *policy_forbidden_remove(const char *flag)
{
	for (int i = 0; required_flags[i]; i++)
		if (!strcmp(flag, required_flags[i]))
			return "PostgreSQL requires it";
	return NULL;
}

static int perr(struct strbuf *err, const char *path, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int perr(struct strbuf *err, const char *path, int line, const char *fmt, ...)
{
	va_list ap;
	strbuf_addf(err, "%s:%d: ", path, line);
	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	return -1;
}

/* Cut a trailing comment: '#' at the start or after white space, outside
 * quotes. */
static void strip_comment(char *s)
{
	int sq = 0, dq = 0;
	for (char *p = s; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			continue;
		}
		if (*p == '\'' && !dq)
			sq = !sq;
		else if (*p == '"' && !sq)
			dq = !dq;
		else if (*p == '#' && !sq && !dq &&
			 (p == s || isspace((unsigned char)p[-1]))) {
			*p = '\0';
			return;
		}
	}
}

static char *trim(char *s)
{
	char *e;
	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static void add_op(struct policy_section *s, int add, int link, const char *flag)
{
	ALLOC_GROW(s->ops, s->nr_ops + 1, s->alloc_ops);
	s->ops[s->nr_ops].add = add;
	s->ops[s->nr_ops].link = link;
	s->ops[s->nr_ops].flag = xstrdup(flag);
	s->nr_ops++;
}

static char *resolve_relative(const char *policy_path, const char *file)
{
	const char *slash;
	if (file[0] == '/')
		return xstrdup(file);
	slash = strrchr(policy_path, '/');
	if (!slash)
		return xstrdup(file);
	return xasprintf("%.*s/%s", (int)(slash - policy_path), policy_path, file);
}

static int parse_onoff(const char *v)
{
	if (!strcmp(v, "on") || !strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "1"))
		return 1;
	if (!strcmp(v, "off") || !strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "0"))
		return 0;
	return -1;
}

/* One "key op value" line inside section s. */
static int parse_setting(struct policy *p, struct policy_section *s, char *line,
			 int lineno, struct strbuf *err)
{
	char *key = line, *op, *val;
	int add = -1;
	size_t klen = strcspn(line, " \t+-=");

	op = line + klen;
	while (isspace((unsigned char)*op))
		*op++ = '\0';
	if (op[0] == '+' && op[1] == '=') {
		add = 1;
		val = op + 2;
	} else if (op[0] == '-' && op[1] == '=') {
		add = 0;
		val = op + 2;
	} else if (op[0] == '=') {
		val = op + 1;
	} else {
		return perr(err, p->path, lineno,
			    "expected \"key += value\", \"key -= value\" or \"key = value\"");
	}
	*op = '\0';
	key[klen] = '\0';
	val = trim(val);

	if (!strcmp(key, "cflags") || !strcmp(key, "ldflags")) {
		int link = key[0] == 'l';
		struct strvec words = STRVEC_INIT;
		if (add < 0)
			return perr(err, p->path, lineno,
				    "expected \"%s += FLAGS\" or \"%s -= FLAGS\"", key, key);
		if (link && !s->global)
			return perr(err, p->path, lineno,
				    "expected ldflags only in [global] (links have no translation unit)");
		respfile_split(val, strlen(val), &words);
		if (!words.nr) {
			strvec_clear(&words);
			return perr(err, p->path, lineno, "expected at least one flag after %s",
				    add ? "+=" : "-=");
		}
		for (size_t i = 0; i < words.nr; i++) {
			const char *why = add ? policy_forbidden_add(words.v[i])
					      : policy_forbidden_remove(words.v[i]);
			if (why) {
				perr(err, p->path, lineno, "cannot %s %s: %s",
				     add ? "add" : "remove", words.v[i], why);
				strvec_clear(&words);
				return -1;
			}
			if (words.v[i][0] != '-') {
				perr(err, p->path, lineno,
				     "expected flags starting with '-', got \"%s\"", words.v[i]);
				strvec_clear(&words);
				return -1;
			}
			add_op(s, add, link, words.v[i]);
		}
		strvec_clear(&words);
		return 0;
	}
	if (add >= 0)
		return perr(err, p->path, lineno, "expected \"%s = VALUE\" (no += or -=)", key);
	if (!strcmp(key, "march")) {
		char *flag;
		if (!*val || strchr(val, ' '))
			return perr(err, p->path, lineno, "expected one CPU name after march =");
		flag = xasprintf("-march=%s", val);
		add_op(s, 1, 0, flag);
		free(flag);
		return 0;
	}
	if (!s->global)
		return perr(err, p->path, lineno,
			    strcmp(key, "lto") && strcmp(key, "hot") && strcmp(key, "cold") &&
					    strcmp(key, "plugin")
				    ? "expected a known key (cflags, ldflags, lto, march, hot, cold, plugin), got \"%s\""
				    : "expected \"%s\" only in [global]",
			    key);
	if (!strcmp(key, "lto")) {
		if (!strcmp(val, "fat"))
			p->lto = LTO_FAT;
		else if (parse_onoff(val) >= 0)
			p->lto = parse_onoff(val) ? LTO_ON : LTO_OFF;
		else
			return perr(err, p->path, lineno, "expected lto = on, off or fat, got \"%s\"", val);
		p->lto_line = lineno;
		return 0;
	}
	if (!strcmp(key, "plugin")) {
		if (parse_onoff(val) < 0)
			return perr(err, p->path, lineno, "expected plugin = on or off, got \"%s\"", val);
		p->plugin = parse_onoff(val);
		return 0;
	}
	if (!strcmp(key, "hot") || !strcmp(key, "cold")) {
		char **dst = key[0] == 'h' ? &p->hot : &p->cold;
		if (!*val)
			return perr(err, p->path, lineno, "expected a file name after %s =", key);
		free(*dst);
		*dst = resolve_relative(p->path, val);
		return 0;
	}
	return perr(err, p->path, lineno,
		    "expected a known key (cflags, ldflags, lto, march, hot, cold, plugin), got \"%s\"",
		    key);
}

int policy_parse(struct policy *p, const char *path, const char *text, size_t len,
		 struct strbuf *err)
{
	struct policy_section *cur = NULL;
	int lineno = 0;
	size_t pos = 0;

	memset(p, 0, sizeof(*p));
	p->path = xstrdup(path);
	p->plugin = 1;
	if (memchr(text, '\0', len))
		return perr(err, path, 1, "expected a text file (found a NUL byte)");
	while (pos < len) {
		size_t eol = pos;
		char *line, *s;
		while (eol < len && text[eol] != '\n')
			eol++;
		lineno++;
		line = xstrndup(text + pos, eol - pos);
		pos = eol + 1;
		strip_comment(line);
		s = trim(line);
		if (!*s) {
			free(line);
			continue;
		}
		if (*s == '[') {
			char *end = s + strlen(s) - 1;
			const char *why = NULL;
			if (*end != ']' || end == s + 1) {
				free(line);
				return perr(err, path, lineno, "expected \"[GLOB]\" or \"[global]\"");
			}
			*end = '\0';
			s = trim(s + 1);
			ALLOC_GROW(p->sections, p->nr_sections + 1, p->alloc_sections);
			cur = &p->sections[p->nr_sections++];
			memset(cur, 0, sizeof(*cur));
			strvec_init(&cur->patterns);
			cur->line = lineno;
			cur->glob = xstrdup(s);
			cur->global = !strcmp(s, "global");
			if (!cur->global) {
				const char *g = s;
				while (g[0] == '.' && g[1] == '/')
					g += 2;
				while (*g == '/')
					g++;
				if (glob_compile(g, &cur->patterns, &why) < 0) {
					perr(err, path, lineno, "bad glob \"%s\": expected %s", s, why);
					free(line);
					return -1;
				}
			}
			free(line);
			continue;
		}
		if (!cur) {
			free(line);
			return perr(err, path, lineno,
				    "expected a section header such as [global] before settings");
		}
		if (parse_setting(p, cur, s, lineno, err) < 0) {
			free(line);
			return -1;
		}
		free(line);
	}
	return 0;
}

int policy_load(struct policy *p, const char *path, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	char abspath[PATH_MAX];
	int r;
	if (strbuf_read_file(&text, path) < 0) {
		memset(p, 0, sizeof(*p));
		strbuf_addf(err, "%s: cannot read policy: %s", path, strerror(errno));
		strbuf_release(&text);
		return -1;
	}
	r = policy_parse(p, realpath(path, abspath) ? abspath : path, text.buf, text.len, err);
	strbuf_release(&text);
	return r;
}

void policy_release(struct policy *p)
{
	for (size_t i = 0; i < p->nr_sections; i++) {
		struct policy_section *s = &p->sections[i];
		for (size_t j = 0; j < s->nr_ops; j++)
			free(s->ops[j].flag);
		free(s->ops);
		free(s->glob);
		strvec_clear(&s->patterns);
	}
	free(p->sections);
	free(p->path);
	free(p->hot);
	free(p->cold);
	memset(p, 0, sizeof(*p));
}

int policy_section_matches(const struct policy_section *s, const char *tu)
{
	if (s->global)
		return 1;
	if (!tu)
		return 0;
	for (size_t i = 0; i < s->patterns.nr; i++)
		if (glob_match(s->patterns.v[i], tu))
			return 1;
	return 0;
}

static void remove_all(struct strvec *args, const char *flag, struct policy_result *res)
{
	for (size_t i = 0; i < args->nr;) {
		if (!strcmp(args->v[i], flag)) {
			strvec_push(&res->removed, flag);
			strvec_remove(args, i);
			res->changed = 1;
		} else
			i++;
	}
	/* also drop it from what this policy added earlier */
	for (size_t i = 0; i < res->added.nr;) {
		if (!strcmp(res->added.v[i], flag))
			strvec_remove(&res->added, i);
		else
			i++;
	}
}

void policy_apply(const struct policy *p, const char *tu, struct strvec *args,
		  struct policy_result *res)
{
	int link = tu == NULL;
	strvec_init(&res->rules);
	strvec_init(&res->added);
	strvec_init(&res->removed);
	res->changed = 0;

	for (size_t i = 0; i < p->nr_sections; i++) {
		const struct policy_section *s = &p->sections[i];
		if (!policy_section_matches(s, tu))
			continue;
		strvec_pushf(&res->rules, "%s:%d", p->path, s->line);
		for (size_t j = 0; j < s->nr_ops; j++) {
			const struct policy_op *op = &s->ops[j];
			/* compiles take cflags; links take ldflags, and with LTO
			 * the global cflags too (the optimizer runs again there) */
			if (op->link && !link)
				continue;
			if (!op->link && link && op->add && p->lto == LTO_OFF)
				continue;
			if (op->add) {
				strvec_push(args, op->flag);
				strvec_push(&res->added, op->flag);
				res->changed = 1;
			} else {
				remove_all(args, op->flag, res);
			}
		}
	}
	/* hot/cold lists act through the plugin, so a compile they apply to
	 * is changed even when no flag is: the plugin must be loaded */
	res->lists = !link && p->plugin && (p->hot || p->cold);
	if (res->lists)
		res->changed = 1;
	if (p->lto != LTO_OFF) {
		strvec_push(args, "-flto=auto");
		strvec_push(&res->added, "-flto=auto");
		if (p->lto == LTO_FAT && !link) {
			strvec_push(args, "-ffat-lto-objects");
			strvec_push(&res->added, "-ffat-lto-objects");
		}
		res->changed = 1;
	}
}

void policy_result_release(struct policy_result *res)
{
	strvec_clear(&res->rules);
	strvec_clear(&res->added);
	strvec_clear(&res->removed);
}
