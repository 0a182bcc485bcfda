/*
 * debcheck.c - `pgbuild deb`'s compare and modules stages: the packages
 * against the archive's, and every module of the packaged server loaded
 * with JIT forced; see debcheck.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "pgbuild/build/pkgcompare.h"
#include "pgbuild/cluster/cluster.h"
#include "pgbuild/cluster/serveruser.h"
#include "pgbuild/pgbuild.h"
#include "pgbuild/pipeline/debcheck.h"
#include "pgbuild/pipeline/debenv.h"
#include "wrapper/common/sha256.h"

const char *const debcheck_jit[] = {
	"jit=on", "jit_above_cost=0", "jit_inline_above_cost=0", "jit_optimize_above_cost=0",
	NULL,
};

/* Run args, its stdout (and stderr with merge) into out; its exit code. */
static int capture(struct strvec *args, const char *dir, struct strbuf *out, int merge)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	int rc;
	strvec_pushv(&cp.args, (const char *const *)args->v);
	cp.dir = dir;
	cp.no_stdin = 1;
	if (!merge)
		cp.no_stderr = 1;
	rc = capture_command(&cp, out, merge);
	child_process_clear(&cp);
	return rc;
}

/* ---------------- compare ---------------- */

/* One binary package file. */
struct debpkg {
	char *name, *version, *arch;  /* its control fields */
	char *deb;                    /* the .deb, absolute */
	long long installed_kib;      /* Installed-Size */
	long long deb_bytes;          /* the .deb's size */
	struct strvec files;          /* its regular files, relative */
};

struct debpkgs {
	struct debpkg *v;
	size_t nr, alloc;
};

static int is_deb(const char *name)
{
	size_t n = strlen(name);
	return n > 4 && !strcmp(name + n - 4, ".deb");
}

/* "Field: value" of dpkg-deb -f's output; malloced or NULL. */
static char *field_of(const char *text, const char *name)
{
	size_t n = strlen(name);
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, name, n) && l[n] == ':' && l[n + 1] == ' ')
			return xstrndup(l + n + 2, strcspn(l + n + 2, "\n"));
	return NULL;
}

/* The path of a member of dpkg-deb -c's listing line, without "./" and
 * what follows it on a link's line; NULL for "./" itself. */
static char *member_path(char *line)
{
	char *p = line, *end;
	for (int f = 0; f < 5 && p; f++) {
		p = strchr(p, ' ');
		if (p)
			p += strspn(p, " ");
	}
	if (!p || strncmp(p, "./", 2) || !p[2])
		return NULL;
	p += 2;
	if (line[0] == 'l' && (end = strstr(p, " -> ")))
		*end = '\0';
	if (line[0] == 'h' && (end = strstr(p, " link to ")))
		*end = '\0';
	end = p + strlen(p);
	while (end > p && end[-1] == '/')
		*--end = '\0';
	return p;
}

/* Every member of deb as dpkg-deb -c lists it ("-rw-r--r-- root/root SIZE
 * DATE TIME ./PATH", "l... ./PATH -> TARGET"): its path (member_path)
 * into paths and its type letter ('-', 'd', 'l', 'h', ...) into types, in
 * the same order.  The one reader of a package's listing (what it is
 * made of: extraction is debcheck_extract's, never from this listing). */
static int deb_list(const char *deb, struct strvec *paths, struct strbuf *types,
		    struct strbuf *err)
{
	struct strvec a = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT;
	char *line, *save = NULL;
	int rc;

	strvec_pushl(&a, "dpkg-deb", "-c", deb, NULL);
	rc = capture(&a, NULL, &out, 0);
	strvec_clear(&a);
	if (rc != 0) {
		strbuf_addf(err, "dpkg-deb -c %s failed (exit %d)", deb, rc);
		strbuf_release(&out);
		return -1;
	}
	for (line = strtok_r(out.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *m = member_path(line);
		if (!m)
			continue;
		strvec_push(paths, m);
		strbuf_addch(types, line[0]);
	}
	strbuf_release(&out);
	return 0;
}

/* The regular files of deb (deb_list), without the "./". */
static int deb_files(const char *deb, struct strvec *files, struct strbuf *err)
{
	struct strvec all = STRVEC_INIT;
	struct strbuf types = STRBUF_INIT;
	int rc = deb_list(deb, &all, &types, err);
	for (size_t i = 0; rc == 0 && i < all.nr; i++)
		if (types.buf[i] == '-')
			strvec_push(files, all.v[i]);
	strvec_clear(&all);
	strbuf_release(&types);
	return rc;
}

static int cmp_pkg(const void *a, const void *b)
{
	const struct debpkg *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->deb, y->deb);
}

/* The .debs of dir (but -dbgsym ones), with their fields and files, in
 * name order. */
