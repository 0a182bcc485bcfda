/*
 * serveruser.h - the user PostgreSQL's server side runs as.
 *
 * initdb, postgres and `make check` refuse to run as root.  When pgbuild
 * runs as root (CI does), everything that starts a server (bench, gate,
 * profile, pgo's training, instr's single-user runs, regress) runs it as an
 * unprivileged user instead: $PGBUILD_SERVER_USER, default postgres (the
 * user Debian's postgresql package creates); `pgbuild regress --user`
 * names another.  That user must be able to reach the directories the
 * server works in and own the trees it writes into; this module says who
 * the user is, makes a child process run as them (with a fixed minimal
 * environment and no descriptor of ours: cluster_user_apply), hands a tree
 * to them and asks the kernel, as them, what they may do.  Not root: the server runs as
 * ourselves and nothing switches.
 *
 *     struct cluster_user u = CLUSTER_USER_INIT;
 *     if (cluster_user_get(&u, NULL, NULL, &err) < 0)
 *             return error("%s", err.buf);
 *     cluster_user_apply(&u, &cp);      // cp runs as u
 *     cluster_user_release(&u);
 */
#ifndef PGBUILD_SERVERUSER_H
#define PGBUILD_SERVERUSER_H

#include <sys/types.h>

#include "wrapper/common/run-command.h"
#include "wrapper/common/strbuf.h"

#define SERVER_USER_ENV "PGBUILD_SERVER_USER"
#define SERVER_USER_DEFAULT "postgres"

struct cluster_user {
	int switch_user;   /* 1: pgbuild is root, children switch to uid/gid */
	uid_t uid;         /* the user's ids (ours when not switching) */
	gid_t gid;
	char *name;        /* user name (malloced) */
	char *home;        /* home directory (malloced; "/" when unknown) */
};

#define CLUSTER_USER_INIT { 0, 0, 0, NULL, NULL }

/* The server user's name when pgbuild runs as root ($PGBUILD_SERVER_USER,
 * else postgres); NULL when not root (the server runs as ourselves). */
const char *cluster_user_name(void);

/*
 * Look the server user up into u: name (NULL: cluster_user_name()), whose
 * origin (NULL: "PGBUILD_SERVER_USER") the error message names.  Not root:
 * ourselves, switch_user 0 (name is then ignored).  Returns 0, or -1 with
 * one sentence in err: no such user, or the user is root.
 */
int cluster_user_get(struct cluster_user *u, const char *name, const char *origin,
		    struct strbuf *err);
void cluster_user_release(struct cluster_user *u);

/*
 * Make cp run as u: the one way a child becomes the server user (initdb,
 * postgres, the template copies, make check, the single-user and valgrind
 * runs, the access checks).  Everything it runs, runs SQL and tests of
 * unknown origin, so it gets nothing of ours but what is listed here.
 *
 * Descriptors: only 0-2 (what cp's in/out/err say) survive the exec; every
 * other one of ours is closed (run-command.h: close_fds), whether or not u
 * switches.  No caller passes one on purpose (the server's log is its
 * stdout and stderr).
 *
 * Environment, when u switches (root): built from nothing (env_clear):
 *   PATH=/usr/local/bin:/usr/bin:/bin   fixed (CLUSTER_USER_PATH)
 *   HOME, USER, LOGNAME                  u's
 *   LANG, LANGUAGE, LC_*, TZ             ours, when set: the locale and
 *                                        time zone of messages and initdb
 *   TMPDIR                               ours, when set (the clusters'
 *                                        parent, which u must reach)
 *   PGOPTIONS                            ours, when set: libpq clients of
 *                                        the server user (make check's psql,
 *                                        dblink) send it; every command that
 *                                        starts a server checks it first
 *                                        (cli_guc_check_env)
 * then cp->env, whatever the caller names (added before or after this
 * call; its entries win): GCOV_PREFIX and LLVM_PROFILE_FILE of a training,
 * PGHOST/PGPORT/PGUSER of the cluster, make check's PGOPT_POLICY,
 * PGOPT_LOGDIR and EXTRA_REGRESS_OPTS.  (The single-user runs start
 * `env -i PATH=... LANG=... LD_PRELOAD=FROZEN-CLOCK.so TOOL`: single.h.)
 * Nothing else of ours reaches u: no tokens of CI, no SSH_AUTH_SOCK, no
 * LD_*, no PG* but PGOPTIONS, no MAKEFLAGS (make check gets its own -j).
 * argv[0] is looked up on that PATH.  Not root (nothing switches): our
 * environment, unchanged.
 */
#define CLUSTER_USER_PATH "/usr/local/bin:/usr/bin:/bin"
void cluster_user_apply(const struct cluster_user *u, struct child_process *cp);

/* Does name=value of our environment reach u's processes (the list above;
 * entry is "NAME=value")?  Exposed for the unit test. */
int cluster_user_env_copied(const char *entry);

/*
 * Give every file and directory below dir (dir included) to u, like
 * chown -R -P: dir is opened as an anchor (a link as dir itself is
 * refused), everything below through descriptors with
 * fchownat(AT_SYMLINK_NOFOLLOW) (safefs.h: sfs_chown_tree), so a link
 * planted in the tree changes owner itself, never its target; entries
 * that vanish during the walk are no error.  Only for a tree pgbuild made
 * and hands over whole (nothing root reads back as trusted afterwards).
 * Returns how many changed owner, or -1 after printing why.  Nothing to
 * do when u does not switch (0).
 */
long cluster_user_hand_tree(const struct cluster_user *u, const char *dir);

/* Does `test OP path` (OP: -r, -w, -x, -d ...) succeed as u? */
int cluster_user_can(const struct cluster_user *u, const char *op, const char *path);

/*
 * Can u search (enter) every directory from / down to dir?  Asked in a
 * child that switches to u exactly as run-command does (no supplementary
 * groups), so the answer is the kernel's, ACLs included.  Returns 1 when
 * it can; 0 when it cannot, with the first directory it cannot enter in
 * *blocked (malloced); -1 when the check itself failed.  A dir that does
 * not exist counts as reachable (whoever creates it says what is wrong).
 */
int cluster_user_reach(const struct cluster_user *u, const char *dir, char **blocked);

/*
 * One sentence on why u cannot enter blocked (its mode and owner) and the
 * fix, for errors: "the server user postgres (pgbuild runs as root) cannot
 * enter /tmp/x (mode 0700, owner root): make it searchable by postgres
 * (chmod o+x /tmp/x)".
 */
void cluster_user_explain_blocked(const struct cluster_user *u, const char *blocked,
				 struct strbuf *out);

#endif
