/*
 * client.h - what the files of the benchmark run share (not for callers:
 * they use bench_run in bench.h): the per-client, per-thread and per-run
 * state, the merged results, the session and the --json state.
 *
 *   client.c       the client state machine
 *   threads.c      the client threads, their barriers and progress, the run
 *   results.c      merged results, --json (on every exit path), the summary
 *   environment.c  what the results say of the machine and the server
 *   dataset.c      the data set: a private cluster loaded, or --connect's
 *   session.c      bench_run, in phases
 */
#ifndef PGBUILD_BENCH_CLIENT_H
#define PGBUILD_BENCH_CLIENT_H

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <libpq-fe.h>

#include "wrapper/common/json.h"
#include "wrapper/common/strbuf.h"
#include "pgbuild/bench/bench.h"
#include "pgbuild/bench/histogram.h"
#include "pgbuild/bench/servercpu.h"
#include "pgbuild/cluster/cluster.h"

#define CACHE_LINE 64   /* bytes; per-thread data never shares one */
#define BAR_WIDTH 30    /* cells of the progress bar */
#define BAR_EVERY_US 250000 /* the bar is redrawn 4 times a second */

extern const char *const bench_protocol_names[];

/*
 * --json FILE is written on every exit after the options are parsed: the
 * full results after a run, else a document with "valid": false, the exit
 * code, the error and what is known so far.  Always atomically: written to
 * a temporary file and renamed over FILE (write_file_atomic_quiet, or the
 * signal handler's FILE.sig.PID), so a reader never sees a torn file
 * and an old result never survives a failed run.  A signal (the cleanup
 * handler of cluster.c calls bench_interrupted) writes a document rendered
 * in advance (json_arm) with async-signal-safe calls only.
 */
struct bench_json_state {
	const char *path;       /* --json FILE ("-": the standard output), or NULL */
	char *sigtmp;           /* FILE.sig.PID: the signal handler writes here
				 * (NULL for "-": it writes to the output) */
	char *doc;              /* the interrupt document without its final '}' */
	size_t len;
	volatile sig_atomic_t done; /* final document written: the handler keeps it */
	volatile sig_atomic_t bar;  /* a progress bar is on the terminal's last line */
	char error[512];        /* the first error of this run ("" if none) */
};
extern struct bench_json_state bench_json;

enum cstate {
	CS_START,       /* choose a script, start a transaction */
	CS_COMMAND,     /* run the current command (or finish the transaction) */
	CS_WAIT,        /* command sent, waiting for its results */
	CS_ROLLBACK,    /* ROLLBACK sent after a retryable error */
	CS_SLEEP,       /* in \sleep until wake_us, then the next command */
	CS_THROTTLE,    /* --rate: waiting for the transaction's scheduled start */
	CS_DONE,        /* finished normally */
	CS_ABORTED,     /* connection lost or a non-retryable error */
};

struct client {
	PGconn *conn;           /* its connection */
	int id;                 /* 0..clients-1 */
	enum cstate state;      /* see above */
	int script;             /* current script */
	int cmd;                /* current command of it */
	int64_t tx_start;       /* us, start of the current transaction */
	int64_t wait_start;     /* us, when the awaited command was sent */
	int64_t wake_us;        /* CS_SLEEP, CS_THROTTLE: when to go on */
	int64_t sched_us;       /* --rate: the next transaction's scheduled start
				 * (0: not scheduled yet) */
	int64_t txs;            /* timed transactions done (for --transactions) */
	struct bench_value *vars; /* its variables */
	struct bench_prng rng;  /* its random numbers */
	int failed;             /* the current command returned an error */
	int rollback;           /* the last result was a ROLLBACK */
	char sqlstate[6];       /* of the error */
	char *errmsg;           /* first line of the error (malloced) */
};

struct timeline_sec {
	int64_t count;          /* transactions that ended in this second */
	int64_t sum_us;         /* their latencies */
	int64_t errors;         /* failed transactions */
};

struct err_count {
	char sqlstate[6];
	int64_t n;
};

#define ERR_KINDS 32