static int list_debs(const char *dir, struct debpkgs *debs, struct strbuf *err)
{
	DIR *dh = opendir(dir);
	struct dirent *e;
	int rc = 0;

	if (!dh) {
		strbuf_addf(err, "%s: %s", dir, strerror(errno));
		return -1;
	}
	while (rc == 0 && (e = readdir(dh))) {
		struct strvec a = STRVEC_INIT;
		struct strbuf fields = STRBUF_INIT;
		struct debpkg *p;
		char *deb, *size;
		struct stat st;
		if (!is_deb(e->d_name))
			continue;
		deb = xasprintf("%s/%s", dir, e->d_name);
		strvec_pushl(&a, "dpkg-deb", "-f", deb, "Package", "Version", "Architecture",
			     "Installed-Size", NULL);
		if (capture(&a, NULL, &fields, 0) != 0 || stat(deb, &st) < 0) {
			strbuf_addf(err, "dpkg-deb -f %s failed: is it a Debian package?", deb);
			rc = -1;
		} else {
			char *name = field_of(fields.buf, "Package");
			size_t n = name ? strlen(name) : 0;
			if (!name || (n > 7 && !strcmp(name + n - 7, "-dbgsym"))) {
				free(name);
				free(deb);
				deb = NULL;
			} else {
				ALLOC_GROW(debs->v, debs->nr + 1, debs->alloc);
				p = &debs->v[debs->nr++];
				memset(p, 0, sizeof(*p));
				p->name = name;
				p->version = field_of(fields.buf, "Version");
				p->arch = field_of(fields.buf, "Architecture");
				size = field_of(fields.buf, "Installed-Size");
				p->installed_kib = size ? atoll(size) : 0;
				free(size);
				p->deb_bytes = (long long)st.st_size;
				p->deb = deb;
				deb = NULL;
				strvec_init(&p->files);
				if (deb_files(p->deb, &p->files, err) < 0)
					rc = -1;
			}
		}
		free(deb);
		strvec_clear(&a);
		strbuf_release(&fields);
	}
	closedir(dh);
	if (debs->nr)
		qsort(debs->v, debs->nr, sizeof(*debs->v), cmp_pkg);
	return rc;
}

static void debpkgs_release(struct debpkgs *d)
{
	for (size_t i = 0; i < d->nr; i++) {
		free(d->v[i].name);
		free(d->v[i].version);
		free(d->v[i].arch);
		free(d->v[i].deb);
		strvec_clear(&d->v[i].files);
	}
	free(d->v);
	memset(d, 0, sizeof(*d));
}

static const struct debpkg *find_pkg(const struct debpkgs *d, const char *name)
{
	for (size_t i = 0; i < d->nr; i++)
		if (!strcmp(d->v[i].name, name))
			return &d->v[i];
	return NULL;
}

/* Only the archive's packages of our names at our versions kept in arch
 * (the rest said in log, when not NULL): what is compared, extracted and
 * gated against is the archive's build of what we built, one each (two
 * .debs of one package and version: -1, named in err; arch is in name
 * order, list_debs). */
static int keep_ours(struct debpkgs *arch, const struct debpkgs *ours, FILE *log,
		     struct strbuf *err)
{
	size_t k = 0;
	int rc = 0;
	for (size_t i = 0; i < arch->nr; i++) {
		struct debpkg *a = &arch->v[i];
		const struct debpkg *p = find_pkg(ours, a->name);
		if (p && !strcmp(p->version, a->version)) {
			if (k && !strcmp(arch->v[k - 1].name, a->name) && !rc) {
				strbuf_addf(err, "the archive has two .debs of %s %s: %s and %s",
					    a->name, a->version, arch->v[k - 1].deb, a->deb);
				rc = -1;
			}
			arch->v[k++] = *a;
			continue;
		}
		if (log)
			fprintf(log, "note: %s (%s %s) is not a package of ours at our version: "
				"left out\n", a->deb, a->name, a->version);
		free(a->name);
		free(a->version);
		free(a->arch);
		free(a->deb);
		strvec_clear(&a->files);
	}
	arch->nr = k;
	return rc;
}

/* The archive's .debs of our packages' names and versions, downloaded
 * into dir (those already there kept); what the archive has not is
 * named in missing. */
static void download(const struct debpkgs *ours, const char *dir, FILE *log,
		     struct strvec *missing)
{
	struct debpkgs have = { NULL, 0, 0 };
	struct strbuf err = STRBUF_INIT;

	list_debs(dir, &have, &err);
	for (size_t i = 0; i < ours->nr; i++) {
		const struct debpkg *p = &ours->v[i], *h = find_pkg(&have, p->name);
		struct strvec a = STRVEC_INIT;
		struct strbuf out = STRBUF_INIT;
		int rc;
		if (h && !strcmp(h->version, p->version))
			continue;
		strvec_pushl(&a, "apt-get", "download", NULL);
		strvec_pushf(&a, "%s=%s", p->name, p->version);
		rc = capture(&a, dir, &out, 1);
		fprintf(log, "apt-get download %s=%s: exit %d\n%s", p->name, p->version, rc, out.buf);
		if (rc != 0)
			strvec_pushf(missing, "%s=%s", p->name, p->version);
		strvec_clear(&a);
		strbuf_release(&out);
	}
	debpkgs_release(&have);
	strbuf_release(&err);
}

/* Every entry below the top root's, and no set-id bit: what a package
 * said of owners and modes is not taken as root (dpkg-deb -x as root
 * keeps both). */
