/*
 * build.c - `pgbuild build`: one PostgreSQL build through pgoptcc.
 *
 *   source (directory, tarball or Debian source package; source.c)
 *   -> configure in a separate build directory with CC=<pgoptcc next to
 *      pgbuild> and AR/RANLIB = gcc-ar/gcc-ranlib (LTO-aware archivers,
 *      harmless without LTO: baseline and candidate configure identically)
 *   -> make -jN, make -C contrib -jN, make install (+ contrib) into --prefix
 *   -> smoke benchmark (`pgbuild bench`, unless --no-bench) and an optional
 *      gate against a baseline (`pgbuild gate`)
 *   -> <prefix>/pgopt-build.json (and a copy in the build directory).
 *
 * The policy reaches the compiler through the environment of make
 * (PGOPT_POLICY, PGOPT_LOGDIR=<builddir>/pgopt-log, PGOPT_PREFIX=ccache), so
 * configure's probes and everything else pgoptcc decides stay pgoptcc's.
 * `--policy none` builds the baseline: the same configure, the same
 * compiler, pgoptcc in passthrough, still logged.
 *
 * Incremental rebuilds.  make does not know that objects depend on the
 * policy, so before make runs again in an existing build directory, pgbuild
 * asks pgoptcc what it would now do with each object's recorded compile: it
 * replays the argv of the last successful compile of every object from
 * compile.jsonl through pgoptcc with PGOPT_PREFIX=true (so the final command
 * line is computed and logged, but only `true` runs) and marks the objects
 * whose final command line changed as out of date (time stamp 0; see
 * make_stale()).  make then recompiles exactly those and relinks what
 * contains them; the compile log proves it.  Links are replayed the same
 * way: an output (postgres, a library, a contrib module) whose final link
 * command line changed is marked out of date too, so an ldflags-only policy
 * change relinks without recompiling.  The policy's hash (and the dry-run
 * shortcut of unchanged_since_last_build()) covers the files the policy
 * names (hot = FILE, cold = FILE) as well as the policy text.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sha256.h"
#include "build/buildlog.h"
#include "elf/elfrec.h"
#include "pgbuild.h"
#include "build/source.h"

struct build_opts {
	const char *src;            /* --src, NULL = default */
	const char *policy;         /* --policy FILE or "none" */
	const char *prefix;         /* --prefix */
	const char *builddir;       /* --builddir, NULL = <prefix>.build */
	const char *configure_args; /* --configure-args, split on blanks */
	const char *baseline;       /* --baseline PREFIX (with --gate) */
	const char *gate;           /* --gate EXPR */
	const char *gate_args;      /* --gate-args: more `pgbuild gate` options */
	int jobs;                   /* --jobs, default: online CPUs */
	int cassert;                /* --enable-cassert */
	int bench;                  /* 0 with --no-bench */
	int contrib;                /* 0 with --no-contrib */
	int install;                /* 0 with --no-install */
	int quiet;                  /* --quiet: no progress */
};

#define MAX_PHASES 12

struct phase {
	const char *name;  /* "configure", "make", ... */
	double seconds;    /* wall time */
};

struct build {
	struct build_opts o;
	struct pg_source src;
	char *prefix;            /* absolute */
	char *builddir;          /* absolute */
	char *logdir;            /* <builddir>/pgopt-log */
	char *logfile;           /* <logdir>/compile.jsonl */
	char *policy;            /* absolute policy path, NULL for none */
	struct strbuf policy_text; /* its content ("" for none) */
	struct strvec policy_refs; /* files the policy names: key, path pairs
				    * ("hot", "/abs/hot.list", ...) */
	struct strvec policy_ref_text; /* their contents, NULL when unreadable */
	char *policy_sha;        /* sha256 of the content and of every file it
				  * names (a hot/cold list edit is a policy
				  * change) */
	int lto;                 /* the policy switches LTO on */
	char *lto_mode;          /* "off", "on" or "fat" (pgoptcc's reading) */
	char *cc;                /* real compiler: $PGOPT_CC or gcc */
	char *cc_version;        /* first line of cc --version */
	char *ar, *ranlib;       /* gcc-ar/gcc-ranlib or NULL */
	struct strvec configure; /* configure's arguments */
	struct strvec env;       /* environment changes for configure/make */
	char *ccache_dir;        /* CCACHE_DIR we chose, or NULL */
	struct phase phases[MAX_PHASES];
	int nphases;
	double t0;               /* start (monotonic seconds) */
	char started[32];        /* start, ISO 8601 UTC */
	int fresh;               /* the build directory had no build yet */
	int reconfigured;        /* configure ran */
	long log_first;          /* first line of this build's log records */
	long log_last;           /* lines in the compile log at the end */
	long invalidated;        /* objects deleted because their flags changed */
	long replayed;           /* objects checked by the dry run */
	struct strvec invalidated_tus;
	long inval_contrib;      /* ... of which under contrib/ */
	long links_checked;      /* link outputs checked by the dry run */
	long relinked;           /* link outputs marked stale: their final
				  * link command line changed */
	long relink_contrib;     /* ... of which under contrib/ */
	struct strvec relinked_outputs; /* their paths (relative to builddir) */
	int tty;                 /* stderr is a terminal: progress line */
	int prog_step;           /* not a terminal: tenths of the total shown */
	double prog_last;        /* ... and when (seconds into the phase) */
	long phase_done;         /* translation units the last phase compiled */
	int quiet;               /* no progress output */
	struct strbuf bench;     /* JSON object: workload -> bench result */
	char *bench_note;        /* why the bench did not run, or NULL */
	int bench_code;          /* worst bench exit code */
	int gate_code;           /* -1 not run */
};

/* ---------------- small helpers ---------------- */

static void add_phase(struct build *b, const char *name, double seconds)
{
	if (b->nphases < MAX_PHASES) {
		b->phases[b->nphases].name = name;
		b->phases[b->nphases].seconds = seconds;
		b->nphases++;
	}
}

/* mkdir -p path, then its absolute, symlink-free name (malloced). */
static char *abs_dir(const char *path)
{
	return mkdir_p(path) < 0 ? NULL : path_real(path);
}

/* Run argv, return its stdout's first line (malloced) or NULL. */
static char *first_line_of(const char *const *argv)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf sb = STRBUF_INIT;
	char *r = NULL;
	strvec_pushv(&cp.args, argv);
	cp.no_stdin = 1;
	cp.no_stderr = 1;
	if (capture_command(&cp, &sb, 0) == 0) {
		sb.buf[strcspn(sb.buf, "\n")] = '\0';
		r = xstrdup(sb.buf);
	}
	child_process_clear(&cp);
	strbuf_release(&sb);
	return r;
}

