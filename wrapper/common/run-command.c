/*
 * run-command.c - start, wait for and capture child processes without a
 * shell; see run-command.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wrapper/common/error.h"
#include "wrapper/common/run-command.h"
#include "wrapper/common/xalloc.h"

extern char **environ;

void child_process_init(struct child_process *cp)
{
	memset(cp, 0, sizeof(*cp));
	strvec_init(&cp->args);
	strvec_init(&cp->env);
}

void child_process_clear(struct child_process *cp)
{
	strvec_clear(&cp->args);
	strvec_clear(&cp->env);
}

int is_executable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *locate_in_path(const char *prog)
{
	const char *path = getenv("PATH");
	struct strbuf sb = STRBUF_INIT;

	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0 ? xstrdup(prog) : NULL;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (1) {
		const char *e = strchr(path, ':');
		size_t n = e ? (size_t)(e - path) : strlen(path);
		strbuf_reset(&sb);
		if (n)
			strbuf_add(&sb, path, n);
		else
			strbuf_addch(&sb, '.');
		strbuf_addf(&sb, "/%s", prog);
		if (is_executable(sb.buf))
			return strbuf_detach(&sb, NULL);
		if (!e)
			break;
		path = e + 1;
	}
	strbuf_release(&sb);
	return NULL;
}

int wait_status_to_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

/* Set up one of the child's standard fds. */
static void child_fd(int want, int nullify, int pipe_end, int target)
{
	if (nullify) {
		int fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, target);
			if (fd != target)
				close(fd);
		}
	} else if (want == -1) {
		dup2(pipe_end, target);
	} else if (want > 0 && want != target) {
		dup2(want, target);
	}
}

/*
 * env_clear's environment: env's "NAME=value" entries, a later one for a
 * name replacing an earlier one, a "NAME" removing it.  Built before the
 * fork, so the child only points environ at it.
 */
static void clear_env(const struct strvec *env, struct strvec *out)
{
	for (size_t i = 0; i < env->nr; i++) {
		const char *e = env->v[i];
		size_t n = strcspn(e, "=");
		for (size_t j = 0; j < out->nr; j++)
			if (!strncmp(out->v[j], e, n) && out->v[j][n] == '=') {
				strvec_remove(out, j);
				break;
			}
		if (e[n] == '=')
			strvec_push(out, e);
	}
}

/*
 * In the child: every descriptor from 3 up closed at exec.  Marked
 * close-on-exec rather than closed, so the pipe that reports a failed exec
 * stays open until the exec.  Without close_range (Linux < 5.11): each
 * descriptor /proc/self/fd lists, else every number below the limit.
 */
static void child_close_fds(void)
{
	DIR *d;
	struct dirent *de;
	struct rlimit rl;

#ifdef CLOSE_RANGE_CLOEXEC
	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return;
#endif
	d = opendir("/proc/self/fd");
	if (d) {
		while ((de = readdir(d))) {
			int fd = atoi(de->d_name);
			if (fd > 2 && fd != dirfd(d))
				fcntl(fd, F_SETFD, FD_CLOEXEC);
		}
		closedir(d);
		return;
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur > 1 << 20)
		rl.rlim_cur = 1 << 20;
	for (int fd = 3; fd < (int)rl.rlim_cur; fd++)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
}

