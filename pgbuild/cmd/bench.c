/*
 * cmd/bench.c - `pgbuild bench`: its options and their checks (conflicts
 * checked after the loop, like pgbench); the run is bench/bench.h's.
 *
 * pgbench's options mean what they mean in pgbench (-S, -N, -b NAME[@W],
 * -f FILE[@W], -M with pgbench's default simple, -j threads, -n, -r, -P,
 * -R, -L): a pgbench command line runs here with pgbuild's
 * server options (--install or --connect) in place of its connection ones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgbuild/bench/bench.h"
#include "pgbuild/bench/servercpu.h"
#include "pgbuild/cluster/workdir.h"
#include "pgbuild/metric/workloads.h"
#include "pgbuild/pipeline/preflight.h"
#include "pgbuild/cmd/cmd.h"

static void bench_usage(FILE *fp)
{
	fprintf(fp,
"usage: pgbuild bench (--install DIR | --connect CONNSTR [--init]) [OPTIONS]\n"
"\n"
"Run a multi-threaded libpq benchmark on a private throw-away cluster made\n"
"from an installed PostgreSQL (--install), or on an existing server\n"
"(--connect), and check the data afterwards.\n"
"\n"
"pgbench's options mean what they mean in pgbench (-S, -N, -b, -f, -M, -j,\n"
"-n, -r, -P, -R, -L, -c, -T, -t, -s): a pgbench command line runs\n"
"with --install or --connect in place of its connection options.  Defaults\n"
"differ: the workload is select-only (pgbench: tpcb-like), a run is timed,\n"
"-T 10 (pgbench: -t 10 transactions), and -j is min(cores, clients)\n"
"(pgbench: 1).  The\n"
"summary names the transactions as pgbench does: the workload, a script by\n"
"its name, a mix \"multiple scripts\" with each script's weight and share.\n"
"\n"
"Server:\n"
"  --install DIR          an installed PostgreSQL: its bin/ (initdb, postgres),\n"
"                         lib/ and share/; the private cluster is made from it\n"
"  --connect CONNSTR      use this server instead (nothing is loaded without\n"
"                         --init)\n"
"  --init                 with --connect: (re)load the workload's tables\n"
"  --set NAME=VALUE       server setting for the private cluster (repeatable;\n"
"                         one that would open it to other users, load code or\n"
"                         move its files is refused with the reason)\n"
"  --keep                 keep the private cluster and print where it is\n"
"  --datadir-template DIR reuse loaded data directories kept in DIR (made once)\n"
"Workload:\n"
"  -W, --workload NAME    one of the workloads below (default select-only), or\n"
"                         sql FILE (or sql:FILE, or sql --file FILE)\n"
"  -S, --select-only      pgbench's select-only: -W select-only\n"
"  -N, --skip-some-updates  pgbench's simple-update: -W simple-update\n"
"  -b, --builtin NAME[@W] a built-in workload of one script (pgbench's\n"
"                         tpcb-like, simple-update, select-only or a prefix;\n"
"                         any of ours); -b list: the list, as pgbench\n"
"  -f, --file FILE[@W]    pgbench-style script (the sql workload); the pgbench\n"
"                         tables are loaded (private cluster) or required\n"
"                         (--connect) only if it names a pgbench_ table.\n"
"                         Several -b/-f, or a weight @W, run as a mix: each\n"
"                         transaction picks a script by weight (default 1)\n"
"  -M, --protocol P       simple (default, as pgbench), extended or prepared\n"
"  -s, --scale N          the data set's scale: pgbench scale, tpcc-lite\n"
"                         warehouses (default 1; a workload named -sN runs at N\n"
"                         only)\n"
"  -n, --no-vacuum        accepted: bench never vacuums before a run (a private\n"
"                         cluster is vacuumed after its load)\n"
"      --no-checks        no data invariants after the run (balances, row\n"
"                         counts ...); the commit count and server log stay\n"
"Load:\n"
"  -c, --clients N        concurrent clients (default 1)\n"
"  -j, --jobs N           client threads, as pgbench (at most --clients)\n"
"      --threads N        the same (default min(cores, clients))\n"
"  -T, --duration S       timed run in seconds (default 10; pgbench's --time)\n"
"  -t, --transactions N   transactions per client instead of a duration\n"
"  -R, --rate TPS         schedule transactions at TPS in all (Poisson, as\n"
"                         pgbench; latency counts from the scheduled start)\n"
"  -L, --latency-limit MS count transactions over MS; with --rate, skip those\n"
"                         already that late when their turn comes\n"
"      --warmup S         seconds run before timing starts (default 0)\n"
"      --seed N           random seed (default: from the clock)\n"
"      --cpus LIST        CPUs to use, e.g. 0-1: the client threads get the last\n"
"                         quarter of them (at least one), the server's processes\n"
"                         the rest; with one CPU both share it (the summary\n"
"                         says); a CPU this machine does not give is refused\n"
"      --statement-timeout S  abort a client that gets no answer for S seconds:\n"
"                         the run is invalid, exit 2 (default 60; 0: no limit)\n"
"Output:\n"
"  -P, --progress S       a progress line on stderr every S seconds\n"
"  -r, --report-per-command  each SQL command's and \\sleep's mean latency\n"
"                         (summary, JSON; \\set is not timed)\n"
"      --json FILE|-      write all results as JSON\n"
"  -q, --quiet            no progress bar, load messages or server-user notice\n"
"\n"
"Server CPU: user+system CPU time of the server's processes (the postmaster\n"
"and its children, from /proc; exited ones through the postmaster's\n"
"cutime/cstime) over the timed run, per transaction: in the summary and the\n"
"JSON (server_cpu), for a server on this machine.\n"
"\n"
"The progress bar (stderr a terminal, no --progress) shows the time done, or\n"
"with --transactions the transactions done.  --json FILE is also written when\n"
"the run fails or is interrupted (\"valid\": false, \"exit_code\", \"error\").\n"
"\n"
"Root: initdb and postgres refuse to run as root, so when pgbuild runs as root\n"
"the private cluster's server runs as the user $PGBUILD_SERVER_USER (default\n"
"postgres, which must exist); that user must be able to enter $TMPDIR (or /tmp),\n"
"where the cluster's private directory is made.\n"
"\n"
"Script errors: an SQL error other than a serialization failure or deadlock\n"
"aborts the client with FILE:LINE of the statement and the server's message.\n"
"Checks: a built-in workload's data invariants run after it; a script of\n"
"yours or a mix gets the commit count and server log checks only.\n"
"\n"
"Measured: elapsed time and tps are those of the timed run as it happened (a\n"
"run cut short reports its own length); a run in which no transaction\n"
"completed is invalid.  Output paths are checked before the cluster is made.\n"
"\n"
CLI_EXIT_CODES_HELP
"Here 1 is a correctness check that failed, 2 also clients that aborted or\n"
"no transaction completed; 128+N killed by signal N (the cluster is stopped\n"
"and removed first).\n"
"\n");
	cli_pgbench_list(fp);
}

static const struct option bench_options[] = {
	CLI_OPT_INSTALL,
	{ "connect", required_argument, NULL, OPT_CONNECT },
	{ "init", no_argument, NULL, OPT_INIT },
	CLI_OPT_WORKLOAD,
	CLI_OPT_PGBENCH,        /* -S -N -b -f -M, -j and --threads: client threads */
	{ "no-vacuum", no_argument, NULL, 'n' },
	{ "no-checks", no_argument, NULL, OPT_NO_CHECKS },
	CLI_OPT_CLIENTS,
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	CLI_OPT_DURATION,
	{ "time", required_argument, NULL, 'T' },        /* pgbench's name for -T */
	{ "transactions", required_argument, NULL, 't' },
	{ "rate", required_argument, NULL, 'R' },
	{ "latency-limit", required_argument, NULL, 'L' },
	{ "progress", required_argument, NULL, 'P' },
	{ "report-per-command", no_argument, NULL, 'r' },
	{ "report-latencies", no_argument, NULL, 'r' },  /* pgbench's older name */
	CLI_OPT_SCALE,
	{ "set", required_argument, NULL, OPT_SET },
	{ "keep", no_argument, NULL, OPT_KEEP },
	CLI_OPT_JSON,
	{ "datadir-template", required_argument, NULL, OPT_DATADIR_TEMPLATE },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "statement-timeout", required_argument, NULL, OPT_STATEMENT_TIMEOUT },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	CLI_OPT_QUIET,
	/* --help alone: -h, -p and -U are pgbench's host, port and user, which
	 * cli.c's moved table answers with --connect */
	{ "help", no_argument, NULL, OPT_HELP_LONG },
	CLI_OPT_END
};

