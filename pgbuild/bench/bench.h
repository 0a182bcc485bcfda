/*
 * bench.h - what the parts of `pgbuild bench` share: scripts (the
 * transactions a client runs), workloads (scripts + data set + checks), the
 * data loaders and the correctness checks.
 *
 * A script is a pgbench-compatible subset, parsed by script.c:
 *
 *     \set aid random(1, 100000 * :scale)     integer expressions: + - * / %,
 *                                             parentheses, random(lo, hi),
 *                                             random_exponential(lo, hi, p),
 *                                             random_gaussian(lo, hi, p),
 *                                             random_zipfian(lo, hi, s) (p, s
 *                                             numeric constants, pgbench's
 *                                             ranges and algorithms),
 *                                             abs(x), :var or var
 *     SELECT abalance FROM pgbench_accounts WHERE aid = :aid \gset
 *                                             store the command's first row
 *                                             into variables named after its
 *                                             columns (\gset PREFIX: PREFIX
 *                                             before each name); \gset ends
 *                                             the command in place of ';',
 *                                             or follows it on its own line
 *     \sleep 10 ms                            wait (N or :var; us, ms or s,
 *                                             default s)
 *
 * An SQL command may span lines and ends at a line ending in ';'.  :name
 * becomes a parameter ($1, $2 ...) for the extended and prepared protocols,
 * and literal text (or NULL) for the simple protocol.  Predefined
 * variables: :scale and :client_id.  Every value is an int64 or NULL.
 */
#ifndef PGBUILD_BENCH_H
#define PGBUILD_BENCH_H

#include <stdint.h>
#include <libpq-fe.h>

#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"
#include "pgbuild/metric/workloads.h"

#define BENCH_MAX_PARAMS 64     /* parameters of one SQL command */

/* ---------------- random numbers ---------------- */

/* xoshiro256** state: one per client, so the hot path shares nothing. */
struct bench_prng {
	uint64_t s[4];
};

void bench_prng_seed(struct bench_prng *r, uint64_t seed);
uint64_t bench_prng_next(struct bench_prng *r);
/* Uniform in [lo, hi] (lo <= hi), without modulo bias worth mentioning. */
int64_t bench_random(struct bench_prng *r, int64_t lo, int64_t hi);
/* Uniform in [0, 1). */
double bench_random_double(struct bench_prng *r);
/* pgbench's random_exponential, random_gaussian and random_zipfian
 * (src/bin/pgbench/pgbench.c): in [lo, hi], shaped by param. */
int64_t bench_random_exponential(struct bench_prng *r, int64_t lo, int64_t hi, double param);
int64_t bench_random_gaussian(struct bench_prng *r, int64_t lo, int64_t hi, double param);
int64_t bench_random_zipfian(struct bench_prng *r, int64_t lo, int64_t hi, double s);

/* ---------------- scripts ---------------- */

struct bench_value {
	int64_t i;      /* the value */
	int isnull;     /* NULL (for optional parameters) */
};

enum bench_expr_kind {
	BEXPR_CONST,    /* value */
	BEXPR_VAR,      /* var */
	BEXPR_RANDOM,   /* random(left, right) */
	BEXPR_RANDOM_EXP,   /* random_exponential(left, right, param) */
	BEXPR_RANDOM_GAUSS, /* random_gaussian(left, right, param) */
	BEXPR_RANDOM_ZIPF,  /* random_zipfian(left, right, param) */
	BEXPR_ABS,      /* abs(left) */
	BEXPR_BINOP,    /* left op right */
	BEXPR_NEG,      /* -left */
};

struct bench_expr {
	enum bench_expr_kind kind;
	int64_t value;          /* BEXPR_CONST */
	int var;                /* BEXPR_VAR: variable index */
	char op;                /* BEXPR_BINOP: + - * / % */
	double param;           /* BEXPR_RANDOM_EXP/GAUSS/ZIPF: the shape */
	struct bench_expr *left, *right;
};

enum bench_cmd_kind {
	BCMD_SQL,       /* send sql, wait for its result */
	BCMD_SET,       /* \set var expr */
	BCMD_SLEEP,     /* \sleep expr [unit] */
};

struct bench_command {
	enum bench_cmd_kind kind;
	int line;               /* first line in the script, for messages */
	/* BCMD_SQL */
	char *sql;              /* text with $1.. placeholders */
	char **pieces;          /* simple protocol: text around the parameters */
	int nparams;            /* $1..$nparams */
	int *param_var;         /* variable of each parameter */
	int gset;               /* store the first row's columns (\gset) */
	char *gset_prefix;      /* ... into PREFIX<column> (\gset PREFIX), or NULL */
#define BENCH_GSET_PREFIX_MAX 63   /* a prefix's length, as an identifier's */
	char stmt_name[24];     /* prepared statement name */
	/* BCMD_SET */
	int set_var;            /* target variable */
	struct bench_expr *expr; /* its value (BCMD_SLEEP: the duration) */
	/* BCMD_SLEEP */
	int64_t sleep_unit;     /* microseconds per unit of expr */
};

