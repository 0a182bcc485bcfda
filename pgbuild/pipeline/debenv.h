/*
 * debenv.h - where `pgbuild deb` builds a package: the archive's build
 * environment, or a host that would build the same.
 *
 * Debian's build daemons build each package in a clean chroot that holds
 * the essential packages, build-essential and what the source package's
 * Build-Depends pull in, nothing else.  A packager's machine holds more,
 * and a configure script that finds more builds something else: with
 * LLVM 15's llvm-15 installed beside the llvm-dev (14) of the
 * Build-Depends, Debian's postgresql.mk takes the highest
 * /usr/bin/llvm-config-N, and a packager's llvmjit.so links LLVM 15
 * without its library (llvm-15-dev is not installed): every query that
 * JIT-compiles fails.  So:
 *
 * --chroot (deb.h): the build runs in a chroot made afresh for it by
 *   mmdebstrap (--variant=buildd: essential + build-essential, the
 *   distribution of this machine, /etc/os-release's codename, with its
 *   updates and security suites; Debian's own tool, what sbuild's unshare
 *   mode uses), with the Build-Depends installed in it by apt-get
 *   build-dep --arch-only (the source's debian/control) and the libraries
 *   pgoptcc and pgbuild need (their DT_NEEDED, as dpkg -S names the
 *   packages): nothing of the host's but pgoptcc's install, bound
 *   read-only at its own paths, and WORKDIR, bound at its own path.
 *   dpkg-buildpackage runs in it as root in a mount, PID and network
 *   namespace of its own (unshare; no network, as on a build daemon) with
 *   a clean environment: PATH=DEBENV_PATH, LC_ALL=C.UTF-8, HOME that does
 *   not exist, DEB_BUILD_OPTIONS, and the fragment's PGOPT_MIN_APPLIES and
 *   PGOPT_BOLT_BINARIES when set.  The chroot (about 1.4 GB) is
 *   WORKDIR/chroot, removed after a build that succeeded; it is never
 *   removed while anything is mounted below it.  Root only.
 *
 * On the host (the default): the build runs with PATH=DEBENV_PATH, and is
 *   refused when a program the build would find there belongs to no
 *   package the Build-Depends pull in while the Build-Depends do provide
 *   one of its names: a configure script takes the first of a program's
 *   names on PATH, and Debian's rules pick a version among them (for each
 *   row of a table: llvm-config, clang, python3, tclsh; any NAME or
 *   NAME[-.]VERSION on PATH).  "Pull in": the Build-Depends and
 *   Build-Depends-Arch of debian/control (every alternative, whatever
 *   their architecture or profile restrictions), build-essential and the
 *   essential packages, and what they depend on (Depends, Pre-Depends;
 *   virtual packages through Provides), as installed.  The error names
 *   each file, its package and the fix: --chroot, or removing them.
 */
#ifndef PGBUILD_DEBENV_H
#define PGBUILD_DEBENV_H

#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"

/* The PATH of a Debian build daemon (sbuild's). */
#define DEBENV_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/*
 * The host check above for the unpacked source package src (its
 * debian/control), against the programs on path (DEBENV_PATH).  0 when
 * nothing is refused; -1 with one line in why naming what is (or why the
 * check could not run).  What it found the Build-Depends provide is
 * appended to note ("/usr/bin/llvm-config-14, /usr/bin/clang-14").
 */
int debenv_check_host(const char *src, const char *path, struct strbuf *note,
		      struct strbuf *why);

/* The parts of the host check, for the unit tests: */
/* Is name the program or one of its versions (NAME, NAME[-.]VERSION:
 * llvm-config-15, python3.11, tclsh8.6)? */
int debenv_probe_matches(const char *program, const char *name);
/* The field name (case-insensitive) of text's first paragraph (a
 * debian/control's source stanza), continuation lines joined, comments
 * skipped; malloced, or NULL. */
char *debenv_control_field(const char *text, const char *name);
/* The alternatives of each relation of a field (Depends, Build-Depends)
 * as "a|b|c", without versions, architecture qualifiers and restrictions,
 * onto out (a substitution variable, ${shlibs:Depends}, is no name). */
void debenv_relation_groups(const char *field, struct strvec *out);

/*
 * The directories the dynamic linker looks for libraries in, for this
 * machine's architecture (dpkg-architecture's multiarch triplet):
 * /lib/TRIPLET, /usr/lib/TRIPLET, /lib, /usr/lib.  0, or -1 after the
 * error.
 */
int debenv_libdirs(struct strvec *out);

/* What a build in a chroot needs. */
struct debenv_chroot {
	const char *dir;          /* the chroot: WORKDIR/chroot */
	const char *workdir;      /* bound read-write at its own path */
	const char *control;      /* the source's debian/control (build-dep) */
	struct strvec binds;      /* host directories bound read-only at
				   * their own paths (pgoptcc's install) */
	struct strvec include;    /* packages installed besides the
				   * Build-Depends (pgoptcc's libraries) */
	char *suite;              /* this machine's codename */
};

/*
 * Fill c (dir, workdir and control set by the caller): the suite, the
 * directories of this pgoptcc install (pgbuild, pgoptcc, LIBDIR/pgoptcc,
 * DATADIR/pgoptcc, real paths) and the packages of the libraries they
 * need.  0, or -1 after the error (not root, no mmdebstrap, unshare).
 */
int debenv_chroot_prepare(struct debenv_chroot *c);
void debenv_chroot_release(struct debenv_chroot *c);

/* The mmdebstrap command making c->dir (its environment: env). */
void debenv_mmdebstrap_argv(const struct debenv_chroot *c, struct strvec *args,
			    struct strvec *env);

/*
 * The command running cmd (a program and its arguments, run in dir) in
 * the chroot, with the environment env ("NAME=value") and nothing else,
 * without network unless net.
 */
void debenv_chroot_argv(const struct debenv_chroot *c, const char *dir,
			const struct strvec *env, const struct strvec *cmd, int net,
			struct strvec *args);

/*
 * Remove the chroot dir (when it exists): refused (-1 after the error,
 * nothing removed) while anything is mounted at or below it (the mounts
 * of /proc/self/mountinfo), which removing would go into.
 */
int debenv_chroot_remove(const char *dir);

#endif
