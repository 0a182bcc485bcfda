/*
 * profile.c - `pgbuild profile`: where does a workload spend the server's
 * time, function by function and translation unit by translation unit, and
 * what policy follows from it.
 *
 *   install (--prefix) -> private cluster -> workload(s) through pgbuild bench
 *     perf:  `perf record -e cpu-clock -p <postmaster>` (follows every
 *            backend); samples per symbol from `perf report`
 *     gcov:  an instrumented install (built with PROF_INSTRUMENT_CFLAGS,
 *            e.g. by `pgbuild pgo`'s first stage): .gcda files written by
 *            every server process on its normal exit, read with
 *            `gcov --json-format`; weight = executed line count
 *   -> attribution to units (object files of the build, or pgopt.so's
 *      records in the binary for LTO builds), ranking
 *   -> hot list (plugin), cold list, and a policy that gives the files
 *      covering --coverage percent of the profile --cflags, nothing else.
 *
 * Hardware counters do not work in VMs like this one; cpu-clock sampling
 * does (a software timer), and so does gcov everywhere.  --from FILE
 * re-reads a profile saved with --json and emits lists and policies from it
 * without running anything.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build/buildlog.h"
#include "pgbuild.h"
#include "profile/data.h"
#include "profile/run.h"

#define PROFILE_DEFAULT_CFLAGS "-O3 -finline-functions"

struct profile_opts {
	const char *prefix;
	const char *builddir;
	const char *method;        /* auto, perf, gcov */
	const char *from;          /* --from FILE */
	const char *json;          /* --json FILE */
	const char *hotlist, *coldlist, *policy;
	const char *cflags;
	const char *perf_data;     /* keep perf.data here */
	double coverage;           /* percent of the profile the policy covers */
	double hot_coverage;       /* percent the hot list covers */
	int max_files, max_hot, top;
	int no_run;                /* read existing samples/counts only */
	int quiet;
};

static void profile_usage(FILE *fp)
{
	fputs("usage: pgbuild profile --prefix PREFIX [--workload W] [options]\n"
	      "       pgbuild profile --from PROFILE.json [--emit-... FILE]\n"
	      "\n"
	      "Run a workload on a private cluster of an installed PostgreSQL, find\n"
	      "the hot functions and translation units of the server, and write the\n"
	      "plugin's hot/cold lists and a policy that optimizes only the hot files.\n"
	      "\n"
	      "Run:\n"
	      "  --prefix PREFIX        installed PostgreSQL (from pgbuild build: its\n"
	      "                         build directory maps functions to files)\n"
	      "  --builddir DIR         the build directory (default: from the record)\n"
	      "  -W, --workload W       bench workload; repeatable or comma-separated\n"
	      "                         (default select-only)\n"
	      "  -c, --clients N        client connections (default 2)\n"
	      "  -T, --duration S       seconds per workload (default 10)\n"
	      "  -s, --scale N          pgbench scale (default: bench's)\n"
	      "  --set NAME=VALUE       server setting (repeatable)\n"
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
	      "  --json FILE            the whole profile as JSON\n"
	      "  --emit-hotlist FILE    hot functions (covering --hot-coverage)\n"
	      "  --emit-coldlist FILE   never-seen functions of the policy's files\n"
	      "  --emit-policy FILE     a policy: the files covering --coverage get\n"
	      "                         --cflags; hot/cold lists when emitted too\n"
	      "  --coverage PCT         share of the profile the policy's files cover\n"
	      "                         (default 80)\n"
	      "  --max-files N          at most N files in the policy (default 15)\n"
	      "  --hot-coverage PCT     share the hot list covers (default 60)\n"
	      "  --max-hot N            at most N hot functions (default 40)\n"
	      "  --cflags FLAGS         flags for the hot files (default \"" PROFILE_DEFAULT_CFLAGS "\")\n"
	      "  -q, --quiet            no progress lines\n"
	      "\n"
	      "Exit: 0 profiled, 2 could not profile (no profiler, workload failed).\n",
	      fp);
}

