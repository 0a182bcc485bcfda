/*
 * servercpu.c - the server's CPU time from /proc and CPU pinning; see
 * servercpu.h.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgbuild/bench/servercpu.h"
#include "pgbuild/pgbuild.h"

int servercpu_parse_stat(const char *line, struct servercpu_stat *st)
{
	const char *open = strchr(line, '('), *close = strrchr(line, ')');
	unsigned long long f[16];
	char *end;
	const char *p;
	size_t n;
	long pid;

	memset(st, 0, sizeof(*st));
	if (!open || !close || close < open)
		return -1;
	pid = strtol(line, &end, 10);
	if (end == line || pid <= 0)
		return -1;
	st->pid = (pid_t)pid;
	n = (size_t)(close - open - 1);
	if (n >= sizeof(st->comm))
		n = sizeof(st->comm) - 1;
	memcpy(st->comm, open + 1, n);
	p = close + 1;
	while (*p == ' ')
		p++;
	if (!*p)
		return -1;
	st->state = *p++;
	/* fields 4 (ppid) to 17 (cstime): 14 numbers; ppid etc. may be negative */
	for (int k = 0; k < 14; k++) {
		long long v = strtoll(p, &end, 10);
		if (end == p)
			return -1;
		f[k] = (unsigned long long)v;
		p = end;
	}
	st->ppid = (pid_t)f[0];
	st->flags = (unsigned long)f[5];
	st->utime = f[10];
	st->stime = f[11];
	st->cutime = f[12];
	st->cstime = f[13];
	return 0;
}

/* Read and parse proc_root/PID/stat.  0 or -1. */
static int read_stat(const char *proc_root, pid_t pid, struct servercpu_stat *st)
{
	char path[256];
	struct strbuf sb = STRBUF_INIT;
	int rc = -1;
	snprintf(path, sizeof(path), "%s/%d/stat", proc_root, (int)pid);
	if (sfs_read(AT_FDCWD, path, SFS_IN_SYSTEM, 0, &sb, NULL) > 0)
		rc = servercpu_parse_stat(sb.buf, st);
	strbuf_release(&sb);
	return rc;
}

/* Call fn for every child of postmaster under proc_root; the count. */
static int each_child(const char *proc_root, pid_t postmaster,
		      void (*fn)(const struct servercpu_stat *st, void *arg), void *arg)
{
	DIR *d = opendir(proc_root);
	struct dirent *de;
	int n = 0;
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		struct servercpu_stat st;
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (read_stat(proc_root, (pid_t)atoi(de->d_name), &st) < 0 || st.ppid != postmaster)
			continue;
		fn(&st, arg);
		n++;
	}
	closedir(d);
	return n;
}

static void add_child(const struct servercpu_stat *st, void *arg)
{
	unsigned long long *ticks = arg;
	*ticks += st->utime + st->stime + st->cutime + st->cstime;
}

int servercpu_snapshot(const char *proc_root, pid_t postmaster, struct servercpu_snap *s)
{
	struct servercpu_stat pm;
	unsigned long long children = 0;
	int n = each_child(proc_root, postmaster, add_child, &children);
	/* the postmaster last: a child reaped meanwhile is in its cutime; a
	 * dead one (a zombie not yet reaped) has no server time left to count,
	 * nor has a dying one: the kernel closes its files (its children see
	 * it gone, and exit) before it becomes a zombie, and on a busy machine
	 * a snapshot can fall in between, with PF_EXITING already set */
	if (n < 0 || read_stat(proc_root, postmaster, &pm) < 0 || pm.state == 'Z' ||
	    pm.state == 'X' || (pm.flags & SERVERCPU_PF_EXITING))
		return -1;
	s->ticks = children + pm.utime + pm.stime + pm.cutime + pm.cstime;
	s->processes = n + 1;
	return 0;
}

double servercpu_seconds(const struct servercpu_snap *a, const struct servercpu_snap *b)
{
	long hz = sysconf(_SC_CLK_TCK);
	if (hz <= 0)
		hz = 100;
	return b->ticks >= a->ticks ? (double)(b->ticks - a->ticks) / (double)hz : 0;
}

int servercpu_postmaster_of(const char *proc_root, pid_t backend, pid_t *pm, const char **why)
{
	struct servercpu_stat b, p;
	if (read_stat(proc_root, backend, &b) < 0 || strcmp(b.comm, "postgres")) {
		*why = "the server's backend is not a process on this machine";
		return -1;
	}
	if (read_stat(proc_root, b.ppid, &p) < 0 || strcmp(p.comm, "postgres")) {
		*why = "the backend's parent is not a postgres process here";
		return -1;
	}
	*pm = p.pid;
	return 0;
}

