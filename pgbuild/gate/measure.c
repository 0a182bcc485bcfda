/*
 * measure.c - the measuring part of `pgbuild gate`: A (baseline) and B
 * (candidate) benchmarked interleaved, instructions counted, the
 * regression suite consulted, then the verdict (expr.c) and its outputs;
 * see gate.h.
 *
 * Each measurement is one `pgbuild bench` child (a fresh private cluster:
 * the server is restarted between runs, data and settings identical), so a
 * crashing candidate cannot take the gate down with it.  Each pair's
 * order (A B or B A) is a seeded coin flip (gate_pair_b_first: the seed
 * --seed, else drawn, printed and recorded), so slow drift of the machine
 * cancels out without correlating consecutive pairs, and every workload
 * is measured within each pair.  The analysis and
 * the verdict are in expr.c (pure, unit-tested); instructions per
 * transaction come from metric/instr.h (perf stat or callgrind).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pgbuild/bench/bench.h"
#include "pgbuild/build/regress.h"
#include "pgbuild/bench/servercpu.h"
#include "pgbuild/cli/cli.h"
#include "pgbuild/cluster/workdir.h"
#include "pgbuild/explain/explain.h"
#include "pgbuild/gate/gate.h"
#include "pgbuild/gate/junit.h"
#include "pgbuild/gate/sequential.h"
#include "pgbuild/metric/cycles.h"
#include "pgbuild/metric/instr.h"
#include "pgbuild/metric/metrics.h"
#include "pgbuild/metric/single.h"
#include "pgbuild/pgbuild.h"

static int pin_cpus(const char *list)
{
	cpu_set_t set;
	if (servercpu_parse_cpus(list, &set) < 0)
		return -1;
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		return error("--cpus %s: cannot pin: %s", list, strerror(errno));
	return 0;
}

/*
 * SIGINT/SIGTERM: stop after the bench child in flight (it gets the signal
 * too when the whole process group is signalled), remove the temporary
 * directory, and die of the same signal.
 */
volatile sig_atomic_t gate_interrupted;

static void gate_on_signal(int sig)
{
	gate_interrupted = sig;
}

void gate_catch_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = gate_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* Read one bench JSON (name, below the work directory dirfd) into a run. */
static void load_bench_json(struct gate_run *r, int dirfd, const char *name, const char *path)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	struct json_value *v;
	const struct json_value *lat, *valid;
	if (sfs_read(dirfd, name, SFS_IN_JSON, SFS_NOFOLLOW, &sb, NULL) < 0) {
		if (r->exit == 0)
			r->exit = 2;
		strbuf_release(&sb);
		return;
	}
	v = json_parse(sb.buf, sb.len, &err);
	if (!v) {
		warning("%s: %s", path, err.buf);
		if (r->exit == 0)
			r->exit = 2;
		goto out;
	}
	r->tps = json_get_num(v, "tps", NAN);
	r->server_cpu_us = json_get_num(json_get(v, "server_cpu"), "us_per_tx", NAN);
	lat = json_get(v, "latency_ms");
	for (int k = 0; k < GATE_NLAT; k++)
		r->lat[k] = json_get_num(lat, gate_lat_keys[k], NAN);
	valid = json_get(v, "valid");
	if (valid && valid->type == JSON_BOOL && !valid->u.boolean && r->exit == 0)
		r->exit = 1;
	r->json = gate_json_text(v);
	json_free(v);
out:
	strbuf_release(&sb);
	strbuf_release(&err);
}

