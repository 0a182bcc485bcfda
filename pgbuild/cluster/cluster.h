/*
 * cluster.h - a private, throw-away PostgreSQL cluster for pgbuild bench,
 * gate, regress and profile.
 *
 * The cluster lives in one private directory (mode 0700) that holds
 * everything it needs and nothing else:
 *
 *     DIR/data/           the data directory (initdb, or a copy of a template)
 *     DIR/server.log      the server's stderr (scanned by cluster_check_log)
 *     DIR/.s.PGSQL.PORT   the only socket: listen_addresses='' (no TCP)
 *
 * Typical use:
 *
 *     struct cluster c;
 *     struct cluster_options o = CLUSTER_OPTIONS_INIT;
 *     o.prefix = "/usr/lib/postgresql/15";
 *     strvec_push(&o.settings, "fsync=off");
 *     if (cluster_create(&c, &o) < 0 || cluster_start(&c) < 0)
 *             ... error already printed; cluster_destroy(&c) ...
 *     PGconn *conn = PQconnectdb(cluster_conninfo(&c, "postgres"));
 *     ...
 *     cluster_check_log(&c, &problems);   // PANIC, crashes, TRAP
 *     cluster_destroy(&c);                 // stop + remove unless keep
 *
 * Root: initdb and postgres refuse to run as root.  When the caller is root,
 * the server side (initdb, postgres, the template copies) runs as the user
 * named by $PGBUILD_SERVER_USER (default "postgres", the user Debian's
 * postgresql package creates), and DIR is given to it.  The parent
 * directory of DIR ($TMPDIR or /tmp, or options.parent) must be searchable
 * by that user: cluster_create checks that first, as that user, and names
 * the directory it cannot enter.
 *
 * The privilege boundary: DIR belongs to the server user, and everything
 * that runs there (the server, any SQL a superuser sends it: COPY ... TO
 * PROGRAM) can replace what is in it by links.  So pgbuild, as root, only
 * works on DIR through descriptors it opened before handing DIR over: DIR
 * is made below a descriptor of its parent (sfs_mkdir), server.log is
 * created in DIR before that (sfs_create: O_EXCL | O_NOFOLLOW) and read
 * back through the descriptor kept open (never opened again by path), the
 * postmaster.pid of a copied template is removed below DIR's descriptor,
 * and DIR is removed below its parent's descriptor (remove_tree_at: no
 * link followed).  Data directories are copied (templates, in both
 * directions) by the server user, never by root.
 *
 * Every exit path removes DIR: cluster_destroy() on normal paths; an atexit
 * handler for die()/exit(); and SIGINT/SIGTERM/SIGHUP/SIGQUIT/SIGPIPE
 * handlers (installed by the first cluster_create, or earlier by
 * cluster_install_handlers) that immediately shut the server
 * down (SIGQUIT to the postmaster, which waits for its children), remove DIR
 * with async-signal-safe calls, and re-raise the signal, so the caller dies
 * of it as usual (exit status 128+N).  With keep set, the server is stopped
 * cleanly (fast shutdown) instead and DIR is kept; its path is printed on
 * stderr.  The signal handler runs in whichever thread takes the signal;
 * callers that create threads should block these signals in them
 * (cluster_block_signals()) so only the main thread runs it.
 *
 * The server runs with PGHOST, PGPORT and PGUSER naming the cluster itself,
 * so connections it makes through libpq with the defaults (dblink,
 * postgres_fdw in PostgreSQL's regression suites) reach it.
 *
 * Settings (options.settings, "name=value") are passed as -c options when
 * the server starts, never written to postgresql.conf, so a data directory
 * can be saved as a template and reused with other settings.
 *
 * Templates (cheap repeated runs): after loading data into a fresh cluster,
 * cluster_save_template() stops the server and copies the data directory to
 * a template directory; later clusters created with options.template set to
 * that directory start from a copy of it instead of running initdb (a copy
 * of a pgbench scale-10 data directory takes well under a second).  The
 * template must come from the same PostgreSQL major version.
 * cluster_template_lock() serialises concurrent creators of one template.
 * pgbuild bench's --datadir-template DIR builds on this: DIR/<key>/ holds
 * one data directory per data set, scale and server version.
 */
