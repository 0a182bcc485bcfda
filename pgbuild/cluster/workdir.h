/*
 * cluster/workdir.h - the directories the unprivileged server user works
 * in, checked before the work starts (the pipelines' preflight checks and
 * the gate make them):
 *
 *   workdir_server_reach  as root: the unprivileged server user can reach
 *                         the directories it will work in (and $TMPDIR),
 *                         so a 0700 `mktemp -d` is refused now, not after
 *                         a build, with the directory and the fix
 *   workdir_open          a work directory the caller names: made when
 *                         missing, never chmodded or chowned when it
 *                         exists; as root, refused when another user can
 *                         write in it or the server user cannot reach it
 */
#ifndef PGBUILD_WORKDIR_H
#define PGBUILD_WORKDIR_H

/*
 * As root: the server user can enter every directory down to each of
 * dirs[] (NULL-terminated; a directory not made yet counts from its
 * nearest existing parent) and to $TMPDIR (or /tmp), where its private
 * clusters live.  Not root: nothing to check.  0 or -1 after one error
 * naming the directory, its mode and owner, and the fix.
 */
int workdir_server_reach(const char *const *dirs);

/*
 * The work directory dir that opt names (--workdir): made with its missing
 * parents when it does not exist (0755: ours); an existing one is taken as
 * it is, never chmodded or chowned (a `--workdir ~` stays as private as it
 * was).  As root, pgbuild keeps its own files there and makes the
 * subdirectories it hands to the server user there (with fixed names,
 * through descriptors), so dir is refused when another user can create or
 * rename entries in it (writable by others or by another group, sticky
 * or not: the stages make fixed names such as logs/ and run-state.json
 * there, which another user could make first in a /tmp-like directory;
 * owned by another user than root: sfs_root_only, the rule compile log
 * directories share), and when the server user
 * cannot enter it (the fix: chmod o+x, named with the blocking directory).
 * Returns a descriptor of dir (O_CLOEXEC), or -1 after one error naming
 * opt, the directory, its mode and owner, and the fix.
 */
int workdir_open(const char *opt, const char *dir);

/*
 * What the server user will run from (a --datadir-template directory and
 * the templates below it: their postgresql.conf is the server's): as root,
 * path, when it exists, must be owned by root or the server user and be
 * writable by no one else (a sticky bit does not help: a template's name
 * is predictable).  Not root, or missing: 0.  -1 after one error naming
 * what, the path, its mode and owner, and the fix.
 */
int workdir_trusted(const char *what, const char *path);

#endif
