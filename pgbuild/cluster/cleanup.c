/*
 * cluster/cleanup.c - every live cluster stopped and removed on every exit:
 * the registry of plain fields the signal and atexit handlers read, the
 * handlers, and the last error; see cluster.h.
 *
 * Cleanup must also work from a signal handler, so every cluster is also
 * recorded in a small static registry of plain fields (pid, directory
 * path, its parent's descriptor and its name, keep flag), and the
 * directory removal (remove_tree_at, rmtree.h) uses only async-signal-safe
 * system calls: openat, getdents64, unlinkat, close.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pgbuild/cluster/cluster.h"
#include "pgbuild/cluster/private.h"
#include "wrapper/common/error.h"
#include "wrapper/common/rmtree.h"
#include "wrapper/common/run-command.h"

volatile sig_atomic_t cluster_interrupted;

struct cluster_slot cluster_slots[CLUSTER_MAX];
volatile pid_t cluster_helper_pid;
static int handlers_installed, atexit_registered;

/* SIGPIPE too: `pgbuild bench -P 1 | head -1` must not leave a server behind */
static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
static cluster_interrupt_fn interrupt_hook;     /* or NULL */
static char last_error[512];                    /* cluster_last_error() */

int cluster_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return error("%s", last_error);
}

const char *cluster_last_error(void)
{
	return last_error;
}

/* ---------------- async-signal-safe helpers ---------------- */

static void safe_write(const char *s)
{
	ssize_t n = write(2, s, strlen(s));
	(void)n;
}

void cluster_kill_and_wait(pid_t pid, int sig, int timeout_ms)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int status;
	kill(pid, sig);
	/* a stopped server (SIGSTOP, a debugger) would never act on sig: wake
	 * it (its process group, cluster_start's new_pgroup); the postmaster
	 * SIGKILLs children that stay stopped (each in its own session) after
	 * 5 s of an immediate shutdown */
	kill(-pid, SIGCONT);
	for (int waited = 0;; waited += 10) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid || (r < 0 && errno == ECHILD))
			return;
		if (waited >= timeout_ms) {
			kill(pid, SIGKILL);
			waited = INT_MIN / 2;   /* then wait without limit */
		}
		nanosleep(&ts, NULL);
	}
}

/* What the last cleanup_all did, for the interrupt hook: "server stopped,
 * DIR removed", "cluster kept in DIR" ...; "" if there was nothing. */
static char cleanup_note[2 * PATH_MAX + 128];

/* Append to cleanup_note; async-signal-safe. */
static void note_add(const char *s)
{
	size_t n = strlen(cleanup_note), k = strlen(s);
	if (n + k >= sizeof(cleanup_note))
		k = sizeof(cleanup_note) - 1 - n;
	memcpy(cleanup_note + n, s, k);
	cleanup_note[n + k] = '\0';
}

/* Stop and remove every registered cluster; signal- and atexit-safe. */
static void cleanup_all(int from_signal)
{
	pid_t h = cluster_helper_pid;
	cleanup_note[0] = '\0';
	if (h > 0) {
		cluster_kill_and_wait(h, SIGTERM, 10000);
		cluster_helper_pid = 0;
	}
	for (int i = 0; i < CLUSTER_MAX; i++) {
		struct cluster_slot *s = &cluster_slots[i];
		if (!s->used)
			continue;
		if (cleanup_note[0])
			note_add("; ");
		if (s->pid > 0) {
			/* immediate shutdown: the postmaster waits for its children */
			cluster_kill_and_wait(s->pid, s->keep ? SIGINT : SIGQUIT, 30000);
			s->pid = 0;
			note_add("server stopped, ");
		}
		if (s->keep) {
			note_add("cluster kept in ");
			note_add(s->dir);
			if (from_signal && !interrupt_hook) {
				safe_write(error_program());
				safe_write(": cluster kept in ");
				safe_write(s->dir);
				safe_write("\n");
			}
		} else if (remove_tree_at(s->parentfd, s->name) < 0) {
			note_add("could not remove ");
			note_add(s->dir);
			safe_write(error_program());
			safe_write(": warning: could not remove ");
			safe_write(s->dir);
			safe_write("\n");
		} else {
			note_add(s->dir);
			note_add(" removed");
		}
		s->used = 0;
	}
}

static void cleanup_handler(int sig)
{
	sigset_t set;
	cluster_interrupted = sig;
	cleanup_all(1);
	if (interrupt_hook)
		interrupt_hook(sig, cleanup_note);
	/* die of the signal as if we had not caught it */
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	_exit(128 + sig);
}

static void cleanup_atexit(void)
{
	cleanup_all(0);
}

void cluster_block_signals(int how)
{
	sigset_t set;
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(cleanup_signals) / sizeof(*cleanup_signals); i++)
		sigaddset(&set, cleanup_signals[i]);
	pthread_sigmask(how, &set, NULL);
}

void cluster_on_interrupt(cluster_interrupt_fn fn)
{
	interrupt_hook = fn;
}

void cluster_forget_inherited(void)
{
	for (int i = 0; i < CLUSTER_MAX; i++)
		cluster_slots[i].used = 0;
	cluster_helper_pid = 0;
	interrupt_hook = NULL;
	cluster_interrupted = 0;
	handlers_installed = 0;  /* the atexit handler stays: it cleans our slots */
	last_error[0] = '\0';   /* the parent's, not this process's */
}

static int engine_child(void *data)
{
	const struct cluster_engine_call *c = data;
	cluster_forget_inherited();
	return c->fn(c->data);
}

void cluster_engine_child(struct child_process *cp, struct cluster_engine_call *call)
{
	cp->fn = engine_child;
	cp->fn_data = call;
}

void cluster_install_handlers(void)
{
	struct sigaction sa;
	if (handlers_installed)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cleanup_handler;
	sigfillset(&sa.sa_mask);        /* no nested cleanup */
	for (size_t i = 0; i < sizeof(cleanup_signals) / sizeof(*cleanup_signals); i++)
		sigaction(cleanup_signals[i], &sa, NULL);
	handlers_installed = 1;
	if (!atexit_registered) {
		atexit_registered = 1;
		atexit(cleanup_atexit);
	}
}

/* ---------------- the registry ---------------- */

int cluster_register_slot(struct cluster *c)
{
	for (int i = 0; i < CLUSTER_MAX; i++) {
		if (!cluster_slots[i].used) {
			snprintf(cluster_slots[i].dir, sizeof(cluster_slots[i].dir), "%s", c->dir);
			snprintf(cluster_slots[i].name, sizeof(cluster_slots[i].name), "%s", c->name);
			cluster_slots[i].parentfd = c->parentfd;
			cluster_slots[i].pid = 0;
			cluster_slots[i].keep = c->keep;
			cluster_slots[i].used = 1;
			c->slot = i;
			return 0;
		}
	}
	return cluster_error("too many clusters at once (at most %d)", CLUSTER_MAX);
}