#ifndef PGBUILD_CLUSTER_H
#define PGBUILD_CLUSTER_H

#include <signal.h>
#include <sys/types.h>

#include "pgbuild/cluster/serveruser.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"

/* What to create. */
struct cluster_options {
	const char *prefix;     /* installed PostgreSQL: PREFIX/bin/initdb, postgres */
	struct strvec env;      /* "NAME=value" for initdb and the server (GCOV_PREFIX) */
	const char *parent;     /* make DIR under this; NULL: $TMPDIR or /tmp */
	const char *template_dir; /* copy this data directory instead of initdb */
	struct strvec settings; /* "name=value" server settings (-c at start) */
	int start_timeout;      /* seconds to wait for start/stop; 0: 60 */
	unsigned keep : 1;      /* keep DIR at the end and say where */
	unsigned quiet : 1;     /* do not print the "kept in" message */
};

#define CLUSTER_OPTIONS_INIT { NULL, STRVEC_INIT, NULL, NULL, STRVEC_INIT, 0, 0, 0 }

/* A created cluster; fields are read-only for callers. */
struct cluster {
	char *prefix;         /* the install prefix */
	char *bindir;         /* PREFIX/bin */
	char *dir;            /* the private directory (socket directory too) */
	char *datadir;        /* DIR/data */
	char *logfile;        /* DIR/server.log */
	char *superuser;      /* role to connect as ("postgres") */
	int port;             /* port number (only names the socket file) */
	struct strvec settings; /* copy of options.settings */
	struct strvec env;    /* copy of options.env */
	int parentfd;         /* DIR's parent, opened before DIR was made */
	int dirfd;            /* DIR, opened when it was made (before handing over) */
	int logfd;            /* server.log, created before DIR was handed over */
	char *name;           /* DIR's name in its parent */
	int start_timeout;    /* seconds */
	struct cluster_user user; /* who runs the server side (serveruser.h) */
	unsigned keep : 1;
	unsigned quiet : 1;
	pid_t pid;            /* postmaster pid while running, else 0 */
	long log_checked;     /* bytes of server.log already scanned */
	int slot;             /* index in the signal-cleanup registry */
};

/*
 * Make DIR (0700, owned by the server user), then initdb into DIR/data
 * (trust authentication, UTF8, C locale, --no-sync) or copy
 * options->template_dir there.  On error prints a message, removes what it
 * made and returns -1.
 */
int cluster_create(struct cluster *c, const struct cluster_options *o);

/* Start the postmaster and wait until it accepts connections. */
int cluster_start(struct cluster *c);

/* Fast shutdown; waits for the postmaster to exit.  No-op when stopped. */
int cluster_stop(struct cluster *c);

/* Stop (immediately unless keep) and remove DIR unless keep.  Idempotent. */
void cluster_destroy(struct cluster *c);

/*
 * libpq connection string for database dbname (NULL: "postgres"), e.g.
 * "host=/tmp/pgbuild-x port=54329 user=postgres dbname=postgres".
 * Returns a pointer to a static buffer per call site's thread (copy it).
 */
const char *cluster_conninfo(const struct cluster *c, const char *dbname);

/*
 * The server log (read through the descriptor kept since it was created:
 * whatever the server user put at DIR/server.log since) appended to out;
 * when it is longer than limit, its last limit bytes.  Returns the bytes
 * appended, or -1.
 */
long cluster_read_log(struct cluster *c, struct strbuf *out, size_t limit);