struct bench_script {
	char *name;             /* e.g. "tpcb", "new-order", or the file name */
	char *file;             /* where its lines are: the file as given, or
				 * "<tpcb>" for a built-in (messages: file:line) */
	int weight;             /* relative frequency among the workload's scripts */
	struct bench_command *cmds;
	int ncmds;
};

/* The variables of a workload: one name table shared by all its scripts. */
struct bench_vars {
	char **names;
	int nr, alloc;
};

int bench_var_index(struct bench_vars *vars, const char *name, int create);
void bench_vars_free(struct bench_vars *vars);

/*
 * Parse script text into s (name and weight set by the caller).  Errors say
 * "file:line: message" and return -1 (s then holds no commands; free its
 * name).  Variables are added to vars.
 */
int bench_script_parse(struct bench_script *s, const char *text, const char *file,
		       struct bench_vars *vars, int script_no);
void bench_script_free(struct bench_script *s);

/* Evaluate; returns -1 with msg filled on division by zero etc. */
int bench_expr_eval(const struct bench_expr *e, struct bench_value *vars,
		    struct bench_prng *r, int64_t *out, const char **msg);

/* Build the simple-protocol text of cmd into sb. */
void bench_command_text(const struct bench_command *cmd, const struct bench_value *vars,
			struct strbuf *sb);

/* ---------------- workloads and data sets ---------------- */

/*
 * A workload is a row of metric/workloads.c (its scripts, data set, scale
 * and checks) set up to run: its scripts parsed, its C generator attached.
 * Its data set is a row of metric/datasets.c.
 */
struct bench_workload;

/* Fill the C-generated variables of a transaction (tpcc-lite). */
typedef void (*bench_gen_fn)(const struct bench_workload *w, int script,
			     struct bench_value *vars, struct bench_prng *r, int scale);

struct bench_workload {
	const char *name;               /* --workload value */
	const struct workload_row *row; /* its row */
	const struct workload_data *data; /* what it needs loaded ("none": nothing) */
	unsigned checks;                /* WLC_* run after it */
	struct bench_script *scripts;   /* what clients run */
	int nscripts;
	int total_weight;
	struct bench_vars vars;         /* variable names */
	int var_scale, var_client_id;   /* indexes of :scale and :client_id */
	bench_gen_fn gen;               /* or NULL */
	const char *unchecked;          /* why no data invariant applies (a
					 * script of the caller's, a mix,
					 * --no-checks), or NULL */
	int gen_vars[64];               /* variables gen fills (workload.c) */
};

/* The workload names, NULL-terminated, and the same as one line of text:
 * the bench rows of metric/workloads.c. */
#define bench_workload_names (workloads_names(WL_BENCH))
#define BENCH_WORKLOAD_NAMES WORKLOADS_BENCH
/* ... those with a name of their own (not sql FILE): what a threshold names */
#define BENCH_BUILTIN_WORKLOADS WORKLOADS_BUILTIN

/* Set up workload name (file for "sql"); -1 with an error printed.  An
 * unknown name is an error naming the nearest known one ("did you mean"),
 * never another workload. */
int bench_workload_init(struct bench_workload *w, const char *name, const char *file);
struct bench_script_spec;
/* Set up a mix of scripts (-b NAME@W, -f FILE@W) as workload "sql": one
 * data set (pgbench's when any needs it); the data invariants of no single
 * workload apply.  -1 with an error printed. */
int bench_workload_init_mix(struct bench_workload *w, const struct bench_script_spec *mix,
			    int n);
/* Free what bench_workload_init allocated. */
void bench_workload_release(struct bench_workload *w);
/* What its transactions are called, as pgbench's "transaction type:": the
 * workload's name, a script's own name (-f FILE: the file's, -b NAME:
 * the built-in's) when the "sql" workload runs one, "multiple scripts"
 * for a mix of them. */
const char *bench_workload_label(const struct bench_workload *w);
/* Is SPEC (a --workload value: a name, or sql:FILE) usable?  0, or -1 with
 * the error printed. */
int bench_workload_check(const char *spec);
/* The scale w runs at when --scale asked it (0: not given): its row's own
 * (a row whose size is part of it refuses another, -1 with the error
 * printed), else asked, else 1. */
int bench_workload_scale(const struct bench_workload *w, int asked);

/* Load a data set (drops and recreates its tables).  -1 on error. */
int bench_load(PGconn *conn, const struct workload_data *d, int scale, int quiet);
/* Detect the scale of loaded data (pgbench: branch count; an unscaled set:
 * 1 when all its tables are there); -1 if absent. */
int bench_detect_scale(PGconn *conn, const struct workload_data *d);
/* Has loader.c a COPY generator for the data set name (a row with copy)? */
int bench_has_copy_generator(const char *name);

/*
 * Correctness: a snapshot of sums and counts before the run (the data
 * set's snapshot query), compared with one after by the workload's checks
 * (WLC_*).  Results go to the JSON "invariants" object as named checks.
 */
#define BENCH_SNAP_MAX 16
struct bench_snapshot {
	int nr;                         /* values taken */
	int64_t v[BENCH_SNAP_MAX];      /* data-set specific (workload.c) */
	int ok;                         /* the queries worked */
};