static int parse_pct(const char *opt, const char *v, double *out)
{
	char *end;
	double d = strtod(v, &end);
	if (end == v || *end || !(d > 0 && d <= 100))
		return error("%s: expected a percentage in (0, 100], got \"%s\"", opt, v);
	*out = d;
	return 0;
}

static int write_file(const char *path, const struct strbuf *sb)
{
	return write_file_atomic(path, sb->buf, sb->len);
}

/* How the policy at policy_path names list_path: relative when both are in
 * one directory, else absolute. */
static char *policy_ref(const char *policy_path, const char *list_path)
{
	char a[PATH_MAX], b[PATH_MAX];
	char *pd = xstrdup(policy_path), *ld = xstrdup(list_path);
	char *r;
	if (realpath(dirname(pd), a) && realpath(dirname(ld), b) && !strcmp(a, b)) {
		free(ld);
		ld = xstrdup(list_path);
		r = xstrdup(basename(ld));
	} else if (realpath(list_path, b)) {
		r = xstrdup(b);
	} else {
		r = xstrdup(list_path);
	}
	free(pd);
	free(ld);
	return r;
}

static void print_profile(const struct profile *p, int top)
{
	double srv = p->server > 0 ? p->server : 1;
	printf("%s: %.0f %s, %.1f%% in the server binary, %.1f%% of that attributed to %zu files\n",
	       p->method, p->total, !strcmp(p->method, "perf") ? "samples" : "line executions",
	       p->total > 0 ? 100.0 * p->server / p->total : 0,
	       100.0 * p->attributed / srv, p->nfiles);
	printf("\n%4s %6s %6s  %-36s %s\n", "rank", "share", "cum", "function", "file");
	double cum = 0;
	int n = 0;
	for (size_t i = 0; i < p->nr && n < top; i++) {
		const struct prof_entry *e = &p->v[i];
		if (!e->in_server)
			continue;
		cum += e->weight;
		printf("%4d %5.1f%% %5.1f%%  %-36s %s%s\n", ++n, 100.0 * e->weight / srv,
		       100.0 * cum / srv, e->name, e->tu ? e->tu : "?",
		       e->ambiguous ? " (ambiguous)" : "");
	}
	double att = p->attributed > 0 ? p->attributed : 1;
	printf("\n%4s %6s %6s %5s  %s\n", "rank", "share", "cum", "funcs", "file");
	cum = 0;
	for (size_t i = 0; i < p->nfiles && (int)i < top; i++) {
		cum += p->files[i].weight;
		printf("%4zu %5.1f%% %5.1f%% %5zu  %s\n", i + 1, 100.0 * p->files[i].weight / att,
		       100.0 * cum / att, p->files[i].nfuncs, p->files[i].tu);
	}
	if (!strcmp(p->method, "perf") && p->total > 0) {
		/* where the rest went */
		struct { const char *dso; double w; } other[6];
		int no = 0;
		for (size_t i = 0; i < p->nr; i++) {
			if (p->v[i].in_server)
				continue;
			int k;
			for (k = 0; k < no; k++)
				if (!strcmp(other[k].dso, p->v[i].dso))
					break;
			if (k == no) {
				if (no == 6)
					continue;
				other[no].dso = p->v[i].dso;
				other[no++].w = 0;
			}
			other[k].w += p->v[i].weight;
		}
		if (no) {
			printf("\noutside the server binary:");
			for (int k = 0; k < no; k++)
				printf(" %s %.1f%%%s", other[k].dso, 100.0 * other[k].w / p->total,
				       k + 1 < no ? "," : "\n");
		}
	}
}

