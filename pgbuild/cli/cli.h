/*
 * cli.h - the command-line vocabulary every pgbuild command shares.
 *
 * One option has one spelling and one meaning in every command that has
 * it.  The shared options are defined here once, as getopt_long table rows
 * (CLI_OPT_WORKLOAD is `-W, --workload LIST` everywhere), together with the
 * parsers of their values (one range, one message); a command's table lists
 * the rows it accepts, and cli_getopt() derives getopt's short-option
 * string from that table, so a short letter cannot be accepted by one
 * spelling and forgotten by the other.
 *
 *   -W, --workload LIST  bench workloads: comma-separated and repeatable
 *                        (-W select-only,tpcb -W select1); bench and tune
 *                        take one
 *   --train LIST         the workloads a profile (pgo, bolt) trains on, the
 *                        same list syntax; pgo, bolt and tune refuse -W,
 *                        naming --train (they measure nothing with it: the
 *                        moved-spelling table of cli.c), in optimize -W is
 *                        the evaluation set and --train the training set
 *   -c, --clients N      client connections, 1 to 10000
 *   -T, --duration S     seconds per run (fractions allowed), > 0
 *   -s, --scale N        pgbench scale / tpcc-lite warehouses, 1 to 100000
 *   -j, --jobs N         parallel make jobs, 1 to 1024 (bench: an error
 *                        pointing at --threads, its client threads)
 *   --pairs N|auto       the gate's A/B pairs, one parser (cli_parse_pairs)
 *                        and one message in every command that runs a gate:
 *                        6 to 1000 (fewer than the family of tests needs
 *                        refused before any work), or auto, the sequential
 *                        gate (sensitivity: a fixed number only)
 *   --install DIR        an installed PostgreSQL the command reads: its
 *                        bin/, lib/ and share/ (bench, verify, noise,
 *                        profile, regress, bolt's input); never written
 *   --prefix DIR         where the command installs, as configure's
 *                        --prefix (build, pgo, optimize, bolt's output);
 *                        never an input: in a command that reads an install
 *                        --prefix is refused, pointing at --install (and
 *                        bolt's older --out at --prefix, sensitivity's
 *                        --low-prefix at --low-install): an older command
 *                        line fails at once, never runs with its input
 *                        taken for an output
 *   --json FILE          the command's result as a JSON document, written
 *                        to FILE (replaced whole), or with "-" to the
 *                        standard output (then the command's other output
 *                        goes to stderr; cli_check_outputs, CLI_OUT_JSON)
 *   -q, --quiet          no progress output
 *   -v, --verbose        more output
 *   -h, --help           the command's help on stdout, exit 0
 *   --gate EXPR          thresholds, comma-separated and repeatable
 *   --metric LIST        what a gate measures: tps, instructions, cycles,
 *                        comma-separated and repeatable
 *   --weaken LIST        the hardening classes the policy may weaken
 *                        (vocab.h: pie, relro, ...), comma-separated and
 *                        repeatable: PGOPT_WEAKEN of every build the
 *                        command runs (build, run, optimize, tune,
 *                        sensitivity, pgo, deb)
 *
 * Options without a short letter get a code from enum cli_opt: codes
 * above 255 that never collide with a letter.
 *
 * Errors: every bad value is one line naming the option and the value and
 * saying what was expected (error.h's "pgbuild: error: ..."), then one hint
 * written in one place, cli_usage():
 *
 *     pgbuild: error: invalid value "0" for --jobs: expected an integer from 1 to 1024
 *     Try "pgbuild build --help" for more information.
 *
 * The value parsers return 0, or -1 after the error (like error() itself)
 * and leave *out untouched then.
 */
#ifndef PGBUILD_CLI_H
#define PGBUILD_CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pgbuild/metric/metrics.h"
#include "wrapper/common/exitcodes.h"
#include "wrapper/common/strvec.h"
#include "wrapper/common/strbuf.h"

