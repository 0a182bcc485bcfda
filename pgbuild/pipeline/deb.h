/*
 * deb.h - a Debian package built through pgoptcc and checked, in one
 * command (`pgbuild deb`): the packager's recipe (the debian/rules
 * fragment, examples/pgoptcc-deb.mk) and pgbuild's checks of what it made,
 * as resumable stages (stage/stage.h), one progress line each:
 *
 *   1 source   dpkg-source -x DSC WORKDIR/src; then the recipe: after the
 *              first `include` line of debian/rules (else its first line)
 *              PGOPT_MASQ and PGOPT_PGBUILD of this install and the include
 *              of DATADIR/pgoptcc/examples/pgoptcc-deb.mk; the policy as
 *              debian/pgopt.policy, the bundle as debian/pgopt-bundle
 *   2 build    dpkg-buildpackage -B -uc -us -jN there
 *              (DEB_BUILD_OPTIONS="nocheck parallel=N"; with a bundle the
 *              fragment's bundle check and bundle bolt run in it), in the
 *              archive's build environment (debenv.h): with --chroot in a
 *              chroot made for it by mmdebstrap with the Build-Depends
 *              (WORKDIR/chroot, removed after a build that succeeded);
 *              else on this machine with a build daemon's PATH, refused
 *              before it starts when the build would find programs the
 *              Build-Depends do not provide (another LLVM's llvm-config);
 *              then every .deb extracted: the packages into WORKDIR/root,
 *              the -dbgsym packages into WORKDIR/dbg
 *   3 verify   pgbuild verify --log src/debian/pgopt-log --builddir
 *              src/BUILDDIR --debug-dir src/debian/pgopt-log/records
 *   4 compare  every ELF file of the packages against the archive's
 *              packages of the same names and version (apt-get download,
 *              or --archive DIR): needed libraries, symbols left undefined
 *              that nothing defines, exports; sizes per package
 *              (debcheck.h; WORKDIR/compare.json)
 *   5 regress  pgbuild regress --builddir src/BUILDDIR --install SERVER
 *              --set jit=on --set jit_above_cost=0 ...: installcheck
 *              against the packaged server (SERVER: the directory of
 *              WORKDIR/root/usr/lib/postgresql/ that holds bin/postgres)
 *              with every query JIT-compiled
 *   6 modules  every module of SERVER loaded and every extension it ships
 *              created, JIT forced (debcheck.h)
 *   7 gate     pgbuild gate --baseline ARCHIVE --candidate SERVER (ARCHIVE:
 *              the distribution's installed package, /usr/lib/postgresql/N)
 *   8 report   pgbuild report --gate-result WORKDIR/gate.json --log
 *              src/debian/pgopt-log --html WORKDIR/report.html, printed
 *
 * Why a command and not only the fragment: the fragment is what a build
 * daemon needs (dpkg-buildpackage stays the packager's own build); the
 * checks need a machine that can start servers and benchmark, and this
 * command runs them in the order the packager would, on what the build
 * made, keeping every log.
 *
 * Exit: 0 built, verified, as the archive's links, the suite and the
 * modules check passed and the gate passed; 1 a check failed (verify,
 * compare, the suite, modules, the gate); 2 could not run (the build was
 * refused or failed: its log's last lines are printed); 3 the gate was
 * undecided.
 */
#ifndef PGBUILD_DEB_H
#define PGBUILD_DEB_H

/* The options of `pgbuild deb`. */
struct deb_opts {
	const char *dsc;          /* --dsc FILE, NULL: pgbuild source's package */
	const char *policy;       /* --policy FILE, or NULL */
	const char *bundle;       /* --bundle DIR, or NULL (one of the two is needed) */
	const char *workdir;      /* --workdir DIR (required) */
	const char *builddir;     /* --builddir NAME: the package's build tree
				   * inside its source (default "build") */
	const char *baseline;     /* --baseline PREFIX, NULL: /usr/lib/postgresql/N */
	int gate_no_floor;        /* the baseline has no layout floor of its own
				     (the distribution's package, or a --baseline
				     without PREFIX/pgopt-noise.json of its
				     postgres): the gate runs with --noise none
				     (cmd/deb.c decides, noise/floor.h's lookup) */
	const char *gate;         /* --gate EXPR */
	const char *workloads;    /* -W LIST, comma-separated */
	const char *metric;       /* --metric LIST */
	const char *pairs, *duration; /* for pgbuild gate */
	int jobs;                 /* -j N (default 2) */
	const char *archive;      /* --archive DIR: the archive's .debs to compare
				   * with (NULL: apt-get download) */
	int chroot;               /* --chroot: build in a clean chroot */
	int no_compare;           /* --no-compare */
	int no_regress;           /* --no-regress: not the suite */
	int no_modules;           /* --no-modules: not the modules check */
	int no_gate;              /* --no-gate */
	int restart;              /* --restart */
	int quiet;                /* -q */
};

#define DEB_GATE_DEFAULT "cycles>=1.00,tps>=1.00"
#define DEB_WORKLOADS_DEFAULT "select-only,tpcb"
#define DEB_METRIC_DEFAULT "tps,instructions,cycles"

/* Run (or resume) the stages; returns the exit code above. */
int deb_pipeline(const struct deb_opts *o);

#endif
