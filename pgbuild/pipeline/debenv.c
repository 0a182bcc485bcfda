/*
 * debenv.c - where `pgbuild deb` builds a package: the host check of
 * build-affecting programs and the clean chroot; see debenv.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgbuild/elf/elfrec.h"
#include "pgbuild/pgbuild.h"
#include "pgbuild/pipeline/debenv.h"

/*
 * Programs a build finds by name on PATH, and in versions: a configure
 * script takes the first of its names there, Debian's rules choose among
 * the versions (postgresql.mk: the highest /usr/bin/llvm-config-N, and
 * clang-N of the same N).  One row per program; its files are NAME and
 * NAME[-.]VERSION (llvm-config-15, clang-14, python3.11, tclsh8.6).
 */
static const char *const probes[] = { "clang", "llvm-config", "python3", "tclsh", NULL };

int debenv_probe_matches(const char *program, const char *name)
{
	size_t n = strlen(program);
	const char *v = name + n;
	if (strncmp(name, program, n))
		return 0;
	if (!*v)
		return 1;
	if (*v == '-' || *v == '.')
		v++;
	if (*v < '0' || *v > '9')
		return 0;
	return strspn(v, "0123456789.") == strlen(v);
}

/* ---------------- debian/control ---------------- */

char *debenv_control_field(const char *text, const char *name)
{
	size_t n = strlen(name);
	struct strbuf sb = STRBUF_INIT;
	int in = 0, fields = 0, found = 0;

	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		if (strspn(line, " \t") >= len) {
			if (fields)
				break;  /* the end of the first paragraph */
		} else if (line[0] == '#') {
			/* a comment */
		} else if (line[0] == ' ' || line[0] == '\t') {
			if (in) {
				strbuf_addch(&sb, ' ');
				strbuf_add(&sb, line, len);
			}
		} else {
			fields++;
			in = !found && len > n && !strncasecmp(line, name, n) && line[n] == ':';
			if (in) {
				found = 1;
				strbuf_add(&sb, line + n + 1, len - n - 1);
			}
		}
		line += len + (end ? 1 : 0);
	}
	if (!found) {
		strbuf_release(&sb);
		return NULL;
	}
	strbuf_trim(&sb);
	return strbuf_detach(&sb, NULL);
}

void debenv_relation_groups(const char *field, struct strvec *out)
{
	struct strbuf group = STRBUF_INIT;
	const char *p = field;

	while (p && *p) {
		size_t n;
		p += strspn(p, " \t|");
		n = strcspn(p, " \t,|(:[<");
		if (n && p[0] != '$')
			strbuf_addf(&group, "%s%.*s", group.len ? "|" : "", (int)n, p);
		p += n;
		/* the rest of this alternative: its version, qualifiers */
		p += strcspn(p, ",|");
		if (*p == ',' || !*p) {
			if (group.len)
				strvec_push(out, group.buf);
			strbuf_reset(&group);
			p += *p == ',';
		}
	}
	strbuf_release(&group);
}

/* Every name of a field, alternatives as names of their own. */
static void relation_names(const char *field, struct strvec *out)
{
	struct strvec groups = STRVEC_INIT;
	debenv_relation_groups(field, &groups);
	for (size_t i = 0; i < groups.nr; i++) {
		char *copy = xstrdup(groups.v[i]), *save = NULL;
		for (char *a = strtok_r(copy, "|", &save); a; a = strtok_r(NULL, "|", &save))
			strvec_push(out, a);
		free(copy);
	}
	strvec_clear(&groups);
}

/* ---------------- the installed packages ---------------- */

/* One installed package. */
struct pkg {
	char *name;
	int essential;            /* Essential: yes */
	struct strvec provides;   /* the virtual names it provides */
	struct strvec depends;    /* Pre-Depends and Depends: "a|b" each */
	int in;                   /* pulled in by the Build-Depends */
};

struct pkgdb {
	struct pkg *v;
	size_t nr, alloc;
};

