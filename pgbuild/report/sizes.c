/*
 * report/sizes.c - the report's per-function size table: the function
 * symbols of A's and B's binaries (or `pgbuild inspect --json` documents)
 * matched by source function (explain/names.h: an LTO rename, a clone or
 * a cold part is the same function, statics of one name told apart by
 * file), a function one side inlined away counted in the one caller that
 * absorbed it, the plugin's inlining counts, and the units whose functions
 * a policy's hot list marked (their files come first in the flags table).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/elf/elfrec.h"
#include "pgbuild/explain/explain.h"
#include "pgbuild/pgbuild.h"
#include "pgbuild/report/report.h"

/* One build's functions for the table. */
struct sz_side {
	struct explain_sym *syms;   /* its function symbols (or records) */
	size_t nsyms, alloc;        /* used, allocated */
	struct strvec strings;      /* names and files the syms point at */
	struct elfrec_file elf;     /* the binary (ELF input) */
	struct elfrec_unit *units;  /* its records (ELF input) */
	size_t nunits;              /* how many */
	struct json_value *doc;     /* the inspect document (JSON input) */
	const struct json_value **fns;      /* function records of its final code */
	const struct json_value **fn_units; /* the unit record of each */
	size_t nfns, alloc_fns;     /* used, allocated */
	int had_symtab;             /* the ELF input has a .symtab */
	int records;                /* it has plugin records */
};

static int is_json(const char *path)
{
	size_t n = strlen(path);
	return n > 5 && !strcmp(path + n - 5, ".json");
}

static void add_sym(struct sz_side *s, const char *name, uint64_t addr, uint64_t size,
		    const char *file, int global)
{
	ALLOC_GROW(s->syms, s->nsyms + 1, s->alloc);
	strvec_push(&s->strings, name);
	s->syms[s->nsyms].name = s->strings.v[s->strings.nr - 1];
	strvec_push(&s->strings, file ? file : "");
	s->syms[s->nsyms].file = s->strings.v[s->strings.nr - 1];
	s->syms[s->nsyms].addr = addr;
	s->syms[s->nsyms].size = size;
	s->syms[s->nsyms].global = global;
	s->nsyms++;
}

static void add_record(struct sz_side *s, const struct json_value *unit,
		       const struct json_value *fn)
{
	size_t old = s->alloc_fns;
	ALLOC_GROW(s->fns, s->nfns + 1, s->alloc_fns);
	if (s->alloc_fns != old)
		s->fn_units = xrealloc(s->fn_units, s->alloc_fns * sizeof(*s->fn_units));
	s->fns[s->nfns] = fn;
	s->fn_units[s->nfns] = unit;
	s->nfns++;
	s->records = 1;
}

/* The records of the final code: link-time ones when there are any (LTO:
 * the code in the binary), else the compile records. */
static void add_records(struct sz_side *s, const struct json_value *const *units,
			const struct json_value *const *const *fns, const size_t *nfns, size_t n)
{
	int lto = 0;
	for (size_t u = 0; u < n; u++)
		lto |= elfrec_unit_is_link_time(units[u]);
	for (size_t u = 0; u < n; u++)
		if (lto == elfrec_unit_is_link_time(units[u]))
			for (size_t k = 0; k < nfns[u]; k++)
				add_record(s, units[u], fns[u][k]);
}

/* An ELF input: its symbols (.dynsym with ELFREC_DYNSYM) and records. */
static int load_elf(struct sz_side *s, const char *path, unsigned flags)
{
	struct strbuf err = STRBUF_INIT;
	const struct elfrec_object *o;
	struct strmap files = STRMAP_INIT;
	const struct json_value **units;
	const struct json_value *const **fns;
	size_t *nfns;
	long nu;

	if (elfrec_open_flags(path, flags, &s->elf, &err) < 0 || s->elf.is_archive || !s->elf.nr) {
		error("%s%s", err.len ? "" : path, err.len ? err.buf : ": not an executable or shared library");
		strbuf_release(&err);
		return -1;
	}
	o = &s->elf.objs[0];
	s->had_symtab = o->has_symtab;
	if (!o->has_symtab && !o->has_dynsym) {
		strbuf_release(&err);
		return error("%s: no symbol table", path);
	}
	nu = elfrec_units(o, &s->units, &err);
	s->nunits = nu < 0 ? 0 : (size_t)nu; /* unreadable records: sizes only */
	explain_record_files(s->units, s->nunits, &files);
	for (size_t i = 0; i < o->nfuncs; i++) {
		const struct elfrec_func *f = &o->funcs[i];
		const char *file = f->file;
		if (!f->section[0] || !f->size || !f->name[0])
			continue;
		if (!f->global && !file[0])
			file = explain_record_file(&files, f->name); /* LTO: artificial file symbols */
		add_sym(s, f->name, f->addr, f->size, file, f->global);
	}
	units = xcalloc(s->nunits + 1, sizeof(*units));
	fns = xcalloc(s->nunits + 1, sizeof(*fns));
	nfns = xcalloc(s->nunits + 1, sizeof(*nfns));
	for (size_t u = 0; u < s->nunits; u++) {
		units[u] = s->units[u].unit;
		fns[u] = (const struct json_value *const *)s->units[u].fns;
		nfns[u] = s->units[u].nfns;
	}
	add_records(s, units, (const struct json_value *const *const *)fns, nfns, s->nunits);
	free(units);
	free(fns);
	free(nfns);
	strmap_clear(&files);
	strbuf_release(&err);
	return 0;
}

