/*
 * gcc-compat.h - every GCC internal header pgopt.so needs, in the order GCC
 * wants them, plus the few shims that hide version differences.
 *
 * GCC's plugin API is its internal C++ API: a plugin compiles only against
 * the headers of the exact compiler that will load it
 * ($(gcc -print-file-name=plugin)/include).  Keeping every include here means
 * the plugin file itself reads like plain C, and a port to another GCC
 * release touches only this file.  Tested with GCC 12.
 */
#ifndef PGOPT_GCC_COMPAT_H
#define PGOPT_GCC_COMPAT_H

#include "gcc-plugin.h"
#include "plugin-version.h"
#include "config.h"
#include "system.h"
#include "coretypes.h"
#include "backend.h"
#include "tree.h"
#include "gimple.h"
#include "tree-pass.h"
#include "context.h"
#include "function.h"
#include "basic-block.h"
#include "gimple-iterator.h"
#include "cgraph.h"
#include "tree-inline.h"
#include "diagnostic-core.h"
#include "options.h"
#include "flags.h"
#include "toplev.h"
#include "opts.h"
#include "output.h"
#include "langhooks.h"
#include "stringpool.h"
#include "attribs.h"
#include "stor-layout.h"

#define PGOPT_GCC_MAJOR (GCCPLUGIN_VERSION / 1000)

#if GCCPLUGIN_VERSION < 10000
#error "pgopt.so needs GCC 10 or later (cgraph_node::inlined_to)"
#endif

/* The node a function's inline clone was inlined into (GCC >= 10 field). */
static inline cgraph_node *pgopt_inlined_to(cgraph_node *node)
{
	return node->inlined_to;
}

/* A GCC builtin (__builtin_*, and the library functions GCC knows as
 * builtins: memcpy, strlen, ...): GCC expands or folds those itself, they
 * are never inlining candidates (fndecl_built_in_p since GCC 9). */
static inline bool pgopt_builtin_p(tree decl)
{
	return decl && fndecl_built_in_p(decl);
}

#endif
