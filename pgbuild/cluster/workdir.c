/*
 * cluster/workdir.c - the directories the server user works in; see
 * workdir.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgbuild/cluster/serveruser.h"
#include "pgbuild/cluster/workdir.h"
#include "pgbuild/pgbuild.h"
#include "wrapper/common/safefs.h"

/* dir, or its nearest parent that exists (malloced, absolute). */
static char *existing_part(const char *dir)
{
	char *p = path_absolute(dir);
	struct stat st;
	while (stat(p, &st) < 0 && strcmp(p, "/")) {
		char *slash = strrchr(p, '/');
		if (slash == p)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	return p;
}

/* Can u reach dir (what names it in the error)?  0 or -1. */
static int reach(const struct cluster_user *u, const char *what, const char *dir)
{
	char *have = existing_part(dir), *blocked = NULL;
	struct strbuf why = STRBUF_INIT;
	int r = cluster_user_reach(u, have, &blocked), rc = 0;

	if (r < 0) {
		rc = -1;
	} else if (r == 0) {
		cluster_user_explain_blocked(u, blocked, &why);
		rc = error("%s %s is out of the server user's reach: %s or choose a directory %s "
			   "can reach", what, dir, why.buf, u->name);
	}
	strbuf_release(&why);
	free(blocked);
	free(have);
	return rc;
}

int workdir_server_reach(const char *const *dirs)
{
	struct cluster_user u = CLUSTER_USER_INIT;
	struct strbuf err = STRBUF_INIT;
	const char *tmp = getenv("TMPDIR");
	int rc = 0;

	if (!cluster_user_name())
		return 0;
	if (cluster_user_get(&u, NULL, NULL, &err) < 0) {
		error("%s", err.buf);
		strbuf_release(&err);
		return -1;
	}
	strbuf_release(&err);
	for (size_t i = 0; dirs[i] && rc == 0; i++)
		rc = reach(&u, "directory", dirs[i]);
	if (rc == 0)
		rc = reach(&u, tmp && *tmp ? "TMPDIR" : "the temporary directory",
			   tmp && *tmp ? tmp : "/tmp");
	cluster_user_release(&u);
	return rc;
}

/* The name of uid, for messages (static buffer). */
static const char *user_name(uid_t uid)
{
	static char buf[64];
	struct passwd *pw = getpwuid(uid);
	if (pw)
		snprintf(buf, sizeof(buf), "%s", pw->pw_name);
	else
		snprintf(buf, sizeof(buf), "uid %ld", (long)uid);
	return buf;
}

int workdir_open(const char *opt, const char *dir)
{
	struct stat st;
	int fd;

	if (mkdir_p(dir) < 0)
		return -1;
	/* the caller named it: its path is followed as given */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		error("%s %s: %s", opt, dir, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (geteuid() != 0)
		return fd;
	/* sticky is no exemption: the stages make fixed names in it (logs/,
	 * run-state.json, sets/ID) that another user could make first, as
	 * a directory or a link, in a /tmp-like directory */
	{
		struct strbuf err = STRBUF_INIT;
		int r = sfs_root_only(fd, opt, dir, "keeps its files there", &err);
		if (r < 0) {
			error("%s", err.buf);
			close(fd);
		}
		strbuf_release(&err);
		if (r < 0)
			return -1;
	}
	{
		struct cluster_user u = CLUSTER_USER_INIT;
		struct strbuf err = STRBUF_INIT;
		int r = cluster_user_get(&u, NULL, NULL, &err) < 0 ? error("%s", err.buf) :
			reach(&u, opt, dir);
		cluster_user_release(&u);
		strbuf_release(&err);
		if (r < 0) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

int workdir_trusted(const char *what, const char *path)
{
	struct cluster_user u = CLUSTER_USER_INIT;
	struct strbuf err = STRBUF_INIT;
	struct stat st;
	int r = 0;

	if (geteuid() != 0 || lstat(path, &st) < 0)
		return 0;
	if (cluster_user_get(&u, NULL, NULL, &err) < 0) {
		r = error("%s", err.buf);
	} else if (S_ISLNK(st.st_mode) || (st.st_uid != 0 && st.st_uid != u.uid) ||
		   (st.st_mode & (S_IWGRP | S_IWOTH))) {
		r = error("%s %s: another user could change what the server runs from it "
			  "(%s, mode %04o, owner %s): pgbuild runs as root; give one only root "
			  "or the server user can write (chmod go-w %s)", what, path,
			  S_ISLNK(st.st_mode) ? "a symbolic link" : sfs_kind(st.st_mode),
			  (unsigned)(st.st_mode & 07777), user_name(st.st_uid), path);
	}
	cluster_user_release(&u);
	strbuf_release(&err);
	return r;
}
