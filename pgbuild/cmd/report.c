/*
 * cmd/report.c - `pgbuild report`: its options and their checks; loading
 * and writing are report/report.h's and report/html.h's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgbuild/cmd/cmd.h"
#include "pgbuild/optimize/optimize.h"
#include "pgbuild/report/html.h"
#include "pgbuild/report/report.h"

static void report_usage(FILE *fp)
{
	fprintf(fp,
"usage: pgbuild report [--gate-result FILE] [--log DIR] [--baseline PREFIX]\n"
"                      [--candidate PREFIX] [--inspect-baseline FILE]\n"
"                      [--inspect-candidate FILE] [--html FILE] [--json FILE]\n"
"       pgbuild report --optimize FILE [--html FILE]\n"
"\n"
"Summarise a gate result, a compile log and the two builds; or re-render the\n"
"waterfall of a finished pgbuild optimize.\n"
"\n"
"  --optimize FILE          a pgbuild optimize result (WORKDIR/optimize.json):\n"
"                           its waterfall on stdout, the page with --html\n"
"                           (alone: no other input, no --json)\n"
"  --gate-result FILE       result of `pgbuild gate --json FILE`\n"
"  --log DIR                compile log directory (PGOPT_LOGDIR) of the\n"
"                           candidate: per-file flags\n"
"  --baseline PREFIX        install of A: per-function sizes from\n"
"                           PREFIX/bin/postgres\n"
"  --candidate PREFIX       install of B (likewise)\n"
"  --inspect-baseline FILE  A's postgres binary or its `pgbuild inspect --json`\n"
"                           output\n"
"  --inspect-candidate FILE B's (inlining records come from the plugin's\n"
"                           sections)\n"
"  --html FILE              write one self-contained HTML page with SVG plots\n"
"  --json FILE|-            write the per-file and per-function tables as JSON\n"
"  -q, --quiet              no \"wrote FILE\" lines: errors, warnings and the\n"
"                           report itself only\n"
"\n"
"Without --baseline/--candidate, the prefixes recorded in the gate result are\n"
"used; without --log, the compile log named by the candidate's pgopt-build.json.\n"
"\n" CLI_EXIT_CODES_HELP
"Here 0 is written (whatever the verdict), 2 input missing or unreadable.\n");
}

static int save(const char *path, const struct strbuf *sb)
{
	return write_file_atomic(path, sb->buf, sb->len);
}

static const struct option report_options[] = {
	{ "gate-result", required_argument, NULL, OPT_GATE_RESULT },
	{ "log", required_argument, NULL, OPT_LOG },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "candidate", required_argument, NULL, OPT_CANDIDATE },
	{ "inspect-baseline", required_argument, NULL, OPT_INSPECT_BASELINE },
	{ "inspect-candidate", required_argument, NULL, OPT_INSPECT_CANDIDATE },
	{ "html", required_argument, NULL, OPT_HTML },
	CLI_OPT_JSON,
	{ "optimize", required_argument, NULL, OPT_OPTIMIZE },
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END
};

/* Read the options.  -1 to go on, else the exit code (0 after --help). */
static int parse_options(struct report_inputs *in, const char **html, const char **json,
			 const char **optimize, int *quiet, int argc, char **argv)
{
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, report_options)) != -1) {
		switch (c) {
		case OPT_GATE_RESULT: in->gate = optarg; break;
		case OPT_LOG: in->log = optarg; break;
		case OPT_BASELINE: in->baseline = optarg; break;
		case OPT_CANDIDATE: in->candidate = optarg; break;
		case OPT_INSPECT_BASELINE: in->inspect_a = optarg; break;
		case OPT_INSPECT_CANDIDATE: in->inspect_b = optarg; break;
		case OPT_HTML: *html = optarg; break;
		case OPT_JSON: *json = optarg; break;
		case OPT_OPTIMIZE: *optimize = optarg; break;
		case 'q': *quiet = 1; break;
		case 'h':
			report_usage(stdout);
			return 0;
		default:
			return cli_usage();
		}
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument \"%s\"", argv[optind]);
	if (*optimize && (in->gate || in->log || in->baseline || in->candidate || in->inspect_a ||
			  in->inspect_b || *json))
		return cli_usage_error("--optimize takes no other input and no --json (the "
				       "optimize result is the JSON)");
	if (*optimize)
		return -1;
	if (!in->gate && !in->log && !in->baseline && !in->candidate && !in->inspect_a &&
	    !in->inspect_b)
		return cli_usage_error("nothing to report: give --gate-result, --log, "
				       "--baseline/--candidate or --inspect-baseline/--inspect-candidate");
	return -1;
}

/* --html and --json (each named on stderr once written, unless quiet); 0
 * or the exit code. */
static int write_outputs(const struct report_data *rd, const char *html, const char *json,
			 int quiet)
{
	struct strbuf sb = STRBUF_INIT;
	int rc = 0;

	if (html) {
		html_write(rd, &sb);
		if (save(html, &sb) < 0)
			rc = PGBUILD_EXIT_ERROR;
		else if (!quiet)
			fprintf(stderr, "report: wrote %s\n", html);
		strbuf_reset(&sb);
	}
	if (json) {
		report_write_json(rd, &sb);
		if (write_result(json, sb.buf, sb.len) < 0)
			rc = PGBUILD_EXIT_ERROR;
	}
	strbuf_release(&sb);
	return rc;
}

/* --optimize FILE: the waterfall of a finished optimize, and its page. */
static int report_optimize(const char *path, const char *html, int quiet)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT, page = STRBUF_INIT;
	struct json_value *doc = NULL;
	int rc = PGBUILD_EXIT_ERROR;

	if (sfs_read(AT_FDCWD, path, SFS_IN_JSON, 0, &text, &err) < 0) {
		error("--optimize: %s", err.buf);
		goto out;
	}
	doc = json_parse(text.buf, text.len, &err);
	if (!doc || optimize_doc_check(doc, &err) < 0) {
		error("--optimize \"%s\": %s", path, err.buf);
		goto out;
	}
	optimize_render_text(doc, stdout);
	rc = 0;
	if (html) {
		optimize_render_html(doc, &page);
		if (save(html, &page) < 0)
			rc = PGBUILD_EXIT_ERROR;
		else if (!quiet)
			fprintf(stderr, "report: wrote %s\n", html);
	}
out:
	json_free(doc);
	strbuf_release(&text);
	strbuf_release(&err);
	strbuf_release(&page);
	return rc;
}

PGBUILD_COMMAND(report, "summarise a gate result, compile log, builds (text, JSON, HTML)")
{
	struct report_inputs in = { 0 };
	struct report_data rd = { 0 };
	const char *html = NULL, *json = NULL, *optimize = NULL;
	int rc, quiet = 0;

	if ((rc = parse_options(&in, &html, &json, &optimize, &quiet, argc, argv)) >= 0)
		return rc;
	{
		/* where the pages go, checked before anything is read */
		const struct cli_output outs[] = {
			CLI_OUT_FILE("--html", html), CLI_OUT_JSON(json), CLI_OUT_END
		};
		if (cli_check_outputs(outs) < 0)
			return PGBUILD_EXIT_ERROR;
	}
	if (optimize)
		return report_optimize(optimize, html, quiet);
	rc = PGBUILD_EXIT_ERROR;
	if (report_load(&rd, &in) == 0) {
		report_terminal(&rd, stdout);
		rc = write_outputs(&rd, html, json, quiet);
	}
	report_data_clear(&rd);
	return rc;
}
