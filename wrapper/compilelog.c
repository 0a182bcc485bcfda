/*
 * compilelog.c - atomic appends to compile.jsonl, the record of one
 * invocation and the output guard; see compilelog.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "wrapper/compilelog.h"
#include "wrapper/invocation.h"
#include "wrapper/common/json.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/xalloc.h"

/* mkdir -p */
static int mkdirs(const char *dir)
{
	char *p = xstrdup(dir);
	int r = 0;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			r = -1;
			break;
		}
		*s = '/';
	}
	if (!r && mkdir(p, 0755) < 0 && errno != EEXIST)
		r = -1;
	free(p);
	return r;
}

/* The side directories below the log directory (compilelog.h). */
static const char *const side_dirs[] = { "functions", "records", NULL };

/* Refuse a side directory of dfd that is a link or not root's alone; 0 or
 * -1 with errno set. */
static int check_side_dirs(int dfd, const char *dir, struct strbuf *err)
{
	for (const char *const *name = side_dirs; *name; name++) {
		char *path = xasprintf("%s/%s", dir, *name);
		int fd = sfs_open_dir(dfd, *name, NULL), e = errno, r = 0;
		struct stat st;
		if (fd < 0 && e != ENOENT) {
			if (fstatat(dfd, *name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode))
				strbuf_addf(err, "cannot use the log directory %s: %s is %s, expected a "
					    "directory (refused: the compile's records are written there)",
					    dir, path, sfs_kind(st.st_mode));
			else
				strbuf_addf(err, "cannot use the log directory %s: cannot open %s: %s",
					    dir, path, strerror(e));
			r = -1;
		} else if (fd >= 0) {
			r = sfs_root_only(fd, "the log directory's", path,
					  "writes the compile's records there", err);
			e = errno;
			close(fd);
		}
		free(path);
		if (r < 0) {
			errno = e;
			return -1;
		}
	}
	return 0;
}