/* dpkg-query's list of installed packages; 0, or -1 after the error. */
static int pkgdb_read(struct pkgdb *db, struct strbuf *why)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT;
	char *line, *save = NULL;
	int rc;

	strvec_pushl(&cp.args, "dpkg-query", "-W", "-f",
		     "${db:Status-Abbrev}\\t${Package}\\t${Essential}\\t${Provides}\\t"
		     "${Pre-Depends}, ${Depends}\\n", NULL);
	cp.no_stdin = 1;
	cp.no_stderr = 1;
	rc = capture_command(&cp, &out, 0);
	child_process_clear(&cp);
	if (rc != 0) {
		strbuf_release(&out);
		strbuf_addf(why, "dpkg-query -W (the installed packages) failed with exit %d", rc);
		return -1;
	}
	for (line = strtok_r(out.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[5] = { NULL };
		struct pkg *pk;
		int n = 0;
		for (char *p = line; n < 5; n++) {
			f[n] = p;
			p = strchr(p, '\t');
			if (!p)
				break;
			*p++ = '\0';
		}
		/* "ii ": wanted install, installed (or half: iF, iU count too) */
		if (n < 4 || f[0][0] != 'i' || (f[0][1] != 'i' && f[0][1] != 'F' && f[0][1] != 'U'))
			continue;
		ALLOC_GROW(db->v, db->nr + 1, db->alloc);
		pk = &db->v[db->nr++];
		memset(pk, 0, sizeof(*pk));
		pk->name = xstrdup(f[1]);
		pk->essential = !strcmp(f[2], "yes");
		strvec_init(&pk->provides);
		strvec_init(&pk->depends);
		relation_names(f[3], &pk->provides);
		debenv_relation_groups(f[4], &pk->depends);
	}
	strbuf_release(&out);
	return 0;
}

static void pkgdb_release(struct pkgdb *db)
{
	for (size_t i = 0; i < db->nr; i++) {
		free(db->v[i].name);
		strvec_clear(&db->v[i].provides);
		strvec_clear(&db->v[i].depends);
	}
	free(db->v);
}

/* Mark the installed packages called name, and queue what they depend on. */
static int pull_real(struct pkgdb *db, const char *name, struct strvec *queue)
{
	int found = 0;
	for (size_t i = 0; i < db->nr; i++) {
		struct pkg *pk = &db->v[i];
		if (strcmp(pk->name, name))
			continue;
		found = 1;
		if (pk->in)
			continue;
		pk->in = 1;
		strvec_pushv(queue, (const char *const *)pk->depends.v);
	}
	return found;
}

/* Is group ("a|b") satisfied by what is pulled in: one of its names, or
 * a package pulled in that provides one? */
static int satisfied(const struct pkgdb *db, const char *group)
{
	char *copy = xstrdup(group), *save = NULL;
	int ok = 0;
	for (char *a = strtok_r(copy, "|", &save); a && !ok; a = strtok_r(NULL, "|", &save))
		for (size_t i = 0; i < db->nr && !ok; i++)
			ok = db->v[i].in && (!strcmp(db->v[i].name, a) ||
					     strvec_find(&db->v[i].provides, a) >= 0);
	free(copy);
	return ok;
}

/*
 * Pull in the relations of queue and what they depend on, as a resolver
 * would satisfy them with what is installed: a relation already satisfied
 * adds nothing; else its first alternative installed as a package of that
 * name; else (virtual names: c-compiler) the first installed provider,
 * chosen only once nothing else can satisfy it, so that gcc, not every
 * clang-N, satisfies a "c-compiler" when gcc is pulled in anyway.
 */
static void pull_in(struct pkgdb *db, struct strvec *queue)
{
	struct strvec later = STRVEC_INIT;

	for (;;) {
		while (queue->nr) {
			char *group = xstrdup(queue->v[queue->nr - 1]), *save = NULL;
			int done = 0;
			strvec_pop(queue);
			if (!satisfied(db, group)) {
				char *copy = xstrdup(group);
				for (char *a = strtok_r(copy, "|", &save); a && !done;
				     a = strtok_r(NULL, "|", &save))
					done = pull_real(db, a, queue);
				free(copy);
				if (!done)
					strvec_push(&later, group);
			}
			free(group);
		}
		if (!later.nr)
			break;
		{
			/* one virtual relation, with what is there now */
			char *group = xstrdup(later.v[later.nr - 1]), *save = NULL;
			strvec_pop(&later);
			if (!satisfied(db, group))
				for (char *a = strtok_r(group, "|", &save); a; a = strtok_r(NULL, "|", &save)) {
					size_t i;
					for (i = 0; i < db->nr && strvec_find(&db->v[i].provides, a) < 0; i++)
						;
					if (i < db->nr) {
						pull_real(db, db->v[i].name, queue);
						break;
					}
				}
			free(group);
		}
	}
	strvec_clear(&later);
}

