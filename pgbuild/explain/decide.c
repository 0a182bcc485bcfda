/*
 * explain/decide.c - the compiler's decisions behind each row: callees
 * inlined on one side only (with what the other side did), their cost
 * moved into the callers that absorbed them, sizes, sections, the unit's
 * flags and policy line, BOLT's layout; see explain.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/explain/graph.h"
#include "pgbuild/pgbuild.h"

static int is_header(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	return n > 2 && path[n - 2] == '.' && path[n - 1] == 'h';
}

static const char *file_base(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	return slash ? slash + 1 : path ? path : "";
}

/* path relative to either side's source tree where it is below one. */
static char *relative(struct explain_side sides[2], const char *path)
{
	for (int s = 0; s < 2; s++) {
		size_t n = sides[s].srcdir ? strlen(sides[s].srcdir) : 0;
		if (n && !strncmp(path, sides[s].srcdir, n) && path[n] == '/')
			return xstrdup(path + n + 1);
	}
	return xstrdup(path);
}

/* The records of a row on side s (libraries have none). */
static const struct explain_recs *row_recs(const struct explain_side *s,
					   const struct explain_row *row)
{
	return *row->object ? NULL : strmap_get(&s->recs, row->key);
}

/* ---------------- one-sided inlining ---------------- */

/* An absorption: `by` took callee `x`'s body on side `side` (the other side
 * calls x out of line through `from`, the site's last chain element). */
struct pair {
	size_t by, x;        /* rows: the absorber, the callee */
	int side;            /* the side whose cost moves (the one that calls x) */
	double scale;        /* of the call graph's share (inferred pairs: < 1
				when the other side still calls x out of line
				some of the time) */
};

/* Does side s's record of row `row` inline a callee of base name x? */
static int recs_inline(const struct explain_recs *rc, const char *x, struct strbuf *tmp)
{
	for (size_t i = 0; rc && i < rc->nr; i++) {
		const struct json_value *inl = json_get(rc->v[i].fn, "inlined");
		for (size_t k = 0; k < json_len(inl); k++) {
			const char *c = json_get_str(json_at(inl, k), "callee");
			if (!c)
				continue;
			explain_name_base(c, tmp);
			if (!strcmp(tmp->buf, x))
				return 1;
		}
	}
	return 0;
}

/* GCC's reason in side's records of row for not inlining x, or NULL. */
static const char *recs_reason(const struct explain_recs *rc, const char *x, struct strbuf *tmp)
{
	for (size_t i = 0; rc && i < rc->nr; i++) {
		const struct json_value *ni = json_get(rc->v[i].fn, "not_inlined");
		for (size_t k = 0; k < json_len(ni); k++) {
			const char *c = json_get_str(json_at(ni, k), "callee");
			if (!c)
				continue;
			explain_name_base(c, tmp);
			if (!strcmp(tmp->buf, x))
				return json_get_str(json_at(ni, k), "reason");
		}
	}
	return NULL;
}

/* What the other side o did with the call the site inlined. */
static void other_phrase(struct explain_site *st, const struct explain_side *o,
			 const struct explain_recs *orc, const char *x, struct strbuf *tmp)
{
	const char *reason = o->nunits ? recs_reason(orc, x, tmp) : NULL;
	if (reason && *reason) {
		st->other = xstrdup(reason);
		st->reason_is_gcc = 1;
	} else if (o->nunits) {
		st->other = xstrdup("not inlined (no reason recorded)");
	} else if (st->cross_file && !o->lto) {
		st->other = xstrdup("called across units (no LTO; no plugin record)");
	} else {
		st->other = xstrdup("called (no plugin record)");
	}
}

/* Count the other side's calls e from row `from` into site st, once. */
static void site_calls(struct explain_site *st, size_t from, const struct xg_edge *e)
{
	for (size_t i = 0; i < st->nfroms; i++)
		if (st->froms[i] == from)
			return;
	ALLOC_GROW(st->froms, st->nfroms + 1, st->alloc_froms);
	st->froms[st->nfroms++] = from;
	st->calls_other += e->calls;
	st->cost_other += e->incl.estimate;
}

