/*
 * cluster/private.h - what the files of cluster/ share (cluster.c, the
 * life cycle; cleanup.c, the signal-cleanup registry; log.c, the server
 * log; template.c, templates).  Not for callers: they include cluster.h.
 */
#ifndef PGBUILD_CLUSTER_PRIVATE_H
#define PGBUILD_CLUSTER_PRIVATE_H

#include <limits.h>
#include <signal.h>
#include <sys/types.h>

#include "pgbuild/cluster/cluster.h"
#include "wrapper/common/run-command.h"
#include "wrapper/common/strbuf.h"

#define CLUSTER_MAX 16          /* clusters alive at once in one process */

/* What the signal handler and the atexit handler need, in plain memory. */
struct cluster_slot {
	volatile sig_atomic_t used;     /* slot holds a live cluster */
	volatile pid_t pid;             /* postmaster, or 0 */
	volatile sig_atomic_t keep;     /* stop cleanly and keep the directory */
	char dir[PATH_MAX];             /* the private directory (for messages) */
	int parentfd;                   /* its parent's descriptor */
	char name[NAME_MAX + 1];        /* its name there */
};

extern struct cluster_slot cluster_slots[CLUSTER_MAX];

/* initdb / cp running now, or 0 */
extern volatile pid_t cluster_helper_pid;

/* error() that also remembers the message for cluster_last_error(). */
int cluster_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Send sig to pid and wait for it; SIGKILL after about timeout_ms.
 * Async-signal-safe. */
void cluster_kill_and_wait(pid_t pid, int sig, int timeout_ms);

/* Record c in a free slot of the registry (c->slot); -1 with an error when
 * CLUSTER_MAX are alive. */
int cluster_register_slot(struct cluster *c);

/* Run a helper command (initdb, cp) as the server user; output in out.
 * While it runs, the cleanup handlers know its pid (cluster_helper_pid). */
int cluster_run_helper(struct cluster *c, struct child_process *cp, struct strbuf *out);

/* Print the last lines of text as indented detail lines. */
void cluster_print_tail(const char *what, const char *text, int lines);

#endif
