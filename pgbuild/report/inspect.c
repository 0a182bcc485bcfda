/*
 * inspect.c - print the optimization record that pgoptcc and pgopt.so left
 * inside objects, archives, executables and shared libraries (`pgbuild
 * inspect`); see inspect.h.
 *
 * Per translation unit: the recorded command line (.GCC.command.line, or
 * the plugin's own copy for LTO objects, whose .GCC.command.line the linker
 * drops), what pgoptcc added and removed and which policy rules matched;
 * per function: size (ELF symbol size, and GCC's estimate), inlined call
 * sites, calls left alone with GCC's reason, attributes and text section.
 *
 *   pgbuild inspect aset.o                 table per unit and function
 *   pgbuild inspect --units postgres       one line per unit
 *   pgbuild inspect --json - postgres      one JSON document (on stdout)
 *   pgbuild inspect --sites aset.o         one line per inlined call site
 *
 * Exit: 0 printed, 1 a file holds no pgopt record, or nothing matched
 * --function/--tu (a sentence says which), 2 unreadable or corrupt input /
 * bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/elf/elfrec.h"
#include "pgbuild/report/inspect.h"
#include "pgbuild/pgbuild.h"

static const char *str_or(const char *s, const char *def)
{
	return s ? s : def;
}

static int is_header(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	return n > 2 && path[n - 2] == '.' && path[n - 1] == 'h';
}

/* A site inlines a function defined in another .c file (cross-object). */
static int site_cross_file(const struct json_value *site)
{
	const char *cf = json_get_str(site, "callee_file");
	return cf && !is_header(cf);
}

static int fn_selected(const struct inspect_opts *o, const struct json_value *fn)
{
	const char *name = json_get_str(fn, "name");
	const char *src = json_get_str(fn, "source_name");
	if (!o->function)
		return 1;
	return (name && !strcmp(name, o->function)) ||
	       (src && !strcmp(src, o->function));
}

static int unit_selected(const struct inspect_opts *o, const struct json_value *unit)
{
	const char *tu = json_get_str(unit, "tu");
	return !o->tu || (tu && !strcmp(tu, o->tu));
}

/* The most common refusal reason of a function ("reason (N)"), or "". */
static void top_refusal(const struct json_value *fn, struct strbuf *out)
{
	const struct json_value *ni = json_get(fn, "not_inlined");
	const char *best = NULL;
	double best_n = 0;
	strbuf_reset(out);
	for (size_t i = 0; i < json_len(ni); i++) {
		const struct json_value *r = json_at(ni, i);
		const char *reason = json_get_str(r, "reason");
		double n = 0;
		if (!reason)
			continue;
		/* sum over callees with the same reason */
		for (size_t k = 0; k < json_len(ni); k++) {
			const char *rk = json_get_str(json_at(ni, k), "reason");
			if (rk && !strcmp(rk, reason))
				n += json_get_num(json_at(ni, k), "count", 1);
		}
		if (n > best_n) {
			best_n = n;
			best = reason;
		}
	}
	if (best)
		strbuf_addf(out, "%s (%.0f)", best, best_n);
}

static long count_refused(const struct json_value *fn)
{
	const struct json_value *ni = json_get(fn, "not_inlined");
	long n = 0;
	for (size_t i = 0; i < json_len(ni); i++)
		n += (long)json_get_num(json_at(ni, i), "count", 1);
	return n;
}

/* The command line of a unit: the plugin's copy, else .GCC.command.line. */
static void unit_flags(const struct elfrec_object *obj, const struct json_value *unit,
		       size_t nunits, struct strvec *flags)
{
	const struct json_value *cl = unit ? json_get(unit, "cmdline") : NULL;
	if (cl && json_len(cl)) {
		for (size_t i = 0; i < json_len(cl); i++) {
			const struct json_value *s = json_at(cl, i);
			if (s && s->type == JSON_STRING)
				strvec_push(flags, s->u.str.s);
		}
		return;
	}
	/* an object's own command line belongs to its single unit */
	if (nunits <= 1 && obj->ncmdlines == 1)
		strvec_split(flags, obj->cmdlines[0]);
}

