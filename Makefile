# Makefile - builds pgoptcc, the pgopt.so GCC plugin and pgbuild, and runs
# the test suites.  Each component adds its rules in its own fragment
# (wrapper/common/common.mk, wrapper/wrapper.mk, plugin/plugin.mk,
# pgbuild/pgbuild.mk, tests/tests.mk).
#
#   make                 build everything into build/ (same layout as install)
#   make install [DESTDIR=DIR] [PREFIX=/usr/local] [BINDIR=...] [LIBDIR=...]
#                [DATADIR=...] [MANDIR=...]
#   make deps            install the Debian packages the project needs
#   make deps-deb        deps + what tests/bench/deb-package needs (the build
#                        dependencies of Debian's postgresql-15, diffoscope,
#                        mmdebstrap for pgbuild deb --chroot)
#   make check           unit + integration suites (minutes)
#   make check-pg        PostgreSQL 15 end-to-end suite (tens of minutes)
#   make test            deps + check + check-pg (the README's test command)
#   make demo            deps + the whole pipeline on examples/coscup-2017.policy
#   make bench           tests/bench/*: fails when any script fails
#   make SANITIZE=address,undefined check
#
# Install layout (GNU-style variables, absolute paths):
#   BINDIR/pgoptcc, BINDIR/pgbuild          (BINDIR  = $(PREFIX)/bin)
#   LIBDIR/pgoptcc/pgopt.so, .../masq/{gcc,cc,g++,c++} (LIBDIR = $(PREFIX)/lib)
#   DATADIR/pgoptcc/tune-candidates.txt,    (DATADIR = $(PREFIX)/share)
#   DATADIR/pgoptcc/examples/*.policy,
#   DATADIR/pgoptcc/examples/pgoptcc-deb.mk (the debian/rules fragment)
#   MANDIR/man1/pgoptcc.1, pgbuild.1, pgbuild-CMD.1 (MANDIR = $(DATADIR)/man)
#   MANDIR/man5/pgopt-policy.5
# The programs find LIBDIR/pgoptcc and DATADIR/pgoptcc through the paths
# from BINDIR to them, compiled in relative (so a moved tree keeps working):
# give the same variables to `make` and `make install`.  DESTDIR is only
# prepended when installing (staged installs, Debian packages).
#
# Flags: CFLAGS (default -O2 -g), CXXFLAGS (the plugin, default -O2 -g),
# CPPFLAGS and LDFLAGS are the user's, from the environment or the command
# line (e.g. Debian's hardening flags: eval "$(dpkg-buildflags --export=sh)"),
# added after the project's own.  WERROR (default -Werror) makes warnings
# errors: developers, `make check` and CI keep it; a packager building with
# a newer compiler may set WERROR= to keep new warnings warnings.

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
DATADIR    ?= $(PREFIX)/share
MANDIR     ?= $(DATADIR)/man
CFLAGS     ?= -O2 -g
CXXFLAGS   ?= -O2 -g
WERROR     ?= -Werror
ifeq ($(origin CC),default)
CC         := gcc
endif
ifeq ($(origin CXX),default)
CXX        := g++
endif
SANITIZE   ?=
# A sanitized build gets a directory of its own, so `make check
# SANITIZE=...` never runs the plain binaries of build/ (make would see them
# up to date and not rebuild).
comma      := ,
ifneq ($(origin O),command line)
ifeq ($(SANITIZE),)
O          := build
else
O          := build/san-$(subst $(comma),-,$(SANITIZE))
endif
endif
VERSION    := 0.1.0

BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra $(WERROR) \
	-Wno-unused-parameter -I. \
	-DPGOPT_VERSION=\"$(VERSION)\"
SAN_CFLAGS :=
ifneq ($(SANITIZE),)
# -O1 keeps stacks readable.  With the sanitizers' checks inlined, gcc 12's
# flow-based warnings see impossible paths (a "null" %s after a NULL check,
# a negative poll() count), so warnings stay warnings here: the normal build
# is the one that keeps them errors.
SAN_CFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -O1 -Wno-error \
	-fno-sanitize-recover=all
