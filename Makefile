# Makefile - builds pgoptcc, the pgopt.so GCC plugin and pgbuild, and runs
# the test suites.  Each component adds its rules in its own fragment
# (wrapper/common/common.mk, wrapper/wrapper.mk, plugin/plugin.mk,
# pgbuild/pgbuild.mk, tests/tests.mk).
#
#   make                 build everything into build/ (same layout as install)
#   make install PREFIX=DIR
#   make deps            install the Debian packages the project needs
#   make check           unit + integration suites (minutes)
#   make check-pg        PostgreSQL 15 end-to-end suite (tens of minutes)
#   make test            deps + check + check-pg (the README's test command)
#   make demo            deps + the whole pipeline on examples/coscup-2017.policy
#   make SANITIZE=address,undefined check

PREFIX     ?= /usr/local
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

BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror \
	-Wno-unused-parameter -Iwrapper/common \
	-DPGOPT_VERSION=\"$(VERSION)\"
ifneq ($(SANITIZE),)
# -O1 keeps stacks readable.  With the sanitizers' checks inlined, gcc 12's
# flow-based warnings see impossible paths (a "null" %s after a NULL check,
# a negative poll() count), so warnings stay warnings here: the normal build
# is the one that keeps them errors.
BASE_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -O1 -Wno-error \
	-fno-sanitize-recover=all
SAN_LDFLAGS := -fsanitize=$(SANITIZE)
# Every finding stops the program (UBSan would print and go on), so a test
# sees it.  pgoptcc and pgbuild exit holding their state on purpose: leaks
# are checked where they matter, in the unit tests and the fuzzers, not at
# the exit of whole programs in the integration suites.
check-tap check-pg: export ASAN_OPTIONS ?= detect_leaks=0
export UBSAN_OPTIONS ?= print_stacktrace=1
endif
ALL_CFLAGS = $(BASE_CFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(SAN_LDFLAGS) $(LDFLAGS)

# Filled by the fragments.
PROGRAMS :=
PLUGINS  :=
UNIT_TESTS :=
TEST_HELPERS :=

.PHONY: all install deps check check-unit check-tap check-pg clean bench fuzz test demo
all:

include wrapper/common/common.mk
include wrapper/wrapper.mk
include plugin/plugin.mk
include pgbuild/pgbuild.mk
include tests/tests.mk

# Masquerade links: put $(PREFIX)/lib/pgoptcc/masq first on PATH and every
# "gcc"/"cc" call of a build goes through pgoptcc while configure records the
# plain compiler name (for installs shipped to machines without pgoptcc).
MASQ_NAMES := gcc cc
$(O)/lib/pgoptcc/masq/%: | $(O)/bin/pgoptcc
	@mkdir -p $(dir $@)
	ln -sfn ../../../bin/pgoptcc $@
MASQ_LINKS := $(MASQ_NAMES:%=$(O)/lib/pgoptcc/masq/%)

all: $(PROGRAMS) $(PLUGINS) $(UNIT_TESTS) $(TEST_HELPERS) $(MASQ_LINKS)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pgoptcc
	install -m 0755 $(PROGRAMS) $(DESTDIR)$(PREFIX)/bin/
	$(if $(PLUGINS),install -m 0755 $(PLUGINS) $(DESTDIR)$(PREFIX)/lib/pgoptcc/)
	install -d $(DESTDIR)$(PREFIX)/lib/pgoptcc/masq
	for n in $(MASQ_NAMES); do ln -sfn ../../../bin/pgoptcc $(DESTDIR)$(PREFIX)/lib/pgoptcc/masq/$$n; done

# ---- make deps: the Debian packages the whole project needs ----
# Idempotent and quiet when nothing is missing; as root, or through sudo.
# Adds a deb-src entry derived from the machine's own apt sources when there
# is none, so that `pgbuild build` can fetch PostgreSQL's source package.
# bolt-15: BOLT 15 (llvm-bolt, merge-fdata, perf2bolt under /usr/lib/llvm-15).
DEPS_PKGS := gcc g++ make gcc-12-plugin-dev libelf-dev libpq-dev libcmocka-dev \
	perl ccache distcc dpkg-dev postgresql-15 postgresql-client-15 \
	libreadline-dev zlib1g-dev bison flex valgrind util-linux xz-utils \
	clang libclang-rt-14-dev chromium \
	meson ninja-build autoconf linux-perf libxml2-utils procps iproute2 \
	bolt-15

deps: SHELL := /bin/sh
deps:
	@set -eu; \
	SUDO=; \
	if [ "$$(id -u)" != 0 ]; then \
		if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else \
			echo "make deps: error: must run as root (or have sudo) to install: $(DEPS_PKGS)" >&2; \
			exit 1; \
		fi; \
	fi; \
	missing=; \
	for p in $(DEPS_PKGS); do \
		dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q 'install ok installed' || \
			missing="$$missing $$p"; \
	done; \
	need_src=0; \
	grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/ || \
		need_src=1; \
	if [ -z "$$missing" ] && [ "$$need_src" = 0 ]; then exit 0; fi; \
	if [ "$$need_src" = 1 ]; then \
		for f in /etc/apt/sources.list.d/*.sources; do \
			[ -f "$$f" ] || continue; \
			case "$$f" in *pgoptcc*) continue;; esac; \
			grep -q '^Types: deb$$' "$$f" || continue; \
			sed 's/^Types: deb$$/Types: deb-src/' "$$f" | \
				$$SUDO tee "/etc/apt/sources.list.d/pgoptcc-src-$$(basename "$$f")" >/dev/null; \
		done; \
		if [ -f /etc/apt/sources.list ] && grep -qE '^deb ' /etc/apt/sources.list; then \
			sed -n 's/^deb /deb-src /p' /etc/apt/sources.list | \
				$$SUDO tee /etc/apt/sources.list.d/pgoptcc-src.list >/dev/null; \
		fi; \
	fi; \
	echo "make deps: installing:$${missing:- (none; adding deb-src)}" >&2; \
	export DEBIAN_FRONTEND=noninteractive; \
	$$SUDO apt-get update -qq; \
	if [ -n "$$missing" ]; then \
		$$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

# The README's two commands for a fresh machine.
test: deps
	$(MAKE) all
	$(MAKE) check
	$(MAKE) check-pg

DEMO_DIR  ?= $(O)/demo
# What the README's demo output shows: both pgbench workloads, 6 interleaved
# pairs of 3 s each, then instructions per transaction (callgrind).
DEMO_ARGS ?= --workload select-only,tpcb --gate 'select-only>=1.00,tpcb>=1.00' \
	--pairs 6 --duration 3 --metric both
# A gate verdict of "fail" (exit 1) is a result, not a broken demo; exit 2
# (could not build or measure) fails the target.
demo: deps
	$(MAKE) all
	$(O)/bin/pgbuild run --policy examples/coscup-2017.policy --workdir $(DEMO_DIR) \
		--html $(DEMO_DIR)/report.html $(DEMO_ARGS); rc=$$?; \
	echo "demo: pgbuild run exited $$rc (0 gate passed, 1 gate failed, 2 error); report: $(DEMO_DIR)/report.html"; \
	[ $$rc -le 1 ]

clean:
	rm -rf $(O)

-include $(shell find $(O)/obj -name '*.d' 2>/dev/null)