static void print_words(FILE *fp, const char *label, const struct json_value *arr)
{
	if (!json_len(arr))
		return;
	fprintf(fp, "   %s:", label);
	for (size_t i = 0; i < json_len(arr); i++) {
		const struct json_value *s = json_at(arr, i);
		if (s && s->type == JSON_STRING)
			fprintf(fp, " %s", s->u.str.s);
	}
	fputc('\n', fp);
}

static void human_unit(const struct inspect_opts *o, const char *path,
		       const struct elfrec_object *obj, const struct elfrec_unit *u,
		       size_t nunits, struct inspect_totals *t)
{
	const struct json_value *unit = u->unit;
	struct strvec flags = STRVEC_INIT;
	struct strbuf top = STRBUF_INIT;
	long sites = 0, link_sites = 0, cross = 0, refused = 0, nfn = 0;

	for (size_t i = 0; i < u->nfns; i++) {
		const struct json_value *fn = u->fns[i];
		const struct json_value *in = json_get(fn, "inlined");
		if (!fn_selected(o, fn))
			continue;
		nfn++;
		sites += (long)json_len(in);
		for (size_t k = 0; k < json_len(in); k++) {
			const char *stage = json_get_str(json_at(in, k), "stage");
			if (stage && !strcmp(stage, "lto")) {
				link_sites++;
				cross += site_cross_file(json_at(in, k));
			}
		}
		refused += count_refused(fn);
	}
	t->units++;
	t->functions += nfn;
	t->matched += nfn;
	t->sites += sites;
	t->link_sites += link_sites;
	t->cross_sites += cross;
	t->refused += refused;
	if (o->function && !nfn)
		return;

	if (o->units_only) {
		printf("%-44s %-11s %6ld fn %7ld inlined %7ld calls",
		       str_or(json_get_str(unit, "tu"), "?"),
		       str_or(json_get_str(unit, "stage"), "?"), nfn, sites, refused);
		if (link_sites)
			printf("  (link-time %ld, cross-file %ld)", link_sites, cross);
		putchar('\n');
		return;
	}
	printf("== %s%s%s%s: %s (%s, gcc %s, pgopt %s)\n", path,
	       obj->member ? "(" : "", obj->member ? obj->member : "",
	       obj->member ? ")" : "", str_or(json_get_str(unit, "tu"), "?"),
	       str_or(json_get_str(unit, "stage"), "?"),
	       str_or(json_get_str(unit, "gcc"), "?"),
	       str_or(json_get_str(unit, "plugin"), "?"));
	unit_flags(obj, unit, nunits, &flags);
	if (flags.nr) {
		printf("   flags:");
		for (size_t i = 0; i < flags.nr; i++)
			printf(" %s", flags.v[i]);
		putchar('\n');
	}
	print_words(stdout, "added", json_get(unit, "added"));
	print_words(stdout, "removed", json_get(unit, "removed"));
	print_words(stdout, "rules", json_get(unit, "rules"));
	if (link_sites)
		printf("   link-time inlining: %ld call sites, %ld from other source files\n",
		       link_sites, cross);
	printf("   %-36s %7s %6s %7s %5s  %-15s %s\n", "FUNCTION", "BYTES", "EST",
	       "INLINED", "CALLS", "SECTION", "TOP REFUSAL");
	for (size_t i = 0; i < u->nfns; i++) {
		const struct json_value *fn = u->fns[i];
		const char *name = str_or(json_get_str(fn, "name"), "?");
		const struct elfrec_func *sym;
		char bytes[32] = "-";
		if (!fn_selected(o, fn))
			continue;
		sym = elfrec_record_func(obj, unit, fn);
		if (sym)
			snprintf(bytes, sizeof(bytes), "%llu", (unsigned long long)sym->size);
		top_refusal(fn, &top);
		if (json_get(fn, "emitted")) /* body removed after early inlining */
			printf("   %-36s %7s %6s %7zu %5s  %-15s %s\n", name, "-", "-",
			       json_len(json_get(fn, "inlined")), "-", "(removed)", "");
		else
			printf("   %-36s %7s %6.0f %7zu %5ld  %-15s %s\n", name, bytes,
			       json_get_num(fn, "size", -1), json_len(json_get(fn, "inlined")),
			       count_refused(fn), str_or(json_get_str(fn, "section"), "-"),
			       top.buf);
	}
	strvec_clear(&flags);
	strbuf_release(&top);
}

