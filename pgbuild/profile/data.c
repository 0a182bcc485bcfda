/*
 * data.c - profiles as data: parsing perf and gcov output,
 * attribution to translation units, ranking, hot lists and policies.
 * See data.h.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wrapper/common/error.h"
#include "pgbuild/profile/data.h"
#include "wrapper/policy/edit.h"
#include "wrapper/common/strvec.h"
#include "wrapper/common/xalloc.h"

void prof_init(struct profile *p, const char *method)
{
	memset(p, 0, sizeof(*p));
	p->method = xstrdup(method);
}

void prof_release(struct profile *p)
{
	for (size_t i = 0; i < p->nr; i++) {
		free(p->v[i].name);
		free(p->v[i].base);
		free(p->v[i].dso);
		free(p->v[i].tu);
	}
	free(p->v);
	free(p->index);
	for (size_t i = 0; i < p->nfiles; i++)
		free(p->files[i].tu);
	free(p->files);
	free(p->method);
	memset(p, 0, sizeof(*p));
}

char *prof_base_name(const char *sym)
{
	const char *dot = strchr(sym, '.');
	/* "[unknown]" and friends stay what they are */
	if (sym[0] == '[' || !dot || dot == sym)
		return xstrdup(sym);
	return xstrndup(sym, (size_t)(dot - sym));
}

static unsigned long entry_hash(const char *name, const char *dso, const char *tu)
{
	unsigned long h = 14695981039346656037UL;
	const char *parts[3] = { name, dso, tu ? tu : "" };
	for (int k = 0; k < 3; k++) {
		for (const unsigned char *c = (const unsigned char *)parts[k]; *c; c++)
			h = (h ^ *c) * 1099511628211UL;
		h = (h ^ 0xff) * 1099511628211UL;
	}
	return h;
}

static int entry_is(const struct prof_entry *e, const char *name, const char *dso,
		    const char *tu)
{
	return !strcmp(e->name, name) && !strcmp(e->dso, dso) &&
	       (tu ? e->tu && !strcmp(e->tu, tu) : !e->tu);
}

/* Open-addressing index of entries (slot value = index + 1, 0 = empty),
 * rebuilt when it gets half full. */
static void index_rebuild(struct profile *p)
{
	free(p->index);
	p->index_size = p->index_size ? 2 * p->index_size : 1024;
	while (p->index_size < 4 * p->nr)
		p->index_size *= 2;
	p->index = xcalloc(p->index_size, sizeof(*p->index));
	for (size_t i = 0; i < p->nr; i++) {
		const struct prof_entry *e = &p->v[i];
		size_t s = entry_hash(e->name, e->dso, e->tu) & (p->index_size - 1);
		while (p->index[s])
			s = (s + 1) & (p->index_size - 1);
		p->index[s] = i + 1;
	}
}

struct prof_entry *prof_add_tu(struct profile *p, const char *name, const char *dso,
			       const char *tu, double weight, int in_server)
{
	if (2 * (p->nr + 1) > p->index_size)
		index_rebuild(p);
	size_t s = entry_hash(name, dso, tu) & (p->index_size - 1);
	while (p->index[s]) {
		struct prof_entry *e = &p->v[p->index[s] - 1];
		if (entry_is(e, name, dso, tu)) {
			e->weight += weight;
			return e;
		}
		s = (s + 1) & (p->index_size - 1);
	}
	if (p->nr == p->alloc) {
		p->alloc = p->alloc ? 2 * p->alloc : 256;
		p->v = xrealloc(p->v, p->alloc * sizeof(*p->v));
	}
	struct prof_entry *e = &p->v[p->nr];
	p->index[s] = ++p->nr;
	memset(e, 0, sizeof(*e));
	e->name = xstrdup(name);
	e->base = prof_base_name(name);
	e->dso = xstrdup(dso);
	e->tu = tu ? xstrdup(tu) : NULL;
	e->weight = weight;
	e->in_server = in_server;
	return e;
}

