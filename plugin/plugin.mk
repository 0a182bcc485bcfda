# plugin/plugin.mk - pgopt.so, the GCC plugin (see plugin/pgopt.cc).
#
# A GCC plugin is C++ built against the internal headers of the very gcc that
# will load it; $(PLUGIN_CC) -print-file-name=plugin finds them.  The test
# build pgopt-fakever.so pretends to be built for another GCC version, so the
# tests can check the version-mismatch error without a second compiler.
PLUGIN_CC      ?= $(CC)
PLUGIN_CXX     ?= $(CXX)
PLUGIN_INCDIR  := $(shell $(PLUGIN_CC) -print-file-name=plugin)/include
# The user's CPPFLAGS, CXXFLAGS (default -O2 -g) and LDFLAGS come after the
# plugin's own flags (Makefile: flags).
PLUGIN_CXXFLAGS = -std=gnu++17 -fPIC -shared -fno-rtti -fno-exceptions \
	-I$(PLUGIN_INCDIR) -Iplugin -Wall -Wextra $(WERROR) \
	-Wno-unused-parameter -DPGOPT_VERSION=\"$(VERSION)\" \
	$(CPPFLAGS) $(CXXFLAGS) $(LDFLAGS)
# The GCC that builds pgopt.so is the only one that can load it: pgoptcc is
# told which (wrapper/compiler.c), so it never runs the plugin in another
# compiler and need not ask this one what it is.
PLUGIN_GCC         := $(shell command -v $(lastword $(PLUGIN_CC)) 2>/dev/null)
PLUGIN_GCC_VERSION := $(shell $(PLUGIN_CC) -dumpfullversion 2>/dev/null)
PLUGIN_SRC     := plugin/pgopt.cc
PLUGIN_DEPS    := $(PLUGIN_SRC) plugin/gcc-compat.h plugin/plugin.mk

$(O)/lib/pgoptcc/pgopt.so: $(PLUGIN_DEPS)
	@mkdir -p $(dir $@)
	$(PLUGIN_CXX) $(PLUGIN_CXXFLAGS) -o $@ $(PLUGIN_SRC)

$(O)/tests/pgopt-fakever.so: $(PLUGIN_DEPS)
	@mkdir -p $(dir $@)
	$(PLUGIN_CXX) $(PLUGIN_CXXFLAGS) -DPGOPT_FAKE_BASEVER=\"11.1.0\" -o $@ $(PLUGIN_SRC)

PLUGINS += $(O)/lib/pgoptcc/pgopt.so
all: $(O)/tests/pgopt-fakever.so
