/*
 * cluster/cluster.c - a private throw-away PostgreSQL cluster's life
 * cycle (create, start, stop, destroy); see cluster.h.
 *
 * The postmaster is started directly (not through pg_ctl) as our own child
 * in its own process group, so we always know its pid, can wait for it, and
 * a terminal's ^C reaches us, not it: we decide how it stops.
 *
 * Cleanup must also work from a signal handler: every cluster is also
 * recorded in the registry of cleanup.c.
 *
 * Root's side of the boundary (cluster.h): DIR is made, its log created
 * and DIR removed only through descriptors; nothing in DIR is opened by
 * path as root once DIR belongs to the server user.
 */
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "wrapper/common/clock.h"
#include "wrapper/common/copytree.h"
#include "wrapper/common/dir.h"
#include "pgbuild/cluster/cluster.h"
#include "pgbuild/cluster/private.h"
#include "wrapper/common/error.h"
#include "wrapper/common/path.h"
#include "wrapper/common/rmtree.h"
#include "wrapper/common/run-command.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/xalloc.h"

#define CLUSTER_PORT 54329      /* names the socket file only: no TCP */

/* ---------------- helpers ---------------- */

int cluster_run_helper(struct cluster *c, struct child_process *cp, struct strbuf *out)
{
	int r;

	cluster_user_apply(&c->user, cp);
	strvec_pushv(&cp->env, (const char *const *)c->env.v);
	cp->no_stdin = 1;
	cp->pid_watch = &cluster_helper_pid;
	r = capture_command(cp, out, 1);
	if (cp->exec_errno)
		return cluster_error("cannot run %s: %s", cp->args.v[0], strerror(cp->exec_errno));
	return r;
}

void cluster_print_tail(const char *what, const char *text, int lines)
{
	const char *p = text + strlen(text);
	int seen = 0;
	while (p > text && seen <= lines) {
		p--;
		if (*p == '\n' && p[1])
			seen++;
	}
	if (*p == '\n')
		p++;
	if (*p) {
		fprintf(stderr, "%s: %s:\n", error_program(), what);
		for (const char *q = p; *q;) {
			const char *e = strchr(q, '\n');
			int len = e ? (int)(e - q) : (int)strlen(q);
			fprintf(stderr, "    %.*s\n", len, q);
			q += len + (e ? 1 : 0);
		}
	}
}

static void print_log_tail(struct cluster *c)
{
	struct strbuf sb = STRBUF_INIT;
	if (cluster_read_log(c, &sb, 65536) > 0)
		cluster_print_tail("end of the server log", sb.buf, 15);
	strbuf_release(&sb);
}

/* Close a descriptor field and mark it closed. */
static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void free_fields(struct cluster *c)
{
	free(c->prefix);
	free(c->bindir);
	free(c->dir);
	free(c->datadir);
	free(c->logfile);
	free(c->superuser);
	free(c->name);
	strvec_clear(&c->settings);
	strvec_clear(&c->env);
	cluster_user_release(&c->user);
	close_fd(&c->logfd);
	close_fd(&c->dirfd);
	close_fd(&c->parentfd);
	memset(c, 0, sizeof(*c));
	c->slot = -1;
	c->parentfd = c->dirfd = c->logfd = -1;
}

char *cluster_server_version(const char *prefix)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct cluster_user u = CLUSTER_USER_INIT;
	struct strbuf out = STRBUF_INIT;
	char *nl;
	int r;

	/* the tested install's postgres runs as the server user, never as root */
	if (cluster_user_get(&u, NULL, NULL, &out) < 0) {
		cluster_error("%s", out.buf);
		strbuf_release(&out);
		return NULL;
	}
	strvec_pushf(&cp.args, "%s/bin/postgres", prefix);
	strvec_push(&cp.args, "--version");
	cluster_user_apply(&u, &cp);
	cp.no_stdin = 1;
	r = capture_command(&cp, &out, 1);
	cluster_user_release(&u);
	if (r != 0) {
		if (cp.exec_errno)
			cluster_error("cannot run %s: %s", cp.args.v[0], strerror(cp.exec_errno));
		else
			cluster_error("%s --version failed (exit %d)", cp.args.v[0], r);
		child_process_clear(&cp);
		strbuf_release(&out);
		return NULL;
	}
	child_process_clear(&cp);
	nl = strchr(out.buf, '\n');
	if (nl)
		*nl = '\0';
	return strbuf_detach(&out, NULL);
}

/* ---------------- life cycle ---------------- */

/*
 * Root only: can the server user reach (search) every directory from / down
 * to parent, where DIR will be made?  Without this, a 0700 TMPDIR surfaces
 * as "cannot run initdb: Permission denied".  0, or -1 with one clear error
 * naming the directory, where it came from (src) and what is needed.
 */
