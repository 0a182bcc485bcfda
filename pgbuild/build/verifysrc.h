/*
 * verifysrc.h - where `pgbuild verify` finds a build: its build directory,
 * compile log, policy, the environment its compiles ran in, and the
 * binaries to check with the link that made each.
 *
 * Two sources:
 *  - a build record (--install PREFIX, an install of `pgbuild build`): PREFIX/
 *    pgopt-build.json names the build directory, the policy and the
 *    compiler environment (of which only the checked names of
 *    buildlog_env are taken: data, never exported as a whole); the binary
 *    is PREFIX/bin/postgres, made by the link of
 *    BUILDDIR/src/backend/postgres.
 *  - any build through pgoptcc (--log DIR --builddir DIR: a package build,
 *    `CC="pgoptcc --pgopt-policy=P --pgopt-logdir=DIR" dpkg-buildpackage`):
 *    DIR/compile.jsonl, the records of the compiles and links whose
 *    working directory is in the build directory.  The policy is the one
 *    those compiles record (one; with several, --policy must choose); the
 *    binaries are the outputs of their links that still exist (every
 *    program and shared library; --binary names one).  As root, DIR must
 *    be one only root can write (buildlog_dir_check: --workdir's rule).
 *    The hardening classes their records say were weakened are replayed
 *    as allowed (PGOPT_WEAKEN): the build's caller allowed them.
 */
#ifndef PGBUILD_VERIFYSRC_H
#define PGBUILD_VERIFYSRC_H

#include "pgbuild/build/verify.h"
#include "wrapper/common/strvec.h"

struct verify_src {
	char *builddir;          /* the build directory */
	char *policy;            /* the policy to check against; NULL: none */
	char *logfile;           /* the compile log */
	struct strvec env;       /* what the replay takes from the build
				  * record's environment (buildlog_env:
				  * PGOPT_PROFILE, PGOPT_BUNDLE, checked) */
	char *record;            /* the build record, when it names a compiler */
	char *record_cc;         /* ... its PGOPT_CC: compared, never run */
	struct strvec links;     /* absolute outputs of the links checked */
	struct strvec binaries;  /* the file read for each link (same order) */
	struct strvec weakened;  /* the hardening classes the build's policy
				  * weakened, which its caller allowed: the
				  * record's, or the compile log's ("pie") */
};

/* Fill s from o (a build record, or o->logdir); 0, or -1 after the error. */
int verifysrc_load(const struct verify_opts *o, struct verify_src *s);

void verifysrc_release(struct verify_src *s);

#endif
