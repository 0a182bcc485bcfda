/*
 * explain/side.c - one build's inputs for `pgbuild explain`: its binary's
 * symbols and plugin records, the compile log its build record names, and
 * the callgrind outputs of its cycles runs; see explain.h.
 *
 * The compile log and the callgrind outputs live in trees the server user
 * can write (a build tree handed to it for the regression suite, the
 * cycles metric's run directory): they are read through safefs's bounded
 * reader, their directory as the anchor and the file itself never
 * followed if it is a link.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgbuild/explain/explain.h"
#include "pgbuild/explain/strmap.h"
#include "pgbuild/pgbuild.h"
#include "wrapper/common/json.h"
#include "wrapper/common/safefs.h"

/* Read path (in a directory another user may write) into out. */
static int read_below(const char *path, struct strbuf *out)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	const char *base = path;
	struct strbuf err = STRBUF_INIT;
	int fd, rc = -1;

	if (slash) {
		*slash = '\0';
		base = slash + 1;
	}
	fd = sfs_open_anchor(slash ? (*dir ? dir : "/") : ".", (uid_t)-1, 0, &err);
	if (fd >= 0) {
		rc = sfs_read(fd, base, SFS_IN_CALLGRIND, SFS_NOFOLLOW, out, &err) < 0 ? -1 : 0;
		close(fd);
	}
	if (rc < 0)
		error("%s: %s", path, err.buf);
	strbuf_release(&err);
	free(dir);
	return rc;
}

static int cmp_unit(const void *a, const void *b)
{
	return strcmp(((const struct explain_unit *)a)->tu, ((const struct explain_unit *)b)->tu);
}

/* One compile-log line: a compile of a unit (the last of a unit wins). */
static void log_line(struct explain_side *s, const char *line, size_t len, size_t *alloc)
{
	struct json_value *v = json_parse(line, len, NULL);
	const char *tu = json_get_str(v, "tu"), *kind = json_get_str(v, "kind");
	const char *reason = json_get_str(v, "reason");
	struct explain_unit *u = NULL;

	if (tu && kind && (!strcmp(kind, "compile") ||
			   (!strcmp(kind, "passthrough") && reason && !strcmp(reason, "passthrough_env")))) {
		for (size_t k = s->nlog; k > 0 && !u; k--)
			if (!strcmp(s->log[k - 1].tu, tu))
				u = &s->log[k - 1];
		if (!u) {
			ALLOC_GROW(s->log, s->nlog + 1, *alloc);
			u = &s->log[s->nlog++];
			u->tu = xstrdup(tu);
		} else {
			free(u->added);
			free(u->rules);
		}
		u->added = json_join_strings(json_get(v, "added"));
		u->rules = json_join_strings(json_get(v, "rules"));
	}
	json_free(v);
}

/* The compile log the build record names (no record, no log: fine). */
static int load_log(struct explain_side *s)
{
	char *rec, *path;
	struct json_value *root;
	const char *dir;
	struct strbuf sb = STRBUF_INIT;
	size_t alloc = 0;

	if (!s->prefix || !(rec = xasprintf("%s/pgopt-build.json", s->prefix)))
		return 0;
	if (sfs_read(AT_FDCWD, rec, SFS_IN_MANIFEST, 0, &sb, NULL) < 0) {
		free(rec);
		return 0;
	}
	free(rec);
	root = json_parse(sb.buf, sb.len, NULL);
	dir = json_get_str(json_get(root, "log"), "dir");
	if (dir)
		s->logdir = xstrdup(dir);
	if ((dir = json_get_str(json_get(root, "source"), "dir")))
		s->srcdir = xstrdup(dir);
	json_free(root);
	strbuf_reset(&sb);
	if (!s->logdir)
		goto out;
	path = xasprintf("%s/compile.jsonl", s->logdir);
	if (access(path, F_OK) == 0 && read_below(path, &sb) < 0) {
		free(path);
		strbuf_release(&sb);
		return -1;
	}
	free(path);
	for (const char *p = sb.buf; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (n)
			log_line(s, p, n, &alloc);
		p += n + (nl ? 1 : 0);
	}
	if (s->nlog)
		qsort(s->log, s->nlog, sizeof(*s->log), cmp_unit);
out:
	strbuf_release(&sb);
	return 0;
}

/* What explain_record_files marks a name of two files with. */
static char ambiguous_file[] = "";

void explain_record_files(const struct elfrec_unit *units, size_t nunits, struct strmap *m)
{
	for (size_t u = 0; u < nunits; u++) {
		if (!elfrec_unit_is_link_time(units[u].unit))
			continue;
		for (size_t k = 0; k < units[u].nfns; k++) {
			const struct json_value *fn = units[u].fns[k];
			const char *n = json_get_str(fn, "name"), *f = json_get_str(fn, "file");
			void **slot;
			if (!n || !f)
				continue;
			slot = strmap_slot(m, n);
			if (!*slot)
				*slot = (void *)f;
			else if (*slot != ambiguous_file && strcmp(*slot, f))
				*slot = ambiguous_file;
		}
	}
}

const char *explain_record_file(const struct strmap *m, const char *name)
{
	const char *f = strmap_get(m, name);
	return f == ambiguous_file ? NULL : f;
}

