/*
 * servercpu.h - CPU time of a PostgreSQL server's processes, for the
 * server CPU per transaction of `pgbuild bench`, and pinning them to CPUs.
 *
 * Method: the postmaster is found as the parent of our control
 * connection's backend (pg_backend_pid(), then /proc/PID/stat; both must be
 * "postgres" processes, so a server on another machine is "unavailable").
 * A snapshot sums, in clock ticks,
 *
 *     postmaster: utime + stime + cutime + cstime
 *     every live child of it (backends, checkpointer, walwriter, ...):
 *                 utime + stime + cutime + cstime
 *
 * from /proc/PID/stat (proc(5) fields 14-17).  A child that exits is
 * reaped by the postmaster, whose cutime/cstime then carry its time, so
 * backends that end during the run are still counted.  bench takes one
 * snapshot when the timed phase starts (after the warm-up) and one when
 * every client has finished, before any client connection is closed; the
 * difference divided by the timed transactions is the server CPU per
 * transaction.  Resolution: one clock tick (10 ms at USER_HZ 100) per
 * process and snapshot.  A child reaped between the scan of /proc and the
 * read of the postmaster's line could be counted twice or not at all: the
 * postmaster is read last, which leaves only the first, rare case.
 */
#ifndef PGBUILD_SERVERCPU_H
#define PGBUILD_SERVERCPU_H

#include <sched.h>
#include <sys/types.h>

/* One sentence for the JSON and the docs. */
#define SERVER_CPU_METHOD "user+system CPU time of the postmaster and its children " \
	"(live ones from /proc/PID/stat, exited ones through the postmaster's cutime/cstime) " \
	"from the start of the timed run to its end, before any client disconnects, " \
	"divided by the timed transactions"

/* The fields of one /proc/PID/stat line the accounting uses. */
struct servercpu_stat {
	pid_t pid;                 /* field 1 */
	char comm[32];             /* field 2, without the parentheses */
	char state;                /* field 3: R S D Z ... */
	pid_t ppid;                /* field 4 */
	unsigned long flags;       /* field 9: the kernel's PF_* flags */
	unsigned long long utime, stime;   /* fields 14, 15: clock ticks */
	unsigned long long cutime, cstime; /* fields 16, 17: reaped children's */
};

/* PF_EXITING of the kernel's sched.h: the process is in do_exit() */
#define SERVERCPU_PF_EXITING 0x00000004UL

/* Parse one stat line (comm may hold spaces and parentheses).  0 or -1. */
int servercpu_parse_stat(const char *line, struct servercpu_stat *st);

/* One snapshot of the server's CPU time. */
struct servercpu_snap {
	unsigned long long ticks;  /* the sum above */
	int processes;             /* the postmaster and its live children */
};

/*
 * Snapshot postmaster's server from proc_root ("/proc"; tests use a
 * directory of PID/stat files).  0, or -1 when the postmaster's own line
 * cannot be read.
 */
int servercpu_snapshot(const char *proc_root, pid_t postmaster, struct servercpu_snap *s);

/* CPU seconds between two snapshots. */
double servercpu_seconds(const struct servercpu_snap *a, const struct servercpu_snap *b);

/*
 * The postmaster of backend (its parent, when both are "postgres"
 * processes here).  0 with *pm, or -1 with why set.
 */
int servercpu_postmaster_of(const char *proc_root, pid_t backend, pid_t *pm, const char **why);

/* Pin the postmaster and its children to set; the number pinned, -1 on error. */
int servercpu_pin(const char *proc_root, pid_t postmaster, const cpu_set_t *set);

/*
 * Split the CPUs of all into the client's (the last quarter, at least one)
 * and the server's (the rest).  Returns 1 when they are separate, 0 when
 * all has one CPU (both get it).
 */
int servercpu_split(const cpu_set_t *all, cpu_set_t *client, cpu_set_t *server);

/*
 * --cpus LIST ("0-1,3") into set, the one parser of every command that
 * takes it (bench, gate, run, optimize); -1 with the error printed.  Every
 * CPU must be one this machine lets pgbuild run on (sched_getaffinity;
 * the online CPUs, sysconf, when that fails): pinning to another fails or
 * runs elsewhere, so it is refused with the CPUs there are:
 *
 *     invalid value "2-3" for --cpus: no CPU 2 here: the CPUs pgbuild may use are 0-1
 */
int servercpu_parse_cpus(const char *list, cpu_set_t *set);

/* The CPUs of set as a list ("0-1,3") in buf, at most n bytes. */
void servercpu_cpu_list(const cpu_set_t *set, char *buf, size_t n);

#endif
