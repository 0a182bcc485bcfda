/*
 * cmd/explain.c - `pgbuild explain`: its options and their checks; where
 * the callgrind outputs come from (a finished gate's JSON, a work
 * directory of earlier runs, named files, or a measurement of its own
 * with the cycles metric); the computing and rendering are
 * explain/explain.h's.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgbuild/cluster/workdir.h"
#include "pgbuild/cmd/cmd.h"
#include "pgbuild/elf/elfrec.h"
#include "pgbuild/explain/explain.h"
#include "pgbuild/gate/gate.h"
#include "pgbuild/metric/cycles.h"
#include "pgbuild/metric/single.h"
#include "wrapper/common/safefs.h"

static void explain_usage(FILE *fp)
{
	fprintf(fp,
"usage: pgbuild explain --baseline PATH --candidate PATH -W WORKLOAD\n"
"                       [--workdir DIR] [--instr-statements N] [options]\n"
"       pgbuild explain --gate-result FILE [-W WORKLOAD] [options]\n"
"       pgbuild explain --baseline PATH --candidate PATH\n"
"                       --callgrind-baseline N_FILE,10N_FILE\n"
"                       --callgrind-candidate N_FILE,10N_FILE\n"
"                       --instr-statements N [options]\n"
"\n"
"Where the cycles estimate of B differs from A's, function by function: the\n"
"per-function costs of the callgrind runs of the cycles metric (N and 10N\n"
"transactions differenced), joined with the plugin's records of both builds\n"
"(callees inlined on one side only and GCC's reason on the other, sizes,\n"
"sections, the unit's flags and policy line, BOLT's layout), and how much of\n"
"the total change the top rows explain.\n"
"\n"
"  --baseline PATH          A: an installed PostgreSQL (PATH/bin/postgres) or an\n"
"                           executable\n"
"  --candidate PATH         B: likewise\n"
"  -W, --workload NAME      the workload (one `pgbuild bench -b list` marks c;\n"
"                           with --gate-result: one of the gate's, default its\n"
"                           first)\n"
"  --workdir DIR            where the callgrind runs are kept: the outputs of an\n"
"                           earlier run there (a gate's --workdir) are used when\n"
"                           newer than both binaries, else both are measured\n"
"                           there (default: a temporary directory, removed)\n"
"  --instr-statements N     transactions N of the short run (10N in the long one;\n"
"                           default per workload, as the gate's)\n"
"  --gate-result FILE       a finished gate's --json: its builds and the\n"
"                           callgrind outputs it kept (gate --workdir); nothing\n"
"                           is measured\n"
"  --callgrind-baseline N_FILE,10N_FILE   A's callgrind outputs of N and 10N\n"
"                           statements (any program; nothing is measured)\n"
"  --callgrind-candidate N_FILE,10N_FILE  B's\n"
"  --noise FILE             per-function layout spread (a pgbuild-noise document,\n"
"                           e.g. PREFIX/pgopt-noise.json of pgbuild noise, for\n"
"                           -W): rows inside it are counted; without it the\n"
"                           output says the spread is not measured\n"
"  --debug-dir DIR          read the records of a binary that holds none from its\n"
"                           side file DIR/.build-id/XX/REST.pgopt (its build-id),\n"
"                           else its debug file REST.debug if that holds them\n"
"  --top N                  rows on the terminal (default 20)\n"
"  --json FILE|-            the whole document (every row) as JSON\n"
"  --html FILE              one self-contained page: bar chart and table\n"
"  -q, --quiet              no progress lines\n"
"\n"
CLI_EXIT_CODES_HELP
"Here 0 is explained, 2 could not (a binary or callgrind output missing or\n"
"unreadable, a measurement that failed); explain checks nothing (no 1).\n");
}

/* Options of explain alone (codes above every enum cli_opt value). */
enum {
	OPT_CALLGRIND_BASELINE = OPT_WORKDIR + 1000,
	OPT_CALLGRIND_CANDIDATE,
};

