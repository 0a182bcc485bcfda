# pgoptcc-deb.mk - build a Debian package through pgoptcc, as shipped.
#
# Include it in debian/rules after the rules' own include lines:
#
#   PGOPT_MASQ := /usr/local/lib/pgoptcc/masq    # LIBDIR/pgoptcc/masq
#   include /usr/local/share/pgoptcc/examples/pgoptcc-deb.mk
#
# and put the policy in debian/pgopt.policy.  Every compile and link of the
# package build then runs through pgoptcc with that policy (the masquerade:
# its `gcc`, `cc`, `g++` and `c++` are pgoptcc, first on PATH), while configure records
# plain `gcc`, so the installed pg_config and Makefile.global name the
# plain compiler and users' PGXS builds work without pgoptcc.  The per-unit
# records leave the shipped binaries (records = side) and go into each
# binary's -dbgsym package, next to its .debug file, as
# /usr/lib/debug/.build-id/XX/REST.pgopt (read with --debug-dir /usr/lib/debug).
# The compile log is debian/pgopt-log, for `pgbuild verify --log`.
#
# Give dpkg-buildpackage -jN: the rules call $(MAKE) themselves, so
# DEB_BUILD_OPTIONS=parallel=N alone leaves the compile serial.
# Build where the archive builds: a clean chroot with only the
# Build-Depends (`pgbuild deb --chroot` makes one with mmdebstrap; sbuild
# does the same, with pgoptcc's install in the chroot).  On a machine with
# more, configure finds it: Debian's postgresql.mk takes the highest
# /usr/bin/llvm-config-N, and with LLVM 15's llvm-config beside the
# Build-Depends' LLVM 14 the package's llvmjit.so links no libLLVM (every
# JIT-compiled query fails); `pgbuild deb` refuses such a machine.
# tests/bench/deb-package builds Debian's postgresql-15 so and checks it.
#
# With a profile bundle (pgbuild bundle create: a training's PGO and BOLT
# profiles, for build daemons that cannot train) in debian/pgopt-bundle, or
# PGOPT_BUNDLE set, every unit the bundle has a profile of is compiled with
# it (the bundle's policy, unless debian/pgopt.policy is there); after the
# build `pgbuild bundle check` fails the build when less than
# PGOPT_MIN_APPLIES percent (default 90) of the PGO profile's weight was
# used, and after the install `pgbuild bundle bolt` rewrites the binaries
# PGOPT_BOLT_BINARIES (shell globs, default Debian's postgres) with the
# bundle's BOLT profile, or fails the build when less than that share of
# its samples applies.  pgbuild is PGOPT_PGBUILD (default pgbuild on PATH).
#
# A bundle is a stranger's: it may change optimization decisions and
# layout, nothing else.  It is checked whole against its manifest at every
# use, before anything of it is copied: first by `pgbuild bundle show`
# before configure (so a bundle with a link, a FIFO, a file its manifest
# does not list or whose sha256 differs, or a path outside it fails the
# package build there, naming the file), then by pgoptcc in every compile
# and link (exit 100), by bundle check and by bundle bolt (pgbuild(1),
# "pgbuild bundle").