static enum sfs_walk_next own_entry(struct sfs_entry *e, void *ctx)
{
	(void)ctx;
	if ((e->st.st_uid != 0 || e->st.st_gid != 0) &&
	    fchownat(e->fd, e->name, 0, 0, AT_SYMLINK_NOFOLLOW) < 0) {
		if (e->err)
			strbuf_addf(e->err, "cannot chown %s: %s", e->path, strerror(errno));
		return SFS_WALK_ERROR;
	}
	if (!S_ISLNK(e->st.st_mode)) {
		mode_t mode = e->st.st_mode & 07777;
		mode_t keep = mode & ~(mode_t)(S_ISUID | S_ISGID | S_IWOTH);
		if (keep != mode && fchmodat(e->fd, e->name, keep, 0) < 0) {
			if (e->err)
				strbuf_addf(e->err, "cannot chmod %s: %s", e->path, strerror(errno));
			return SFS_WALK_ERROR;
		}
	}
	return SFS_WALK_NEXT;
}

/* What merge_entry needs: the tree's top and the package it merges. */
struct merge_ctx {
	int rootfd;           /* root, the merged tree */
	const char *root;     /* its path, for messages */
	const char *deb;      /* the package being merged */
};

/*
 * One entry of a package's own extraction merged into root, never through
 * a link: a directory is root's directory of that name (made when there is
 * none; a link or a file there is refused), anything else is linked in
 * (linkat: the same inode, a symbolic link as itself) where nothing is:
 * a path two packages ship is refused, as dpkg refuses it.  Devices and
 * FIFOs are refused.
 */
static enum sfs_walk_next merge_entry(struct sfs_entry *e, void *ctx)
{
	const struct merge_ctx *m = ctx;
	int dst = e->parent_out >= 0 ? e->parent_out : m->rootfd;
	struct stat st;

	if (S_ISDIR(e->st.st_mode)) {
		int fd = openat(dst, e->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT && mkdirat(dst, e->name, 0755) == 0)
			fd = openat(dst, e->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			if (e->err)
				strbuf_addf(e->err, "%s: its directory %s is %s in %s, which another "
					    "package made: refused", m->deb, e->rel,
					    errno == ELOOP || errno == ENOTDIR ? "no directory" :
					    strerror(errno), m->root);
			return SFS_WALK_ERROR;
		}
		e->out = fd;
		return SFS_WALK_NEXT;
	}
	if (!S_ISREG(e->st.st_mode) && !S_ISLNK(e->st.st_mode)) {
		if (e->err)
			strbuf_addf(e->err, "%s: its %s is %s: refused", m->deb, e->rel,
				    sfs_kind(e->st.st_mode));
		return SFS_WALK_ERROR;
	}
	if (fstatat(dst, e->name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (e->err)
			strbuf_addf(e->err, "%s: ships %s, which another package in %s ships too: "
				    "refused (dpkg refuses it too)", m->deb, e->rel, m->root);
		return SFS_WALK_ERROR;
	}
	if (linkat(e->fd, e->name, dst, e->name, 0) < 0) {
		if (e->err)
			strbuf_addf(e->err, "cannot link %s into %s: %s", e->path, m->root,
				    strerror(errno));
		return SFS_WALK_ERROR;
	}
	return SFS_WALK_NEXT;
}

/* deb extracted into stage (made afresh, 0700: nobody else reaches what it
 * holds before own_entry is done with it), owned, then merged into rootfd. */
static int extract_one(const char *deb, const char *stage, const struct merge_ctx *m,
		       struct strbuf *err)
{
	struct strvec a = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT;
	int rc, fd = -1;

	if (sfs_remove(AT_FDCWD, stage, err) < 0 ||
	    (fd = sfs_mkdir(AT_FDCWD, stage, 0700, (uid_t)-1, (gid_t)-1, 0, err)) < 0)
		return -1;
	/* one archive alone: tar keeps its members below stage (a link that
	 * leaves it is made last, as a placeholder until then) */
	strvec_pushl(&a, "dpkg-deb", "-x", deb, stage, NULL);
	rc = capture(&a, NULL, &out, 1);
	strvec_clear(&a);
	if (rc != 0)
		strbuf_addf(err, "dpkg-deb -x %s failed: %s", deb, out.buf);
	strbuf_release(&out);
	if (rc != 0) {
		close(fd);
		return -1;
	}
	rc = sfs_walk_tree(fd, stage, own_entry, NULL, err) == 0 &&
	     sfs_walk_tree(fd, stage, merge_entry, (void *)m, err) == 0 ? 0 : -1;
	close(fd);
	return rc;
}

int debcheck_extract(const char *const *debs, size_t nr, const char *root, struct strbuf *err)
{
	char *stage = xasprintf("%s.x", root);
	struct merge_ctx m = { -1, root, NULL };
	int rc = -1;

	if (sfs_remove(AT_FDCWD, root, err) < 0 ||
	    (m.rootfd = sfs_mkdir(AT_FDCWD, root, 0755, (uid_t)-1, (gid_t)-1, 0, err)) < 0)
		goto out;
	for (size_t i = 0; i < nr; i++) {
		m.deb = debs[i];
		if (extract_one(debs[i], stage, &m, err) < 0)
			goto out;
	}
	rc = 0;
out:
	if (m.rootfd >= 0)
		close(m.rootfd);
	sfs_remove(AT_FDCWD, stage, NULL);
	if (rc < 0)
		sfs_remove(AT_FDCWD, root, NULL);  /* nothing half-made is left, nor what it held */
	free(stage);
	return rc;
}

/* Every .deb of debs extracted into root (made afresh). */
static int extract(const struct debpkgs *debs, const char *root, struct strbuf *err)
{
	struct strvec v = STRVEC_INIT;
	int rc;
	for (size_t i = 0; i < debs->nr; i++)
		strvec_push(&v, debs->v[i].deb);
	rc = debcheck_extract((const char *const *)v.v, v.nr, root, err);
	strvec_clear(&v);
	return rc;
}

/* The side's file list for pkgcompare (pointing into debs). */
static struct pkgcmp_file *file_list(const struct debpkgs *debs, size_t *nr)
{
	struct pkgcmp_file *v = NULL;
	size_t alloc = 0;
	*nr = 0;
	for (size_t i = 0; i < debs->nr; i++)
		for (size_t k = 0; k < debs->v[i].files.nr; k++) {
			ALLOC_GROW(v, *nr + 1, alloc);
			v[*nr].path = debs->v[i].files.v[k];
			v[*nr].package = debs->v[i].name;
			(*nr)++;
		}
	return v;
}

static double ratio(long long a, long long b)
{
	return b > 0 ? (double)a / (double)b : 0;
}

/* The size table, into log and the JSON. */
static void sizes(const struct debpkgs *ours, const struct debpkgs *arch, FILE *log,
		  struct json_writer *jw, double *inst_ratio, double *deb_ratio)
{
	long long ti = 0, tai = 0, td = 0, tad = 0;

