/*
 * pluginargs.c - the arguments that load pgopt.so into a compile; see
 * pluginargs.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wrapper/invocation.h"
#include "wrapper/pluginargs.h"
#include "wrapper/common/error.h"
#include "wrapper/common/exitcodes.h"
#include "wrapper/common/installdirs.h"
#include "wrapper/common/sha256.h"
#include "wrapper/common/xalloc.h"

/* The plugin's default place: LIBDIR/pgoptcc/pgopt.so, found from the
 * executable (installdirs.h). */
char *pluginargs_default_path(const struct invocation *inv)
{
	char *dir = installdir_find(inv->self, INSTALLDIR_PKGLIB);
	char *p = xasprintf("%s/pgopt.so", dir);
	free(dir);
	return p;
}

/*
 * Pass KEY=VALUE to the plugin.  GCC's option parser drops one character
 * for every '=' after the first in -fplugin-arg-NAME-KEY=VALUE, so '=' and
 * '%' in values are percent-encoded; the plugin decodes them.
 */
static void pluginargs_push(struct strvec *args, const char *key, const char *value)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "-fplugin-arg-pgopt-%s", key);
	if (value) {
		strbuf_addch(&sb, '=');
		for (const char *p = value; *p; p++) {
			if (*p == '=' || *p == '%')
				strbuf_addf(&sb, "%%%02X", (unsigned char)*p);
			else
				strbuf_addch(&sb, *p);
		}
	}
	strvec_push_nodup(args, strbuf_detach(&sb, NULL));
}

/*
 * The digest of the hot and cold lists' contents as read now.  The lists
 * are named by path on the command line; the digest puts their contents
 * there too, so ccache and pgbuild's incremental rebuild (which compare
 * command lines) see an edited list.  A list that cannot be read is
 * digested as such (the plugin then fails the compile, naming it).
 */
static void list_digest(const struct policy *p, char hex[SHA256_HEX_SIZE])
{
	const char *lists[2][2] = { { "hot", p->hot }, { "cold", p->cold } };
	struct sha256 c;
	sha256_init(&c);
	for (int i = 0; i < 2; i++) {
		struct strbuf sb = STRBUF_INIT, text = STRBUF_INIT;
		if (!lists[i][1])
			continue;
		struct strbuf why = STRBUF_INIT;
		if (policy_read_list(lists[i][1], &text, &why) < 0)
			strbuf_addf(&sb, "%s unreadable: %s\n", lists[i][0], why.buf);
		else
			strbuf_addf(&sb, "%s %zu\n", lists[i][0], text.len);
		sha256_update(&c, sb.buf, sb.len);
		sha256_update(&c, text.buf, text.len);
		strbuf_release(&sb);
		strbuf_release(&text);
		strbuf_release(&why);
	}
	sha256_final_hex(&c, hex);
}

/*
 * Load the plugin into the compile (or LTO link) inv->final describes:
 * -fplugin=PATH and its arguments (the unit, the rules, the flags added
 * and removed, the log directory, the hot and cold lists and their
 * digest).  Nothing when the policy or the plugin setting turns it off;
 * a compiler that cannot load it is said in inv->plugin_skipped, a
 * missing plugin fails the compile (or, under failsafe, leaves it
 * unchanged).
 */
void pluginargs_add(struct invocation *inv, const char *tu, int is_link)
{
	const char *plugin = invocation_setting(inv, SETTING_PLUGIN);
	char *def = NULL;
	struct strbuf sb = STRBUF_INIT;

	if (!inv->policy.plugin || invocation_plugin_off(inv))
		return;
	{
		/* clang, or a GCC the plugin was not built for: the policy's
		 * flags apply, the record is skipped, and what needs the
		 * plugin (hot/cold lists) is refused */
		int explicit_plugin = plugin != NULL;
		char *why = compiler_plugin_refusal(compiler_id(inv), inv->compiler, explicit_plugin);
		if (why) {
			if (inv->res.lists)
				die(PGOPT_EXIT_PLUGIN,
				    "%s:%d: the %s list needs the plugin pgopt.so, which cannot run here: %s",
				    inv->policy.path,
				    inv->policy.hot ? inv->policy.hot_line : inv->policy.cold_line,
				    inv->policy.hot ? "hot" : "cold", why);
			verbose("not loading the plugin: %s", why);
			inv->plugin_skipped = xasprintf("skipped: %s", why);
			free(why);
			return;
		}
	}
	if (!plugin)
		plugin = def = pluginargs_default_path(inv);
	if (access(plugin, R_OK) < 0) {
		if (!invocation_failsafe(inv))
			die(PGOPT_EXIT_PLUGIN,
			    "cannot load the plugin %s: %s (install pgoptcc completely, or set PGOPT_PLUGIN=off)",
			    plugin, strerror(errno));
		/* build on unchanged, as the README promises: no policy
		 * without the record that proves what it did */
		invocation_fall_back(inv, "plugin missing", "cannot load the plugin %s: %s", plugin,
				     strerror(errno));
		inv->res.changed = 0;
		free(def);
		return;
	}
	{
		char real[PATH_MAX];
		inv->plugin = xstrdup(realpath(plugin, real) ? real : plugin);
		strvec_pushf(&inv->final, "-fplugin=%s", inv->plugin);
	}
	pluginargs_push(&inv->final, "tu", tu ? tu : "");
	for (size_t i = 0; i < inv->res.rules.nr; i++) {
		if (i)
			strbuf_addch(&sb, ',');
		strbuf_addstr(&sb, inv->res.rules.v[i]);
	}
	pluginargs_push(&inv->final, "rules", sb.buf);
	strbuf_reset(&sb);
	for (size_t i = 0; i < inv->res.added.nr; i++)
		strbuf_addf(&sb, "%s%s", i ? " " : "", inv->res.added.v[i]);
	pluginargs_push(&inv->final, "added", sb.buf);
	strbuf_reset(&sb);
	for (size_t i = 0; i < inv->res.removed.nr; i++)
		strbuf_addf(&sb, "%s%s", i ? " " : "", inv->res.removed.v[i]);
	pluginargs_push(&inv->final, "removed", sb.buf);
	if (invocation_setting(inv, SETTING_LOGDIR)) {
		char real[PATH_MAX];
		const char *d = invocation_setting(inv, SETTING_LOGDIR);
		pluginargs_push(&inv->final, "log", realpath(d, real) ? real : d);
	}
	if (inv->policy.hot)
		pluginargs_push(&inv->final, "hot", inv->policy.hot);
	if (inv->policy.cold)
		pluginargs_push(&inv->final, "cold", inv->policy.cold);
	if (inv->policy.hot || inv->policy.cold) {
		char hex[SHA256_HEX_SIZE];
		list_digest(&inv->policy, hex);
		pluginargs_push(&inv->final, "list-digest", hex);
	}
	if (error_verbose)
		pluginargs_push(&inv->final, "verbose", NULL);
	(void)is_link;
	strbuf_release(&sb);
	free(def);
}

/*
 * Did the compile fail because gcc could not load the plugin?  gcc's own
 * line names it ("cc1: error: cannot load plugin PATH: ..."), and so does
 * pgopt.so's version check ("cc1: error: pgopt: PATH was built for GCC
 * X but this is GCC Y; ...").
 */
int pluginargs_load_failed(const char *err, const char *plugin)
{
	char *a = xasprintf("error: cannot load plugin %s", plugin);
	char *b = xasprintf("error: pgopt: %s was built for GCC ", plugin);
	int r = strstr(err, a) || strstr(err, b);
	free(a);
	free(b);
	return r;
}