PGOPT_MASQ ?= /usr/local/lib/pgoptcc/masq
ifeq ($(wildcard $(PGOPT_MASQ)/gcc),)
$(error pgoptcc-deb.mk: no masquerade compiler $(PGOPT_MASQ)/gcc (set PGOPT_MASQ to LIBDIR/pgoptcc/masq of your pgoptcc install))
endif
PGOPT_BUNDLE ?= $(wildcard $(CURDIR)/debian/pgopt-bundle)
ifneq ($(PGOPT_BUNDLE),)
ifeq ($(wildcard $(PGOPT_BUNDLE)/pgopt-bundle.json),)
$(error pgoptcc-deb.mk: $(PGOPT_BUNDLE) is no profile bundle (no pgopt-bundle.json; pgbuild bundle create makes one))
endif
PGOPT_POLICY ?= $(if $(wildcard $(CURDIR)/debian/pgopt.policy),$(CURDIR)/debian/pgopt.policy,$(PGOPT_BUNDLE)/pgopt.policy)
PGOPT_PGBUILD ?= pgbuild
ifeq ($(shell command -v $(PGOPT_PGBUILD)),)
$(error pgoptcc-deb.mk: no $(PGOPT_PGBUILD) on PATH, which checks the bundle (set PGOPT_PGBUILD to BINDIR/pgbuild of your pgoptcc install))
endif
export PGOPT_BUNDLE
endif
ifeq ($(wildcard $(or $(PGOPT_POLICY),$(CURDIR)/debian/pgopt.policy)),)
$(error pgoptcc-deb.mk: no policy $(or $(PGOPT_POLICY),$(CURDIR)/debian/pgopt.policy) (put one there or set PGOPT_POLICY))
endif

export PATH := $(PGOPT_MASQ):$(PATH)
export PGOPT_POLICY ?= $(CURDIR)/debian/pgopt.policy
export PGOPT_LOGDIR ?= $(CURDIR)/debian/pgopt-log
export PGOPT_RECORDS ?= side
# configure must find `gcc` on PATH (the masquerade) and record that name
unexport CC

# each binary's side file goes into the -dbgsym package that holds its
# .debug file (debhelper builds those in debian/.debhelper/PKG/dbgsym-root
# and has no other hook to add files to them)
execute_after_dh_strip:
	@n=0; for dbg in debian/.debhelper/*/dbgsym-root/usr/lib/debug/.build-id/*/*.debug; do \
		[ -f "$$dbg" ] || continue; \
		id=$${dbg##*/.build-id/}; \
		rec="$(PGOPT_LOGDIR)/records/.build-id/$${id%.debug}.pgopt"; \
		[ -f "$$rec" ] || continue; \
		install -m 0644 "$$rec" "$${dbg%.debug}.pgopt" && n=$$((n + 1)); \
	done; echo "pgoptcc-deb.mk: $$n record side files added to -dbgsym packages"

ifneq ($(PGOPT_BUNDLE),)
PGOPT_MIN_APPLIES ?= 90
PGOPT_BOLT_BINARIES ?= debian/tmp/usr/lib/postgresql/*/bin/postgres

# the bundle against its manifest before the first compile (configure's
# probes are compiles: a refused bundle is one clear error here)
execute_before_dh_auto_configure:
	$(PGOPT_PGBUILD) bundle show $(PGOPT_BUNDLE)

# GCC refused the profile of every function whose control flow changed
# since the training: the build must still have used enough of it
execute_after_dh_auto_build:
	$(PGOPT_PGBUILD) bundle check $(PGOPT_BUNDLE) --log $(PGOPT_LOGDIR) \
		--min-applies $(PGOPT_MIN_APPLIES) --json $(PGOPT_LOGDIR)/bundle-check.json

# BOLT rewrites the installed binaries before dh_strip splits their debug
# information off (their records' side files follow the new build-id)
execute_after_dh_auto_install:
	@if [ -f $(PGOPT_BUNDLE)/bolt/profile.fdata ]; then \
		set -e; n=0; for b in $(PGOPT_BOLT_BINARIES); do \
			[ -f "$$b" ] || continue; \
			$(PGOPT_PGBUILD) bundle bolt $(PGOPT_BUNDLE) "$$b" --log $(PGOPT_LOGDIR) \
				--min-applies $(PGOPT_MIN_APPLIES); n=$$((n + 1)); \
		done; \
		[ $$n -gt 0 ] || { echo "pgoptcc-deb.mk: the bundle has a BOLT profile and no binary matches PGOPT_BOLT_BINARIES ($(PGOPT_BOLT_BINARIES))" >&2; exit 1; }; \
	fi
endif
