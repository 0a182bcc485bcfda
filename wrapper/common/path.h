/*
 * path.h - absolute file names.
 *
 * pgbuild hands paths to child processes that run in other directories
 * (make, pgbuild stages, the server user's processes), so every path a
 * user gives is made absolute once, at the start.
 */
#ifndef PGOPT_PATH_H
#define PGOPT_PATH_H

/*
 * path made absolute against the current directory, without touching the
 * file system (the path need not exist; symbolic links stay): "a/b" in /w
 * is "/w/a/b", an absolute path is copied.  Malloced.
 */
char *path_absolute(const char *path);

/*
 * The canonical name of an existing path (realpath(3): absolute, no
 * symbolic links, no . or ..), malloced; NULL after one error naming the
 * path and why ("\"PATH\": No such file or directory").
 */
char *path_real(const char *path);

/* The same, its error naming what gave the path first (an option: "--builddir
 * PATH: No such file or directory"). */
char *path_real_as(const char *what, const char *path);

/* Does path name something (stat(2) succeeds, links followed)? */
int path_exists(const char *path);

#endif
