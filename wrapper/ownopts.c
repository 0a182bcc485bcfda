/*
 * wrapper/ownopts.c - pgoptcc's own options, which never reach the
 * compiler: --pgopt-help (and --help alone), --pgopt-version,
 * --pgopt-check-policy FILE, --pgopt-tu SOURCE, --pgopt-show-config, and
 * the message for an unknown --pgopt- option; see ownopts.h.  Part of the
 * program (with pgoptcc.c), not of libwrapper.a.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wrapper/compilelog.h"
#include "wrapper/invocation.h"
#include "wrapper/ownopts.h"
#include "wrapper/pluginargs.h"
#include "wrapper/common/error.h"
#include "wrapper/common/exitcodes.h"
#include "wrapper/common/json.h"
#include "wrapper/policy/policy.h"
#include "wrapper/settings.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/suggest.h"
#include "wrapper/tu.h"
#include "wrapper/common/xalloc.h"

/* pgoptcc --pgopt-show-config: each setting, its value and where it came
 * from, as seen from the working directory (like ccache -p). */
static int show_config(struct invocation *inv)
{
	pgoptcc_resolve_settings(inv);
	if (inv->set.conf)
		printf("# %s: %s\n", SETTINGS_CONF_NAME, inv->set.conf);
	else if (inv->conf_ignored)
		printf("# %s: none used; %s cannot be trusted and is ignored: the environment gives everything it sets\n",
		       SETTINGS_CONF_NAME, inv->conf_ignored);
	else
		printf("# %s: none at or above %s\n", SETTINGS_CONF_NAME, inv->cwd);
	for (int id = 0; id < SETTING_NR; id++) {
		const struct setting_def *d = &settings_table[id];
		char *src = pgoptcc_setting_source(inv, (enum setting_id)id);
		const char *v = invocation_setting(inv, (enum setting_id)id);
		char *def = NULL;
		if (!v && inv->set.origin[id] == SETTING_FROM_DEFAULT)
			v = d->default_text ? d->default_text : (def = pluginargs_default_path(inv));
		printf("(%s) %s = %s\n", src, d->key, v ? v : "");
		free(src);
		free(def);
	}
	return 0;
}

/*
 * Did the caller set unchecked-flags = 1 (the environment, else an option
 * in CC)?  Read from those two layers alone: the setting is never taken
 * from pgoptcc.conf.  A value other than 1 is an error, as in a build.
 */
static int caller_unchecked(const struct invocation *inv)
{
	const char *env_v = inv->env_layer.value[SETTING_UNCHECKED];
	const char *v = env_v ? env_v : inv->cc_layer.value[SETTING_UNCHECKED];
	if (!v || !*v)
		return 0;
	if (strcmp(v, "1")) {
		if (env_v)
			die(PGOPT_EXIT_USAGE, "PGOPT_UNCHECKED_FLAGS=%s: expected PGOPT_UNCHECKED_FLAGS=1, or unset", v);
		die(PGOPT_EXIT_USAGE, "--pgopt-unchecked-flags=%s: expected --pgopt-unchecked-flags=1", v);
	}
	return 1;
}

/*
 * The hardening classes the caller lets a policy weaken (weaken = ..., the
 * environment, else an option in CC), read like unchecked-flags; a name
 * that is no class is an error, as in a build.
 */
static unsigned caller_weaken(const struct invocation *inv)
{
	const char *env_v = inv->env_layer.value[SETTING_WEAKEN];
	const char *v = env_v ? env_v : inv->cc_layer.value[SETTING_WEAKEN];
	struct strbuf err = STRBUF_INIT;
	unsigned mask = 0;
	if (v && vocab_parse_weaken(v, &mask, &err) < 0)
		die(PGOPT_EXIT_USAGE, "%s=%s: %s", env_v ? "PGOPT_WEAKEN" : "--pgopt-weaken", v, err.buf);
	strbuf_release(&err);
	return mask;
}