struct prof_entry *prof_add(struct profile *p, const char *name, const char *dso,
			    double weight, int in_server)
{
	return prof_add_tu(p, name, dso, NULL, weight, in_server);
}

/* ---------------- perf ---------------- */

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

long prof_parse_perf(struct profile *p, const char *text, const char *server_dso,
		     struct strbuf *err)
{
	long rows = 0;
	const char *line = text;
	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char *l = xstrndup(line, len);
		line += len + (nl ? 1 : 0);
		if (l[0] == '#' || !strchr(l, '\t')) {
			free(l);
			continue;
		}
		/* overhead \t samples \t dso \t [.] symbol */
		char *f[4];
		int nf = 0;
		char *s = l;
		while (nf < 4) {
			f[nf++] = s;
			char *t = strchr(s, '\t');
			if (!t)
				break;
			*t = '\0';
			s = t + 1;
		}
		if (nf < 4) {
			free(l);
			continue;
		}
		char *samples = trim(f[1]), *dso = trim(f[2]), *sym = trim(f[3]), *end;
		double w = strtod(samples, &end);
		if (end == samples || *end || w < 0) {
			free(l);
			continue;
		}
		/* "[.] name" (user space) or "[k] name" (kernel) */
		if (sym[0] == '[' && sym[2] == ']' && sym[3] == ' ')
			sym = trim(sym + 4);
		if (!*sym || !strncmp(sym, "0x", 2))
			sym = "[unknown]";
		prof_add(p, sym, dso, w, !strcmp(dso, server_dso));
		rows++;
		free(l);
	}
	if (!rows) {
		strbuf_addstr(err, "perf report printed no samples");
		return -1;
	}
	return rows;
}

/* ---------------- gcov ---------------- */

long prof_parse_gcov(struct profile *p, const char *json, size_t len, const char *tu,
		     const char *dso, int in_server, struct strbuf *err)
{
	struct json_value *doc = json_parse(json, len, err);
	if (!doc)
		return -1;
	const struct json_value *files = json_get(doc, "files");
	if (!files || files->type != JSON_ARRAY) {
		json_free(doc);
		strbuf_addstr(err, "gcov output has no \"files\" array");
		return -1;
	}
	long added = 0;
	for (size_t i = 0; i < json_len(files); i++) {
		const struct json_value *lines = json_get(json_at(files, i), "lines");
		for (size_t j = 0; j < json_len(lines); j++) {
			const struct json_value *ln = json_at(lines, j);
			const char *fn = json_get_str(ln, "function_name");
			double count = json_get_num(ln, "count", 0);
			if (!fn || count <= 0)
				continue;
			size_t before = p->nr;
			prof_add_tu(p, fn, dso, tu, count, in_server);
			added += p->nr > before;
		}
	}
	json_free(doc);
	return added;
}

int prof_object_in_server(const char *rel)
{
	static const char *const frontend[] = {
		"src/bin/", "src/interfaces/", "src/fe_utils/", "src/test/", "src/tools/",
		"src/tutorial/", NULL,
	};
	for (int i = 0; frontend[i]; i++)
		if (!strncmp(rel, frontend[i], strlen(frontend[i])))
			return 0;
	if (!strncmp(rel, "src/common/", 11) || !strncmp(rel, "src/port/", 9)) {
		size_t n = strlen(rel);
		/* foo_srv.o / foo_srv.gcda are the server's copies */
		const char *dot = strrchr(rel, '.');
		return dot && dot - rel >= 4 && !strncmp(dot - 4, "_srv", 4) && n > 4;
	}
	return 1;
}

/* ---------------- name -> unit ---------------- */

