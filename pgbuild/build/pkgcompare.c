/*
 * pkgcompare.c - what a package build links against the archive's
 * package: needed libraries, symbols left undefined, exports, file by
 * file; see pkgcompare.h.
 *
 * Each side keeps a cache of the ELF files it read (by real path: a
 * library reached by its soname link and by its file name is read once),
 * so a library every file needs (libc, libLLVM) is read once per side.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elf.h>

#include "pgbuild/build/pkgcompare.h"
#include "pgbuild/elf/elfrec.h"
#include "pgbuild/pgbuild.h"

/* A sorted array of unique names (owned). */
struct names {
	char **v;
	size_t nr, alloc;
};

/* One ELF file read for its dynamic view. */
struct lib {
	char *path;            /* its real path */
	char *origin;          /* its directory ($ORIGIN) */
	int ok;                /* a readable ELF program or shared object */
	int is_program;        /* has PT_INTERP */
	struct strvec needed;  /* DT_NEEDED, in order */
	char *runpath;         /* DT_RUNPATH (else DT_RPATH), or NULL */
	struct names exports;  /* defined for others */
	struct names undef;    /* undefined and not weak */
};

/* One side of the comparison while it runs. */
struct side {
	const struct pkgcmp_side *s;
	const char *const *libdirs;
	struct lib **libs;          /* the cache, in the order read */
	size_t nlibs, alloc;
	struct names prog_exports;  /* what the side's programs export */
};

/* ---------------- sorted name sets ---------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void names_add(struct names *n, const char *s)
{
	ALLOC_GROW(n->v, n->nr + 1, n->alloc);
	n->v[n->nr++] = xstrdup(s);
}

/* Sort and drop duplicates. */
static void names_seal(struct names *n)
{
	size_t w = 0;
	if (n->nr)
		qsort(n->v, n->nr, sizeof(*n->v), cmp_str);
	for (size_t i = 0; i < n->nr; i++) {
		if (w && !strcmp(n->v[w - 1], n->v[i])) {
			free(n->v[i]);
			continue;
		}
		n->v[w++] = n->v[i];
	}
	n->nr = w;
}

static int names_has(const struct names *n, const char *s)
{
	return n->nr && bsearch(&s, n->v, n->nr, sizeof(*n->v), cmp_str) != NULL;
}

static void names_clear(struct names *n)
{
	for (size_t i = 0; i < n->nr; i++)
		free(n->v[i]);
	free(n->v);
	memset(n, 0, sizeof(*n));
}

/* ---------------- reading ELF files ---------------- */

/* Does the regular file at path start with the ELF magic? */
static int is_elf(const char *path)
{
	unsigned char magic[4];
	int fd = sfs_open_input(AT_FDCWD, path, SFS_IN_BINARY, 0, NULL, NULL), ok;
	if (fd < 0)
		return 0;
	ok = read(fd, magic, 4) == 4 && !memcmp(magic, ELFMAG, SELFMAG);
	close(fd);
	return ok;
}

static void lib_free(struct lib *l)
{
	free(l->path);
	free(l->origin);
	strvec_clear(&l->needed);
	free(l->runpath);
	names_clear(&l->exports);
	names_clear(&l->undef);
	free(l);
}

/* The file at path (any spelling), read once per side; NULL when there is
 * no file there. */
static struct lib *side_load(struct side *sd, const char *path)
{
	char real[PATH_MAX];
	struct elfrec_file f;
	struct lib *l;

	if (!realpath(path, real))
		return NULL;
	for (size_t i = 0; i < sd->nlibs; i++)
		if (!strcmp(sd->libs[i]->path, real))
			return sd->libs[i];
	l = xcalloc(1, sizeof(*l));
	l->path = xstrdup(real);
	l->origin = xstrndup(real, (size_t)(strrchr(real, '/') - real));
	strvec_init(&l->needed);
	if (is_elf(real) &&
	    elfrec_open_flags(real, ELFREC_SIZES_ONLY | ELFREC_DYNAMIC, &f, NULL) == 0) {
		const struct elfrec_object *o = f.nr == 1 && !f.is_archive ? &f.objs[0] : NULL;
		if (o && (o->elf_type == ET_DYN || o->elf_type == ET_EXEC)) {
			l->ok = 1;
			l->is_program = o->is_program;
			strvec_pushn(&l->needed, (const char *const *)o->needed, o->nneeded);
			l->runpath = o->runpath ? xstrdup(o->runpath) : NULL;
			for (size_t i = 0; i < o->ndynsyms; i++) {
				const struct elfrec_dynsym *s = &o->dynsyms[i];
				if (s->defined)
					names_add(&l->exports, s->name);
				else if (!s->weak)
					names_add(&l->undef, s->name);
			}
			names_seal(&l->exports);
			names_seal(&l->undef);
		}
		elfrec_release(&f);
	}
	ALLOC_GROW(sd->libs, sd->nlibs + 1, sd->alloc);
	sd->libs[sd->nlibs++] = l;
	return l;
}