static int pulled_in(const struct pkgdb *db, const char *name)
{
	for (size_t i = 0; i < db->nr; i++)
		if (db->v[i].in && !strcmp(db->v[i].name, name))
			return 1;
	return 0;
}

/* ---------------- who owns a file ---------------- */

/* The same path with or without the /usr prefix (merged /usr: dpkg knows
 * a file by one of the two); malloced. */
static char *usr_twin(const char *path)
{
	if (!strncmp(path, "/usr/", 5))
		return xstrdup(path + 4);
	return xasprintf("/usr%s", path);
}

/*
 * The packages owning each of paths (dpkg-query -S, by either spelling
 * of a merged /usr), as "pkg1 pkg2" in owners (parallel to paths; "" for
 * a file of no package).
 */
static void owners_of(const struct strvec *paths, struct strvec *owners)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT;
	char *line, *save = NULL;

	for (size_t i = 0; i < paths->nr; i++)
		strvec_push(owners, "");
	if (!paths->nr)
		return;
	strvec_pushl(&cp.args, "dpkg-query", "-S", NULL);
	for (size_t i = 0; i < paths->nr; i++) {
		strvec_push(&cp.args, paths->v[i]);
		strvec_push_nodup(&cp.args, usr_twin(paths->v[i]));
	}
	cp.no_stdin = 1;
	cp.no_stderr = 1;
	capture_command(&cp, &out, 0);  /* exit 1: some were of no package */
	child_process_clear(&cp);
	/* "pkg1, pkg2:amd64: /path"; "diversion by ..." lines are skipped */
	for (line = strtok_r(out.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sep = strstr(line, ": /"), *path;
		struct strvec names = STRVEC_INIT;
		if (!sep || !strncmp(line, "diversion ", 10))
			continue;
		*sep = '\0';
		path = sep + 2;
		relation_names(line, &names);
		for (size_t i = 0; i < paths->nr; i++) {
			char *twin = usr_twin(paths->v[i]);
			if (!strcmp(path, paths->v[i]) || !strcmp(path, twin)) {
				struct strbuf sb = STRBUF_INIT;
				struct strvec have = STRVEC_INIT;
				strvec_split(&have, owners->v[i]);
				strbuf_addstr(&sb, owners->v[i]);
				for (size_t k = 0; k < names.nr; k++)
					if (strvec_find(&have, names.v[k]) < 0) {
						strbuf_addf(&sb, "%s%s", sb.len ? " " : "", names.v[k]);
						strvec_push(&have, names.v[k]);
					}
				strvec_clear(&have);
				free(owners->v[i]);
				owners->v[i] = strbuf_detach(&sb, NULL);
			}
			free(twin);
		}
		strvec_clear(&names);
	}
	strbuf_release(&out);
}

/* Is one of owners ("a b") pulled in? */
static int owned_in(const struct pkgdb *db, const char *owners)
{
	struct strvec v = STRVEC_INIT;
	int in = 0;
	strvec_split(&v, owners);
	for (size_t i = 0; i < v.nr && !in; i++)
		in = pulled_in(db, v.v[i]);
	strvec_clear(&v);
	return in;
}

/* ---------------- the host check ---------------- */

/* A program file found on PATH. */
struct found {
	int probe;       /* its row of probes[] */
	char *path;      /* as found on PATH */
	char *target;    /* where its links lead (real path), or NULL */
};