static const struct option explain_options[] = {
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "candidate", required_argument, NULL, OPT_CANDIDATE },
	CLI_OPT_WORKLOAD,
	{ "workdir", required_argument, NULL, OPT_WORKDIR },
	{ "instr-statements", required_argument, NULL, OPT_INSTR_STATEMENTS },
	{ "gate-result", required_argument, NULL, OPT_GATE_RESULT },
	{ "callgrind-baseline", required_argument, NULL, OPT_CALLGRIND_BASELINE },
	{ "callgrind-candidate", required_argument, NULL, OPT_CALLGRIND_CANDIDATE },
	{ "noise", required_argument, NULL, OPT_NOISE },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "top", required_argument, NULL, OPT_TOP },
	CLI_OPT_JSON,
	{ "html", required_argument, NULL, OPT_HTML },
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END
};

/* The options. */
struct explain_opts {
	const char *baseline, *candidate;  /* --baseline, --candidate */
	struct strvec workloads;           /* -W */
	const char *workdir;               /* --workdir */
	int statements;                    /* --instr-statements (0: default) */
	const char *gate;                  /* --gate-result FILE */
	struct strvec cg[2];               /* --callgrind-baseline, --callgrind-candidate */
	const char *noise;                 /* --noise */
	int top;                           /* --top */
	const char *json, *html;           /* --json, --html */
	int quiet;                         /* -q */
};

/* "N_FILE,10N_FILE" into two files. */
static int parse_pair(const char *opt, const char *arg, struct strvec *out)
{
	strvec_clear(out);
	cli_parse_list(arg, out);
	if (out->nr != 2) {
		cli_usage_error("invalid value \"%s\" for %s: expected two callgrind output "
				"files, N_FILE,10N_FILE", arg, opt);
		return -1;
	}
	return 0;
}

/* One option; -1 to go on, else the exit code. */
static int one_option(struct explain_opts *o, int c)
{
	switch (c) {
	case OPT_BASELINE: o->baseline = optarg; break;
	case OPT_CANDIDATE: o->candidate = optarg; break;
	case 'W':
		if (cli_parse_workloads(optarg, &o->workloads) < 0)
			return cli_usage();
		break;
	case OPT_WORKDIR: o->workdir = optarg; break;
	case OPT_INSTR_STATEMENTS:
		if (cli_parse_int("--instr-statements", optarg, 1, 100000000, &o->statements) < 0)
			return cli_usage();
		break;
	case OPT_GATE_RESULT: o->gate = optarg; break;
	case OPT_CALLGRIND_BASELINE:
		if (parse_pair("--callgrind-baseline", optarg, &o->cg[0]) < 0)
			return PGBUILD_EXIT_ERROR;
		break;
	case OPT_CALLGRIND_CANDIDATE:
		if (parse_pair("--callgrind-candidate", optarg, &o->cg[1]) < 0)
			return PGBUILD_EXIT_ERROR;
		break;
	case OPT_NOISE: o->noise = optarg; break;
	case OPT_DEBUG_DIR: elfrec_set_debug_dir(optarg); break;
	case OPT_TOP:
		if (cli_parse_int("--top", optarg, 1, 100000, &o->top) < 0)
			return cli_usage();
		break;
	case OPT_JSON: o->json = optarg; break;
	case OPT_HTML: o->html = optarg; break;
	case 'q': o->quiet = 1; break;
	case 'h':
		explain_usage(stdout);
		return 0;
	default:
		return cli_usage();
	}
	return -1;
}

/* The combinations that make sense, checked before anything is read. */
static int check_options(const struct explain_opts *o)
{
	int files = o->cg[0].nr || o->cg[1].nr;
	if (o->gate && (o->baseline || o->candidate || files || o->workdir || o->statements))
		return cli_usage_error("--gate-result takes its builds, workload settings and callgrind "
				       "outputs from the gate result: no --baseline, --candidate, "
				       "--workdir, --instr-statements or --callgrind-*");
	if (o->gate)
		return o->workloads.nr > 1 ? cli_usage_error("-W: one workload") : -1;
	if (!o->baseline || !o->candidate)
		return cli_usage_error("give --baseline and --candidate (or --gate-result FILE)");
	if (files && (!o->cg[0].nr || !o->cg[1].nr))
		return cli_usage_error("give both --callgrind-baseline and --callgrind-candidate");
	if (files && !o->statements)
		return cli_usage_error("--callgrind-*: give --instr-statements N, the statements of "
				       "the N run");
	if (files && o->workdir)
		return cli_usage_error("--callgrind-* names the outputs: no --workdir");
	if (!files && o->workloads.nr != 1)
		return cli_usage_error("-W: give the one workload to measure");
	if (!files && !single_supported(o->workloads.v[0]))
		return cli_usage_error("-W %s: no single-user script for the cycles metric (%s)",
				       o->workloads.v[0], SINGLE_WORKLOADS);
	return -1;
}

