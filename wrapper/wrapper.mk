# wrapper/wrapper.mk - pgoptcc, the compiler wrapper.
# Everything but the entry point goes into libwrapper.a so unit tests and the
# classifier helper link the same code.
WRAPPER_SRC  := $(filter-out wrapper/pgoptcc.c,$(wildcard wrapper/*.c))
WRAPPER_OBJ  := $(WRAPPER_SRC:%.c=$(O)/obj/%.o)
WRAPPER_LIB  := $(O)/obj/libwrapper.a

$(WRAPPER_LIB): $(WRAPPER_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(O)/bin/pgoptcc: $(O)/obj/wrapper/pgoptcc.o $(WRAPPER_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ -lm $(ALL_LDFLAGS)

PROGRAMS += $(O)/bin/pgoptcc
