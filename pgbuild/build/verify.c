/*
 * verify.c - prove from the installed binary that every object in
 * `postgres` was compiled with exactly the flags its policy assigns, and
 * (with --baseline) show what the policy did to code size; see verify.h.
 *
 * Expected flags: the objects of postgres are taken from the link of
 * src/backend/postgres in the build's compile log (object files on the link
 * line, and the members of the static libraries on it).  Each object's
 * recorded compile is replayed through pgoptcc under the policy being
 * verified (PGOPT_PREFIX=true: pgoptcc computes the final command line, only
 * `true` runs), so the expectation comes from the policy file itself - give
 * --policy to check the binary against another policy than it was built
 * with.
 *
 * Recorded flags: the pgopt.so record of each translation unit inside the
 * binary (.pgopt.log, read with elfrec.h): what pgoptcc added and removed,
 * and the options cc1 really ran with.  This works for LTO builds too, where
 * the linker drops each object's .GCC.command.line but keeps the plugin's
 * record (it travels as a top-level asm statement with the IR).
 *
 * An object whose policy adds or removes flags must have a record whose
 * added/removed lists equal the expectation, and whose cc1 options contain
 * every added flag and no removed flag.  An object the policy leaves alone
 * must not carry added or removed flags.  Members of static libraries that
 * the linker did not pull in have no record and are only counted.  A
 * record in the binary whose translation unit matches no object on the
 * link line is reported as EXTRA.
 *
 * With --baseline: total text size, hot and unlikely code per function
 * (see hotcold_sizes(): a linked binary has no .text.hot/.text.unlikely
 * sections of its own), and the top growing and shrinking functions.
 *
 * Output: one line per problem (MISSING / EXTRA / NORECORD / NOTAPPLIED /
 * STILL), then the verdict line.  Exit 0 verified, 1 a mismatch, 2 error.
 */
#include <errno.h>
#include <elf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgbuild/build/buildlog.h"
#include "pgbuild/build/verify.h"
#include "pgbuild/build/verifysize.h"
#include "pgbuild/elf/elfrec.h"
#include "pgbuild/pgbuild.h"

/* One object of postgres and what is known about it. */
struct vobj {
	char *path;              /* absolute object path */
	int optional;            /* an archive member (may not be linked) */
	const struct buildlog_obj *compile; /* its recorded compile, or NULL */
	const struct buildlog_obj *expect;  /* replay under the policy, or NULL */
};

struct vobjs {
	struct vobj *v;
	size_t nr, alloc;
};

/* The link of postgres: the last link record whose output is "postgres"
 * in <builddir>/src/backend. */
struct link_find {
	char *backend;           /* <builddir>/src/backend */
	struct strvec inputs;    /* absolute .o and .a paths */
	int found;
};

static char *join_path(const char *dir, const char *p)
{
	char real[PATH_MAX];
	char *j = p[0] == '/' ? xstrdup(p) : xasprintf("%s/%s", dir, p);
	if (realpath(j, real)) {
		free(j);
		return xstrdup(real);
	}
	return j;
}

static int find_link(const struct json_value *rec, long line, void *data)
{
	struct link_find *lf = data;
	const char *kind = json_get_str(rec, "kind");
	const char *out = json_get_str(rec, "output");
	const char *cwd = json_get_str(rec, "cwd");
	const struct json_value *in = json_get(rec, "argv_in");
	(void)line;
	if (!kind || strcmp(kind, "link") || !out || strcmp(out, "postgres") || !cwd ||
	    strcmp(cwd, lf->backend) || json_get_num(rec, "exit", -1) != 0)
		return 0;
	strvec_clear(&lf->inputs);
	for (size_t i = 0; i < json_len(in); i++) {
		const struct json_value *a = json_at(in, i);
		size_t n;
		if (a->type != JSON_STRING || a->u.str.s[0] == '-')
			continue;
		n = strlen(a->u.str.s);
		if (n > 2 && (!strcmp(a->u.str.s + n - 2, ".o") || !strcmp(a->u.str.s + n - 2, ".a")))
			strvec_push_nodup(&lf->inputs, join_path(cwd, a->u.str.s));
	}
	lf->found = 1;
	return 0;
}