static int bench_once(const struct gate_opts *o, const char *dir, int dirfd,
		      const char *workload, int pair, char build, struct gate_run *r)
{
	struct bench_opts bo;
	char *templates = xasprintf("%s/templates", dir);
	char *jname = xasprintf("%s-%02d-%c.json", workload, pair, build);
	char *lname = xasprintf("%s-%02d-%c.log", workload, pair, build);
	char *json = xasprintf("%s/%s", dir, jname);
	char *log = xasprintf("%s/%s", dir, lname);
	int fd;

	/* new files below the work directory's descriptor, never through a
	 * link: an earlier run's are removed first */
	sfs_remove(dirfd, jname, NULL);
	fd = sfs_remove(dirfd, lname, NULL) < 0 ? -1 :
	     sfs_create(dirfd, lname, O_WRONLY, 0644, NULL);
	bench_opts_init(&bo);
	bo.prefix = build == 'A' ? o->baseline : o->candidate;
	bench_opts_set_workload(&bo, workload);
	bo.protocol = (enum bench_protocol)bench_protocol_parse(o->protocol);
	bo.clients = o->clients;
	bo.threads = o->threads;
	bench_opts_default_threads(&bo);
	bo.duration = o->duration;
	bo.warmup = o->warmup;
	bo.scale = o->scale;
	strvec_pushv(&bo.settings, (const char *const *)o->settings.v);
	/* bench splits the CPUs between its client threads and the server */
	bo.cpus = o->cpus;
	bo.template_dir = templates;
	/* the same keys for A and B within a pair */
	bo.seed = (uint64_t)(1000 + pair);
	bo.quiet = 1;
	bo.json = json;
	r->pair = pair;
	r->build = build;
	/* the templates' directory as bench's --datadir-template is checked */
	r->exit = workdir_trusted("the gate's templates", templates) < 0 ? PGBUILD_EXIT_ERROR :
		  bench_run_child(&bo, fd, NULL);
	bench_opts_release(&bo);
	if (fd >= 0)
		close(fd);
	if (r->exit < 0 || r->exit > 2)
		r->exit = 2;
	load_bench_json(r, dirfd, jname, json);
	if (r->exit != 0 && !o->quiet) {
		char *last = textfile_last_line(log, NULL);
		warning("bench %s on %c (pair %d) exited %d: %s (log: %s)", workload, build,
			pair + 1, r->exit, last ? last : "", log);
		free(last);
	}
	free(templates);
	free(jname);
	free(lname);
	free(json);
	free(log);
	return r->exit;
}

/* The verdict's suite row from a document regress wrote (`regress --json`,
 * read by its one reader): 0, or -1 with the reason said, naming what. */
static int regress_from_json(struct gate *g, const char *path, const char *what)
{
	struct regress_result rr;
	struct strbuf err = STRBUF_INIT;
	int rc = 0;

	if (regress_result_read(path, &rr, &err) < 0) {
		rc = error("%s: %s", what, err.buf);
		strbuf_release(&err);
		return rc;
	}
	g->regress = rr.ok ? REGRESS_PASSED : REGRESS_FAILED;
	/* a crash the server's log showed fails the suite with every test
	 * passed: the note says so */
	g->regress_note = xasprintf("regression suite%s%s: %ld/%ld tests passed%s%s",
				    rr.mode ? " " : "", rr.mode ? rr.mode : "",
				    rr.tests - rr.failed, rr.tests,
				    rr.problems ? "; the server's log: " : "",
				    rr.problems ? rr.problems : "");
	regress_result_clear(&rr);
	strbuf_release(&err);
	return 0;
}

/* --require-regress's suite, run here by the regress engine (a function
 * child: its servers apart from ours), its output in DIR/regress.log, its
 * counts from DIR/regress.json. */