/* pgoptcc --pgopt-check-policy FILE: validate, print the policy as JSON. */
static int check_policy(struct invocation *inv, const char *path)
{
	struct policy p;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct json_writer jw;
	int unchecked = caller_unchecked(inv);
	unsigned weaken = caller_weaken(inv);

	if (policy_load(&p, path, (unchecked ? POLICY_UNCHECKED_FLAGS : 0) | POLICY_WEAKEN(weaken),
			&err) < 0)
		die(PGOPT_EXIT_POLICY, "%s", err.buf);
	/* sections that can never match: said here, never during a build */
	for (size_t i = 0; i < p.warnings.nr; i++)
		warning("%s", p.warnings.v[i]);
	json_writer_init(&jw, &out);
	json_object_begin(&jw);
	json_key(&jw, "policy"); json_string(&jw, p.path);
	json_key(&jw, "lto");
	json_string(&jw, p.lto == LTO_OFF ? "off" : p.lto == LTO_ON ? "on" : p.lto == LTO_FAT ? "fat" : "slim");
	json_key(&jw, "bolt"); json_string(&jw, p.bolt ? "ready" : "off");
	json_key(&jw, "plugin"); json_bool(&jw, p.plugin);
	json_key(&jw, "unchecked_flags"); json_bool(&jw, unchecked);
	json_key(&jw, "weakened");
	json_array_begin(&jw);
	for (int h = 0; h < VOCAB_HARD_NR; h++)
		if (policy_weakens(&p) & (1u << h))
			json_string(&jw, vocab_hardening_name((enum vocab_hardening)h));
	json_array_end(&jw);
	json_key(&jw, "hot"); json_string(&jw, p.hot);
	json_key(&jw, "cold"); json_string(&jw, p.cold);
	json_key(&jw, "sections");
	json_array_begin(&jw);
	for (size_t i = 0; i < p.nr_sections; i++) {
		json_object_begin(&jw);
		json_key(&jw, "glob"); json_string(&jw, p.sections[i].glob);
		json_key(&jw, "line"); json_int(&jw, p.sections[i].line);
		json_key(&jw, "ops");
		json_array_begin(&jw);
		for (size_t j = 0; j < p.sections[i].nr_ops; j++) {
			const struct policy_op *op = &p.sections[i].ops[j];
			char *s = xasprintf("%s %s %s", op->link ? "ldflags" : "cflags",
					    op->add ? "+=" : "-=", op->flag);
			json_string(&jw, s);
			free(s);
		}
		json_array_end(&jw);
		json_object_end(&jw);
	}
	json_array_end(&jw);
	compilelog_key_strvec(&jw, "warnings", &p.warnings);
	json_object_end(&jw);
	puts(out.buf);
	strbuf_release(&out);
	policy_release(&p);
	return 0;
}

/* The own options, for messages. */
#define OWN_OPTIONS "--pgopt-help, --pgopt-version, --pgopt-check-policy FILE, " \
	"--pgopt-tu SOURCE, --pgopt-show-config"

/* --pgopt-help, and --help as pgoptcc's only argument (as ccache does; the
 * compiler's own: pgoptcc gcc --help).  The settings come from their table. */