/* Add a site to row r unless it is there (same callee and side). */
static struct explain_site *site_add(struct explain_row *r, const char *x, int side, int *fresh)
{
	for (size_t i = 0; i < r->nsites; i++) {
		if (r->sites[i].side == side && !strcmp(r->sites[i].callee, x)) {
			*fresh = 0;
			return &r->sites[i];
		}
	}
	ALLOC_GROW(r->sites, r->nsites + 1, r->alloc_sites);
	memset(&r->sites[r->nsites], 0, sizeof(r->sites[r->nsites]));
	r->sites[r->nsites].callee = xstrdup(x);
	r->sites[r->nsites].side = side;
	r->sites[r->nsites].calls_other = 0;
	r->sites[r->nsites].cost_other = 0;
	*fresh = 1;
	return &r->sites[r->nsites++];
}

/* The rows of an inlined site's chain (C, Y1 .. Yk) that side o calls
 * along its own call graph: Yi is on the path when o calls it from the
 * path's last row; otherwise o has it inside that row too.  Returns the
 * path's length (at most max), path[0] = c. */
static size_t chain_path(const struct xgraph *g, int o, size_t c, const struct json_value *chain,
			 size_t *path, size_t max, struct strbuf *tmp)
{
	size_t n = 1;
	path[0] = c;
	for (size_t k = 0; k < json_len(chain) && n < max; k++) {
		const struct json_value *y = json_at(chain, k);
		long yr;
		if (y->type != JSON_STRING)
			continue;
		explain_name_base(y->u.str.s, tmp);
		yr = xg_find(g, "", tmp->buf);
		if (yr >= 0 && (size_t)yr != path[n - 1] && xg_edge(g, o, path[n - 1], (size_t)yr))
			path[n++] = (size_t)yr;
	}
	return n;
}

static void pair_add(struct pair **pairs, size_t *np, size_t *alloc, size_t by, size_t x, int side,
		     double scale)
{
	if (by == x)
		return;
	ALLOC_GROW(*pairs, *np + 1, *alloc);
	(*pairs)[*np].by = by;
	(*pairs)[*np].x = x;
	(*pairs)[*np].side = side;
	(*pairs)[*np].scale = scale;
	(*np)++;
}

/* The pairs of one inlined site along the other side's path to x. */
static void site_pairs(const size_t *path, size_t n, size_t x, int o, struct pair **pairs,
		       size_t *np, size_t *alloc)
{
	for (size_t k = 1; k < n; k++)
		pair_add(pairs, np, alloc, path[k - 1], path[k], o, 1);
	pair_add(pairs, np, alloc, path[n - 1], x, o, 1);
}

/* One record's inlined sites of row c on side s: the one-sided ones. */
static void record_sites(struct explain_result *r, struct xgraph *g, struct explain_side sides[2],
			 int s, size_t c, const struct json_value *fn, struct pair **pairs,
			 size_t *np, size_t *alloc)
{
	int o = 1 - s;
	const struct explain_recs *orc = row_recs(&sides[o], &r->rows[c]);
	const struct json_value *inl = json_get(fn, "inlined");
	struct strbuf x = STRBUF_INIT, tmp = STRBUF_INIT;
	for (size_t k = 0; k < json_len(inl); k++) {
		const struct json_value *site = json_at(inl, k), *chain = json_get(site, "chain");
		const char *callee = json_get_str(site, "callee"), *cf = json_get_str(site, "callee_file");
		const struct xg_edge *e;
		long xr;
		size_t path[16], npath;
		struct explain_site *st;
		int fresh;
		if (!callee)
			continue;
		explain_name_base(callee, &x);
		if ((xr = xg_find(g, "", x.buf)) < 0 || (size_t)xr == c)
			continue;
		npath = chain_path(g, o, c, chain, path, 16, &tmp);
		/* the other side calls it out of line (callgrind), and its records
		 * (if any) do not inline it there */
		e = xg_edge(g, o, path[npath - 1], (size_t)xr);
		if (!e || !(e->calls > 0) || (sides[o].nunits && recs_inline(orc, x.buf, &tmp)))
			continue;
		st = site_add(&r->rows[c], x.buf, s, &fresh);
		site_calls(st, path[npath - 1], e);
		if (fresh) {
			const char *stage = json_get_str(site, "stage");
			st->callee_file = cf ? relative(sides, cf) : NULL;
			st->cross_file = cf && !is_header(cf);
			st->stage = stage ? xstrdup(stage) : NULL;
			other_phrase(st, &sides[o], orc, x.buf, &tmp);
		}
		site_pairs(path, npath, (size_t)xr, o, pairs, np, alloc);
	}
	strbuf_release(&x);
	strbuf_release(&tmp);
}

