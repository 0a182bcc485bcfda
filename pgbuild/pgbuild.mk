# pgbuild/pgbuild.mk - pgbuild, the build/bench/gate/report driver.
#
# Layout: pgbuild/cmd/main.c dispatches to pgbuild/cmd/NAME.c, one file per
# subcommand (its options, their checks and calls to the phases of an
# engine; cmd/cmd.h is their header); pgbuild/pgbuild.h and self.c are the
# base every part includes; the engines live in one directory per domain:
# bench/, bolt/, build/, bundle/, cli/ (the option vocabulary the commands share),
# cluster/, elf/, explain/, gate/, metric/ (and metric/shim/, below),
# noise/, optimize/, pipeline/, profile/, report/, stage/, tune/ (and man/,
# no sources: one manual page per command, below).  Their order
# (which may include which) is pgbuild/README.md's layer diagram, checked
# by tests/t/94.  Every pgbuild/*.c and pgbuild/*/*.c is compiled, so a new
# command or a new engine directory needs no edit here.
#
# Subcommands register themselves: a file in cmd/ defines
#     PGBUILD_COMMAND(name, "one-line summary")
#     { ... }
# at the start of a line, and the table in pgbuild/cmd/main.c is generated
# from those lines (sorted by name), so adding a command never edits a
# shared file.
PGBUILD_SRC  := $(filter-out pgbuild/cmd/main.c,$(wildcard pgbuild/*.c pgbuild/*/*.c))
PGBUILD_CMDS := $(sort $(filter-out pgbuild/cmd/main.c,$(wildcard pgbuild/cmd/*.c)))
PGBUILD_OBJ  := $(PGBUILD_SRC:%.c=$(O)/obj/%.o)
PGBUILD_LIB  := $(O)/obj/libpgbuild.a
PGBUILD_LIBS := -lpq -lelf -lpthread -lm
PQ_INCLUDE   := $(shell pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)

$(O)/gen/commands.inc: $(PGBUILD_CMDS) pgbuild/pgbuild.mk
	@mkdir -p $(dir $@)
	sed -n 's/^PGBUILD_COMMAND(\([a-z]*\), *\(".*"\)).*/PGBUILD_CMD(\1, \2)/p' \
		$(PGBUILD_CMDS) | LC_ALL=C sort > $@.tmp && mv $@.tmp $@

$(O)/obj/pgbuild/%.o: ALL_CFLAGS += -I$(PQ_INCLUDE) -I$(O)/gen
$(O)/obj/pgbuild/cmd/main.o: $(O)/gen/commands.inc

$(PGBUILD_LIB): $(PGBUILD_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# libpolicy.a: pgbuild reads, checks and writes policies with pgoptcc's own
# policy library (wrapper/policy/).
$(O)/bin/pgbuild: $(O)/obj/pgbuild/cmd/main.o $(PGBUILD_LIB) $(POLICY_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(PGBUILD_LIBS) $(ALL_LDFLAGS)

PROGRAMS += $(O)/bin/pgbuild

# frozen-clock.so: the LD_PRELOAD library of the deterministic metrics'
# single-user runs (pgbuild/metric/shim/frozen-clock.c; a subdirectory, so
# the wildcard above leaves it out of libpgbuild).  Installed next to the
# plugin in LIBDIR/pgoptcc.
FROZEN_CLOCK := $(O)/lib/pgoptcc/frozen-clock.so
$(FROZEN_CLOCK): pgbuild/metric/shim/frozen-clock.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -Wall -Wextra $(WERROR) -fPIC -shared $(CPPFLAGS) $(CFLAGS) \
		-o $@ $< $(LDFLAGS)
PLUGINS += $(FROZEN_CLOCK)

# The manual: pgbuild.1 is the overview, pgbuild/man/pgbuild-CMD.1 one page
# per command (as git's and perf's), installed into MANDIR/man1 with it
# (the Makefile's MAN_PAGES), so `man pgbuild-gate` works.  tests/t/91
# holds each page to its command's --help.
PGBUILD_MAN := pgbuild/pgbuild.1 $(sort $(wildcard pgbuild/man/*.1))