/* Codes of the options without a short letter, one per option name. */
enum cli_opt {
	OPT_ALLOW_UNMATCHED = 256,
	OPT_BASELINE,
	OPT_BINARY,
	OPT_BOLT,
	OPT_BOLT_FLAGS,
	OPT_BOLT_INSTALL,
	OPT_BOLT_PROFILE,
	OPT_BUDGET,
	OPT_HELP_LONG,          /* --help alone (bench: pgbench's -h is the host) */
	OPT_BUILDDIR,
	OPT_BUNDLE,
	OPT_CANDIDATE,
	OPT_CANDIDATE_BUILDDIR,
	OPT_CANDIDATE_PREFIX,
	OPT_CANDIDATES,
	OPT_CFLAGS,
	OPT_CI,
	OPT_CLANG,
	OPT_CONFIDENCE,
	OPT_CONFIGURE_ARGS,
	OPT_CONNECT,
	OPT_CONTRIB,
	OPT_COUNTER,
	OPT_COVERAGE,
	OPT_CPUS,
	OPT_DATADIR_TEMPLATE,
	OPT_DEBUG_DIR,
	OPT_DRY_RUN,
	OPT_DSC,
	OPT_EMIT_COLDLIST,
	OPT_EMIT_HOTLIST,
	OPT_EMIT_POLICY,
	OPT_ENABLE_CASSERT,
	OPT_FILES,
	OPT_FORCE,
	OPT_FROM,
	OPT_FUNCTION,
	OPT_GATE,
	OPT_GATE_ARGS,
	OPT_GATE_CLIENTS,
	OPT_GATE_DURATION,
	OPT_GATE_RESULT,
	OPT_HELD_OUT,
	OPT_HIGH,
	OPT_HIGH_INSTALL,
	OPT_HOT_COVERAGE,
	OPT_HTML,
	OPT_INIT,
	OPT_INSPECT_BASELINE,
	OPT_INSPECT_CANDIDATE,
	OPT_INSTALL,
	OPT_INSTR_STATEMENTS,
	OPT_INSTRUMENT_ONLY,
	OPT_JSON,
	OPT_JUNIT,
	OPT_KEEP,
	OPT_LOCK,
	OPT_LOG,
	OPT_LOW,
	OPT_LOW_INSTALL,
	OPT_MAX_BUILDS,
	OPT_MAX_FILES,
	OPT_MAX_HOT,
	OPT_MAX_P99,
	OPT_MAX_TIME,
	OPT_METHOD,
	OPT_METRIC,
	OPT_MIN_APPLIES,
	OPT_MIN_GAIN,
	OPT_MIN_SPEEDUP,
	OPT_NO_BENCH,
	OPT_NO_CHECKS,
	OPT_NO_CONTRIB,
	OPT_NO_CORE,
	OPT_NO_GATE,
	OPT_NO_INSTALL,
	OPT_NO_READD,
	OPT_NO_REGRESS,
	OPT_NO_RUN,
	OPT_NO_VERIFY,
	OPT_NOISE,
	OPT_OPTIMIZE,
	OPT_OUT,
	OPT_PAIRS,
	OPT_PERF_DATA,
	OPT_PGO,
	OPT_PLUGIN,
	OPT_POLICY,
	OPT_PREFIX,
	OPT_PROFILE,
	OPT_REGRESS_RESULT,
	OPT_REQUIRE_REGRESS,
	OPT_RESTART,
	OPT_REUSE,
	OPT_REQUIRE,
	OPT_RETRAIN,
	OPT_SCOPE,
	OPT_SEED,
	OPT_SET,
	OPT_SITES,
	OPT_SRC,
	OPT_STAGES,
	OPT_START,
	OPT_STATE,
	OPT_STATEMENT_TIMEOUT,
	OPT_TEMP_CONFIG,
	OPT_TESTS,
	OPT_THREADS,
	OPT_TIME_BUDGET,
	OPT_TOLERANCE,
	OPT_TOP,
	OPT_TRAIN,
	OPT_TU,
	OPT_TUNE_STATE,
	OPT_UNITS,
	OPT_USER,
	OPT_VARIANTS,
	OPT_WARMUP,
	OPT_WEAKEN,
	OPT_WORKDIR,
};

