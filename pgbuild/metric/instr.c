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

#include "cluster/serveruser.h"
#include "metric/instr.h"
#include "pgbuild.h"

/* The data every script needs: pgbench's tables at scale 1. */
static const char load_sql[] =
	"CREATE TABLE pgbench_branches (bid int NOT NULL PRIMARY KEY, bbalance int, filler char(88)) WITH (fillfactor=100);\n"
	"CREATE TABLE pgbench_tellers (tid int NOT NULL PRIMARY KEY, bid int, tbalance int, filler char(84)) WITH (fillfactor=100);\n"
	"CREATE TABLE pgbench_accounts (aid int NOT NULL PRIMARY KEY, bid int, abalance int, filler char(84)) WITH (fillfactor=100);\n"
	"CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22));\n"
	"INSERT INTO pgbench_branches SELECT 1, 0, NULL;\n"
	"INSERT INTO pgbench_tellers SELECT g, 1, 0, NULL FROM generate_series(1, 10) g;\n"
	"INSERT INTO pgbench_accounts SELECT g, 1, 0, '' FROM generate_series(1, 100000) g;\n"
	"VACUUM ANALYZE;\n"
	"CHECKPOINT;\n";

struct script {
	const char *workload;
	long default_n;       /* transactions in the short run */
};

static const struct script scripts[] = {
	{ "select-only", 200 },
	{ "select1", 400 },
	{ "tpcb", 40 },
};

static const struct script *find_script(const char *workload)
{
	for (size_t i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++)
		if (!strcmp(scripts[i].workload, workload))
			return &scripts[i];
	return NULL;
}

int instr_supported(const char *workload)
{
	return find_script(workload) != NULL;
}

const char *instr_describe(const char *workload, long statements)
{
	static char buf[160];
	const struct script *s = find_script(workload);
	long n = statements > 0 ? statements : s ? s->default_n : 0;
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

/* Deterministic pseudo-random keys, the same for A and B. */
static unsigned long lcg(unsigned long *s)
{
	*s = *s * 6364136223846793005UL + 1442695040888963407UL;
	return *s >> 33;
}

static void make_script(const char *workload, long n, struct strbuf *sb)
{
	unsigned long seed = 12345;
	for (long i = 0; i < n; i++) {
		unsigned long aid = lcg(&seed) % 100000 + 1;
		unsigned long tid = lcg(&seed) % 10 + 1;
		long delta = (long)(lcg(&seed) % 10001) - 5000;
		if (!strcmp(workload, "select-only")) {
			strbuf_addf(sb, "SELECT abalance FROM pgbench_accounts WHERE aid = %lu;\n", aid);
		} else if (!strcmp(workload, "select1")) {
			strbuf_addstr(sb, "SELECT 1;\n");
		} else {
			strbuf_addstr(sb, "BEGIN;\n");
			strbuf_addf(sb, "UPDATE pgbench_accounts SET abalance = abalance + %ld WHERE aid = %lu;\n", delta, aid);
			strbuf_addf(sb, "SELECT abalance FROM pgbench_accounts WHERE aid = %lu;\n", aid);
			strbuf_addf(sb, "UPDATE pgbench_tellers SET tbalance = tbalance + %ld WHERE tid = %lu;\n", delta, tid);
			strbuf_addf(sb, "UPDATE pgbench_branches SET bbalance = bbalance + %ld WHERE bid = 1;\n", delta);
			strbuf_addf(sb, "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (%lu, 1, %lu, %ld, CURRENT_TIMESTAMP);\n",
				    tid, aid, delta);
			strbuf_addstr(sb, "END;\n");
		}
	}
}

/* Run a command (optionally as the server user) with stdin from a file. */
static int run_logged(const char *const *argv, const struct server_user *u,
		      const char *stdin_path, const char *log)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	int in = -1, out, rc;
	strvec_pushv(&cp.args, argv);
	server_user_apply(u, &cp);
	if (stdin_path) {
		in = open(stdin_path, O_RDONLY);
		if (in < 0) {
			child_process_clear(&cp);
			return -1;
		}
		cp.in = in;
	} else {
		cp.no_stdin = 1;
	}
	out = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (out >= 0) {
		cp.out = out;
		cp.err = out;
	}
	rc = run_command(&cp);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	child_process_clear(&cp);
	return rc;
}

static void log_tail(const char *log, struct strbuf *note)
{
	char *last = textfile_last_line(log, NULL);
	strbuf_addf(note, " (%s; log %s)", last ? last : "", log);
	free(last);
}

/* initdb + load, once per install below workdir. */
static int prepare_template(const char *prefix, const char *base, const char *tmpl,
			    const struct server_user *u, struct strbuf *note)
{
	char *initdb = xasprintf("%s/bin/initdb", prefix);
	char *postgres = xasprintf("%s/bin/postgres", prefix);
	char *log = xasprintf("%s/prepare.log", base);
	char *load = xasprintf("%s/load.sql", base);
	const char *initdb_argv[] = { initdb, "-D", tmpl, "-U", "postgres", "-A", "trust",
				      "-E", "UTF8", "--locale=C", "--no-sync", NULL };
	const char *load_argv[] = { postgres, "--single", "-D", tmpl, "-c", "fsync=off",
				    "postgres", NULL };
	int rc = -1;

	if (write_file_atomic_quiet(load, load_sql, sizeof(load_sql) - 1) < 0) {
		strbuf_addf(note, "cannot write %s: %s", load, strerror(errno));
		goto out;
	}
	if (run_logged(initdb_argv, u, NULL, log) != 0) {
		strbuf_addf(note, "initdb failed");
		log_tail(log, note);
		goto out;
	}
	if (run_logged(load_argv, u, load, log) != 0) {
		strbuf_addf(note, "loading the data in single-user mode failed");
		log_tail(log, note);
		goto out;
	}
	rc = 0;
out:
	free(initdb);
	free(postgres);
	free(log);
	free(load);
	return rc;
}