int ownopts_help(void)
{
	printf("usage: pgoptcc [--pgopt-KEY=VALUE...] [COMPILER] ARGS...\n"
	       "       pgoptcc [--pgopt-KEY=VALUE...] --pgopt-OPTION\n"
	       "       gcc ARGS...   (a masquerade link in LIBDIR/pgoptcc/masq first on PATH)\n"
	       "\n"
	       "Runs the real compiler (COMPILER, else the cc setting, default gcc) with\n"
	       "the flags a policy assigns to each C translation unit, adds\n"
	       "-frecord-gcc-switches and loads the pgopt.so plugin, which records in the\n"
	       "object what the optimizer did.  Configure probes, preprocessing and what\n"
	       "it does not understand run unchanged.  Silent unless PGOPT_VERBOSE=1.\n"
	       "\n"
	       "Settings (strongest first: the environment, the nearest pgoptcc.conf,\n"
	       "--pgopt-KEY=VALUE options before everything else, the default):\n");
	for (int i = 0; i < SETTING_NR; i++) {
		const struct setting_def *d = &settings_table[i];
		printf("  --pgopt-%s=VALUE, %s\n                            %s\n", d->key, d->env,
		       d->help);
	}
	printf("\n"
	       "Own options (after the settings, never passed to the compiler):\n"
	       "  --pgopt-help              this help (also --help as the only argument)\n"
	       "  --pgopt-version           print pgoptcc's version\n"
	       "  --pgopt-check-policy FILE validate a policy, print it as JSON, warnings\n"
	       "                            on stderr\n"
	       "  --pgopt-tu SOURCE         the translation-unit name SOURCE gets here\n"
	       "  --pgopt-show-config       each setting, its value and where it came from\n"
	       "\n"
	       "Environment only: PGOPT_PASSTHROUGH=1 (change nothing, still logged),\n"
	       "PGOPT_VERBOSE=1 (say what was decided, on stderr).\n"
	       "\n"
	       "Exit: the compiler's; pgoptcc's own errors 100-108 (see pgoptcc(1)).\n"
	       "The compiler's own help: pgoptcc gcc --help.\n");
	return 0;
}

/*
 * Special options handled by pgoptcc itself; they never reach gcc.
 * argv[0] is the option; argc counts it and what follows.  Returns the
 * exit code, or -1 when argv[0] is none of them.
 */
int ownopts_run(struct invocation *inv, int argc, char **argv)
{
	if (!strcmp(argv[0], "--pgopt-help"))
		return ownopts_help();
	if (!strcmp(argv[0], "--pgopt-version")) {
		printf("pgoptcc %s\n", PGOPT_VERSION);
		return 0;
	}
	if (!strcmp(argv[0], "--pgopt-check-policy")) {
		if (argc != 2)
			die(PGOPT_EXIT_USAGE, "usage: pgoptcc --pgopt-check-policy FILE");
		return check_policy(inv, argv[1]);
	}
	if (!strcmp(argv[0], "--pgopt-tu")) {
		/* print the TU name a source would get here */
		char *tu;
		if (argc != 2)
			die(PGOPT_EXIT_USAGE, "usage: pgoptcc --pgopt-tu SOURCE");
		pgoptcc_resolve_settings(inv);
		tu = tu_name(argv[1], inv->cwd, invocation_setting(inv, SETTING_ROOT));
		puts(tu);
		free(tu);
		return 0;
	}
	if (!strcmp(argv[0], "--pgopt-show-config")) {
		if (argc != 1)
			die(PGOPT_EXIT_USAGE, "usage: pgoptcc [--pgopt-KEY=VALUE...] --pgopt-show-config");
		return show_config(inv);
	}
	return -1;
}

/* An unknown --pgopt- option: say what exists, and what it may have meant. */
void ownopts_unknown(const char *arg)
{
	const char *names[SETTING_NR + 6], *hint;
	char *word = xstrndup(arg + 8, strcspn(arg + 8, "="));
	struct strbuf keys = STRBUF_INIT;
	int n = 0;

	for (int i = 0; i < SETTING_NR; i++)
		names[n++] = settings_table[i].key;
	names[n++] = "help";
	names[n++] = "version";
	names[n++] = "check-policy";
	names[n++] = "tu";
	names[n++] = "show-config";
	names[n] = NULL;
	hint = suggest_word(word, names);
	for (int i = 0; i < SETTING_NR; i++)
		strbuf_addf(&keys, "%s%s", i ? ", " : "", settings_table[i].key);
	die(PGOPT_EXIT_USAGE,
	    "unknown option %s (pgoptcc's own options: " OWN_OPTIONS
	    "; settings: --pgopt-KEY=VALUE, KEY one of %s)%s%s%s%s",
	    arg, keys.buf, hint ? ": did you mean --pgopt-" : "", hint ? hint : "",
	    hint && settings_lookup(hint) >= 0 ? "=" : "", hint ? "?" : "");
}