SAN_LDFLAGS := -fsanitize=$(SANITIZE)
# Every finding stops the program (UBSan would print and go on), so a test
# sees it.  pgoptcc and pgbuild exit holding their state on purpose: leaks
# are checked where they matter, in the unit tests and the fuzzers, not at
# the exit of whole programs in the integration suites.
check-tap check-pg: export ASAN_OPTIONS ?= detect_leaks=0
export UBSAN_OPTIONS ?= print_stacktrace=1
endif
# the sanitizers' -O1 and -Wno-error come after the user's CFLAGS
ALL_CFLAGS = $(BASE_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(SAN_CFLAGS)
ALL_LDFLAGS = $(SAN_LDFLAGS) $(LDFLAGS)

# Filled by the fragments.
PROGRAMS :=
PLUGINS  :=
UNIT_TESTS :=
TEST_HELPERS :=

.PHONY: all install deps deps-deb check check-unit check-tap check-pg clean bench fuzz test demo
all:

# Every C file of the tree compiles into $(O)/obj, mirroring the source
# layout (wrapper/common/strbuf.c -> $(O)/obj/wrapper/common/strbuf.o),
# with its dependency file beside it (-MMD -MP; read at the end).  A
# fragment adds flags for a directory or a file with a target-specific
# `ALL_CFLAGS += ...`.
$(O)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

include wrapper/common/common.mk
include wrapper/policy/policy.mk
include wrapper/wrapper.mk
include plugin/plugin.mk
include pgbuild/pgbuild.mk
include tests/tests.mk

# Where the installed programs find their files: the paths from BINDIR to
# LIBDIR/pgoptcc and DATADIR/pgoptcc, relative, written into
# $(O)/gen/installdirs-gen.h only when they change (so `make LIBDIR=...`
# rebuilds exactly what depends on them).  The build tree has the layout of
# a default install ($(O)/bin, $(O)/lib/pgoptcc, $(O)/share/pgoptcc); the
# programs fall back to it when the compiled-in place does not exist
# (wrapper/common/installdirs.c).
relpath = $(shell realpath -s -m --relative-to='$(1)' '$(2)')
abscheck = $(if $(filter /%,$($(1))),,$(error $(1)=$($(1)) must be an absolute path))
$(foreach v,BINDIR LIBDIR DATADIR MANDIR,$(call abscheck,$(v)))
BIN_TO_PKGLIB  := $(call relpath,$(BINDIR),$(LIBDIR)/pgoptcc)
BIN_TO_PKGDATA := $(call relpath,$(BINDIR),$(DATADIR)/pgoptcc)
MASQ_TO_BIN    := $(call relpath,$(LIBDIR)/pgoptcc/masq,$(BINDIR))
$(O)/gen/installdirs-gen.h: FORCE
	@mkdir -p $(dir $@)
	@printf '%s\n' '/* generated by the Makefile from BINDIR, LIBDIR and DATADIR */' \
		'#define PGOPT_BIN_TO_PKGLIB "$(BIN_TO_PKGLIB)"' \
		'#define PGOPT_BIN_TO_PKGDATA "$(BIN_TO_PKGDATA)"' > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(O)/obj/wrapper/common/installdirs.o: $(O)/gen/installdirs-gen.h
$(O)/obj/wrapper/common/installdirs.o: ALL_CFLAGS += -I$(O)/gen
.PHONY: FORCE
FORCE:

# Masquerade links: put LIBDIR/pgoptcc/masq first on PATH and every
# "gcc"/"cc"/"g++"/"c++" call of a build goes through pgoptcc while
# configure records the plain compiler name (for installs shipped to
# machines without pgoptcc; C++ compiles pass through, links by g++ are
# pgoptcc's links).
MASQ_NAMES := gcc cc g++ c++
$(O)/lib/pgoptcc/masq/%: | $(O)/bin/pgoptcc
	@mkdir -p $(dir $@)
	ln -sfn ../../../bin/pgoptcc $@
MASQ_LINKS := $(MASQ_NAMES:%=$(O)/lib/pgoptcc/masq/%)

# Files the defaults need (pgbuild tune's candidate list), and the example
# policies, in DATADIR/pgoptcc; the build tree gets the same copies.
DATA_FILES := examples/tune-candidates.txt
EXAMPLE_POLICIES := $(wildcard examples/*.policy)
BUILD_DATA := $(DATA_FILES:examples/%=$(O)/share/pgoptcc/%) \
	$(O)/share/pgoptcc/examples/pgoptcc-deb.mk
$(O)/share/pgoptcc/examples/%: examples/%
	@mkdir -p $(dir $@)
	cp $< $@
$(O)/share/pgoptcc/%: examples/%
	@mkdir -p $(dir $@)
	cp $< $@
MAN_PAGES := wrapper/pgoptcc.1 $(PGBUILD_MAN)
MAN5_PAGES := wrapper/pgopt-policy.5

all: $(PROGRAMS) $(PLUGINS) $(UNIT_TESTS) $(TEST_HELPERS) $(MASQ_LINKS) $(BUILD_DATA)

# Only what it installs (no test programs): a packager's `make install`
# needs neither cmocka nor clang.
install: $(PROGRAMS) $(PLUGINS) $(BUILD_DATA)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pgoptcc/masq \
		$(DESTDIR)$(DATADIR)/pgoptcc/examples $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man5
	install -m 0755 $(PROGRAMS) $(DESTDIR)$(BINDIR)/
	$(if $(PLUGINS),install -m 0755 $(PLUGINS) $(DESTDIR)$(LIBDIR)/pgoptcc/)
	for n in $(MASQ_NAMES); do ln -sfn $(MASQ_TO_BIN)/pgoptcc $(DESTDIR)$(LIBDIR)/pgoptcc/masq/$$n; done
	install -m 0644 $(DATA_FILES) $(DESTDIR)$(DATADIR)/pgoptcc/
	install -m 0644 $(EXAMPLE_POLICIES) examples/pgoptcc-deb.mk $(DESTDIR)$(DATADIR)/pgoptcc/examples/
	install -m 0644 $(MAN_PAGES) $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(MAN5_PAGES) $(DESTDIR)$(MANDIR)/man5/

# ---- make deps: the Debian packages the whole project needs ----
# tests/lib/install-deps.sh: the list (and why each package is there), the
# deb-src entry `pgbuild build` needs, as root or through sudo; quiet and
# untouched when nothing is missing.  A script, so a person can read it and
# run it alone; in tests/lib, with the suites' scripts, since most of the
# packages are the suites' (make test runs it first).  DEPS_PKGS, when
# given, replaces its list.
deps:
	@sh tests/lib/install-deps.sh $(DEPS_PKGS)

# tests/bench/deb-package's needs beyond make deps: the build dependencies
# of Debian's postgresql-15 (its debian/control, arch build, nocheck, but
# IPC::Run and IO::Pty, which its configure wants whatever the profile:
# postgresql.mk passes --enable-tap-tests always),
# diffoscope (comparing two package builds) and mmdebstrap (pgbuild deb
# --chroot: the archive's build environment, a clean chroot with only the
# Build-Depends).
DEB_DEPS := autoconf bison clang debhelper dh-exec docbook-xml docbook-xsl \
	dpkg-dev flex gettext libicu-dev libkrb5-dev libldap2-dev liblz4-dev \
	libpam0g-dev libperl-dev libreadline-dev libselinux1-dev libssl-dev \
	libsystemd-dev libxml2-dev libxml2-utils libxslt1-dev libzstd-dev \
	llvm-dev lz4 mawk perl pkg-config postgresql-common python3-dev \
	libipc-run-perl libio-pty-perl \
	systemtap-sdt-dev tcl-dev uuid-dev xsltproc zlib1g-dev zstd \
	diffoscope-minimal mmdebstrap
deps-deb: deps
	@sh tests/lib/install-deps.sh $(DEB_DEPS)

# The README's two commands for a fresh machine.
test: deps
	$(MAKE) all
	$(MAKE) check
	$(MAKE) check-pg

DEMO_DIR  ?= $(O)/demo
# What make demo runs (a run's output: examples/RESULTS.md): both pgbench workloads, 8 interleaved
# pairs of 3 s each (tps: bounds, "not slower"; 4 tests, two bounds and two
# claims, are one family, and Holm's first step at 0.625% needs 8 pairs), then instructions and the
# cycles estimate per transaction (callgrind), the estimate with a claim of
# 1% less, decided at the two-build layout floor (run's floor stage, here of
# 10 relinked variants: 1.96 x sqrt(2) x the layout SD at its 95% chi-square
# bound, 1.645x the SD over 10 variants where 5 give 2.372x; tests/pg/51's
# floor of the baseline, 5 variants, SD 0.33% on select-only, decides at
# 2.2%, too wide for a claim on the ~2.9% the flags gave; 10 variants make
# it about 1.5%).
DEMO_ARGS ?= --workload select-only,tpcb --gate 'select-only>=1.00,tpcb>=1.00' \
	--gate 'select-only.cycles>=1.01,tpcb.cycles>=1.01' \
	--pairs 8 --duration 3 --metric tps,instructions,cycles --noise-variants 10
# A gate verdict of "fail" (exit 1) or "undecided" (exit 3) is a result, not
# a broken demo; exit 2 (could not build or measure) fails the target.  The
# last line says which happened, in words, and where the report is.
demo: deps
	$(MAKE) all
	$(O)/bin/pgbuild run --policy examples/coscup-2017.policy --workdir $(DEMO_DIR) \
		$(DEMO_ARGS); rc=$$?; \
	case $$rc in \
	0) what="the gate passed" ;; \
	1) what="the gate failed (a threshold missed, or a regression or correctness failure)" ;; \
	3) what="the gate is undecided (the evidence neither reaches nor rules out a claim: more pairs, or a smaller claim)" ;; \
	*) what="the gate could not run (pgbuild run exited $$rc)" ;; \
	esac; \
	report=$(DEMO_DIR)/report.html; [ -f "$$report" ] || report="$$report not written"; \
	echo "demo: $$what; report: $$report"; \
	[ $$rc -le 1 ] || [ $$rc = 3 ]

clean:
	rm -rf $(O)

-include $(shell find $(O)/obj -name '*.d' 2>/dev/null)