/* Every file of a probe's names on path, each directory once. */
static void find_programs(const char *path, struct found **out, size_t *nr)
{
	char *copy = xstrdup(path), *save = NULL;
	size_t alloc = 0;
	struct stat seen[64];
	size_t nseen = 0;

	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		struct stat st;
		DIR *dh;
		struct dirent *e;
		size_t k;
		if (*d != '/' || stat(d, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		for (k = 0; k < nseen && (seen[k].st_dev != st.st_dev || seen[k].st_ino != st.st_ino); k++)
			;
		if (k < nseen || nseen == sizeof(seen) / sizeof(seen[0]))
			continue;  /* /bin is /usr/bin on a merged /usr */
		seen[nseen++] = st;
		dh = opendir(d);
		while (dh && (e = readdir(dh))) {
			for (int p = 0; probes[p]; p++) {
				char *full, real[PATH_MAX];
				if (!debenv_probe_matches(probes[p], e->d_name))
					continue;
				full = xasprintf("%s/%s", d, e->d_name);
				if (!is_executable(full)) {
					free(full);
					continue;
				}
				ALLOC_GROW(*out, *nr + 1, alloc);
				(*out)[*nr].probe = p;
				(*out)[*nr].path = full;
				(*out)[*nr].target = realpath(full, real) && strcmp(real, full) ?
						     xstrdup(real) : NULL;
				(*nr)++;
			}
		}
		if (dh)
			closedir(dh);
	}
	free(copy);
}

int debenv_check_host(const char *src, const char *path, struct strbuf *note,
		      struct strbuf *why)
{
	char *control = xasprintf("%s/debian/control", src), *source = NULL;
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT, bad = STRBUF_INIT;
	struct strvec roots = STRVEC_INIT, paths = STRVEC_INIT, owners = STRVEC_INIT, fix = STRVEC_INIT;
	struct pkgdb db = { NULL, 0, 0 };
	struct found *found = NULL;
	size_t nfound = 0;
	int applies[sizeof(probes) / sizeof(probes[0])] = { 0 };
	int rc = -1;

	if (sfs_read(AT_FDCWD, control, SFS_IN_TEXT, 0, &text, &err) < 0) {
		strbuf_addstr(why, err.buf);
		goto out;
	}
	source = debenv_control_field(text.buf, "Source");
	if (pkgdb_read(&db, why) < 0)
		goto out;
	{
		/* a stack: the Build-Depends first, then build-essential, then the
		 * essential packages (pushed last: resolved first) */
		char *bd = debenv_control_field(text.buf, "Build-Depends");
		char *bda = debenv_control_field(text.buf, "Build-Depends-Arch");
		debenv_relation_groups(bda, &roots);
		debenv_relation_groups(bd, &roots);
		free(bd);
		free(bda);
		strvec_push(&roots, "build-essential");
		for (size_t i = 0; i < db.nr; i++)
			if (db.v[i].essential)
				strvec_push(&roots, db.v[i].name);
		pull_in(&db, &roots);
	}

	find_programs(path, &found, &nfound);
	for (size_t i = 0; i < nfound; i++) {
		strvec_push(&paths, found[i].path);
		if (found[i].target)
			strvec_push(&paths, found[i].target);
	}
	owners_of(&paths, &owners);
	/* a row applies when the Build-Depends provide one of its files */
	for (size_t i = 0, at = 0; i < nfound; i++) {
		const char *own = owners.v[at++];
		const char *town = found[i].target ? owners.v[at++] : NULL;
		if (*own && owned_in(&db, own) && (!town || (*town && owned_in(&db, town)))) {
			applies[found[i].probe] = 1;
			strbuf_addf(note, "%s%s", note->len ? ", " : "", found[i].path);
		}
	}
	for (size_t i = 0, at = 0; i < nfound; i++) {
		const char *own = owners.v[at++];
		const char *town = found[i].target ? owners.v[at++] : NULL;
		const char *who = *own ? own : town && *town ? town : NULL;
		if (!applies[found[i].probe] || (*own && owned_in(&db, own) &&
						 (!town || (*town && owned_in(&db, town)))))
			continue;
		if (town && *town && !owned_in(&db, town) && *own && owned_in(&db, own))
			who = town;  /* a link of ours into another package */
		strbuf_addf(&bad, "%s%s (%s)", bad.len ? ", " : "", found[i].path,
			    who ? who : "of no package");
		if (who) {
			struct strvec v = STRVEC_INIT;
			strvec_split(&v, who);
			for (size_t k = 0; k < v.nr; k++)
				if (strvec_find(&fix, v.v[k]) < 0)
					strvec_push(&fix, v.v[k]);
			strvec_clear(&v);
		}
	}
	if (bad.len) {
		struct strbuf rm = STRBUF_INIT;
		for (size_t k = 0; k < fix.nr; k++)
			strbuf_addf(&rm, " %s", fix.v[k]);
		strbuf_addf(why, "this machine has programs the build of %s would find that its "
			    "Build-Depends do not provide (the archive's build has none of them): %s "
			    "(the Build-Depends provide %s); build in a clean chroot (--chroot: "
			    "mmdebstrap, as Debian's build daemons do)%s%s%s", source ? source : src,
			    bad.buf, note->buf, rm.len ? ", or remove them (apt-get remove" : "",
			    rm.buf, rm.len ? ")" : "");
		strbuf_release(&rm);
		goto out;
	}
	rc = 0;
out:
	for (size_t i = 0; i < nfound; i++) {
		free(found[i].path);
		free(found[i].target);
	}
	free(found);
	pkgdb_release(&db);
	strvec_clear(&roots);
	strvec_clear(&paths);
	strvec_clear(&owners);
	strvec_clear(&fix);
	strbuf_release(&text);
	strbuf_release(&err);
	strbuf_release(&bad);
	free(control);
	free(source);
	return rc;
}

/* ---------------- libraries, the chroot ---------------- */

int debenv_libdirs(struct strvec *out)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf ma = STRBUF_INIT;
	int rc;

	strvec_pushl(&cp.args, "dpkg-architecture", "-qDEB_HOST_MULTIARCH", NULL);
	cp.no_stdin = 1;
	cp.no_stderr = 1;
	rc = capture_command(&cp, &ma, 0);
	child_process_clear(&cp);
	strbuf_trim(&ma);
	if (rc != 0 || !ma.len || strchr(ma.buf, '/')) {
		strbuf_release(&ma);
		return error("dpkg-architecture -qDEB_HOST_MULTIARCH failed (exit %d): is dpkg-dev "
			     "installed?", rc);
	}
	strvec_pushf(out, "/lib/%s", ma.buf);
	strvec_pushf(out, "/usr/lib/%s", ma.buf);
	strvec_pushl(out, "/lib", "/usr/lib", NULL);
	strbuf_release(&ma);
	return 0;
}