static int run_profile(struct profile_opts *o, struct prof_run *run, struct profile *p)
{
	struct json_value *rec = prof_build_record(o->prefix);
	char *binary = xasprintf("%s/bin/postgres", o->prefix);
	const char *builddir = o->builddir;
	int instrumented = rec && prof_is_instrumented(rec);
	struct strbuf why = STRBUF_INIT;
	int ret = -1;
	char *perf_data = NULL;

	if (access(binary, X_OK) < 0) {
		error("--prefix %s: no executable %s", o->prefix, binary);
		goto out;
	}
	if (!builddir && rec)
		builddir = json_get_str(rec, "builddir");
	if (!strcmp(o->method, "auto")) {
		if (instrumented)
			o->method = "gcov";
		else if (prof_perf_usable(&why))
			o->method = "perf";
		else {
			error("no profiler: %s; and %s is not an instrumented build "
			      "(build one with pgbuild pgo, or a policy with cflags += %s)",
			      why.buf, o->prefix, PROF_INSTRUMENT_CFLAGS);
			goto out;
		}
	}
	if (!strcmp(o->method, "perf")) {
		if (!prof_perf_usable(&why)) {
			error("--method perf: %s", why.buf);
			goto out;
		}
		if (instrumented)
			warning("%s is an instrumented build: perf sees the instrumentation too",
				o->prefix);
		if (o->no_run && (!o->perf_data || access(o->perf_data, R_OK) < 0)) {
			error("--no-run with --method perf needs --perf-data FILE (from perf record): %s",
			      o->perf_data ? strerror(errno) : "not given");
			goto out;
		}
		perf_data = o->perf_data ? xstrdup(o->perf_data) : xstrdup("/tmp/pgbuild-perf-XXXXXX");
		if (!o->perf_data) {
			int fd = mkstemp(perf_data);
			if (fd < 0) {
				error("cannot make a temporary file: %s", strerror(errno));
				goto out;
			}
			close(fd);
		}
		run->perf_data = perf_data;
	} else if (!strcmp(o->method, "gcov")) {
		if (!instrumented || !builddir) {
			error("--method gcov: %s is not an instrumented build made by pgbuild "
			      "(its pgopt-build.json policy must add %s)", o->prefix,
			      PROF_INSTRUMENT_CFLAGS);
			goto out;
		}
		if (access(builddir, W_OK) < 0) {
			error("--method gcov: the build directory %s is not writable: %s",
			      builddir, strerror(errno));
			goto out;
		}
		/* fresh counts: only this workload */
		if (!o->no_run && (prof_remove_gcda(builddir) < 0 || prof_hand_tree(builddir) < 0))
			goto out;
	} else {
		error("--method: expected auto, perf or gcov, got \"%s\"", o->method);
		goto out;
	}

	run->prefix = o->prefix;
	run->quiet = o->quiet;
	if (!o->no_run && prof_run_workloads(run) < 0)
		goto out;

	if (!strcmp(o->method, "perf")) {
		if (prof_perf_report(perf_data, "postgres", p) < 0)
			goto out;
	} else {
		long n = prof_gcov_collect(builddir, p);
		if (n < 0)
			goto out;
		if (n == 0) {
			error("no .gcda files were written below %s (did the server run as a "
			      "user that can write there?)", builddir);
			goto out;
		}
		if (!o->quiet)
			fprintf(stderr, "profile: read %ld gcov data files\n", n);
	}
	struct prof_map map = PROF_MAP_INIT;
	long defs = prof_map_build(&map, builddir, binary);
	if (!defs)
		warning("no function definitions found in the build (%s): the profile has "
			"no files; --builddir points pgbuild at the objects",
			builddir ? builddir : "no build directory");
	prof_attribute(p, &map);
	prof_map_release(&map);
	ret = 0;
out:
	if (perf_data && !o->perf_data)
		unlink(perf_data);
	free(perf_data);
	free(binary);
	strbuf_release(&why);
	json_free(rec);
	return ret;
}