/* Every function record by the base name of its function (explain.h). */
static void index_records(struct explain_side *s)
{
	struct strbuf base = STRBUF_INIT;
	for (size_t u = 0; u < s->nunits; u++) {
		for (size_t k = 0; k < s->units[u].nfns; k++) {
			const struct json_value *fn = s->units[u].fns[k];
			const char *n = json_get_str(fn, "name");
			struct explain_recs **slot, *r;
			if (!n)
				continue;
			explain_name_base(n, &base);
			slot = (struct explain_recs **)strmap_slot(&s->recs, base.buf);
			if (!*slot)
				*slot = xcalloc(1, sizeof(**slot));
			r = *slot;
			ALLOC_GROW(r->v, r->nr + 1, r->alloc);
			r->v[r->nr].fn = fn;
			r->v[r->nr].unit = s->units[u].unit;
			r->nr++;
		}
	}
	strbuf_release(&base);
}

/* The function symbols for the matcher; an LTO binary's statics get the
 * records' files (its STT_FILE symbols are artificial). */
static void load_syms(struct explain_side *s)
{
	const struct elfrec_object *o = &s->elf.objs[0];
	struct strmap files = STRMAP_INIT;
	if (s->lto)
		explain_record_files(s->units, s->nunits, &files);
	s->syms = xcalloc(o->nfuncs + 1, sizeof(*s->syms));
	s->sym_files = xcalloc(o->nfuncs + 1, sizeof(*s->sym_files));
	for (size_t i = 0; i < o->nfuncs; i++) {
		const struct elfrec_func *f = &o->funcs[i];
		struct explain_sym *y;
		if (!f->section[0] || !f->name[0])
			continue;
		y = &s->syms[s->nsyms++];
		y->name = f->name;
		y->addr = f->addr;
		y->size = f->size;
		y->global = f->global;
		y->file = f->file;
		if (!f->global && s->lto) {
			const char *rf = explain_record_file(&files, f->name);
			s->sym_files[s->nsyms - 1] = xstrdup(rf ? rf : "");
			y->file = s->sym_files[s->nsyms - 1];
		}
	}
	strmap_clear(&files);
}

/* prefix or binary -> s->prefix, s->binary, s->real. */
static int locate(struct explain_side *s, const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return error("%s \"%s\": %s", s->label, path, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		s->prefix = path_absolute(path);
		s->binary = xasprintf("%s/bin/postgres", s->prefix);
	} else {
		char *dir;
		s->binary = path_absolute(path);
		dir = xstrdup(s->binary);
		/* PREFIX/bin/NAME: the prefix holds the build record */
		for (int up = 0; up < 2 && strrchr(dir, '/'); up++)
			*strrchr(dir, '/') = '\0';
		if (strlen(s->binary) > strlen(dir) + 5 &&
		    !strncmp(s->binary + strlen(dir), "/bin/", 5))
			s->prefix = dir;
		else
			free(dir);
	}
	if (!(s->real = path_real(s->binary)))
		return -1;
	return 0;
}

int explain_side_load(struct explain_side *s, const char *label, const char *path)
{
	struct strbuf err = STRBUF_INIT;
	long nu;

	memset(s, 0, sizeof(*s));
	s->label = xstrdup(label);
	if (locate(s, path) < 0)
		return -1;
	if (elfrec_open(s->binary, &s->elf, &err) < 0) {
		error("%s", err.buf);
		strbuf_release(&err);
		return -1;
	}
	if (s->elf.is_archive || s->elf.nr != 1 || s->elf.objs[0].elf_type == 1 /* ET_REL */) {
		strbuf_release(&err);
		return error("%s: not an executable or shared library", s->binary);
	}
	nu = elfrec_units(&s->elf.objs[0], &s->units, &err);
	if (nu < 0) {
		error("%s: %s", s->binary, err.buf);
		strbuf_release(&err);
		return -1;
	}
	s->nunits = (size_t)nu;
	for (size_t u = 0; u < s->nunits; u++)
		s->lto |= elfrec_unit_is_link_time(s->units[u].unit);
	s->bolt = s->elf.objs[0].bolt_rewritten;
	load_syms(s);
	index_records(s);
	strbuf_release(&err);
	return load_log(s);
}

int explain_side_profiles(struct explain_side *s, const char *file_n, const char *file_10n)
{
	const char *files[2] = { file_n, file_10n };
	for (int k = 0; k < 2; k++) {
		struct strbuf sb = STRBUF_INIT, why = STRBUF_INIT;
		int rc;
		if (read_below(files[k], &sb) < 0) {
			strbuf_release(&sb);
			return -1;
		}
		rc = cg_parse(sb.buf, sb.len, &s->prof[k], &why);
		if (rc < 0)
			error("%s: %s", files[k], why.buf);
		strbuf_release(&sb);
		strbuf_release(&why);
		if (rc < 0)
			return -1;
		s->files[k] = xstrdup(files[k]);
	}
	return 0;
}

void explain_side_release(struct explain_side *s)
{
	free(s->label);
	free(s->prefix);
	free(s->binary);
	free(s->real);
	elfrec_units_free(s->units, s->nunits);
	elfrec_release(&s->elf);
	for (size_t i = 0; i < s->nsyms; i++)
		free(s->sym_files[i]);
	free(s->sym_files);
	free(s->syms);
	for (size_t i = 0; i < s->nlog; i++) {
		free(s->log[i].tu);
		free(s->log[i].added);
		free(s->log[i].rules);
	}
	free(s->log);
	free(s->logdir);
	free(s->srcdir);
	for (size_t i = 0; i < s->recs.size; i++) {
		struct explain_recs *r = s->recs.v[i].value;
		if (r)
			free(r->v);
		free(r);
	}
	strmap_clear(&s->recs);
	for (int k = 0; k < 2; k++) {
		cg_release(&s->prof[k]);
		free(s->files[k]);
	}
	memset(s, 0, sizeof(*s));
}
