/*
 * fuzz-report.c - libFuzzer harness for the readers behind `pgbuild report`
 * (pgbuild/report/report.c, gate/json.c) and what report does with what they read.
 *
 * Every input is used as each file report reads, in cmd_report()'s order:
 *   - a gate result: loaded with report_load_gate(), as `report --gate-result
 *     FILE` does (gate_read_json(), then the prefixes and settings);
 *   - a candidate's pgopt-build.json: the log directory is looked up the way
 *     cmd_report() does it (those lines are inline there, so they are
 *     repeated here; keep them in step);
 *   - a compile log: DIR/compile.jsonl loaded with report_load_log(), the
 *     line loop `report --log DIR` runs.
 * What was loaded is then printed (report_terminal() to /dev/null) and
 * rendered (html_write()), and freed with report_data_clear(): LeakSanitizer
 * checks that nothing is left.  The JSON parser itself, on exact-size
 * buffers, is fuzz-json.c's.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pgbuild/gate/gate.h"
#include "pgbuild/report/html.h"
#include "wrapper/common/json.h"
#include "pgbuild/pgbuild.h"
#include "pgbuild/report/report.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/xalloc.h"

/*
 * The input is written to DIR/compile.jsonl, a regular file (the readers
 * refuse links), and read both as the compile log and as the gate result.
 * DIR is in /dev/shm when there is one (no disk writes, which made the
 * harness 15 times slower), else /tmp: fuzz-report.PID.*, removed at exit;
 * a crash leaves it, so each run first removes those of processes that are
 * gone.
 */
static char dir[64];
static const char *base = "/tmp";
static char *log_path, *gate_path;
static int memfd = -1;
static FILE *devnull;

static void remove_dir(const char *d)
{
	char *f = xasprintf("%s/compile.jsonl", d);
	unlink(f);
	rmdir(d);
	free(f);
}

static void cleanup(void)
{
	remove_dir(dir);
}

static void remove_stale_dirs(void)
{
	static const char prefix[] = "fuzz-report.";
	DIR *d = opendir(base);
	struct dirent *e;
	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		long pid;
		if (strncmp(e->d_name, prefix, sizeof(prefix) - 1))
			continue;
		pid = strtol(e->d_name + sizeof(prefix) - 1, NULL, 10);
		if (pid > 0 && kill((pid_t)pid, 0) < 0 && errno == ESRCH) {
			char *path = xasprintf("%s/%s", base, e->d_name);
			remove_dir(path);
			free(path);
		}
	}
	closedir(d);
}

static void setup(void)
{
	struct stat st;
	if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0)
		base = "/dev/shm";
	remove_stale_dirs();
	snprintf(dir, sizeof(dir), "%s/fuzz-report.%ld.XXXXXX", base, (long)getpid());
	if (!mkdtemp(dir))
		abort();
	log_path = xasprintf("%s/compile.jsonl", dir);
	gate_path = log_path;
	memfd = open(log_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (memfd < 0)
		abort();
	atexit(cleanup);
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
}

#ifdef FUZZ_SKIP_KNOWN
/*
 * Built with -DFUZZ_SKIP_KNOWN (see RUNS.md), inputs that reach a finding
 * already in corpus/report/ and not fixed yet are skipped, so a long run can
 * look for others: a gate result with a run whose "pair" is over 1000 (the
 * analysis loops and allocates up to the largest pair number), or with two
 * workloads of the same name (the first one's instructions note leaks).
 */
static int known_finding(const uint8_t *data, size_t size)
{
	struct json_value *v = json_parse((const char *)data, size, NULL);
	const struct json_value *wls = json_get(v, "workloads");
	int known = 0;
	for (size_t i = 0; i < json_len(wls); i++) {
		const struct json_value *runs = json_get(json_at(wls, i), "runs");
		const char *name = json_get_str(json_at(wls, i), "name");
		for (size_t k = 0; k < json_len(runs); k++)
			if (json_get_num(json_at(runs, k), "pair", 0) > 1000)
				known = 1;
		for (size_t k = 0; name && k < i; k++) {
			const char *other = json_get_str(json_at(wls, k), "name");
			if (other && !strcmp(name, other))
				known = 1;
		}
	}
	json_free(v);
	return known;
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct report_data rd = { 0 };
	struct strbuf html = STRBUF_INIT;

	if (!devnull)
		setup();
#ifdef FUZZ_SKIP_KNOWN
	if (known_finding(data, size))
		return 0;
#endif
	if (ftruncate(memfd, 0) < 0 || (size && pwrite(memfd, data, size, 0) != (ssize_t)size))
		abort();

	/* in cmd_report's order: --gate-result FILE, pgopt-build.json, the log */
	(void)report_load_gate(&rd, gate_path);
	rd.build_b = xstrndup((const char *)data, size);
	{
		struct json_value *bj = json_parse(rd.build_b, strlen(rd.build_b), NULL);
		const char *logdir = json_get_str(json_get(bj, "log"), "dir");
		if (logdir) {
			char *f = xasprintf("%s/compile.jsonl", logdir);
			(void)access(f, R_OK);
			free(f);
		}
		json_free(bj);
	}
	if (report_load_log(&rd, dir) < 0)
		abort(); /* the file is there: any content loads */

	report_terminal(&rd, devnull);
	html_write(&rd, &html);
	strbuf_release(&html);
	report_data_clear(&rd);
	return 0;
}