static void add_vobj(struct vobjs *vs, const char *path, int optional)
{
	ALLOC_GROW(vs->v, vs->nr + 1, vs->alloc);
	memset(&vs->v[vs->nr], 0, sizeof(vs->v[0]));
	vs->v[vs->nr].path = xstrdup(path);
	vs->v[vs->nr].optional = optional;
	vs->nr++;
}

/* Flags cc1 never sees literally (the driver translates or consumes them). */
static int driver_flag(const char *f)
{
	static const char *const prefixes[] = { "-flto", "-march=native", "-mtune=native",
		"-Wl,", "-l", "-L", "-fuse-linker-plugin", "-fplugin", "-pipe", "-save-temps",
		"-fuse-ld", "-B", "-specs", NULL };
	for (const char *const *p = prefixes; *p; p++)
		if (!strncmp(f, *p, strlen(*p)))
			return 1;
	return 0;
}

static int json_has_string(const struct json_value *arr, const char *s)
{
	for (size_t i = 0; i < json_len(arr); i++)
		if (json_at(arr, i)->type == JSON_STRING && !strcmp(json_at(arr, i)->u.str.s, s))
			return 1;
	return 0;
}

static int strvec_has(const struct strvec *sv, const char *s)
{
	return strvec_find(sv, s) >= 0;
}

/* A unit record of the binary, by translation unit name. */
struct unitref {
	const char *tu;
	const struct json_value *unit;
	int used;
};

static int cmp_unitref(const void *a, const void *b)
{
	return strcmp(((const struct unitref *)a)->tu, ((const struct unitref *)b)->tu);
}

static struct unitref *find_unit(struct unitref *v, size_t n, const char *tu)
{
	struct unitref key = { tu, NULL, 0 };
	return bsearch(&key, v, n, sizeof(*v), cmp_unitref);
}

/* Mark u and every record of the same translation unit next to it (a unit
 * recorded twice, e.g. compiled into two objects) as matched. */
static void mark_used(struct unitref *v, size_t n, struct unitref *u)
{
	if (!u)
		return;
	for (struct unitref *p = u; p >= v && !strcmp(p->tu, u->tu); p--)
		p->used = 1;
	for (struct unitref *p = u + 1; p < v + n && !strcmp(p->tu, u->tu); p++)
		p->used = 1;
}

/*
 * The .GCC.command.line entry of a translation unit (non-LTO builds keep
 * one per object; pgoptcc's changed compiles name the unit in the plugin
 * arguments), or NULL.
 */
static const char *gcc_cmdline_of(const struct elfrec_object *o, const char *tu)
{
	char *needle = xasprintf("-fplugin-arg-pgopt-tu=%s", tu);
	const char *r = NULL;
	size_t n = strlen(needle);
	for (size_t i = 0; i < o->ncmdlines && !r; i++) {
		const char *hit = strstr(o->cmdlines[i], needle);
		if (hit && (hit[n] == ' ' || hit[n] == '\0'))
			r = o->cmdlines[i];
	}
	free(needle);
	return r;
}

