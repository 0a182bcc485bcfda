/*
 * cmd/profile.c - `pgbuild profile`: its options and their checks; the
 * profile is collected, printed and turned into lists and a policy by
 * profile/collect.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/build/buildlog.h"
#include "pgbuild/cmd/cmd.h"
#include "pgbuild/metric/workloads.h"
#include "pgbuild/profile/collect.h"

static void profile_usage(FILE *fp)
{
	fputs("usage: pgbuild profile --install DIR [--workload W] [options]\n"
	      "       pgbuild profile --from PROFILE.json [--emit-... FILE]\n"
	      "\n"
	      "Run a workload on a private cluster of an installed PostgreSQL, find\n"
	      "the hot functions and translation units of the server, and write the\n"
	      "plugin's hot/cold lists and a policy that optimizes only the hot files.\n"
	      "\n"
	      "Run:\n"
	      "  --install DIR          an installed PostgreSQL: its bin/, lib/ and share/\n"
	      "                         (from pgbuild build: its build directory maps\n"
	      "                         functions to files)\n"
	      "  --builddir DIR         the build directory (default: from the record)\n"
	      "  -W, --workload LIST    bench workloads, comma-separated and repeatable, or\n"
	      "                         regress: PostgreSQL's core regression suite from\n"
	      "                         --builddir, installcheck against the profiled server\n"
	      "                         (default " WORKLOADS_DEFAULT ")\n"
	      "  -c, --clients N        client connections (default 2)\n"
	      "  -T, --duration S       seconds per workload (default 10)\n"
	      "  -s, --scale N          pgbench scale (default: bench's)\n"
	      "  --set NAME=VALUE       server setting (repeatable; as bench's --set)\n"
	      "  --method M             perf (cpu-clock samples), gcov (counts of an\n"
	      "                         instrumented build) or auto (default: gcov\n"
	      "                         for an instrumented install, else perf)\n"
	      "  --perf-data FILE       keep perf's samples in FILE\n"
	      "  --no-run               run no workload: read the samples (--perf-data)\n"
	      "                         or the counts (.gcda in the build tree) of a\n"
	      "                         workload you ran yourself, e.g. real traffic\n"
	      "  --from FILE            read a profile saved with --json instead\n"
	      "Output:\n"
	      "  --top N                functions and files listed (default 20)\n"
	      "  --json FILE|-          the whole profile as JSON\n"
	      "  --emit-hotlist FILE    hot functions (covering --hot-coverage)\n"
	      "  --emit-coldlist FILE   never-seen functions of the policy's files\n"
	      "  --emit-policy FILE     a policy: the files covering --coverage get\n"
	      "                         --cflags; hot/cold lists when emitted too\n"
	      "  --coverage PCT         share of the profile the policy's files cover\n"
	      "                         (default 80)\n"
	      "  --max-files N          at most N files in the policy (default 15)\n"
	      "  --hot-coverage PCT     share the hot list covers (default 60)\n"
	      "  --max-hot N            at most N hot functions (default 40)\n"
	      "  --cflags FLAGS         flags for the hot files\n"
	      "                         (default \"" PROFILE_DEFAULT_CFLAGS "\")\n"
	      "  -q, --quiet            no progress lines\n"
	      "\n"
	      CLI_EXIT_CODES_HELP
	      "Here 0 is profiled, 2 could not profile (no profiler, workload failed).\n",
	      fp);
}

static int parse_pct(const char *opt, const char *v, double *out)
{
	double d = 0;
	if (cli_parse_decimal(v, &d) < 0 || !(d > 0 && d <= 100))
		return error("%s: expected a percentage in (0, 100], got \"%s\"", opt, v);
	*out = d;
	return 0;
}

static const struct option profile_options[] = {
	CLI_OPT_INSTALL,
	{ "builddir", required_argument, NULL, OPT_BUILDDIR },
	CLI_OPT_WORKLOAD,
	CLI_OPT_CLIENTS,
	CLI_OPT_DURATION,
	CLI_OPT_SCALE,
	{ "set", required_argument, NULL, OPT_SET },
	{ "method", required_argument, NULL, OPT_METHOD },
	{ "perf-data", required_argument, NULL, OPT_PERF_DATA },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "no-run", no_argument, NULL, OPT_NO_RUN },
	{ "top", required_argument, NULL, OPT_TOP },
	CLI_OPT_JSON,
	{ "emit-hotlist", required_argument, NULL, OPT_EMIT_HOTLIST },
	{ "emit-coldlist", required_argument, NULL, OPT_EMIT_COLDLIST },
	{ "emit-policy", required_argument, NULL, OPT_EMIT_POLICY },
	{ "coverage", required_argument, NULL, OPT_COVERAGE },
	{ "max-files", required_argument, NULL, OPT_MAX_FILES },
	{ "hot-coverage", required_argument, NULL, OPT_HOT_COVERAGE },
	{ "max-hot", required_argument, NULL, OPT_MAX_HOT },
	{ "cflags", required_argument, NULL, OPT_CFLAGS },
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END
};

/* The options with a number: 0, or -1 after the error. */
static int number_option(struct profile_opts *o, int c, const char *arg)
{
	switch (c) {
	case OPT_TOP:
		return cli_parse_int("--top", arg, 1, 1000000, &o->top);
	case OPT_COVERAGE:
		return parse_pct("--coverage", arg, &o->coverage);
	case OPT_MAX_FILES:
		return cli_parse_int("--max-files", arg, 1, 100000, &o->max_files);
	case OPT_HOT_COVERAGE:
		return parse_pct("--hot-coverage", arg, &o->hot_coverage);
	default: /* OPT_MAX_HOT */
		return cli_parse_int("--max-hot", arg, 1, 100000, &o->max_hot);
	}
}

