# wrapper/policy/policy.mk - libpolicy.a, the policy library: the parser,
# the flag vocabulary a policy may use (vocab.c) and the glob matcher.
# pgoptcc applies policies with it; pgbuild reads, checks and writes them
# with the same code.  It uses libcommon only.
POLICY_SRC := $(wildcard wrapper/policy/*.c)
POLICY_OBJ := $(POLICY_SRC:%.c=$(O)/obj/%.o)
POLICY_LIB := $(O)/obj/libpolicy.a

$(POLICY_LIB): $(POLICY_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