int compilelog_open(struct compilelog *log, const char *dir, struct strbuf *err)
{
	struct stat st;
	int e, dfd;
	log->fd = -1;
	log->dirfd = -1;
	log->path = xasprintf("%s/compile.jsonl", dir);
	if (mkdirs(dir) < 0) {
		e = errno;
		strbuf_addf(err, "cannot create log directory %s: %s", dir, strerror(e));
		errno = e;
		return -1;
	}
	/* the caller named it: its path is followed as given */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		e = errno;
		strbuf_addf(err, "cannot open log directory %s: %s", dir, strerror(e));
		errno = e;
		return -1;
	}
	if (sfs_root_only(dfd, "the log directory", dir, "writes the compile log there", err) < 0 ||
	    check_side_dirs(dfd, dir, err) < 0) {
		e = errno;
		close(dfd);
		errno = e;
		return -1;
	}
	/* never through a link, never blocking on a FIFO: only a regular file
	 * (O_NONBLOCK changes nothing for one) */
	log->fd = openat(dfd, "compile.jsonl",
			 O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	if (log->fd < 0) {
		e = errno;
		/* ENXIO: a FIFO nobody reads (or a device); say which, for the message */
		if (e == ENXIO && fstatat(dfd, "compile.jsonl", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !S_ISREG(st.st_mode))
			strbuf_addf(err, "cannot open compile log %s: it is %s, expected a regular file",
				    log->path, sfs_kind(st.st_mode));
		else
			strbuf_addf(err, "cannot open compile log %s: %s", log->path,
				    e == ELOOP ? "it is a symbolic link, expected a regular file"
					       : strerror(e));
		close(dfd);
		errno = e;
		return -1;
	}
	if (fstat(log->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		e = errno;
		if (fstat(log->fd, &st) == 0) {
			strbuf_addf(err, "cannot open compile log %s: it is %s, expected a regular file",
				    log->path, sfs_kind(st.st_mode));
			e = EINVAL;
		} else {
			strbuf_addf(err, "cannot open compile log %s: %s", log->path, strerror(e));
		}
		close(log->fd);
		close(dfd);
		log->fd = -1;
		errno = e;
		return -1;
	}
	log->dirfd = dfd;
	return 0;
}

int compilelog_append(struct compilelog *log, const struct strbuf *record)
{
	struct strbuf line = STRBUF_INIT;
	ssize_t n;
	int r = 0, e = 0;

	if (log->fd < 0)
		return 0;
	strbuf_add(&line, record->buf, record->len);
	strbuf_addch(&line, '\n');
	while (flock(log->fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			strbuf_release(&line);
			return -1;
		}
	}
	do {
		n = write(log->fd, line.buf, line.len);
	} while (n < 0 && errno == EINTR);
	if (n != (ssize_t)line.len) {
		r = -1;
		e = n < 0 ? errno : ENOSPC;
		/* never leave half a record: cut back what was written */
		if (n > 0) {
			struct stat st;
			if (fstat(log->fd, &st) == 0 && st.st_size >= n)
				if (ftruncate(log->fd, st.st_size - n) < 0)
					e = errno;
		}
	}
	flock(log->fd, LOCK_UN);
	strbuf_release(&line);
	if (r)
		errno = e;
	return r;
}

void compilelog_close(struct compilelog *log)
{
	if (log->fd >= 0) {
		close(log->fd);
		close(log->dirfd);
	}
	log->fd = -1;
	log->dirfd = -1;
	free(log->path);
	log->path = NULL;
}

void compilelog_timestamp(struct strbuf *out)
{
	struct timeval tv;
	struct tm tm;
	char buf[32];
	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	strbuf_addf(out, "%s.%06ldZ", buf, (long)tv.tv_usec);
}

void compilelog_key_strvec(struct json_writer *jw, const char *key, const struct strvec *sv)
{
	json_key(jw, key);
	json_strvec(jw, sv);
}

/*
 * The output file gcc writes, when it is known: -o, else gcc's default
 * (SOURCE.o / SOURCE.s for -c / -S of one source, a.out for a link).
 * NULL for queries, preprocessing and dependency-only runs to stdout, and
 * several sources compiled at once.  Passthrough records get it too.
 */
char *compilelog_output(const struct invocation *inv)
{
	const struct classification *c = &inv->cls;
	const char *src, *base, *dot;

	if (c->reason == REASON_QUERY || c->reason == REASON_TOO_HARD ||
	    c->reason == REASON_NO_INPUT)
		return NULL;
	if (c->output)
		return xstrdup(c->output);
	if (c->reason == REASON_PREPROCESS || c->reason == REASON_DEPENDENCY_ONLY)
		return NULL;
	if (!c->mode_c && !c->mode_S)
		return xstrdup("a.out");
	if (c->n_sources != 1 || !c->source)
		return NULL;
	src = c->source;
	base = strrchr(src, '/');
	base = base ? base + 1 : src;
	dot = strrchr(base, '.');
	return xasprintf("%.*s.%s", (int)(dot ? dot - base : (long)strlen(base)), base,
			 inv->cls.mode_S ? "s" : "o");
}

/* Append this invocation's record; 0, or -1 with errno set when it
 * could not be written. */
int compilelog_write_record(struct invocation *inv, struct compilelog *log, int code,
			    double ms)
{
	struct strbuf rec = STRBUF_INIT;
	struct json_writer jw;
	int changed = inv->have_policy && inv->res.changed;
	char *out = NULL;
	struct stat st;
	int r, e;

	json_writer_init(&jw, &rec);
	json_object_begin(&jw);
	json_key(&jw, "time");
	{
		struct strbuf ts = STRBUF_INIT;
		compilelog_timestamp(&ts);
		json_string(&jw, ts.buf);
		strbuf_release(&ts);
	}
	json_key(&jw, "pid"); json_int(&jw, getpid());
	json_key(&jw, "cwd"); json_string(&jw, inv->cwd);
	json_key(&jw, "kind"); json_string(&jw, classify_kind_name(inv->cls.kind));
	json_key(&jw, "reason"); json_string(&jw, classify_reason_name(inv->cls.reason));
	json_key(&jw, "tu"); json_string(&jw, inv->tu);
	json_key(&jw, "policy"); json_string(&jw, inv->have_policy ? inv->policy.path : NULL);
	json_key(&jw, "changed"); json_bool(&jw, changed);
	if (inv->have_policy) {
		compilelog_key_strvec(&jw, "rules", &inv->res.rules);
		compilelog_key_strvec(&jw, "added", &inv->res.added);
		compilelog_key_strvec(&jw, "removed", &inv->res.removed);
	} else {
		struct strvec none = STRVEC_INIT;
		compilelog_key_strvec(&jw, "rules", &none);
		compilelog_key_strvec(&jw, "added", &none);
		compilelog_key_strvec(&jw, "removed", &none);
	}
	json_key(&jw, "compiler"); json_string(&jw, inv->compiler);
	compilelog_key_strvec(&jw, "prefix", &inv->prefix);
	compilelog_key_strvec(&jw, "argv_in", &inv->orig);
	compilelog_key_strvec(&jw, "argv_out", changed ? &inv->final : &inv->orig);
	json_key(&jw, "exit"); json_int(&jw, code);
	json_key(&jw, "ms");
	{
		char num[32];
		snprintf(num, sizeof(num), "%.3f", ms);
		json_raw(&jw, num);
	}
	out = compilelog_output(inv);
	if (out) {
		json_key(&jw, "output"); json_string(&jw, out);
		json_key(&jw, "output_size");
		if (code == 0 && stat(out, &st) == 0)
			json_int(&jw, st.st_size);
		else
			json_null(&jw);
	}
	if (inv->failsafe_error) {
		json_key(&jw, "failsafe"); json_string(&jw, inv->failsafe_error);
	}
	if (inv->have_policy && inv->policy.sha256[0]) {
		/* what the file held: verify --log reads the policy this
		 * record names only when it still hashes so */
		json_key(&jw, "policy_sha256"); json_string(&jw, inv->policy.sha256);
	}
	/* the caller's widening of the policy: said in every record */
	if (inv->unchecked) {
		struct strvec none = STRVEC_INIT;
		compilelog_key_strvec(&jw, "unchecked_flags", inv->have_policy ? &inv->res.unchecked : &none);
	}
	/* ... and the hardening it lets policies weaken: what was weakened here */
	if (inv->weaken) {
		json_key(&jw, "weakened");
		json_array_begin(&jw);
		for (int h = 0; h < VOCAB_HARD_NR; h++)
			if (inv->have_policy && (inv->res.weakened & (1u << h)))
				json_string(&jw, vocab_hardening_name((enum vocab_hardening)h));
		json_array_end(&jw);
	}
	if (invocation_setting(inv, SETTING_PROFILE)) {
		json_key(&jw, "profile"); json_string(&jw, invocation_setting(inv, SETTING_PROFILE));
	}
	/* the bundle's profile of this compile, and GCC's verdict on it */
	if (changed && inv->have_bundle) {
		json_key(&jw, "bundle");
		json_object_begin(&jw);
		json_key(&jw, "dir"); json_string(&jw, invocation_setting(inv, SETTING_BUNDLE));
		json_key(&jw, "profile"); json_string(&jw, inv->bundle.rel);
		compilelog_key_strvec(&jw, "mismatched", &inv->bundle.mismatched);
		compilelog_key_strvec(&jw, "moved", &inv->bundle.moved);
		compilelog_key_strvec(&jw, "missing", &inv->bundle.missing);
		json_object_end(&jw);
	}
	/* the plugin: its path when loaded, why not when it could not be */
	if (changed && (inv->plugin || inv->plugin_skipped)) {
		json_key(&jw, "plugin");
		json_string(&jw, inv->plugin ? inv->plugin : inv->plugin_skipped);
	}
	/* where the settings came from: the pgoptcc.conf in force, and the
	 * layer of every setting that is not at its default */
	json_key(&jw, "config"); json_string(&jw, inv->set.conf);
	if (inv->conf_ignored) {
		json_key(&jw, "config_ignored"); json_string(&jw, inv->conf_ignored);
	}
	json_key(&jw, "origins");
	json_object_begin(&jw);
	for (int id = 0; id < SETTING_NR; id++) {
		if (inv->set.origin[id] == SETTING_FROM_DEFAULT)
			continue;
		json_key(&jw, settings_table[id].key);
		json_string(&jw, settings_origin_name(inv->set.origin[id]));
	}
	json_object_end(&jw);
	json_object_end(&jw);
	r = compilelog_append(log, &rec);
	e = errno;
	free(out);
	strbuf_release(&rec);
	errno = e;
	return r;
}

void compilelog_guard_begin(const struct invocation *inv, struct compilelog_guard *g)
{
	const char *slash;
	char *dir;

	memset(g, 0, sizeof(*g));
	g->dirfd = -1;
	g->path = compilelog_output(inv);
	if (!g->path)
		return;
	slash = strrchr(g->path, '/');
	dir = slash ? xstrndup(g->path, slash == g->path ? 1 : (size_t)(slash - g->path))
		    : xstrdup(".");
	g->base = xstrdup(slash ? slash + 1 : g->path);
	g->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (g->dirfd >= 0 && *g->base)
		g->existed = fstatat(g->dirfd, g->base, &g->before, AT_SYMLINK_NOFOLLOW) == 0;
}

static int same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* Remove the output if this compile made it: 1 removed, 0 nothing to
 * remove, -1 with errno when it could not be removed. */
int compilelog_guard_remove(struct compilelog_guard *g)
{
	struct stat st;
	if (g->dirfd < 0 || !g->base || !*g->base ||
	    fstatat(g->dirfd, g->base, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (g->existed && st.st_ino == g->before.st_ino && st.st_dev == g->before.st_dev &&
	    same_time(&st.st_mtim, &g->before.st_mtim) && same_time(&st.st_ctim, &g->before.st_ctim))
		return 0; /* not this compile's */
	return unlinkat(g->dirfd, g->base, 0) < 0 ? -1 : 1;
}

void compilelog_guard_end(struct compilelog_guard *g)
{
	if (g->dirfd >= 0)
		close(g->dirfd);
	free(g->path);
	free(g->base);
	memset(g, 0, sizeof(*g));
	g->dirfd = -1;
}