/*
 * Scan the part of server.log written since the last call for PANIC,
 * "terminated by signal", "exited with exit code", "TRAP:" (failed
 * assertions) and "was terminated by exception".  Appends one line per
 * problem to problems (may be NULL) and returns the number found.
 */
int cluster_check_log(struct cluster *c, struct strbuf *problems);

/* Scan a log text; exposed for unit tests. */
int cluster_scan_log_text(const char *text, struct strbuf *problems);

/*
 * Does the server log line line[0..len) say that a process crashed (killed
 * by a signal, a PANIC, a failed assertion, an exception)?  Stricter than
 * cluster_check_log, whose "exited with exit code" also takes the workers
 * PostgreSQL's regression suites make fail on purpose.
 */
int cluster_log_line_is_crash(const char *line, size_t len);

/*
 * Append to out the lines of text (a log, or cluster_check_log's
 * problems) that say a process crashed, each ended by a newline: the
 * suites make parallel and logical replication workers exit with code 1
 * on purpose; a crash is a signal, a PANIC or a failed assertion.
 */
void cluster_log_crashes(const char *text, struct strbuf *out);

/*
 * Stop the server (fast shutdown, so the data is consistent) and copy the
 * data directory to dest (which must not exist; made via dest.tmp and a
 * rename, so readers never see a half copy).  dest.tmp is made by us below
 * a descriptor of dest's parent (which the caller trusts) and given to the
 * server user, who copies into it; the rename is within that descriptor.
 * The server is started again afterwards when restart is set.
 */
int cluster_save_template(struct cluster *c, const char *dest, int restart);

/*
 * Take an exclusive lock on DIR/.lock (mkdir -p DIR first; .lock opened
 * O_NOFOLLOW below DIR's descriptor, a regular file); returns the fd to
 * close() to release it, or -1 after printing an error.
 */
int cluster_template_lock(const char *dir);

/* Block (how=SIG_BLOCK) or unblock the signals the cleanup handler takes. */
void cluster_block_signals(int how);

/* The signal number that interrupted us, or 0 (set by the handler). */
extern volatile sig_atomic_t cluster_interrupted;

/* Install the cleanup signal handlers and the atexit handler now (the first
 * cluster_create does it otherwise).  Idempotent. */
void cluster_install_handlers(void);

/*
 * A function the signal handler calls after every cluster was stopped and
 * removed (or kept), just before the process dies of sig; what says what
 * was done ("server stopped, DIR removed", "cluster kept in DIR", "could
 * not remove DIR"; "" when there was no cluster).  It runs in a signal
 * handler: async-signal-safe calls only.  When one is set, the handler
 * itself prints nothing but warnings (the hook says what happened, once).
 */
typedef void (*cluster_interrupt_fn)(int sig, const char *what);
void cluster_on_interrupt(cluster_interrupt_fn fn);

/* In a forked child that runs an engine of ours (run-command's fn): the
 * clusters, handlers and interrupt hook it inherited are its parent's, and
 * its exit or a signal must not stop or remove them: forgotten here (never
 * cleaned), so the child's own clusters get handlers of their own. */
void cluster_forget_inherited(void);

/* An engine of ours as a function child of this process: cp (its args.v[0]
 * the engine's name in messages) will run fn(data) in the fork, once the
 * clusters it inherited are forgotten (above).  call holds fn and data and
 * must outlive the start of cp.  The one way an engine calls another in a
 * process of its own (stage_run_fn, regress_run_child). */
struct child_process;
struct cluster_engine_call {
	int (*fn)(void *);
	void *data;
};
void cluster_engine_child(struct child_process *cp, struct cluster_engine_call *call);

/* The last error message this module printed (without the prefix); "" if
 * none.  For callers that record why they failed (bench's --json). */
const char *cluster_last_error(void);

/* "PREFIX/bin/postgres --version" first line, e.g. "postgres (PostgreSQL) 15.20";
 * malloced, or NULL with an error printed. */
char *cluster_server_version(const char *prefix);

#endif