/* An inspect document: the records, their ELF sizes (else GCC's estimate). */
static int load_json(struct sz_side *s, const char *path)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	const struct json_value *units;
	uint64_t addr = 1;
	if (sfs_read(AT_FDCWD, path, SFS_IN_JSON, 0, &sb, &err) < 0 ||
	    !(s->doc = json_parse(sb.buf, sb.len, &err))) {
		error("%s: %s", path, err.buf);
		strbuf_release(&sb);
		strbuf_release(&err);
		return -1;
	}
	units = json_get(s->doc, "units");
	for (size_t i = 0; i < json_len(units); i++) {
		const struct json_value *u = json_at(units, i), *fl = json_get(u, "functions");
		for (size_t k = 0; k < json_len(fl); k++) {
			const struct json_value *f = json_at(fl, k);
			const char *name = json_get_str(f, "name");
			double size = json_get_num(f, "size", json_get_num(f, "size_est", NAN));
			if (!name || !(size > 0))
				continue;
			/* the records carry no addresses: every one its own code */
			add_sym(s, name, addr++, (uint64_t)size, json_get_str(f, "file"), 0);
			if (json_get(f, "inlined"))
				add_record(s, u, f);
		}
	}
	strbuf_release(&sb);
	strbuf_release(&err);
	return 0;
}

static void side_release(struct sz_side *s)
{
	free(s->syms);
	strvec_clear(&s->strings);
	elfrec_units_free(s->units, s->nunits);
	elfrec_release(&s->elf);
	json_free(s->doc);
	free(s->fns);
	free(s->fn_units);
	memset(s, 0, sizeof(*s));
}

/* Both sides, .symtab only when both have one (compare like with like:
 * Debian's postgres is stripped, its exported functions only). */
static int load_sides(struct sz_side sides[2], const char *const paths[2])
{
	for (int i = 0; i < 2; i++) {
		strvec_init(&sides[i].strings);
		if (paths[i] && (is_json(paths[i]) ? load_json(&sides[i], paths[i]) :
				 load_elf(&sides[i], paths[i], 0)) < 0)
			return -1;
	}
	for (int i = 0; i < 2; i++) {
		const char *other = paths[1 - i];
		if (!paths[i] || is_json(paths[i]) || !sides[i].had_symtab || !other ||
		    is_json(other) || sides[1 - i].had_symtab)
			continue;
		side_release(&sides[i]);
		strvec_init(&sides[i].strings);
		if (load_elf(&sides[i], paths[i], ELFREC_DYNSYM) < 0)
			return -1;
	}
	return 0;
}

/* ---------------- the table ---------------- */

/* What the records of one side say per row. */
struct sz_recs {
	struct strmap inl;        /* row key -> inlined sites + 1 (as a pointer) */
	struct strmap absorbers;  /* callee base -> struct strvec * of row keys */
	struct strmap callers;    /* callee base -> struct strvec * of the row keys
				     whose records call it (not inlined) */
	struct strmap tu;         /* row key -> its unit (borrowed) */
};

/* The row key of a record in t. */
static void record_key(const struct explain_symtab *t, const struct json_value *fn,
		       struct strbuf *key)
{
	explain_symtab_key(t, json_get_str(fn, "name"), json_get_str(fn, "file"), key);
}

