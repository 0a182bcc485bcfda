/*
 * tu.h - name a translation unit by its path relative to the source root,
 * so a policy is portable between trees and between in-tree and VPATH
 * builds.
 */
#ifndef PGOPT_TU_H
#define PGOPT_TU_H

/*
 * The TU name of source (as written on the command line, relative to cwd).
 * root: PGOPT_ROOT or NULL.  With root, the path below it.  Otherwise the
 * path below the deeper of two directories above the source: the source
 * tree's top (the nearest holding `configure`) and the build tree's top
 * (the nearest holding `config.status` or `src/Makefile.global`).  So a
 * file configure links or generates into the build tree is named like its
 * counterpart of an in-tree build, whether the build tree is the source
 * tree, beside it (VPATH) or inside it (Debian's build/).  With neither,
 * the path as written.  Returns a malloced, normalised path (no "./", no
 * "..").
 */
char *tu_name(const char *source, const char *cwd, const char *root);

/* Normalise an absolute or relative path lexically ("a/./b/../c" -> "a/c"). */
char *tu_normalize(const char *path);

#endif
