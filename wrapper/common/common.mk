# wrapper/common/common.mk - libcommon.a, the C code pgoptcc and pgbuild
# share (strbuf, strvec, run-command, error, json, sha256, file and directory
# helpers).  Every program links it.
COMMON_SRC := $(wildcard wrapper/common/*.c)
COMMON_OBJ := $(COMMON_SRC:%.c=$(O)/obj/%.o)
COMMON_LIB := $(O)/obj/libcommon.a

$(COMMON_LIB): $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