/* ---------------- moving the absorbed costs ---------------- */

static int cmp_pair(const void *pa, const void *pb)
{
	const struct pair *a = pa, *b = pb;
	if (a->side != b->side)
		return a->side - b->side;
	if (a->x != b->x)
		return a->x < b->x ? -1 : 1;
	return a->by < b->by ? -1 : a->by > b->by;
}

/* Depth of x in the absorptions of side (leaves 0); cycles cut. */
static int depth_of(const struct pair *p, size_t np, size_t x, int side, int *memo, int guard)
{
	int d = 0;
	if (memo[x] >= 0)
		return memo[x];
	if (guard > 64)
		return 0;
	memo[x] = 0; /* a cycle ends here */
	for (size_t i = 0; i < np; i++)
		if (p[i].side == side && p[i].by == x && p[i].x != x) {
			int dx = 1 + depth_of(p, np, p[i].x, side, memo, guard + 1);
			if (dx > d)
				d = dx;
		}
	memo[x] = d;
	return d;
}

/* The share of x's cost on side that reaches it through `by` (its edge's
 * inclusive cost over x's from every caller), less what the inlining side
 * still calls out of line from `by`. */
static double pair_fraction(const struct xgraph *g, const struct pair *p)
{
	const struct xg_edge *e = xg_edge(g, p->side, p->by, p->x);
	const struct xg_edge *still = xg_edge(g, 1 - p->side, p->by, p->x);
	double in = g->n[p->side][p->x].in_incl.estimate, f, keep = 1;
	if (!e || !(in > 0) || !(e->incl.estimate > 0))
		return 0;
	f = e->incl.estimate / in;
	if (still && e->calls > 0)
		keep = 1 - still->calls / e->calls;
	f *= (keep < 0 ? 0 : keep) * p->scale;
	return f > 1 ? 1 : f;
}

/* Record that by's row absorbed moved of x's cost on side. */
static void note_absorbed(struct explain_row *by, const char *x, int side, double est)
{
	for (size_t i = 0; i < by->nabsorbed; i++)
		if (by->absorbed[i].side == side && !strcmp(by->absorbed[i].callee, x)) {
			by->absorbed[i].estimate += est;
			return;
		}
	ALLOC_GROW(by->absorbed, by->nabsorbed + 1, by->alloc_absorbed);
	by->absorbed[by->nabsorbed].callee = xstrdup(x);
	by->absorbed[by->nabsorbed].side = side;
	by->absorbed[by->nabsorbed].estimate = est;
	by->nabsorbed++;
}

/* Move every pair's share, deepest callee first, each callee's shares
 * from the cost it has once it absorbed its own callees. */