static int parse_options(struct explain_opts *o, int argc, char **argv)
{
	int c, rc;
	optind = 1;
	while ((c = cli_getopt(argc, argv, explain_options)) != -1)
		if ((rc = one_option(o, c)) >= 0)
			return rc;
	if (optind < argc)
		return cli_usage_error("unexpected argument \"%s\"", argv[optind]);
	return check_options(o);
}

/* ---------------- where the callgrind outputs come from ---------------- */

/* Is file there and newer than binary? */
static int fresh(const char *file, const char *binary)
{
	struct stat f, b;
	return stat(file, &f) == 0 && stat(binary, &b) == 0 && f.st_mtime >= b.st_mtime;
}

/* The binary of a side's path (a prefix or an executable). */
static char *binary_of(const char *path)
{
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return xasprintf("%s/bin/postgres", path);
	return xstrdup(path);
}

/* --workdir's outputs when fresh, else measure both builds there. */
static int measured(const struct explain_opts *o, const char *dir, struct explain_inputs *in,
		    struct strvec *keep)
{
	const char *wl = o->workloads.v[0], *paths[2] = { o->baseline, o->candidate };
	long n = o->statements ? o->statements : single_default_n(wl);
	int reuse = 1;
	for (int s = 0; s < 2; s++) {
		char *bin = binary_of(paths[s]);
		for (int k = 0; k < 2; k++) {
			strvec_push_nodup(keep, cycles_output_path(paths[s], wl, dir, k ? 10 * n : n));
			in->files[s][k] = keep->v[keep->nr - 1];
			reuse &= fresh(in->files[s][k], bin);
		}
		free(bin);
	}
	in->statements = n;
	in->workload = wl;
	if (reuse) {
		if (!o->quiet)
			fprintf(stderr, "explain: using the callgrind outputs of %s (newer than both "
				"binaries)\n", dir);
		return 0;
	}
	for (int s = 0; s < 2; s++) {
		struct cycles_tx tx;
		struct strbuf note = STRBUF_INIT;
		if (!o->quiet)
			fprintf(stderr, "explain: %s %s: callgrind cache and branch simulation, %ld and "
				"%ld statements ...\n", s ? "B" : "A", paths[s], n, 10 * n);
		if (cycles_measure(paths[s], wl, dir, n, &tx, &note) < 0) {
			error("%s %s: cannot measure: %s", s ? "--candidate" : "--baseline", paths[s],
			      note.buf);
			strbuf_release(&note);
			return -1;
		}
		strbuf_release(&note);
	}
	return 0;
}

/* Are the four callgrind outputs a gate's JSON names still there? */
static int gate_files_exist(const struct json_value *cg)
{
	for (int s = 0; s < 2; s++)
		for (size_t k = 0; k < 2; k++) {
			const char *f = json_at(json_get(cg, s ? "b" : "a"), k)->type == JSON_STRING ?
					json_at(json_get(cg, s ? "b" : "a"), k)->u.str.s : NULL;
			if (!f || access(f, F_OK) < 0)
				return 0;
		}
	return 1;
}