static void sites_unit(const struct inspect_opts *o, const struct elfrec_unit *u,
		       struct inspect_totals *t)
{
	const char *tu = str_or(json_get_str(u->unit, "tu"), "?");
	for (size_t i = 0; i < u->nfns; i++) {
		const struct json_value *fn = u->fns[i];
		const struct json_value *in = json_get(fn, "inlined");
		const char *fn_file = str_or(json_get_str(fn, "file"), "?");
		if (!fn_selected(o, fn))
			continue;
		t->matched++;
		for (size_t k = 0; k < json_len(in); k++) {
			const struct json_value *s = json_at(in, k);
			printf("%s\t%s\t%s:%.0f:%.0f\t%s\t%s\n", tu,
			       str_or(json_get_str(fn, "name"), "?"),
			       str_or(json_get_str(s, "file"), fn_file),
			       json_get_num(s, "line", 0), json_get_num(s, "col", 0),
			       str_or(json_get_str(s, "callee"), "?"),
			       str_or(json_get_str(s, "stage"), "?"));
		}
	}
}

static void json_unit(const struct inspect_opts *o, struct json_writer *jw,
		      const char *path, const struct elfrec_object *obj,
		      const struct elfrec_unit *u, size_t nunits,
		      struct inspect_totals *t)
{
	static const char *const copy_keys[] = { "stage", "partition", "gcc", "plugin",
						 "added", "removed", "rules", "opt",
						 "marked_hot", "marked_cold" };
	static const char *const fn_keys[] = { "source_name", "file", "line", "O",
					       "flags", "params", "size_early",
					       "inlined", "not_inlined", "clone_of",
					       "clone_kind", "attributes", "frequency",
					       "marked", "section", "emitted" };
	struct strvec flags = STRVEC_INIT;
	t->units++;
	json_object_begin(jw);
	json_key(jw, "file");
	json_string(jw, path);
	json_key(jw, "tu");
	if (u->unit)
		json_value_write(jw, json_get(u->unit, "tu"));
	else
		json_null(jw);
	json_key(jw, "object");
	json_string(jw, obj->member);
	for (size_t i = 0; u->unit && i < sizeof(copy_keys) / sizeof(*copy_keys); i++) {
		const struct json_value *v = json_get(u->unit, copy_keys[i]);
		if (!v)
			continue;
		json_key(jw, copy_keys[i]);
		json_value_write(jw, v);
	}
	unit_flags(obj, u->unit, nunits, &flags);
	json_key(jw, "flags");
	json_strvec(jw, &flags);
	strvec_clear(&flags);

	json_key(jw, "functions");
	json_array_begin(jw);
	if (u->unit) {
		for (size_t i = 0; i < u->nfns; i++) {
			const struct json_value *fn = u->fns[i];
			const char *name = json_get_str(fn, "name");
			const struct elfrec_func *sym;
			if (!fn_selected(o, fn))
				continue;
			t->functions++;
			t->matched++;
			sym = elfrec_record_func(obj, u->unit, fn);
			json_object_begin(jw);
			json_key(jw, "name");
			json_string(jw, name);
			json_key(jw, "size");
			if (sym)
				json_int(jw, (int64_t)sym->size);
			else
				json_null(jw);
			json_key(jw, "size_est");
			json_value_write(jw, json_get(fn, "size"));
			json_key(jw, "elf_section");
			json_string(jw, sym ? sym->section : NULL);
			for (size_t k = 0; k < sizeof(fn_keys) / sizeof(*fn_keys); k++) {
				const char *key = fn_keys[k];
				const struct json_value *v = json_get(fn, key);
				/* the plugin leaves out what equals the unit's
				 * options and the defaults; spell them out here */
				if (!v && (!strcmp(key, "O") || !strcmp(key, "flags") ||
					   !strcmp(key, "params")))
					v = json_get(json_get(u->unit, "opt"), key);
				if (!v && !strcmp(key, "attributes")) {
					json_key(jw, key);
					json_array_begin(jw);
					json_array_end(jw);
					continue;
				}
				if (!v && !strcmp(key, "frequency")) {
					json_key(jw, key);
					json_string(jw, "normal");
					continue;
				}
				if (!v && !strcmp(key, "clone_of")) {
					json_key(jw, key);
					json_null(jw);
					continue;
				}
				if (!v)
					continue;
				json_key(jw, key);
				json_value_write(jw, v);
			}
			json_object_end(jw);
		}
	} else {
		/* no plugin record: what the symbol table says */
		for (size_t i = 0; i < obj->nfuncs; i++) {
			const struct elfrec_func *f = &obj->funcs[i];
			if (!f->section[0] || (o->function && strcmp(f->name, o->function)))
				continue;
			json_object_begin(jw);
			json_key(jw, "name");
			json_string(jw, f->name);
			json_key(jw, "size");
			json_int(jw, (int64_t)f->size);
			json_key(jw, "section");
			json_string(jw, f->section);
			json_object_end(jw);
		}
	}
	json_array_end(jw);
	json_object_end(jw);
}

