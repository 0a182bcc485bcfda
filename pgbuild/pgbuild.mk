# pgbuild/pgbuild.mk - pgbuild, the build/bench/gate/report driver.
#
# Subcommands register themselves: a file defines
#     PGBUILD_COMMAND(name, "one-line summary")
#     { ... }
# at the start of a line, and the table in pgbuild/main.c is generated from
# those lines, so adding a command never edits a shared file.
PGBUILD_SRC  := $(filter-out pgbuild/main.c,$(wildcard pgbuild/*.c pgbuild/*/*.c))
PGBUILD_OBJ  := $(PGBUILD_SRC:%.c=$(O)/obj/%.o)
PGBUILD_LIB  := $(O)/obj/libpgbuild.a
PGBUILD_LIBS := -lpq -lelf -lpthread -lm
PQ_INCLUDE   := $(shell pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)

$(O)/gen/commands.inc: $(PGBUILD_SRC) pgbuild/pgbuild.mk
	@mkdir -p $(dir $@)
	sed -n 's/^PGBUILD_COMMAND(\([a-z]*\), *\(".*"\)).*/PGBUILD_CMD(\1, \2)/p' \
		$(PGBUILD_SRC) | LC_ALL=C sort > $@.tmp && mv $@.tmp $@

# -Iwrapper: pgbuild uses pgoptcc's own policy parser (libwrapper.a, linked below).
$(O)/obj/pgbuild/%.o: ALL_CFLAGS += -I$(PQ_INCLUDE) -Ipgbuild -Iwrapper -I$(O)/gen
$(O)/obj/pgbuild/main.o: $(O)/gen/commands.inc

$(PGBUILD_LIB): $(PGBUILD_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# libwrapper.a: pgbuild tune checks its policies with pgoptcc's own parser.
$(O)/bin/pgbuild: $(O)/obj/pgbuild/main.o $(PGBUILD_LIB) $(WRAPPER_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(PGBUILD_LIBS) $(ALL_LDFLAGS)

PROGRAMS += $(O)/bin/pgbuild