void prof_map_add(struct prof_map *m, const char *name, const char *tu, int global)
{
	if (m->nr == m->alloc) {
		m->alloc = m->alloc ? 2 * m->alloc : 1024;
		m->v = xrealloc(m->v, m->alloc * sizeof(*m->v));
	}
	m->v[m->nr].name = prof_base_name(name);
	m->v[m->nr].tu = xstrdup(tu);
	m->v[m->nr].global = global;
	m->nr++;
}

static int map_cmp(const void *a, const void *b)
{
	const struct prof_map_item *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	if (x->global != y->global)
		return y->global - x->global;  /* globals first */
	return strcmp(x->tu, y->tu);
}

void prof_map_sort(struct prof_map *m)
{
	if (m->nr)
		qsort(m->v, m->nr, sizeof(*m->v), map_cmp);
	/* drop exact duplicates (a unit seen twice, e.g. .o and archive) */
	size_t w = 0;
	for (size_t i = 0; i < m->nr; i++) {
		if (w && !strcmp(m->v[w - 1].name, m->v[i].name) &&
		    !strcmp(m->v[w - 1].tu, m->v[i].tu)) {
			free(m->v[i].name);
			free(m->v[i].tu);
			continue;
		}
		m->v[w++] = m->v[i];
	}
	m->nr = w;
}

void prof_map_release(struct prof_map *m)
{
	for (size_t i = 0; i < m->nr; i++) {
		free(m->v[i].name);
		free(m->v[i].tu);
	}
	free(m->v);
	memset(m, 0, sizeof(*m));
}

