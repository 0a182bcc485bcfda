/*
 * build.c - the phases of one PostgreSQL build through pgoptcc: setup,
 * configure, make, install, the smoke benchmark and the gate, with the
 * progress line; see build.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pgbuild/bench/bench.h"
#include "pgbuild/build/build.h"
#include "pgbuild/build/verify.h"
#include "pgbuild/build/buildlog.h"
#include "pgbuild/metric/workloads.h"
#include "pgbuild/pgbuild.h"

/* ---------------- small helpers ---------------- */

void build_add_phase(struct build *b, const char *name, double seconds)
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

/* See build.h. */
char *build_compiler_tool(const char *cc, const char *tool)
{
	const char *base = strrchr(cc, '/');
	char *name, *path = NULL, *real;
	base = base ? base + 1 : cc;
	if (!strncmp(base, "clang", 5)) {
		char *full = strchr(cc, '/') ? xstrdup(cc) : locate_in_path(cc);
		if (full && (real = realpath(full, NULL))) {
			*strrchr(real, '/') = '\0';
			path = strchr(tool, '.') ? xasprintf("%s/%s", real, tool) :
			       xasprintf("%s/llvm-%s", real, tool);
			free(real);
			if (access(path, X_OK) < 0) {
				free(path);
				path = NULL;
			}
		}
		free(full);
		if (path)
			return path;
		name = strchr(tool, '.') ? xasprintf("%s%s", tool, base + 5) :
		       xasprintf("llvm-%s%s", tool, base + 5);
	} else if (!strncmp(base, "gcc", 3)) {
		name = xasprintf("gcc-%s%s", tool, base + 3);
	} else {
		return NULL;
	}
	path = locate_in_path(name);
	free(name);
	return path;
}

int build_compiler_is_llvm(const char *cc)
{
	const char *av[] = { cc, "--version", NULL };
	char *line = first_line_of(av);
	/* "Debian clang version 15.0.6": gcc names itself by argv[0], so a gcc
	 * called clang-15 says "clang-15 (Debian 12.2.0-14) 12.2.0" */
	int llvm = line && strstr(line, "clang version") != NULL;
	free(line);
	return llvm;
}

const char *build_compiler(void)
{
	const char *cc = getenv("PGOPT_CC");
	return cc && *cc ? cc : "gcc";
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
	int fd = sfs_open_input(AT_FDCWD, path, SFS_IN_COMPILE_LOG, 0, NULL, NULL);
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
	build_add_phase(b, name, clock_seconds() - t);
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
	char *dir = xasprintf("%s/progress", build_source_cache_dir());
	char *f;
	mkdir_p(dir);
	f = xasprintf("%s/%s-%s%s.%s.tus", dir, b->src.version, b->lto ? "lto" : "nolto",
		      b->o.cassert ? "-cassert" : "", phase);
	free(dir);
	return f;
}

/* One entry below the source tree: a regular file NAME.c is counted
 * (ctx: the count), anything else passed (a link is not followed). */
static enum sfs_walk_next count_c_file(struct sfs_entry *e, void *ctx)
{
	size_t n = strlen(e->name);

	if (S_ISREG(e->st.st_mode) && n > 2 && !strcmp(e->name + n - 2, ".c"))
		++*(long *)ctx;
	return SFS_WALK_NEXT;
}

/* The C files below dir, through the one tree walk (sfs_walk_tree): a
 * guess, so a walk that fails keeps what it counted (said with -v). */