static char *sha256_text(const char *text, size_t len)
{
	struct sha256 c;
	char hex[SHA256_HEX_SIZE];
	sha256_init(&c);
	sha256_update(&c, text, len);
	sha256_final_hex(&c, hex);
	return xstrdup(hex);
}

/*
 * Let pgoptcc check the policy (errors name file:line) and say what LTO
 * mode it asks for: "off", "on" or "fat".  Returns 0 or -1.
 */
static int check_policy(struct build *b)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT;
	struct json_value *v = NULL;
	const char *lto;
	int code, r = -1;

	strvec_pushl(&cp.args, pgbuild_pgoptcc(), "--pgopt-check-policy", b->policy, NULL);
	cp.no_stdin = 1;
	code = capture_command(&cp, &out, 0);
	child_process_clear(&cp);
	if (code != 0) {
		error("policy \"%s\" rejected by pgoptcc (exit %d)", b->policy, code);
		goto out;
	}
	if (!(v = json_parse(out.buf, out.len, NULL))) {
		error("pgoptcc --pgopt-check-policy printed no JSON");
		goto out;
	}
	lto = json_get_str(v, "lto");
	b->lto_mode = xstrdup(lto ? lto : "off");
	/* the function lists (hot = FILE, cold = FILE), resolved by pgoptcc */
	for (int i = 0; i < 2; i++) {
		const char *key = i ? "cold" : "hot";
		const char *path = json_get_str(v, key);
		struct strbuf sb = STRBUF_INIT;
		if (!path)
			continue;
		strvec_push(&b->policy_refs, key);
		strvec_push(&b->policy_refs, path);
		if (strbuf_read_file(&sb, path) < 0)
			strvec_push(&b->policy_ref_text, "");
		else
			strvec_push(&b->policy_ref_text, sb.buf);
		strbuf_release(&sb);
	}
	r = 0;
out:
	json_free(v);
	strbuf_release(&out);
	return r;
}

/* gcc-ar for gcc, gcc-ar-12 for gcc-12, ...; NULL when not installed. */
static char *lto_tool(const char *cc, const char *tool)
{
	const char *base = strrchr(cc, '/');
	char *name, *path;
	base = base ? base + 1 : cc;
	if (strncmp(base, "gcc", 3))
		return NULL;
	name = xasprintf("gcc-%s%s", tool, base + 3);
	path = locate_in_path(name);
	free(name);
	return path;
}

/* ---------------- running phases ---------------- */

/*
 * Count the compiles of translation units (kind "compile") added to the
 * compile log since *off; *off advances to the end of the last complete
 * line (a line being written is counted next time).  Links, probes and
 * preprocessor runs are not counted: the progress line counts what its
 * total counts, translation units.
 */
static long count_new_compiles(const char *path, off_t *off)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct strbuf sb = STRBUF_INIT;
	char buf[65536];
	ssize_t n;
	long tus = 0;
	size_t start = 0;
	if (fd < 0)
		return 0;
	if (lseek(fd, *off, SEEK_SET) == *off)
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			strbuf_add(&sb, buf, (size_t)n);
	close(fd);
	for (char *nl; (nl = memchr(sb.buf + start, '\n', sb.len - start)); ) {
		*nl = '\0';
		if (strstr(sb.buf + start, "\"kind\":\"compile\""))
			tus++;
		start = (size_t)(nl - sb.buf) + 1;
	}
	*off += (off_t)start;
	strbuf_release(&sb);
	return tus;
}

/*
 * Progress of a phase.  On a terminal: one line rewritten in place.
 * Otherwise (CI logs): a plain line when another 10% of the expected total
 * is done, or every 30 s, so a log shows that the build moves.
 */
static void progress(struct build *b, const char *name, long done, long total,
		     double t_phase, int final)
{
	char e[32], eta[32], all[32];
	double el = clock_seconds() - t_phase;
	int step = total > 0 ? (int)((done < total ? done : total) * 10 / total) : 0;

	if (!b->tty) {
		if (final || (step <= b->prog_step && el - b->prog_last < 30.0) ||
		    (done == 0 && el < 30.0))
			return;
		b->prog_step = step;
		b->prog_last = el;
	}
	fmt_duration(el, 0, e, sizeof(e));
	fmt_duration(clock_seconds() - b->t0, 0, all, sizeof(all));
	if (total <= 0 && done == 0) {
		/* a phase that compiles nothing (configure, install) */
		fprintf(stderr, b->tty ? "\r\033[K[%s] %s (build %s)" :
			"pgbuild: %s: %s (build %s)\n", name, e, all);
	} else if (total <= 0) {
		fprintf(stderr, b->tty ? "\r\033[K[%s] %ld translation units, %s (build %s)" :
			"pgbuild: %s: %ld translation units compiled, %s (build %s)\n",
			name, done, e, all);
	} else {
		if (total < done)
			total = done;
		if (done > 0 && total > done)
			fmt_duration(el / (double)done * (double)(total - done), 0, eta, sizeof(eta));
		else if (done > 0)
			snprintf(eta, sizeof(eta), "now");
		else
			snprintf(eta, sizeof(eta), "?");
		fprintf(stderr, b->tty ?
			"\r\033[K[%s] %ld/%ld translation units (%ld%%), %s, ETA %s (build %s)" :
			"pgbuild: %s: %ld/%ld translation units compiled (%ld%%), %s, ETA %s (build %s)\n",
			name, done, total, done * 100 / total, e, eta, all);
	}
	fflush(stderr);
}

/*
 * Run one phase: argv in dir, output to <builddir>/pgopt-<name>.log, with a
 * progress line counting compile-log records against total (0: no count).
 * Returns the exit code; on failure the log's tail is shown.
 */