struct bench_check {
	const char *name;               /* e.g. "balances" */
	int ok;                         /* 1 passed, 0 failed, -1 not checked */
	char detail[256];               /* what was compared */
};

#define BENCH_CHECK_MAX 16
struct bench_checks {
	struct bench_check c[BENCH_CHECK_MAX];
	int nr;
};

void bench_check_add(struct bench_checks *cs, const char *name, int ok,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

int bench_snapshot_take(PGconn *conn, const struct workload_data *d, struct bench_snapshot *s);
/*
 * Compare; commits_per_script[i] is what clients committed of script i
 * (warm-up included).  Adds checks to cs.
 */
void bench_snapshot_compare(PGconn *conn, const struct bench_workload *w,
			    const struct bench_snapshot *before,
			    const struct bench_snapshot *after,
			    const int64_t *commits_per_script, struct bench_checks *cs);

/* Run one query returning one int64 (NULL -> 0); -1 with an error on failure. */
int bench_query_int(PGconn *conn, const char *sql, int64_t *out);

/* ---------------- the benchmark run (session.c) ---------------- */

enum bench_protocol { PROTO_SIMPLE, PROTO_EXTENDED, PROTO_PREPARED };

/* One -b NAME[@W] or -f FILE[@W] of a mix of scripts. */
struct bench_script_spec {
	const char *builtin;    /* -b: a built-in workload of one script, or NULL */
	const char *file;       /* -f: a script file, or NULL */
	int weight;             /* @W (default 1) */
};

/* The configuration of one run (one block, like pgbench's; bench's options). */
struct bench_opts {
	const char *prefix;     /* --install: private cluster from this install */
	const char *connect;    /* --connect: existing server */
	int init;               /* --init: load data on --connect server */
	const char *workload;   /* --workload */
	const char *file;       /* --file for the sql workload */
	enum bench_protocol protocol; /* --protocol */
	int clients;            /* --clients */
	int threads;            /* --threads (0: min(cores, clients)) */
	double warmup;          /* --warmup seconds */
	double duration;        /* --duration seconds (0 with --transactions) */
	int64_t transactions;   /* --transactions per client (0: by time) */
	int progress;           /* --progress seconds (0: off) */
	int scale;              /* --scale (0: default / detected) */
	struct strvec settings; /* --set name=value */
	int keep;               /* --keep */
	const char *json;       /* --json FILE */
	const char *template_dir; /* --datadir-template DIR */
	uint64_t seed;          /* --seed */
	double stmt_timeout;    /* --statement-timeout seconds (0: none) */
	int quiet;              /* --quiet: no progress bar, no load messages */
	const char *cpus;       /* --cpus LIST: client threads and server pinned apart */
	struct bench_script_spec *mix; /* several -b/-f or a weight: the scripts
				 * run (workload "sql"), or NULL */
	int nmix;
	int no_vacuum;          /* -n: no VACUUM of the pgbench tables before
				 * a --connect run (pgbench's default does one) */
	int per_command;        /* -r: report each command's mean latency */
	double rate;            /* -R: transactions per second, all clients
				 * (0: as fast as possible) */
	int64_t latency_limit;  /* --latency-limit in us (0: none) */
	int no_checks;          /* --no-checks: no data invariants */
};

/*
 * Run the benchmark o describes (options already checked): the server
 * (a private cluster of o->prefix, or o->connect), the data, the clients,
 * the checks, the summary on stdout and --json.  Returns the exit code: 0
 * ok, 1 a check failed, 2 could not run or clients aborted.
 */
int bench_run(struct bench_opts *o);

/* bench's defaults, the command's and every caller's: the default
 * workload, pgbench's simple protocol, 1 client, 10 s, a 60 s statement
 * timeout, nothing else set (settings empty: bench_opts_release). */
void bench_opts_init(struct bench_opts *o);
void bench_opts_release(struct bench_opts *o);

/* o's client threads when none were asked for: as many as clients, at most
 * one a core (pgbench's -j is the caller's to give). */
void bench_opts_default_threads(struct bench_opts *o);

/* The workload as --workload (and -W) spell it: a name, or sql:FILE (the
 * sql workload of FILE). */
void bench_opts_set_workload(struct bench_opts *o, const char *spec);

/* "simple", "extended" or "prepared" as the protocol; -1 for another. */
int bench_protocol_parse(const char *name);

/* bench_run as a function child of this process (cluster_engine_child: its
 * cluster and its handlers apart from the caller's); its output (summary
 * and errors) captured into out when out is not NULL, else to fd, or the
 * caller's when fd < 0 too.  The caller checks o's values as the command
 * does (its settings through cli_parse_setting, its install, PGOPTIONS);
 * here only what would crash the child: a protocol, clients, threads and
 * a length of run out of range are refused (exit 2, said).  bench_run's
 * exit code (128+N when the child died of signal N), 2 when it could not
 * run.  How an engine benchmarks (the gate's pairs, profile's runs,
 * build's smoke benchmark). */
int bench_run_child(struct bench_opts *o, int fd, struct strbuf *out);

#endif
