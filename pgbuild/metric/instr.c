/*
 * instr.c - instructions per transaction under perf stat or callgrind; see instr.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgbuild/cluster/serveruser.h"
#include "pgbuild/metric/instr.h"
#include "pgbuild/metric/single.h"
#include "pgbuild/pgbuild.h"
#include "wrapper/common/textfile.h"

int instr_supported(const char *workload)
{
	return single_supported(workload);
}

const char *instr_describe(const char *workload, long statements)
{
	static char buf[160];
	long n = statements > 0 ? statements : single_default_n(workload);
	snprintf(buf, sizeof(buf), "%ld and %ld transactions differenced", n, 10 * n);
	return buf;
}

double instr_parse_callgrind(const char *text)
{
	const char *keys[] = { "\nsummary:", "\ntotals:" };
	for (int k = 0; k < 2; k++) {
		const char *p = strstr(text, keys[k]);
		if (p) {
			char *end;
			double v;
			p = strchr(p, ':') + 1;
			v = strtod(p, &end);
			if (end != p && v > 0)
				return v;
		}
	}
	return -1;
}

/* Is this perf event name the instructions counter (any PMU, any modifier)? */
static int is_instructions_event(const char *ev, size_t len)
{
	const char *slash = memchr(ev, '/', len);
	const char *colon;
	if (slash) {                      /* cpu_core/instructions:u/ */
		const char *end = ev + len;
		ev = slash + 1;
		len = (size_t)(end - ev);
		if (len && ev[len - 1] == '/')
			len--;
	}
	colon = memchr(ev, ':', len);     /* instructions:u */
	if (colon)
		len = (size_t)(colon - ev);
	return len == strlen("instructions") && !memcmp(ev, "instructions", len);
}

double instr_parse_perf(const char *text, const char **why)
{
	double total = 0;
	int found = 0;
	*why = "no instructions line";
	while (*text) {
		const char *eol = strchr(text, '\n');
		size_t n = eol ? (size_t)(eol - text) : strlen(text);
		const char *f[16];
		size_t flen[16], nf = 0;
		const char *p = text, *end = text + n;

		if (n && *text != '#') {
			/* split on the separator; commas are never quoted (perf-stat(1)) */
			while (nf < 16) {
				const char *c = memchr(p, ',', (size_t)(end - p));
				f[nf] = p;
				flen[nf++] = c ? (size_t)(c - p) : (size_t)(end - p);
				if (!c)
					break;
				p = c + 1;
			}
			for (size_t e = 2; e < nf; e++) {
				char *num_end;
				double v;
				if (!is_instructions_event(f[e], flen[e]))
					continue;
				/* value, unit, event */
				if (flen[e - 2] && f[e - 2][0] == '<') {
					*why = !strncmp(f[e - 2], "<not supported>", flen[e - 2]) ?
						"<not supported>" : "<not counted>";
					break;
				}
				v = strtod(f[e - 2], &num_end);
				if (num_end == f[e - 2] || num_end != f[e - 2] + flen[e - 2] || !(v >= 0)) {
					*why = "the instructions count is not a number";
					break;
				}
				total += v;
				found = 1;
				break;
			}
		}
		text += n + (eol ? 1 : 0);
	}
	return found ? total : -1;
}

const char *instr_counter_name(enum instr_counter c)
{
	return c == INSTR_COUNTER_PERF ? "perf" : c == INSTR_COUNTER_CALLGRIND ? "callgrind" : "auto";
}

int instr_counter_parse(const char *s, enum instr_counter *out)
{
	if (!strcmp(s, "auto"))
		*out = INSTR_COUNTER_AUTO;
	else if (!strcmp(s, "perf"))
		*out = INSTR_COUNTER_PERF;
	else if (!strcmp(s, "callgrind"))
		*out = INSTR_COUNTER_CALLGRIND;
	else
		return -1;
	return 0;
}

/* Do hardware counters count here?  1 yes, 0 no (why in note). */
static int perf_probe(struct strbuf *note)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT;
	char *perf = locate_in_path("perf");
	const char *why;
	int rc, ok = 0;
	if (!perf) {
		strbuf_addstr(note, "perf is not installed");
		return 0;
	}
	free(perf);
	/* the counts go to stderr; merge it */
	strvec_pushl(&cp.args, "perf", "stat", "-x,", "-e", "instructions:u", "--", "true", NULL);
	cp.no_stdin = 1;
	rc = capture_command(&cp, &out, 1);
	child_process_clear(&cp);
	if (rc != 0) {
		strbuf_rtrim(&out);
		strbuf_addf(note, "`perf stat -e instructions:u true` exited %d%s%s", rc,
			    out.len ? ": " : "", out.buf);
	} else if (instr_parse_perf(out.buf, &why) < 0) {
		strbuf_addf(note, "hardware counters do not work here: `perf stat -e "
			    "instructions:u true` says %s", why);
	} else {
		strbuf_addstr(note, "hardware counters work (perf stat)");
		ok = 1;
	}
	strbuf_release(&out);
	return ok;
}

int instr_pick_counter(enum instr_counter want, enum instr_counter *use,
		       struct strbuf *probe_note)
{
	if (want == INSTR_COUNTER_CALLGRIND) {
		strbuf_addstr(probe_note, "callgrind (forced)");
		*use = INSTR_COUNTER_CALLGRIND;
		return 0;
	}
	if (perf_probe(probe_note)) {
		*use = INSTR_COUNTER_PERF;
		return 0;
	}
	if (want == INSTR_COUNTER_PERF)
		return -1;
	strbuf_addstr(probe_note, "; counting with callgrind instead");
	*use = INSTR_COUNTER_CALLGRIND;
	return 0;
}

