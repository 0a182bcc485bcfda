/*
 * explain/callgrind.c - one callgrind output file read into per-function
 * self costs and call edges; see callgrind.h.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/explain/callgrind.h"
#include "pgbuild/pgbuild.h"

/* ---------------- the function table ---------------- */

static uint64_t hash_key(const char *object, const char *name)
{
	uint64_t h = 1469598103934665603ULL;
	for (const char *s = object; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	h = (h ^ 0xff) * 1099511628211ULL;
	for (const char *s = name; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* The slot of (object, name): its entry or the empty slot it would take. */
static size_t *slot_of(const struct cg_profile *p, const char *object, const char *name)
{
	size_t mask = p->hash_size - 1, i = (size_t)hash_key(object, name) & mask;
	for (;;) {
		size_t *s = &p->hash[i];
		const struct cg_fn *f;
		if (!*s)
			return s;
		f = &p->fns[*s - 1];
		if (!strcmp(f->name, name) && !strcmp(f->object, object))
			return s;
		i = (i + 1) & mask;
	}
}

static void rehash(struct cg_profile *p)
{
	size_t n = p->hash_size ? 2 * p->hash_size : 1024;
	free(p->hash);
	p->hash = xcalloc(n, sizeof(*p->hash));
	p->hash_size = n;
	for (size_t i = 0; i < p->nr; i++)
		*slot_of(p, p->fns[i].object, p->fns[i].name) = i + 1;
}

long cg_find(const struct cg_profile *p, const char *object, const char *name)
{
	size_t *s;
	if (!p->hash_size)
		return -1;
	s = slot_of(p, object, name);
	return *s ? (long)(*s - 1) : -1;
}

size_t cg_intern(struct cg_profile *p, const char *object, const char *name)
{
	long at = cg_find(p, object, name);
	struct cg_fn *f;
	if (at >= 0)
		return (size_t)at;
	if (2 * (p->nr + 1) > p->hash_size)
		rehash(p);
	ALLOC_GROW(p->fns, p->nr + 1, p->alloc);
	f = &p->fns[p->nr];
	memset(f, 0, sizeof(*f));
	f->object = xstrdup(object);
	f->name = xstrdup(name);
	*slot_of(p, object, name) = ++p->nr;
	return p->nr - 1;
}

struct cg_call *cg_call_get(struct cg_fn *fn, size_t callee)
{
	struct cg_call *c;
	for (size_t i = fn->ncalls; i > 0; i--)
		if (fn->calls[i - 1].callee == callee)
			return &fn->calls[i - 1];
	ALLOC_GROW(fn->calls, fn->ncalls + 1, fn->alloc_calls);
	c = &fn->calls[fn->ncalls++];
	memset(c, 0, sizeof(*c));
	c->callee = callee;
	return c;
}

void cg_release(struct cg_profile *p)
{
	for (size_t i = 0; i < p->nr; i++) {
		free(p->fns[i].object);
		free(p->fns[i].name);
		free(p->fns[i].calls);
	}
	free(p->fns);
	free(p->hash);
	memset(p, 0, sizeof(*p));
}

/* ---------------- parsing ---------------- */

/* Compressed names: id -> name, one space for objects, one for functions. */
struct names {
	char **v;          /* by id; NULL undefined */
	size_t nr;         /* ids allocated */
};

static void names_set(struct names *n, size_t id, const char *s)
{
	if (id >= n->nr) {
		size_t nr = id + 64;
		n->v = xrealloc(n->v, nr * sizeof(*n->v));
		memset(n->v + n->nr, 0, (nr - n->nr) * sizeof(*n->v));
		n->nr = nr;
	}
	free(n->v[id]);
	n->v[id] = xstrdup(s);
}

static void names_clear(struct names *n)
{
	for (size_t i = 0; i < n->nr; i++)
		free(n->v[i]);
	free(n->v);
}

/* Where the parser is. */
struct cg_state {
	struct cg_profile *p;      /* the result */
	int col[64];               /* event index of each cost column, -1: not ours */
	int ncol;                  /* cost columns */
	int npos;                  /* position columns before them */
	struct names obj, fn;      /* compressed names */
	char *ob;                  /* the current object */
	char *cob;                 /* the callee's object of the next call, NULL: ob */
	char *cfn;                 /* the callee of the next call */
	long cur;                  /* the current function, -1 none */
	int in_call;               /* the next cost line is a call's */
	double call_count;         /* its calls= count */
	size_t lineno;             /* for messages */
};

/* The name of "(ID) name", "(ID)" or "name" in s (into out; "(below
 * main)" is a name); -1 when an id is used before it is defined. */
static int read_name(struct names *n, const char *s, struct strbuf *out)
{
	strbuf_reset(out);
	if (*s == '(' && isdigit((unsigned char)s[1]) && s[1 + strspn(s + 1, "0123456789")] == ')') {
		char *end;
		unsigned long id = strtoul(s + 1, &end, 10);
		s = end + 1;
		while (*s == ' ')
			s++;
		if (*s) {
			names_set(n, id, s);
		} else if (id >= n->nr || !n->v[id]) {
			return -1;
		}
		strbuf_addstr(out, n->v[id]);
		return 0;
	}
	strbuf_addstr(out, s);
	return 0;
}

/* "events:" into the column map. */
static void read_events(struct cg_state *st, const char *s)
{
	st->ncol = 0;
	while (*s && st->ncol < 64) {
		size_t n;
		while (*s == ' ' || *s == '\t')
			s++;
		n = strcspn(s, " \t");
		if (!n)
			break;
		st->col[st->ncol] = -1;
		for (int e = 0; e < CYC_NEVENTS; e++)
			if (strlen(cycles_event_names[e]) == n && !memcmp(cycles_event_names[e], s, n))
				st->col[st->ncol] = e;
		st->ncol++;
		s += n;
	}
}

/* A cost line's values (after npos positions) into c; -1 when malformed. */
static int read_costs(const struct cg_state *st, const char *s, struct cycles_counts *c)
{
	memset(c, 0, sizeof(*c));
	for (int k = 0; k < st->npos + st->ncol; k++) {
		char *end;
		double v;
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			return k >= st->npos ? 0 : -1;
		if (k < st->npos) {
			s += strcspn(s, " \t");
			continue;
		}
		v = strtod(s, &end);
		if (end == s || !(v >= 0))
			return -1;
		if (st->col[k - st->npos] >= 0)
			c->v[st->col[k - st->npos]] = v;
		s = end;
	}
	return 0;
}

static void add_counts(struct cycles_counts *to, const struct cycles_counts *c)
{
	for (int e = 0; e < CYC_NEVENTS; e++)
		to->v[e] += c->v[e];
}

/* A cost line: the function's own, or the pending call's. */
static int cost_line(struct cg_state *st, const char *line, struct strbuf *why)
{
	struct cycles_counts c;
	if (st->cur < 0) {
		strbuf_addf(why, "line %zu: a cost line before any fn= line", st->lineno);
		return -1;
	}
	if (read_costs(st, line, &c) < 0) {
		strbuf_addf(why, "line %zu: not a cost line", st->lineno);
		return -1;
	}
	if (st->in_call) {
		size_t callee = cg_intern(st->p, st->cob ? st->cob : st->ob, st->cfn);
		struct cg_call *call = cg_call_get(&st->p->fns[st->cur], callee);
		call->count += st->call_count;
		add_counts(&call->incl, &c);
		st->in_call = 0;
		free(st->cob);
		st->cob = NULL;
	} else {
		add_counts(&st->p->fns[st->cur].self, &c);
		add_counts(&st->p->totals, &c);
	}
	return 0;
}

/* A "key=value" name line (ob fn cob cfn; files are not needed). */
static int name_line(struct cg_state *st, const char *line, struct strbuf *why)
{
	struct strbuf name = STRBUF_INIT;
	const char *eq = strchr(line, '=');
	size_t klen = (size_t)(eq - line);
	int rc = 0;
	if (klen == 2 && !memcmp(line, "ob", 2)) {
		rc = read_name(&st->obj, eq + 1, &name);
		free(st->ob);
		st->ob = strbuf_detach(&name, NULL);
	} else if (klen == 3 && !memcmp(line, "cob", 3)) {
		rc = read_name(&st->obj, eq + 1, &name);
		free(st->cob);
		st->cob = strbuf_detach(&name, NULL);
	} else if (klen == 2 && !memcmp(line, "fn", 2)) {
		if (st->in_call) {
			strbuf_addf(why, "line %zu: calls= without its cost line", st->lineno);
			rc = -1;
		} else if (!(rc = read_name(&st->fn, eq + 1, &name)))
			st->cur = (long)cg_intern(st->p, st->ob ? st->ob : "", name.buf);
	} else if (klen == 3 && !memcmp(line, "cfn", 3)) {
		rc = read_name(&st->fn, eq + 1, &name);
		free(st->cfn);
		st->cfn = strbuf_detach(&name, NULL);
	} else if (klen == 5 && !memcmp(line, "calls", 5)) {
		char *end;
		st->call_count = strtod(eq + 1, &end);
		if (end == eq + 1 || !st->cfn || st->cur < 0) {
			strbuf_addf(why, "line %zu: calls= without a function and its callee", st->lineno);
			rc = -1;
		}
		st->in_call = 1;
		if (!st->ob)
			st->ob = xstrdup("");
	}
	if (rc < 0 && !why->len)
		strbuf_addf(why, "line %zu: a compressed name used before it is defined", st->lineno);
	strbuf_release(&name);
	return rc;
}

/* Is line "key=value" (an '=' before any ':')? */
static int is_name_line(const char *line)
{
	size_t eq = strcspn(line, "=");
	return line[eq] && eq < strcspn(line, ":");
}

/* One line of the file. */
static int parse_line(struct cg_state *st, const char *line, struct strbuf *why)
{
	if (!*line || *line == '#')
		return 0;
	if (isdigit((unsigned char)*line) || *line == '+' || *line == '-' || *line == '*')
		return cost_line(st, line, why);
	if (is_name_line(line))
		return name_line(st, line, why);
	if (!strncmp(line, "events:", 7)) {
		read_events(st, line + 7);
	} else if (!strncmp(line, "positions:", 10)) {
		struct strvec w = STRVEC_INIT;
		strvec_split(&w, line + 10);
		st->npos = w.nr ? (int)w.nr : 1;
		strvec_clear(&w);
	} else if (!strncmp(line, "summary:", 8)) {
		struct cg_state t = *st; /* the same columns, no positions */
		t.npos = 0;
		if (read_costs(&t, line + 8, &st->p->summary) < 0) {
			strbuf_addf(why, "line %zu: the summary is not a list of counts", st->lineno);
			return -1;
		}
	}
	return 0;
}

int cg_parse(const char *text, size_t len, struct cg_profile *p, struct strbuf *why)
{
	struct cg_state st = { 0 };
	struct strbuf line = STRBUF_INIT;
	const char *s = text, *end = text + len;
	int rc = 0;

	st.p = p;
	st.npos = 1;
	st.cur = -1;
	memset(p, 0, sizeof(*p));
	while (s < end && rc == 0) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		strbuf_reset(&line);
		strbuf_add(&line, s, n);
		strbuf_rtrim(&line);
		st.lineno++;
		rc = parse_line(&st, line.buf, why);
		s += n + 1;
	}
	if (rc == 0 && st.in_call) {
		strbuf_addf(why, "line %zu: calls= without its cost line", st.lineno);
		rc = -1;
	}
	if (rc == 0 && !st.ncol) {
		strbuf_addstr(why, "no \"events:\" line: not a callgrind output file");
		rc = -1;
	}
	names_clear(&st.obj);
	names_clear(&st.fn);
	free(st.ob);
	free(st.cob);
	free(st.cfn);
	strbuf_release(&line);
	if (rc < 0)
		cg_release(p);
	return rc;
}