/* Is flag one blank-separated word of cmdline? */
static int has_word(const char *cmdline, const char *flag)
{
	size_t n = strlen(flag);
	for (const char *p = cmdline; (p = strstr(p, flag)); p++)
		if ((p == cmdline || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return 1;
	return 0;
}

/* ---------------- the check ---------------- */

/* Everything one verification works with. */
struct verify {
	const struct verify_opts *o;
	struct json_value *rec;      /* PREFIX/pgopt-build.json */
	char *builddir, *policy;     /* policy NULL: none */
	char *logfile;               /* the build's compile log */
	char *binary;                /* PREFIX/bin/postgres */
	struct link_find lf;         /* the link of postgres */
	struct buildlog_objs compiles; /* every object's last compile */
	struct buildlog_objs replay; /* those of postgres (shallow copies) */
	struct buildlog_objs expected; /* their replay under the policy */
	struct vobjs vs;             /* the objects of postgres */
	struct elfrec_file ef;       /* postgres */
	struct elfrec_unit *units;   /* its unit records */
	long nunits;
	struct unitref *refs;        /* compile-time unit records by tu */
	size_t nrefs;
	char *drydir;                /* scratch for the replay */
	long problems;               /* mismatches printed */
	long checked;                /* objects compared with their record */
	long with_flags;             /* ... of which the policy gives flags */
	long unlinked;               /* archive members the linker left out */
	long ltrans;                 /* link-time (LTO) unit records */
	long gcc_checked;            /* objects checked against .GCC.command.line too */
};

/* The build record, and what it says about the build directory, policy,
 * compile log and binary. */
static int load_record(struct verify *v)
{
	const struct verify_opts *o = v->o;
	char *recpath = xasprintf("%s/%s", o->prefix, BUILDLOG_RECORD);
	int rc = -1;

	if (access(recpath, F_OK) < 0) {
		error("--prefix \"%s\" has no %s: verify needs an install made by pgbuild build",
		      o->prefix, BUILDLOG_RECORD);
		goto out;
	}
	if (!(v->rec = buildlog_read_json(recpath)))
		goto out;
	v->builddir = xstrdup(o->builddir ? o->builddir : json_get_str(v->rec, "builddir") ?
			      json_get_str(v->rec, "builddir") : "");
	if (o->policy && !strcmp(o->policy, "none")) {
		v->policy = NULL;
	} else if (o->policy) {
		char real[PATH_MAX];
		if (!realpath(o->policy, real)) {
			error("--policy \"%s\": %s", o->policy, strerror(errno));
			goto out;
		}
		v->policy = xstrdup(real);
	} else if (json_get_str(json_get(v->rec, "policy"), "path")) {
		v->policy = xstrdup(json_get_str(json_get(v->rec, "policy"), "path"));
	}
	v->logfile = xasprintf("%s/pgopt-log/%s", v->builddir, BUILDLOG_COMPILE);
	if (access(v->logfile, R_OK) < 0) {
		error("no compile log %s (is --builddir right?)", v->logfile);
		goto out;
	}
	v->binary = xasprintf("%s/bin/postgres", o->prefix);
	rc = 0;
out:
	free(recpath);
	return rc;
}

/* 1. the objects of postgres: its link line's objects, and the members of
 * the static libraries on it (which the linker may not have pulled in). */
static int link_objects(struct verify *v)
{
	struct strbuf err = STRBUF_INIT;

	v->lf.backend = xasprintf("%s/src/backend", v->builddir);
	buildlog_each(v->logfile, 1, find_link, &v->lf);
	if (!v->lf.found)
		return error("the compile log %s records no link of %s/postgres", v->logfile,
			     v->lf.backend);
	for (size_t i = 0; i < v->lf.inputs.nr; i++) {
		const char *in = v->lf.inputs.v[i];
		struct elfrec_file af;
		char *dir;
		if (!strcmp(in + strlen(in) - 2, ".o")) {
			add_vobj(&v->vs, in, 0);
			continue;
		}
		dir = xstrdup(in);
		*strrchr(dir, '/') = '\0';
		strbuf_reset(&err);
		if (elfrec_open(in, &af, &err) == 0) {
			for (size_t k = 0; k < af.nr; k++)
				if (af.objs[k].member) {
					char *p = xasprintf("%s/%s", dir, af.objs[k].member);
					add_vobj(&v->vs, p, 1);
					free(p);
				}
			elfrec_release(&af);
		} else {
			warning("%s", err.buf);
		}
		free(dir);
	}
	strbuf_release(&err);
	return 0;
}

/* 2. what the policy assigns: replay each object's compile under it. */
static int replay_policy(struct verify *v)
{
	const struct json_value *e = json_get(v->rec, "environment");
	struct strvec env = STRVEC_INIT;
	char *drylog;
	int rc = -1;

	buildlog_objs_read(&v->compiles, v->logfile, NULL, NULL, 0);
	for (size_t i = 0; i < v->vs.nr; i++) {
		struct buildlog_obj *o = buildlog_objs_find(&v->compiles, v->vs.v[i].path);
		v->vs.v[i].compile = o;
		if (o) {
			ALLOC_GROW(v->replay.v, v->replay.nr + 1, v->replay.alloc);
			v->replay.v[v->replay.nr++] = *o; /* shallow: compiles owns the strings */
		} else if (!v->vs.v[i].optional) {
			warning("no recorded compile for %s", v->vs.v[i].path);
		}
	}
	for (size_t i = 0; e && e->type == JSON_OBJECT && i < e->u.list.nr; i++)
		if (e->u.list.items[i]->type == JSON_STRING &&
		    strcmp(e->u.list.keys[i], "PGOPT_POLICY") &&
		    strcmp(e->u.list.keys[i], "PGOPT_PREFIX") &&
		    strcmp(e->u.list.keys[i], "PGOPT_LOGDIR"))
			strvec_pushf(&env, "%s=%s", e->u.list.keys[i], e->u.list.items[i]->u.str.s);
	strvec_pushf(&env, "PGOPT_POLICY=%s", v->policy ? v->policy : "none");
	strvec_push(&env, "PGOPT_ROOT");
	v->drydir = xstrdup("/tmp/pgopt-verify.XXXXXX");
	if (!mkdtemp(v->drydir)) {
		error("cannot create a scratch directory: %s", strerror(errno));
		v->drydir[0] = '\0';
		strvec_clear(&env);
		return -1;
	}
	drylog = xasprintf("%s/%s", v->drydir, BUILDLOG_COMPILE);
	if (buildlog_replay(&v->replay, &env, (int)sysconf(_SC_NPROCESSORS_ONLN), v->drydir) < 0) {
		error("pgoptcc rejected the policy %s", v->policy ? v->policy : "none");
		goto out;
	}
	buildlog_objs_read(&v->expected, drylog, NULL, NULL, 0);
	for (size_t i = 0; i < v->vs.nr; i++)
		v->vs.v[i].expect = buildlog_objs_find(&v->expected, v->vs.v[i].path);
	rc = 0;
out:
	strvec_clear(&env);
	free(drylog);
	return rc;
}

/* 3. what the binary records: its unit records, by translation unit. */
static int read_binary(struct verify *v)
{
	struct strbuf err = STRBUF_INIT;
	int rc = -1;

	if (elfrec_open(v->binary, &v->ef, &err) < 0) {
		error("%s", err.buf);
		goto out;
	}
	strbuf_reset(&err);
	v->nunits = elfrec_units(&v->ef.objs[0], &v->units, &err);
	if (v->nunits < 0) {
		error("%s: corrupt .pgopt.log: %s", v->binary, err.buf);
		goto out;
	}
	v->refs = xcalloc((size_t)v->nunits + 1, sizeof(*v->refs));
	for (long i = 0; i < v->nunits; i++) {
		const char *tu = json_get_str(v->units[i].unit, "tu");
		if (elfrec_unit_is_link_time(v->units[i].unit)) {
			v->ltrans++;
			continue;
		}
		if (!tu)
			continue;
		v->refs[v->nrefs].tu = tu;
		v->refs[v->nrefs].unit = v->units[i].unit;
		v->nrefs++;
	}
	qsort(v->refs, v->nrefs, sizeof(*v->refs), cmp_unitref);
	rc = 0;
out:
	strbuf_release(&err);
	return rc;
}

/* Print the words of a JSON array of strings, blank-separated. */
static void print_json_words(const struct json_value *arr)
{
	for (size_t k = 0; k < json_len(arr); k++)
		printf("%s%s", k ? " " : "", json_at(arr, k)->u.str.s);
}

/* An object the policy leaves alone must record no added or removed flags. */
static int check_untouched(const struct verify *v, const struct buildlog_obj *ex,
			   const struct unitref *u)
{
	const struct json_value *added = u ? json_get(u->unit, "added") : NULL;
	const struct json_value *removed = u ? json_get(u->unit, "removed") : NULL;
	if (json_len(added) || json_len(removed)) {
		printf("EXTRA     %s: the policy assigns no flags, the binary records added [", ex->tu);
		print_json_words(added);
		printf("] removed [");
		print_json_words(removed);
		printf("]\n");
		return 1;
	}
	if (v->o->verbose)
		printf("ok        %s (no policy flags)\n", ex->tu);
	return 0;
}

/* The record's added/removed lists against the expectation, and cc1's
 * options against both.  1 when something is wrong (printed). */
static int check_flags(const struct buildlog_obj *ex, const struct json_value *unit)
{
	const struct json_value *added = json_get(unit, "added");
	const struct json_value *removed = json_get(unit, "removed");
	const struct json_value *cmdline = json_get(unit, "cmdline");
	int bad = 0;

	for (size_t k = 0; k < ex->added.nr; k++) {
		const char *f = ex->added.v[k];
		if (!json_has_string(added, f)) {
			printf("MISSING   %s: %s (the policy adds it; not recorded as added)\n", ex->tu, f);
			bad = 1;
		} else if (!driver_flag(f) && !json_has_string(cmdline, f)) {
			printf("NOTAPPLIED %s: %s (recorded as added, but cc1 ran without it)\n", ex->tu, f);
			bad = 1;
		}
	}
	for (size_t k = 0; k < json_len(added); k++)
		if (json_at(added, k)->type == JSON_STRING &&
		    !strvec_has(&ex->added, json_at(added, k)->u.str.s)) {
			printf("EXTRA     %s: %s (recorded as added; the policy does not add it)\n",
			       ex->tu, json_at(added, k)->u.str.s);
			bad = 1;
		}
	for (size_t k = 0; k < ex->removed.nr; k++) {
		const char *f = ex->removed.v[k];
		if (!json_has_string(removed, f)) {
			printf("MISSING   %s: -%s (the policy removes it; not recorded as removed)\n",
			       ex->tu, f);
			bad = 1;
		} else if (json_has_string(cmdline, f) && !strvec_has(&ex->added, f)) {
			printf("STILL     %s: %s (recorded as removed, but cc1 ran with it)\n", ex->tu, f);
			bad = 1;
		}
	}
	for (size_t k = 0; k < json_len(removed); k++)
		if (json_at(removed, k)->type == JSON_STRING &&
		    !strvec_has(&ex->removed, json_at(removed, k)->u.str.s)) {
			printf("EXTRA     %s: -%s (recorded as removed; the policy keeps it)\n",
			       ex->tu, json_at(removed, k)->u.str.s);
			bad = 1;
		}
	return bad;
}

/* A non-LTO binary also keeps each object's own command line. */
static int check_cmdline(struct verify *v, const struct buildlog_obj *ex)
{
	const char *gcl;
	int bad = 0;

	if (v->ltrans || !v->ef.objs[0].ncmdlines)
		return 0;
	gcl = gcc_cmdline_of(&v->ef.objs[0], ex->tu);
	if (!gcl) {
		printf("NOCMDLINE %s: no .GCC.command.line entry for it in postgres\n", ex->tu);
		return 1;
	}
	v->gcc_checked++;
	for (size_t k = 0; k < ex->added.nr; k++)
		if (!driver_flag(ex->added.v[k]) && !has_word(gcl, ex->added.v[k])) {
			printf("NOTAPPLIED %s: %s (absent from its .GCC.command.line)\n", ex->tu,
			       ex->added.v[k]);
			bad = 1;
		}
	return bad;
}

/* 4. every object against its record. */
static void compare_objects(struct verify *v)
{
	for (size_t i = 0; i < v->vs.nr; i++) {
		const struct vobj *vo = &v->vs.v[i];
		const struct buildlog_obj *ex = vo->expect;
		struct unitref *u;
		int bad;

		if (!vo->compile || !ex)
			continue;
		v->checked++;
		u = find_unit(v->refs, v->nrefs, ex->tu);
		mark_used(v->refs, v->nrefs, u);
		if (!ex->added.nr && !ex->removed.nr) {
			v->problems += check_untouched(v, ex, u);
			continue;
		}
		v->with_flags++;
		if (!u) {
			if (vo->optional) {
				v->unlinked++;
				v->with_flags--;
				continue;
			}
			printf("NORECORD  %s: the policy assigns flags but postgres holds no record of it\n",
			       ex->tu);
			v->problems++;
			continue;
		}
		bad = check_flags(ex, u->unit);
		bad |= check_cmdline(v, ex);
		if (bad)
			v->problems++;
		else if (v->o->verbose)
			printf("ok        %s\n", ex->tu);
	}
}

/* Records of translation units that no object on the link line was
 * compiled from: code the policy check never saw. */
static void extra_records(struct verify *v)
{
	for (size_t i = 0; i < v->vs.nr; i++)
		if (v->vs.v[i].compile)
			mark_used(v->refs, v->nrefs, find_unit(v->refs, v->nrefs, v->vs.v[i].compile->tu));
	for (size_t i = 0; i < v->nrefs; i++)
		if (!v->refs[i].used && (i == 0 || strcmp(v->refs[i].tu, v->refs[i - 1].tu))) {
			printf("EXTRA     %s: recorded in postgres, but no object on its link line "
			       "was compiled from it\n", v->refs[i].tu);
			v->problems++;
		}
}

static void print_verdict(const struct verify *v)
{
	printf("verify: %s: %ld objects of postgres checked against policy %s: %ld with "
	       "policy flags, %ld mismatches; %zu unit records%s",
	       v->problems ? "FAILED" : "OK", v->checked, v->policy ? v->policy : "none",
	       v->with_flags, v->problems, v->nrefs, v->ltrans ? "" : "\n");
	if (v->ltrans)
		printf(", %ld link-time (LTO) records\n", v->ltrans);
	verbose("%ld objects also checked against their .GCC.command.line", v->gcc_checked);
	if (v->unlinked)
		verbose("%ld archive members with policy flags were not linked into postgres",
			v->unlinked);
}

static void release(struct verify *v)
{
	if (v->drydir && v->drydir[0] && remove_tree(v->drydir) < 0)
		warning("cannot remove \"%s\": %s", v->drydir, strerror(errno));
	if (v->units)
		elfrec_units_free(v->units, (size_t)v->nunits);
	if (v->ef.path)
		elfrec_release(&v->ef);
	free(v->refs);
	free(v->replay.v); /* shallow copies */
	buildlog_objs_free(&v->compiles);
	buildlog_objs_free(&v->expected);
	for (size_t i = 0; i < v->vs.nr; i++)
		free(v->vs.v[i].path);
	free(v->vs.v);
	strvec_clear(&v->lf.inputs);
	free(v->lf.backend);
	json_free(v->rec);
	free(v->builddir);
	free(v->policy);
	free(v->logfile);
	free(v->binary);
	free(v->drydir);
}

int verify_run(const struct verify_opts *o)
{
	struct verify v;
	int rc = PGBUILD_EXIT_ERROR;

	memset(&v, 0, sizeof(v));
	v.o = o;
	strvec_init(&v.lf.inputs);
	if (load_record(&v) < 0 || link_objects(&v) < 0 || replay_policy(&v) < 0 ||
	    read_binary(&v) < 0)
		goto out;
	compare_objects(&v);
	extra_records(&v);
	if (o->baseline) {
		char *bb = xasprintf("%s/bin/postgres", o->baseline);
		int r = verifysize_compare(bb, &v.ef.objs[0], o->top);
		free(bb);
		if (r < 0)
			goto out;
	}
	print_verdict(&v);
	rc = v.problems ? PGBUILD_EXIT_FAIL : PGBUILD_EXIT_OK;
out:
	release(&v);
	return rc;
}
