# wrapper/wrapper.mk - pgoptcc, the compiler wrapper.
# Everything but the program's own files (the entry point and its own
# options) goes into libwrapper.a so unit tests and the classifier helper
# link the same code.
WRAPPER_MAIN := wrapper/pgoptcc.c wrapper/ownopts.c
WRAPPER_SRC  := $(filter-out $(WRAPPER_MAIN),$(wildcard wrapper/*.c))
WRAPPER_OBJ  := $(WRAPPER_SRC:%.c=$(O)/obj/%.o)
WRAPPER_LIB  := $(O)/obj/libwrapper.a

$(WRAPPER_LIB): $(WRAPPER_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(O)/bin/pgoptcc: $(WRAPPER_MAIN:%.c=$(O)/obj/%.o) $(WRAPPER_LIB) $(POLICY_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ -lm $(ALL_LDFLAGS)

PROGRAMS += $(O)/bin/pgoptcc

# Which GCC pgopt.so is built with (plugin/plugin.mk): see wrapper/compiler.h.
$(O)/obj/wrapper/compiler.o: ALL_CFLAGS += -DPGOPT_PLUGIN_GCC=\"$(PLUGIN_GCC)\" \
	-DPGOPT_PLUGIN_GCC_VERSION=\"$(PLUGIN_GCC_VERSION)\"
$(O)/obj/wrapper/compiler.o: plugin/plugin.mk
