/*
 * copytree.h - copying a directory tree (cp -a: modes, times, ownership
 * where allowed, symbolic links copied as links, never followed).
 *
 * Who copies is the caller's decision, and the reason the helper mostly
 * describes the copy rather than makes it: a copy that root makes into, or
 * out of, a tree another user can write (a cluster's data directory, a
 * template the server user owns) must run as that user (safefs.h: root
 * never works by path in such a tree), so those callers push the command
 * line into a child_process, set its user (pgbuild: cluster_user_apply,
 * which also sets what the child gets of ours) and run it themselves.  copytree_run is for
 * copies between trees of the caller's own.
 */
#ifndef PGOPT_COPYTREE_H
#define PGOPT_COPYTREE_H

#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"

enum copytree_mode {
	COPYTREE_AS,    /* to (which must not exist) becomes the copy of from */
	COPYTREE_INTO,  /* what from holds goes into the existing directory to */
};

/* Push the command line of the copy ("cp", "-a", FROM or FROM/., TO). */
void copytree_args(struct strvec *args, const char *from, const char *to,
		   enum copytree_mode mode);

/*
 * Make the copy as we are, stdin from /dev/null.  With out, cp's stdout
 * and stderr are captured there; without, they are ours.  Returns cp's
 * exit code as run_command does (0 copied).
 */
int copytree_run(const char *from, const char *to, enum copytree_mode mode,
		 struct strbuf *out);

/*
 * The copy of from as the new directory to, made with mkdir (0755), which
 * never follows a link: a file or link planted at to (beside a path the
 * caller named, in a directory another user can write) is refused, not
 * written through.  Its parent must exist.  -1 with errno when to cannot
 * be made (EEXIST: something is there), else cp's exit code as
 * copytree_run's.
 */
int copytree_fresh(const char *from, const char *to, struct strbuf *out);

#endif