/* The shared rows of getopt_long tables (see the header comment). */
#define CLI_OPT_WORKLOAD { "workload", required_argument, NULL, 'W' }
#define CLI_OPT_TRAIN    { "train", required_argument, NULL, OPT_TRAIN }
#define CLI_OPT_CLIENTS  { "clients", required_argument, NULL, 'c' }
#define CLI_OPT_DURATION { "duration", required_argument, NULL, 'T' }
#define CLI_OPT_SCALE    { "scale", required_argument, NULL, 's' }
#define CLI_OPT_JOBS     { "jobs", required_argument, NULL, 'j' }
#define CLI_OPT_JSON     { "json", required_argument, NULL, OPT_JSON }
#define CLI_OPT_INSTALL  { "install", required_argument, NULL, OPT_INSTALL }
#define CLI_OPT_PREFIX   { "prefix", required_argument, NULL, OPT_PREFIX }
#define CLI_OPT_QUIET    { "quiet", no_argument, NULL, 'q' }
#define CLI_OPT_VERBOSE  { "verbose", no_argument, NULL, 'v' }
#define CLI_OPT_HELP     { "help", no_argument, NULL, 'h' }
#define CLI_OPT_WEAKEN   { "weaken", required_argument, NULL, OPT_WEAKEN }
#define CLI_OPT_END      { NULL, 0, NULL, 0 }

/* Ranges of the shared values. */
#define CLI_CLIENTS_MAX 10000
#define CLI_SCALE_MAX   100000
#define CLI_JOBS_MAX    1024
/* --pairs: the fewest pairs below which no interval is given, whatever the
 * level (the exact signed-rank test's smallest one-sided p over 6 pairs,
 * 2^-6, is the first below 2.5%; gate.h's GATE_MIN_PAIRS is this), and the
 * most. */
#define CLI_PAIRS_MIN   6
#define CLI_PAIRS_MAX   1000
#define CLI_SECONDS_MAX (86400.0 * 365)
/* Relinked variants of a layout noise floor (pgbuild noise --variants, the
 * --noise-variants of optimize and run): the default and the bounds.  The
 * minimum is NOISE_FLOOR_MIN_VARIANTS, derived in noise/floor.h (fewer
 * variants: the 95% bound of their SD is 2.9 times it or more). */
#define CLI_NOISE_VARIANTS     5
#define CLI_NOISE_VARIANTS_MIN 5
#define CLI_NOISE_VARIANTS_MAX 99
/* "5 to 99 (default 5)": the above as the helps' text (fputs strings) */
#define CLI_STR_(x) #x
#define CLI_STR(x)  CLI_STR_(x)
#define CLI_NOISE_VARIANTS_RANGE \
	CLI_STR(CLI_NOISE_VARIANTS_MIN) " to " CLI_STR(CLI_NOISE_VARIANTS_MAX) \
	" (default " CLI_STR(CLI_NOISE_VARIANTS) ")"

/*
 * The exit codes of every pgbuild command, made from exitcodes.h's
 * PGBUILD_EXIT_TABLE (the one list: a code and its meaning are written
 * there only), one "  CODE  meaning" line each after "Exit codes:".
 * pgbuild --help and each command's --help print it (then what a code
 * means in that command, if more); the man pages' EXIT STATUS quote it
 * (tests/t/91 holds helps and pages to the table).
 */
#define CLI_EXIT_CODE_LINE_(name, code, text) "  " #code "  " text "\n"
#define CLI_EXIT_CODES_HELP "Exit codes:\n" PGBUILD_EXIT_TABLE(CLI_EXIT_CODE_LINE_)

/* The command being run ("bench"), for the usage hint; set by main (NULL,
 * the default: pgbuild itself, "Try \"pgbuild --help\" ..."). */
void cli_set_command(const char *name);
const char *cli_command(void);

/*
 * getopt_long over longopts with the short-option string made from the
 * table (every row whose code is a letter).  Call with optind = 1 set
 * before the first call, as with getopt_long.  getopt itself prints
 * nothing (opterr = 0): an unknown, ambiguous or misused option is one
 * error here, naming the command and the nearest option, and '?' is
 * returned, for `default: return cli_usage();`:
 *
 *     pgbuild: error: unknown option "--jsn" for pgbuild gate (did you mean "--json"?)
 *     pgbuild: error: ambiguous option "--no" for pgbuild run (could be --no-bench, ...)
 *     pgbuild: error: option "--json" needs a value
 *     pgbuild: error: option "--quiet=x" takes no value
 *     pgbuild: error: unknown option "-x" for pgbuild gate
 *     pgbuild: error: --prefix names where a command installs; the installed PostgreSQL to use is --install DIR
 *
 * The last: a spelling whose meaning moved to another option (cli.c's
 * table: --prefix of a command that reads an install, bolt's --out,
 * sensitivity's --low-prefix and --high-prefix) is named with the one to
 * write, where the command has that one and not the old.
 */
