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
 * with.  The log and the record are data, never commands: the compiler
 * pgoptcc asks is the caller's (PGOPT_CC, default gcc, on the caller's
 * PATH; the one the log or record names is compared, a mismatch warned
 * about), the replay's environment the caller's plus the checked names of
 * the record (buildlog_env: PGOPT_PROFILE, PGOPT_BUNDLE), and nothing
 * reaches a shell.
 *
 * Recorded flags: the pgopt.so record of each translation unit inside the
 * binary (.pgopt.log, read with elfrec.h): what pgoptcc added and removed,
 * and the options cc1 really ran with.  This works for LTO builds too, where
 * the linker drops each object's .GCC.command.line but keeps the plugin's
 * record (it travels as a top-level asm statement with the IR).
 *
 * A compiler pgopt.so cannot load into (clang) leaves no records: when the
 * binary holds none but keeps command lines (clang's -frecord-command-line
 * survives ThinLTO and lld: one per unit, the source path its last word),
 * each object is checked against the command line of its source instead
 * (every added flag present, no removed one), and the verdict says so.
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
 * A section of the policy that matched no translation unit of the build
 * fails the verification (UNMATCHED; --allow-unmatched: a warning).
 *
 * Output: one line per problem (UNMATCHED / MISSING / EXTRA / NORECORD /
 * NOTAPPLIED / STILL), then the verdict line.  Exit 0 verified, 1 a
 * mismatch, 2 error.
 */
#include <errno.h>
#include <elf.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgbuild/build/build.h"
#include "pgbuild/build/buildlog.h"
#include "pgbuild/build/verify.h"
#include "pgbuild/build/verifysrc.h"
#include "pgbuild/build/verifysize.h"
#include "pgbuild/elf/elfrec.h"
#include "pgbuild/pgbuild.h"
#include "wrapper/policy/policy.h"

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

/* The link of a binary: the last successful link record whose output is
 * target. */