/* Is there a regular file at path (links followed)? */
static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* dir/name below the side's root, then on the system; the first there
 * (malloced) or NULL.  A dir under the file's own directory ($ORIGIN) is
 * taken as it is. */
static char *find_in(const struct side *sd, const char *dir, int from_origin, const char *name)
{
	char *p;
	if (!from_origin) {
		p = xasprintf("%s%s/%s", sd->s->root, dir, name);
		if (exists(p))
			return p;
		free(p);
	}
	p = xasprintf("%s/%s", dir, name);
	if (exists(p))
		return p;
	free(p);
	return NULL;
}

/* Where the dynamic linker would find the library name that l needs:
 * l's DT_RUNPATH ($ORIGIN: l's directory), then the library directories.
 * Malloced, or NULL. */
static char *find_needed(const struct side *sd, const struct lib *l, const char *name)
{
	char *found = NULL;

	if (strchr(name, '/'))
		return exists(name) ? xstrdup(name) : NULL;
	if (l->runpath) {
		char *copy = xstrdup(l->runpath), *save = NULL;
		for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
			const char *rest = NULL;
			if (!strncmp(d, "$ORIGIN", 7))
				rest = d + 7;
			else if (!strncmp(d, "${ORIGIN}", 9))
				rest = d + 9;
			if (rest) {
				char *dir = xasprintf("%s%s", l->origin, rest);
				found = find_in(sd, dir, 1, name);
				free(dir);
			} else if (*d == '/') {
				found = find_in(sd, d, 0, name);
			}
		}
		free(copy);
	}
	for (const char *const *d = sd->libdirs; !found && d && *d; d++)
		found = find_in(sd, *d, 0, name);
	return found;
}

/*
 * The libraries l needs, breadth-first as the dynamic linker loads them
 * (each found as it would find it), l itself first: a malloced array of
 * *n; the needed names found nowhere into missing when not NULL.
 */
static struct lib **closure(struct side *sd, struct lib *l, size_t *n, struct names *missing)
{
	struct lib **queue = NULL;
	size_t nq = 0, alloc = 0;

	ALLOC_GROW(queue, nq + 1, alloc);
	queue[nq++] = l;
	for (size_t at = 0; at < nq; at++) {
		for (size_t i = 0; i < queue[at]->needed.nr; i++) {
			const char *name = queue[at]->needed.v[i];
			char *path = find_needed(sd, queue[at], name);
			struct lib *dep = path ? side_load(sd, path) : NULL;
			size_t k;
			free(path);
			if (!dep || !dep->ok) {
				if (missing)
					names_add(missing, name);
				continue;
			}
			for (k = 0; k < nq && queue[k] != dep; k++)
				;
			if (k == nq) {
				ALLOC_GROW(queue, nq + 1, alloc);
				queue[nq++] = dep;
			}
		}
	}
	if (missing)
		names_seal(missing);
	*n = nq;
	return queue;
}

/* Does a library of the closure (but l itself, the first) define sym? */
static int defined_by(struct lib *const *libs, size_t n, const char *sym)
{
	for (size_t k = 1; k < n; k++)
		if (names_has(&libs[k]->exports, sym))
			return 1;
	return 0;
}

/*
 * The symbols of l (a file of the side, its closure libs) that stay
 * undefined: not defined by a library it needs, nor, for a library or
 * module, by a program of the side.  Into out (sealed).
 */
static void unresolved(struct side *sd, struct lib *const *libs, size_t n, struct names *out)
{
	const struct lib *l = libs[0];
	for (size_t i = 0; i < l->undef.nr; i++) {
		const char *sym = l->undef.v[i];
		if (defined_by(libs, n, sym) || (!l->is_program && names_has(&sd->prog_exports, sym)))
			continue;
		names_add(out, sym);
	}
	names_seal(out);
}