/* Add key to the list of callee's base name in m, once. */
static void map_add(struct strmap *m, const char *callee, const char *key, struct strbuf *tmp)
{
	struct strvec **by;
	if (!callee)
		return;
	explain_name_base(callee, tmp);
	by = (struct strvec **)strmap_slot(m, tmp->buf);
	if (!*by) {
		*by = xmalloc(sizeof(**by));
		strvec_init(*by);
	}
	for (size_t j = 0; j < (*by)->nr; j++)
		if (!strcmp((*by)->v[j], key))
			return;
	strvec_push(*by, key);
}

static void index_recs(const struct sz_side *s, const struct explain_symtab *t, struct sz_recs *r)
{
	struct strbuf key = STRBUF_INIT, callee = STRBUF_INIT;
	for (size_t i = 0; i < s->nfns; i++) {
		const struct json_value *inl = json_get(s->fns[i], "inlined");
		const char *tu = json_get_str(s->fn_units[i], "tu");
		void **slot;
		if (!json_get_str(s->fns[i], "name"))
			continue;
		record_key(t, s->fns[i], &key);
		slot = strmap_slot(&r->inl, key.buf);
		*slot = (void *)((size_t)*slot + (*slot ? 0 : 1) + json_len(inl));
		if (tu && !elfrec_unit_is_link_time(s->fn_units[i]) && !strmap_get(&r->tu, key.buf))
			strmap_put(&r->tu, key.buf, (void *)tu);
		for (size_t k = 0; k < json_len(inl); k++)
			map_add(&r->absorbers, json_get_str(json_at(inl, k), "callee"), key.buf, &callee);
		for (size_t k = 0; k < json_len(json_get(s->fns[i], "not_inlined")); k++)
			map_add(&r->callers, json_get_str(json_at(json_get(s->fns[i], "not_inlined"), k),
							  "callee"), key.buf, &callee);
	}
	strbuf_release(&key);
	strbuf_release(&callee);
}

static void lists_clear(struct strmap *m)
{
	for (size_t i = 0; i < m->size; i++) {
		struct strvec *v = m->v[i].value;
		if (v)
			strvec_clear(v);
		free(v);
	}
	strmap_clear(m);
}

static void recs_clear(struct sz_recs *r)
{
	lists_clear(&r->absorbers);
	lists_clear(&r->callers);
	strmap_clear(&r->inl);
	strmap_clear(&r->tu);
}

static double inl_count(const struct sz_side *s, const struct sz_recs *r, const char *key)
{
	void *v = strmap_get(&r->inl, key);
	return s->records && v ? (double)((size_t)v - 1) : NAN;
}

static struct report_fn *add_fn(struct report_data *rd, const struct explain_symrow *row)
{
	struct report_fn *f;
	ALLOC_GROW(rd->fns, rd->nr_fns + 1, rd->alloc_fns);
	f = &rd->fns[rd->nr_fns++];
	memset(f, 0, sizeof(*f));
	f->name = xstrdup(row->key);
	f->size_a = row->size[0];
	f->size_b = row->size[1];
	return f;
}

/* The note of a row whose symbols are renamed or cloned on a side ("B:
 * ExplainNode.lto_priv.0"); a .cold part alone is not worth a line. */
static void names_note(const struct explain_symrow *row, struct strbuf *note)
{
	for (int s = 0; s < 2; s++)
		if (row->kinds[s] & ~(unsigned)(EXPLAIN_NK_COLD | EXPLAIN_NK_RECURSION))
			strbuf_addf(note, "%s%s: %s", note->len ? "; " : "", s ? "B" : "A",
				    row->names[s]);
}

/* The one row of keys that has a symbol on both sides (NULL: none or
 * several; *n says how many). */
static const struct explain_symrow *one_row(const struct explain_symtab *t,
					    const struct explain_symrow *self,
					    const struct strvec *keys, size_t *n)
{
	const struct explain_symrow *into = NULL;
	*n = 0;
	for (size_t k = 0; keys && k < keys->nr; k++) {
		const struct explain_symrow *c = explain_symtab_find(t, keys->v[k]);
		if (c && c != self && isfinite(c->size[0]) && isfinite(c->size[1])) {
			into = c;
			(*n)++;
		}
	}
	return *n == 1 ? into : NULL;
}

/* What was folded into one entry, by why (the note is made at the end). */
struct folds {
	struct strvec names[2];   /* [0] inlined per the records, [1] inferred */
	char *why[2];             /* the sentence of each */
};