struct thread {
	_Alignas(CACHE_LINE) pthread_t tid; /* whole cache lines per thread */
	int id;
	struct client *clients; /* its clients */
	int nclients;
	struct histogram hist;  /* timed transactions */
	int64_t count;          /* timed transactions */
	int64_t warm_count;     /* warm-up transactions */
	int64_t commits;        /* commits the server reported (warm-up included) */
	int64_t *script_commits; /* per script */
	int64_t *script_count;  /* timed transactions per script */
	int64_t last_end;       /* us, end of its last transaction */
	int64_t stop_us;        /* us, when its clients had all stopped */
	struct timeline_sec *timeline; /* per second of the timed run */
	size_t ntimeline, timeline_alloc;
	struct err_count errs[ERR_KINDS];
	int nerrs;
	int64_t errors;         /* all failed transactions */
	int64_t late;           /* timed transactions over --latency-limit */
	int64_t skipped;        /* --rate --latency-limit: not started, too late */
	int64_t *cmd_us, *cmd_n; /* -r: time and count of each command (all
				  * scripts', at w's cmd_base), timed run */
	int aborted;            /* clients aborted */
	int stalled;            /* a client got no answer within --statement-timeout */
	int connect_failed;     /* a client could not connect (1) or prepare (2) */
	int connected;          /* clients connected at the end (for the commit check) */
	struct strbuf text;     /* scratch: simple-protocol query text */
	int64_t all_count, all_sum, all_errors; /* warm-up included, for progress */
	uint64_t all_sum2;
	/* copies of the above read by thread 0 for --progress (relaxed
	 * atomics, no locks) */
	_Atomic int64_t p_count, p_sum, p_errors;
	_Atomic uint64_t p_sum2;
};

/* What all threads share; written before the barriers, read-only after. */
struct run {
	struct bench_opts *o;
	struct bench_workload *w;
	const char *conninfo;
	struct thread *threads;
	int nthreads;
	int scale;
	int flush_stats;        /* server has pg_stat_force_next_flush() */
	char appname[64];       /* application_name of our clients */
	pthread_barrier_t b_connect, b_ready, b_go;
	int64_t start_us;       /* after b_go */
	int64_t warm_end_us;    /* start + warmup */
	int64_t end_us;         /* warm_end + duration, or 0 with --transactions */
	int abort_run;          /* a client failed to connect: nobody runs */
	PGconn *ctrl;           /* main's control connection */
	int64_t xact_before;    /* pg_stat_database.xact_commit at b_ready */
	int xact_ok;            /* xact_before is valid */
	double cpu_start;       /* our CPU seconds at the start */
	pid_t postmaster;       /* the server's postmaster here, 0: unknown */
	struct servercpu_snap cpu0, cpu1; /* at the start and end of the timed run */
	int cpu0_ok, cpu1_ok;   /* those snapshots were taken */
	pthread_t sampler;      /* takes cpu0 when the warm-up ends */
	int sampler_on;         /* sampler was started */
	pthread_barrier_t b_done, b_snap; /* every client done; cpu1 taken */
	int *cmd_base;          /* -r: index of script i's first command */
	int ncmds;              /* -r: commands of all scripts */
};

/* What is known of the environment so far; NULL fields are not known yet. */
struct bench_env {
	const char *server_version;     /* SHOW server_version */
	int64_t version_num;            /* SHOW server_version_num, or 0 */
	const char *cflags;             /* pg_config --cflags */
	const char *dataset;            /* what was loaded or found */
	const char *server_user;        /* who runs the private cluster's server */
	const char *cpu_why;            /* why the server's CPU is not measured */
	const char *pinning;            /* where client and server run (--cpus) */
};

/* The threads' counters merged after the run (bench_merge_results). */
struct results {
	struct histogram hist;
	int64_t count, warm_count, commits, errors;
	int64_t late, skipped;  /* over --latency-limit; skipped (--rate) */
	int64_t *script_commits;
	int64_t *script_count;  /* timed transactions per script */
	int64_t *cmd_us, *cmd_n; /* -r: per command of every script */
	struct err_count errs[ERR_KINDS];
	int nerrs;
	int aborted, connected;
	double elapsed;         /* seconds of the timed run, as measured */
	struct timeline_sec *timeline;
	size_t ntimeline;
	double cpu_s;           /* client CPU seconds, warm-up and run */
	int server_cpu_ok;      /* server_cpu_s was measured */
	double server_cpu_s;    /* the server's CPU seconds over the timed run */
	int server_procs;       /* its processes at the end */
};