struct link_find {
	const char *target;      /* absolute output path */
	const char *builddir;    /* where -lNAME archives are taken from, or NULL */
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
	const char *cwd = json_get_str(rec, "cwd");
	const struct json_value *in = json_get(rec, "argv_in");
	char *out;
	int match;
	(void)line;
	if (!buildlog_is_link(rec) || !cwd)
		return 0;
	out = buildlog_output_path(rec);
	match = out && !strcmp(out, lf->target);
	free(out);
	if (!match)
		return 0;
	strvec_clear(&lf->inputs);
	{
		struct strvec ldirs = STRVEC_INIT, libs = STRVEC_INIT;
		for (size_t i = 0; i < json_len(in); i++) {
			const struct json_value *a = json_at(in, i);
			const char *s;
			size_t n;
			if (a->type != JSON_STRING)
				continue;
			s = a->u.str.s;
			if (!strcmp(s, "-L") && i + 1 < json_len(in) &&
			    json_at(in, i + 1)->type == JSON_STRING) {
				strvec_push_nodup(&ldirs, join_path(cwd, json_at(in, ++i)->u.str.s));
				continue;
			}
			if (!strncmp(s, "-L", 2)) {
				strvec_push_nodup(&ldirs, join_path(cwd, s + 2));
				continue;
			}
			if (!strncmp(s, "-l", 2) && s[2] && s[2] != ':') {
				strvec_push(&libs, s + 2);
				continue;
			}
			if (s[0] == '-')
				continue;
			n = strlen(s);
			if (n > 2 && (!strcmp(s + n - 2, ".o") || !strcmp(s + n - 2, ".a")))
				strvec_push_nodup(&lf->inputs, join_path(cwd, s));
		}
		/* -lNAME: the static library the linker takes, searching the -L
		 * directories in order, where a shared one of the name comes first;
		 * only one inside the build directory (PostgreSQL's libpgcommon.a,
		 * libpgport.a: the others hold no object this build compiled) */
		for (size_t k = 0; k < libs.nr; k++)
			for (size_t d = 0; d < ldirs.nr; d++) {
				char *so = xasprintf("%s/lib%s.so", ldirs.v[d], libs.v[k]);
				char *ar = xasprintf("%s/lib%s.a", ldirs.v[d], libs.v[k]);
				int have_so = access(so, F_OK) == 0, have_ar = access(ar, F_OK) == 0;
				size_t bn = lf->builddir ? strlen(lf->builddir) : 0;
				if (have_ar && !have_so &&
				    (!bn || (!strncmp(ar, lf->builddir, bn) && ar[bn] == '/')))
					strvec_push_nodup(&lf->inputs, ar);
				else
					free(ar);
				free(so);
				if (have_so || have_ar)
					break;
			}
		strvec_clear(&ldirs);
		strvec_clear(&libs);
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
	/* warning options: -frecord-gcc-switches leaves them out of
	 * .GCC.command.line (pgbuild pgo's -Wno-error=coverage-mismatch) */
	return !strncmp(f, "-W", 2);
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

/* The recorded command line whose last word, the source, is the unit tu
 * (tu itself, or a path ending in "/tu": a VPATH build names its source
 * absolute), or NULL. */
static const char *source_cmdline_of(const struct elfrec_object *o, const char *tu)
{
	const char *base = strrchr(tu, '/'), *only = NULL;
	size_t n = strlen(tu), hits = 0;
	base = base ? base + 1 : tu;
	for (size_t i = 0; i < o->ncmdlines; i++) {
		const char *c = o->cmdlines[i], *last = strrchr(c, ' ');
		last = last ? last + 1 : c;
		if (!strcmp(last, tu) ||
		    (strlen(last) > n && last[strlen(last) - n - 1] == '/' &&
		     !strcmp(last + strlen(last) - n, tu)))
			return c;
		/* a source configure linked into the build tree (pg_sema.c),
		 * compiled by its bare name: taken when it is the only one */
		if (!strcmp(last, base) && !hits++)
			only = c;
	}
	return hits == 1 ? only : NULL;
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

/* Everything one verification works with: the build (src) and the binary
 * being checked (the rest, reset for each: reset_binary). */
struct verify {
	const struct verify_opts *o;
	struct verify_src src;       /* build directory, policy, log, binaries */
	char *cc;                    /* the compiler the replays ask: the caller's */
	struct buildlog_objs compiles; /* every object's last compile */
	long unmatched;              /* policy sections that matched no unit: the
				      * run fails, so no binary's line says OK
				      * (before link: reset_binary keeps it) */
	const char *link;            /* the link output being checked */
	const char *binary;          /* the file read for it */
	const char *name;            /* its base name, for messages */
	struct link_find lf;         /* its link */
	struct buildlog_objs replay; /* the compiles of its objects (shallow copies) */
	struct buildlog_objs expected; /* their replay under the policy */
	struct vobjs vs;             /* its objects */
	struct elfrec_file ef;       /* the binary */
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
	int cmdline_only;            /* no unit records, command lines: no plugin ran */
};

/*
 * The object an archive member was made from: DIR/MEMBER next to the
 * archive (PostgreSQL's layout), else the one compiled object of that name
 * elsewhere (an archive of objects in other directories).  Malloced.
 */
static char *member_object(struct verify *v, const char *dir, const char *member)
{
	char *p = xasprintf("%s/%s", dir, member);
	const char *hit = NULL;
	size_t n = strlen(member), hits = 0;

	if (buildlog_objs_find(&v->compiles, p))
		return p;
	for (size_t i = 0; i < v->compiles.nr; i++) {
		const char *c = v->compiles.v[i].path;
		size_t cn = strlen(c);
		if (cn > n && c[cn - n - 1] == '/' && !strcmp(c + cn - n, member)) {
			hit = c;
			hits++;
		}
	}
	if (hits != 1)
		return p;
	free(p);
	return xstrdup(hit);
}

/* 1. the objects of the binary: its link line's objects, and the members of
 * the static libraries on it (which the linker may not have pulled in). */
static int link_objects(struct verify *v)
{
	struct strbuf err = STRBUF_INIT;
	char real[PATH_MAX];

	v->lf.target = v->link;
	v->lf.builddir = v->src.builddir && realpath(v->src.builddir, real) ? real : v->src.builddir;
	buildlog_each(v->src.logfile, 1, find_link, &v->lf, NULL);
	v->lf.builddir = NULL;
	if (!v->lf.found)
		return error("the compile log %s records no link of %s", v->src.logfile, v->link);
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
					char *p = member_object(v, dir, af.objs[k].member);
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
	struct strvec env = STRVEC_INIT;
	char *drylog;
	int rc = -1;

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
	strvec_pushv(&env, (const char *const *)v->src.env.v);
	strvec_pushf(&env, "PGOPT_POLICY=%s", v->src.policy ? v->src.policy : "none");
	strvec_push(&env, "PGOPT_ROOT");
	v->drydir = xstrdup("/tmp/pgopt-verify.XXXXXX");
	if (!mkdtemp(v->drydir)) {
		error("cannot create a scratch directory: %s", strerror(errno));
		v->drydir[0] = '\0';
		strvec_clear(&env);
		return -1;
	}
	drylog = xasprintf("%s/%s", v->drydir, BUILDLOG_COMPILE);
	if (buildlog_replay(&v->replay, v->cc, &env, (int)sysconf(_SC_NPROCESSORS_ONLN),
			    v->drydir) < 0) {
		error("pgoptcc rejected the policy %s", v->src.policy ? v->src.policy : "none");
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

/* Every flag the policy adds to ex (but the driver's) is a word of the
 * command line cl (what: where it was read); 1 after NOTAPPLIED lines. */
static int check_added(const char *cl, const struct buildlog_obj *ex, const char *what)
{
	int bad = 0;
	for (size_t k = 0; k < ex->added.nr; k++)
		if (!driver_flag(ex->added.v[k]) && !has_word(cl, ex->added.v[k])) {
			printf("NOTAPPLIED %s: %s (absent from its %s)\n", ex->tu, ex->added.v[k], what);
			bad = 1;
		}
	return bad;
}

/* A non-LTO binary also keeps each object's own command line. */
static int check_cmdline(struct verify *v, const struct buildlog_obj *ex)
{
	const char *gcl;

	if (v->ltrans || !v->ef.objs[0].ncmdlines)
		return 0;
	gcl = gcc_cmdline_of(&v->ef.objs[0], ex->tu);
	if (!gcl) {
		printf("NOCMDLINE %s: no .GCC.command.line entry for it in %s\n", ex->tu, v->name);
		return 1;
	}
	v->gcc_checked++;
	return check_added(gcl, ex, ".GCC.command.line");
}

/* Without pgopt.so (clang): the object's own recorded command line holds
 * every flag the policy adds and none it removes. */
static int check_cmdline_only(struct verify *v, const struct buildlog_obj *ex)
{
	const char *cl = source_cmdline_of(&v->ef.objs[0], ex->tu);
	int bad = 0;

	if (!cl) {
		printf("NOCMDLINE %s: no recorded command line compiles it in %s\n", ex->tu, v->name);
		return 1;
	}
	v->gcc_checked++;
	bad = check_added(cl, ex, "recorded command line");
	for (size_t k = 0; k < ex->removed.nr; k++)
		if (has_word(cl, ex->removed.v[k])) {
			printf("STILL     %s: %s (the policy removes it; its command line has it)\n",
			       ex->tu, ex->removed.v[k]);
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
		if (v->cmdline_only) {
			if (vo->optional && !source_cmdline_of(&v->ef.objs[0], ex->tu)) {
				v->unlinked++;
				v->with_flags--;
			} else if (check_cmdline_only(v, ex))
				v->problems++;
			else if (v->o->verbose)
				printf("ok        %s\n", ex->tu);
			continue;
		}
		if (!u) {
			if (vo->optional) {
				v->unlinked++;
				v->with_flags--;
				continue;
			}
			printf("NORECORD  %s: the policy assigns flags but %s holds no record of it\n",
			       ex->tu, v->name);
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
			printf("EXTRA     %s: recorded in %s, but no object on its link line "
			       "was compiled from it\n", v->refs[i].tu, v->name);
			v->problems++;
		}
}

/* The binary's verdict line (with --quiet only a FAILED one) and notes. */
static void print_verdict(const struct verify *v)
{
	if (v->o->quiet && !v->problems)
		return;
	printf("verify: %s: %ld objects of %s checked against policy %s: %ld with "
	       "policy flags, %ld mismatches; %zu unit records%s",
	       v->problems ? "FAILED" : v->unmatched > 0 ? "flags as the policy says" : "OK",
	       v->checked, v->name,
	       v->src.policy ? v->src.policy : "none",
	       v->with_flags, v->problems, v->nrefs, v->ltrans ? "" : "\n");
	if (v->ltrans)
		printf(", %ld link-time (LTO) records\n", v->ltrans);
	if (v->cmdline_only && !v->o->quiet)
		printf("verify: no pgopt.so ran (a compiler it cannot load into): %ld objects "
		       "checked against the command lines %s records instead; no per-function "
		       "records\n", v->gcc_checked, v->name);
	verbose("%ld objects also checked against their .GCC.command.line", v->gcc_checked);
	if (v->unlinked)
		verbose("%ld archive members with policy flags were not linked into postgres",
			v->unlinked);
}

/* Forget the binary just checked (the build stays). */
static void reset_binary(struct verify *v)
{
	if (v->drydir && v->drydir[0] && remove_tree(v->drydir) < 0)
		warning("cannot remove \"%s\": %s", v->drydir, strerror(errno));
	if (v->units)
		elfrec_units_free(v->units, (size_t)v->nunits);
	if (v->ef.path)
		elfrec_release(&v->ef);
	free(v->refs);
	free(v->replay.v); /* shallow copies */
	buildlog_objs_free(&v->expected);
	for (size_t i = 0; i < v->vs.nr; i++)
		free(v->vs.v[i].path);
	free(v->vs.v);
	strvec_clear(&v->lf.inputs);
	free(v->drydir);
	memset(&v->link, 0, sizeof(*v) - offsetof(struct verify, link));
	strvec_init(&v->lf.inputs);
}

/* Check one binary made by the link of link; the exit code. */
static int verify_binary(struct verify *v, const char *link, const char *binary)
{
	const char *slash = strrchr(link, '/');
	int rc = PGBUILD_EXIT_ERROR;

	v->link = link;
	v->binary = binary;
	v->name = slash ? slash + 1 : link;
	if (link_objects(v) < 0 || replay_policy(v) < 0 || read_binary(v) < 0)
		return rc;
	v->cmdline_only = v->nunits == 0 && v->ef.objs[0].ncmdlines > 0;
	compare_objects(v);
	extra_records(v);
	if (v->o->baseline) {
		char *bb = xasprintf("%s/bin/%s", v->o->baseline, v->name);
		int r = verifysize_compare(bb, &v->ef.objs[0], v->o->top);
		free(bb);
		if (r < 0)
			return rc;
	}
	print_verdict(v);
	return v->problems ? PGBUILD_EXIT_FAIL : PGBUILD_EXIT_OK;
}

/* Do the programs a and b (a bare name: on the caller's PATH) resolve to
 * one file?  Only looked up, never run. */
static int same_program(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];
	char *pa = locate_in_path(a), *pb = locate_in_path(b);
	int same = pa && pb && realpath(pa, ra) && realpath(pb, rb) ? !strcmp(ra, rb) :
		   !strcmp(a, b);
	free(pa);
	free(pb);
	return same;
}

/*
 * The compiler the replays ask (pgoptcc's answer depends on it: clang's
 * profile and LTO flags differ): the caller's, PGOPT_CC or gcc, found on
 * the caller's PATH, as pgbuild build finds it - never one the build
 * record or the compile log names, which are only compared, a mismatch
 * warned about.  0, or -1 after the error.
 */
static int replay_compiler(struct verify *v)
{
	const char *name = build_compiler();
	struct strvec seen = STRVEC_INIT;

	if (!(v->cc = locate_in_path(name)))
		return error("cannot find the compiler \"%s\" to replay the build's compiles with "
			     "(PGOPT_CC names the compiler, default gcc on PATH)", name);
	if (v->src.record_cc && !same_program(v->src.record_cc, v->cc))
		warning("the build record %s names the compiler %s, replaying with %s (the "
			"caller's: PGOPT_CC, default gcc)", v->src.record, v->src.record_cc, v->cc);
	for (size_t i = 0; i < v->compiles.nr; i++) {
		const char *c = v->compiles.v[i].compiler;
		long n = 0;
		if (!c || strvec_find(&seen, c) >= 0)
			continue;
		strvec_push(&seen, c);
		if (same_program(c, v->cc))
			continue;
		for (size_t k = i; k < v->compiles.nr; k++)
			n += v->compiles.v[k].compiler && !strcmp(v->compiles.v[k].compiler, c);
		warning("the compile log %s names the compiler %s (%ld compiles), replaying with "
			"%s (the caller's: PGOPT_CC, default gcc)", v->src.logfile, c, n, v->cc);
	}
	strvec_clear(&seen);
	return 0;
}

/* The sections of policy that none of the compiles in os (those in
 * builddir, when given) matched; see verify.h. */
static long unmatched_in(const char *policy, const struct buildlog_objs *os, const char *builddir,
			 struct strvec *out)
{
	struct strbuf err = STRBUF_INIT;
	const char **tus = xcalloc(os->nr + 1, sizeof(*tus));
	size_t n = 0, blen = builddir ? strlen(builddir) : 0;
	struct policy p;
	long r = -1;

	/* the sections and globs only: what the policy may do was checked
	 * by the build and is checked by the replay */
	if (policy_load(&p, policy, POLICY_UNCHECKED, &err) < 0) {
		error("%s", err.buf);
		goto out;
	}
	for (size_t i = 0; i < os->nr; i++)
		if (!blen || (!strncmp(os->v[i].cwd, builddir, blen) &&
			      (os->v[i].cwd[blen] == '/' || !os->v[i].cwd[blen])))
			tus[n++] = os->v[i].tu;
	r = (long)policy_unmatched(&p, tus, n, out);
out:
	policy_release(&p);
	free(tus);
	strbuf_release(&err);
	return r;
}

long verify_unmatched(const char *policy, const char *logfile, const char *builddir,
		      struct strvec *out)
{
	struct buildlog_objs os = { 0 };
	long r;

	buildlog_objs_read(&os, logfile, NULL, NULL, 0);
	r = unmatched_in(policy, &os, builddir, out);
	buildlog_objs_free(&os);
	return r;
}

/* The policy's sections that matched no unit of the build: UNMATCHED
 * lines (or warnings, --allow-unmatched); how many count as problems, or
 * -1 after an error. */
static long check_unmatched(struct verify *v)
{
	struct strvec lines = STRVEC_INIT;
	long n;

	if (!v->src.policy)
		return 0;
	n = unmatched_in(v->src.policy, &v->compiles, v->src.builddir, &lines);
	for (size_t i = 0; i < lines.nr; i++) {
		if (v->o->allow_unmatched)
			warning("%s (allowed: --allow-unmatched)", lines.v[i]);
		else
			printf("UNMATCHED %s\n", lines.v[i]);
	}
	strvec_clear(&lines);
	return n > 0 && v->o->allow_unmatched ? 0 : n;
}

int verify_run(const struct verify_opts *o)
{
	struct verify v;
	long checked = 0, problems = 0, failed = 0, unmatched = 0;
	int rc = PGBUILD_EXIT_OK;

	memset(&v, 0, sizeof(v));
	v.o = o;
	strvec_init(&v.lf.inputs);
	if (verifysrc_load(o, &v.src) < 0) {
		verifysrc_release(&v.src);
		return PGBUILD_EXIT_ERROR;
	}
	if (v.src.weakened.nr && !o->quiet) {
		printf("verify: the policy weakens the build's hardening, as its caller allowed "
		       "(PGOPT_WEAKEN): ");
		for (size_t i = 0; i < v.src.weakened.nr; i++)
			printf("%s%s", i ? ", " : "", v.src.weakened.v[i]);
		printf("\n");
	}
	buildlog_objs_read(&v.compiles, v.src.logfile, NULL, NULL, 0);
	if ((unmatched = check_unmatched(&v)) < 0 || replay_compiler(&v) < 0)
		rc = PGBUILD_EXIT_ERROR;
	v.unmatched = unmatched;
	for (size_t i = 0; i < v.src.links.nr && rc != PGBUILD_EXIT_ERROR; i++) {
		int r = verify_binary(&v, v.src.links.v[i], v.src.binaries.v[i]);
		checked += v.checked;
		problems += v.problems;
		failed += r != PGBUILD_EXIT_OK;
		if (r > rc)
			rc = r;
		reset_binary(&v);
	}
	if (rc != PGBUILD_EXIT_ERROR && v.src.links.nr > 1 && (problems || !o->quiet))
		printf("verify: %s: %zu binaries of %s, %ld objects checked against policy %s: "
		       "%ld mismatches in %ld binaries\n",
		       problems ? "FAILED" : unmatched > 0 ? "flags as the policy says" : "OK",
		       v.src.links.nr, v.src.builddir, checked,
		       v.src.policy ? v.src.policy : "none", problems, failed);
	if (rc != PGBUILD_EXIT_ERROR && unmatched > 0) {
		printf("verify: FAILED: %ld section glob%s of policy %s matched no translation "
		       "unit of the build (UNMATCHED above; --allow-unmatched if that is "
		       "expected)\n", unmatched, unmatched == 1 ? "" : "s", v.src.policy);
		rc = PGBUILD_EXIT_FAIL;
	}
	buildlog_objs_free(&v.compiles);
	verifysrc_release(&v.src);
	free(v.cc);
	return rc;
}