int cli_getopt(int argc, char **argv, const struct option *longopts);
/* The error of an unknown (or ambiguous) long option word ("--jsn" or
 * "--jsn=x") among longopts' names; -1, for the dispatcher's own. */
int cli_option_error(const char *word, const struct option *longopts);

/* The hint after a usage error, on stderr:
 * Try "pgbuild CMD --help" for more information.
 * Returns PGBUILD_EXIT_ERROR, for `return cli_usage();`. */
int cli_usage(void);
/* error(fmt, ...) then the hint; returns PGBUILD_EXIT_ERROR. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---------------- values (cli/options.c) ---------------- */

/*
 * Numbers: the whole string, range-checked; on a bad value one error
 * naming the option, the value and the range:
 *   cli_parse_int     invalid value "0" for --jobs: expected an integer from 1 to 1024
 *   cli_parse_int64   the same for 64-bit values (--transactions, --seed)
 *   cli_parse_number  a finite number from min to max (max INFINITY: no
 *                        upper bound): expected a number >= 0.1
 *   cli_parse_seconds a number of seconds, > 0 (>= 0 with allow_zero),
 *                        at most a year: expected a number of seconds > 0
 *
 * Decimal notation only: an integer is [+-]digits, a number
 * [+-](digits[.digits] | .digits) with an optional base-10 exponent
 * (1e-05, as %g prints); "0x10", " 5", "inf", "nan" and, for an integer,
 * "1e3" are refused ("expected a decimal integer" when C would have read
 * it as a number).
 */
int cli_parse_int(const char *opt, const char *arg, int min, int max, int *out);
int cli_parse_int64(const char *opt, const char *arg, int64_t min, int64_t max,
		       int64_t *out);
int cli_parse_number(const char *opt, const char *arg, double min, double max, double *out);
int cli_parse_seconds(const char *opt, const char *arg, int allow_zero, double *out);

/* The decimal scanners behind them: the length of the prefix of s that
 * is an integer / a number in decimal notation (above), 0 when none is;
 * for parsers of their own (gate expressions: "+5%"). */
size_t cli_scan_integer(const char *s);
size_t cli_scan_decimal(const char *s);
/* The whole of arg as a finite decimal number; silent, 0 or -1. */
int cli_parse_decimal(const char *arg, double *out);

/* A comma-separated list ("select-only,tpcb"): push each non-empty item. */
void cli_parse_list(const char *arg, struct strvec *out);

/*
 * One of choices (NULL-terminated); *out is its index.  A near miss is
 * named: invalid value "instruction" for --metric: expected tps,
 * instructions or both (did you mean "instructions"?)
 */
int cli_parse_choice(const char *opt, const char *arg, const char *const *choices,
			int *out);

/* ---------------- output paths (cli/outpath.c) ---------------- */

/*
 * Before a command measures or builds anything, every output path it was
 * given is checked, so that a result is never lost at the end of the work:
 *   file (--html FILE): not a directory; its directory exists and a file
 *        can be created there (a probe file is created O_EXCL|O_NOFOLLOW
 *        and removed: access(2) says yes to root, and knows nothing of a
 *        read-only file system);
 *   result (--json FILE): a file as above, or "-", the standard output
 *        (write_result in wrapper/common/fdio.h writes both): the check
 *        then gives the standard output to the result alone
 *        (result_stdout_claim: what the command prints goes to stderr);
 *   dir (--prefix, --workdir): not an existing non-directory; it, or the
 *        nearest ancestor that exists, is a directory that takes a file.
 * A value that starts with "-" is refused (getopt took the next option
 * for it: `--json --units`; ./-x names such a file), and so is "-" for
 * any output but a result.
 * 0, or -1 after one error naming the option, the path and why:
 *   --json "/no/such/r.json": directory /no/such does not exist
 * The commands call cli_check_outputs right after their options and exit
 * 2 on -1; it also refuses two file outputs naming one file.
 */
