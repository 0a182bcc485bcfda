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
# tests/bench/deb-package builds Debian's postgresql-15 so and checks it.

PGOPT_MASQ ?= /usr/local/lib/pgoptcc/masq
ifeq ($(wildcard $(PGOPT_MASQ)/gcc),)
$(error pgoptcc-deb.mk: no masquerade compiler $(PGOPT_MASQ)/gcc (set PGOPT_MASQ to LIBDIR/pgoptcc/masq of your pgoptcc install))
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