/* One counted run of n transactions (perf or callgrind); returns the total or -1. */
static double count_once(const char *prefix, const char *base, const char *tmpl,
			 const char *workload, long n, const struct server_user *u,
			 enum instr_counter counter, struct strbuf *note)
{
	int perf = counter == INSTR_COUNTER_PERF;
	const char *tool = perf ? "perf" : "callgrind";
	char *data = xasprintf("%s/run-%ld", base, n);
	char *script = xasprintf("%s/%s-%ld.sql", base, workload, n);
	char *outfile = xasprintf("%s/%s-%s-%ld.out", base, tool, workload, n);
	char *log = xasprintf("%s/%s-%s-%ld.log", base, tool, workload, n);
	char *postgres = xasprintf("%s/bin/postgres", prefix);
	char *outopt = xasprintf("--callgrind-out-file=%s", outfile);
	const char *cp_argv[] = { "cp", "-a", tmpl, data, NULL };
	const char *vg_argv[] = { "valgrind", "--tool=callgrind", outopt, "--dump-line=no",
				  "--compress-strings=no", postgres, "--single", "-D", data,
				  "-c", "fsync=off", "postgres", NULL };
	const char *perf_argv[] = { "perf", "stat", "-x,", "-e", "instructions:u", "-o", outfile,
				    "--", postgres, "--single", "-D", data,
				    "-c", "fsync=off", "postgres", NULL };
	struct strbuf sb = STRBUF_INIT;
	double total = -1;
	int rc;

	remove_tree(data);
	unlink(outfile);
	unlink(log);
	make_script(workload, n, &sb);
	if (write_file_atomic_quiet(script, sb.buf, sb.len) < 0) {
		strbuf_addf(note, "cannot write %s: %s", script, strerror(errno));
		goto out;
	}
	if (run_logged(cp_argv, u, NULL, log) != 0) {
		strbuf_addf(note, "cannot copy the data directory %s", tmpl);
		log_tail(log, note);
		goto out;
	}
	rc = run_logged(perf ? perf_argv : vg_argv, u, script, log);
	strbuf_reset(&sb);
	if (perf) {
		const char *why;
		if (rc != 0) {
			strbuf_addf(note, "perf stat/postgres --single exited %d", rc);
			log_tail(log, note);
			goto out;
		}
		if (strbuf_read_file(&sb, outfile) < 0 || (total = instr_parse_perf(sb.buf, &why)) < 0) {
			strbuf_addf(note, "no instructions count in %s (%s)", outfile,
				    sb.len ? why : "missing or empty");
			total = -1;
		}
		goto out;
	}
	strbuf_read_file(&sb, log);
	if (rc == 128 + 4 || strstr(sb.buf, "SIGILL") || strstr(sb.buf, "unhandled instruction")) {
		strbuf_addstr(note, "the server died of SIGILL under valgrind: the build uses "
			      "instructions valgrind cannot run (AVX-512 from -march=native?); "
			      "build with -mno-avx512f to measure it");
		goto out;
	}
	if (rc != 0) {
		strbuf_addf(note, "valgrind/postgres --single exited %d", rc);
		log_tail(log, note);
		goto out;
	}
	strbuf_reset(&sb);
	if (strbuf_read_file(&sb, outfile) < 0 || (total = instr_parse_callgrind(sb.buf)) < 0) {
		strbuf_addf(note, "no instruction total in %s", outfile);
		total = -1;
	}
out:
	remove_tree(data);
	strbuf_release(&sb);
	free(data);
	free(script);
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
	const struct script *s = find_script(workload);
	struct server_user u = SERVER_USER_INIT;
	char *valgrind = NULL, *base = NULL, *tmpl = NULL, *key;
	struct stat st;
	double i1, i10;
	long n;
	int rc = -1;

	if (!s) {
		strbuf_addf(note, "no single-user script for workload \"%s\" "
			    "(instructions: select-only, tpcb, select1)", workload);
		return -1;
	}
	n = statements > 0 ? statements : s->default_n;
	if (counter != INSTR_COUNTER_PERF) {
		counter = INSTR_COUNTER_CALLGRIND;
		valgrind = locate_in_path("valgrind");
		if (!valgrind) {
			strbuf_addstr(note, "valgrind is not installed (apt-get install valgrind)");
			return -1;
		}
	}
	if (server_user_get(&u, NULL, NULL, note) < 0)
		goto out;

	/* one directory per install, named after the prefix */
	key = xstrdup(prefix);
	for (char *p = key; *p; p++)
		if (*p == '/')
			*p = '_';
	base = xasprintf("%s/instr%s", workdir, key);
	free(key);
	tmpl = xasprintf("%s/template", base);
	if (mkdir(base, 0755) < 0 && errno != EEXIST) {
		strbuf_addf(note, "cannot create %s: %s", base, strerror(errno));
		goto out;
	}
	if (u.switch_user && chown(base, u.uid, u.gid) < 0) {
		strbuf_addf(note, "cannot give %s to the server user: %s", base, strerror(errno));
		goto out;
	}
	if (stat(tmpl, &st) < 0 && prepare_template(prefix, base, tmpl, &u, note) < 0)
		goto out;

	i1 = count_once(prefix, base, tmpl, workload, n, &u, counter, note);
	if (i1 < 0)
		goto out;
	i10 = count_once(prefix, base, tmpl, workload, 10 * n, &u, counter, note);
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
	server_user_release(&u);
	free(valgrind);
	free(base);
	free(tmpl);
	return rc;
}
