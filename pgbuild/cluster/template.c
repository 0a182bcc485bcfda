/*
 * cluster/template.c - data directories saved as templates and the lock
 * that serialises their creators; see cluster.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgbuild/cluster/cluster.h"
#include "pgbuild/cluster/private.h"
#include "wrapper/common/copytree.h"
#include "wrapper/common/dir.h"
#include "wrapper/common/run-command.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/xalloc.h"

int cluster_save_template(struct cluster *c, const char *dest, int restart)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	char *parent = xstrdup(dest), *slash = strrchr(parent, '/'), *base, *tmp, *dest_tmp;
	int pfd = -1, tfd = -1, r;

	base = slash ? slash + 1 : parent;
	tmp = xasprintf("%s.tmp", base);
	dest_tmp = xasprintf("%s.tmp", dest);
	if (slash)
		*slash = '\0';
	if (cluster_stop(c) < 0)
		goto fail;
	/* dest's parent is the caller's (it named it): the copy below it is
	 * made through its descriptor, the server user copies into it */
	pfd = open(slash ? (*parent ? parent : "/") : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0) {
		cluster_error("cannot save the template %s: %s", dest, strerror(errno));
		goto fail;
	}
	if (sfs_remove(pfd, tmp, &err) < 0 ||
	    (tfd = sfs_mkdir(pfd, tmp, 0700, c->user.switch_user ? c->user.uid : (uid_t)-1,
			     c->user.gid, 0, &err)) < 0) {
		cluster_error("cannot save the template %s: %s", dest, err.buf);
		goto fail;
	}
	close(tfd);
	copytree_args(&cp.args, c->datadir, dest_tmp, COPYTREE_INTO);
	cp.dir = c->dir;
	r = cluster_run_helper(c, &cp, &out);
	if (r != 0) {
		cluster_error("cannot copy %s to %s.tmp (exit %d)", c->datadir, dest, r);
		cluster_print_tail("cp said", out.buf, 10);
		sfs_remove(pfd, tmp, NULL);
		goto fail;
	}
	if (renameat(pfd, tmp, pfd, base) < 0) {
		cluster_error("cannot rename %s.tmp to %s: %s", dest, dest, strerror(errno));
		sfs_remove(pfd, tmp, NULL);
		goto fail;
	}
	close(pfd);
	child_process_clear(&cp);
	strbuf_release(&out);
	strbuf_release(&err);
	free(parent);
	free(tmp);
	free(dest_tmp);
	return restart ? cluster_start(c) : 0;
fail:
	if (pfd >= 0)
		close(pfd);
	child_process_clear(&cp);
	strbuf_release(&out);
	strbuf_release(&err);
	free(parent);
	free(tmp);
	free(dest_tmp);
	return -1;
}

int cluster_template_lock(const char *dir)
{
	char *lock = xasprintf("%s/.lock", dir);
	struct stat st;
	int dfd, fd;

	/* dir is the caller's: made as named; .lock below its descriptor */
	if (mkdir_p(dir) < 0) {
		cluster_error("cannot create directory %s", dir);
		free(lock);
		return -1;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fd = dfd < 0 ? -1 : openat(dfd, ".lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
				   O_CLOEXEC, 0644);
	if (dfd >= 0)
		close(dfd);
	if (fd < 0) {
		cluster_error("cannot open %s: %s", lock, errno == ELOOP ?
			 "it is a symbolic link (refused)" : strerror(errno));
		free(lock);
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		cluster_error("cannot use %s: it is %s, expected a regular file", lock,
			 sfs_kind(st.st_mode));
		close(fd);
		free(lock);
		return -1;
	}
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			cluster_error("cannot lock %s: %s", lock, strerror(errno));
			close(fd);
			free(lock);
			return -1;
		}
	}
	free(lock);
	return fd;
}