static long count_c_files(const char *dir)
{
	struct strbuf err = STRBUF_INIT;
	long count = 0;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		verbose("progress: cannot open %s: %s", dir, strerror(errno));
	else if (sfs_walk_tree(fd, dir, count_c_file, &count, &err) < 0)
		verbose("progress: %s", err.buf);
	if (fd >= 0)
		close(fd);
	strbuf_release(&err);
	return count;
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
	if (sfs_read(AT_FDCWD, f, SFS_IN_TEXT, 0, &sb, NULL) > 0)
		total = atol(sb.buf);
	if (total <= 0) {
		char *dir = xasprintf("%s/%s", b->src.dir,
				      !strcmp(phase, "contrib") ? "contrib" : "src");
		total = count_c_files(dir);
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
	/* the default training workloads (metric/workloads.c) */
	const char *const *workloads = workloads_names(WL_TRAIN);
	struct json_writer jw = JSON_WRITER_INIT(&b->bench);
	double t = clock_seconds();

	json_object_begin(&jw);
	for (const char *const *w = workloads; *w; w++) {
		struct bench_opts o;
		char *json = xasprintf("%s/pgopt-bench-%s.json", b->builddir, *w);
		char *log = xasprintf("%s/pgopt-bench-%s.log", b->builddir, *w);
		struct json_value *v = NULL;
		int fd, code;

		unlink(json);
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (!b->quiet)
			fprintf(stderr, "pgbuild: smoke benchmark %s (3 s) ...\n", *w);
		/* bench's defaults, and what the smoke run asks: 3 s, prepared */
		bench_opts_init(&o);
		o.prefix = b->prefix;
		bench_opts_set_workload(&o, *w);
		o.protocol = PROTO_PREPARED;
		o.duration = 3;
		o.json = json;
		bench_opts_default_threads(&o);
		o.seed = (uint64_t)clock_us() ^ ((uint64_t)getpid() << 32);
		code = bench_run_child(&o, fd, NULL);
		bench_opts_release(&o);
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
			sfs_read(AT_FDCWD, json, SFS_IN_JSON, 0, &raw, NULL);
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
	build_add_phase(b, "bench", clock_seconds() - t);
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
	build_add_phase(b, "gate", clock_seconds() - t);
}

static void setup_env(struct build *b)
{
	const char *pfx = getenv("PGOPT_PREFIX");
	const char *profile = getenv("PGOPT_PROFILE");
	const char *bundle = b->o.bundle ? b->o.bundle : getenv("PGOPT_BUNDLE");

	if (b->policy)
		strvec_pushf(&b->env, "PGOPT_POLICY=%s", b->policy);
	else
		strvec_push(&b->env, "PGOPT_POLICY=none");
	strvec_pushf(&b->env, "PGOPT_LOGDIR=%s", b->logdir);
	/* the root is found per file: sources in the source tree, generated
	 * files in the build tree */
	strvec_push(&b->env, "PGOPT_ROOT");
	/* pgbuild pgo's profile mode reaches pgoptcc from our environment:
	 * recorded, so that verify replays the compiles with it */
	if (profile && *profile)
		strvec_pushf(&b->env, "PGOPT_PROFILE=%s", profile);
	/* and the compiler, when not the default (clang: verify's replay must
	 * ask pgoptcc what it added for that compiler, not for gcc) */
	if (getenv("PGOPT_CC") && *getenv("PGOPT_CC"))
		strvec_pushf(&b->env, "PGOPT_CC=%s", build_compiler());
	/* and the hardening the caller lets the policy weaken (PGOPT_WEAKEN,
	 * pgbuild --weaken): recorded too, so that verify replays with it */
	if (getenv("PGOPT_WEAKEN") && *getenv("PGOPT_WEAKEN"))
		strvec_pushf(&b->env, "PGOPT_WEAKEN=%s", getenv("PGOPT_WEAKEN"));
	/* so is a profile bundle's (--bundle, pgbuild tune --bundle) */
	if (bundle && *bundle)
		strvec_pushf(&b->env, "PGOPT_BUNDLE=%s", bundle);
	if (!pfx) {
		char *ccache = locate_in_path("ccache");
		if (ccache) {
			strvec_push(&b->env, "PGOPT_PREFIX=ccache");
			if (!getenv("CCACHE_DIR")) {
				b->ccache_dir = xasprintf("%s/ccache", build_source_cache_dir());
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

/* ---------------- the phases ---------------- */

void build_init(struct build *b)
{
	memset(b, 0, sizeof(*b));
	strvec_init(&b->configure);
	strvec_init(&b->env);
	strvec_init(&b->invalidated_tus);
	strvec_init(&b->relinked_outputs);
	strvec_init(&b->policy_refs);
	strvec_init(&b->policy_ref_text);
	strbuf_init(&b->bench, 0);
	strbuf_init(&b->policy_text, 0);
	b->gate_code = -1;
	b->o.bench = b->o.contrib = b->o.install = 1;
	b->o.min_applies = 90;
	b->o.jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (b->o.jobs < 1)
		b->o.jobs = 1;
}

/* The real compiler, its version and its LTO-aware archivers. */
static int setup_compiler(struct build *b)
{
	const char *av[3];

	b->cc = xstrdup(build_compiler());
	av[0] = b->cc;
	av[1] = "--version";
	av[2] = NULL;
	b->cc_version = first_line_of(av);
	if (!b->cc_version)
		return error("cannot run the compiler \"%s\" (set PGOPT_CC)", b->cc);
	b->ar = build_compiler_tool(b->cc, "ar");
	b->ranlib = build_compiler_tool(b->cc, "ranlib");
	if (b->lto && !(b->ar && b->ranlib))
		warning("the policy enables LTO but the compiler's archiver (gcc-ar and "
			"gcc-ranlib, or llvm-ar and llvm-ranlib) was not found; static "
			"libraries may lose their LTO code");
	return 0;
}

int build_setup(struct build *b)
{
	double t;

	b->quiet = b->o.quiet;
	b->tty = isatty(2);
	b->t0 = clock_seconds();
	{
		time_t now = time(NULL);
		strftime(b->started, sizeof(b->started), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	}
	if (access(pgbuild_pgoptcc(), X_OK) < 0)
		return error("pgoptcc not found next to pgbuild (%s)", pgbuild_pgoptcc());
	if (build_load_policy(b) < 0)
		return -1;
	if (!(b->prefix = abs_dir(b->o.prefix)))
		return -1;
	{
		char *bd = b->o.builddir ? xstrdup(b->o.builddir) : xasprintf("%s.build", b->prefix);
		b->builddir = abs_dir(bd);
		free(bd);
		if (!b->builddir)
			return -1;
	}
	/* before anything is made or run in it: a tree someone else could
	 * have changed is refused (the test tree of a killed regress, the
	 * server user's, is not part of the build: make never enters it) */
	{
		const char *skip[] = { BUILD_CHECK_TREE, NULL };
		if (build_tree_ours(b->builddir, skip) < 0)
			return -1;
	}
	b->logdir = xasprintf("%s/pgopt-log", b->builddir);
	b->logfile = xasprintf("%s/%s", b->logdir, BUILDLOG_COMPILE);
	if (mkdir_p(b->logdir) < 0)
		return -1;
	t = clock_seconds();
	if (build_source_resolve(b->o.src, &b->src, b->quiet) < 0)
		return -1;
	build_add_phase(b, "source", clock_seconds() - t);
	if (!strcmp(b->src.dir, b->builddir))
		return error("--builddir must not be the source tree");
	if (setup_compiler(b) < 0)
		return -1;
	setup_env(b);
	setup_configure(b);
	if (!b->quiet)
		fprintf(stderr, "pgbuild: PostgreSQL %s from %s; policy %s%s; build %s\n",
			b->src.version, b->src.dir, b->policy ? b->policy : "none",
			b->lto ? " (LTO)" : "", b->builddir);
	return 0;
}

/* See build.h. */
char *build_configure_path(const char *srcdir, const char *builddir)
{
	size_t n = strlen(srcdir);
	struct strbuf sb = STRBUF_INIT;
	const char *rel;

	while (n > 1 && srcdir[n - 1] == '/')
		n--;
	if (strncmp(builddir, srcdir, n) || builddir[n] != '/' || !builddir[n + 1])
		return xasprintf("%.*s/configure", (int)n, srcdir);
	/* inside the source tree: "../configure" for each component */
	for (rel = builddir + n; *rel;) {
		while (*rel == '/')
			rel++;
		if (!*rel)
			break;
		if (!strncmp(rel, "./", 2) || !strcmp(rel, ".")) {
			rel += 1;
			continue;
		}
		strbuf_addstr(&sb, "../");
		rel += strcspn(rel, "/");
	}
	strbuf_addstr(&sb, "configure");
	return strbuf_detach(&sb, NULL);
}

int build_configure(struct build *b)
{
	char *stamp_path = xasprintf("%s/pgopt-configure.args", b->builddir);
	char *stamp = configure_stamp_text(b);
	char *cs = xasprintf("%s/config.status", b->builddir);
	struct strbuf old_stamp = STRBUF_INIT;
	struct strvec cmd = STRVEC_INIT;
	int rc = -1;

	b->log_first = buildlog_count_lines(b->logfile) + 1;
	b->fresh = !path_exists(cs);
	if (!b->fresh && sfs_read(AT_FDCWD, stamp_path, SFS_IN_TEXT, 0, &old_stamp, NULL) >= 0 &&
	    !strcmp(old_stamp.buf, stamp)) {
		rc = 0;         /* configured the same way: nothing to do */
		goto out;
	}
	{
		char *conf = build_configure_path(b->src.dir, b->builddir);
		strvec_push_nodup(&cmd, conf);
	}
	strvec_pushv(&cmd, (const char *const *)b->configure.v);
	unlink(stamp_path);
	if (run_phase(b, "configure", &cmd, b->builddir, 0) != 0)
		goto out;
	b->reconfigured = 1;
	/* PostgreSQL tracks no header dependencies unless --enable-depend:
	 * objects built under the old configuration must go (ccache makes
	 * this cheap) */
	if (!b->fresh) {
		strvec_clear(&cmd);
		strvec_pushl(&cmd, "make", "clean", NULL);
		if (run_phase(b, "clean", &cmd, b->builddir, 0) != 0)
			goto out;
		b->fresh = 1;
	}
	write_file_atomic(stamp_path, stamp, strlen(stamp));
	rc = 0;
out:
	strvec_clear(&cmd);
	strbuf_release(&old_stamp);
	free(stamp_path);
	free(stamp);
	free(cs);
	return rc;
}

int build_compile(struct build *b)
{
	struct strvec cmd = STRVEC_INIT;
	int rc = -1;

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
	b->compiled = 1;
	rc = 0;
out:
	strvec_clear(&cmd);
	return rc;
}

int build_install(struct build *b)
{
	struct strvec cmd = STRVEC_INIT;
	int rc = -1;

	if (!b->o.install)
		return 0;
	strvec_pushl(&cmd, "make", "install", NULL);
	if (run_phase(b, "install", &cmd, b->builddir, 0) != 0)
		goto out;
	if (b->o.contrib) {
		strvec_clear(&cmd);
		strvec_pushl(&cmd, "make", "-C", "contrib", "install", NULL);
		if (run_phase(b, "install-contrib", &cmd, b->builddir, 0) != 0)
			goto out;
	}
	rc = 0;
out:
	strvec_clear(&cmd);
	return rc;
}

int build_checks(struct build *b)
{
	int rc = 0;
	if (b->o.bench)
		run_bench(b);
	if (b->o.gate)
		run_gate(b);
	if (b->bench_code)
		rc = b->bench_code;
	if (b->gate_code > 0)
		rc = b->gate_code;
	return rc;
}

/*
 * The sections of the policy no compile of the build matched, said at the
 * end where they are seen (a policy that names a file the tree does not
 * have builds stock, without a word from make); verify fails on them.
 */
static void warn_unmatched(const struct build *b)
{
	struct strvec lines = STRVEC_INIT;

	if (!b->compiled || !b->policy)
		return;
	if (verify_unmatched(b->policy, b->logfile, b->builddir, &lines) > 0)
		for (size_t i = 0; i < lines.nr; i++)
			warning("%s: a section that applies to nothing (`pgbuild verify` fails on it)",
				lines.v[i]);
	strvec_clear(&lines);
}

void build_finish(struct build *b, int rc)
{
	if (rc >= 0 && b->builddir && b->src.dir)
		build_write_record(b, rc == 0 || (b->bench_code || b->gate_code > 0));
	warn_unmatched(b);
	if (rc == 0)
		printf("%s\n", b->o.install ? b->prefix : b->builddir);
	build_release(b);
}

void build_release(struct build *b)
{
	build_source_release(&b->src);
	free(b->prefix);
	free(b->builddir);
	free(b->o.bundle);
	free(b->logdir);
	free(b->logfile);
	free(b->policy);
	strbuf_release(&b->policy_text);
	strvec_clear(&b->policy_refs);
	strvec_clear(&b->policy_ref_text);
	free(b->policy_sha);
	free(b->lto_mode);
	free(b->cc);
	free(b->cc_version);
	free(b->ar);
	free(b->ranlib);
	strvec_clear(&b->configure);
	strvec_clear(&b->env);
	free(b->ccache_dir);
	strvec_clear(&b->invalidated_tus);
	strvec_clear(&b->relinked_outputs);
	strbuf_release(&b->bench);
	free(b->bench_note);
}

int build_tree_ours(const char *builddir, const char *const *skip)
{
	struct strbuf bad = STRBUF_INIT, err = STRBUF_INIT;
	uid_t owner = 0;
	int fd, r;

	if (geteuid() != 0)
		return 0;       /* the boundary is root's: not root, nothing to cross */
	fd = open(builddir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? 0 : error("%s: %s", builddir, strerror(errno));
	r = sfs_tree_foreign(fd, ".", geteuid(), getegid(), skip, &bad, &owner, &err);
	close(fd);
	if (r < 0)
		error("cannot check the build tree %s: %s", builddir, err.buf);
	else if (r > 0) {
		struct passwd *pw = getpwuid(owner);
		char who[96];
		if (owner == geteuid())
			snprintf(who, sizeof(who), "can be written by other users");
		else
			snprintf(who, sizeof(who), "belongs to %s (uid %ld)", pw ? pw->pw_name : "?",
				 (long)owner);
		char *what = bad.len ? xasprintf("%s/%s", builddir, bad.buf) : xstrdup("it");
		error("refusing to run make in %s: %s %s (an earlier pgbuild handed the tree "
		      "to the server user, who could have changed its Makefiles); build afresh in "
		      "a new --builddir, or check it and take it back: chown -R %ld: %s && "
		      "chmod -R go-w %s", builddir, what, who, (long)geteuid(), builddir, builddir);
		free(what);
	}
	strbuf_release(&bad);
	strbuf_release(&err);
	return r == 0 ? 0 : -1;
}