static void apply_pairs(struct explain_result *r, struct xgraph *g, struct pair *p, size_t np)
{
	int *memo = xmalloc((r->nr + 1) * sizeof(*memo));
	int *depth = xmalloc((np + 1) * sizeof(*depth)), maxd = 0;
	for (int side = 0; side < 2; side++) {
		for (size_t i = 0; i < r->nr; i++)
			memo[i] = -1;
		for (size_t i = 0; i < np; i++)
			if (p[i].side == side) {
				depth[i] = depth_of(p, np, p[i].x, side, memo, 0);
				if (depth[i] > maxd)
					maxd = depth[i];
			}
	}
	for (int d = 0; d <= maxd; d++) {
		for (size_t i = 0; i < np;) {
			size_t j = i;
			struct cycles_tx base;
			while (j < np && p[j].side == p[i].side && p[j].x == p[i].x)
				j++;
			base = r->rows[p[i].x].self[p[i].side];
			for (size_t k = i; k < j; k++) {
				double f;
				if (depth[k] != d || !(f = pair_fraction(g, &p[k])))
					continue;
				xg_tx_add(&r->rows[p[k].by].self[p[k].side], &base, f);
				xg_tx_add(&r->rows[p[k].x].self[p[k].side], &base, -f);
				note_absorbed(&r->rows[p[k].by], r->rows[p[k].x].key, p[k].side,
					      f * base.estimate);
			}
			i = j;
		}
	}
	free(memo);
	free(depth);
}

/* Does side o run row c (called, or costing)? */
static int runs(const struct xgraph *g, const struct explain_result *r, int o, size_t c)
{
	return r->rows[c].present[o] && (g->n[o][c].in_calls > 0 || r->rows[c].self[o].estimate > 0);
}

/* Side o has no records and calls x fewer times than side s does; s calls
 * it from c, o does not: o's x is inside c there (inlined; or, where c is
 * a jump of a few bytes on s, identical code folded), inferred from the
 * calls. */
static void inferred_site(struct explain_result *r, struct xgraph *g, struct explain_side sides[2],
			  int o, size_t c, const struct xg_edge *e, struct strbuf *tmp)
{
	int s = 1 - o, fresh;
	const struct explain_symrow *cs = explain_symtab_find(&g->syms, r->rows[c].key);
	const char *reason = recs_reason(row_recs(&sides[s], &r->rows[c]), r->rows[e->to].key, tmp);
	struct explain_site *st = site_add(&r->rows[c], r->rows[e->to].key, o, &fresh);
	site_calls(st, c, e);
	if (!fresh)
		return;
	st->stage = xstrdup("inferred");
	if (cs && cs->size[s] > 0 && cs->size[s] < 16) {
		st->other = xstrdup("a jump of a few bytes to it (identical code folded); the other "
				    "side runs the code itself");
	} else if (reason && *reason) {
		st->other = xstrdup(reason);
		st->reason_is_gcc = 1;
	} else {
		st->other = xstrdup("called out of line");
	}
}

/* Does side o run row c without calling x from it, while side s does? */
static int call_missing(const struct explain_result *r, const struct xgraph *g, int o, size_t c,
			const struct xg_edge *e)
{
	return !*r->rows[e->to].object && e->calls > 0 && e->to != c && !xg_edge(g, o, c, e->to);
}

/* The inferred sites and pairs of a side o without records: for every x
 * that o calls fewer times than s, the calls s makes from rows o runs
 * without calling x share that deficit. */
static void inferred(struct explain_result *r, struct xgraph *g, struct explain_side sides[2],
		     int o, struct pair **pairs, size_t *np, size_t *alloc)
{
	int s = 1 - o;
	struct strbuf tmp = STRBUF_INIT;
	double *deficit = xcalloc(r->nr + 1, sizeof(*deficit));
	double *missing = xcalloc(r->nr + 1, sizeof(*missing));
	for (size_t x = 0; x < r->nr; x++)
		deficit[x] = g->n[s][x].in_calls - g->n[o][x].in_calls;
	for (size_t c = 0; c < r->nr; c++)
		for (size_t k = 0; !*r->rows[c].object && runs(g, r, o, c) && k < g->n[s][c].nout; k++)
			if (call_missing(r, g, o, c, &g->n[s][c].out[k]))
				missing[g->n[s][c].out[k].to] += g->n[s][c].out[k].calls;
	for (size_t c = 0; c < r->nr; c++) {
		const struct xg_node *nd = &g->n[s][c];
		if (*r->rows[c].object || !runs(g, r, o, c))
			continue;
		for (size_t k = 0; k < nd->nout; k++) {
			const struct xg_edge *e = &nd->out[k];
			size_t x = e->to;
			if (!(deficit[x] > 1e-6) || !call_missing(r, g, o, c, e))
				continue;
			inferred_site(r, g, sides, o, c, e, &tmp);
			pair_add(pairs, np, alloc, c, x, s,
				 missing[x] > deficit[x] ? deficit[x] / missing[x] : 1);
		}
	}
	free(deficit);
	free(missing);
	strbuf_release(&tmp);
}

