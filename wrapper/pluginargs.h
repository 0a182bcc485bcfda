/*
 * pluginargs.h - the arguments that load pgopt.so into a compile
 * (-fplugin=PATH, -fplugin-arg-pgopt-KEY=VALUE), and how gcc says it could
 * not load it.
 */
#ifndef PGOPT_PLUGINARGS_H
#define PGOPT_PLUGINARGS_H

#include "wrapper/invocation.h"

/* The plugin's default place: LIBDIR/pgoptcc/pgopt.so, found from the
 * executable (installdirs.h). */
char *pluginargs_default_path(const struct invocation *inv);

/* -fplugin=PATH and -fplugin-arg-pgopt-KEY=VALUE for a changed compile or
 * LTO link, appended to inv->final (see pluginargs.c). */
void pluginargs_add(struct invocation *inv, const char *tu, int is_link);

/*
 * Did the compile fail because gcc could not load the plugin?  gcc's own
 * line names it ("cc1: error: cannot load plugin PATH: ..."), and so does
 * pgopt.so's version check ("cc1: error: pgopt: PATH was built for GCC
 * X but this is GCC Y; ...").
 */
int pluginargs_load_failed(const char *err, const char *plugin);

#endif
