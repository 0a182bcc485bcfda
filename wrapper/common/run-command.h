/*
 * run-command.h - one child-process helper for pgoptcc and pgbuild (after
 * git's run-command.h).
 *
 * A child is described as data, started, and finished:
 *
 *     struct child_process cp = CHILD_PROCESS_INIT;
 *     strvec_pushl(...);  cp.dir = "/tmp/x";  cp.out = -1;
 *     if (start_command(&cp) < 0) ...;
 *     ... read cp.out ...
 *     int status = finish_command(&cp);
 *
 * Nothing goes through a shell: argv[0] is looked up on PATH like execvp.
 * A child may also be a function of ours (fn): an engine called as a
 * library in a process of its own, its output where in/out/err say.
 *
 * File descriptors: in/out/err = 0 inherit ours; -1 create a pipe and store
 * our end in the field after start_command (caller closes it); > 0 use that
 * fd in the child (the child dups it; the caller keeps ownership).
 * no_stdin/no_stdout/no_stderr redirect to /dev/null.
 *
 * Environment: the child gets ours with env applied ("NAME=value" set,
 * "NAME" unset), or with env_clear, env alone (built before the fork;
 * argv[0] is then looked up on env's PATH).  Descriptors: with close_fds,
 * every descriptor above 2 is closed at exec, after in/out/err are set up
 * (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC), else each open one in
 * /proc/self/fd marked close-on-exec), so the child holds 0-2 and nothing
 * else of ours.  A child that switches users (switch_user) always gets
 * close_fds, and must have env_clear (a BUG otherwise): what it may see of
 * ours is decided by whoever sets the user (pgbuild: cluster_user_apply in
 * serveruser.h, which lists it).
 *
 * Results (finish_command, run_command): the child's exit code; 128+N when
 * killed by signal N (reported like a shell does); 127 when it could not be
 * executed (the errno is in exec_errno); -1 when fork/wait failed.
 */
#ifndef PGOPT_RUN_COMMAND_H
#define PGOPT_RUN_COMMAND_H

#include <sys/types.h>
#include "wrapper/common/strvec.h"
#include "wrapper/common/strbuf.h"

struct child_process {
	struct strvec args;   /* argv; args.v[0] is the program */
	struct strvec env;    /* "NAME=value" to set, "NAME" to unset */
	const char *dir;      /* chdir here in the child, or NULL */
	int in, out, err;     /* see header comment */
	unsigned no_stdin : 1, no_stdout : 1, no_stderr : 1;
	unsigned new_pgroup : 1; /* setpgid(0,0) in the child */
	uid_t uid;            /* when switch_user: run as this uid/gid */
	gid_t gid;
	unsigned switch_user : 1; /* implies close_fds; needs env_clear */
	unsigned env_clear : 1;  /* the child's environment is env alone */
	unsigned close_fds : 1;  /* only 0-2 stay open across the exec */
	pid_t pid;            /* set by start_command */
	int exec_errno;       /* errno of a failed exec, else 0 */
	volatile pid_t *pid_watch; /* or NULL: holds pid from the fork until
				    * finish_command reaped the child (for a
				    * signal handler that must stop it) */
	int (*fn)(void *);    /* or NULL: the child calls fn(fn_data) instead of
			       * exec, and exits with what it returns (0-255;
			       * no atexit handler of ours runs); args.v[0] is
			       * then only its name in messages */
	void *fn_data;
};

#define CHILD_PROCESS_INIT { STRVEC_INIT, STRVEC_INIT, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL }

void child_process_init(struct child_process *cp);
void child_process_clear(struct child_process *cp);
int start_command(struct child_process *cp);
int finish_command(struct child_process *cp);
int run_command(struct child_process *cp);

/*
 * Run cp and capture its stdout (and stderr too when merge_stderr) into out.
 * Returns the exit status as finish_command.
 */
int capture_command(struct child_process *cp, struct strbuf *out, int merge_stderr);
/* capture_command with the forwarding below when forward is set (to the
 * child's process group when cp->new_pgroup). */
int capture_command_forwarding(struct child_process *cp, struct strbuf *out, int merge_stderr,
			       int forward);

/* Convert a wait() status into the shell-style code described above. */
int wait_status_to_code(int status);

/*
 * Forwarding of SIGTERM and SIGHUP to a running child, for commands that
 * run long trees of processes (make, pgbuild stages): a signal sent to this
 * process alone (a CI timeout, kill PID) must not leave the tree running.
 * signal_forward_begin(pid) after start_command; signal_forward_end() once
 * the child has ended: restores the handlers and, when one of the signals
 * came, dies of it (exit status 128+N), like a process without handlers.
 * SIGINT is left alone: a terminal sends it to the whole process group.
 *
 * signal_forward_group_begin(pgid) forwards SIGINT too, to the whole
 * process group of a child started with new_pgroup: a tree whose leaves
 * would otherwise outlive their parent (pg_regress's temporary server).
 * run_command_forwarding() is run_command() with forwarding, to the
 * child's group when cp->new_pgroup, else to the child.
 */
void signal_forward_begin(pid_t pid);
void signal_forward_group_begin(pid_t pgid);
void signal_forward_end(void);
int run_command_forwarding(struct child_process *cp);

/*
 * Relaying, for a process that stands in for its child (pgoptcc for the
 * compiler, whose exit status is pgoptcc's): from signal_relay_install()
 * on, for the rest of the process, SIGINT, SIGTERM, SIGHUP and SIGQUIT go
 * to the child whose pid *watch holds (point cp->pid_watch at the same
 * variable), and are dropped while it holds 0.  Nothing is re-raised: the
 * child dies of the signal, and the caller reports its status.
 */
void signal_relay_install(volatile pid_t *watch);

/* Look prog up on PATH like execvp; returns a malloced path or NULL. */
char *locate_in_path(const char *prog);
/* A regular file we may execute? */
int is_executable(const char *path);

#endif
