/*
 * invocation.h - what one pgoptcc invocation knows, shared by the files of
 * the program (pgoptcc.c has the flow; the plugin's arguments, the log
 * record and the compiler lookup work on it).
 */
#ifndef PGOPT_INVOCATION_H
#define PGOPT_INVOCATION_H

#include <limits.h>
#include <string.h>

#include "wrapper/bundle.h"
#include "wrapper/classify.h"
#include "wrapper/compiler.h"
#include "wrapper/policy/policy.h"
#include "wrapper/settings.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"

/* Everything one invocation knows; filled step by step by main(). */
struct invocation {
	char self[PATH_MAX];        /* realpath of this executable */
	char *compiler;             /* path of the real compiler */
	struct strvec prefix;       /* the prefix setting's words, resolved */
	struct strvec orig;         /* the caller's arguments (no argv[0]) */
	struct strvec expanded;     /* orig with @files expanded */
	struct strvec cls_argv;     /* "cc" + expanded: what cls points into */
	struct strvec final;        /* what the compiler gets (no argv[0]) */
	struct classification cls;  /* what the command line is */
	char *tu;                   /* translation unit name, or NULL */
	struct policy policy;       /* loaded policy */
	int have_policy;            /* a policy is in force */
	struct policy_result res;   /* what the policy did */
	const char *failsafe_error; /* error ignored by failsafe = passthrough, or NULL */
	struct strbuf failsafe_note; /* why this call falls back to the caller's
				      * flags (invocation_fall_back), said on
				      * stderr after a compile that succeeded */
	char *plugin;               /* the -fplugin= path added, or NULL */
	char *plugin_skipped;       /* "skipped: why" when the compiler cannot
				     * load the plugin, or NULL */
	struct compiler_id ccid;    /* what the real compiler is (asked once,
				     * only when it matters) */
	struct strbuf child_path;   /* PATH for the compiler, or empty: keep ours */
	char cwd[PATH_MAX];         /* working directory */
	struct settings_layer env_layer; /* settings in the environment */
	struct settings_layer cc_layer;  /* --pgopt-KEY=VALUE options (in CC) */
	struct settings_layer conf_layer; /* the nearest pgoptcc.conf's */
	struct settings set;        /* the settings in force, resolved */
	char *conf_ignored;         /* a pgoptcc.conf that cannot be trusted
				     * and makes no difference, or NULL */
	struct policy_profile profile; /* the profile setting, parsed */
	struct bundle_use bundle;   /* the bundle's profile for this compile */
	int have_bundle;            /* ... when it has one (bundle.h) */
	int unchecked;              /* the caller set unchecked-flags = 1 */
	unsigned weaken;            /* the hardening classes the caller lets a
				     * policy weaken (weaken = pie,...; vocab.h) */
};

/* The resolved value of a setting, or NULL for its default. */
static inline const char *invocation_setting(const struct invocation *inv, enum setting_id id)
{
	return inv->set.value[id];
}

static inline int invocation_failsafe(const struct invocation *inv)
{
	const char *v = invocation_setting(inv, SETTING_FAILSAFE);
	return v && !strcmp(v, "passthrough");
}

/*
 * Under failsafe = passthrough: this call runs with the caller's flags
 * because of what fmt says (the first reason is kept), logged as tag
 * ("policy invalid", "plugin missing", ...).  For a compile of a
 * translation unit the reason is one warning line after the compile, and
 * only when it succeeded (a failing compile fails exactly as plain gcc's):
 * "pgoptcc: warning: REASON; compiled with the caller's flags (failsafe
 * passthrough)", so a build is never silently a stock one.  Links and
 * configure's probes stay quiet (the log has them; probes never get here).
 */
void invocation_fall_back(struct invocation *inv, const char *tag, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The plugin setting says "off". */
static inline int invocation_plugin_off(const struct invocation *inv)
{
	const char *p = invocation_setting(inv, SETTING_PLUGIN);
	return p && !strcmp(p, "off");
}

#endif