static int run_regress(const struct gate_opts *o, struct gate *g, const char *dir, int dirfd)
{
	struct regress_opts ro;
	char *json = xasprintf("%s/regress.json", dir), *log = xasprintf("%s/regress.log", dir);
	int fd, rc;

	regress_opts_init(&ro);
	ro.builddir = o->require_regress;
	ro.json = json;
	ro.quiet = o->quiet;
	if (!o->quiet)
		fprintf(stderr, "gate: regression suite of %s ...\n", o->require_regress);
	sfs_remove(dirfd, "regress.json", NULL);
	fd = sfs_remove(dirfd, "regress.log", NULL) < 0 ? -1 :
	     sfs_create(dirfd, "regress.log", O_WRONLY, 0644, NULL);
	if (fd < 0) {
		rc = error("cannot write %s: %s", log, strerror(errno));
		goto out;
	}
	rc = regress_run_child(&ro, fd, 0);
	close(fd);
	if (rc == PGBUILD_EXIT_OK || rc == PGBUILD_EXIT_FAIL) {
		rc = regress_from_json(g, json, "the regression suite's result");
	} else {
		/* the log is named only where it stays (--workdir) */
		char *last = textfile_last_line(log, "error:");
		rc = error("the regression suite of %s could not run (exit %d): %s%s%s%s",
			   o->require_regress, rc, last ? last : "no error line",
			   o->workdir ? " (log: " : "", o->workdir ? log : "", o->workdir ? ")" : "");
		free(last);
	}
out:
	free(json);
	free(log);
	return rc;
}

/* The suite's row of the verdict: given (--regress-result passed|failed or
 * a regress --json document), run here (--require-regress), or not run. */
static int regress_row(const struct gate_opts *o, struct gate *g, const char *dir, int dirfd)
{
	if (o->regress_result && (!strcmp(o->regress_result, "passed") ||
				  !strcmp(o->regress_result, "failed"))) {
		g->regress = !strcmp(o->regress_result, "passed") ? REGRESS_PASSED : REGRESS_FAILED;
		g->regress_note = xasprintf("regression suite %s (given by --regress-result, "
					    "no counts)", o->regress_result);
		return 0;
	}
	if (o->regress_result)
		return regress_from_json(g, o->regress_result, "--regress-result");
	if (!o->require_regress) {
		g->regress = REGRESS_NOT_RUN;
		return 0;
	}
	return run_regress(o, g, dir, dirfd);
}

static char *settings_json(const struct gate_opts *o);

/*
 * Write path atomically: a temporary file next to it, then rename, so a
 * reader (a CI step) sees the old document or the new one, never a torn one.
 */
static int write_file(const char *path, const struct strbuf *sb)
{
	return write_file_atomic(path, sb->buf, sb->len);
}

/* --json and --junit of a gate that decided, or stopped (gate_stop). */
int gate_write_outputs(const struct gate_opts *o, const struct gate *g)
{
	struct strbuf out = STRBUF_INIT;
	char *settings = settings_json(o);
	int rc = 0;
	if (o->json) {
		gate_write_json(g, &out, o->baseline, o->candidate, settings);
		rc |= write_result(o->json, out.buf, out.len);
	}
	if (o->junit) {
		strbuf_reset(&out);
		junit_write(g, &out, "pgbuild gate");
		rc |= write_file(o->junit, &out);
	}
	free(settings);
	strbuf_release(&out);
	return rc ? -1 : 0;
}

static char *settings_json(const struct gate_opts *o)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_writer jw;
	json_writer_init(&jw, &sb);
	json_object_begin(&jw);
	json_key(&jw, "pairs"); json_int(&jw, o->pairs);
	json_key(&jw, "pairs_mode"); json_string(&jw, o->auto_pairs ? "auto" : "fixed");
	json_key(&jw, "budget_s");
	json_double(&jw, o->auto_pairs ? o->budget : NAN);
	json_key(&jw, "clients"); json_int(&jw, o->clients);
	json_key(&jw, "threads"); json_int(&jw, o->threads);
	json_key(&jw, "protocol"); json_string(&jw, o->protocol);
	json_key(&jw, "duration"); json_double(&jw, o->duration);
	json_key(&jw, "warmup"); json_double(&jw, o->warmup);
	json_key(&jw, "scale"); json_int(&jw, o->scale);
	json_key(&jw, "metric"); json_string(&jw, cli_metrics_text(o->metrics));
	json_key(&jw, "counter"); json_string(&jw, instr_counter_name(o->counter));
	json_key(&jw, "cpus"); json_string(&jw, o->cpus);
	json_key(&jw, "set");
	json_strvec(&jw, &o->settings);
	json_object_end(&jw);
	return strbuf_detach(&sb, NULL);
}