int cli_check_output_file(const char *opt, const char *path);
int cli_check_output_dir(const char *opt, const char *path);

enum cli_out_kind {
	CLI_OUT_KIND_FILE,      /* a file */
	CLI_OUT_KIND_RESULT,    /* a file, or "-": the standard output */
	CLI_OUT_KIND_DIR,       /* a directory */
};
struct cli_output {
	const char *opt;        /* "--json"; NULL ends the list */
	const char *path;       /* NULL: not given, skipped */
	enum cli_out_kind kind; /* what path names */
};
#define CLI_OUT_FILE(opt, path) { opt, path, CLI_OUT_KIND_FILE }
#define CLI_OUT_DIR(opt, path)  { opt, path, CLI_OUT_KIND_DIR }
#define CLI_OUT_JSON(path)      { "--json", path, CLI_OUT_KIND_RESULT }
#define CLI_OUT_END             { NULL, NULL, CLI_OUT_KIND_FILE }
int cli_check_outputs(const struct cli_output *outs);

/* An input file the command will read (--policy, --profile, --src): it can
 * be read and is not a directory; opt names the option in the error
 * ("--policy \"x\": No such file or directory").  0, or -1 after it. */
int cli_check_input(const char *opt, const char *path);

/* ---------------- server settings (cli/guc.c) ---------------- */

/*
 * Settings pgbuild never passes to a server it starts, each with its
 * reason: what opens the private cluster to other users (listen_addresses,
 * port, unix_socket_*, hba_file, ident_file, krb_server_keyfile, ssl*),
 * loads code (*_preload_libraries, dynamic_library_path, jit_provider,
 * archive_library), runs commands (archive_command, restore_command, ...),
 * moves the server's files (data_directory, config_file,
 * external_pid_file, log_directory, log_filename, stats_temp_directory) or
 * reads settings from another file (include*).  One table, sorted by
 * name; a name ending in "_*" covers NAME and NAME_...
 */
enum cli_guc_reason {
	CLI_GUC_OPENS,          /* opens the cluster to other users */
	CLI_GUC_LOADS,          /* loads code into the server */
	CLI_GUC_RUNS,           /* runs commands as the server user */
	CLI_GUC_MOVES,          /* moves the server's files */
	CLI_GUC_READS,          /* reads settings from another file */
	CLI_GUC_NREASONS
};
struct cli_guc_refused {
	const char *name;               /* canonical: lower case, '_' */
	enum cli_guc_reason reason;
};
extern const struct cli_guc_refused cli_guc_refused[];  /* NULL-terminated */
extern const char *const cli_guc_reasons[CLI_GUC_NREASONS];

/* The row refusing name (any case, '-' for '_'), or NULL. */
const struct cli_guc_refused *cli_guc_refusal(const char *name);
/* Is name[0..len) a setting name (letters, digits, _, - and .)? */
int cli_guc_name_ok(const char *name, size_t len);
/* name[0..len) as PostgreSQL reads it: lower case, '-' as '_' (malloced). */
char *cli_guc_canonical(const char *name, size_t len);

/*
 * A server setting NAME=VALUE (--set), pushed onto out with NAME in its
 * canonical spelling; a refused NAME is one error with the reason:
 *   invalid value "listen_addresses=*" for --set: listen_addresses opens the
 *   cluster to other users (...)
 */
int cli_parse_setting(const char *opt, const char *arg, struct strvec *out);

/*
 * A postgresql.conf-style file (regress --temp-config) holds no refused
 * setting and nothing the server would read otherwise: 0, or -1 after one
 * error naming opt, the file, the line and the reason (a refused setting,
 * or what cli_guc_read_conf cannot read).  Read with the bounded reader
 * (no FIFO, at most SFS_READ_LIMIT).
 */
int cli_guc_check_file(const char *opt, const char *path);