/* Every row's one-sided sites, then the moves. */
static void one_sided(struct explain_result *r, struct xgraph *g, struct explain_side sides[2])
{
	struct pair *pairs = NULL;
	size_t np = 0, alloc = 0, w = 0;
	for (int s = 0; s < 2; s++) {
		if (!sides[s].nunits)
			continue;
		for (size_t c = 0, nr = r->nr; c < nr; c++) {
			/* the decisions of code that ran: an out-of-line copy never
			 * called is not what the workload executed */
			const struct explain_recs *rc = runs(g, r, s, c) ?
							row_recs(&sides[s], &r->rows[c]) : NULL;
			for (size_t i = 0; rc && i < rc->nr; i++)
				record_sites(r, g, sides, s, c, rc->v[i].fn, &pairs, &np, &alloc);
		}
	}
	for (int o = 0; o < 2; o++)
		if (!sides[o].nunits)
			inferred(r, g, sides, o, &pairs, &np, &alloc);
	if (np)
		qsort(pairs, np, sizeof(*pairs), cmp_pair);
	for (size_t i = 0; i < np; i++) /* one pair per (side, x, by) */
		if (!w || cmp_pair(&pairs[w - 1], &pairs[i]))
			pairs[w++] = pairs[i];
	apply_pairs(r, g, pairs, w);
	free(pairs);
}

/* ---------------- sizes, sections, units ---------------- */

/* The row's section on side: what its records say when not plain .text,
 * else the .cold part its symbols show. */
static char *row_section(const struct explain_side *s, const struct explain_row *row, int side)
{
	const struct explain_recs *rc = row_recs(s, row);
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; rc && i < rc->nr; i++) {
		const char *sec = json_get_str(rc->v[i].fn, "section");
		if (sec && strcmp(sec, ".text") && !strstr(sb.buf, sec))
			strbuf_addf(&sb, "%s%s", sb.len ? " " : "", sec);
	}
	if (!sb.len && row->cold[side] > 0 && !s->bolt) /* BOLT's split says it */
		strbuf_addf(&sb, ".text + .cold part (%.0f B)", row->cold[side]);
	if (!sb.len && rc && rc->nr)
		strbuf_addstr(&sb, ".text");
	if (!sb.len) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

/* A unit of the side's compile log whose path ends in file ("/"-bounded). */
static const struct explain_unit *log_unit_of(const struct explain_side *s, const char *file)
{
	const struct explain_unit *found = NULL;
	size_t fl = strlen(file);
	for (size_t i = 0; i < s->nlog; i++) {
		size_t tl = strlen(s->log[i].tu);
		const char *tail;
		if (tl > fl) {
			if (s->log[i].tu[tl - fl - 1] != '/' || strcmp(s->log[i].tu + tl - fl, file))
				continue;
		} else if (tl < fl) {
			tail = file + fl - tl;
			if (tail[-1] != '/' || strcmp(tail, s->log[i].tu))
				continue;
		} else if (strcmp(file, s->log[i].tu)) {
			continue;
		}
		if (found)
			return NULL; /* two units end so: not this way */
		found = &s->log[i];
	}
	return found;
}

/* The row's unit: a compile record's tu, a record's file, a static
 * symbol's file; relative to the source root where a compile log knows it. */
static char *row_tu(struct explain_side sides[2], const struct explain_row *row)
{
	for (int s = 0; s < 2; s++) {
		const struct explain_recs *rc = row_recs(&sides[s], row);
		for (size_t i = 0; rc && i < rc->nr; i++) {
			const char *tu = json_get_str(rc->v[i].unit, "tu");
			const char *file = json_get_str(rc->v[i].fn, "file");
			const struct explain_unit *u;
			if (tu && !elfrec_unit_is_link_time(rc->v[i].unit))
				return xstrdup(tu);
			if (file && !is_header(file) && (u = log_unit_of(&sides[s], file)))
				return xstrdup(u->tu);
		}
	}
	return NULL;
}

