/*
 * collect.c - where does a workload spend the server's time, function by
 * function and translation unit by translation unit, and what policy
 * follows from it (`pgbuild profile`); see collect.h.
 *
 *   install (--install) -> private cluster -> workload(s) through pgbuild bench
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
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgbuild/pgbuild.h"
#include "pgbuild/profile/collect.h"

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

void profile_print(const struct profile *p, int top)
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

int profile_collect(struct profile_opts *o, struct prof_run *run, struct profile *p)
{
	struct json_value *rec = prof_build_record(o->prefix);
	char *binary = xasprintf("%s/bin/postgres", o->prefix);
	const char *builddir = o->builddir;
	int instrumented = rec && prof_is_instrumented(rec);
	struct strbuf why = STRBUF_INIT;
	struct prof_gcda gcda = PROF_GCDA_INIT;
	int ret = -1;
	char *perf_data = NULL;

	if (access(binary, X_OK) < 0) {
		error("--install %s: no executable %s", o->prefix, binary);
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
			      "(build one with pgbuild pgo --instrument-only, which adds %s through PGOPT_PROFILE)",
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
			      "(pgbuild pgo --instrument-only: its pgopt-build.json policy says PGOPT_PROFILE adds %s)", o->prefix,
			      PROF_INSTRUMENT_CFLAGS);
			goto out;
		}
		if (access(builddir, W_OK) < 0) {
			error("--method gcov: the build directory %s is not writable: %s",
			      builddir, strerror(errno));
			goto out;
		}
		/* fresh counts: only this workload, written by the server into a
		 * directory of its own, taken back after the run */
		if (!o->no_run) {
			if (prof_gcda_begin(&gcda, builddir) < 0)
				goto out;
			run->gcov_dir = gcda.dir;
		}
	} else {
		error("--method: expected auto, perf or gcov, got \"%s\"", o->method);
		goto out;
	}

	run->prefix = o->prefix;
	run->builddir = builddir;
	run->quiet = o->quiet;
	if (!o->no_run && prof_run_workloads(run) < 0)
		goto out;
	if (gcda.dir) {
		long n = prof_gcda_collect(&gcda);
		run->gcov_dir = NULL;
		prof_gcda_end(&gcda);
		if (n < 0)
			goto out;
	}

	if (!strcmp(o->method, "perf")) {
		if (prof_perf_report(perf_data, "postgres", p) < 0)
			goto out;
	} else {
		long n = prof_gcov_collect(builddir, p);
		if (n < 0)
			goto out;
		if (n == 0) {
			error("no .gcda files for the objects of %s were written (did the server "
			      "run as a user that can write in TMPDIR?)", builddir);
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
	if (gcda.top) {
		run->gcov_dir = NULL;
		prof_gcda_end(&gcda);
	}
	if (perf_data && !o->perf_data)
		unlink(perf_data);
	free(perf_data);
	free(binary);
	strbuf_release(&why);
	json_free(rec);
	return ret;
}

int profile_emit(struct profile_opts *o, struct profile *p)
{
	struct strbuf sb = STRBUF_INIT;
	struct prof_map map = PROF_MAP_INIT;
	size_t nfiles = prof_cover_files(p, o->coverage, (size_t)o->max_files);
	int ret = 0;

	if (o->json) {
		struct json_writer jw = JSON_WRITER_INIT(&sb);
		prof_write_json(p, 0, &jw);
		strbuf_addch(&sb, '\n');
		ret |= write_result(o->json, sb.buf, sb.len);
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
			ret |= error("--emit-coldlist needs the build (--install or --builddir) "
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
		po.path = o->policy;
		if (prof_write_policy(p, &po, &sb) < 0)
			ret = -1;
		else
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