static int emit_outputs(struct profile_opts *o, struct profile *p)
{
	struct strbuf sb = STRBUF_INIT;
	struct prof_map map = PROF_MAP_INIT;
	size_t nfiles = prof_cover_files(p, o->coverage, (size_t)o->max_files);
	int ret = 0;

	if (o->json) {
		struct json_writer jw = JSON_WRITER_INIT(&sb);
		prof_write_json(p, 0, &jw);
		strbuf_addch(&sb, '\n');
		ret |= write_file(o->json, &sb);
		strbuf_setlen(&sb, 0);
	}
	if (o->hotlist) {
		size_t n = prof_write_hotlist(p, o->hot_coverage, (size_t)o->max_hot, &sb);
		ret |= write_file(o->hotlist, &sb);
		strbuf_setlen(&sb, 0);
		if (!o->quiet)
			fprintf(stderr, "profile: %zu hot functions in %s\n", n, o->hotlist);
	}
	if (o->coldlist) {
		char *binary = o->prefix ? xasprintf("%s/bin/postgres", o->prefix) : NULL;
		struct json_value *rec = o->prefix ? prof_build_record(o->prefix) : NULL;
		const char *bd = o->builddir ? o->builddir : json_get_str(rec, "builddir");
		if (!bd && !binary) {
			ret |= error("--emit-coldlist needs the build (--prefix or --builddir) "
				     "to know the functions the profile did not see");
		} else {
			prof_map_build(&map, bd, binary);
			size_t n = prof_write_coldlist(p, nfiles, &map, &sb);
			ret |= write_file(o->coldlist, &sb);
			if (!o->quiet)
				fprintf(stderr, "profile: %zu cold functions in %s\n", n, o->coldlist);
		}
		strbuf_setlen(&sb, 0);
		json_free(rec);
		free(binary);
	}
	if (o->policy) {
		struct prof_policy_opts po = { 0 };
		struct strbuf comment = STRBUF_INIT;
		char *hot = o->hotlist ? policy_ref(o->policy, o->hotlist) : NULL;
		char *cold = o->coldlist ? policy_ref(o->policy, o->coldlist) : NULL;
		double cov = 0;
		for (size_t i = 0; i < nfiles; i++)
			cov += p->files[i].weight;
		strbuf_addf(&comment,
			    "generated by pgbuild profile (%s): the %zu files covering %.1f%% of\n"
			    "the server's profile get %s; everything else is stock.",
			    p->method, nfiles, p->attributed > 0 ? 100.0 * cov / p->attributed : 0,
			    o->cflags);
		po.nfiles = nfiles;
		po.cflags = o->cflags;
		po.hot = hot;
		po.cold = cold;
		po.comment = comment.buf;
		prof_write_policy(p, &po, &sb);
		ret |= write_file(o->policy, &sb);
		if (!o->quiet)
			fprintf(stderr, "profile: policy for %zu files in %s\n", nfiles, o->policy);
		strbuf_release(&comment);
		free(hot);
		free(cold);
	}
	prof_map_release(&map);
	strbuf_release(&sb);
	return ret ? -1 : 0;
}