/* What a side's symbols say of one base name. */
struct symfacts {
	const char *file;    /* a static symbol's STT_FILE (plain links) */
	int moved, split, kept; /* BOLT: in .text, .text.cold, .bolt.org.text */
};

/* base name -> struct symfacts of a side's symbols (freed by the caller). */
static void symbol_facts(const struct explain_side *s, struct strmap *m)
{
	const struct elfrec_object *o = &s->elf.objs[0];
	struct strbuf base = STRBUF_INIT;
	for (size_t i = 0; i < o->nfuncs; i++) {
		const struct elfrec_func *f = &o->funcs[i];
		struct symfacts **slot;
		explain_name_base(f->name, &base);
		slot = (struct symfacts **)strmap_slot(m, base.buf);
		if (!*slot)
			*slot = xcalloc(1, sizeof(**slot));
		if (!f->global && f->file[0] && !s->lto && !(*slot)->file)
			(*slot)->file = f->file;
		(*slot)->split |= !strcmp(f->section, ".text.cold");
		(*slot)->moved |= !strcmp(f->section, ".text");
		(*slot)->kept |= !strcmp(f->section, ".bolt.org.text");
	}
	strbuf_release(&base);
}

static void symbol_facts_free(struct strmap *m)
{
	for (size_t i = 0; i < m->size; i++)
		free(m->v[i].value);
	strmap_clear(m);
}

/* A static symbol's STT_FILE of this row, for a side without records. */
static char *row_tu_from_symbols(struct explain_side sides[2], struct strmap facts[2],
				 const struct explain_row *row)
{
	for (int s = 0; s < 2; s++) {
		const struct symfacts *f = strmap_get(&facts[s], row->key);
		const struct explain_unit *u;
		if (f && f->file && (u = log_unit_of(&sides[s], file_base(f->file))))
			return xstrdup(u->tu);
	}
	return NULL;
}

/* The unit's flags and policy lines on side: its compile record, else the
 * compile log. */
static void unit_flags(const struct explain_side *s, const char *tu, char **flags, char **rules)
{
	for (size_t u = 0; u < s->nunits; u++) {
		const struct json_value *un = s->units[u].unit;
		const char *t = json_get_str(un, "tu");
		if (!t || strcmp(t, tu) || elfrec_unit_is_link_time(un))
			continue;
		*flags = NULL;
		{
			struct strbuf sb = STRBUF_INIT;
			const struct json_value *a = json_get(un, "added"), *rl = json_get(un, "rules");
			for (size_t i = 0; i < json_len(a); i++)
				if (json_at(a, i)->type == JSON_STRING)
					strbuf_addf(&sb, "%s%s", sb.len ? " " : "", json_at(a, i)->u.str.s);
			*flags = strbuf_detach(&sb, NULL);
			for (size_t i = 0; i < json_len(rl); i++)
				if (json_at(rl, i)->type == JSON_STRING)
					strbuf_addf(&sb, "%s%s", sb.len ? " " : "", json_at(rl, i)->u.str.s);
			*rules = strbuf_detach(&sb, NULL);
		}
		return;
	}
	for (size_t i = 0; i < s->nlog; i++)
		if (!strcmp(s->log[i].tu, tu)) {
			*flags = xstrdup(s->log[i].added);
			*rules = xstrdup(s->log[i].rules);
			return;
		}
}

/* What BOLT did to the row's function on a rewritten side: its symbols
 * in BOLT's new .text (moved), with a part in .text.cold (split), or left
 * in the original code (.bolt.org.text: unchanged). */