int start_command(struct child_process *cp)
{
	struct strvec envp = STRVEC_INIT;
	sigset_t all, old_mask;
	int pin[2] = { -1, -1 }, pout[2] = { -1, -1 }, perr[2] = { -1, -1 };
	int pexec[2];
	int e;
	ssize_t n;

	if (!cp->args.nr)
		BUG("start_command without argv");
	if (cp->switch_user && !cp->env_clear)
		BUG("start_command: %s switches users with our environment", cp->args.v[0]);
	if (cp->env_clear)
		clear_env(&cp->env, &envp);
	if (cp->in == -1 && pipe(pin) < 0)
		return error("cannot create pipe: %s", strerror(errno));
	if (cp->out == -1 && pipe(pout) < 0)
		return error("cannot create pipe: %s", strerror(errno));
	if (cp->err == -1 && pipe(perr) < 0)
		return error("cannot create pipe: %s", strerror(errno));
	/* close-on-exec pipe that carries a failed exec's errno back */
	if (pipe2(pexec, O_CLOEXEC) < 0)
		return error("cannot create pipe: %s", strerror(errno));

	fflush(NULL);
	/* no handler of ours may run in the child before it resets them (the
	 * cluster cleanup would stop the parent's servers): signals blocked
	 * across the fork, the child unblocks after the reset */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old_mask);
	cp->pid = fork();
	if (cp->pid != 0)
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
	if (cp->pid < 0) {
		e = errno;
		close(pexec[0]);
		close(pexec[1]);
		strvec_clear(&envp);
		return error("cannot fork %s: %s", cp->args.v[0], strerror(e));
	}
	if (cp->pid == 0) {
		struct sigaction sa;
		close(pexec[0]);
		/* restore default signal handling in the child */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		for (int s = 1; s < 32; s++)
			if (s != SIGKILL && s != SIGSTOP)
				sigaction(s, &sa, NULL);
		{
			sigset_t none;
			sigemptyset(&none);
			sigprocmask(SIG_SETMASK, &none, NULL);
		}
		if (cp->new_pgroup)
			setpgid(0, 0);
		child_fd(cp->in, cp->no_stdin, pin[0], 0);
		child_fd(cp->out, cp->no_stdout, pout[1], 1);
		child_fd(cp->err, cp->no_stderr, perr[1], 2);
		if (pin[0] >= 0) { close(pin[0]); close(pin[1]); }
		if (pout[0] >= 0) { close(pout[0]); close(pout[1]); }
		if (perr[0] >= 0) { close(perr[0]); close(perr[1]); }
		if (cp->close_fds || cp->switch_user)
			child_close_fds();
		if (cp->env_clear)
			environ = envp.v;
		for (size_t i = 0; !cp->env_clear && i < cp->env.nr; i++) {
			char *eq = strchr(cp->env.v[i], '=');
			if (eq) {
				*eq = '\0';
				setenv(cp->env.v[i], eq + 1, 1);
				*eq = '=';
			} else
				unsetenv(cp->env.v[i]);
		}
		if (cp->switch_user) {
			if (setgroups(0, NULL) < 0 || setgid(cp->gid) < 0 ||
			    setuid(cp->uid) < 0)
				goto fail;
		}
		if (cp->dir && chdir(cp->dir) < 0)
			goto fail;
		if (cp->fn) {
			close(pexec[1]);  /* started: what exec's close would say */
			e = cp->fn(cp->fn_data);
			fflush(NULL);
			_exit(e & 0xff);
		}
		execvp(cp->args.v[0], cp->args.v);
fail:
		e = errno;
		n = write(pexec[1], &e, sizeof(e));
		(void)n;
		_exit(127);
	}
	close(pexec[1]);
	strvec_clear(&envp);
	if (cp->pid_watch)
		*cp->pid_watch = cp->pid;
	cp->exec_errno = 0;
	do {
		n = read(pexec[0], &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(pexec[0]);
	if (n == (ssize_t)sizeof(e))
		cp->exec_errno = e;
	if (pin[0] >= 0) { close(pin[0]); cp->in = pin[1]; }
	if (pout[0] >= 0) { close(pout[1]); cp->out = pout[0]; }
	if (perr[0] >= 0) { close(perr[1]); cp->err = perr[0]; }
	return 0;
}

int finish_command(struct child_process *cp)
{
	int status;
	pid_t r;
	do {
		r = waitpid(cp->pid, &status, 0);
	} while (r < 0 && errno == EINTR);
	if (cp->pid_watch)
		*cp->pid_watch = 0;
	if (r < 0)
		return error("waitpid for %s failed: %s", cp->args.v[0], strerror(errno));
	return wait_status_to_code(status);
}

int run_command(struct child_process *cp)
{
	if (start_command(cp) < 0)
		return -1;
	return finish_command(cp);
}

/* SIGINT last: forwarded only to a process group of its own */
static const int forward_signals[] = { SIGTERM, SIGHUP, SIGINT };
#define NFORWARD (sizeof(forward_signals) / sizeof(forward_signals[0]))
static struct sigaction forward_old[NFORWARD];
static size_t forward_n;
static volatile pid_t forward_pid;   /* > 0 a process, < 0 a process group */
static volatile sig_atomic_t forward_sig;

static void forward_handler(int sig)
{
	forward_sig = sig;
	if (forward_pid)
		kill(forward_pid, sig);
}

static void forward_begin(pid_t target, size_t n)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward_handler;
	sigemptyset(&sa.sa_mask);
	forward_sig = 0;
	forward_pid = target;
	forward_n = n;
	for (size_t i = 0; i < n; i++)
		sigaction(forward_signals[i], &sa, &forward_old[i]);
}

void signal_forward_begin(pid_t pid)
{
	forward_begin(pid, NFORWARD - 1);
}

void signal_forward_group_begin(pid_t pgid)
{
	forward_begin(-pgid, NFORWARD);
}

void signal_forward_end(void)
{
	int sig = forward_sig;
	forward_pid = 0;
	for (size_t i = 0; i < forward_n; i++)
		sigaction(forward_signals[i], &forward_old[i], NULL);
	if (sig) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
}

/* forward to the child, or to its whole group when it has one of its own */
static void forward_to(const struct child_process *cp)
{
	if (cp->new_pgroup)
		signal_forward_group_begin(cp->pid);
	else
		signal_forward_begin(cp->pid);
}

int run_command_forwarding(struct child_process *cp)
{
	int code;
	if (start_command(cp) < 0)
		return -1;
	forward_to(cp);
	code = finish_command(cp);
	signal_forward_end();
	return code;
}

static const int relay_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static volatile pid_t *relay_watch;

static void relay_handler(int sig)
{
	if (relay_watch && *relay_watch > 0)
		kill(*relay_watch, sig);
}

void signal_relay_install(volatile pid_t *watch)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = relay_handler;
	relay_watch = watch;
	for (size_t i = 0; i < sizeof(relay_signals) / sizeof(relay_signals[0]); i++)
		sigaction(relay_signals[i], &sa, NULL);
}

int capture_command(struct child_process *cp, struct strbuf *out, int merge_stderr)
{
	return capture_command_forwarding(cp, out, merge_stderr, 0);
}

int capture_command_forwarding(struct child_process *cp, struct strbuf *out, int merge_stderr,
			       int forward)
{
	int code;
	int fds[2];

	/* One close-on-exec pipe; the child gets its write end as stdout (and
	 * stderr), so both streams interleave as they would on a terminal. */
	if (pipe2(fds, O_CLOEXEC) < 0)
		return error("cannot create pipe: %s", strerror(errno));
	cp->out = fds[1];
	if (merge_stderr)
		cp->err = fds[1];
	if (start_command(cp) < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	close(fds[1]);
	if (forward)
		forward_to(cp);
	strbuf_read_fd(out, fds[0]);
	close(fds[0]);
	code = finish_command(cp);
	if (forward)
		signal_forward_end();
	return code;
}
