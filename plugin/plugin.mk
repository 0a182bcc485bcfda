# plugin/plugin.mk - pgopt.so, the GCC plugin (filled in by the plugin work).