int inspect_file(const struct inspect_opts *o, const char *path,
			struct json_writer *jw, struct json_writer *fw,
			struct inspect_totals *t)
{
	struct elfrec_file f;
	struct strbuf err = STRBUF_INIT;
	int records = 0, rc = 0;

	if (elfrec_open(path, &f, &err) < 0) {
		error("%s", err.buf);
		strbuf_release(&err);
		return PGBUILD_EXIT_ERROR;
	}
	if (jw) {
		/* per-file facts go to the "files" list */
		json_object_begin(fw);
		json_key(fw, "file");
		json_string(fw, path);
		json_key(fw, "archive");
		json_bool(fw, f.is_archive);
		json_key(fw, "objects");
		json_int(fw, (int64_t)f.nr);
		json_key(fw, "command_lines");
		json_array_begin(fw);
		for (size_t i = 0; i < f.nr; i++)
			for (size_t k = 0; k < f.objs[i].ncmdlines; k++)
				json_string(fw, f.objs[i].cmdlines[k]);
		json_array_end(fw);
		json_object_end(fw);
	}
	for (size_t i = 0; i < f.nr; i++) {
		const struct elfrec_object *obj = &f.objs[i];
		struct elfrec_unit *units = NULL;
		long n = elfrec_units(obj, &units, &err);
		if (n < 0) {
			error("%s%s%s%s: %s", path, obj->member ? "(" : "",
			      obj->member ? obj->member : "", obj->member ? ")" : "",
			      err.buf);
			rc = PGBUILD_EXIT_ERROR;
			break;
		}
		records += n > 0;
		if (n == 0 && jw && !o->function && !o->tu) {
			/* an object compiled without the plugin still has a unit */
			struct elfrec_unit none = { NULL, NULL, 0 };
			json_unit(o, jw, path, obj, &none, 0, t);
		} else if (n == 0 && !jw && !o->sites && !o->units_only && !o->tu &&
			   obj->ncmdlines) {
			printf("== %s%s%s%s: no pgopt record\n   flags: %s\n", path,
			       obj->member ? "(" : "", obj->member ? obj->member : "",
			       obj->member ? ")" : "", obj->cmdlines[0]);
		}
		for (long k = 0; k < n; k++) {
			if (!unit_selected(o, units[k].unit))
				continue;
			if (jw)
				json_unit(o, jw, path, obj, &units[k], (size_t)n, t);
			else if (o->sites)
				sites_unit(o, &units[k], t);
			else
				human_unit(o, path, obj, &units[k], (size_t)n, t);
		}
		elfrec_units_free(units, (size_t)n);
	}
	if (!rc && !records) {
		error("%s: no pgopt record (.pgopt.log): was it compiled through pgoptcc "
		      "with the plugin?", path);
		rc = PGBUILD_EXIT_FAIL;
	}
	elfrec_release(&f);
	strbuf_release(&err);
	return rc;
}