static int check_server_access(struct cluster *c, const char *parent, const char *src)
{
	char *blocked = NULL;
	struct strbuf why = STRBUF_INIT;
	int r = cluster_user_reach(&c->user, parent, &blocked);

	if (r < 0)
		return cluster_error("cannot check that the server user %s can reach %s",
				c->user.name, parent);
	if (r > 0)
		return 0;
	cluster_user_explain_blocked(&c->user, blocked, &why);
	cluster_error("%s%s: %s or set TMPDIR to a directory %s can reach",
		 !strcmp(src, "TMPDIR") ? "TMPDIR=" : "", parent, why.buf, c->user.name);
	strbuf_release(&why);
	free(blocked);
	return -1;
}

/* The fields that come from the options, and the install's programs. */
static int init_cluster(struct cluster *c, const struct cluster_options *o)
{
	char *p;
	int missing;

	memset(c, 0, sizeof(*c));
	c->slot = -1;
	c->parentfd = c->dirfd = c->logfd = -1;
	strvec_init(&c->settings);
	strvec_init(&c->env);
	strvec_pushv(&c->env, (const char *const *)o->env.v);
	if (!o->prefix)
		BUG("cluster_create without prefix");
	/* absolute: initdb and the server run in the cluster's directory */
	c->prefix = path_absolute(o->prefix);
	c->bindir = xasprintf("%s/bin", c->prefix);
	c->superuser = xstrdup("postgres");
	c->port = CLUSTER_PORT;
	c->keep = o->keep;
	c->quiet = o->quiet;
	c->start_timeout = o->start_timeout > 0 ? o->start_timeout : 60;
	strvec_pushv(&c->settings, (const char *const *)o->settings.v);
	p = xasprintf("%s/postgres", c->bindir);
	missing = access(p, X_OK) != 0;
	free(p);
	if (missing)
		return cluster_error("\"%s\" is not an installed PostgreSQL: %s/postgres not found",
				o->prefix, c->bindir);
	if (!o->template_dir) {
		p = xasprintf("%s/initdb", c->bindir);
		missing = access(p, X_OK) != 0;
		free(p);
		if (missing)
			return cluster_error("%s/initdb not found", c->bindir);
	}
	{
		struct strbuf err = STRBUF_INIT;
		int r = cluster_user_get(&c->user, NULL, NULL, &err);
		if (r < 0)
			cluster_error("%s", err.buf);
		strbuf_release(&err);
		return r;
	}
}

/*
 * The private directory (0700, the server user's), registered for the
 * cleanup handlers: made below a descriptor of its parent (which the
 * caller trusts: it named it, or TMPDIR), with server.log created in it,
 * and only then handed over, through its own descriptor.
 */
static int make_dir(struct cluster *c, const struct cluster_options *o)
{
	const char *parent = o->parent, *parent_src = "parent";
	struct strbuf err = STRBUF_INIT;
	char name[32];

	if (!parent || !*parent) {
		parent = getenv("TMPDIR");
		parent_src = "TMPDIR";
	}
	if (!parent || !*parent) {
		parent = "/tmp";
		parent_src = "default";
	}
	if (c->user.switch_user && check_server_access(c, parent, parent_src) < 0)
		return -1;
	c->parentfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->parentfd < 0)
		return cluster_error("cannot create a directory in %s: %s", parent, strerror(errno));
	for (int tries = 0; c->dirfd < 0 && tries < 100; tries++) {
		static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
		unsigned char r[6];
		if (getrandom(r, sizeof(r), 0) != sizeof(r))
			for (size_t i = 0; i < sizeof(r); i++)
				r[i] = (unsigned char)(rand() ^ getpid() ^ (tries << 3));
		memcpy(name, "pgbuild-", 8);
		for (size_t i = 0; i < sizeof(r); i++)
			name[8 + i] = letters[r[i] % (sizeof(letters) - 1)];
		name[8 + sizeof(r)] = '\0';
		strbuf_reset(&err);
		c->dirfd = sfs_mkdir(c->parentfd, name, 0700, (uid_t)-1, (gid_t)-1, 0, &err);
		if (c->dirfd < 0 && errno != EEXIST)
			break;
	}
	if (c->dirfd < 0) {
		cluster_error("cannot create a directory in %s: %s", parent, strerror(errno));
		strbuf_release(&err);
		return -1;
	}
	c->name = xstrdup(name);
	c->dir = xasprintf("%s/%s", parent, name);
	c->datadir = xasprintf("%s/data", c->dir);
	c->logfile = xasprintf("%s/server.log", c->dir);
	/* the socket path must fit in sun_path (108 bytes) */
	if (strlen(c->dir) + strlen("/.s.PGSQL.54329") >= 108) {
		cluster_error("directory path \"%s\" is too long for a unix socket; use a shorter TMPDIR",
			 c->dir);
		goto failed;
	}
	/* server.log is ours and exists before the server user may write in
	 * DIR: the server gets its descriptor, we read through it */
	strbuf_reset(&err);
	c->logfd = sfs_create(c->dirfd, "server.log", O_RDWR | O_APPEND, 0600, &err);
	if (c->logfd < 0) {
		cluster_error("cannot set up %s: %s", c->dir, err.buf);
		goto failed;
	}
	if (c->user.switch_user && fchown(c->dirfd, c->user.uid, c->user.gid) < 0) {
		cluster_error("cannot set up %s: %s", c->dir, strerror(errno));
		goto failed;
	}
	strbuf_release(&err);
	cluster_install_handlers();
	if (cluster_register_slot(c) < 0) {
		remove_tree_at(c->parentfd, c->name);
		return -1;
	}
	return 0;