/* What the command line said beyond bench_opts. */
struct bench_cli {
	struct bench_opts o;
	int have_duration;      /* --duration given */
	int seed_set;           /* --seed given */
	char *sqlfile;          /* the FILE of --workload sql:FILE (owned) */
	int have_workload;      /* --workload given */
	struct cli_pgbench pg;  /* pgbench's letters: the scripts, -M, -j */
};

/* The options with a value to check: 0, or -1 after the error. */
static int value_option(struct bench_cli *b, int c, const char *arg)
{
	struct bench_opts *o = &b->o;
	int64_t v;

	switch (c) {
	case 'c':
		return cli_parse_clients(arg, &o->clients);
	case 'R': {
		double r;
		if (cli_parse_number("--rate", arg, 0.001, 1e9, &r) < 0)
			return -1;
		o->rate = r;
		return 0;
	}
	case 'L': {
		double ms;
		if (cli_parse_number("--latency-limit", arg, 0.001, 1e9, &ms) < 0)
			return -1;
		o->latency_limit = (int64_t)(ms * 1000);
		return 0;
	}
	case OPT_WARMUP:
		return cli_parse_seconds("--warmup", arg, 1, &o->warmup);
	case 'T':
		b->have_duration = 1;
		return cli_parse_duration(arg, &o->duration);
	case 't':
		if (cli_parse_int64("--transactions", arg, 1, INT64_MAX / 2, &v) < 0)
			return -1;
		o->transactions = v;
		return 0;
	case 'P':
		return cli_parse_int("--progress", arg, 1, 86400, &o->progress);
	case 's':
		return cli_parse_scale(arg, &o->scale);
	case OPT_SET:
		return cli_parse_setting("--set", arg, &o->settings);
	case OPT_SEED:
		if (cli_parse_int64("--seed", arg, 0, INT64_MAX, &v) < 0)
			return -1;
		o->seed = (uint64_t)v;
		b->seed_set = 1;
		return 0;
	case OPT_CPUS: {
		cpu_set_t set;
		if (servercpu_parse_cpus(arg, &set) < 0)
			return -1;
		o->cpus = arg;
		return 0;
	}
	default: /* OPT_STATEMENT_TIMEOUT */
		return cli_parse_seconds("--statement-timeout", arg, 1, &o->stmt_timeout);
	}
}