static int run_phase(struct build *b, const char *name, struct strvec *argv,
		     const char *dir, long total)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	char *logpath = xasprintf("%s/pgopt-%s.log", b->builddir, name);
	char d[32];
	double t = clock_seconds();
	off_t off = 0;
	long done = 0;
	int fd, status = 0, code;
	struct stat st;

	fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		error("cannot write \"%s\": %s", logpath, strerror(errno));
		free(logpath);
		return -1;
	}
	if (stat(b->logfile, &st) == 0)
		off = st.st_size;
	if (!b->quiet && !b->tty)
		fprintf(stderr, "pgbuild: %s ...\n", name);
	b->prog_step = 0;
	b->prog_last = 0;
	strvec_pushv(&cp.args, (const char *const *)argv->v);
	strvec_pushv(&cp.env, (const char *const *)b->env.v);
	cp.dir = dir;
	cp.no_stdin = 1;
	cp.out = fd;
	cp.err = fd;
	if (start_command(&cp) < 0) {
		close(fd);
		free(logpath);
		child_process_clear(&cp);
		return -1;
	}
	signal_forward_begin(cp.pid);   /* make forwards SIGTERM to its jobs */
	for (int tick = 0;; tick++) {
		pid_t r = waitpid(cp.pid, &status, WNOHANG);
		if (r == cp.pid)
			break;
		if (r < 0 && errno != EINTR) {
			status = -1;
			break;
		}
		if (tick % 4 == 0) {
			done += count_new_compiles(b->logfile, &off);
			if (!b->quiet)
				progress(b, name, done, total, t, 0);
		}
		usleep(250000);
	}
	signal_forward_end();
	done += count_new_compiles(b->logfile, &off);
	b->phase_done = done;
	close(fd);
	code = status < 0 ? -1 : wait_status_to_code(status);
	if (cp.exec_errno)
		code = error("cannot run %s: %s", cp.args.v[0], strerror(cp.exec_errno));
	add_phase(b, name, clock_seconds() - t);
	if (!b->quiet) {
		if (b->tty)
			fprintf(stderr, "\r\033[K");
		fprintf(stderr, "pgbuild: %s %s in %s", name, code == 0 ? "done" : "FAILED",
			fmt_duration(clock_seconds() - t, 0, d, sizeof(d)));
		if (total > 0 || done > 0)
			fprintf(stderr, " (%ld translation units compiled)", done);
		fputc('\n', stderr);
	}
	if (code != 0) {
		error("%s failed (exit %d); last lines of %s:", name, code, logpath);
		textfile_print_tail(logpath, 25, stderr);
	}
	free(logpath);
	child_process_clear(&cp);
	return code;
}

/* ---------------- progress totals ---------------- */

static char *progress_file(struct build *b, const char *phase)
{
	char *dir = xasprintf("%s/progress", pgsrc_cache_dir());
	char *f;
	mkdir_p(dir);
	f = xasprintf("%s/%s-%s%s.%s.tus", dir, b->src.version, b->lto ? "lto" : "nolto",
		      b->o.cassert ? "-cassert" : "", phase);
	free(dir);
	return f;
}

static long nftw_count;

static int count_c_file(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	size_t n = strlen(path);
	(void)st;
	(void)ftw;
	if (flag == FTW_F && n > 2 && !strcmp(path + n - 2, ".c"))
		nftw_count++;
	return 0;
}

/*
 * Expected translation units of a phase: what the last full build of the
 * same source and kind compiled, else the number of C files (a rough guess;
 * the first build stores the real number for the next one).
 */
static long progress_total(struct build *b, const char *phase)
{
	char *f = progress_file(b, phase);
	struct strbuf sb = STRBUF_INIT;
	long total = 0;
	if (strbuf_read_file(&sb, f) > 0)
		total = atol(sb.buf);
	if (total <= 0) {
		char *dir = xasprintf("%s/%s", b->src.dir,
				      !strcmp(phase, "contrib") ? "contrib" : "src");
		nftw_count = 0;
		nftw(dir, count_c_file, 16, FTW_PHYS);
		total = nftw_count;
		free(dir);
	}
	strbuf_release(&sb);
	free(f);
	return total;
}

static void progress_store(struct build *b, const char *phase, long tus)
{
	char *f = progress_file(b, phase);
	char *text = xasprintf("%ld\n", tus);
	/* only a better guess for the next progress line: no error */
	write_file_atomic_quiet(f, text, strlen(text));
	free(text);
	free(f);
}

/* ---------------- incremental: which objects did the policy change? ---------------- */

/*
 * Make make rebuild an object: give it the oldest possible time stamp (and
 * create it empty when it is missing).  Deleting is not enough: PostgreSQL's
 * Makefile.global declares every target .SECONDARY, and make does not remake
 * a missing secondary file when what depends on it (objfiles.txt) is newer
 * than its sources.
 */
static int make_stale(const char *path)
{
	static const struct timespec epoch[2] = { { 0, 0 }, { 0, 0 } };
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return error("cannot mark \"%s\" for rebuilding: %s", path, strerror(errno));
	close(fd);
	if (utimensat(AT_FDCWD, path, epoch, 0) < 0)
		return error("cannot mark \"%s\" for rebuilding: %s", path, strerror(errno));
	return 0;
}

/* Drop from os the records whose output directory is gone (an older
 * layout of the build directory). */
static void keep_existing_dirs(struct buildlog_objs *os)
{
	size_t w = 0;
	for (size_t i = 0; i < os->nr; i++) {
		char *dir = xstrdup(os->v[i].path);
		*strrchr(dir, '/') = '\0';
		if (path_exists(dir))
			os->v[w++] = os->v[i];
		else
			buildlog_obj_free(&os->v[i]);
		free(dir);
	}
	os->nr = w;
}

/*
 * Mark for rebuilding the objects whose final command line differs under
 * the policy now in effect (and those gone missing), and the link outputs
 * (postgres, libraries, client programs, contrib modules) whose final link
 * command line differs: a policy that changes only ldflags recompiles
 * nothing but must relink.  Returns 0 or -1.
 */