failed:
	strbuf_release(&err);
	remove_tree_at(c->parentfd, name);
	return -1;
}

/*
 * The data directory from a template, copied by the server user (root
 * never reads the template, which the server user owns and could fill
 * with links), then its stale postmaster.pid removed below DIR's
 * descriptor.
 */
static int copy_template(struct cluster *c, const char *template_dir)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct child_process cp = CHILD_PROCESS_INIT;
	struct stat st;
	int r = -1;

	if (stat(template_dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		cluster_error("template \"%s\": %s", template_dir, errno ? strerror(errno) : "not a directory");
		goto out;
	}
	copytree_args(&cp.args, template_dir, c->datadir, COPYTREE_AS);
	cp.dir = c->dir;
	r = cluster_run_helper(c, &cp, &out);
	if (r != 0) {
		cluster_error("cannot copy template %s to %s as %s (exit %d)%s", template_dir, c->datadir,
			 c->user.name, r, c->user.switch_user ?
			 " (the server user must be able to read the template)" : "");
		cluster_print_tail("cp said", out.buf, 10);
		r = -1;
		goto out;
	}
	if (sfs_remove(c->dirfd, "data/postmaster.pid", &err) < 0) {
		cluster_error("cannot set up %s: %s", c->datadir, err.buf);
		r = -1;
	}
out:
	child_process_clear(&cp);
	strbuf_release(&out);
	strbuf_release(&err);
	return r;
}

/* The data directory from initdb, as the server user. */
static int run_initdb(struct cluster *c)
{
	struct strbuf out = STRBUF_INIT;
	struct child_process cp = CHILD_PROCESS_INIT;
	int r;

	strvec_pushf(&cp.args, "%s/initdb", c->bindir);
	strvec_pushl(&cp.args, "-D", c->datadir, "-U", c->superuser, "-A", "trust",
		     "-E", "UTF8", "--locale=C", "-N", NULL);
	cp.dir = c->dir;        /* a directory the server user can read */
	r = cluster_run_helper(c, &cp, &out);
	/* an exec failure is already reported */
	if (r != 0 && !cluster_interrupted && !cp.exec_errno) {
		cluster_error("initdb failed (exit %d) in %s", r, c->datadir);
		cluster_print_tail("initdb said", out.buf, 15);
	}
	child_process_clear(&cp);
	strbuf_release(&out);
	return r == 0 ? 0 : -1;
}

int cluster_create(struct cluster *c, const struct cluster_options *o)
{
	if (init_cluster(c, o) < 0 || make_dir(c, o) < 0) {
		free_fields(c);
		return -1;
	}
	if ((o->template_dir ? copy_template(c, o->template_dir) : run_initdb(c)) < 0) {
		cluster_destroy(c);
		return -1;
	}
	verbose("cluster: created %s", c->dir);
	return 0;
}

const char *cluster_conninfo(const struct cluster *c, const char *dbname)
{
	static __thread char buf[PATH_MAX + 128];
	snprintf(buf, sizeof(buf), "host=%s port=%d user=%s dbname=%s", c->dir, c->port,
		 c->superuser, dbname ? dbname : "postgres");
	return buf;
}