const char *prof_map_lookup(const struct prof_map *m, const char *name, int *ambiguous)
{
	size_t lo = 0, hi = m->nr;
	if (ambiguous)
		*ambiguous = 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(m->v[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= m->nr || strcmp(m->v[lo].name, name))
		return NULL;
	/* the global definition sorts first; several statics are ambiguous */
	if (!m->v[lo].global && ambiguous && lo + 1 < m->nr &&
	    !strcmp(m->v[lo + 1].name, name))
		*ambiguous = 1;
	return m->v[lo].tu;
}

void prof_attribute(struct profile *p, const struct prof_map *m)
{
	for (size_t i = 0; i < p->nr; i++) {
		struct prof_entry *e = &p->v[i];
		if (!e->in_server || e->tu)
			continue;
		const char *tu = prof_map_lookup(m, e->base, &e->ambiguous);
		if (tu)
			e->tu = xstrdup(tu);
	}
	/* the units are part of the key: rebuild the index */
	p->index_size = 0;
	index_rebuild(p);
}

static int entry_cmp(const void *a, const void *b)
{
	const struct prof_entry *x = a, *y = b;
	if (x->weight != y->weight)
		return x->weight < y->weight ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int file_cmp(const void *a, const void *b)
{
	const struct prof_file *x = a, *y = b;
	if (x->weight != y->weight)
		return x->weight < y->weight ? 1 : -1;
	return strcmp(x->tu, y->tu);
}

void prof_finish(struct profile *p)
{
	if (p->nr)
		qsort(p->v, p->nr, sizeof(*p->v), entry_cmp);
	p->index_size = 0;  /* the order changed: rebuild the index */
	index_rebuild(p);
	p->total = p->server = p->attributed = 0;
	for (size_t i = 0; i < p->nfiles; i++)
		free(p->files[i].tu);
	free(p->files);
	p->files = NULL;
	p->nfiles = 0;
	size_t alloc = 0;
	for (size_t i = 0; i < p->nr; i++) {
		const struct prof_entry *e = &p->v[i];
		p->total += e->weight;
		if (!e->in_server)
			continue;
		p->server += e->weight;
		if (!e->tu)
			continue;
		p->attributed += e->weight;
		size_t j;
		for (j = 0; j < p->nfiles; j++)
			if (!strcmp(p->files[j].tu, e->tu))
				break;
		if (j == p->nfiles) {
			if (p->nfiles == alloc) {
				alloc = alloc ? 2 * alloc : 64;
				p->files = xrealloc(p->files, alloc * sizeof(*p->files));
			}
			p->files[j].tu = xstrdup(e->tu);
			p->files[j].weight = 0;
			p->files[j].nfuncs = 0;
			p->nfiles++;
		}
		p->files[j].weight += e->weight;
		if (e->weight > 0)
			p->files[j].nfuncs++;
	}
	if (p->nfiles)
		qsort(p->files, p->nfiles, sizeof(*p->files), file_cmp);
}

/* ---------------- selections ---------------- */

size_t prof_cover_files(const struct profile *p, double pct, size_t max_files)
{
	double want = p->attributed * pct / 100.0, sum = 0;
	size_t n = 0;
	while (n < p->nfiles && (max_files == 0 || n < max_files)) {
		if (p->files[n].weight <= 0)
			break;
		if (n > 0 && sum >= want)
			break;
		sum += p->files[n].weight;
		n++;
	}
	return n;
}

size_t prof_write_hotlist(const struct profile *p, double pct, size_t max,
			  struct strbuf *out)
{
	double want = p->server * pct / 100.0, sum = 0;
	struct strvec seen = STRVEC_INIT;
	for (size_t i = 0; i < p->nr && (max == 0 || seen.nr < max); i++) {
		const struct prof_entry *e = &p->v[i];
		if (!e->in_server || e->weight <= 0 || e->base[0] == '[')
			continue;
		if (seen.nr > 0 && sum >= want)
			break;
		sum += e->weight;
		if (strvec_find(&seen, e->base) >= 0)
			continue;
		strvec_push(&seen, e->base);
		strbuf_addf(out, "%s\n", e->base);
	}
	size_t n = seen.nr;
	strvec_clear(&seen);
	return n;
}

size_t prof_write_coldlist(const struct profile *p, size_t nfiles,
			   const struct prof_map *m, struct strbuf *out)
{
	size_t n = 0;
	for (size_t i = 0; i < m->nr; i++) {
		const struct prof_map_item *it = &m->v[i];
		size_t f;
		if (i > 0 && !strcmp(m->v[i - 1].name, it->name))
			continue;  /* each name once */
		for (f = 0; f < nfiles && f < p->nfiles; f++)
			if (!strcmp(p->files[f].tu, it->tu))
				break;
		if (f == nfiles || f == p->nfiles)
			continue;
		int seen = 0;
		for (size_t j = 0; j < p->nr && !seen; j++)
			seen = p->v[j].in_server && !strcmp(p->v[j].base, it->name);
		if (seen)
			continue;
		strbuf_addf(out, "%s\n", it->name);
		n++;
	}
	return n;
}

/* One section per file: a blank line and its share, [TU], cflags. */
static int policy_files(const struct profile *p, const struct prof_policy_opts *o,
			struct policy_doc *d, struct strbuf *err)
{
	double cum = 0;
	int rc = 0;
	for (size_t i = 0; !rc && i < o->nfiles && i < p->nfiles; i++) {
		const struct prof_file *f = &p->files[i];
		double share = p->attributed > 0 ? 100.0 * f->weight / p->attributed : 0;
		char *c;
		int sec;
		cum += share;
		c = xasprintf("%.1f%% of the profile (cumulative %.1f%%), %zu functions", share, cum,
			      f->nfuncs);
		policy_doc_add_comment(d, "");
		policy_doc_add_comment(d, c);
		free(c);
		sec = policy_doc_add_section(d, f->tu, err);
		rc = sec < 0 ? -1 : policy_doc_add_flags(d, sec, "cflags", 1, o->cflags, err);
	}
	return rc;
}

int prof_write_policy(const struct profile *p, const struct prof_policy_opts *o,
		      struct strbuf *out)
{
	struct policy_doc d;
	struct strbuf err = STRBUF_INIT;
	int rc = 0;

	/* unchecked flags pass here: pgbuild build checks the policy with
	 * the caller's PGOPT_UNCHECKED_FLAGS */
	policy_doc_init(&d, o->path ? o->path : "(generated policy)", POLICY_UNCHECKED);
	if (o->comment)
		policy_doc_add_comment(&d, o->comment);
	if (o->hot || o->cold)
		rc = policy_doc_add_section(&d, "global", &err) < 0 ? -1 : 0;
	if (!rc && o->hot)
		rc = policy_doc_set(&d, "hot", o->hot, &err);
	if (!rc && o->cold)
		rc = policy_doc_set(&d, "cold", o->cold, &err);
	if (!rc)
		rc = policy_files(p, o, &d, &err);
	if (rc < 0)
		error("%s", err.buf);
	else
		policy_doc_text(&d, out);
	policy_doc_release(&d);
	strbuf_release(&err);
	return rc;
}

/* ---------------- JSON ---------------- */

void prof_write_json(const struct profile *p, size_t max_funcs, struct json_writer *jw)
{
	json_object_begin(jw);
	json_key(jw, "method"); json_string(jw, p->method);
	json_key(jw, "total"); json_double(jw, p->total);
	json_key(jw, "server"); json_double(jw, p->server);
	json_key(jw, "attributed"); json_double(jw, p->attributed);
	json_key(jw, "functions");
	json_array_begin(jw);
	for (size_t i = 0; i < p->nr && (max_funcs == 0 || i < max_funcs); i++) {
		const struct prof_entry *e = &p->v[i];
		json_object_begin(jw);
		json_key(jw, "name"); json_string(jw, e->name);
		json_key(jw, "dso"); json_string(jw, e->dso);
		json_key(jw, "tu"); json_string(jw, e->tu);
		json_key(jw, "weight"); json_double(jw, e->weight);
		json_key(jw, "share"); json_double(jw, p->total > 0 ? e->weight / p->total : 0);
		json_key(jw, "server"); json_bool(jw, e->in_server);
		if (e->ambiguous) {
			json_key(jw, "ambiguous"); json_bool(jw, 1);
		}
		json_object_end(jw);
	}
	json_array_end(jw);
	json_key(jw, "files");
	json_array_begin(jw);
	for (size_t i = 0; i < p->nfiles; i++) {
		const struct prof_file *f = &p->files[i];
		json_object_begin(jw);
		json_key(jw, "tu"); json_string(jw, f->tu);
		json_key(jw, "weight"); json_double(jw, f->weight);
		json_key(jw, "share");
		json_double(jw, p->attributed > 0 ? f->weight / p->attributed : 0);
		json_key(jw, "functions"); json_int(jw, (int64_t)f->nfuncs);
		json_object_end(jw);
	}
	json_array_end(jw);
	json_object_end(jw);
}

int prof_read_json(struct profile *p, const struct json_value *doc, struct strbuf *err)
{
	const char *method = json_get_str(doc, "method");
	const struct json_value *fns = json_get(doc, "functions");
	if (!method || !fns || fns->type != JSON_ARRAY) {
		strbuf_addstr(err, "not a pgbuild profile (expected \"method\" and \"functions\")");
		return -1;
	}
	prof_init(p, method);
	for (size_t i = 0; i < json_len(fns); i++) {
		const struct json_value *f = json_at(fns, i);
		const char *name = json_get_str(f, "name"), *dso = json_get_str(f, "dso");
		const struct json_value *srv = json_get(f, "server");
		double w = json_get_num(f, "weight", -1);
		if (!name || !dso || w < 0 || !srv || srv->type != JSON_BOOL) {
			strbuf_addf(err, "functions[%zu]: expected name, dso, weight and server", i);
			prof_release(p);
			return -1;
		}
		struct prof_entry *e = prof_add_tu(p, name, dso, json_get_str(f, "tu"), w,
						   srv->u.boolean);
		if (json_get(f, "ambiguous"))
			e->ambiguous = 1;
	}
	prof_finish(p);
	return 0;
}
