# tests/tests.mk - the test suites.
#
#   tests/unit/test-*.c   cmocka unit tests, one binary each
#   tests/t/*.t           TAP integration suites (prove; real gcc, real server)
#   tests/pg/*.t          PostgreSQL end-to-end suites (make check-pg)
#   tests/bench/*         benchmarks of the tool against peers (make bench)
UNIT_SRC   := $(wildcard tests/unit/test-*.c)
UNIT_TESTS := $(UNIT_SRC:tests/unit/%.c=$(O)/tests/%)
# libpgbuild first: it uses the policy library, which uses libcommon
TEST_LINK  = $(PGBUILD_LIB) $(WRAPPER_LIB) $(POLICY_LIB) $(COMMON_LIB) $(PGBUILD_LIBS)

$(O)/obj/tests/%.o: ALL_CFLAGS += -I$(PQ_INCLUDE) -I$(O)/gen
$(O)/tests/test-%: $(O)/obj/tests/unit/test-%.o $(WRAPPER_LIB) $(PGBUILD_LIB) $(POLICY_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(TEST_LINK) -lcmocka $(ALL_LDFLAGS)

PROVE ?= prove
PROVE_FLAGS ?= --timer
# prove's harness with a last summary of every skipped check and where
# (tests/lib/TAP/Harness/Skips.pm): prove itself shows a file with skips
# as plain "ok".
PROVE_HARNESS = env PERL5LIB=$(abspath tests/lib)$${PERL5LIB:+:$$PERL5LIB} $(PROVE) \
	--harness TAP::Harness::Skips
TAP_TESTS ?= $(sort $(wildcard tests/t/*.t))
# check-pg runs every PostgreSQL suite; PG_TESTS picks some (each suite
# builds what it needs through tests/pg/lib.sh, shared builds made once).
PG_TESTS ?= $(sort $(wildcard tests/pg/*.t))
# The long suites (tests/pg/lib.sh's e2e_extra: recipe, incremental, clang,
# tune, optimize) and three whose property a CI suite also checks
# (plugin-identical: t/25; bench-pg: t/41-43 on Debian's PostgreSQL; noise:
# pg/51's floor) are visible skips unless named here, as PostgreSQL's
# PG_TEST_EXTRA: make check-pg PGOPT_TEST_EXTRA=all runs them too (about
# 50 min more).
PGOPT_TEST_EXTRA ?=
export PGOPT_TEST_EXTRA

check: check-unit check-tap

# cmocka prints one summary per binary; a failing binary fails the target.
# Then, like the TAP suites' summary, every skipped test with its reason
# (skip_because in tests/unit/fixture.h prints "# SKIP test: reason"); a
# skip without a reason (a bare cmocka skip()) fails the target.
check-unit: $(UNIT_TESTS)
	@fail=0; skips=; bare=0; for t in $(UNIT_TESTS); do \
		echo "== $$t"; out=$$($$t 2>&1); rc=$$?; printf '%s\n' "$$out"; \
		[ $$rc = 0 ] || fail=1; \
		why=$$(printf '%s\n' "$$out" | sed -n "s|^# SKIP |  $${t##*/}: |p"); \
		n=$$(printf '%s\n' "$$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test(s).*/\1/p'); \
		r=$$(printf '%s' "$$why" | grep -c .); \
		[ -z "$$n" ] || [ "$$n" -le "$$r" ] || { bare=1; echo "$$t: $$n skipped, $$r with a reason"; }; \
		[ -z "$$why" ] || skips="$$skips$$why\n"; \
	done; \
	if [ -n "$$skips" ]; then printf 'unit tests skipped:\n%b' "$$skips"; \
	else echo "unit tests skipped: none"; fi; \
	[ $$bare = 0 ] || { echo "check-unit: a test skipped without a reason (use skip_because)"; fail=1; }; \
	exit $$fail

# Two at a time (the machine's cores; each suite works in its own temporary
# directory), except the suites whose checks time something (tps, server
# CPU, a budget, a timeout): a line "# tap: alone" in their header runs
# them one by one after the others, with the machine to themselves.
# TAP_JOBS=1 runs everything one by one.
TAP_JOBS ?= 2
TAP_ALONE = $(filter $(shell grep -l '^\# tap: alone' tests/t/*.t),$(TAP_TESTS))
TAP_PAR = $(filter-out $(TAP_ALONE),$(TAP_TESTS))
check-tap: all
	@rc=0; \
	$(if $(TAP_PAR),PGOPT_BUILD=$(abspath $(O)) $(PROVE_HARNESS) $(PROVE_FLAGS) -j$(TAP_JOBS) $(TAP_PAR) || rc=1;) \
	$(if $(TAP_ALONE),PGOPT_BUILD=$(abspath $(O)) $(PROVE_HARNESS) $(PROVE_FLAGS) $(TAP_ALONE) || rc=1;) \
	exit $$rc

# PostgreSQL builds its generated headers only when its own make is at
# MAKELEVEL 0: the suites run outside this make's environment.
check-pg: all
	env -u MAKELEVEL -u MAKEFLAGS -u MFLAGS PGOPT_BUILD=$(abspath $(O)) $(PROVE_HARNESS) -v $(PROVE_FLAGS) $(PG_TESTS)

# Every script runs; a script that fails (non-zero exit) fails the target,
# named at the end.  BENCH_SCRIPTS picks some.
BENCH_SCRIPTS ?= $(sort $(wildcard tests/bench/*))
bench: all
	@failed=; for b in $(BENCH_SCRIPTS); do \
		[ -x "$$b" ] || continue; \
		echo "== $$b"; "$$b" || failed="$$failed $$b"; \
	done; \
	if [ -n "$$failed" ]; then echo "make bench: failed:$$failed" >&2; exit 1; fi
include tests/fuzz/fuzz.mk