static int invalidate(struct build *b)
{
	struct buildlog_objs old = { 0 }, old_links = { 0 }, all = { 0 };
	struct buildlog_objs now_ = { 0 }, now_links = { 0 };
	char *drydir = xasprintf("%s/pgopt-dryrun", b->builddir);
	char *drylog = xasprintf("%s/%s", drydir, BUILDLOG_COMPILE);
	char *contrib = xasprintf("%s/contrib/", b->builddir);
	double t = clock_seconds();
	int r = -1;

	buildlog_objs_read(&old, b->logfile, NULL, NULL, 0);
	old_links.links = 1;
	buildlog_objs_read(&old_links, b->logfile, NULL, NULL, 1);
	/* only records whose directory still exists (not from an older layout);
	 * the links were read with existing outputs only */
	keep_existing_dirs(&old);
	b->replayed = (long)old.nr;
	b->links_checked = (long)old_links.nr;
	if (!old.nr && !old_links.nr) {
		r = 0;
		goto out;
	}
	if (!b->quiet)
		fprintf(stderr, "pgbuild: checking %zu objects and %zu links against the policy ...\n",
			old.nr, old_links.nr);
	if (remove_tree(drydir) < 0)
		warning("cannot remove \"%s\": %s", drydir, strerror(errno));
	/* one replay of both (shallow copies: old and old_links own them) */
	for (int k = 0; k < 2; k++) {
		const struct buildlog_objs *from = k ? &old_links : &old;
		for (size_t i = 0; i < from->nr; i++) {
			ALLOC_GROW(all.v, all.nr + 1, all.alloc);
			all.v[all.nr++] = from->v[i];
		}
	}
	if (mkdir_p(drydir) < 0 || buildlog_replay(&all, &b->env, b->o.jobs, drydir) < 0) {
		error("the policy cannot be applied to this build directory");
		goto out;
	}
	buildlog_objs_read(&now_, drylog, drydir, b->logdir, 0);
	now_links.links = 1;
	buildlog_objs_read(&now_links, drylog, drydir, b->logdir, 0);
	for (size_t i = 0; i < now_.nr; i++) {
		struct buildlog_obj *o = buildlog_objs_find(&old, now_.v[i].path);
		if (!o || (path_exists(o->path) && !strcmp(o->argv_out, now_.v[i].argv_out)))
			continue;
		if (make_stale(o->path) < 0)
			goto out;
		b->invalidated++;
		if (!strncmp(o->path, contrib, strlen(contrib)))
			b->inval_contrib++;
		strvec_push(&b->invalidated_tus, o->tu);
		verbose("policy change: recompiling %s (%s)", o->tu, o->path);
	}
	/* a link output that exists with another final command line: relink
	 * (a missing one is remade by make anyway) */
	for (size_t i = 0; i < now_links.nr; i++) {
		struct buildlog_obj *o = buildlog_objs_find(&old_links, now_links.v[i].path);
		if (!o || !strcmp(o->argv_out, now_links.v[i].argv_out))
			continue;
		if (make_stale(o->path) < 0)
			goto out;
		b->relinked++;
		if (!strncmp(o->path, contrib, strlen(contrib)))
			b->relink_contrib++;
		strvec_push(&b->relinked_outputs, o->path + (strncmp(o->path, b->builddir,
			    strlen(b->builddir)) ? 0 : strlen(b->builddir) + 1));
		verbose("policy change: relinking %s", o->path);
	}
	if (!b->quiet)
		fprintf(stderr, "pgbuild: the policy change affects %ld of %zu objects and "
			"%ld of %zu links\n", b->invalidated, old.nr, b->relinked, old_links.nr);
	r = 0;
out:
	add_phase(b, "invalidate", clock_seconds() - t);
	free(all.v); /* shallow copies */
	buildlog_objs_free(&old);
	buildlog_objs_free(&old_links);
	buildlog_objs_free(&now_);
	buildlog_objs_free(&now_links);
	free(contrib);
	free(drylog);
	free(drydir);
	return r;
}

/* ---------------- ELF: text size of postgres ---------------- */

/* Berkeley-style text size (allocated, non-writable, with contents) and the
 * size of .text alone. */
static int elf_text_size(const char *path, long long *text, long long *dot_text)
{
	struct elfrec_file f;
	*text = *dot_text = 0;
	if (elfrec_open_flags(path, ELFREC_SIZES_ONLY, &f, NULL) < 0)
		return -1;
	if (!f.nr) {
		elfrec_release(&f);
		return -1;
	}
	*text = (long long)f.objs[0].readonly_size;
	*dot_text = (long long)f.objs[0].dot_text_size;
	elfrec_release(&f);
	return 0;
}

/* ---------------- bench and gate (other pgbuild commands) ---------------- */

static int have_command(const char *cmd)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	int r;
	strvec_pushl(&cp.args, pgbuild_self(), cmd, "--help", NULL);
	cp.no_stdin = cp.no_stdout = cp.no_stderr = 1;
	r = run_command(&cp);
	child_process_clear(&cp);
	return r == 0;
}

static void run_bench(struct build *b)
{
	static const char *const workloads[] = { "select-only", "tpcb", NULL };
	struct json_writer jw = JSON_WRITER_INIT(&b->bench);
	double t = clock_seconds();

	if (!have_command("bench")) {
		b->bench_note = xstrdup("pgbuild bench is not available");
		warning("smoke benchmark skipped: %s", b->bench_note);
		return;
	}
	json_object_begin(&jw);
	for (const char *const *w = workloads; *w; w++) {
		struct child_process cp = CHILD_PROCESS_INIT;
		char *json = xasprintf("%s/pgopt-bench-%s.json", b->builddir, *w);
		char *log = xasprintf("%s/pgopt-bench-%s.log", b->builddir, *w);
		struct json_value *v = NULL;
		int fd, code;

		unlink(json);
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (!b->quiet)
			fprintf(stderr, "pgbuild: smoke benchmark %s (3 s) ...\n", *w);
		strvec_pushl(&cp.args, pgbuild_self(), "bench", "--prefix", b->prefix,
			     "--workload", *w, "--duration", "3", "--json", json, NULL);
		cp.no_stdin = 1;
		cp.out = fd >= 0 ? fd : 0;
		cp.err = fd >= 0 ? fd : 0;
		code = run_command(&cp);
		child_process_clear(&cp);
		if (fd >= 0)
			close(fd);
		if (path_exists(json))
			v = buildlog_read_json(json);
		json_key(&jw, *w);
		json_object_begin(&jw);
		json_key(&jw, "exit"); json_int(&jw, code);
		json_key(&jw, "log"); json_string(&jw, log);
		json_key(&jw, "result");
		if (v) {
			struct strbuf raw = STRBUF_INIT;
			strbuf_read_file(&raw, json);
			strbuf_rtrim(&raw);
			json_raw(&jw, raw.buf);
			strbuf_release(&raw);
			json_free(v);
		} else {
			json_null(&jw);
		}
		json_object_end(&jw);
		if (code != 0) {
			error("smoke benchmark %s failed (exit %d); see %s", *w, code, log);
			textfile_print_tail(log, 10, stderr);
			if (code > b->bench_code)
				b->bench_code = code == 1 ? 1 : PGBUILD_EXIT_ERROR;
		}
		free(json);
		free(log);
	}
	json_object_end(&jw);
	add_phase(b, "bench", clock_seconds() - t);
}

static void run_gate(struct build *b)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	char *json = xasprintf("%s/pgopt-gate.json", b->builddir);
	double t = clock_seconds();

	if (!have_command("gate")) {
		error("--gate: pgbuild gate is not available");
		b->gate_code = PGBUILD_EXIT_ERROR;
		free(json);
		return;
	}
	if (!b->quiet)
		fprintf(stderr, "pgbuild: gate %s against %s ...\n", b->o.gate, b->o.baseline);
	strvec_pushl(&cp.args, pgbuild_self(), "gate", "--baseline", b->o.baseline,
		     "--candidate", b->prefix, "--gate", b->o.gate,
		     "--require-regress", b->builddir, "--json", json, NULL);
	if (b->o.gate_args)
		strvec_split(&cp.args, b->o.gate_args);
	cp.no_stdin = 1;
	b->gate_code = run_command(&cp);
	if (b->gate_code < 0)
		b->gate_code = PGBUILD_EXIT_ERROR;
	child_process_clear(&cp);
	free(json);
	add_phase(b, "gate", clock_seconds() - t);
}