/* ---------------- the gate, in phases ---------------- */

/* What counts instructions (the --counter probe); 0 or -1 with *why. */
static int pick_counter(struct gate_opts *o, struct gate *g, const char **why)
{
	struct strbuf probe = STRBUF_INIT;
	enum instr_counter use;
	if (instr_pick_counter(o->counter, &use, &probe) < 0) {
		error("--counter perf: %s", probe.buf);
		*why = "--counter perf: hardware counters do not work here";
		strbuf_release(&probe);
		return -1;
	}
	g->counter = xstrdup(instr_counter_name(use));
	g->counter_note = strbuf_detach(&probe, NULL);
	o->counter = use;
	if (!o->quiet)
		fprintf(stderr, "gate: instructions counted by %s (%s)\n", g->counter, g->counter_note);
	return 0;
}

/*
 * The directory of bench outputs: --workdir, or a temporary one (*tmp),
 * open as *dirfd.  A --workdir is never chmodded (workdir_open: one
 * another user could write in, or the server user cannot enter, is
 * refused); the temporary one is ours and made searchable (the server user
 * reaches the templates and the single-user runs below it, which are
 * subdirectories with fixed names handed to it through descriptors).
 */
static char *make_workdir(const struct gate_opts *o, int *tmp, int *dirfd, const char **why)
{
	char *dir;
	if (o->workdir) {
		if ((*dirfd = workdir_open("--workdir", o->workdir)) < 0) {
			*why = "cannot use the --workdir";
			return NULL;
		}
		dir = xstrdup(o->workdir);
	} else {
		const char *t = getenv("TMPDIR");
		dir = xasprintf("%s/pgbuild-gate.XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(dir)) {
			error("cannot create a directory %s: %s", dir, strerror(errno));
			*why = "cannot create a temporary directory";
			free(dir);
			return NULL;
		}
		*tmp = 1;
		*dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (*dirfd < 0 || fchmod(*dirfd, 0755) < 0) {
			error("cannot set up %s: %s", dir, strerror(errno));
			*why = "cannot create a temporary directory";
			remove_tree(dir);
			free(dir);
			return NULL;
		}
	}
	return dir;
}

/* splitmix64's finaliser: a well-mixed 64-bit function of x. */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

int gate_pair_b_first(uint64_t seed, int pair, size_t workload)
{
	return (int)(mix64(mix64(mix64(seed) ^ (uint64_t)pair) ^ (uint64_t)workload) >> 63);
}

/* The pairs' seed: --seed, else drawn (getrandom; the clock and pid if it
 * cannot), said once. */
static void pick_seed(const struct gate_opts *o, struct gate *g)
{
	uint64_t s;
	if (o->seed >= 0) {
		g->order_seed = o->seed;
	} else {
		if (getrandom(&s, sizeof(s), 0) != (ssize_t)sizeof(s))
			s = mix64((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32));
		g->order_seed = (int64_t)(s & (uint64_t)GATE_SEED_MAX);
	}
	if (!o->quiet)
		fprintf(stderr, "gate: pair order: a coin flip per pair and workload, seed %lld "
			"(--seed %lld repeats it)\n", (long long)g->order_seed,
			(long long)g->order_seed);
}