	fprintf(log, "\nsizes against the archive's (Installed-Size KiB, .deb bytes):\n");
	fprintf(log, "  %-32s %10s %10s %7s %11s %11s %7s\n", "package", "installed", "archive",
		"ratio", "deb", "archive", "ratio");
	json_key(jw, "packages");
	json_array_begin(jw);
	for (size_t i = 0; i < ours->nr; i++) {
		const struct debpkg *p = &ours->v[i], *a = find_pkg(arch, p->name);
		json_object_begin(jw);
		json_key(jw, "package"); json_string(jw, p->name);
		json_key(jw, "version"); json_string(jw, p->version);
		json_key(jw, "installed_kib"); json_int(jw, p->installed_kib);
		json_key(jw, "deb_bytes"); json_int(jw, p->deb_bytes);
		json_key(jw, "archive_version"); json_string(jw, a ? a->version : NULL);
		if (a) {
			json_key(jw, "archive_installed_kib"); json_int(jw, a->installed_kib);
			json_key(jw, "archive_deb_bytes"); json_int(jw, a->deb_bytes);
			fprintf(log, "  %-32s %10lld %10lld %7.3f %11lld %11lld %7.3f\n", p->name,
				p->installed_kib, a->installed_kib, ratio(p->installed_kib, a->installed_kib),
				p->deb_bytes, a->deb_bytes, ratio(p->deb_bytes, a->deb_bytes));
			ti += p->installed_kib;
			tai += a->installed_kib;
			td += p->deb_bytes;
			tad += a->deb_bytes;
		} else {
			fprintf(log, "  %-32s %10lld %10s\n", p->name, p->installed_kib,
				"(not in the archive)");
		}
		json_object_end(jw);
	}
	json_array_end(jw);
	*inst_ratio = ratio(ti, tai);
	*deb_ratio = ratio(td, tad);
	fprintf(log, "  %-32s %10lld %10lld %7.3f %11lld %11lld %7.3f\n", "total", ti, tai,
		*inst_ratio, td, tad, *deb_ratio);
}

/* A directory stream of a copy of fd (the caller keeps fd), or NULL with
 * why in err. */
static DIR *dir_of(int fd, const char *path, struct strbuf *err)
{
	int d = dup(fd);
	DIR *dh = d < 0 ? NULL : fdopendir(d);
	if (!dh) {
		strbuf_addf(err, "cannot read %s: %s", path, strerror(errno));
		if (d >= 0)
			close(d);
	}
	return dh;
}

/* The .debs of --archive DIR copied into adir (ours, made by the caller),
 * those there before removed: what is listed, extracted and hashed is
 * then one copy nobody else can change (DIR may be anyone's), each read
 * once through the bounded reader, never through a link. */
static int import_archive(const char *archive, const char *adir, FILE *log, struct strbuf *err)
{
	char *real = realpath(archive, NULL);
	int from = -1, to = -1, rc = -1, n = 0;
	DIR *dh = NULL;
	struct dirent *e;

	if (!real) {
		strbuf_addf(err, "--archive %s: %s", archive, strerror(errno));
		goto out;
	}
	if ((to = sfs_open_dir(AT_FDCWD, adir, err)) < 0 ||
	    (from = sfs_open_dir(AT_FDCWD, real, err)) < 0)
		goto out;
	if (!(dh = dir_of(to, adir, err)))
		goto out;
	while ((e = readdir(dh)))
		if (is_deb(e->d_name) && unlinkat(to, e->d_name, 0) < 0) {
			strbuf_addf(err, "cannot remove %s/%s: %s", adir, e->d_name, strerror(errno));
			goto out;
		}
	closedir(dh);
	if (!(dh = dir_of(from, real, err)))
		goto out;
	while ((e = readdir(dh))) {
		if (!is_deb(e->d_name))
			continue;
		if (sfs_copy_back(from, e->d_name, to, e->d_name, SFS_IN_BINARY, 0644, err) < 0)
			goto out;
		n++;
	}
	fprintf(log, "--archive %s: %d .deb%s copied into %s\n", real, n, n == 1 ? "" : "s", adir);
	rc = 0;
out:
	if (dh)
		closedir(dh);
	if (from >= 0)
		close(from);
	if (to >= 0)
		close(to);
	free(real);
	return rc;
}

int debcheck_compare(const char *workdir, const char *archive, FILE *log)
{
	struct debpkgs ours = { NULL, 0, 0 }, arch = { NULL, 0, 0 };
	struct strvec missing = STRVEC_INIT, libdirs = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT, json = STRBUF_INIT;
	struct json_writer jw = JSON_WRITER_INIT(&json);
	struct pkgcmp_result r = PKGCMP_RESULT_INIT;
	struct pkgcmp_opts o;
	char *adir = xasprintf("%s/archive", workdir);
	char *aroot = xasprintf("%s/archive/root", workdir), *croot = xasprintf("%s/root", workdir);
	char *jpath = xasprintf("%s/compare.json", workdir);
	double ir = 0, dr = 0;
	int rc = PGBUILD_EXIT_ERROR;

	memset(&o, 0, sizeof(o));
	if (list_debs(workdir, &ours, &err) < 0 || !ours.nr) {
		error("compare: %s", err.len ? err.buf : "no .deb in the work directory");
		goto out;
	}
	{
		/* the archive's packages are extracted there (and downloaded,
		 * without --archive) */
		char *mk = xasprintf("%s/archive", workdir);
		if (mkdir(mk, 0755) < 0 && errno != EEXIST) {
			error("cannot make %s: %s", mk, strerror(errno));
			free(mk);
			goto out;
		}
		free(mk);
	}
	if (!archive)
		download(&ours, adir, log, &missing);
	else if (import_archive(archive, adir, log, &err) < 0) {
		error("compare: %s", err.buf);
		goto out;
	}
	if (list_debs(adir, &arch, &err) < 0) {
		error("compare: %s", err.buf);
		goto out;
	}
	if (keep_ours(&arch, &ours, log, &err) < 0) {
		error("compare: %s", err.buf);
		goto out;
	}
	if (!arch.nr) {
		error("compare: the archive has none of the packages built (%s%s): give the "
		      "archive's .debs with --archive DIR, or --no-compare",
		      missing.nr ? "apt-get download failed for " : "no .deb in ",
		      missing.nr ? missing.v[0] : adir);
		goto out;
	}
	for (size_t i = 0; i < missing.nr; i++)
		fprintf(log, "note: the archive has no %s: its package is not compared\n",
			missing.v[i]);
	if (debenv_libdirs(&libdirs) < 0 || extract(&arch, aroot, &err) < 0) {
		if (err.len)
			error("compare: %s", err.buf);
		goto out;
	}
	o.cand.root = croot;
	o.cand.files = file_list(&ours, &o.cand.nfiles);
	o.arch.root = aroot;
	o.arch.files = file_list(&arch, &o.arch.nfiles);
	o.libdirs = (const char *const *)libdirs.v;
	if (pkgcmp_compare(&o, &r, &err) < 0) {
		error("compare: %s", err.buf);
		goto out;
	}
	fprintf(log, "compare: %zu package%s of ours (%s) against the archive's (%s)\n", ours.nr,
		ours.nr == 1 ? "" : "s", ours.v[0].version, archive ? archive : "apt-get download");
	pkgcmp_print(log, &r, 20);
	if (r.failures)
		pkgcmp_print(stderr, &r, 5);
	json_object_begin(&jw);
	json_key(&jw, "archive"); json_string(&jw, adir);
	json_key(&jw, "elf_files"); json_int(&jw, r.files);
	json_key(&jw, "failed_files"); json_int(&jw, r.failed);
	json_key(&jw, "failures"); json_int(&jw, r.failures);
	json_key(&jw, "findings");
	pkgcmp_json(&jw, &r);
	sizes(&ours, &arch, log, &jw, &ir, &dr);
	json_key(&jw, "installed_ratio"); json_double(&jw, ir);
	json_key(&jw, "deb_ratio"); json_double(&jw, dr);
	json_object_end(&jw);
	strbuf_addch(&json, '\n');
	if (write_file_atomic(jpath, json.buf, json.len) < 0) {
		error("cannot write %s: %s", jpath, strerror(errno));
		goto out;
	}
	{
		struct strbuf first = STRBUF_INIT;
		for (size_t i = 0; i < r.nr && !first.len; i++)
			if (pkgcmp_kind_fails(r.v[i].kind))
				strbuf_addf(&first, "%s", r.v[i].path);
		if (r.failures)
			fprintf(log, "compare: FAILED: %ld of %ld ELF files differ from the archive's "
				"in what they link (first: %s; %s)\n", r.failed, r.files, first.buf,
				jpath);
		else
			fprintf(log, "compare: OK: %ld ELF files of %zu package%s link as the archive's "
				"(needed libraries, undefined symbols, exports); installed size %.3fx, "
				".deb %.3fx the archive's\n", r.files, ours.nr, ours.nr == 1 ? "" : "s",
				ir, dr);
		strbuf_release(&first);
	}
	rc = r.failures ? PGBUILD_EXIT_FAIL : 0;
out:
	free((void *)o.cand.files);
	free((void *)o.arch.files);
	pkgcmp_release(&r);
	debpkgs_release(&ours);
	debpkgs_release(&arch);
	strvec_clear(&missing);
	strvec_clear(&libdirs);
	strbuf_release(&err);
	strbuf_release(&json);
	free(adir);
	free(aroot);
	free(croot);
	free(jpath);
	return rc;
}

/* ---------------- the gate's baseline ---------------- */

/* The package of debs that ships rel (a regular file), or NULL. */
static const struct debpkg *shipping(const struct debpkgs *debs, const char *rel)
{
	for (size_t i = 0; i < debs->nr; i++)
		for (size_t k = 0; k < debs->v[i].files.nr; k++)
			if (!strcmp(debs->v[i].files.v[k], rel))
				return &debs->v[i];
	return NULL;
}

int debcheck_installed(const char *name, const char *version, struct strbuf *err)
{
	struct strvec a = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT;
	int rc;

	strvec_pushl(&a, "dpkg-query", "-W", "-f", "${db:Status-Status} ${Version}", name, NULL);
	rc = capture(&a, NULL, &out, 0);
	strvec_clear(&a);
	strbuf_trim(&out);
	if (rc != 0 || strncmp(out.buf, "installed ", 10)) {
		strbuf_addf(err, "%s is not installed", name);
		goto fail;
	}
	if (strcmp(out.buf + 10, version)) {
		strbuf_addf(err, "the installed %s is %s, not the built %s", name, out.buf + 10,
			    version);
		goto fail;
	}
	strbuf_reset(&out);
	strvec_pushl(&a, "dpkg", "--verify", name, NULL);
	rc = capture(&a, NULL, &out, 1);
	strvec_clear(&a);
	if (rc != 0 || out.len) {
		strbuf_addf(err, "the installed %s %s is not as its package shipped it (dpkg "
			    "--verify %s: %.*s)", name, version, name,
			    (int)strcspn(out.len ? out.buf : "exit status", "\n"),
			    out.len ? out.buf : "exit status");
		goto fail;
	}
	strbuf_release(&out);
	return 0;
fail:
	strbuf_release(&out);
	return -1;
}

char *debcheck_baseline(const char *workdir, const char *archive, const char *server,
			int compared, struct strbuf *what, struct strbuf *ident, struct strbuf *err)
{
	struct debpkgs ours = { NULL, 0, 0 }, arch = { NULL, 0, 0 };
	const char *major = strrchr(server, '/') + 1;
	char *rel = xasprintf("usr/lib/postgresql/%s/bin/postgres", major), *found = NULL;
	char *adir = xasprintf("%s/archive", workdir);
	const struct debpkg *p, *a = NULL;
	struct strbuf why = STRBUF_INIT;

	if (list_debs(workdir, &ours, err) < 0)
		goto out;
	if (!(p = shipping(&ours, rel))) {
		strbuf_addf(err, "no package of %s ships %s", workdir, rel);
		goto out;
	}
	if (compared && list_debs(adir, &arch, &why) == 0 &&
	    keep_ours(&arch, &ours, NULL, &why) == 0)
		a = find_pkg(&arch, p->name);
	if (a && !strcmp(a->version, p->version)) {
		char *prefix = xasprintf("%s/archive/root/usr/lib/postgresql/%s", workdir, major);
		char *pg = xasprintf("%s/bin/postgres", prefix);
		char hex[65];
		if (access(pg, X_OK) == 0 &&
		    sha256_file(AT_FDCWD, a->deb, SFS_IN_BINARY, 0, hex, err) == 0) {
			strbuf_addf(what, "the archive's %s %s (%s, extracted by compare)", p->name,
				    p->version, archive ? archive : "apt-get download");
			strbuf_addf(ident, "archive:%s=%s:sha256=%s", p->name, p->version, hex);
			found = prefix;
			prefix = NULL;
		}
		free(pg);
		free(prefix);
		if (found || err->len)
			goto out;
	}
	if (debcheck_installed(p->name, p->version, &why) == 0) {
		found = xasprintf("/usr/lib/postgresql/%s", major);
		strbuf_addf(what, "the installed %s %s (dpkg --verify: as shipped)", p->name,
			    p->version);
		strbuf_addf(ident, "installed:%s=%s", p->name, p->version);
		goto out;
	}
	strbuf_addf(err, "the gate compares with the distribution's build of the same version, "
		    "%s %s: %s%s; %s", p->name, p->version,
		    !compared ? "not downloaded (--no-compare), and " :
		    !a ? "not in the archive's packages, and " : "the archive's is another version, and ",
		    why.buf, !compared ? "drop --no-compare (compare downloads it), or give "
		    "--baseline PREFIX" : "give --archive DIR with it, or --baseline PREFIX");
out:
	debpkgs_release(&ours);
	debpkgs_release(&arch);
	strbuf_release(&why);
	free(rel);
	free(adir);
	return found;
}

/* ---------------- modules ---------------- */

/* Are the directories the package's pg_config named (pkglib, share) in
 * the package's own tree?  What it says is data, and a directory outside
 * would check another install's modules.  0, or -1 after the error. */
static int package_dirs(const char *server, const char *pkglib, const char *share)
{
	const char *tail = strstr(server, "/usr/lib/postgresql/");
	size_t n = tail ? (size_t)(tail - server) : 0;
	const char *bad = !tail ? server :
			  strncmp(pkglib, server, n) || pkglib[n] != '/' || strstr(pkglib, "/../") ? pkglib :
			  strncmp(share, server, n) || share[n] != '/' || strstr(share, "/../") ? share : NULL;
	if (bad)
		return error("modules: %s/bin/pg_config says %s, outside the package's tree %.*s",
			     server, bad, (int)n, server);
	return 0;
}

/* pg_config --KEY of the packaged server; malloced or NULL. */
static char *pg_config(const char *server, const char *key)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct cluster_user u = CLUSTER_USER_INIT;
	struct strbuf out = STRBUF_INIT;
	int rc;
	/* the package's program runs as the server user, never as root */
	if (cluster_user_get(&u, NULL, NULL, &out) < 0) {
		error("%s", out.buf);
		strbuf_release(&out);
		return NULL;
	}
	strvec_pushf(&cp.args, "%s/bin/pg_config", server);
	strvec_push(&cp.args, key);
	cluster_user_apply(&u, &cp);
	cp.no_stdin = 1;
	cp.no_stderr = 1;
	rc = capture_command(&cp, &out, 0);
	child_process_clear(&cp);
	cluster_user_release(&u);
	strbuf_trim(&out);
	if (rc != 0 || !out.len) {
		strbuf_release(&out);
		return NULL;
	}
	return strbuf_detach(&out, NULL);
}

