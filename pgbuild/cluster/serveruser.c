/*
 * serveruser.c - the user PostgreSQL's server side runs as; see
 * serveruser.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pgbuild/cluster/serveruser.h"
#include "wrapper/common/error.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/xalloc.h"

const char *cluster_user_name(void)
{
	const char *user;
	if (geteuid() != 0)
		return NULL;
	user = getenv(SERVER_USER_ENV);
	return user && *user ? user : SERVER_USER_DEFAULT;
}

int cluster_user_get(struct cluster_user *u, const char *name, const char *origin,
		    struct strbuf *err)
{
	struct passwd *pw;

	memset(u, 0, sizeof(*u));
	if (geteuid() != 0) {
		pw = getpwuid(geteuid());
		u->uid = geteuid();
		u->gid = getegid();
		u->name = pw ? xstrdup(pw->pw_name) : xasprintf("%d", (int)geteuid());
		u->home = xstrdup(pw && pw->pw_dir ? pw->pw_dir : "/");
		return 0;
	}
	if (!name)
		name = cluster_user_name();
	if (!origin)
		origin = SERVER_USER_ENV;
	pw = getpwnam(name);
	if (!pw) {
		strbuf_addf(err, "no user \"%s\" to run the server as: pgbuild runs as root, and "
			    "initdb, postgres and make check refuse to (create the user, or name "
			    "another with %s)", name, origin);
		return -1;
	}
	if (pw->pw_uid == 0) {
		strbuf_addf(err, "the server user \"%s\" (%s) is root: initdb, postgres and make "
			    "check refuse to run as root (name an unprivileged user)", name, origin);
		return -1;
	}
	u->switch_user = 1;
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	u->name = xstrdup(pw->pw_name);
	u->home = xstrdup(pw->pw_dir ? pw->pw_dir : "/");
	return 0;
}

void cluster_user_release(struct cluster_user *u)
{
	free(u->name);
	free(u->home);
	memset(u, 0, sizeof(*u));
}

extern char **environ;

/* Copied from ours when set (serveruser.h); "LC_" a prefix. */
static const char *const env_copied[] = {
	"LANG", "LANGUAGE", "LC_", "TZ", "TMPDIR", "PGOPTIONS", NULL
};

int cluster_user_env_copied(const char *entry)
{
	size_t n = strcspn(entry, "=");
	if (!entry[n])
		return 0;
	for (const char *const *c = env_copied; *c; c++) {
		size_t len = strlen(*c);
		if ((*c)[len - 1] == '_' ? n > len && !strncmp(entry, *c, len)
					 : n == len && !strncmp(entry, *c, len))
			return 1;
	}
	return 0;
}

void cluster_user_apply(const struct cluster_user *u, struct child_process *cp)
{
	size_t at = 0;

	cp->close_fds = 1;
	if (!u->switch_user)
		return;
	cp->switch_user = 1;
	cp->uid = u->uid;
	cp->gid = u->gid;
	cp->env_clear = 1;
	/* first, so that what the caller names (before or after) wins */
	strvec_insert(&cp->env, at++, "PATH=" CLUSTER_USER_PATH);
	{
		char *s = xasprintf("HOME=%s", u->home);
		strvec_insert(&cp->env, at++, s);
		free(s);
		s = xasprintf("USER=%s", u->name);
		strvec_insert(&cp->env, at++, s);
		free(s);
		s = xasprintf("LOGNAME=%s", u->name);
		strvec_insert(&cp->env, at++, s);
		free(s);
	}
	for (char **e = environ; e && *e; e++)
		if (cluster_user_env_copied(*e))
			strvec_insert(&cp->env, at++, *e);
}

long cluster_user_hand_tree(const struct cluster_user *u, const char *dir)
{
	struct strbuf err = STRBUF_INIT;
	long changed;
	int fd;

	if (!u->switch_user)
		return 0;
	/* dir is the caller's (it made it): its parents are trusted, below it
	 * every entry is changed through descriptors, links themselves */
	fd = sfs_open_anchor(dir, (uid_t)-1, 0, &err);
	changed = fd < 0 ? -1 : sfs_chown_tree(fd, ".", u->uid, u->gid, &err);
	if (changed < 0)
		error("cannot hand %s to user %s: %s", dir, u->name, err.buf);
	if (fd >= 0)
		close(fd);
	strbuf_release(&err);
	return changed;
}

int cluster_user_can(const struct cluster_user *u, const char *op, const char *path)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	int r;
	strvec_pushl(&cp.args, "test", op, path, NULL);
	cluster_user_apply(u, &cp);
	cp.no_stdin = cp.no_stdout = cp.no_stderr = 1;
	r = run_command(&cp);
	child_process_clear(&cp);
	return r == 0;
}

int cluster_user_reach(const struct cluster_user *u, const char *dir, char **blocked)
{
	char *abs = realpath(dir, NULL);
	pid_t pid;
	int status, bad = 0;

	*blocked = NULL;
	if (!abs)
		return 1;
	pid = fork();
	if (pid < 0) {
		error("cannot fork: %s", strerror(errno));
		free(abs);
		return -1;
	}
	if (pid == 0) {
		/* exit status: 0, or the number of the first component (1 = "/")
		 * the user cannot search */
		int n = 1;
		if (u->switch_user &&
		    (setgroups(0, NULL) < 0 || setgid(u->gid) < 0 || setuid(u->uid) < 0))
			_exit(255);
		if (access("/", X_OK) < 0)
			_exit(1);
		for (size_t i = 1;; i++) {
			char save = abs[i];
			if (save != '/' && save != '\0')
				continue;
			if (abs[i - 1] != '/') {
				abs[i] = '\0';
				n++;
				if (access(abs, X_OK) < 0)
					_exit(n > 250 ? 250 : n);
				abs[i] = save;
			}
			if (!save)
				break;
		}
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status))
		bad = WEXITSTATUS(status);
	else
		bad = 255;
	if (bad == 255) {
		error("cannot switch to the server user %s to check %s", u->name, dir);
		free(abs);
		return -1;
	}
	if (bad > 0) {
		/* cut abs after its bad-th component ("/" is the first) */
		int seen = 0;
		if (bad == 1)
			abs[1] = '\0';
		for (char *p = abs; bad > 1 && *p; p++)
			if (*p == '/' && ++seen == bad) {
				*p = '\0';
				break;
			}
		*blocked = abs;
		return 0;
	}
	free(abs);
	return 1;
}

void cluster_user_explain_blocked(const struct cluster_user *u, const char *blocked,
				 struct strbuf *out)
{
	struct stat st;
	char mode[8] = "?", who[64] = "?";

	if (stat(blocked, &st) == 0) {
		struct passwd *owner = getpwuid(st.st_uid);
		snprintf(mode, sizeof(mode), "%04o", (unsigned)(st.st_mode & 07777));
		if (owner)
			snprintf(who, sizeof(who), "%s", owner->pw_name);
		else
			snprintf(who, sizeof(who), "%d", (int)st.st_uid);
	}
	strbuf_addf(out, "the server user %s%s cannot enter %s (mode %s, owner %s): make it "
		    "searchable by %s (chmod o+x %s)", u->name,
		    u->switch_user ? " (pgbuild runs as root)" : "", blocked, mode, who,
		    u->name, blocked);
}