/* This machine's codename (/etc/os-release's VERSION_CODENAME); malloced
 * or NULL after the error. */
static char *host_suite(void)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	char real[PATH_MAX], *suite = NULL, *p;

	if (!realpath("/etc/os-release", real) ||
	    sfs_read(AT_FDCWD, real, SFS_IN_SYSTEM, 0, &text, &err) < 0) {
		error("cannot read /etc/os-release: %s", err.len ? err.buf : strerror(errno));
	} else if ((p = strstr(text.buf, "VERSION_CODENAME=")) &&
		   (p == text.buf || p[-1] == '\n')) {
		p += strlen("VERSION_CODENAME=");
		p += *p == '"';
		suite = xstrndup(p, strcspn(p, "\"\n"));
		if (!*suite || strspn(suite, "abcdefghijklmnopqrstuvwxyz-") != strlen(suite)) {
			error("/etc/os-release: VERSION_CODENAME \"%s\" is no suite name", suite);
			free(suite);
			suite = NULL;
		}
	} else {
		error("/etc/os-release names no VERSION_CODENAME (the suite a chroot is made of)");
	}
	strbuf_release(&text);
	strbuf_release(&err);
	return suite;
}

/* The packages of the libraries the ELF file at path needs (as this
 * machine's dynamic linker finds them) onto out. */
static void needed_packages(const char *path, const struct strvec *libdirs, struct strvec *out)
{
	struct elfrec_file f;
	struct strvec libs = STRVEC_INIT, owners = STRVEC_INIT;

	if (elfrec_open_flags(path, ELFREC_SIZES_ONLY | ELFREC_DYNAMIC, &f, NULL) < 0)
		return;
	for (size_t i = 0; f.nr == 1 && i < f.objs[0].nneeded; i++)
		for (size_t d = 0; d < libdirs->nr; d++) {
			char *lib = xasprintf("%s/%s", libdirs->v[d], f.objs[0].needed[i]);
			if (access(lib, F_OK) == 0) {
				strvec_push_nodup(&libs, lib);
				break;
			}
			free(lib);
		}
	elfrec_release(&f);
	owners_of(&libs, &owners);
	for (size_t i = 0; i < owners.nr; i++) {
		struct strvec v = STRVEC_INIT;
		strvec_split(&v, owners.v[i]);
		for (size_t k = 0; k < v.nr; k++)
			if (strvec_find(out, v.v[k]) < 0)
				strvec_push(out, v.v[k]);
		strvec_clear(&v);
	}
	strvec_clear(&libs);
	strvec_clear(&owners);
}

