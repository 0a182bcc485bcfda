# tests/fuzz/fuzz.mk - libFuzzer harnesses (clang, ASan + UBSan).
#
#   make fuzz FUZZ_SECONDS=60   run every harness for N seconds (default 10)
#   make fuzz FUZZ=json         only the harnesses named (policy settings classify json elfrec report)
#   make fuzz-replay            run the committed corpora once (no fuzzing)
#
# The corpora in tests/fuzz/corpus/<harness>/ are seeds plus every input
# that ever crashed; new inputs a run finds go to build/fuzz/work/<harness>,
# crashes to build/fuzz/crash-<harness>-*.  Copy a crash into the corpus
# when fixing it (never as *.o or *.a: .gitignore drops those names).  The same harnesses are also linked, without libFuzzer, as
# build/tests/fuzz-replay-<harness> (tests/fuzz/replay.c): `make check`
# replays the corpora through the normal build (tests/t/80-fuzz-replay.t).
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 10
FUZZ         ?= policy settings classify json elfrec report
FUZZ_ARGS    ?=
FUZZ_CFLAGS  := -g -O1 -D_GNU_SOURCE -std=c11 -I. \
	-I$(PQ_INCLUDE) \
	-DPGOPT_VERSION=\"$(VERSION)\" -fno-omit-frame-pointer \
	-fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_LIB_SRC := $(COMMON_SRC) $(POLICY_SRC) $(WRAPPER_SRC) pgbuild/elf/elfrec.c
FUZZ_LIB_OBJ := $(FUZZ_LIB_SRC:%.c=$(O)/fuzz/obj/%.o)
FUZZ_BINS    := $(FUZZ:%=$(O)/fuzz/fuzz-%)
# The report harness calls pgbuild's loaders: pgbuild's objects as an
# archive, so only what they need is linked.
FUZZ_PGBUILD_OBJ := $(PGBUILD_SRC:%.c=$(O)/fuzz/obj/%.o)
FUZZ_PGBUILD_LIB := $(O)/fuzz/libpgbuild.a

$(O)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<
$(FUZZ_PGBUILD_LIB): $(FUZZ_PGBUILD_OBJ)
	rm -f $@ && ar rcs $@ $^
$(O)/fuzz/fuzz-%: tests/fuzz/fuzz-%.c $(FUZZ_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(FUZZ_LINK)
FUZZ_LINK := -lelf
$(O)/fuzz/fuzz-report: $(FUZZ_PGBUILD_LIB)
$(O)/fuzz/fuzz-report: FUZZ_LINK := $(PGBUILD_LIBS)

.PHONY: fuzz fuzz-build fuzz-replay
fuzz fuzz-replay: SHELL := /bin/bash
.SECONDARY: $(FUZZ_LIB_OBJ) $(FUZZ_PGBUILD_OBJ)
fuzz-build: $(FUZZ_BINS)

# -rss_limit_mb and -timeout turn memory blow-ups and hangs into findings.
# Paths are absolute: the classify harness works in an empty directory.
fuzz: fuzz-build
	@for h in $(FUZZ); do \
		mkdir -p $(O)/fuzz/work/$$h; \
		echo "== fuzz-$$h for $(FUZZ_SECONDS)s"; \
		$(O)/fuzz/fuzz-$$h -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
			-rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix=$(abspath $(O))/fuzz/crash-$$h- $(FUZZ_ARGS) \
			$(abspath $(O))/fuzz/work/$$h $(CURDIR)/tests/fuzz/corpus/$$h 2>&1 | \
			grep -E '^(stat::number_of_executed_units|stat::peak_rss|==[0-9]+==|SUMMARY|Done|INFO: a leak)' \
			|| true; \
		test "$${PIPESTATUS[0]}" = 0 || { echo "fuzz-$$h: crash, see $(O)/fuzz/crash-$$h-*"; exit 1; }; \
	done

fuzz-replay: fuzz-build
	@for h in $(FUZZ); do \
		$(O)/fuzz/fuzz-$$h -runs=0 $(CURDIR)/tests/fuzz/corpus/$$h 2>&1 | tail -n 1; \
		test "$${PIPESTATUS[0]}" = 0 || exit 1; \
	done

# Replay binaries in the ordinary build (part of `make all`).
FUZZ_REPLAY := $(FUZZ:%=$(O)/tests/fuzz-replay-%)
$(O)/tests/fuzz-replay-%: $(O)/obj/tests/fuzz/fuzz-%.o $(O)/obj/tests/fuzz/replay.o \
		$(WRAPPER_LIB) $(PGBUILD_LIB) $(POLICY_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $(filter %.o,$^) $(TEST_LINK) $(ALL_LDFLAGS)
.SECONDARY: $(FUZZ:%=$(O)/obj/tests/fuzz/fuzz-%.o) $(O)/obj/tests/fuzz/replay.o
TEST_HELPERS += $(FUZZ_REPLAY)

-include $(shell find $(O)/fuzz/obj -name '*.d' 2>/dev/null)
# installdirs.c includes the paths the Makefile generates
$(O)/fuzz/obj/wrapper/common/installdirs.o: $(O)/gen/installdirs-gen.h
$(O)/fuzz/obj/wrapper/common/installdirs.o: FUZZ_CFLAGS += -I$(O)/gen
