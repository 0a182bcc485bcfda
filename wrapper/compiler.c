/*
 * compiler.c - find the real compiler and identify it for the plugin; see
 * compiler.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wrapper/compiler.h"
#include "wrapper/invocation.h"
#include "wrapper/common/error.h"
#include "wrapper/common/exitcodes.h"
#include "wrapper/common/run-command.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/xalloc.h"

/* Set by wrapper/wrapper.mk from plugin/plugin.mk's compiler; empty when
 * built without (the fuzzers): then the compiler is always asked. */
#ifndef PGOPT_PLUGIN_GCC
#define PGOPT_PLUGIN_GCC ""
#endif
#ifndef PGOPT_PLUGIN_GCC_VERSION
#define PGOPT_PLUGIN_GCC_VERSION ""
#endif

const char *compiler_plugin_gcc_version(void)
{
	return PGOPT_PLUGIN_GCC_VERSION;
}

/* Run path ARG; its stdout's first line (trimmed), or NULL when it fails. */
static char *ask(const char *path, const char *arg, const struct strvec *env)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT;
	int code;

	strvec_pushl(&cp.args, path, arg, NULL);
	if (env)
		strvec_pushv(&cp.env, (const char *const *)env->v);
	cp.no_stdin = 1;
	cp.no_stderr = 1;
	code = capture_command(&cp, &out, 0);
	child_process_clear(&cp);
	if (code != 0 || !out.len) {
		strbuf_release(&out);
		return NULL;
	}
	strbuf_setlen(&out, strcspn(out.buf, "\n"));
	strbuf_trim(&out);
	return strbuf_detach(&out, NULL);
}

void compiler_identify(const char *path, const struct strvec *env, struct compiler_id *id)
{
	char real[PATH_MAX], built[PATH_MAX];

	memset(id, 0, sizeof(*id));
	id->known = 1;
	/* the very executable that built the plugin: no question to ask */
	if (*PGOPT_PLUGIN_GCC && realpath(path, real) && realpath(PGOPT_PLUGIN_GCC, built) &&
	    !strcmp(real, built)) {
		id->same_gcc = id->is_gcc = 1;
		id->version = xstrdup(PGOPT_PLUGIN_GCC_VERSION);
		return;
	}
	id->version = ask(path, "-dumpfullversion", env);
	id->banner = ask(path, "--version", env);
	/* clang 14 refuses -dumpfullversion; a later one may not: its
	 * --version says what it is */
	id->is_gcc = id->version && strspn(id->version, "0123456789.") == strlen(id->version) &&
		     !(id->banner && strstr(id->banner, "clang version"));
	id->same_gcc = id->is_gcc && *PGOPT_PLUGIN_GCC_VERSION &&
		       !strcmp(id->version, PGOPT_PLUGIN_GCC_VERSION);
}

char *compiler_plugin_refusal(const struct compiler_id *id, const char *path, int explicit_plugin)
{
	if (id->same_gcc || (id->is_gcc && explicit_plugin))
		return NULL;
	if (!id->is_gcc)
		return xasprintf("%s (%s) is not GCC and cannot load pgopt.so, a GCC plugin", path,
				 id->banner ? id->banner : "no --version");
	return xasprintf("%s is GCC %s, and pgopt.so loads only into the GCC it was built with, %s",
			 path, id->version, *PGOPT_PLUGIN_GCC_VERSION ? PGOPT_PLUGIN_GCC_VERSION : "(unknown)");
}

void compiler_id_release(struct compiler_id *id)
{
	free(id->version);
	free(id->banner);
	memset(id, 0, sizeof(*id));
}

/* What inv's real compiler is, asked once with the environment the
 * compile itself will have. */
const struct compiler_id *compiler_id(struct invocation *inv)
{
	if (!inv->ccid.known) {
		struct strvec env = STRVEC_INIT;
		strvec_push(&env, "PGOPT_RECURSION=1");
		if (inv->child_path.len)
			strvec_pushf(&env, "PATH=%s", inv->child_path.buf);
		compiler_identify(inv->compiler, &env, &inv->ccid);
		strvec_clear(&env);
	}
	return &inv->ccid;
}

int compiler_same_file(const char *path, const char *self)
{
	char real[PATH_MAX];
	return realpath(path, real) && !strcmp(real, self);
}

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
		    struct strbuf *child_path)
{
	const char *path = getenv("PATH");
	struct strbuf sb = STRBUF_INIT;
	char *found = NULL, *first_found = NULL;
	int saw_self = 0, n_kept = 0;

	if (strchr(name, '/')) {
		if (compiler_same_file(name, self))
			die(PGOPT_EXIT_RECURSION,
			    "the real compiler %s is pgoptcc itself: set PGOPT_CC to the real compiler",
			    name);
		if (access(name, X_OK) < 0)
			die(PGOPT_EXIT_NO_CC, "cannot run the real compiler %s: %s", name,
			    strerror(errno));
		return xstrdup(name);
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = path;; ) {
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		int exe, is_self;
		strbuf_reset(&sb);
		strbuf_add(&sb, n ? p : ".", n ? n : 1);
		strbuf_addf(&sb, "/%s", name);
		exe = is_executable(sb.buf);
		is_self = exe && compiler_same_file(sb.buf, self);
		if (is_self) {
			saw_self = 1;
		} else {
			/* any PATH entry, for the case where we are on none */
			if (exe && !first_found)
				first_found = xstrdup(sb.buf);
			/* in masquerade, only entries after our own */
			if (masquerade && saw_self) {
				if (exe && !found)
					found = xstrdup(sb.buf);
				if (n_kept++)
					strbuf_addch(child_path, ':');
				strbuf_add(child_path, p, n);
			}
		}
		if (!e)
			break;
		p = e + 1;
	}
	strbuf_release(&sb);
	if (!masquerade || !saw_self) {
		found = first_found;
		first_found = NULL;
		strbuf_reset(child_path);
	}
	free(first_found);
	if (found)
		return found;
	if (saw_self)
		die(PGOPT_EXIT_RECURSION,
		    "every \"%s\" on PATH is pgoptcc itself: put the real compiler on PATH or set PGOPT_CC",
		    name);
	die(PGOPT_EXIT_NO_CC, "cannot find the real compiler \"%s\" on PATH (set PGOPT_CC)", name);
}

/* Is argv[1] of "pgoptcc gcc-12 ..." a compiler rather than an input? */
int compiler_looks_like(const char *arg)
{
	char *found;
	const char *base = strrchr(arg, '/');
	const char *dot;
	base = base ? base + 1 : arg;
	if (arg[0] == '-' || arg[0] == '@')
		return 0;
	dot = strrchr(base, '.');
	/* "gcc-12", "x86_64-linux-gnu-gcc", "clang-14": no input-file suffix */
	if (dot && (strlen(dot) <= 4 && strspn(dot + 1, "0123456789") != strlen(dot + 1)))
		return 0;
	found = locate_in_path(arg);
	free(found);
	return found != NULL;
}
