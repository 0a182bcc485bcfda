/*
 * relink.h - the `postgres` link of a build, run again with its object
 * files in another order (`pgbuild noise`: a layout that must not matter).
 *
 * The link is read from the build's compile log (BUILDDIR/pgopt-log/
 * compile.jsonl: pgoptcc records every link with its final command line),
 * never from `make -n`: make would remake the Makefiles of a shared tree.
 * The last successful link whose output is src/backend/postgres is taken:
 * the real compiler with the final arguments (pgoptcc's flags included;
 * with LTO the link runs the whole LTO back end again: minutes, not
 * seconds).  Run in BUILDDIR/src/backend, the directory the log recorded
 * for it (the tree may have been copied or moved since), with the output
 * redirected, and without the plugin's log directory argument, so nothing
 * of the tree is written.  An object file is a word that does not start
 * with '-', ends in ".o" and is not the argument of -o or -Xlinker; the
 * objects are permuted among their own places, archives and options stay.
 */
#ifndef PGBUILD_RELINK_H
#define PGBUILD_RELINK_H

#include <stddef.h>

#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"

struct relink {
	char *cwd;            /* BUILDDIR/src/backend */
	struct strvec argv;   /* compiler and final arguments, as logged */
	size_t out_at;        /* argv index of -o's value */
	size_t *obj_at;       /* argv indexes of the object files, in order */
	size_t nobj;          /* how many */
	int lto;              /* an -flto* word is on the line */
	long line;            /* the compile-log line of the link */
};

#define RELINK_INIT { NULL, STRVEC_INIT, 0, NULL, 0, 0, 0 }

/*
 * The postgres link of builddir's compile log into r.  0, or -1 with one
 * sentence in note (no compile log, no postgres link recorded, no -o, no
 * object files).
 */
int relink_find(const char *builddir, struct relink *r, struct strbuf *note);

/*
 * The object files picked out of a link's arguments: their indexes into
 * *at (malloced), their number returned; the -o value's index in *out_at
 * (0 when there is none).  argv[0] is the compiler.
 */
size_t relink_objects(const struct strvec *argv, size_t **at, size_t *out_at);

/*
 * Run the link with the objects reordered: the object put in place i is
 * the one logged at place perm[i] (perm NULL: the logged order); output
 * out (an absolute path), stdout and stderr to log.  0, or -1 with note.
 */
int relink_run(const struct relink *r, const size_t *perm, const char *out, const char *log,
	       struct strbuf *note);

void relink_release(struct relink *r);

#endif
