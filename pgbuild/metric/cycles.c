/*
 * cycles.c - the cycles estimate per transaction from callgrind's cache and
 * branch simulation of the single-user server; see cycles.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "pgbuild/metric/cycles.h"
#include "pgbuild/metric/single.h"
#include "pgbuild/pgbuild.h"
#include "wrapper/common/safefs.h"

const char *const cycles_event_names[CYC_NEVENTS] = {
	"Ir", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Bc", "Bcm", "Bi", "Bim",
};

/* The text after "\nKEY" (or KEY at the start) up to the end of its line. */
static const char *find_line(const char *text, const char *key, size_t *len)
{
	size_t klen = strlen(key);
	const char *p = text;
	while (p && *p) {
		if (!strncmp(p, key, klen)) {
			const char *eol = strchr(p, '\n');
			p += klen;
			*len = eol ? (size_t)(eol - p) : strlen(p);
			return p;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

/* Which of our events is the name of len bytes at s (-1: not one we read). */
static int event_index(const char *s, size_t len)
{
	for (int e = 0; e < CYC_NEVENTS; e++)
		if (strlen(cycles_event_names[e]) == len && !memcmp(cycles_event_names[e], s, len))
			return e;
	return -1;
}

/* The missing events in [from, to) named in why ("I1mr, D1mr"); 1 if any. */
static int name_missing(const int *seen, int from, int to, struct strbuf *why)
{
	int any = 0;
	for (int e = from; e < to; e++) {
		if (seen[e])
			continue;
		strbuf_addf(why, "%s%s", any ? ", " : "", cycles_event_names[e]);
		any = 1;
	}
	return any;
}

int cycles_parse_callgrind(const char *text, struct cycles_counts *c, struct strbuf *why)
{
	const char *ev, *sum, *p, *end;
	size_t evlen, sumlen;
	int col[64], ncol = 0, seen[CYC_NEVENTS] = { 0 };

	memset(c, 0, sizeof(*c));
	if (!(ev = find_line(text, "events:", &evlen))) {
		strbuf_addstr(why, "no \"events:\" line: not a callgrind output file");
		return -1;
	}
	if (!(sum = find_line(text, "summary:", &sumlen)) &&
	    !(sum = find_line(text, "totals:", &sumlen))) {
		strbuf_addstr(why, "no \"summary:\" or \"totals:\" line: the run did not finish");
		return -1;
	}
	/* the columns, by name */
	for (p = ev, end = ev + evlen; p < end && ncol < 64;) {
		size_t n;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		n = strcspn(p, " \t\n");
		if (p + n > end)
			n = (size_t)(end - p);
		if (!n)
			break;
		col[ncol] = event_index(p, n);
		if (col[ncol] >= 0)
			seen[col[ncol]] = 1;
		ncol++;
		p += n;
	}
	if (!seen[CYC_IR]) {
		strbuf_addstr(why, "no Ir event");
		return -1;
	}
	if (name_missing(seen, CYC_I1MR, CYC_DLMW + 1, why)) {
		strbuf_addstr(why, " missing: callgrind ran without --cache-sim=yes");
		return -1;
	}
	if (name_missing(seen, CYC_BC, CYC_NEVENTS, why)) {
		strbuf_addstr(why, " missing: callgrind ran without --branch-sim=yes");
		return -1;
	}
	/* the values, in the columns' order; trailing ones may be left off (0) */
	p = sum;
	end = sum + sumlen;
	for (int k = 0; k < ncol; k++) {
		char *num_end;
		double v;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p >= end)
			break;
		v = strtod(p, &num_end);
		if (num_end == p || num_end > end || !(v >= 0)) {
			strbuf_addf(why, "summary value %d is not a count", k + 1);
			return -1;
		}
		if (col[k] >= 0)
			c->v[col[k]] = v;
		p = num_end;
	}
	if (!(c->v[CYC_IR] > 0)) {
		strbuf_addstr(why, "the summary counts no instructions");
		return -1;
	}
	return 0;
}

double cycles_estimate(const struct cycles_tx *t)
{
	return t->ir + 10 * t->bm + 10 * t->l1m + 100 * t->llm;
}

void cycles_tx_values(const struct cycles_tx *t, double v[CYCLES_ROWS])
{
	v[0] = t->ir;
	v[1] = t->i1mr;
	v[2] = t->l1m;
	v[3] = t->llm;
	v[4] = t->bm;
	v[CYCLES_ROW_ESTIMATE] = t->estimate;
}

void cycles_tx_set(struct cycles_tx *t, const double v[CYCLES_ROWS])
{
	t->ir = v[0];
	t->i1mr = v[1];
	t->l1m = v[2];
	t->llm = v[3];
	t->bm = v[4];
	t->estimate = v[CYCLES_ROW_ESTIMATE];
}

void cycles_per_tx(const struct cycles_counts *c1, const struct cycles_counts *c10, long n,
		   struct cycles_tx *out)
{
	double d[CYC_NEVENTS];
	for (int e = 0; e < CYC_NEVENTS; e++)
		d[e] = (c10->v[e] - c1->v[e]) / (9.0 * (double)n);
	out->ir = d[CYC_IR];
	out->i1mr = d[CYC_I1MR];
	out->l1m = d[CYC_I1MR] + d[CYC_D1MR] + d[CYC_D1MW];
	out->llm = d[CYC_ILMR] + d[CYC_DLMR] + d[CYC_DLMW];
	out->bm = d[CYC_BCM] + d[CYC_BIM];
	out->estimate = cycles_estimate(out);
}

/*
 * The fixed paths every build runs with (see cycles.h): top and its bin/
 * are ours (0755; the link to the build's postgres is made there through
 * bin's descriptor), top/data is made afresh for each run, the server
 * user's.
 */
struct cycles_paths {
	char *top;       /* workdir/cycles */
	char *data;      /* top/data: the data directory */
	char *bindir;    /* top/bin */
	char *link;      /* bindir/postgres -> PREFIX/bin/postgres */
	const char *arch; /* uname -m, for setarch */
	char *preload;   /* "LD_PRELOAD=bindir/frozen-clock.so" */
	int topfd;       /* top, or -1 */
	int binfd;       /* top/bin, or -1 */
};

/* One counted run of n transactions into *c; 0 or -1 with note. */
static int count_once(const struct cycles_paths *fp, const struct single_dirs *d,
		      const char *workload, long n, const struct cluster_user *u,
		      struct cycles_counts *c, struct strbuf *note)
{
	char *script = xasprintf("%s/%s-%ld.sql", d->base, workload, n);
	char *out_rel = xasprintf(CYCLES_OUT_FMT, ".", workload, n);
	char *outfile = xasprintf(CYCLES_OUT_FMT, d->out, workload, n);
	char *log = xasprintf("%s/cycles-%s-%ld.log", d->base, workload, n);
	char *outopt = xasprintf("--callgrind-out-file=%s", outfile);
	const char *vg_argv[] = { SINGLE_RUN_ENV, fp->preload,
				  "setarch", fp->arch, "-R", "valgrind", "--tool=callgrind",
				  "--cache-sim=yes", "--branch-sim=yes", CYCLES_I1, CYCLES_D1,
				  CYCLES_LL, outopt, "--dump-instr=no", "--dump-line=no",
				  "--compress-strings=no",
				  fp->link, "--single", "-D", fp->data, "-c", "fsync=off",
				  "postgres", NULL };
	struct strbuf sb = STRBUF_INIT, why = STRBUF_INIT;
	int rc = -1, r;

	if (single_fresh_run(d, fp->topfd, "data", fp->data, workload, n, script, out_rel, log, u,
			     note) < 0)
		goto out;
	r = single_run_logged(vg_argv, u, script, log);
	if (single_valgrind_status(r, log, note) < 0 || single_log_errors(log, note) < 0)
		goto out;
	strbuf_reset(&sb);
	if (single_read_out(d, out_rel, &sb, note) < 0)
		goto out;
	if (cycles_parse_callgrind(sb.buf, c, &why) < 0) {
		strbuf_addf(note, "%s: %s", outfile, why.buf);
		goto out;
	}
	rc = 0;
out:
	sfs_remove(fp->topfd, "data", NULL);
	strbuf_release(&sb);
	strbuf_release(&why);
	free(script);
	free(out_rel);
	free(outfile);
	free(log);
	free(outopt);
	return rc;
}

/* The fixed directories and the link to prefix's postgres; 0 or -1 with note. */
static int point_link(struct cycles_paths *fp, const char *workdir, const char *prefix,
		      struct strbuf *note)
{
	char *target = xasprintf("%s/bin/postgres", prefix);
	char *abs = path_absolute(target);
	struct strbuf err = STRBUF_INIT;
	int wfd = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = -1;

	if (wfd < 0) {
		strbuf_addf(note, "cannot open %s: %s", workdir, strerror(errno));
		goto out;
	}
	if ((fp->topfd = sfs_mkdir(wfd, "cycles", 0755, (uid_t)-1, (gid_t)-1, 1, &err)) < 0 ||
	    (fp->binfd = sfs_mkdir(fp->topfd, "bin", 0755, (uid_t)-1, (gid_t)-1, 1, &err)) < 0) {
		strbuf_addf(note, "in %s: %s", workdir, err.buf);
		goto out;
	}
	if ((unlinkat(fp->binfd, "postgres", 0) < 0 && errno != ENOENT) ||
	    symlinkat(abs, fp->binfd, "postgres") < 0) {
		strbuf_addf(note, "cannot link %s to %s: %s", fp->link, abs, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (wfd >= 0)
		close(wfd);
	strbuf_release(&err);
	free(target);
	free(abs);
	return rc;
}

char *cycles_output_path(const char *prefix, const char *workload, const char *workdir, long n)
{
	char *base = single_base(prefix, workdir, "cycles");
	char *out = xasprintf("%s/out", base);
	char *path = xasprintf(CYCLES_OUT_FMT, out, workload, n);
	free(out);
	free(base);
	return path;
}

int cycles_measure(const char *prefix, const char *workload, const char *workdir,
		   long statements, struct cycles_tx *out, struct strbuf *note)
{
	long n = statements > 0 ? statements : single_default_n(workload);
	struct cluster_user u = CLUSTER_USER_INIT;
	struct single_dirs d = SINGLE_DIRS_INIT;
	struct cycles_counts c1, c10;
	struct cycles_paths fp = { .topfd = -1, .binfd = -1 };
	struct utsname un;
	char *valgrind = NULL, *setarch = NULL;
	int rc = -1;

	if (!n) {
		strbuf_addf(note, "no single-user script for workload \"%s\" (cycles: %s)",
			    workload, SINGLE_WORKLOADS);
		return -1;
	}
	if (!(valgrind = locate_in_path("valgrind"))) {
		strbuf_addstr(note, "valgrind is not installed (apt-get install valgrind)");
		goto out;
	}
	if (!(setarch = locate_in_path("setarch")) || uname(&un) < 0) {
		strbuf_addstr(note, "setarch is not installed (util-linux): ASLR cannot be turned off");
		goto out;
	}
	fp.arch = un.machine;
	if (cluster_user_get(&u, NULL, NULL, note) < 0)
		goto out;
	if (single_prepare(prefix, workdir, "cycles", workload, &u, &d, note) < 0)
		goto out;
	fp.top = xasprintf("%s/cycles", workdir);
	fp.data = xasprintf("%s/data", fp.top);
	fp.bindir = xasprintf("%s/bin", fp.top);
	fp.link = xasprintf("%s/postgres", fp.bindir);
	if (point_link(&fp, workdir, prefix, note) < 0 ||
	    single_frozen_clock(fp.binfd, fp.bindir, &fp.preload, note) < 0)
		goto out;
	if (count_once(&fp, &d, workload, n, &u, &c1, note) < 0 ||
	    count_once(&fp, &d, workload, 10 * n, &u, &c10, note) < 0)
		goto out;
	if (c10.v[CYC_IR] <= c1.v[CYC_IR]) {
		strbuf_addf(note, "10N run counted no more instructions than the N run (%.0f <= %.0f)",
			    c10.v[CYC_IR], c1.v[CYC_IR]);
		goto out;
	}
	cycles_per_tx(&c1, &c10, n, out);
	rc = 0;
out:
	if (fp.binfd >= 0) {
		unlinkat(fp.binfd, "postgres", 0);
		close(fp.binfd);
	}
	if (fp.topfd >= 0)
		close(fp.topfd);
	cluster_user_release(&u);
	single_dirs_release(&d);
	free(valgrind);
	free(setarch);
	free(fp.top);
	free(fp.data);
	free(fp.bindir);
	free(fp.link);
	free(fp.preload);
	return rc;
}
