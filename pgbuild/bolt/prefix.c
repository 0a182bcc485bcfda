/*
 * prefix.c - the copies of an install that training (train.c) and the
 * rewrite (run.c) run: the same tree with another bin/postgres; see
 * bolt.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "wrapper/common/copytree.h"
#include "pgbuild/bolt/bolt.h"
#include "pgbuild/pgbuild.h"

int bolt_copy_prefix(const char *src, const char *dst, const char *binary)
{
	struct strbuf out = STRBUF_INIT, bin = STRBUF_INIT, err = STRBUF_INIT;
	char *target = xasprintf("%s/bin/postgres", dst);
	int rc = -1, code;

	if (remove_tree(dst) < 0) {
		error("cannot remove %s: %s", dst, strerror(errno));
		goto out;
	}
	/* made anew, never through a link planted at dst since the removal */
	if ((code = copytree_fresh(src, dst, &out)) != 0) {
		if (code < 0)
			error("cannot create %s: %s", dst, strerror(errno));
		else
			error("cannot copy %s to %s (cp exit %d): %s", src, dst, code, out.buf);
		goto out;
	}
	/* a new file (not written through the copy): BOLT writes mode 0777 */
	if (sfs_read(AT_FDCWD, binary, SFS_IN_BINARY, 0, &bin, &err) < 0) {
		error("%s", err.buf);
		goto out;
	}
	if (write_file_atomic(target, bin.buf, bin.len) < 0)
		goto out;
	if (chmod(target, 0755) < 0) {
		error("cannot chmod %s: %s", target, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	strbuf_release(&out);
	strbuf_release(&bin);
	strbuf_release(&err);
	free(target);
	return rc;
}