/* Read the options.  -1 to go on, else the exit code (0 after --help). */
static int parse_options(struct bench_cli *b, int argc, char **argv)
{
	struct bench_opts *o = &b->o;
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, bench_options)) != -1) {
		int r = cli_pgbench_option(&b->pg, c, optarg);
		if (r < 0)
			return cli_usage();
		if (r == CLI_PGBENCH_LISTED)
			return 0;
		if (r > 0)
			continue;
		switch (c) {
		case OPT_INSTALL: o->prefix = optarg; break;
		case OPT_CONNECT: o->connect = optarg; break;
		case OPT_INIT: o->init = 1; break;
		case 'W': o->workload = optarg; b->have_workload = 1; break;
		case 'n': o->no_vacuum = 1; break;
		case 'r': o->per_command = 1; break;
		case OPT_NO_CHECKS: o->no_checks = 1; break;
		case OPT_KEEP: o->keep = 1; break;
		case OPT_JSON: o->json = optarg; break;
		case OPT_DATADIR_TEMPLATE: o->template_dir = optarg; break;
		case 'q': o->quiet = 1; break;
		case OPT_HELP_LONG:
			bench_usage(stdout);
			return 0;
		case '?':
			return cli_usage();
		default:
			if (value_option(b, c, optarg) < 0)
				return cli_usage();
			break;
		}
	}
	/* --workload sql FILE: the script as the one argument left */
	if (optind < argc && !strcmp(o->workload, "sql") && !o->file)
		o->file = argv[optind++];
	if (optind < argc)
		return cli_usage_error("unexpected argument \"%s\"", argv[optind]);
	return -1;
}

/* What the host gives: where the results go, and an environment that
 * leaves the servers private; checked before the cluster is made. */