/* Count row's size (side s) in into's entry; kind 0: records, 1: inferred. */
static void move_into(struct report_data *rd, const struct strmap *at, struct folds *folds,
		      const struct explain_symrow *row, const struct explain_symrow *into, int s,
		      int kind, const char *why)
{
	size_t i = (size_t)strmap_get(at, into->key) - 1;
	struct report_fn *f = &rd->fns[i];
	*(s ? &f->size_b : &f->size_a) += row->size[s];
	strvec_push(&folds[i].names[kind], row->key);
	if (!folds[i].why[kind])
		folds[i].why[kind] = xstrdup(why);
}

/* The fold notes appended to every entry's note. */
static void fold_notes(struct report_data *rd, struct folds *folds, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		strbuf_reset(&sb);
		if (rd->fns[i].note)
			strbuf_addstr(&sb, rd->fns[i].note);
		for (int k = 0; k < 2; k++) {
			const struct strvec *v = &folds[i].names[k];
			for (size_t j = 0; j < v->nr && j < 3; j++)
				strbuf_addf(&sb, "%s%s", j ? ", " : sb.len ? "; + " : "+ ", v->v[j]);
			if (v->nr > 3)
				strbuf_addf(&sb, " and %zu more", v->nr - 3);
			if (v->nr)
				strbuf_addf(&sb, " (%s)", folds[i].why[k]);
			strvec_clear(&folds[i].names[k]);
			free(folds[i].why[k]);
		}
		free(rd->fns[i].note);
		rd->fns[i].note = sb.len ? xstrdup(sb.buf) : NULL;
	}
	strbuf_release(&sb);
}

/* A row one side (o) has no symbol of: the other side's code of it counted
 * in the one caller that took its body on o (o's records: inlined), or,
 * when o has no records, in the one caller that calls it on the other side
 * (inferred: o has no symbol of it, so it is inside a caller there).
 * Returns 1 when it was folded; several candidates leave a note. */
static int fold(struct report_data *rd, const struct explain_symtab *t, size_t i,
		struct sz_recs recs[2], const struct sz_side sides[2], const struct strmap *at,
		struct folds *folds)
{
	const struct explain_symrow *row = &t->v[i];
	struct report_fn *self = &rd->fns[(size_t)strmap_get(at, row->key) - 1];
	for (int o = 0; o < 2; o++) {
		int s = 1 - o;
		const struct explain_symrow *into;
		char why[80];
		size_t n = 0;
		if (isfinite(row->size[o]) || !isfinite(row->size[s]))
			continue;
		if (sides[o].records) {
			into = one_row(t, row, strmap_get(&recs[o].absorbers, row->base), &n);
			snprintf(why, sizeof(why), "inlined into it in %s", o ? "B" : "A");
		} else if (sides[s].records) {
			into = one_row(t, row, strmap_get(&recs[s].callers, row->base), &n);
			snprintf(why, sizeof(why), "called from it in %s, inside it in %s: inferred",
				 s ? "B" : "A", o ? "B" : "A");
		} else {
			continue;
		}
		if (into) {
			move_into(rd, at, folds, row, into, s, !sides[o].records, why);
			return 1;
		}
		if (n > 1) {
			char *old = self->note;
			self->note = xasprintf("%s%s%s in %s into %zu functions", old ? old : "",
					       old ? "; " : "", sides[o].records ? "inlined" : "inside callers",
					       o ? "B" : "A", n);
			free(old);
		}
	}
	return 0;
}

/* Size change, plus inlining change where both builds have a record of it. */
static double change_weight(const struct report_fn *f)
{
	double a = isfinite(f->size_a) ? f->size_a : 0, b = isfinite(f->size_b) ? f->size_b : 0;
	double inl = isfinite(f->inl_a) && isfinite(f->inl_b) ? fabs(f->inl_b - f->inl_a) : 0;
	return fabs(b - a) + 16 * inl;
}

static int cmp_report_fn(const void *pa, const void *pb)
{
	double a = change_weight(pa), b = change_weight(pb);
	if (a != b)
		return a < b ? 1 : -1;
	return strcmp(((const struct report_fn *)pa)->name, ((const struct report_fn *)pb)->name);
}

static void fn_free(struct report_fn *f)
{
	free(f->name);
	free(f->tu);
	free(f->note);
}

