# wrapper/common/common.mk - libcommon.a, the C code pgoptcc and pgbuild
# share (strbuf, strvec, run-command, error, json, sha256, file and directory
# helpers).  Every program links it; the pattern rule below compiles every C
# file of the tree into $(O)/obj, mirroring the source layout.
COMMON_SRC := $(wildcard wrapper/common/*.c)
COMMON_OBJ := $(COMMON_SRC:%.c=$(O)/obj/%.o)
COMMON_LIB := $(O)/obj/libcommon.a

$(O)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(COMMON_LIB): $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