/* ---------------- the build record ---------------- */

struct count {
	long records;   /* log lines of this build */
	long compiles;  /* compiles of translation units */
	long links;     /* kind "link" */
};

static int count_rec(const struct json_value *rec, long line, void *data)
{
	struct count *c = data;
	const char *kind = json_get_str(rec, "kind");
	(void)line;
	c->records++;
	if (buildlog_is_compile(rec))
		c->compiles++;
	else if (kind && !strcmp(kind, "link"))
		c->links++;
	return 0;
}

static void write_record(struct build *b, int ok)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_writer jw = JSON_WRITER_INIT(&sb);
	struct count cnt = { 0, 0, 0 };
	char *postgres = xasprintf("%s/bin/postgres", b->prefix);
	long long text = 0, dot_text = 0;
	double wall = clock_seconds() - b->t0;

	if (!b->o.install || !path_exists(postgres)) {
		free(postgres);
		postgres = xasprintf("%s/src/backend/postgres", b->builddir);
	}
	b->log_last = buildlog_each(b->logfile, b->log_first, count_rec, &cnt);

	json_object_begin(&jw);
	json_key(&jw, "pgoptcc_version"); json_string(&jw, PGOPT_VERSION);
	json_key(&jw, "started"); json_string(&jw, b->started);
	json_key(&jw, "ok"); json_bool(&jw, ok);
	json_key(&jw, "source");
	json_object_begin(&jw);
	json_key(&jw, "spec"); json_string(&jw, b->src.spec);
	json_key(&jw, "dir"); json_string(&jw, b->src.dir);
	json_key(&jw, "version"); json_string(&jw, b->src.version);
	json_key(&jw, "pkg_version"); json_string(&jw, b->src.pkg_version);
	json_object_end(&jw);
	json_key(&jw, "policy");
	json_object_begin(&jw);
	json_key(&jw, "path"); json_string(&jw, b->policy);
	json_key(&jw, "content"); json_string(&jw, b->policy_text.buf);
	json_key(&jw, "sha256"); json_string(&jw, b->policy_sha);
	json_key(&jw, "lto"); json_string(&jw, b->lto_mode);
	json_key(&jw, "files");
	json_array_begin(&jw);
	for (size_t i = 0; i + 1 < b->policy_refs.nr; i += 2) {
		json_object_begin(&jw);
		json_key(&jw, "key"); json_string(&jw, b->policy_refs.v[i]);
		json_key(&jw, "path"); json_string(&jw, b->policy_refs.v[i + 1]);
		json_key(&jw, "content"); json_string(&jw, b->policy_ref_text.v[i / 2]);
		json_object_end(&jw);
	}
	json_array_end(&jw);
	json_object_end(&jw);
	json_key(&jw, "compiler");
	json_object_begin(&jw);
	json_key(&jw, "wrapper"); json_string(&jw, pgbuild_pgoptcc());
	json_key(&jw, "cc"); json_string(&jw, b->cc);
	json_key(&jw, "version"); json_string(&jw, b->cc_version);
	json_key(&jw, "ar"); json_string(&jw, b->ar);
	json_key(&jw, "ranlib"); json_string(&jw, b->ranlib);
	json_object_end(&jw);
	json_key(&jw, "configure_args");
	json_strvec(&jw, &b->configure);
	json_key(&jw, "environment");
	json_object_begin(&jw);
	for (size_t i = 0; i < b->env.nr; i++) {
		char *eq = strchr(b->env.v[i], '=');
		if (!eq)
			continue;
		*eq = '\0';
		json_key(&jw, b->env.v[i]);
		json_string(&jw, eq + 1);
		*eq = '=';
	}
	json_object_end(&jw);
	json_key(&jw, "prefix"); json_string(&jw, b->prefix);
	json_key(&jw, "builddir"); json_string(&jw, b->builddir);
	json_key(&jw, "installed"); json_bool(&jw, b->o.install);
	json_key(&jw, "jobs"); json_int(&jw, b->o.jobs);
	json_key(&jw, "enable_cassert"); json_bool(&jw, b->o.cassert);
	json_key(&jw, "log");
	json_object_begin(&jw);
	json_key(&jw, "dir"); json_string(&jw, b->logdir);
	json_key(&jw, "compile_log"); json_string(&jw, b->logfile);
	json_key(&jw, "first_line"); json_int(&jw, b->log_first);
	json_key(&jw, "last_line"); json_int(&jw, b->log_last);
	json_key(&jw, "records"); json_int(&jw, cnt.records);
	json_key(&jw, "compiles"); json_int(&jw, cnt.compiles);
	json_key(&jw, "links"); json_int(&jw, cnt.links);
	json_object_end(&jw);
	json_key(&jw, "incremental");
	json_object_begin(&jw);
	json_key(&jw, "fresh"); json_bool(&jw, b->fresh);
	json_key(&jw, "reconfigured"); json_bool(&jw, b->reconfigured);
	json_key(&jw, "checked_objects"); json_int(&jw, b->replayed);
	json_key(&jw, "invalidated"); json_int(&jw, b->invalidated);
	json_key(&jw, "invalidated_tus");
	json_array_begin(&jw);
	for (size_t i = 0; i < b->invalidated_tus.nr && i < 1000; i++)
		json_string(&jw, b->invalidated_tus.v[i]);
	json_array_end(&jw);
	json_key(&jw, "checked_links"); json_int(&jw, b->links_checked);
	json_key(&jw, "relinked"); json_int(&jw, b->relinked);
	json_key(&jw, "relinked_outputs");
	json_array_begin(&jw);
	for (size_t i = 0; i < b->relinked_outputs.nr && i < 1000; i++)
		json_string(&jw, b->relinked_outputs.v[i]);
	json_array_end(&jw);
	json_object_end(&jw);
	json_key(&jw, "wall_seconds"); json_double(&jw, wall);
	json_key(&jw, "phases");
	json_object_begin(&jw);
	for (int i = 0; i < b->nphases; i++) {
		json_key(&jw, b->phases[i].name);
		json_double(&jw, b->phases[i].seconds);
	}
	json_object_end(&jw);
	json_key(&jw, "postgres");
	json_object_begin(&jw);
	json_key(&jw, "path"); json_string(&jw, postgres);
	if (elf_text_size(postgres, &text, &dot_text) == 0) {
		json_key(&jw, "text_size"); json_int(&jw, text);
		json_key(&jw, "dot_text_size"); json_int(&jw, dot_text);
	} else {
		json_key(&jw, "text_size"); json_null(&jw);
		json_key(&jw, "dot_text_size"); json_null(&jw);
	}
	json_object_end(&jw);
	json_key(&jw, "bench");
	if (b->bench.len)
		json_raw(&jw, b->bench.buf);
	else if (b->bench_note) {
		json_object_begin(&jw);
		json_key(&jw, "skipped"); json_string(&jw, b->bench_note);
		json_object_end(&jw);
	} else
		json_null(&jw);
	json_key(&jw, "gate");
	if (b->gate_code >= 0) {
		json_object_begin(&jw);
		json_key(&jw, "baseline"); json_string(&jw, b->o.baseline);
		json_key(&jw, "expr"); json_string(&jw, b->o.gate);
		json_key(&jw, "args"); json_string(&jw, b->o.gate_args);
		json_key(&jw, "exit"); json_int(&jw, b->gate_code);
		json_object_end(&jw);
	} else
		json_null(&jw);
	json_object_end(&jw);
	strbuf_addch(&sb, '\n');

	for (int i = 0; i < 2; i++) {
		char *path;
		if (i == 1 && !(b->o.install && ok))
			break;
		path = xasprintf("%s/%s", i ? b->prefix : b->builddir, BUILDLOG_RECORD);
		write_file_atomic(path, sb.buf, sb.len);
		free(path);
	}
	if (!b->quiet) {
		char d[32];
		fprintf(stderr, "pgbuild: %s in %s: %ld compiles, %ld links; postgres text %.2f MB\n",
			ok ? "built" : "build FAILED", fmt_duration(wall, 0, d, sizeof(d)),
			cnt.compiles, cnt.links, (double)text / 1e6);
	}
	free(postgres);
	strbuf_release(&sb);
}