static int check_host(const struct bench_opts *o)
{
	const struct cli_output outs[] = {
		CLI_OUT_JSON(o->json),
		CLI_OUT_DIR("--datadir-template", o->template_dir),
		CLI_OUT_END
	};
	/* --connect: the server and its PGOPTIONS are the user's; --install
	 * checked as every command checks an install (preflight.h) */
	return cli_check_outputs(outs) < 0 || (o->prefix && cli_guc_check_env() < 0) ||
	       (o->prefix && preflight_install("--install", o->prefix) < 0) ||
	       (o->prefix && o->template_dir &&
		workdir_trusted("--datadir-template", o->template_dir) < 0) ?
	       PGBUILD_EXIT_ERROR : 0;
}

/* -S, -N, -b, -f: one built-in is --workload NAME, one file --file FILE
 * (as before); several, or a weight, a mix (o->mix).  0, or -1 after the
 * error. */
static int scripts_from_specs(struct bench_cli *b)
{
	struct bench_opts *o = &b->o;
	int total = 0;

	if (b->have_workload && strcmp(o->workload, "sql") &&
	    (b->pg.nspecs > 1 || b->pg.specs[0].builtin))
		return error("--workload %s and -S/-N/-b/-f name different scripts: give one "
			     "(several -b/-f run as a mix)", o->workload);
	if (b->pg.nspecs == 1 && !b->pg.weighted) {
		if (b->pg.specs[0].builtin) {
			o->workload = b->pg.specs[0].builtin;
		} else {
			o->file = b->pg.specs[0].file;
			if (!b->have_workload)
				o->workload = "sql";
		}
		return 0;
	}
	for (int i = 0; i < b->pg.nspecs; i++)
		total += b->pg.specs[i].weight;
	if (!total)
		return error("every script has weight 0: nothing would run");
	o->mix = b->pg.specs;
	o->nmix = b->pg.nspecs;
	o->workload = "sql";
	return 0;
}

/* Conflicts, after the loop (like pgbench), and the defaults that depend
 * on other options. */
static int check_options(struct bench_cli *b)
{
	struct bench_opts *o = &b->o;

	if (!o->prefix == !o->connect)
		return cli_usage_error(o->prefix ? "--install and --connect cannot be used together"
					 : "one of --install DIR or --connect CONNSTR is required");
	if (o->init && !o->connect)
		return cli_usage_error("--init only applies to --connect (a private cluster is always loaded)");
	if (o->connect && (o->keep || o->settings.nr || o->template_dir))
		return cli_usage_error("--keep, --set and --datadir-template only apply to a private "
				       "cluster (--install)");
	if (b->have_duration && o->transactions)
		return cli_usage_error("--duration and --transactions cannot be used together");
	if (strchr(o->workload, ',') && strncmp(o->workload, "sql:", 4))
		return cli_usage_error("--workload \"%s\": bench runs one workload; several are "
				       "compared by pgbuild gate or run (-W a,b)", o->workload);
	if (cli_pgbench_threads(&b->pg, o->clients, &o->threads))
		return PGBUILD_EXIT_ERROR;
	if (b->pg.protocol >= 0)
		o->protocol = (enum bench_protocol)b->pg.protocol;
	if (b->pg.nspecs && scripts_from_specs(b) < 0)
		return cli_usage();
	if (!strncmp(o->workload, "sql:", 4)) {
		if (o->file)
			return cli_usage_error("give the script either as --workload sql:FILE or --file FILE");
		b->sqlfile = xstrdup(o->workload);
		bench_opts_set_workload(o, b->sqlfile);
	} else if (o->file && !strcmp(o->workload, WORKLOADS_DEFAULT)) {
		o->workload = "sql";
	} else if (o->file && strcmp(o->workload, "sql")) {
		return cli_usage_error("--file only applies to --workload sql");
	}
	if (o->transactions)
		o->duration = 0;
	bench_opts_default_threads(o);
	if (!b->seed_set)
		o->seed = (uint64_t)clock_us() ^ ((uint64_t)getpid() << 32);
	return 0;
}

PGBUILD_COMMAND(bench, "run the embedded benchmark on a private cluster")
{
	struct bench_cli b;
	int rc;

	memset(&b, 0, sizeof(b));
	b.pg = (struct cli_pgbench)CLI_PGBENCH_INIT;
	bench_opts_init(&b.o);
	if ((rc = parse_options(&b, argc, argv)) < 0 && (rc = check_host(&b.o)) == 0 &&
	    (rc = check_options(&b)) == 0)
		rc = bench_run(&b.o);
	bench_opts_release(&b.o);
	free(b.sqlfile);
	cli_pgbench_release(&b.pg);
	return rc;
}