/* One counted run of n transactions (perf or callgrind); returns the total or -1. */
static double count_once(const char *prefix, const struct single_dirs *d,
			 const char *workload, long n, const struct cluster_user *u,
			 enum instr_counter counter, const char *preload, struct strbuf *note)
{
	int perf = counter == INSTR_COUNTER_PERF;
	const char *tool = perf ? "perf" : "callgrind";
	char *data_rel = xasprintf("run-%ld", n);
	char *data = xasprintf("%s/%s", d->base, data_rel);
	char *script = xasprintf("%s/%s-%ld.sql", d->base, workload, n);
	char *out_rel = xasprintf("%s-%s-%ld.out", tool, workload, n);
	char *outfile = xasprintf("%s/%s", d->out, out_rel);
	char *log = xasprintf("%s/%s-%s-%ld.log", d->base, tool, workload, n);
	char *postgres = xasprintf("%s/bin/postgres", prefix);
	char *outopt = xasprintf("--callgrind-out-file=%s", outfile);
	const char *vg_argv[] = { SINGLE_RUN_ENV, preload, "valgrind", "--tool=callgrind", outopt, "--dump-line=no",
				  "--compress-strings=no", postgres, "--single", "-D", data,
				  "-c", "fsync=off", "postgres", NULL };
	const char *perf_argv[] = { SINGLE_RUN_ENV, preload, "perf", "stat", "-x,", "-e", "instructions:u", "-o", outfile,
				    "--", postgres, "--single", "-D", data,
				    "-c", "fsync=off", "postgres", NULL };
	struct strbuf sb = STRBUF_INIT, why = STRBUF_INIT;
	double total = -1;
	int rc;

	if (single_fresh_run(d, d->basefd, data_rel, data, workload, n, script, out_rel, log, u,
			     note) < 0)
		goto out;
	rc = single_run_logged(perf ? perf_argv : vg_argv, u, script, log);
	strbuf_reset(&sb);
	if (perf) {
		const char *reason;
		if (rc != 0) {
			strbuf_addf(note, "perf stat/postgres --single exited %d", rc);
			textfile_note_tail(log, note);
			goto out;
		}
		if (single_log_errors(log, note) < 0)
			goto out;
		if (single_read_out(d, out_rel, &sb, &why) < 0 ||
		    (total = instr_parse_perf(sb.buf, &reason)) < 0) {
			strbuf_addf(note, "no instructions count in %s (%s)", outfile,
				    why.len ? why.buf : sb.len ? reason : "missing or empty");
			total = -1;
		}
		goto out;
	}
	if (single_valgrind_status(rc, log, note) < 0 || single_log_errors(log, note) < 0)
		goto out;
	if (single_read_out(d, out_rel, &sb, &why) < 0 || (total = instr_parse_callgrind(sb.buf)) < 0) {
		strbuf_addf(note, "no instruction total in %s%s%s", outfile, why.len ? ": " : "",
			    why.buf);
		total = -1;
	}
out:
	sfs_remove(d->basefd, data_rel, NULL);
	strbuf_release(&sb);
	strbuf_release(&why);
	free(data_rel);
	free(data);
	free(script);
	free(out_rel);
	free(outfile);
	free(log);
	free(postgres);
	free(outopt);
	return total;
}

int instr_measure(const char *prefix, const char *workload, const char *workdir,
		  long statements, enum instr_counter counter, double *per_tx,
		  struct strbuf *note)
{
	long n = statements > 0 ? statements : single_default_n(workload);
	struct cluster_user u = CLUSTER_USER_INIT;
	struct single_dirs d = SINGLE_DIRS_INIT;
	char *valgrind = NULL, *preload = NULL;
	double i1, i10;
	int rc = -1;

	if (!n) {
		strbuf_addf(note, "no single-user script for workload \"%s\" "
			    "(instructions: " WORKLOADS_SINGLE ")", workload);
		return -1;
	}
	if (counter != INSTR_COUNTER_PERF) {
		counter = INSTR_COUNTER_CALLGRIND;
		valgrind = locate_in_path("valgrind");
		if (!valgrind) {
			strbuf_addstr(note, "valgrind is not installed (apt-get install valgrind)");
			return -1;
		}
	}
	if (cluster_user_get(&u, NULL, NULL, note) < 0)
		goto out;

	if (single_prepare(prefix, workdir, "instr", workload, &u, &d, note) < 0 ||
	    single_frozen_clock(d.basefd, d.base, &preload, note) < 0)
		goto out;

	i1 = count_once(prefix, &d, workload, n, &u, counter, preload, note);
	if (i1 < 0)
		goto out;
	i10 = count_once(prefix, &d, workload, 10 * n, &u, counter, preload, note);
	if (i10 < 0)
		goto out;
	if (i10 <= i1) {
		strbuf_addf(note, "10N run counted no more instructions than the N run (%.0f <= %.0f)",
			    i10, i1);
		goto out;
	}
	*per_tx = (i10 - i1) / (9.0 * (double)n);
	rc = 0;
out:
	cluster_user_release(&u);
	single_dirs_release(&d);
	free(valgrind);
	free(preload);
	return rc;
}