PGBUILD_COMMAND(profile, "find a workload's hot functions and files; emit hot lists and a policy")
{
	static const struct option longopts[] = {
		{ "prefix", required_argument, NULL, 'p' },
		{ "builddir", required_argument, NULL, 'B' },
		{ "workload", required_argument, NULL, 'W' },
		{ "clients", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'T' },
		{ "scale", required_argument, NULL, 's' },
		{ "set", required_argument, NULL, 'S' },
		{ "method", required_argument, NULL, 'm' },
		{ "perf-data", required_argument, NULL, 'D' },
		{ "from", required_argument, NULL, 'F' },
		{ "no-run", no_argument, NULL, 'N' },
		{ "top", required_argument, NULL, 't' },
		{ "json", required_argument, NULL, 'j' },
		{ "emit-hotlist", required_argument, NULL, 'H' },
		{ "emit-coldlist", required_argument, NULL, 'C' },
		{ "emit-policy", required_argument, NULL, 'P' },
		{ "coverage", required_argument, NULL, 'v' },
		{ "max-files", required_argument, NULL, 'f' },
		{ "hot-coverage", required_argument, NULL, 'h' + 256 },
		{ "max-hot", required_argument, NULL, 'x' },
		{ "cflags", required_argument, NULL, 'g' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct profile_opts o = { 0 };
	struct prof_run run;
	struct profile p = PROFILE_INIT;
	int c, ret = PGBUILD_EXIT_ERROR;

	o.method = "auto";
	o.cflags = PROFILE_DEFAULT_CFLAGS;
	o.coverage = 80;
	o.hot_coverage = 60;
	o.max_files = 15;
	o.max_hot = 40;
	o.top = 20;
	prof_run_init(&run);
	optind = 1;
	while ((c = getopt_long(argc, argv, "W:c:T:s:qh", longopts, NULL)) != -1) {
		int r = prof_run_option(&run, c, optarg);
		if (r < 0)
			goto out;
		if (r > 0)
			continue;
		switch (c) {
		case 'p': o.prefix = optarg; break;
		case 'B': o.builddir = optarg; break;
		case 'S':
			if (!strchr(optarg, '=')) {
				error("--set: expected NAME=VALUE, got \"%s\"", optarg);
				goto out;
			}
			strvec_push(&run.settings, optarg);
			break;
		case 'm': o.method = optarg; break;
		case 'D': o.perf_data = optarg; break;
		case 'F': o.from = optarg; break;
		case 'N': o.no_run = 1; break;
		case 't':
			if (parse_int_option("--top", optarg, 1, 1000000, &o.top) < 0)
				goto out;
			break;
		case 'j': o.json = optarg; break;
		case 'H': o.hotlist = optarg; break;
		case 'C': o.coldlist = optarg; break;
		case 'P': o.policy = optarg; break;
		case 'v':
			if (parse_pct("--coverage", optarg, &o.coverage) < 0)
				goto out;
			break;
		case 'f':
			if (parse_int_option("--max-files", optarg, 1, 100000, &o.max_files) < 0)
				goto out;
			break;
		case 'h' + 256:
			if (parse_pct("--hot-coverage", optarg, &o.hot_coverage) < 0)
				goto out;
			break;
		case 'x':
			if (parse_int_option("--max-hot", optarg, 1, 100000, &o.max_hot) < 0)
				goto out;
			break;
		case 'g': o.cflags = optarg; break;
		case 'q': o.quiet = 1; break;
		case 'h':
			profile_usage(stdout);
			ret = PGBUILD_EXIT_OK;
			goto out;
		default:
			fputs("Try \"pgbuild profile --help\".\n", stderr);
			goto out;
		}
	}
	if (optind < argc) {
		error("unexpected argument \"%s\"", argv[optind]);
		goto out;
	}
	if (!o.prefix == !o.from) {
		error(o.from ? "--from and --prefix exclude each other"
			     : "--prefix (or --from) is required");
		fputs("Try \"pgbuild profile --help\".\n", stderr);
		goto out;
	}
	if (o.no_run && !strcmp(o.method, "auto")) {
		error("--no-run needs --method perf or gcov");
		goto out;
	}
	if (strcmp(o.method, "auto") && strcmp(o.method, "perf") && strcmp(o.method, "gcov")) {
		error("--method: expected auto, perf or gcov, got \"%s\"", o.method);
		goto out;
	}
	if (!*o.cflags) {
		error("--cflags: expected flags, got \"\"");
		goto out;
	}
	if (!run.workloads.nr)
		strvec_push(&run.workloads, "select-only");

	if (o.from) {
		struct strbuf err = STRBUF_INIT;
		struct json_value *doc = buildlog_read_json(o.from);
		if (!doc)
			goto out;
		if (prof_read_json(&p, doc, &err) < 0) {
			error("%s: %s", o.from, err.buf);
			strbuf_release(&err);
			json_free(doc);
			goto out;
		}
		json_free(doc);
		strbuf_release(&err);
	} else {
		prof_init(&p, o.method);
		if (run_profile(&o, &run, &p) < 0)
			goto out;
		free(p.method);
		p.method = xstrdup(o.method);
		prof_finish(&p);
		if (p.server <= 0) {
			error("the profile saw no time in %s/bin/postgres (was the workload too short?)",
			      o.prefix);
			goto out;
		}
		printf("%s", run.summary.buf);
	}
	print_profile(&p, o.top);
	ret = emit_outputs(&o, &p) < 0 ? PGBUILD_EXIT_ERROR : PGBUILD_EXIT_OK;
out:
	prof_release(&p);
	prof_run_release(&run);
	return ret;
}