static char *row_bolt(const struct explain_side *s, const struct strmap *facts,
		      const struct explain_row *row)
{
	const struct symfacts *f;
	if (!s->bolt || *row->object || !(f = strmap_get(facts, row->key)))
		return NULL;
	if (f->split)
		return xstrdup("split (hot part moved, cold part in .text.cold)");
	if (f->moved)
		return xstrdup("moved (in BOLT's new .text)");
	if (f->kept)
		return xstrdup("unchanged (original code, .bolt.org.text)");
	return NULL;
}

/* Sizes, sections, unit, flags, policy lines and BOLT of every row. */
static void row_facts(struct explain_result *r, struct xgraph *g, struct explain_side sides[2])
{
	struct strmap facts[2] = { STRMAP_INIT, STRMAP_INIT };
	symbol_facts(&sides[0], &facts[0]);
	symbol_facts(&sides[1], &facts[1]);
	for (size_t i = 0; i < r->nr; i++) {
		struct explain_row *row = &r->rows[i];
		const struct explain_symrow *sr = *row->object ? NULL :
						  explain_symtab_find(&g->syms, row->key);
		for (int s = 0; s < 2 && sr; s++) {
			row->size[s] = sr->size[s];
			row->cold[s] = sr->cold[s];
			row->symbols[s] = xstrdup(sr->names[s]);
		}
		if (*row->object || !(row->present[0] || row->present[1]))
			continue;
		row->tu = row_tu(sides, row);
		if (!row->tu)
			row->tu = row_tu_from_symbols(sides, facts, row);
		for (int s = 0; s < 2; s++) {
			row->section[s] = row_section(&sides[s], row, s);
			row->bolt[s] = row_bolt(&sides[s], &facts[s], row);
			if (row->tu)
				unit_flags(&sides[s], row->tu, &row->flags[s], &row->rules[s]);
		}
	}
	symbol_facts_free(&facts[0]);
	symbol_facts_free(&facts[1]);
}

/* ---------------- a library row's callers ---------------- */

static double caller_change(const struct explain_caller *c)
{
	return fabs(c->incl[1] - c->incl[0]);
}

static int cmp_caller(const void *pa, const void *pb)
{
	const struct explain_caller *a = pa, *b = pb;
	if (caller_change(a) != caller_change(b))
		return caller_change(a) < caller_change(b) ? 1 : -1;
	return strcmp(a->caller, b->caller);
}

/* The callers of library row `to` on both sides, the largest changes of
 * their inclusive cost kept: a libc function's cost moves only with how
 * often, and with what, the builds call it. */
static void library_callers(struct explain_result *r, const struct xgraph *g, size_t to)
{
	struct explain_caller *all = NULL;
	size_t n = 0, alloc = 0;

	for (size_t from = 0; from < g->nr; from++) {
		const struct xg_edge *e[2] = { xg_edge(g, 0, from, to), xg_edge(g, 1, from, to) };
		if (from == to || (!e[0] && !e[1]))
			continue;
		ALLOC_GROW(all, n + 1, alloc);
		all[n].caller = r->rows[from].key;
		for (int s = 0; s < 2; s++) {
			all[n].calls[s] = e[s] ? e[s]->calls : 0;
			all[n].incl[s] = e[s] ? e[s]->incl.estimate : 0;
		}
		n++;
	}
	if (n)
		qsort(all, n, sizeof(*all), cmp_caller);
	if (n > EXPLAIN_CALLERS_MAX)
		n = EXPLAIN_CALLERS_MAX;
	for (size_t i = 0; i < n; i++)
		all[i].caller = xstrdup(all[i].caller);
	r->rows[to].callers = all;
	r->rows[to].ncallers = n;
}

void explain_decide(struct explain_result *r, struct xgraph *g, struct explain_side sides[2])
{
	const struct explain_sym *syms[2] = { sides[0].syms, sides[1].syms };
	size_t n[2] = { sides[0].nsyms, sides[1].nsyms };
	explain_symtab_build(&g->syms, syms, n, 0);
	one_sided(r, g, sides);
	row_facts(r, g, sides);
	for (size_t i = 0; i < r->nr; i++)
		if (*r->rows[i].object)
			library_callers(r, g, i);
}