/* --gate-result FILE: its builds and the outputs it kept for the workload. */
static int from_gate(const struct explain_opts *o, struct explain_inputs *in,
		     struct strvec *keep, struct strbuf *section)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	struct json_value *root;
	const struct json_value *wls, *w = NULL, *cg;
	int rc = -1;

	if (sfs_read(AT_FDCWD, o->gate, SFS_IN_JSON, 0, &sb, &err) < 0) {
		rc = error("--gate-result: %s", err.buf);
		strbuf_release(&err);
		return rc;
	}
	if (!(root = json_parse(sb.buf, sb.len, &err)) ||
	    strcmp(json_get_str(root, "kind") ? json_get_str(root, "kind") : "", "pgbuild-gate")) {
		error("--gate-result \"%s\": not a pgbuild gate result%s%s", o->gate, err.len ? ": " : "",
		      err.buf);
		goto out;
	}
	wls = json_get(root, "workloads");
	for (size_t i = 0; i < json_len(wls) && !w; i++) {
		const struct json_value *x = json_at(wls, i);
		const char *name = json_get_str(x, "name");
		if (o->workloads.nr ? name && !strcmp(name, o->workloads.v[0]) :
		    json_get(json_get(x, "cycles"), "callgrind") != NULL)
			w = x;
	}
	if (!w) {
		error("--gate-result \"%s\": %s", o->gate, o->workloads.nr ? "the gate did not measure "
		      "that workload" : "no workload's cycles estimate was measured (--metric cycles)");
		goto out;
	}
	cg = json_get(json_get(w, "cycles"), "callgrind");
	in->workload = xstrdup(json_get_str(w, "name"));
	strvec_push_nodup(keep, (char *)in->workload);
	if (!cg || json_len(json_get(cg, "a")) != 2 || json_len(json_get(cg, "b")) != 2 ||
	    !gate_files_exist(cg)) {
		const struct json_value *ex = json_get(w, "explain");
		if (ex && ex->type == JSON_OBJECT) {
			char *t = gate_json_text(ex);
			strbuf_addstr(section, t);
			free(t);
			rc = 0;
		} else {
			error("--gate-result \"%s\": %s's callgrind outputs were not kept (the gate ran "
			      "without --workdir) and it holds no explain section", o->gate, in->workload);
		}
		goto out;
	}
	for (int s = 0; s < 2; s++)
		for (int k = 0; k < 2; k++) {
			const struct json_value *f = json_at(json_get(cg, s ? "b" : "a"), (size_t)k);
			strvec_push(keep, f && f->type == JSON_STRING ? f->u.str.s : "");
			in->files[s][k] = keep->v[keep->nr - 1];
		}
	in->statements = (long)json_get_num(cg, "statements", 0);
	strvec_push(keep, json_get_str(root, "baseline") ? json_get_str(root, "baseline") : "");
	in->baseline = keep->v[keep->nr - 1];
	strvec_push(keep, json_get_str(root, "candidate") ? json_get_str(root, "candidate") : "");
	in->candidate = keep->v[keep->nr - 1];
	rc = in->statements > 0 ? 0 : error("--gate-result \"%s\": no statement count", o->gate);
out:
	json_free(root);
	strbuf_release(&sb);
	strbuf_release(&err);
	return rc;
}

/* ---------------- outputs ---------------- */

/* The terminal table, --json and --html of the document text. */
static int outputs(const struct explain_opts *o, const struct strbuf *doc_text)
{
	struct strbuf err = STRBUF_INIT, page = STRBUF_INIT;
	struct json_value *doc = json_parse(doc_text->buf, doc_text->len, &err);
	int rc = 0;

	if (!doc || explain_doc_check(doc, &err) < 0) {
		error("explain: the document is not readable: %s", err.buf);
		rc = PGBUILD_EXIT_ERROR;
		goto out;
	}
	explain_render_text(doc, o->top ? (size_t)o->top : 20, stdout);
	if (o->json && write_result(o->json, doc_text->buf, doc_text->len) < 0)
		rc = PGBUILD_EXIT_ERROR;
	if (o->html) {
		strbuf_addstr(&page, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
			      "style-src 'unsafe-inline'\">\n<title>pgbuild explain</title>\n<style>");
		explain_html_css(&page);
		strbuf_addstr(&page, "</style>\n</head>\n<body>\n<h1>pgbuild explain</h1>\n");
		explain_render_html(doc, (size_t)(o->top ? o->top : 50), &page);
		strbuf_addstr(&page, "</body>\n</html>\n");
		if (write_file_atomic(o->html, page.buf, page.len) < 0)
			rc = PGBUILD_EXIT_ERROR;
		else if (!o->quiet)
			fprintf(stderr, "explain: wrote %s\n", o->html);
	}
out:
	json_free(doc);
	strbuf_release(&err);
	strbuf_release(&page);
	return rc;
}