/*
 * What l exports of its own: not what a library it needs defines too (a
 * program's copy of a library's variable, stdout or optarg, is a copy
 * relocation: the executable defines it only because code compiled
 * without -fPIE-style GOT access refers to it; an LTO or -fno-plt build
 * may have none).  Into out (sealed).
 */
static void own_exports(struct lib *const *libs, size_t n, struct names *out)
{
	const struct lib *l = libs[0];
	for (size_t i = 0; i < l->exports.nr; i++)
		if (!defined_by(libs, n, l->exports.v[i]))
			names_add(out, l->exports.v[i]);
	names_seal(out);
}

/* The side's file rel: loaded when it is ELF, else NULL. */
static struct lib *side_file(struct side *sd, const char *rel)
{
	char *p = xasprintf("%s/%s", sd->s->root, rel);
	struct lib *l = is_elf(p) ? side_load(sd, p) : NULL;
	free(p);
	return l;
}

/* The side's programs' exports, into sd->prog_exports. */
static void side_programs(struct side *sd)
{
	for (size_t i = 0; i < sd->s->nfiles; i++) {
		struct lib *l = side_file(sd, sd->s->files[i].path);
		if (l && l->ok && l->is_program)
			for (size_t k = 0; k < l->exports.nr; k++)
				names_add(&sd->prog_exports, l->exports.v[k]);
	}
	names_seal(&sd->prog_exports);
}

static void side_release(struct side *sd)
{
	for (size_t i = 0; i < sd->nlibs; i++)
		lib_free(sd->libs[i]);
	free(sd->libs);
	names_clear(&sd->prog_exports);
}

/* ---------------- findings ---------------- */

int pkgcmp_kind_fails(enum pkgcmp_kind k)
{
	return k <= PKGCMP_LOST_EXPORT;
}

static struct pkgcmp_finding *add(struct pkgcmp_result *r, const char *path, const char *pkg,
				  enum pkgcmp_kind kind)
{
	struct pkgcmp_finding *f;
	ALLOC_GROW(r->v, r->nr + 1, r->alloc);
	f = &r->v[r->nr++];
	f->path = xstrdup(path);
	f->package = xstrdup(pkg);
	f->kind = kind;
	strvec_init(&f->items);
	if (pkgcmp_kind_fails(kind))
		r->failures++;
	return f;
}

/* What a has and b has not, as a finding (when there is any); 1 when one
 * was added. */
static int add_diff(struct pkgcmp_result *r, const char *path, const char *pkg,
		    enum pkgcmp_kind kind, const struct names *a, const struct names *b)
{
	struct pkgcmp_finding *f = NULL;
	for (size_t i = 0; i < a->nr; i++) {
		if (names_has(b, a->v[i]))
			continue;
		if (!f)
			f = add(r, path, pkg, kind);
		strvec_push(&f->items, a->v[i]);
	}
	return f != NULL;
}

static const struct pkgcmp_file *find_file(const struct pkgcmp_side *s, const char *path)
{
	for (size_t i = 0; i < s->nfiles; i++)
		if (!strcmp(s->files[i].path, path))
			return &s->files[i];
	return NULL;
}

static int has_package(const struct pkgcmp_side *s, const char *pkg)
{
	for (size_t i = 0; i < s->nfiles; i++)
		if (!strcmp(s->files[i].package, pkg))
			return 1;
	return 0;
}

/*
 * The needed libraries the archive's file a has and ours, c, has not:
 * a failure when c still refers to a symbol the library defines (found
 * as a's dynamic linker finds it), else a note (c refers to none of it:
 * the linker's --as-needed left it out).
 */
static void lost_needed(struct side *arch, struct lib *c, struct lib *a, const struct names *cn,
			const struct names *an, const struct pkgcmp_file *cf, struct pkgcmp_result *r)
{
	struct pkgcmp_finding *lost = NULL, *unused = NULL;

	for (size_t i = 0; i < an->nr; i++) {
		char *path;
		struct lib *dep;
		int used = 0;
		if (names_has(cn, an->v[i]))
			continue;
		path = find_needed(arch, a, an->v[i]);
		dep = path ? side_load(arch, path) : NULL;
		free(path);
		/* a library the archive's cannot find either: count it as used */
		used = !dep || !dep->ok;
		for (size_t k = 0; !used && k < c->undef.nr; k++)
			used = names_has(&dep->exports, c->undef.v[k]);
		if (used) {
			if (!lost)
				lost = add(r, cf->path, cf->package, PKGCMP_LOST_NEEDED);
			strvec_push(&lost->items, an->v[i]);
		} else {
			if (!unused)
				unused = add(r, cf->path, cf->package, PKGCMP_UNUSED_NEEDED);
			strvec_push(&unused->items, an->v[i]);
		}
	}
}