/* The names in dir ending in suffix, without it, sorted. */
static void names_in(const char *dir, const char *suffix, struct strvec *out)
{
	DIR *dh = opendir(dir);
	struct dirent *e;
	size_t n = strlen(suffix);
	while (dh && (e = readdir(dh))) {
		size_t len = strlen(e->d_name);
		if (len > n && !strcmp(e->d_name + len - n, suffix))
			strvec_push_nodup(out, xstrndup(e->d_name, len - n));
	}
	if (dh)
		closedir(dh);
	for (size_t i = 1; i < out->nr; i++)   /* a few hundred: insertion sort */
		for (size_t k = i; k > 0 && strcmp(out->v[k - 1], out->v[k]) > 0; k--) {
			char *t = out->v[k];
			out->v[k] = out->v[k - 1];
			out->v[k - 1] = t;
		}
}

/* A connection to db, retried while the server restarts after a crash. */
static PGconn *connect_to(const struct cluster *cl, const char *db)
{
	for (int tries = 0;; tries++) {
		PGconn *conn = PQconnectdb(cluster_conninfo(cl, db));
		struct timespec ts = { 0, 200 * 1000 * 1000 };
		if (PQstatus(conn) == CONNECTION_OK || tries >= 50)
			return conn;
		PQfinish(conn);
		nanosleep(&ts, NULL);
	}
}