int debenv_chroot_prepare(struct debenv_chroot *c)
{
	struct strvec libdirs = STRVEC_INIT;
	const char *dirs[3];
	char *bindir, *plugin;

	strvec_init(&c->binds);
	strvec_init(&c->include);
	c->suite = NULL;
	if (geteuid() != 0)
		return error("--chroot builds as root (mmdebstrap --mode=root, mount namespaces): "
			     "run pgbuild deb as root, or build on the host");
	{
		char *m = locate_in_path("mmdebstrap"), *u = locate_in_path("unshare");
		int have = m && u;
		free(m);
		free(u);
		if (!have)
			return error("--chroot needs mmdebstrap and unshare: apt-get install mmdebstrap "
				     "(make deps-deb)");
	}
	if (!(c->suite = host_suite()) || debenv_libdirs(&libdirs) < 0)
		return -1;
	bindir = xstrndup(pgbuild_self(), (size_t)(strrchr(pgbuild_self(), '/') - pgbuild_self()));
	dirs[0] = bindir;
	dirs[1] = pgbuild_libdir();
	dirs[2] = pgbuild_datadir();
	for (int i = 0; i < 3; i++) {
		char real[PATH_MAX];
		int dup = 0;
		if (!realpath(dirs[i], real))
			continue;
		/* one bind per directory, not one inside another */
		for (size_t k = 0; k < c->binds.nr && !dup; k++) {
			size_t n = strlen(c->binds.v[k]);
			dup = !strncmp(real, c->binds.v[k], n) && (real[n] == '/' || !real[n]);
		}
		if (!dup)
			strvec_push(&c->binds, real);
	}
	free(bindir);
	needed_packages(pgbuild_self(), &libdirs, &c->include);
	needed_packages(pgbuild_pgoptcc(), &libdirs, &c->include);
	plugin = xasprintf("%s/pgopt.so", pgbuild_libdir());
	needed_packages(plugin, &libdirs, &c->include);
	free(plugin);
	strvec_clear(&libdirs);
	return 0;
}

void debenv_chroot_release(struct debenv_chroot *c)
{
	strvec_clear(&c->binds);
	strvec_clear(&c->include);
	free(c->suite);
	c->suite = NULL;
}

/*
 * mmdebstrap's last step in the chroot: the Build-Depends, from a copy of
 * the source's debian/control ($PGBUILD_DEB_CONTROL: the hook is one
 * fixed text, every path reaches it through the environment).
 */
static const char build_dep_hook[] =
	"set -e; mkdir -p \"$1/tmp/pgbuild-deb/debian\"; "
	"cp \"$PGBUILD_DEB_CONTROL\" \"$1/tmp/pgbuild-deb/debian/control\"; "
	"chroot \"$1\" apt-get build-dep --yes --no-install-recommends --arch-only "
	"/tmp/pgbuild-deb; rm -rf \"$1/tmp/pgbuild-deb\"";

void debenv_mmdebstrap_argv(const struct debenv_chroot *c, struct strvec *args,
			    struct strvec *env)
{
	strvec_pushl(args, "mmdebstrap", "--variant=buildd", "--mode=root", NULL);
	if (c->include.nr) {
		struct strbuf inc = STRBUF_INIT;
		for (size_t i = 0; i < c->include.nr; i++)
			strbuf_addf(&inc, "%s%s", i ? "," : "--include=", c->include.v[i]);
		strvec_push(args, inc.buf);
		strbuf_release(&inc);
	}
	strvec_pushf(args, "--customize-hook=%s", build_dep_hook);
	/* no mirror: deb.debian.org, with the suite's updates and security */
	strvec_pushl(args, c->suite, c->dir, NULL);
	strvec_pushf(env, "PGBUILD_DEB_CONTROL=%s", c->control);
}