/*
 * A postgresql.conf text (len bytes), tokenized as the server's lexer does
 * (PostgreSQL 15, utils/misc/guc-file.l): one setting a line, NAME [=]
 * VALUE, NAME an identifier (a.b qualified), VALUE an identifier, a number,
 * an unquoted string (letters, digits, -._:/) or a quoted one ('' and
 * backslash escapes), blanks and # comments between; no continuation
 * lines.  include, include_if_exists and include_dir are settings here
 * (the refusal list has them).  fn gets each setting, its name lower-cased,
 * its value unquoted, and its line; a non-zero return stops the reading and
 * is returned.  -1 with *line and one phrase in err: a NUL byte anywhere
 * (the server's lexer reads past it, pg_regress's copy of a --temp-config
 * ends the line there), or a line the server could not read.
 */
typedef int (*cli_guc_conf_fn)(const char *name, const char *value, int line, void *ctx);
int cli_guc_read_conf(const char *text, size_t len, cli_guc_conf_fn fn, void *ctx, int *line,
		      struct strbuf *err);

/*
 * PGOPTIONS (libpq sends it with every connection, and a backend applies
 * it: cli_guc_read_options) sets no refused setting and can be read: 0, or
 * -1 after one error.  For the commands that start servers.
 */
int cli_guc_check_env(void);

/*
 * PGOPTIONS as the backend reads it (PostgreSQL 15).  Split into words as
 * pg_split_opts does (utils/init/postinit.c): blanks separate words, a
 * backslash takes the next character as it is.
 */
void cli_guc_split_options(const char *options, struct strvec *words);
/*
 * Then the switches as process_postgres_switches takes them (getopt over
 * "B:bc:C:D:d:EeFf:h:ijk:lN:nOPp:r:S:sTt:v:W:-:"): switches group (-Fc
 * NAME=VALUE, -ic...), an argument is the rest of its word or the next
 * word; -c NAME=VALUE and --NAME=VALUE set any setting (NAME with '-' for
 * '_', any case), -B shared_buffers, -F fsync, -h and -i listen_addresses,
 * -k unix_socket_directories, -l ssl, -N max_connections, -p port, -S
 * work_mem, -D data_directory, ...  Each setting is pushed onto settings as
 * "name=value" (name canonical).  0, or -1 with one phrase in err when the
 * backend could not read it (an unknown switch, a missing argument, a word
 * that is not a switch, -c or -- without '='); the settings before that
 * are pushed all the same.
 */
int cli_guc_read_options(const char *options, struct strvec *settings, struct strbuf *err);

/* The shared values, with their one range each. */
int cli_parse_clients(const char *arg, int *out);     /* -c, --clients */
int cli_parse_duration(const char *arg, double *out); /* -T, --duration */
int cli_parse_scale(const char *arg, int *out);       /* -s, --scale */
int cli_parse_jobs(const char *arg, int *out);        /* -j, --jobs */
/*
 * --pairs N|auto, the one parser of every command that takes it (gate,
 * run, deb, optimize, tune, pgo, sensitivity; build's --gate-args through
 * the gate's own options): "auto" (the sequential gate) sets *is_auto,
 * else N from 1 to CLI_PAIRS_MAX goes to *out and *is_auto is 0; is_auto
 * NULL: a command that measures a fixed number of pairs, "auto" refused.
 * Fewer pairs than the family of tests needs (at least CLI_PAIRS_MIN when
 * tps is measured) are refused after the options by preflight_pairs,
 * naming the interval; the error here says what is accepted in the end:
 *
 *     invalid value "0" for --pairs: expected an integer from 6 to 1000, or auto
 *
 * (without ", or auto" when is_auto is NULL).  0, or -1 after the error.
 */
int cli_parse_pairs(const char *arg, int *out, int *is_auto);
/* A TIME: 90s, 10m, 1h or plain seconds, at least one second (the
 * error names opt); --budget (a sequential gate's) and tune's --max-time. */
int cli_parse_time(const char *opt, const char *arg, double *out);
int cli_parse_budget(const char *arg, double *out);   /* --budget TIME */
/*
 * --metric LIST: the names of metric/metrics.c's table (tps: wall-clock
 * runs, throughput, latency, server CPU per transaction; instructions;
 * cycles), comma-separated, repeatable (the bits are or-ed into *mask).
 * An unknown item is named with the nearest word; "both", the word for
 * tps,instructions until 2026-12-07, is refused with that spelling.  cli_metrics_mask is the same without messages (0, or -1 on a bad
 * item); cli_metrics_text the canonical list of mask in table order
 * ("tps,cycles"; static buffer).
 */