/* Read the options.  -1 to go on, else the exit code (0 after --help). */
static int parse_options(struct profile_opts *o, struct prof_run *run, int argc, char **argv)
{
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, profile_options)) != -1) {
		int r = prof_run_option(run, c, optarg);
		if (r < 0)
			return cli_usage();
		if (r > 0)
			continue;
		switch (c) {
		case OPT_INSTALL: o->prefix = optarg; break;
		case OPT_BUILDDIR: o->builddir = optarg; break;
		case OPT_SET:
			if (cli_parse_setting("--set", optarg, &run->settings) < 0)
				return cli_usage();
			break;
		case OPT_METHOD: {
			static const char *const methods[] = { "auto", "perf", "gcov", NULL };
			int k;
			if (cli_parse_choice("--method", optarg, methods, &k) < 0)
				return cli_usage();
			o->method = methods[k];
			break;
		}
		case OPT_PERF_DATA: o->perf_data = optarg; break;
		case OPT_FROM: o->from = optarg; break;
		case OPT_NO_RUN: o->no_run = 1; break;
		case OPT_JSON: o->json = optarg; break;
		case OPT_EMIT_HOTLIST: o->hotlist = optarg; break;
		case OPT_EMIT_COLDLIST: o->coldlist = optarg; break;
		case OPT_EMIT_POLICY: o->policy = optarg; break;
		case OPT_CFLAGS: o->cflags = optarg; break;
		case 'q': o->quiet = 1; break;
		case 'h':
			profile_usage(stdout);
			return PGBUILD_EXIT_OK;
		case OPT_TOP: case OPT_COVERAGE: case OPT_MAX_FILES: case OPT_HOT_COVERAGE:
		case OPT_MAX_HOT:
			if (number_option(o, c, optarg) < 0)
				return cli_usage();
			break;
		default:
			return cli_usage();
		}
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument \"%s\"", argv[optind]);
	return -1;
}

static int check_options(struct profile_opts *o, struct prof_run *run)
{
	if (!o->prefix == !o->from)
		return cli_usage_error(o->from ? "--from and --install exclude each other"
					 : "--install (or --from) is required");
	if (o->no_run && !strcmp(o->method, "auto"))
		return cli_usage_error("--no-run needs --method perf or gcov");
	if (!*o->cflags)
		return cli_usage_error("--cflags: expected flags, got \"\"");
	if (!run->workloads.nr)
		workloads_push(&run->workloads, WL_DEFAULT);
	return 0;
}

/* What the host gives: where the results go, and an environment that
 * leaves the servers private; checked before the workload runs. */
static int check_host(const struct profile_opts *o)
{
	const struct cli_output outs[] = {
		CLI_OUT_JSON(o->json),
		CLI_OUT_FILE("--emit-hotlist", o->hotlist),
		CLI_OUT_FILE("--emit-coldlist", o->coldlist),
		CLI_OUT_FILE("--emit-policy", o->policy),
		CLI_OUT_FILE("--perf-data", o->no_run ? NULL : o->perf_data),
		CLI_OUT_END
	};
	return cli_check_outputs(outs) < 0 || cli_guc_check_env() < 0 ? PGBUILD_EXIT_ERROR : 0;
}

/* --from FILE: a profile saved with --json. */
static int read_saved(const struct profile_opts *o, struct profile *p)
{
	struct strbuf err = STRBUF_INIT;
	struct json_value *doc = buildlog_read_json(o->from);
	int rc = 0;
	if (!doc)
		return -1;
	if (prof_read_json(p, doc, &err) < 0)
		rc = error("%s: %s", o->from, err.buf);
	json_free(doc);
	strbuf_release(&err);
	return rc;
}

/* Run the workloads and collect the profile. */
static int collect(struct profile_opts *o, struct prof_run *run, struct profile *p)
{
	prof_init(p, o->method);
	if (profile_collect(o, run, p) < 0)
		return -1;
	free(p->method);
	p->method = xstrdup(o->method);
	prof_finish(p);
	if (p->server <= 0)
		return error("the profile saw no time in %s/bin/postgres (was the workload too short?)",
			     o->prefix);
	printf("%s", run->summary.buf);
	return 0;
}

PGBUILD_COMMAND(profile, "a workload's hot functions and files; emit hot lists and a policy")
{
	struct profile_opts o = {
		.method = "auto", .cflags = PROFILE_DEFAULT_CFLAGS, .coverage = 80,
		.hot_coverage = 60, .max_files = 15, .max_hot = 40, .top = 20,
	};
	struct prof_run run;
	struct profile p = PROFILE_INIT;
	int rc;

	prof_run_init(&run);
	if ((rc = parse_options(&o, &run, argc, argv)) < 0 && (rc = check_host(&o)) == 0 &&
	    (rc = check_options(&o, &run)) == 0) {
		rc = PGBUILD_EXIT_ERROR;
		if ((o.from ? read_saved(&o, &p) : collect(&o, &run, &p)) == 0) {
			profile_print(&p, o.top);
			rc = profile_emit(&o, &p) < 0 ? PGBUILD_EXIT_ERROR : PGBUILD_EXIT_OK;
		}
	}
	prof_release(&p);
	prof_run_release(&run);
	return rc;
}