/* prefix, then s quoted with q (a literal: ', an identifier: "), the
 * quote doubled inside; for CREATE EXTENSION, " CASCADE" after an
 * identifier.  Malloced. */
static char *quoted(const char *prefix, char q, const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s%c", prefix, q);
	for (; *s; s++) {
		if (*s == q)
			strbuf_addch(&sb, q);
		strbuf_addch(&sb, *s);
	}
	strbuf_addch(&sb, q);
	if (q == '"')
		strbuf_addstr(&sb, " CASCADE");
	return strbuf_detach(&sb, NULL);
}

/* Run sql in a session of its own: 0, or -1 with the server's error (or
 * what happened to the session) in err. */
static int run_sql(const struct cluster *cl, const char *db, const char *sql, struct strbuf *out,
		   struct strbuf *err)
{
	PGconn *conn = connect_to(cl, db);
	PGresult *res;
	int rc = 0;

	if (PQstatus(conn) != CONNECTION_OK) {
		strbuf_addf(err, "cannot connect: %s", PQerrorMessage(conn));
		strbuf_trim(err);
		PQfinish(conn);
		return -1;
	}
	PQclear(PQexec(conn, "SET client_min_messages = warning"));
	res = PQexec(conn, sql);
	if (PQresultStatus(res) == PGRES_TUPLES_OK) {
		for (int i = 0; out && i < PQntuples(res); i++)
			strbuf_addf(out, "%s\n", PQgetvalue(res, i, 0));
	} else if (PQresultStatus(res) != PGRES_COMMAND_OK) {
		const char *msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
		strbuf_addstr(err, msg ? msg : PQerrorMessage(conn));
		strbuf_trim(err);
		rc = -1;
	}
	PQclear(res);
	PQfinish(conn);
	return rc;
}