/* One file both sides hold; 1 when it has a failure. */
static int compare_file(struct side *cand, struct side *arch, struct lib *c, struct lib *a,
			const struct pkgcmp_file *cf, struct pkgcmp_result *r)
{
	struct names cn = { 0 }, an = { 0 }, cu = { 0 }, au = { 0 }, missing = { 0 };
	struct names cown = { 0 }, aown = { 0 };
	struct lib **clibs, **alibs;
	size_t nc, na;
	long before = r->failures;

	for (size_t i = 0; i < c->needed.nr; i++)
		names_add(&cn, c->needed.v[i]);
	for (size_t i = 0; i < a->needed.nr; i++)
		names_add(&an, a->needed.v[i]);
	names_seal(&cn);
	names_seal(&an);
	lost_needed(arch, c, a, &cn, &an, cf, r);
	add_diff(r, cf->path, cf->package, PKGCMP_NEW_NEEDED, &cn, &an);
	clibs = closure(cand, c, &nc, &missing);
	alibs = closure(arch, a, &na, NULL);
	unresolved(cand, clibs, nc, &cu);
	unresolved(arch, alibs, na, &au);
	add_diff(r, cf->path, cf->package, PKGCMP_UNRESOLVED, &cu, &au);
	if (missing.nr) {
		struct pkgcmp_finding *f = add(r, cf->path, cf->package, PKGCMP_NOT_FOUND);
		strvec_pushn(&f->items, (const char *const *)missing.v, missing.nr);
	}
	own_exports(clibs, nc, &cown);
	own_exports(alibs, na, &aown);
	add_diff(r, cf->path, cf->package, PKGCMP_LOST_EXPORT, &aown, &c->exports);
	add_diff(r, cf->path, cf->package, PKGCMP_NEW_EXPORT, &cown, &a->exports);
	free(clibs);
	free(alibs);
	names_clear(&cn);
	names_clear(&an);
	names_clear(&cu);
	names_clear(&au);
	names_clear(&missing);
	names_clear(&cown);
	names_clear(&aown);
	return r->failures > before;
}

static int cmp_finding(const void *x, const void *y)
{
	const struct pkgcmp_finding *a = x, *b = y;
	int c = strcmp(a->path, b->path);
	return c ? c : (int)a->kind - (int)b->kind;
}

int pkgcmp_compare(const struct pkgcmp_opts *o, struct pkgcmp_result *r, struct strbuf *err)
{
	struct side cand = { &o->cand, o->libdirs, NULL, 0, 0, { 0 } };
	struct side arch = { &o->arch, o->libdirs, NULL, 0, 0, { 0 } };
	const struct pkgcmp_side *sides[2] = { &o->cand, &o->arch };

	for (int i = 0; i < 2; i++) {
		struct stat st;
		if (stat(sides[i]->root, &st) < 0) {
			strbuf_addf(err, "%s: %s", sides[i]->root, strerror(errno));
			return -1;
		}
		if (!S_ISDIR(st.st_mode)) {
			strbuf_addf(err, "%s: not a directory", sides[i]->root);
			return -1;
		}
	}
	side_programs(&cand);
	side_programs(&arch);
	for (size_t i = 0; i < o->cand.nfiles; i++) {
		const struct pkgcmp_file *cf = &o->cand.files[i], *af;
		struct lib *c = side_file(&cand, cf->path), *a;
		if (!c)
			continue;  /* not ELF */
		af = find_file(&o->arch, cf->path);
		if (!af && !has_package(&o->arch, cf->package))
			continue;  /* a package the archive has not */
		if (!c->ok) {
			/* an ELF file libelf cannot read, or a relocatable object */
			a = af ? side_file(&arch, af->path) : NULL;
			if (a && a->ok) {
				add(r, cf->path, cf->package, PKGCMP_UNREADABLE);
				r->files++;
				r->failed++;
			}
			continue;
		}
		r->files++;
		a = af ? side_file(&arch, af->path) : NULL;
		if (!a || !a->ok) {
			add(r, cf->path, cf->package, PKGCMP_NEW_FILE);
			continue;
		}
		r->failed += compare_file(&cand, &arch, c, a, cf, r);
	}
	for (size_t i = 0; i < o->arch.nfiles; i++) {
		const struct pkgcmp_file *af = &o->arch.files[i];
		struct lib *a;
		if (find_file(&o->cand, af->path) || !has_package(&o->cand, af->package))
			continue;
		a = side_file(&arch, af->path);
		if (a && a->ok) {
			add(r, af->path, af->package, PKGCMP_MISSING_FILE);
			r->failed++;
		}
	}
	if (r->nr)
		qsort(r->v, r->nr, sizeof(*r->v), cmp_finding);
	side_release(&cand);
	side_release(&arch);
	return 0;
}