/*
 * The chroot's mounts and the command, in a mount namespace of their own
 * (gone with its last process): pgoptcc's directories read-only and the
 * work directory at their own paths, /proc, a /dev/shm.  One fixed text;
 * the paths are its arguments: ROOT WORKDIR BIND... -- COMMAND...
 */
static const char chroot_script[] =
	"set -e\n"
	"root=$1 work=$2\n"
	"shift 2\n"
	"while [ \"$1\" != -- ]; do\n"
	"\tmkdir -p \"$root$1\"\n"
	"\tmount --bind \"$1\" \"$root$1\"\n"
	"\tmount -o remount,bind,ro \"$root$1\"\n"
	"\tshift\n"
	"done\n"
	"shift\n"
	"mkdir -p \"$root$work\"\n"
	"mount --bind \"$work\" \"$root$work\"\n"
	"mount -t proc proc \"$root/proc\"\n"
	"mount -t tmpfs -o mode=1777 tmpfs \"$root/dev/shm\"\n"
	"exec chroot \"$root\" \"$@\"\n";

void debenv_chroot_argv(const struct debenv_chroot *c, const char *dir,
			const struct strvec *env, const struct strvec *cmd, int net,
			struct strvec *args)
{
	strvec_pushl(args, "unshare", "--mount", "--propagation", "private", "--pid", "--fork",
		     "--kill-child", NULL);
	if (!net)
		strvec_push(args, "--net");
	strvec_pushl(args, "--", "sh", "-c", chroot_script, "sh", c->dir, c->workdir, NULL);
	strvec_pushv(args, (const char *const *)c->binds.v);
	strvec_pushl(args, "--", "/usr/bin/env", "-i", "-C", dir, NULL);
	strvec_pushv(args, (const char *const *)env->v);
	strvec_pushv(args, (const char *const *)cmd->v);
}

/* Is anything mounted at or below dir (real path)?  The first such mount
 * point into where; 1, 0, or -1 when /proc/self/mountinfo is unreadable. */
static int mounted_below(const char *dir, struct strbuf *where)
{
	struct strbuf text = STRBUF_INIT;
	size_t n = strlen(dir);
	char *line, *save = NULL;
	int found = 0;

	if (sfs_read(AT_FDCWD, "/proc/self/mountinfo", SFS_IN_SYSTEM, 0, &text, NULL) < 0) {
		strbuf_release(&text);
		return -1;
	}
	for (line = strtok_r(text.buf, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT ...; octal escapes (\040) */
		char *f = line;
		struct strbuf mp = STRBUF_INIT;
		for (int i = 0; i < 4 && f; i++)
			f = strchr(f, ' ') ? strchr(f, ' ') + 1 : NULL;
		for (; f && *f && *f != ' '; f++) {
			if (f[0] == '\\' && f[1] >= '0' && f[1] <= '3' && f[2] && f[3]) {
				strbuf_addch(&mp, (char)((f[1] - '0') * 64 + (f[2] - '0') * 8 + (f[3] - '0')));
				f += 3;
			} else {
				strbuf_addch(&mp, *f);
			}
		}
		if (mp.len >= n && !strncmp(mp.buf, dir, n) && (mp.buf[n] == '/' || !mp.buf[n])) {
			found = 1;
			strbuf_addstr(where, mp.buf);
		}
		strbuf_release(&mp);
	}
	strbuf_release(&text);
	return found;
}

int debenv_chroot_remove(const char *dir)
{
	char real[PATH_MAX];
	struct strbuf where = STRBUF_INIT;
	int m;

	if (!realpath(dir, real))
		return errno == ENOENT ? 0 : error("%s: %s", dir, strerror(errno));
	m = mounted_below(real, &where);
	if (m != 0) {
		if (m > 0)
			error("cannot remove the chroot %s: %s is mounted (umount it first)", real,
			      where.buf);
		else
			error("cannot remove the chroot %s: /proc/self/mountinfo is unreadable, "
			      "so what is mounted below it is unknown", real);
		strbuf_release(&where);
		return -1;
	}
	strbuf_release(&where);
	if (remove_tree(real) < 0)
		return error("cannot remove the chroot %s: %s", real, strerror(errno));
	return 0;
}