int debcheck_modules(const char *server, FILE *log)
{
	char *pkglib = pg_config(server, "--pkglibdir"), *share = pg_config(server, "--sharedir");
	char *extdir = NULL;
	struct strvec mods = STRVEC_INIT, exts = STRVEC_INIT;
	struct strbuf problems = STRBUF_INIT, notes = STRBUF_INIT, out = STRBUF_INIT,
		      err = STRBUF_INIT, crashes = STRBUF_INIT;
	struct cluster_options co = CLUSTER_OPTIONS_INIT;
	struct cluster cl;
	long loaded = 0, created = 0, nfail = 0, jit_functions = -1;
	int rc = PGBUILD_EXIT_ERROR, made = 0, have_jit;

	if (!pkglib || !share) {
		error("modules: %s/bin/pg_config --pkglibdir/--sharedir failed", server);
		goto out;
	}
	if (package_dirs(server, pkglib, share) < 0)
		goto out;
	extdir = xasprintf("%s/extension", share);
	names_in(pkglib, ".so", &mods);
	names_in(extdir, ".control", &exts);
	{
		char *jit = xasprintf("%s/llvmjit.so", pkglib);
		have_jit = access(jit, F_OK) == 0;
		free(jit);
	}
	fprintf(log, "modules: %zu modules in %s, %zu extensions in %s; the server's settings:",
		mods.nr, pkglib, exts.nr, extdir);
	co.prefix = server;
	co.quiet = 1;
	strvec_push(&co.settings, "fsync=off");
	strvec_pushv(&co.settings, debcheck_jit);
	for (size_t i = 0; i < co.settings.nr; i++)
		fprintf(log, " %s", co.settings.v[i]);
	fputc('\n', log);
	fflush(log);
	if (cluster_create(&cl, &co) < 0)
		goto out;
	made = 1;
	if (cluster_start(&cl) < 0)
		goto out;

	/* every module: LOAD, each in a session of its own */
	for (size_t i = 0; i < mods.nr; i++) {
		char *path = xasprintf("%s/%s.so", pkglib, mods.v[i]);
		char *sql = quoted("LOAD ", '\'', path);
		strbuf_reset(&err);
		if (run_sql(&cl, "postgres", sql, NULL, &err) == 0) {
			loaded++;
		} else if (!strncmp(err.buf, "could not load library", 22) ||
			   !strncmp(err.buf, "cannot connect", 14) ||
			   strstr(err.buf, "server closed the connection")) {
			strbuf_addf(&problems, "FAIL %s.so does not load: %s\n", mods.v[i], err.buf);
			nfail++;
		} else {
			/* it loaded; its own _PG_init refused to run here */
			loaded++;
			strbuf_addf(&notes, "note %s.so loaded, its initialization refused: %s\n",
				    mods.v[i], err.buf);
		}
		free(sql);
		free(path);
	}
	/* every extension, CASCADE (what it requires) */
	strbuf_reset(&err);
	if (run_sql(&cl, "postgres", "CREATE DATABASE pgbuild_modules", NULL, &err) < 0) {
		error("modules: CREATE DATABASE: %s", err.buf);
		goto out;
	}
	for (size_t i = 0; i < exts.nr; i++) {
		char *sql = quoted("CREATE EXTENSION IF NOT EXISTS ", '"', exts.v[i]);
		strbuf_reset(&err);
		if (run_sql(&cl, "pgbuild_modules", sql, NULL, &err) == 0) {
			created++;
		} else {
			strbuf_addf(&problems, "FAIL CREATE EXTENSION %s: %s\n", exts.v[i], err.buf);
			nfail++;
		}
		free(sql);
	}
	/* JIT: the provider loads, and a query is compiled */
	if (have_jit) {
		strbuf_reset(&err);
		strbuf_reset(&out);
		if (run_sql(&cl, "postgres", "SELECT pg_jit_available()", &out, &err) < 0 ||
		    strcmp(out.buf, "t\n")) {
			strbuf_addf(&problems, "FAIL JIT: pg_jit_available() is %s%s\n",
				    err.len ? "an error: " : out.buf[0] ? "false" : "empty", err.buf);
			nfail++;
		} else {
			const char *f;
			strbuf_reset(&out);
			strbuf_reset(&err);
			if (run_sql(&cl, "postgres",
				    "EXPLAIN (ANALYZE, FORMAT JSON) SELECT count(*) FROM "
				    "generate_series(1, 10000) g WHERE g % 7 = 3", &out, &err) == 0 &&
			    (f = strstr(out.buf, "\"Functions\": ")))
				jit_functions = atol(f + strlen("\"Functions\": "));
			if (jit_functions <= 0) {
				strbuf_addf(&problems, "FAIL JIT: a query with jit_above_cost=0 was not "
					    "compiled%s%s\n", err.len ? ": " : "", err.buf);
				nfail++;
			}
		}
	}
	cluster_stop(&cl);
	cluster_check_log(&cl, &out);
	cluster_log_crashes(out.buf, &crashes);
	if (crashes.len) {
		strbuf_addf(&problems, "FAIL the server crashed:\n%s", crashes.buf);
		nfail++;
	}
	fputs(notes.buf, log);
	fputs(problems.buf, log);
	fputs(problems.buf, stderr);
	if (nfail) {
		fprintf(log, "modules: FAILED: %ld problems: %ld of %zu modules loaded, %ld of %zu "
			"extensions created (JIT forced on every query)\n", nfail, loaded, mods.nr,
			created, exts.nr);
		rc = PGBUILD_EXIT_FAIL;
	} else {
		fprintf(log, "modules: OK: %ld modules loaded, %ld extensions created (CASCADE), JIT "
			"forced on every query%s", loaded, created,
			have_jit ? "" : " (no JIT provider in the package)");
		if (jit_functions > 0)
			fprintf(log, ": a test query JIT-compiled %ld functions", jit_functions);
		fputc('\n', log);
		rc = 0;
	}
out:
	if (made)
		cluster_destroy(&cl);
	strvec_clear(&co.settings);
	strvec_clear(&mods);
	strvec_clear(&exts);
	strbuf_release(&problems);
	strbuf_release(&notes);
	strbuf_release(&out);
	strbuf_release(&err);
	strbuf_release(&crashes);
	free(pkglib);
	free(share);
	free(extdir);
	return rc;
}
