/*
 * cycles.c - the cycles estimate per transaction from callgrind's cache and
 * branch simulation of the single-user server; see cycles.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "metric/cycles.h"
#include "metric/single.h"
#include "pgbuild.h"

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

/* The fixed paths every build runs with (see cycles.h). */
struct cycles_paths {
	char *top;       /* workdir/cycles, owned by the server user */
	char *data;      /* top/data: the data directory */
	char *bindir;    /* top/bin */
	char *link;      /* bindir/postgres -> PREFIX/bin/postgres */
	const char *arch; /* uname -m, for setarch */
};

/* One counted run of n transactions into *c; 0 or -1 with note. */
static int count_once(const struct cycles_paths *fp, const char *base, const char *tmpl,
		      const char *workload, long n, const struct server_user *u,
		      struct cycles_counts *c, struct strbuf *note)
{
	char *script = xasprintf("%s/%s-%ld.sql", base, workload, n);
	char *outfile = xasprintf(CYCLES_OUT_FMT, base, workload, n);
	char *log = xasprintf("%s/cycles-%s-%ld.log", base, workload, n);
	char *outopt = xasprintf("--callgrind-out-file=%s", outfile);
	const char *vg_argv[] = { "setarch", fp->arch, "-R", "valgrind", "--tool=callgrind",
				  "--cache-sim=yes", "--branch-sim=yes", CYCLES_I1, CYCLES_D1,
				  CYCLES_LL, outopt, "--dump-instr=no", "--dump-line=no",
				  "--compress-strings=no",
				  fp->link, "--single", "-D", fp->data, "-c", "fsync=off",
				  "postgres", NULL };
	struct strbuf sb = STRBUF_INIT, why = STRBUF_INIT;
	int rc = -1, r;

	if (single_fresh_run(tmpl, fp->data, workload, n, script, outfile, log, u, note) < 0)
		goto out;
	r = single_run_logged(vg_argv, u, script, log);
	if (single_valgrind_status(r, log, note) < 0)
		goto out;
	strbuf_reset(&sb);
	if (strbuf_read_file(&sb, outfile) < 0) {
		strbuf_addf(note, "cannot read %s: %s", outfile, strerror(errno));
		goto out;
	}
	if (cycles_parse_callgrind(sb.buf, c, &why) < 0) {
		strbuf_addf(note, "%s: %s", outfile, why.buf);
		goto out;
	}
	rc = 0;
out:
	remove_tree(fp->data);
	strbuf_release(&sb);
	strbuf_release(&why);
	free(script);
	free(outfile);
	free(log);
	free(outopt);
	return rc;
}

/* The symlink to prefix's postgres at the fixed path; 0 or -1 with note. */
static int point_link(const struct cycles_paths *fp, const char *prefix, struct strbuf *note)
{
	char *target = xasprintf("%s/bin/postgres", prefix);
	char *abs = path_absolute(target);
	int rc = 0;
	if (mkdir(fp->bindir, 0755) < 0 && errno != EEXIST) {
		strbuf_addf(note, "cannot create %s: %s", fp->bindir, strerror(errno));
		rc = -1;
	} else if ((unlink(fp->link) < 0 && errno != ENOENT) || symlink(abs, fp->link) < 0) {
		strbuf_addf(note, "cannot link %s to %s: %s", fp->link, abs, strerror(errno));
		rc = -1;
	}
	free(target);
	free(abs);
	return rc;
}

char *cycles_output_path(const char *prefix, const char *workload, const char *workdir, long n)
{
	char *base = single_base(prefix, workdir, "cycles");
	char *path = xasprintf(CYCLES_OUT_FMT, base, workload, n);
	free(base);
	return path;
}

int cycles_measure(const char *prefix, const char *workload, const char *workdir,
		   long statements, struct cycles_tx *out, struct strbuf *note)
{
	long n = statements > 0 ? statements : single_default_n(workload);
	struct server_user u = SERVER_USER_INIT;
	struct cycles_counts c1, c10;
	struct cycles_paths fp = { 0 };
	struct utsname un;
	char *valgrind = NULL, *setarch = NULL, *base = NULL, *tmpl = NULL;
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
	if (server_user_get(&u, NULL, NULL, note) < 0)
		goto out;
	if (single_prepare(prefix, workdir, "cycles", &u, &base, &tmpl, note) < 0)
		goto out;
	/* the fixed paths live in workdir/cycles, the server user's */
	fp.top = xasprintf("%s/cycles", workdir);
	fp.data = xasprintf("%s/data", fp.top);
	fp.bindir = xasprintf("%s/bin", fp.top);
	fp.link = xasprintf("%s/postgres", fp.bindir);
	if (mkdir(fp.top, 0755) < 0 && errno != EEXIST) {
		strbuf_addf(note, "cannot create %s: %s", fp.top, strerror(errno));
		goto out;
	}
	if (u.switch_user && chown(fp.top, u.uid, u.gid) < 0) {
		strbuf_addf(note, "cannot give %s to the server user: %s", fp.top, strerror(errno));
		goto out;
	}
	if (point_link(&fp, prefix, note) < 0)
		goto out;
	if (count_once(&fp, base, tmpl, workload, n, &u, &c1, note) < 0 ||
	    count_once(&fp, base, tmpl, workload, 10 * n, &u, &c10, note) < 0)
		goto out;
	if (c10.v[CYC_IR] <= c1.v[CYC_IR]) {
		strbuf_addf(note, "10N run counted no more instructions than the N run (%.0f <= %.0f)",
			    c10.v[CYC_IR], c1.v[CYC_IR]);
		goto out;
	}
	cycles_per_tx(&c1, &c10, n, out);
	rc = 0;
out:
	if (fp.link)
		unlink(fp.link);
	server_user_release(&u);
	free(valgrind);
	free(setarch);
	free(base);
	free(tmpl);
	free(fp.top);
	free(fp.data);
	free(fp.bindir);
	free(fp.link);
	return rc;
}