/* A temporary work directory for measuring (the server user reads below it). */
static char *temp_workdir(void)
{
	const char *t = getenv("TMPDIR");
	char *dir = xasprintf("%s/pgbuild-explain.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(dir)) {
		error("cannot create a directory %s: %s", dir, strerror(errno));
		free(dir);
		return NULL;
	}
	chmod(dir, 0755);
	return dir;
}

/* Remove the temporary directory: the server user's files are below it,
 * so through safefs, its parent (TMPDIR) as the anchor. */
static void remove_workdir(const char *dir)
{
	char *parent = xstrdup(dir), *slash = strrchr(parent, '/');
	struct strbuf err = STRBUF_INIT;
	int fd;
	*slash = '\0';
	fd = sfs_open_anchor(*parent ? parent : "/", (uid_t)-1, 0, &err);
	if (fd < 0 || sfs_remove(fd, slash + 1, &err) < 0)
		warning("cannot remove %s: %s", dir, err.buf);
	if (fd >= 0)
		close(fd);
	strbuf_release(&err);
	free(parent);
}

/* The inputs from the options: the gate's, named files, or measured. */
static int gather(struct explain_opts *o, struct explain_inputs *in, struct strvec *keep,
		  struct strbuf *section, char **tmpdir)
{
	in->baseline = o->baseline;
	in->candidate = o->candidate;
	in->noise = o->noise;
	if (o->gate)
		return from_gate(o, in, keep, section);
	if (o->cg[0].nr) {
		for (int s = 0; s < 2; s++)
			for (int k = 0; k < 2; k++)
				in->files[s][k] = o->cg[s].v[k];
		in->statements = o->statements;
		in->workload = o->workloads.nr ? o->workloads.v[0] : NULL;
		return 0;
	}
	if (o->workdir) {
		/* made when missing, never chmodded; as root refused when
		 * another user can write in it (the gate's rule) */
		int fd = workdir_open("--workdir", o->workdir);
		if (fd < 0)
			return -1;
		close(fd);
	} else if (!(*tmpdir = temp_workdir())) {
		return -1;
	}
	return measured(o, o->workdir ? o->workdir : *tmpdir, in, keep);
}

PGBUILD_COMMAND(explain, "a cycles-estimate change by function and the decisions behind it")
{
	struct explain_opts o;
	struct explain_inputs in;
	struct strvec keep = STRVEC_INIT;
	struct strbuf doc = STRBUF_INIT;
	char *tmpdir = NULL;
	int rc;

	memset(&o, 0, sizeof(o));
	memset(&in, 0, sizeof(in));
	strvec_init(&o.workloads);
	strvec_init(&o.cg[0]);
	strvec_init(&o.cg[1]);
	if ((rc = parse_options(&o, argc, argv)) >= 0)
		goto out;
	rc = PGBUILD_EXIT_ERROR;
	{
		/* where the results go, checked before a measurement */
		const struct cli_output outs[] = {
			CLI_OUT_JSON(o.json),
			CLI_OUT_FILE("--html", o.html),
			CLI_OUT_END
		};
		if (cli_check_outputs(outs) < 0)
			goto out;
	}
	if (gather(&o, &in, &keep, &doc, &tmpdir) < 0)
		goto out;
	if (!doc.len) {
		in.keep_rows = 0;
		if (explain_run(&in, &doc) < 0)
			goto out;
	} else if (!o.quiet) {
		fprintf(stderr, "explain: the gate's callgrind outputs were not kept; its own "
			"explain section (top %d rows) follows\n", EXPLAIN_KEEP_ROWS);
	}
	rc = outputs(&o, &doc);
out:
	if (tmpdir)
		remove_workdir(tmpdir);
	free(tmpdir);
	strvec_clear(&keep);
	strvec_clear(&o.workloads);
	strvec_clear(&o.cg[0]);
	strvec_clear(&o.cg[1]);
	strbuf_release(&doc);
	return rc;
}
