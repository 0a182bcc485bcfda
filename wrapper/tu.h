/*
 * tu.h - name a translation unit by its path relative to the source root,
 * so a policy is portable between trees and between in-tree and VPATH
 * builds.
 */
#ifndef PGOPT_TU_H
#define PGOPT_TU_H

/*
 * The TU name of source (as written on the command line, relative to cwd).
 * root: PGOPT_ROOT or NULL.  Without it, the root is the nearest directory
 * above the source holding `configure`, else the nearest above cwd holding
 * `src/Makefile.global` (a VPATH build tree, for generated files), else the
 * path is taken as written.  Returns a malloced, normalised path (no "./",
 * no "..").
 */
char *tu_name(const char *source, const char *cwd, const char *root);

/* Normalise an absolute or relative path lexically ("a/./b/../c" -> "a/c"). */
char *tu_normalize(const char *path);

#endif