/* each_child's argument for pinning. */
struct pin_arg {
	const cpu_set_t *set;     /* where to */
	int failed;               /* sched_setaffinity refused one */
};

static void pin_child(const struct servercpu_stat *st, void *arg)
{
	struct pin_arg *a = arg;
	if (sched_setaffinity(st->pid, sizeof(*a->set), a->set) < 0)
		a->failed = 1;
}

int servercpu_pin(const char *proc_root, pid_t postmaster, const cpu_set_t *set)
{
	struct pin_arg a = { set, 0 };
	int n;
	/* the postmaster first: children forked from now on inherit */
	if (sched_setaffinity(postmaster, sizeof(*set), set) < 0)
		return -1;
	n = each_child(proc_root, postmaster, pin_child, &a);
	return n < 0 || a.failed ? -1 : n + 1;
}

int servercpu_split(const cpu_set_t *all, cpu_set_t *client, cpu_set_t *server)
{
	int n = CPU_COUNT(all), want, seen = 0;
	CPU_ZERO(client);
	CPU_ZERO(server);
	if (n <= 1) {
		*client = *all;
		*server = *all;
		return 0;
	}
	want = n / 4 < 1 ? 1 : n / 4;   /* the client's CPUs: the last ones */
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, all))
			continue;
		if (seen++ < n - want)
			CPU_SET(c, server);
		else
			CPU_SET(c, client);
	}
	return 1;
}

/* Decimal digits at the start of s: how many. */
static size_t scan_digits(const char *s)
{
	size_t n = 0;
	while (s[n] >= '0' && s[n] <= '9')
		n++;
	return n;
}

/* A CPU number: decimal digits only (strtol would take " 1" and "+1"). */
static int cpu_number(const char *p, char **end, long *out)
{
	size_t n = scan_digits(p);
	if (!n || n > 6)
		return -1;
	*out = strtol(p, end, 10);
	return *out < CPU_SETSIZE ? 0 : -1;
}

void servercpu_cpu_list(const cpu_set_t *set, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE && len + 16 < n; c++) {
		int e = c;
		if (!CPU_ISSET(c, set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		len += (size_t)snprintf(buf + len, n - len, len ? ",%d" : "%d", c);
		if (e > c)
			len += (size_t)snprintf(buf + len, n - len, "-%d", e);
		c = e;
	}
}

/* The CPUs this process may run on: its affinity, else the online ones. */
static void cpus_here(cpu_set_t *have)
{
	long n;

	if (sched_getaffinity(0, sizeof(*have), have) == 0 && CPU_COUNT(have) > 0)
		return;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	CPU_ZERO(have);
	for (long c = 0; c < (n > 0 ? n : 1) && c < CPU_SETSIZE; c++)
		CPU_SET(c, have);
}

/* Every CPU of set is one here; -1 after the error naming those there are. */
static int cpus_exist(const char *list, const cpu_set_t *set)
{
	cpu_set_t have;
	char text[256];

	cpus_here(&have);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, set) && !CPU_ISSET(c, &have)) {
			servercpu_cpu_list(&have, text, sizeof(text));
			return error("invalid value \"%s\" for --cpus: no CPU %d here: the CPUs "
				     "pgbuild may use are %s", list, c, text);
		}
	return 0;
}

int servercpu_parse_cpus(const char *list, cpu_set_t *set)
{
	const char *p = list;
	CPU_ZERO(set);
	if (!*p)
		return error("invalid value \"\" for --cpus: expected a list like 0-1,3");
	while (*p) {
		char *end;
		long a, b;
		if (cpu_number(p, &end, &a) < 0)
			return error("invalid value \"%s\" for --cpus: expected a list like 0-1,3", list);
		b = a;
		if (*end == '-') {
			p = end + 1;
			if (cpu_number(p, &end, &b) < 0 || b < a)
				return error("invalid value \"%s\" for --cpus: expected a list like 0-1,3", list);
		}
		for (long c = a; c <= b; c++)
			CPU_SET(c, set);
		if (*end == ',' && end[1])
			end++;
		else if (*end)
			return error("invalid value \"%s\" for --cpus: expected a list like 0-1,3", list);
		p = end;
	}
	return cpus_exist(list, set);
}
