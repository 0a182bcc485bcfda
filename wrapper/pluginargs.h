/*
 * pluginargs.h - the arguments that load pgopt.so into a compile
 * (-fplugin=PATH, -fplugin-arg-pgopt-KEY=VALUE), and how gcc says it could
 * not load it.
 */
#ifndef PGOPT_PLUGINARGS_H
#define PGOPT_PLUGINARGS_H

#include "wrapper/invocation.h"
#include "wrapper/common/sha256.h"
#include "wrapper/common/strvec.h"

/* The plugin's default place: LIBDIR/pgoptcc/pgopt.so, found from the
 * executable (installdirs.h). */
char *default_plugin(const struct invocation *inv);

/*
 * Pass KEY=VALUE to the plugin.  GCC's option parser drops one character
 * for every '=' after the first in -fplugin-arg-NAME-KEY=VALUE, so '=' and
 * '%' in values are percent-encoded; the plugin decodes them.
 */
void push_plugin_arg(struct strvec *args, const char *key, const char *value);

/*
 * The digest of the hot and cold lists' contents as read now.  The lists
 * are named by path on the command line; the digest puts their contents
 * there too, so ccache and pgbuild's incremental rebuild (which compare
 * command lines) see an edited list.  A list that cannot be read is
 * digested as such (the plugin then fails the compile, naming it).
 */
void list_digest(const struct policy *p, char hex[SHA256_HEX_SIZE]);

void add_plugin_args(struct invocation *inv, const char *tu, int is_link);

/*
 * Did the compile fail because gcc could not load the plugin?  gcc's own
 * line names it ("cc1: error: cannot load plugin PATH: ..."), and so does
 * pgopt.so's version check ("cc1: error: pgopt: PATH was built for GCC
 * X but this is GCC Y; ...").
 */
int plugin_failed_to_load(const char *err, const char *plugin);

#endif