int cluster_start(struct cluster *c)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	int logfd, status;
	double deadline;
	char *conninfo;

	if (c->pid)
		return 0;
	/* the log made with DIR (make_dir), never opened again by path */
	logfd = c->logfd;
	strvec_pushf(&cp.args, "%s/postgres", c->bindir);
	strvec_pushl(&cp.args, "-D", c->datadir, "-c", "listen_addresses=", NULL);
	strvec_push(&cp.args, "-c");
	strvec_pushf(&cp.args, "unix_socket_directories=%s", c->dir);
	strvec_push(&cp.args, "-c");
	strvec_pushf(&cp.args, "port=%d", c->port);
	for (size_t i = 0; i < c->settings.nr; i++) {
		strvec_push(&cp.args, "-c");
		strvec_push(&cp.args, c->settings.v[i]);
	}
	/* the server's own libpq connections (dblink, postgres_fdw) reach
	 * this cluster by default, as under pg_regress's temporary server */
	strvec_pushf(&cp.env, "PGHOST=%s", c->dir);
	strvec_pushf(&cp.env, "PGPORT=%d", c->port);
	strvec_pushf(&cp.env, "PGUSER=%s", c->superuser);
	strvec_pushv(&cp.env, (const char *const *)c->env.v);
	cp.no_stdin = 1;
	cp.out = cp.err = logfd;
	cp.new_pgroup = 1;
	cp.dir = c->dir;
	cluster_user_apply(&c->user, &cp);
	/* block the cleanup signals so the pid is registered before one runs */
	cluster_block_signals(SIG_BLOCK);
	if (start_command(&cp) < 0) {
		cluster_block_signals(SIG_UNBLOCK);
		child_process_clear(&cp);
		return -1;
	}
	c->pid = cp.pid;
	if (c->slot >= 0)
		cluster_slots[c->slot].pid = cp.pid;
	cluster_block_signals(SIG_UNBLOCK);
	if (cp.exec_errno) {
		cluster_error("cannot run %s: %s", cp.args.v[0], strerror(cp.exec_errno));
		waitpid(c->pid, &status, 0);
		c->pid = 0;
		if (c->slot >= 0)
			cluster_slots[c->slot].pid = 0;
		child_process_clear(&cp);
		return -1;
	}
	child_process_clear(&cp);

	conninfo = xstrdup(cluster_conninfo(c, "postgres"));
	deadline = clock_ms() + c->start_timeout * 1000.0;
	for (;;) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };
		pid_t r = waitpid(c->pid, &status, WNOHANG);
		if (r == c->pid) {
			c->pid = 0;
			if (c->slot >= 0)
				cluster_slots[c->slot].pid = 0;
			cluster_error("the server in %s exited during start-up (%s %d)", c->datadir,
			      WIFSIGNALED(status) ? "signal" : "exit code",
			      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
			print_log_tail(c);
			free(conninfo);
			return -1;
		}
		if (PQping(conninfo) == PQPING_OK)
			break;
		if (clock_ms() > deadline) {
			cluster_error("the server in %s did not accept connections within %d s",
			      c->datadir, c->start_timeout);
			print_log_tail(c);
			free(conninfo);
			cluster_stop(c);
			return -1;
		}
		nanosleep(&ts, NULL);
	}
	free(conninfo);
	verbose("cluster: server running, pid %d, socket in %s", (int)c->pid, c->dir);
	return 0;
}

int cluster_stop(struct cluster *c)
{
	int status;
	double deadline;
	int sig = SIGINT;

	if (!c->pid)
		return 0;
	kill(c->pid, SIGINT);           /* fast shutdown */
	deadline = clock_ms() + c->start_timeout * 1000.0;
	for (;;) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		pid_t r = waitpid(c->pid, &status, WNOHANG);
		if (r == c->pid || (r < 0 && errno == ECHILD))
			break;
		if (clock_ms() > deadline) {
			sig = sig == SIGINT ? SIGQUIT : SIGKILL;
			warning("the server in %s did not stop; sending %s", c->datadir,
				sig == SIGQUIT ? "SIGQUIT" : "SIGKILL");
			kill(c->pid, sig);
			deadline = clock_ms() + 10000;
		}
		nanosleep(&ts, NULL);
	}
	c->pid = 0;
	if (c->slot >= 0)
		cluster_slots[c->slot].pid = 0;
	return 0;
}

void cluster_destroy(struct cluster *c)
{
	if (!c->dir) {
		free_fields(c);
		return;
	}
	if (c->pid) {
		if (c->keep) {
			cluster_stop(c);
		} else {
			cluster_kill_and_wait(c->pid, SIGQUIT, 30000);
			c->pid = 0;
			if (c->slot >= 0)
				cluster_slots[c->slot].pid = 0;
		}
	}
	if (c->keep) {
		if (!c->quiet)
			fprintf(stderr, "%s: cluster kept in %s (data %s, log %s)\n",
				error_program(), c->dir, c->datadir, c->logfile);
	} else if (remove_tree_at(c->parentfd, c->name) < 0) {
		warning("could not remove %s: %s", c->dir, strerror(errno));
	}
	if (c->slot >= 0)
		cluster_slots[c->slot].used = 0;
	free_fields(c);
}