/* ---------------- output ---------------- */

static const char *const what[PKGCMP_NKINDS] = {
	[PKGCMP_MISSING_FILE] = "the archive's package has it, ours has not",
	[PKGCMP_UNREADABLE] = "is no readable ELF program or library (the archive's is)",
	[PKGCMP_LOST_NEEDED] = "does not need what the archive's needs",
	[PKGCMP_UNRESOLVED] = "leaves undefined what no library it needs defines (the archive's "
			      "does not)",
	[PKGCMP_LOST_EXPORT] = "does not export what the archive's exports",
	[PKGCMP_NEW_FILE] = "only ours has it",
	[PKGCMP_UNUSED_NEEDED] = "no longer needs what the archive's needs, referring to none of "
				 "its symbols (--as-needed)",
	[PKGCMP_NEW_NEEDED] = "needs more than the archive's",
	[PKGCMP_NEW_EXPORT] = "exports more than the archive's",
	[PKGCMP_NOT_FOUND] = "needs libraries found nowhere here",
};

static const char *const kind_names[PKGCMP_NKINDS] = {
	[PKGCMP_MISSING_FILE] = "missing_file",
	[PKGCMP_UNREADABLE] = "unreadable",
	[PKGCMP_LOST_NEEDED] = "lost_needed",
	[PKGCMP_UNRESOLVED] = "unresolved",
	[PKGCMP_LOST_EXPORT] = "lost_export",
	[PKGCMP_NEW_FILE] = "new_file",
	[PKGCMP_UNUSED_NEEDED] = "unused_needed",
	[PKGCMP_NEW_NEEDED] = "new_needed",
	[PKGCMP_NEW_EXPORT] = "new_export",
	[PKGCMP_NOT_FOUND] = "not_found",
};

static void print_one(FILE *out, const struct pkgcmp_finding *f, size_t max_items)
{
	fprintf(out, "%s %s (%s): %s", pkgcmp_kind_fails(f->kind) ? "FAIL" : "note", f->path,
		f->package, what[f->kind]);
	for (size_t i = 0; i < f->items.nr && i < max_items; i++)
		fprintf(out, "%s%s", i ? ", " : ": ", f->items.v[i]);
	if (f->items.nr > max_items)
		fprintf(out, " and %zu more", f->items.nr - max_items);
	if (f->items.nr > 1)
		fprintf(out, " (%zu)", f->items.nr);
	fputc('\n', out);
}

void pkgcmp_print(FILE *out, const struct pkgcmp_result *r, size_t max_items)
{
	for (int fails = 1; fails >= 0; fails--)
		for (size_t i = 0; i < r->nr; i++)
			if (pkgcmp_kind_fails(r->v[i].kind) == fails)
				print_one(out, &r->v[i], max_items);
}

void pkgcmp_json(struct json_writer *jw, const struct pkgcmp_result *r)
{
	json_array_begin(jw);
	for (size_t i = 0; i < r->nr; i++) {
		const struct pkgcmp_finding *f = &r->v[i];
		json_object_begin(jw);
		json_key(jw, "path"); json_string(jw, f->path);
		json_key(jw, "package"); json_string(jw, f->package);
		json_key(jw, "kind"); json_string(jw, kind_names[f->kind]);
		json_key(jw, "fails"); json_bool(jw, pkgcmp_kind_fails(f->kind));
		json_key(jw, "items"); json_strvec(jw, &f->items);
		json_object_end(jw);
	}
	json_array_end(jw);
}

void pkgcmp_release(struct pkgcmp_result *r)
{
	for (size_t i = 0; i < r->nr; i++) {
		free(r->v[i].path);
		free(r->v[i].package);
		strvec_clear(&r->v[i].items);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}