/* ---------------- setup ---------------- */

static int load_policy(struct build *b)
{
	const char *p = b->o.policy;
	char real[PATH_MAX];

	strbuf_init(&b->policy_text, 0);
	if (strcmp(p, "none")) {
		if (!realpath(p, real))
			return error("--policy \"%s\": %s", p, strerror(errno));
		if (strbuf_read_file(&b->policy_text, real) < 0)
			return error("--policy \"%s\": %s", p, strerror(errno));
		b->policy = xstrdup(real);
	}
	if (b->policy && check_policy(b) < 0)
		return -1;
	/* the hash covers the files the policy names, so an edited hot/cold
	 * list is a policy change (a policy naming none hashes as before) */
	{
		struct strbuf all = STRBUF_INIT;
		strbuf_add(&all, b->policy_text.buf, b->policy_text.len);
		for (size_t i = 0; i + 1 < b->policy_refs.nr; i += 2)
			strbuf_addf(&all, "\n--- %s = %s ---\n%s", b->policy_refs.v[i],
				    b->policy_refs.v[i + 1], b->policy_ref_text.v[i / 2]);
		b->policy_sha = sha256_text(all.buf, all.len);
		strbuf_release(&all);
	}
	if (!b->lto_mode)
		b->lto_mode = xstrdup("off");
	b->lto = strcmp(b->lto_mode, "off") != 0;
	return 0;
}

/*
 * The hash pgbuild build records as policy.sha256 for a policy: its text and
 * every file it names (hot/cold lists); "none" hashes the empty text.  NULL,
 * with the error printed, when the policy is unreadable or rejected.
 */
char *pgbuild_policy_sha(const char *policy)
{
	struct build b;
	char *sha = NULL;

	memset(&b, 0, sizeof(b));
	b.o.policy = policy;
	strvec_init(&b.policy_refs);
	strvec_init(&b.policy_ref_text);
	if (load_policy(&b) == 0) {
		sha = b.policy_sha;
		b.policy_sha = NULL;
	}
	strbuf_release(&b.policy_text);
	strvec_clear(&b.policy_refs);
	strvec_clear(&b.policy_ref_text);
	free(b.policy);
	free(b.lto_mode);
	free(b.policy_sha);
	return sha;
}

static void setup_env(struct build *b)
{
	const char *pfx = getenv("PGOPT_PREFIX");

	if (b->policy)
		strvec_pushf(&b->env, "PGOPT_POLICY=%s", b->policy);
	else
		strvec_push(&b->env, "PGOPT_POLICY=none");
	strvec_pushf(&b->env, "PGOPT_LOGDIR=%s", b->logdir);
	/* the root is found per file: sources in the source tree, generated
	 * files in the build tree */
	strvec_push(&b->env, "PGOPT_ROOT");
	if (!pfx) {
		char *ccache = locate_in_path("ccache");
		if (ccache) {
			strvec_push(&b->env, "PGOPT_PREFIX=ccache");
			if (!getenv("CCACHE_DIR")) {
				b->ccache_dir = xasprintf("%s/ccache", pgsrc_cache_dir());
				strvec_pushf(&b->env, "CCACHE_DIR=%s", b->ccache_dir);
			}
		}
		free(ccache);
	} else {
		strvec_pushf(&b->env, "PGOPT_PREFIX=%s", pfx);
	}
}

static void setup_configure(struct build *b)
{
	struct strvec extra = STRVEC_INIT;

	strvec_pushf(&b->configure, "--prefix=%s", b->prefix);
	if (b->o.configure_args)
		strvec_split(&extra, b->o.configure_args);
	/* --enable-cassert given either way is the same build (and recorded
	 * as enable_cassert); configure sees it once */
	if (strvec_find(&extra, "--enable-cassert") >= 0)
		b->o.cassert = 1;
	if (b->o.cassert)
		strvec_push(&b->configure, "--enable-cassert");
	for (size_t i = 0; i < extra.nr; i++)
		if (strcmp(extra.v[i], "--enable-cassert"))
			strvec_push(&b->configure, extra.v[i]);
	strvec_clear(&extra);
	strvec_pushf(&b->configure, "CC=%s", pgbuild_pgoptcc());
	if (b->ar && b->ranlib) {
		strvec_pushf(&b->configure, "AR=%s", b->ar);
		strvec_pushf(&b->configure, "RANLIB=%s", b->ranlib);
	}
}

/* The configure line of the last configure in builddir, as stored. */
static char *configure_stamp_text(struct build *b)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s\n", b->src.dir);
	for (size_t i = 0; i < b->configure.nr; i++)
		strbuf_addf(&sb, "%s\n", b->configure.v[i]);
	return strbuf_detach(&sb, NULL);
}

/*
 * Is the state of the build directory exactly what its last successful
 * build left (same policy, nothing compiled since)?  Then the objects
 * already have the flags the policy gives and the dry run can be skipped.
 */