/* Everything one benchmark run works with. */
struct session {
	struct bench_opts *o;
	struct bench_workload w;        /* the workload's scripts */
	struct cluster cl;              /* the private cluster (have_cluster) */
	int have_cluster;
	struct run run;                 /* what the threads share */
	struct results R;               /* merged after the run */
	struct bench_checks cs;         /* correctness checks */
	struct bench_snapshot before, after;
	struct strbuf note;             /* the data set, for the JSON */
	PGconn *ctrl;                   /* main's control connection */
	char *conninfo;                 /* what the clients connect to */
	char *server_version, *cflags;  /* for the summary and the JSON */
	char *our_user;                 /* who runs the server when not root */
	struct bench_env env;           /* what the JSON knows so far */
	int stalled;                    /* a client got no answer in time */
	char pinning[200];              /* what --cpus did, for env.pinning */
	int exit_code;                  /* bench_run's result */
};

/* ---------------- client.c ---------------- */

/* Stop client c of thread t, saying why (not while interrupted). */
void bench_client_abort(struct thread *t, struct client *c, const char *why);
/* Decimal text of v at the end of buf[24]; returns its start (no printf). */
const char *bench_format_int(char *buf, int64_t v);
/* First line of libpq's error message, for the abort message. */
char *bench_first_line(const char *msg);
/* Advance c as far as it can go without waiting. */
void bench_client_run(struct run *run, struct thread *t, struct client *c);

/* ---------------- threads.c ---------------- */

/* CPU seconds (user + system) used by this process, all threads. */
double bench_cpu_seconds(void);
/* Ask the server to flush its statistics now (PostgreSQL 15 and later). */
void bench_flush_stats(struct run *run, PGconn *conn);
/* The timed run: thread 0 in main, the others in threads of their own. */
int bench_run_clients(struct session *s);

/* ---------------- results.c ---------------- */

/* error() that also records the first error for the JSON "error" key. */
int bench_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Record why we fail when nothing was recorded yet (no message printed). */
void bench_note_error(const char *msg);
/*
 * The cleanup handler's hook (a signal handler: async-signal-safe calls
 * only): write the interrupt document, then say in one line what happened.
 */
void bench_interrupted(int sig, const char *what);
/* Write buf to --json FILE atomically.  0 or -1 with the error printed. */
int bench_json_publish(const char *buf, size_t len);
/* (Re)render the interrupt document with what is known now. */
void bench_json_arm(const struct bench_opts *o, int nthreads, const struct bench_env *env);
/* The failure document for a run that stopped with exit_code. */
void bench_json_fail(const struct bench_opts *o, int nthreads, const struct bench_env *env,
		     int exit_code);
/* The threads' counters into R (the timed run measured, never taken from -T). */
void bench_merge_results(struct run *run, struct results *R);
/* The --json document of a completed run into out. */
void bench_write_json(struct strbuf *out, struct run *run, struct results *R,
		      const struct bench_checks *cs, int valid, int exit_code,
		      const struct bench_env *env, PGconn *conn);
/* The summary on stdout. */
void bench_print_summary(struct run *run, struct results *R, const struct bench_checks *cs,
			 int valid, const char *server_version, const char *cpu_why,
			 const char *pinning);

/* ---------------- environment.c ---------------- */

/* The CPU model of /proc/cpuinfo ("unknown"), malloced. */
char *bench_cpu_model(void);
/* One value of a one-row query, malloced; NULL on error or NULL. */
char *bench_query_text(PGconn *conn, const char *sql);
/* pg_config --cflags of the install; else the server's pg_config view. */
char *bench_server_cflags(const char *prefix, PGconn *conn);
/* The environment object, as far as it is known (conn may be NULL). */
void bench_json_environment(struct json_writer *jw, const struct bench_opts *o, int nthreads,
			    const struct bench_env *env, PGconn *conn);

/* ---------------- dataset.c ---------------- */

/* Create, start and load the private cluster; returns 0 or -1. */
int bench_setup_cluster(struct bench_opts *o, struct bench_workload *w, int scale,
			struct cluster *cl, struct strbuf *note);
/* --connect: load the data (--init), or find what is loaded. */
int bench_existing_data(struct session *s);

#endif
