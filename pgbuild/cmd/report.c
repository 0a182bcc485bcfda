/*
 * cmd/report.c - `pgbuild report`: its options and their checks; loading
 * and writing are report/report.h's and report/html.h's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgbuild.h"
#include "report/html.h"
#include "report/report.h"

static void report_usage(FILE *fp)
{
	fprintf(fp,
"usage: pgbuild report [--gate FILE] [--log DIR] [--baseline PREFIX] [--candidate PREFIX]\n"
"                      [--inspect-baseline FILE] [--inspect FILE] [--html FILE] [--json FILE]\n"
"\n"
"Summarise a gate result, a compile log and the two builds.\n"
"\n"
"  --gate FILE              result of `pgbuild gate --json FILE`\n"
"  --log DIR                compile log directory (PGOPT_LOGDIR) of the candidate:\n"
"                           per-file flags\n"
"  --baseline PREFIX        install of A: per-function sizes from PREFIX/bin/postgres\n"
"  --candidate PREFIX       install of B (likewise)\n"
"  --inspect-baseline FILE  A's postgres binary or its `pgbuild inspect --json` output\n"
"  --inspect FILE           B's (inlining records come from the plugin's sections)\n"
"  --html FILE              write one self-contained HTML page with SVG plots\n"
"  --json FILE              write the per-file and per-function tables as JSON\n"
"\n"
"Without --baseline/--candidate, the prefixes recorded in the gate result are used;\n"
"without --log, the compile log named by the candidate's pgopt-build.json.\n"
"Exit: 0 written (whatever the verdict), 2 input missing or unreadable.\n");
}

static int save(const char *path, const struct strbuf *sb)
{
	return write_file_atomic(path, sb->buf, sb->len);
}

PGBUILD_COMMAND(report, "summarise a gate result, compile log and builds (terminal, --json, --html)")
{
	static const struct option opts[] = {
		{ "gate", required_argument, NULL, OPT_GATE },
		{ "log", required_argument, NULL, OPT_LOG },
		{ "baseline", required_argument, NULL, OPT_BASELINE },
		{ "candidate", required_argument, NULL, OPT_CANDIDATE },
		{ "inspect-baseline", required_argument, NULL, OPT_INSPECT_BASELINE },
		{ "inspect", required_argument, NULL, OPT_INSPECT },
		{ "html", required_argument, NULL, OPT_HTML },
		{ "json", required_argument, NULL, OPT_JSON },
		CLI_OPT_HELP,
		CLI_OPT_END
	};
	const char *gate = NULL, *log = NULL, *base = NULL, *cand = NULL;
	const char *ins_a = NULL, *ins_b = NULL, *html = NULL, *json = NULL;
	struct report_data rd = { 0 };
	char *pa = NULL, *pb = NULL, *logdir = NULL;
	int c, rc = PGBUILD_EXIT_ERROR;

	optind = 1;
	while ((c = cli_getopt(argc, argv, opts)) != -1) {
		switch (c) {
		case OPT_GATE: gate = optarg; break;
		case OPT_LOG: log = optarg; break;
		case OPT_BASELINE: base = optarg; break;
		case OPT_CANDIDATE: cand = optarg; break;
		case OPT_INSPECT_BASELINE: ins_a = optarg; break;
		case OPT_INSPECT: ins_b = optarg; break;
		case OPT_HTML: html = optarg; break;
		case OPT_JSON: json = optarg; break;
		case 'h':
			report_usage(stdout);
			return 0;
		default:
			return cli_usage();
		}
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument \"%s\"", argv[optind]);
	if (!gate && !log && !base && !cand && !ins_a && !ins_b)
		return cli_usage_error("nothing to report: give --gate, --log, --baseline/--candidate "
				       "or --inspect");
	if (gate && report_load_gate(&rd, gate) < 0)
		goto out;
	if (!base)
		base = rd.baseline;
	if (!cand)
		cand = rd.candidate;
	if (base) {
		rd.build_a = report_read_optional(base, "pgopt-build.json");
		if (!ins_a)
			ins_a = pa = xasprintf("%s/bin/postgres", base);
	}
	if (cand) {
		rd.build_b = report_read_optional(cand, "pgopt-build.json");
		if (!ins_b)
			ins_b = pb = xasprintf("%s/bin/postgres", cand);
	}
	/* the candidate's compile log, from its build record */
	if (!log && rd.build_b) {
		struct json_value *bj = json_parse(rd.build_b, strlen(rd.build_b), NULL);
		const char *dir = json_get_str(json_get(bj, "log"), "dir");
		if (dir) {
			char *f = xasprintf("%s/compile.jsonl", dir);
			if (access(f, R_OK) == 0)
				log = logdir = xstrdup(dir);
			free(f);
		}
		json_free(bj);
	}
	if (log && report_load_log(&rd, log) < 0)
		goto out;
	if ((ins_a || ins_b) && report_load_inspect(&rd, ins_a, ins_b) < 0) {
		/* sizes are a bonus when a gate result is there */
		if (!rd.have_gate && !rd.have_log)
			goto out;
		warning("per-function changes left out");
	}
	if (!report_has_content(&rd)) {
		error("nothing to report: %s", gate ? "the gate result holds nothing" :
		      log && rd.have_log ? "the compile log records no compile, and no build's "
		      "functions could be read" : "no function symbols in the builds given");
		goto out;
	}
	report_terminal(&rd, stdout);
	rc = 0;
	if (html) {
		struct strbuf sb = STRBUF_INIT;
		html_write(&rd, &sb);
		if (save(html, &sb) < 0)
			rc = PGBUILD_EXIT_ERROR;
		else
			fprintf(stderr, "report: wrote %s\n", html);
		strbuf_release(&sb);
	}
	if (json) {
		struct strbuf sb = STRBUF_INIT;
		report_write_json(&rd, &sb);
		if (save(json, &sb) < 0)
			rc = PGBUILD_EXIT_ERROR;
		strbuf_release(&sb);
	}
out:
	free(pa);
	free(pb);
	free(logdir);
	report_data_clear(&rd);
	return rc;
}