/* Every row as an entry; counts and sums of each side. */
static void entries(struct report_data *rd, const struct explain_symtab *t,
		    struct sz_recs recs[2], const struct sz_side sides[2], struct strmap *at)
{
	struct strbuf note = STRBUF_INIT;
	rd->fns_a = rd->fns_b = 0;
	rd->text_a = rd->text_b = 0;
	rd->recs_a = sides[0].nfns;
	rd->recs_b = sides[1].nfns;
	for (size_t i = 0; i < t->nr; i++) {
		const struct explain_symrow *row = &t->v[i];
		struct report_fn *f = add_fn(rd, row);
		const char *tu = strmap_get(&recs[1].tu, row->key);
		if (!tu)
			tu = strmap_get(&recs[0].tu, row->key);
		f->tu = tu ? xstrdup(tu) : NULL;
		f->inl_a = inl_count(&sides[0], &recs[0], row->key);
		f->inl_b = inl_count(&sides[1], &recs[1], row->key);
		strbuf_reset(&note);
		names_note(row, &note);
		f->note = note.len ? xstrdup(note.buf) : NULL;
		rd->fns_a += isfinite(row->size[0]);
		rd->fns_b += isfinite(row->size[1]);
		rd->text_a += isfinite(row->size[0]) ? row->size[0] : 0;
		rd->text_b += isfinite(row->size[1]) ? row->size[1] : 0;
		strmap_put(at, row->key, (void *)(rd->nr_fns));
	}
	strbuf_release(&note);
}

/* Keep the entries that changed (and were not folded), largest first. */
static void keep_changed(struct report_data *rd, const char *folded)
{
	size_t w = 0;
	for (size_t i = 0; i < rd->nr_fns; i++) {
		struct report_fn *f = &rd->fns[i];
		int size_same = f->size_a == f->size_b;
		int inl_same = !(isfinite(f->inl_a) && isfinite(f->inl_b)) || f->inl_a == f->inl_b;
		if (folded[i] || (size_same && inl_same)) {
			fn_free(f);
			continue;
		}
		rd->fns[w++] = *f;
	}
	rd->nr_fns = w;
	if (rd->nr_fns)
		qsort(rd->fns, rd->nr_fns, sizeof(*rd->fns), cmp_report_fn);
}

/* A unit the plugin marked hot functions in, once. */
static void add_hot(struct report_data *rd, const struct json_value *u)
{
	const char *tu = json_get_str(u, "tu");
	if (!tu || elfrec_unit_is_link_time(u) || !(json_get_num(u, "marked_hot", 0) > 0))
		return;
	for (size_t k = 0; k < rd->hot_tus.nr; k++)
		if (!strcmp(rd->hot_tus.v[k], tu))
			return;
	strvec_push(&rd->hot_tus, tu);
}

/* The units the plugin marked hot functions in (either build). */
static void hot_units(struct report_data *rd, const struct sz_side sides[2])
{
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < sides[s].nfns; i++)
			add_hot(rd, sides[s].fn_units[i]);
		for (size_t u = 0; u < sides[s].nunits; u++)
			add_hot(rd, sides[s].units[u].unit);
	}
}

int report_load_inspect(struct report_data *rd, const char *a, const char *b)
{
	struct sz_side sides[2];
	const char *paths[2] = { a, b };
	struct explain_symtab t = { 0 };
	struct sz_recs recs[2];
	struct strmap at = STRMAP_INIT;
	const struct explain_sym *syms[2];
	size_t n[2];
	char *folded;
	struct folds *folds;
	int rc = -1;

	memset(sides, 0, sizeof(sides));
	memset(recs, 0, sizeof(recs));
	if (load_sides(sides, paths) < 0)
		goto out;
	for (int s = 0; s < 2; s++) {
		syms[s] = sides[s].syms;
		n[s] = sides[s].nsyms;
	}
	explain_symtab_build(&t, syms, n, 1);
	for (int s = 0; s < 2; s++)
		index_recs(&sides[s], &t, &recs[s]);
	entries(rd, &t, recs, sides, &at);
	folded = xcalloc(rd->nr_fns + 1, 1);
	folds = xcalloc(rd->nr_fns + 1, sizeof(*folds));
	for (size_t i = 0; i < rd->nr_fns; i++)
		for (int k = 0; k < 2; k++)
			strvec_init(&folds[i].names[k]);
	for (size_t i = 0; i < t.nr; i++)
		folded[i] = (char)fold(rd, &t, i, recs, sides, &at, folds);
	fold_notes(rd, folds, rd->nr_fns);
	free(folds);
	keep_changed(rd, folded);
	free(folded);
	hot_units(rd, sides);
	/* no function on either side is nothing to show, not a table of zeros */
	rd->have_inspect = rd->fns_a || rd->fns_b;
	rc = 0;
out:
	for (int s = 0; s < 2; s++) {
		recs_clear(&recs[s]);
		side_release(&sides[s]);
	}
	strmap_clear(&at);
	explain_symtab_clear(&t);
	return rc;
}