/* Every workload in pair p, each in the order its coin flip gives. */
static void measure_pair(const struct gate_opts *o, struct gate *g, const char *dir, int dirfd,
			 int p)
{
	for (size_t k = 0; k < g->nr_wl && !gate_interrupted; k++) {
		struct gate_workload *w = &g->wl[k];
		int b_first = gate_pair_b_first((uint64_t)g->order_seed, p, k);
		for (int half = 0; half < 2 && !gate_interrupted; half++) {
			char build = (half == 0) != b_first ? 'A' : 'B';
			struct gate_run *r = gate_workload_add_run(w);
			bench_once(o, dir, dirfd, w->name, p, build, r);
			if (!o->quiet && o->auto_pairs)
				fprintf(stderr, "gate: %-12s pair %d (auto) %c: %s%.0f tps\n",
					w->name, p + 1, build, r->exit ? "(failed) " : "", r->tps);
			else if (!o->quiet)
				fprintf(stderr, "gate: %-12s pair %d/%d %c: %s%.0f tps\n",
					w->name, p + 1, o->pairs, build,
					r->exit ? "(failed) " : "", r->tps);
		}
	}
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * --pairs auto: is the gate decided after these pairs?  Every threshold
 * passed or failed, or a failure (a missed threshold, a correctness or run
 * error) that more pairs cannot undo: 1; a sequence that ended
 * inconsistent (no pair can decide it any more): 2; else 0.
 */
static int auto_decided(struct gate *g)
{
	int undecided = 0;
	gate_analyse(g);
	gate_decide(g);
	if (g->regress == REGRESS_FAILED)
		return 1;
	for (size_t k = 0; k < g->nr_wl; k++)
		if (g->wl[k].correctness_failed || g->wl[k].run_errors)
			return 1;
	/* the instructions and cycles thresholds are measured after the pairs */
	for (size_t i = 0; i < g->nr_res; i++) {
		enum gate_kind kind = g->res[i].th->kind;
		if (kind == GATE_INSTRUCTIONS || kind == GATE_CYCLES)
			continue;
		if (g->res[i].status == GATE_FAIL)
			return 1;
		undecided |= g->res[i].status == GATE_UNDECIDED;
	}
	for (size_t i = 0; i < g->nr_res; i++)
		if (g->res[i].seq_inconsistent)
			return 2;
	return !undecided;
}

/* The least time one pair can take: every workload, two runs of warm-up
 * and duration (without the servers' start and stop). */
static double pair_seconds_least(const struct gate_opts *o, const struct gate *g)
{
	return 2.0 * (double)g->nr_wl * (o->warmup + o->duration);
}

/*
 * --pairs auto, before anything runs: the pairs the sequence needs before
 * it can decide anything (sequential.h, seq_min_pairs, at the family's
 * level: gate_seq_conf), said; a --budget that cannot hold that many
 * pairs even without the servers' start and stop is refused (-1 after the
 * error, *why set).
 */
static int check_budget(const struct gate_opts *o, struct gate *g, const char **why)
{
	double conf = gate_seq_conf(g);
	size_t least = seq_min_pairs(1 - conf), m = gate_family_size(g);
	double pair = pair_seconds_least(o, g), need = (double)least * pair;

	if (o->budget < need) {
		error("--budget %gs: the %.4g%% confidence sequence%s is unbounded before %zu pairs, "
		      "and %zu pairs of %zu workload%s x 2 runs of %g s (--warmup %g + --duration %g) "
		      "take at least %g s: give --budget %.0fs or more (the sequence could not decide "
		      "anything)", o->budget, conf * 100, m > 1 ? " (the level of each of the "
		      "family's tests)" : "", least, least, g->nr_wl,
		      g->nr_wl == 1 ? "" : "s", o->warmup + o->duration, o->warmup, o->duration,
		      need, ceil(need * 1.5));
		*why = "--budget is too short for --pairs auto to decide anything";
		return -1;
	}
	if (!o->quiet && m > 1)
		fprintf(stderr, "gate: %zu tests in this gate: each sequence is decided at %.4g%% "
			"(Bonferroni, so that any wrong one has at most %g%%)\n", m, conf * 100,
			(1 - g->conf) * 100);
	if (!o->quiet)
		fprintf(stderr, "gate: --pairs auto: the %.4g%% confidence sequence can decide from "
			"pair %zu on (it is unbounded before); the %.0f s budget holds at most %.0f "
			"pairs of at least %g s\n", conf * 100, least, o->budget,
			floor(o->budget / pair), pair);
	return 0;
}

/*
 * Fixed --pairs, before anything runs: with more than one test the first
 * Holm step is decided at (1 - conf) / 2m, which fewer pairs than
 * gate_family_min_pairs cannot reach: said (no claim could pass, no bound
 * fail), not refused (a bound that cannot fail is "not shown slower").
 */
static void say_family(const struct gate_opts *o, const struct gate *g)
{
	size_t m = gate_family_size(g), least = gate_family_min_pairs(g);
	if (o->quiet || m <= 1 || !(o->metrics & METRIC_TPS))
		return;
	fprintf(stderr, "gate: %zu tests in this gate: decided by Holm's step-down procedure, the "
		"first at %.4g%% one-sided, so that any wrong one has at most %g%%\n", m,
		(1 - g->conf) / 2 / (double)m * 100, (1 - g->conf) / 2 * 100);
	if ((size_t)o->pairs < least)
		fprintf(stderr, "gate: note: %d pairs cannot reach that level (%zu can): tps, latency "
			"and server CPU tests can decide only once others have (give --pairs %zu)\n",
			o->pairs, least, least);
}

/*
 * --pairs auto: pairs until the confidence sequences decide, or until the
 * next pair would end after --budget (judged by the longest pair so far),
 * or CLI_PAIRS_MAX pairs.  The reason is kept in g->seq_stop.
 */
static void measure_auto(struct gate_opts *o, struct gate *g, const char *dir, int dirfd)
{
	double start = now_s(), longest = 0;
	double least = (double)seq_min_pairs(1 - gate_seq_conf(g));
	const char *why = "interrupted";
	int p, d;
	for (p = 0; !gate_interrupted; p++) {
		double t0 = now_s();
		if (p == CLI_PAIRS_MAX) {
			why = "the pair limit";
			break;
		}
		if (p > 0 && t0 - start + longest > o->budget) {
			why = "the budget";
			break;
		}
		measure_pair(o, g, dir, dirfd, p);
		longest = fmax(longest, now_s() - t0);
		if (p == 0 && !o->quiet && least * longest > o->budget)
			fprintf(stderr, "gate: --pairs auto: warning: a pair took %.0f s here, so the "
				"budget ends after about %.0f pairs, before the %.0f the sequence needs "
				"to decide anything: expect undecided\n", longest,
				floor(o->budget / longest), least);
		if (!gate_interrupted && (d = auto_decided(g))) {
			p++;
			why = d == 2 ? "a sequence ended inconsistent" : "decided";
			break;
		}
	}
	o->pairs = p;
	free(g->seq_stop);
	g->seq_stop = xasprintf("%s after %d pair%s in %.0f s of a %.0f s budget", why, p,
				p == 1 ? "" : "s", now_s() - start, o->budget);
	if (!o->quiet)
		fprintf(stderr, "gate: --pairs auto stopped: %s\n", g->seq_stop);
}

/* Every pair, every workload, each pair's order a seeded coin flip. */
static void measure_tps(struct gate_opts *o, struct gate *g, const char *dir, int dirfd)
{
	pick_seed(o, g);
	if (o->auto_pairs) {
		measure_auto(o, g, dir, dirfd);
		return;
	}
	for (int p = 0; p < o->pairs && !gate_interrupted; p++)
		measure_pair(o, g, dir, dirfd, p);
}

/* Instructions per transaction of A and B, per workload. */
static void measure_instr(const struct gate_opts *o, struct gate *g, const char *dir)
{
	for (size_t k = 0; k < g->nr_wl && !gate_interrupted; k++) {
		struct gate_workload *w = &g->wl[k];
		struct strbuf note = STRBUF_INIT;
		double ia = NAN, ib = NAN;
		int ra, rb = -1;
		if (!o->quiet)
			fprintf(stderr, "gate: %-12s %s (%s) ...\n", w->name,
				metrics_of(METRIC_INSTR)->title, g->counter);
		ra = instr_measure(o->baseline, w->name, dir, o->instr_statements, o->counter,
				   &ia, &note);
		if (ra == 0) {
			strbuf_reset(&note);
			rb = instr_measure(o->candidate, w->name, dir, o->instr_statements, o->counter,
					   &ib, &note);
		}
		if (ra == 0 && rb == 0) {
			w->instr = INSTR_OK;
			w->instr_a = ia;
			w->instr_b = ib;
			w->instr_note = xasprintf("%s, single-user mode, %s",
						  o->counter == INSTR_COUNTER_PERF ? "perf stat" : "callgrind",
						  instr_describe(w->name, o->instr_statements));
		} else {
			w->instr = INSTR_UNAVAILABLE;
			w->instr_note = xasprintf("%s: %s", ra == 0 ? "candidate" : "baseline", note.buf);
			warning("%s for %s unavailable: %s", metrics_of(METRIC_INSTR)->label, w->name,
				w->instr_note);
		}
		strbuf_release(&note);
	}
}

/* The cycles estimate per transaction of A and B, per workload, in one
 * directory (the data-directory path is part of what is measured). */
static void measure_cycles(const struct gate_opts *o, struct gate *g, const char *dir)
{
	for (size_t k = 0; k < g->nr_wl && !gate_interrupted; k++) {
		struct gate_workload *w = &g->wl[k];
		struct strbuf note = STRBUF_INIT;
		int ra, rb = -1;
		if (!o->quiet)
			fprintf(stderr, "gate: %-12s %s (callgrind cache and branch simulation) ...\n",
				w->name, metrics_of(METRIC_CYCLES)->title);
		ra = cycles_measure(o->baseline, w->name, dir, o->instr_statements, &w->cyc_a, &note);
		if (ra == 0) {
			strbuf_reset(&note);
			rb = cycles_measure(o->candidate, w->name, dir, o->instr_statements, &w->cyc_b,
					    &note);
		}
		if (ra == 0 && rb == 0) {
			w->cycles = INSTR_OK;
			w->cycles_note = xasprintf("callgrind --cache-sim=yes --branch-sim=yes %s %s %s, "
						   "setarch -R, single-user mode, %s", CYCLES_I1,
						   CYCLES_D1, CYCLES_LL,
						   instr_describe(w->name, o->instr_statements));
		} else {
			w->cycles = INSTR_UNAVAILABLE;
			w->cycles_note = xasprintf("%s: %s", ra == 0 ? "candidate" : "baseline", note.buf);
			warning("%s for %s unavailable: %s", metrics_of(METRIC_CYCLES)->label, w->name,
				w->cycles_note);
		}
		strbuf_release(&note);
	}
}

/* Where each workload's estimate changed: the explain section from the
 * cycles runs' callgrind outputs, before a temporary directory goes; the
 * outputs' paths are recorded when --workdir keeps them. */
static void explain_cycles(const struct gate_opts *o, struct gate *g, const char *dir)
{
	for (size_t k = 0; k < g->nr_wl && !gate_interrupted; k++) {
		struct gate_workload *w = &g->wl[k];
		long n = o->instr_statements ? o->instr_statements : single_default_n(w->name);
		/* the floor's per-function spread, when it has this workload's */
		struct explain_inputs in = { .baseline = o->baseline, .candidate = o->candidate,
					     .statements = n, .workload = w->name,
					     .noise = g->noise_file, .noise_optional = 1,
					     .keep_rows = EXPLAIN_KEEP_ROWS };
		struct strbuf doc = STRBUF_INIT, cg = STRBUF_INIT;
		char *files[2][2];
		if (w->cycles != INSTR_OK)
			continue;
		for (int s = 0; s < 2; s++)
			for (int r = 0; r < 2; r++) {
				char *f = cycles_output_path(s ? o->candidate : o->baseline, w->name, dir,
							     r ? 10 * n : n);
				files[s][r] = path_absolute(f);
				in.files[s][r] = files[s][r];
				free(f);
			}
		if (o->workdir) {
			struct json_writer jw;
			json_writer_init(&jw, &cg);
			json_object_begin(&jw);
			json_key(&jw, "statements"); json_int(&jw, n);
			for (int s = 0; s < 2; s++) {
				json_key(&jw, s ? "b" : "a");
				json_array_begin(&jw);
				json_string(&jw, files[s][0]);
				json_string(&jw, files[s][1]);
				json_array_end(&jw);
			}
			json_object_end(&jw);
		}
		if (!o->quiet)
			fprintf(stderr, "gate: %-12s where the estimate changed (pgbuild explain) ...\n",
				w->name);
		if (explain_run(&in, &doc) == 0)
			w->explain_json = strbuf_detach(&doc, NULL);
		else
			warning("%s: the explain section is left out", w->name);
		if (cg.len)
			w->cycles_callgrind = strbuf_detach(&cg, NULL);
		for (int s = 0; s < 2; s++)
			for (int r = 0; r < 2; r++)
				free(files[s][r]);
		strbuf_release(&doc);
		strbuf_release(&cg);
	}
}

static void run_tps(struct gate_opts *o, struct gate *g, const char *dir, int dirfd)
{
	measure_tps(o, g, dir, dirfd);
}

static void run_count(struct gate_opts *o, struct gate *g, const char *dir, int dirfd)
{
	measure_instr(o, g, dir);
}

static void run_simulate(struct gate_opts *o, struct gate *g, const char *dir, int dirfd)
{
	measure_cycles(o, g, dir);
	explain_cycles(o, g, dir);
}

/* What measures each kind of run of metric/metrics.h. */
static void (*const runners[])(struct gate_opts *, struct gate *, const char *, int) = {
	[METRIC_RUN_BENCH] = run_tps,
	[METRIC_RUN_COUNT] = run_count,
	[METRIC_RUN_SIMULATE] = run_simulate,
};

int gate_measure(struct gate_opts *o, struct gate *g, const char **stop_reason)
{
	int tmpdir = 0, rc = -1, dirfd = -1;
	char *dir = NULL;

	if (o->auto_pairs && check_budget(o, g, stop_reason) < 0)
		return -1;
	if (!o->auto_pairs)
		say_family(o, g);
	if ((o->metrics & METRIC_INSTR) && pick_counter(o, g, stop_reason) < 0)
		return -1;
	if (o->cpus && pin_cpus(o->cpus) < 0) {
		*stop_reason = "--cpus: cannot pin the benchmark";
		return -1;
	}
	if (!(dir = make_workdir(o, &tmpdir, &dirfd, stop_reason)))
		return -1;
	if (regress_row(o, g, dir, dirfd) < 0) {
		*stop_reason = "the candidate's regression suite could not run";
		goto out;
	}
	/* the metrics asked for, in the table's order */
	for (const struct metric_desc *m = metrics; m->name; m++)
		if (o->metrics & m->bit)
			runners[m->run](o, g, dir, dirfd);
	if (gate_interrupted)
		goto out;
	gate_analyse(g);
	rc = gate_decide(g);
out:
	if (dirfd >= 0)
		close(dirfd);
	/* our own temporary directory, made in TMPDIR: removed by its name
	 * there (remove_tree never follows a link below it) */
	if (tmpdir && remove_tree(dir) < 0)
		warning("cannot remove \"%s\": %s", dir, strerror(errno));
	free(dir);
	return rc;
}

void gate_finish(const struct gate_opts *o, struct gate *g, int decided,
		 const char *stop_reason)
{
	/* stopped before deciding (an error or a signal): never leave an old
	 * document in place; write one that says so */
	if (!decided && (o->json || o->junit)) {
		char *why;
		if (gate_interrupted) {
			why = xasprintf("interrupted by signal %d; nothing decided", (int)gate_interrupted);
			error("%s", why);
		} else {
			why = xasprintf("%s; nothing decided", stop_reason ? stop_reason :
					"the gate stopped on an error");
		}
		gate_stop(g, why, gate_interrupted);
		gate_write_outputs(o, g);
		free(why);
	} else if (gate_interrupted && !decided) {
		error("interrupted by signal %d; nothing decided", (int)gate_interrupted);
	}
	if (gate_interrupted) {
		int sig = gate_interrupted;
		signal(sig, SIG_DFL);
		raise(sig);
	}
}