int cli_parse_metrics(const char *arg, unsigned *mask);
int cli_metrics_mask(const char *arg, unsigned *mask);
const char *cli_metrics_text(unsigned mask);

/*
 * --weaken LIST: hardening classes (vocab_parse_weaken) a policy may
 * weaken, added to the caller's PGOPT_WEAKEN, which is set to the union:
 * every build the command runs, and pgoptcc in it, reads it from there
 * (and records it), as if the caller had set it.  A name that is no class
 * is one error, with the nearest one.
 */
int cli_parse_weaken(const char *arg);

/* -W, --workload LIST: every item must be a workload bench knows (a
 * near miss is named); pushed onto out. */
int cli_parse_workloads(const char *arg, struct strvec *out);
/* --train LIST (and the -W of the commands that train: pgo, bolt,
 * profile): as cli_parse_workloads, and "regress", the regression suite
 * (WL_SUITE). */
int cli_parse_training(const char *arg, struct strvec *out);

/* ---------------- pgbench's letters (cli/pgbench.c) ---------------- */

/*
 * The options pgbench has and every command that runs bench takes with
 * pgbench's meanings, one parser (bench and gate; CLI_OPT_PGBENCH their
 * rows):
 *
 *   -S, --select-only        the select-only script (pgbench's -b select-only)
 *   -N, --skip-some-updates  the simple-update script
 *   -b, --builtin NAME[@W]   a built-in workload: ours by its name, pgbench's
 *                            by theirs or a prefix of one (tpcb-like is tpcb)
 *   -f, --file FILE[@W]      a script in pgbench's language
 *   -M, --protocol P         simple, extended or prepared
 *   -j, --jobs N             client threads, as pgbench: at most one a client
 *       --threads N          the same
 *
 * Each of -S, -N, -b and -f adds a script in order (a weight @W marks a
 * mix, which only bench runs).  The command keeps a struct cli_pgbench
 * (CLI_PGBENCH_INIT) and first offers each option to cli_pgbench_option:
 * 1 when it was one of these (read), 0 when not, -1 after the error,
 * CLI_PGBENCH_LISTED for pgbench's `-b list`: the built-in workloads were
 * printed on stdout (cli_pgbench_list), and the command stops with exit 0
 * as after --help.
 */
struct bench_script_spec;
struct cli_pgbench {
	struct bench_script_spec *specs; /* -S, -N, -b, -f in order */
	int nspecs, alloc_specs;
	char **names;           /* the NAME/FILE parts of NAME@W (owned) */
	int weighted;           /* a script had @W */
	int protocol;           /* -M: enum bench_protocol, -1 not given */
	int jobs;               /* -j: pgbench's client threads, 0 not given */
	int threads;            /* --threads, 0 not given */
};
#define CLI_PGBENCH_INIT { .protocol = -1 }
#define CLI_OPT_PGBENCH \
	{ "select-only", no_argument, NULL, 'S' }, \
	{ "skip-some-updates", no_argument, NULL, 'N' }, \
	{ "builtin", required_argument, NULL, 'b' }, \
	{ "file", required_argument, NULL, 'f' }, \
	{ "protocol", required_argument, NULL, 'M' }, \
	{ "threads", required_argument, NULL, OPT_THREADS }, \
	CLI_OPT_JOBS
#define CLI_PGBENCH_LISTED 2
int cli_pgbench_option(struct cli_pgbench *p, int c, const char *arg);
/* The built-in workloads bench runs, one line each (name, * when of the
 * broad held-out suite, kind, what it runs), and pgbench's names for
 * them: bench's --help and `-b list`. */
void cli_pgbench_list(FILE *fp);
/* The client threads for clients: -j at most one a client (as pgbench),
 * else --threads (0: not given, the command's default); -j and --threads
 * that differ, or more threads than clients, are one usage error (the
 * exit code; else 0). */
int cli_pgbench_threads(const struct cli_pgbench *p, int clients, int *threads);
void cli_pgbench_release(struct cli_pgbench *p);

#endif