static int unchanged_since_last_build(struct build *b)
{
	char *path = xasprintf("%s/%s", b->builddir, BUILDLOG_RECORD);
	struct json_value *v = NULL;
	int same = 0;
	if (path_exists(path) && (v = buildlog_read_json(path))) {
		const struct json_value *pol = json_get(v, "policy");
		const struct json_value *log = json_get(v, "log");
		const struct json_value *ok = json_get(v, "ok");
		const char *ppath = json_get_str(pol, "path");
		const char *sha = json_get_str(pol, "sha256");
		same = ok && ok->type == JSON_BOOL && ok->u.boolean &&
		       !strcmp(ppath ? ppath : "", b->policy ? b->policy : "") &&
		       sha && b->policy_sha && !strcmp(sha, b->policy_sha) &&
		       (long)json_get_num(log, "last_line", -1) ==
			       buildlog_count_lines(b->logfile);
		json_free(v);
	}
	free(path);
	return same;
}

static void build_usage(FILE *fp)
{
	fprintf(fp,
"usage: pgbuild build --policy FILE|none --prefix OUT [options]\n"
"\n"
"Configure, build and install PostgreSQL (and contrib) through pgoptcc with a\n"
"policy, out of tree; then run a smoke benchmark on the fresh install and\n"
"write OUT/pgopt-build.json.  --policy none builds the baseline.\n"
"\n"
"  --src SRC              source directory, tarball, or debian:PACKAGE[=VERSION]\n"
"                         (default %s; fetched once into the cache)\n"
"  --policy FILE|none     the policy (required)\n"
"  --prefix OUT           install prefix (required)\n"
"  --builddir DIR         build directory (default OUT.build); reusing it makes\n"
"                         the build incremental: only objects whose flags the\n"
"                         policy changes are recompiled\n"
"  -j, --jobs N           parallel make jobs (default: number of CPUs)\n"
"  --configure-args ARGS  extra configure arguments (split on blanks)\n"
"  --enable-cassert       assertion-enabled build (--enable-cassert to configure;\n"
"                         recorded as enable_cassert): a candidate for a\n"
"                         stability run\n"
"  --no-contrib           do not build contrib\n"
"  --no-install           build only (no make install, no benchmark)\n"
"  --no-bench             skip the smoke benchmark after install\n"
"  --baseline PREFIX --gate EXPR\n"
"                         gate the fresh install against PREFIX with\n"
"                         `pgbuild gate` (regression suite included)\n"
"  --gate-args ARGS       more `pgbuild gate` options (split on blanks),\n"
"                         e.g. \"--pairs 6 --duration 5\"\n"
"  -q, --quiet            no progress output\n"
"\n"
"Environment: PGOPT_PREFIX (default ccache when installed), CCACHE_DIR\n"
"(default <cache>/ccache), PGOPT_CC, PGOPT_CACHE_DIR.\n"
"Exit: 0 built (and gate passed), 1 smoke benchmark or gate failed,\n"
"2 could not build.\n", PGSRC_DEFAULT);
}

static int parse_jobs(const char *s, int *out)
{
	char *end;
	long v;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 1 || v > 1024)
		return error("invalid value \"%s\" for --jobs: expected an integer from 1 to 1024", s);
	*out = (int)v;
	return 0;
}

/* error() for bad usage, returning the command's exit code */
static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	error("%s", msg);
	fprintf(stderr, "Try \"pgbuild build --help\".\n");
	return PGBUILD_EXIT_ERROR;
}

enum {
	OPT_SRC = 256, OPT_POLICY, OPT_PREFIX, OPT_BUILDDIR, OPT_CONFARGS,
	OPT_CASSERT, OPT_NO_CONTRIB, OPT_NO_INSTALL, OPT_NO_BENCH, OPT_BASELINE,
	OPT_GATE, OPT_GATE_ARGS,
};

