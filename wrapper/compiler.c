/*
 * compiler.c - identify the real compiler for the plugin; see compiler.h.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "wrapper/compiler.h"
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
		     !(id->banner && strstr(id->banner, "clang"));
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
