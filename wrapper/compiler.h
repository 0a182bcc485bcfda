/*
 * compiler.h - the real compiler: where it is (a path, or PATH searched
 * past pgoptcc itself), and what it is, as far as pgopt.so cares.
 *
 * A GCC plugin loads only into the GCC it was built against (the same
 * version and configuration; GCC's plugin_default_version_check).  clang
 * cannot load it at all (it fails the compile with an undefined C++ symbol
 * from the plugin).  pgoptcc knows at build time which GCC built pgopt.so
 * (PGOPT_PLUGIN_GCC, PGOPT_PLUGIN_GCC_VERSION, from plugin/plugin.mk), so
 * it can tell before running the compiler whether the plugin can load:
 *   - the same executable as the GCC that built the plugin: yes, at no
 *     cost;
 *   - otherwise it asks the compiler (`-dumpfullversion`, and `--version`
 *     for messages): a GCC of the same version: yes; another GCC, or
 *     something that is not GCC (clang answers -dumpfullversion with an
 *     error): no.
 */
#ifndef PGOPT_COMPILER_H
#define PGOPT_COMPILER_H

#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"

struct compiler_id {
	int known;        /* compiler_identify() has run */
	int same_gcc;     /* the GCC pgopt.so was built with: the plugin loads */
	int is_gcc;       /* some GCC (answers -dumpfullversion, not clang) */
	char *version;    /* its -dumpfullversion, or NULL */
	char *banner;     /* the first line of its --version, or NULL */
};

/* The GCC version pgopt.so was built with ("12.2.0"), or "" if unknown. */
const char *compiler_plugin_gcc_version(void);

/*
 * Fill id for the compiler at path.  env ("NAME=value" strings, may be
 * NULL) is added to the environment of the queries (PGOPT_RECURSION, the
 * compiler's PATH).  Never fails: a compiler that does not answer is
 * "not GCC".
 */
void compiler_identify(const char *path, const struct strvec *env, struct compiler_id *id);

/*
 * Why the plugin cannot load into the identified compiler, or NULL when
 * it can; malloced.  explicit_plugin: the plugin was named by the user
 * (PGOPT_PLUGIN ...), so a GCC of another version may be what it was built
 * for, and only a compiler that is not GCC is refused.
 */
char *compiler_plugin_refusal(const struct compiler_id *id, const char *path, int explicit_plugin);

void compiler_id_release(struct compiler_id *id);

struct invocation;

/* What inv's real compiler is, asked once with the environment the
 * compile itself will have. */
const struct compiler_id *compiler_id(struct invocation *inv);

/* Does path resolve to self (the realpath of this executable)? */
int compiler_same_file(const char *path, const char *self);

/*
 * Find the real compiler called name: a path is taken as it is; a bare
 * name is looked up on PATH, skipping every candidate that resolves to
 * pgoptcc itself.  Exits on failure.
 *
 * Masquerading (called as "gcc" through a link to pgoptcc), the search
 * starts after the first PATH entry where name is pgoptcc, as distcc does:
 * the directories before it (Debian's /usr/lib/ccache, say) have already
 * run and called us.  *child_path then gets the rest of PATH without the
 * entries where name is pgoptcc, for the compiler's environment: a ccache
 * found there must not find pgoptcc again.  When no PATH entry is
 * pgoptcc (called by a path that is not on PATH) the whole PATH is
 * searched and *child_path stays empty: PATH is left alone.
 */
char *compiler_find(const char *name, const char *self, int masquerade,
		    struct strbuf *child_path);

/* Is argv[1] of "pgoptcc gcc-12 ..." a compiler rather than an input? */
int compiler_looks_like(const char *arg);

#endif
