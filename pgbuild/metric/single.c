/*
 * single.c - the server in single-user mode on a prepared data directory,
 * the part the per-transaction metrics share; see single.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "metric/single.h"
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

int single_supported(const char *workload)
{
	return find_script(workload) != NULL;
}

long single_default_n(const char *workload)
{
	const struct script *s = find_script(workload);
	return s ? s->default_n : 0;
}

/* Deterministic pseudo-random keys, the same for A and B. */
static unsigned long lcg(unsigned long *s)
{
	*s = *s * 6364136223846793005UL + 1442695040888963407UL;
	return *s >> 33;
}

void single_make_script(const char *workload, long n, struct strbuf *sb)
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
int single_run_logged(const char *const *argv, const struct server_user *u,
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

void single_log_tail(const char *log, struct strbuf *note)
{
	char *last = textfile_last_line(log, NULL);
	strbuf_addf(note, " (%s; log %s)", last ? last : "", log);
	free(last);
}

int single_fresh_run(const char *tmpl, const char *data, const char *workload, long n,
		     const char *script, const char *outfile, const char *log,
		     const struct server_user *u, struct strbuf *note)
{
	struct strbuf sb = STRBUF_INIT;
	const char *cp_argv[] = { "cp", "-a", tmpl, data, NULL };
	int rc = -1;

	remove_tree(data);
	unlink(outfile);
	unlink(log);
	single_make_script(workload, n, &sb);
	if (write_file_atomic_quiet(script, sb.buf, sb.len) < 0) {
		strbuf_addf(note, "cannot write %s: %s", script, strerror(errno));
	} else if (single_run_logged(cp_argv, u, NULL, log) != 0) {
		strbuf_addf(note, "cannot copy the data directory %s", tmpl);
		single_log_tail(log, note);
	} else {
		rc = 0;
	}
	strbuf_release(&sb);
	return rc;
}

int single_valgrind_status(int rc, const char *log, struct strbuf *note)
{
	struct strbuf sb = STRBUF_INIT;
	int sigill;
	strbuf_read_file(&sb, log);
	sigill = rc == 128 + 4 || strstr(sb.buf, "SIGILL") || strstr(sb.buf, "unhandled instruction");
	strbuf_release(&sb);
	if (sigill) {
		strbuf_addstr(note, "the server died of SIGILL under valgrind: the build uses "
			      "instructions valgrind cannot run (AVX-512 from -march=native?); "
			      "build with -mno-avx512f to measure it");
		return -1;
	}
	if (rc != 0) {
		strbuf_addf(note, "valgrind/postgres --single exited %d", rc);
		single_log_tail(log, note);
		return -1;
	}
	return 0;
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
	if (single_run_logged(initdb_argv, u, NULL, log) != 0) {
		strbuf_addf(note, "initdb failed");
		single_log_tail(log, note);
		goto out;
	}
	if (single_run_logged(load_argv, u, load, log) != 0) {
		strbuf_addf(note, "loading the data in single-user mode failed");
		single_log_tail(log, note);
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


char *single_base(const char *prefix, const char *workdir, const char *tag)
{
	/* one directory per install, named after the prefix */
	char *key = xstrdup(prefix), *base;
	for (char *p = key; *p; p++)
		if (*p == '/')
			*p = '_';
	base = xasprintf("%s/%s%s", workdir, tag, key);
	free(key);
	return base;
}

int single_prepare(const char *prefix, const char *workdir, const char *tag,
		   const struct server_user *u, char **base, char **tmpl,
		   struct strbuf *note)
{
	struct stat st;

	*base = single_base(prefix, workdir, tag);
	*tmpl = xasprintf("%s/template", *base);
	if (mkdir(*base, 0755) < 0 && errno != EEXIST) {
		strbuf_addf(note, "cannot create %s: %s", *base, strerror(errno));
		return -1;
	}
	if (u->switch_user && chown(*base, u->uid, u->gid) < 0) {
		strbuf_addf(note, "cannot give %s to the server user: %s", *base, strerror(errno));
		return -1;
	}
	if (stat(*tmpl, &st) < 0 && prepare_template(prefix, *base, *tmpl, u, note) < 0)
		return -1;
	return 0;
}