PGBUILD_COMMAND(build, "configure, build and install PostgreSQL through pgoptcc with a policy")
{
	static const struct option opts[] = {
		{ "src", required_argument, NULL, OPT_SRC },
		{ "policy", required_argument, NULL, OPT_POLICY },
		{ "prefix", required_argument, NULL, OPT_PREFIX },
		{ "builddir", required_argument, NULL, OPT_BUILDDIR },
		{ "jobs", required_argument, NULL, 'j' },
		{ "configure-args", required_argument, NULL, OPT_CONFARGS },
		{ "enable-cassert", no_argument, NULL, OPT_CASSERT },
		{ "no-contrib", no_argument, NULL, OPT_NO_CONTRIB },
		{ "no-install", no_argument, NULL, OPT_NO_INSTALL },
		{ "no-bench", no_argument, NULL, OPT_NO_BENCH },
		{ "baseline", required_argument, NULL, OPT_BASELINE },
		{ "gate", required_argument, NULL, OPT_GATE },
		{ "gate-args", required_argument, NULL, OPT_GATE_ARGS },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct build bb, *b = &bb;
	struct strvec cmd = STRVEC_INIT;
	char *stamp_path = NULL, *stamp = NULL;
	struct strbuf old_stamp = STRBUF_INIT;
	int c, rc = PGBUILD_EXIT_ERROR;

	memset(b, 0, sizeof(*b));
	strvec_init(&b->configure);
	strvec_init(&b->env);
	strvec_init(&b->invalidated_tus);
	strvec_init(&b->relinked_outputs);
	strvec_init(&b->policy_refs);
	strvec_init(&b->policy_ref_text);
	strbuf_init(&b->bench, 0);
	b->gate_code = -1;
	b->o.bench = b->o.contrib = b->o.install = 1;
	b->o.jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (b->o.jobs < 1)
		b->o.jobs = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "j:qh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_SRC: b->o.src = optarg; break;
		case OPT_POLICY: b->o.policy = optarg; break;
		case OPT_PREFIX: b->o.prefix = optarg; break;
		case OPT_BUILDDIR: b->o.builddir = optarg; break;
		case 'j':
			if (parse_jobs(optarg, &b->o.jobs) < 0)
				return PGBUILD_EXIT_ERROR;
			break;
		case OPT_CONFARGS: b->o.configure_args = optarg; break;
		case OPT_CASSERT: b->o.cassert = 1; break;
		case OPT_NO_CONTRIB: b->o.contrib = 0; break;
		case OPT_NO_INSTALL: b->o.install = 0; break;
		case OPT_NO_BENCH: b->o.bench = 0; break;
		case OPT_BASELINE: b->o.baseline = optarg; break;
		case OPT_GATE: b->o.gate = optarg; break;
		case OPT_GATE_ARGS: b->o.gate_args = optarg; break;
		case 'q': b->o.quiet = 1; break;
		case 'h': build_usage(stdout); return 0;
		default:
			fprintf(stderr, "Try \"pgbuild build --help\".\n");
			return PGBUILD_EXIT_ERROR;
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument \"%s\"", argv[optind]);
	if (!b->o.policy)
		return usage_error("--policy is required (a policy file, or \"none\" for the baseline)");
	if (!b->o.prefix || !*b->o.prefix)
		return usage_error("--prefix is required");
	if (!b->o.baseline != !b->o.gate)
		return usage_error("--baseline and --gate go together");
	if (b->o.gate_args && !b->o.gate)
		return usage_error("--gate-args needs --baseline and --gate");
	if (b->o.gate && !b->o.install)
		return usage_error("--gate needs an install: it cannot be combined with --no-install");
	if (!b->o.install)
		b->o.bench = 0;

	b->quiet = b->o.quiet;
	b->tty = isatty(2);
	b->t0 = clock_seconds();
	{
		time_t t = time(NULL);
		strftime(b->started, sizeof(b->started), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	}
	if (access(pgbuild_pgoptcc(), X_OK) < 0) {
		error("pgoptcc not found next to pgbuild (%s)", pgbuild_pgoptcc());
		goto out;
	}
	if (load_policy(b) < 0)
		goto out;
	if (!(b->prefix = abs_dir(b->o.prefix)))
		goto out;
	{
		char *bd = b->o.builddir ? xstrdup(b->o.builddir) : xasprintf("%s.build", b->prefix);
		b->builddir = abs_dir(bd);
		free(bd);
		if (!b->builddir)
			goto out;
	}
	b->logdir = xasprintf("%s/pgopt-log", b->builddir);
	b->logfile = xasprintf("%s/%s", b->logdir, BUILDLOG_COMPILE);
	if (mkdir_p(b->logdir) < 0)
		goto out;
	{
		double t = clock_seconds();
		if (pgsrc_resolve(b->o.src, &b->src, b->quiet) < 0)
			goto out;
		add_phase(b, "source", clock_seconds() - t);
	}
	if (!strcmp(b->src.dir, b->builddir)) {
		error("--builddir must not be the source tree");
		goto out;
	}
	b->cc = xstrdup(getenv("PGOPT_CC") && *getenv("PGOPT_CC") ? getenv("PGOPT_CC") : "gcc");
	{
		const char *av[] = { b->cc, "--version", NULL };
		b->cc_version = first_line_of(av);
		if (!b->cc_version) {
			error("cannot run the compiler \"%s\" (set PGOPT_CC)", b->cc);
			goto out;
		}
	}
	b->ar = lto_tool(b->cc, "ar");
	b->ranlib = lto_tool(b->cc, "ranlib");
	if (b->lto && !(b->ar && b->ranlib))
		warning("the policy enables LTO but gcc-ar/gcc-ranlib were not found; "
			"static libraries may lose their LTO code");
	setup_env(b);
	setup_configure(b);
	if (!b->quiet)
		fprintf(stderr, "pgbuild: PostgreSQL %s from %s; policy %s%s; build %s\n",
			b->src.version, b->src.dir, b->policy ? b->policy : "none",
			b->lto ? " (LTO)" : "", b->builddir);

	/* configure, unless the build directory is configured the same way */
	b->log_first = buildlog_count_lines(b->logfile) + 1;
	stamp_path = xasprintf("%s/pgopt-configure.args", b->builddir);
	stamp = configure_stamp_text(b);
	{
		char *cs = xasprintf("%s/config.status", b->builddir);
		b->fresh = !path_exists(cs);
		if (b->fresh || strbuf_read_file(&old_stamp, stamp_path) < 0 ||
		    strcmp(old_stamp.buf, stamp)) {
			strvec_clear(&cmd);
			strvec_pushf(&cmd, "%s/configure", b->src.dir);
			strvec_pushv(&cmd, (const char *const *)b->configure.v);
			unlink(stamp_path);
			if (run_phase(b, "configure", &cmd, b->builddir, 0) != 0) {
				free(cs);
				goto out;
			}
			b->reconfigured = 1;
			/* PostgreSQL tracks no header dependencies unless
			 * --enable-depend: objects built under the old
			 * configuration must go (ccache makes this cheap) */
			if (!b->fresh) {
				strvec_clear(&cmd);
				strvec_pushl(&cmd, "make", "clean", NULL);
				if (run_phase(b, "clean", &cmd, b->builddir, 0) != 0) {
					free(cs);
					goto out;
				}
				b->fresh = 1;
			}
			write_file_atomic(stamp_path, stamp, strlen(stamp));
		}
		free(cs);
	}

	/* incremental: drop the objects whose flags the policy changes */
	if (!b->fresh && !unchanged_since_last_build(b) && invalidate(b) < 0)
		goto out;

	strvec_clear(&cmd);
	strvec_pushl(&cmd, "make", NULL);
	strvec_pushf(&cmd, "-j%d", b->o.jobs);
	if (run_phase(b, "make", &cmd, b->builddir,
		      b->fresh ? progress_total(b, "make") : b->invalidated - b->inval_contrib) != 0)
		goto out;
	if (b->fresh)
		progress_store(b, "make", b->phase_done);
	if (b->o.contrib) {
		strvec_clear(&cmd);
		strvec_pushl(&cmd, "make", "-C", "contrib", NULL);
		strvec_pushf(&cmd, "-j%d", b->o.jobs);
		if (run_phase(b, "contrib", &cmd, b->builddir,
			      b->fresh ? progress_total(b, "contrib") : b->inval_contrib) != 0)
			goto out;
		if (b->fresh)
			progress_store(b, "contrib", b->phase_done);
	}
	if (b->o.install) {
		strvec_clear(&cmd);
		strvec_pushl(&cmd, "make", "install", NULL);
		if (run_phase(b, "install", &cmd, b->builddir, 0) != 0)
			goto out;
		if (b->o.contrib) {
			strvec_clear(&cmd);
			strvec_pushl(&cmd, "make", "-C", "contrib", "install", NULL);
			if (run_phase(b, "install-contrib", &cmd, b->builddir, 0) != 0)
				goto out;
		}
	}
	rc = 0;
	if (b->o.bench)
		run_bench(b);
	if (b->o.gate)
		run_gate(b);
	if (b->bench_code)
		rc = b->bench_code;
	if (b->gate_code > 0)
		rc = b->gate_code;
out:
	if (b->builddir && b->src.dir)
		write_record(b, rc == 0 || (b->bench_code || b->gate_code > 0));
	if (rc == 0)
		printf("%s\n", b->o.install ? b->prefix : b->builddir);
	strvec_clear(&cmd);
	strbuf_release(&old_stamp);
	free(stamp_path);
	free(stamp);
	pgsrc_release(&b->src);
	return rc;
}
