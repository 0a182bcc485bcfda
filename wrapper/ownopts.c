/*
 * wrapper/ownopts.c - pgoptcc's own options, which never reach the
 * compiler: --pgopt-help (and --help alone), --pgopt-version (and
 * --version alone),
 * --pgopt-check-policy FILE, --pgopt-tu SOURCE, --pgopt-show-config, and
 * the message for an unknown --pgopt- option; see ownopts.h.  Part of the
 * program (with pgoptcc.c), not of libwrapper.a.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wrapper/compilelog.h"
#include "wrapper/compiler.h"
#include "wrapper/invocation.h"
#include "wrapper/ownopts.h"
#include "wrapper/pluginargs.h"
#include "wrapper/common/error.h"
#include "wrapper/common/exitcodes.h"
#include "wrapper/common/json.h"
#include "wrapper/policy/policy.h"
#include "wrapper/policy/probe.h"
#include "wrapper/settings.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/suggest.h"
#include "wrapper/common/textfile.h"
#include "wrapper/tu.h"
#include "wrapper/common/xalloc.h"

/* Where setting id came from, as --pgopt-show-config says it (git config
 * --show-origin, ccache -p): "command line", "environment PGOPT_X",
 * "FILE:LINE" or "default". */
static void show_origin(const struct invocation *inv, int id, struct strbuf *sb)
{
	switch (inv->set.origin[id]) {
	case SETTING_FROM_CC: strbuf_addstr(sb, "command line"); break;
	case SETTING_FROM_ENV: strbuf_addf(sb, "environment %s", settings_table[id].env); break;
	case SETTING_FROM_CONF: strbuf_addf(sb, "%s:%d", inv->set.conf, inv->set.line[id]); break;
	default: strbuf_addstr(sb, "default"); break;
	}
}

/* pgoptcc --pgopt-show-config: each setting, its value and where it came
 * from, as seen from the working directory (like ccache -p), strongest
 * layer first in the header. */
static int show_config(struct invocation *inv)
{
	pgoptcc_resolve_settings(inv);
	printf("# precedence: command line (--pgopt-KEY=VALUE, in CC) > environment (PGOPT_KEY) > %s > default\n",
	       SETTINGS_CONF_NAME);
	if (inv->set.conf)
		printf("# %s: %s\n", SETTINGS_CONF_NAME, inv->set.conf);
	else if (inv->conf_ignored)
		printf("# %s: none used; %s cannot be trusted and is ignored: the command line and the environment give everything it sets\n",
		       SETTINGS_CONF_NAME, inv->conf_ignored);
	else
		printf("# %s: none at or above %s\n", SETTINGS_CONF_NAME, inv->cwd);
	for (int id = 0; id < SETTING_NR; id++) {
		const struct setting_def *d = &settings_table[id];
		const char *v = invocation_setting(inv, (enum setting_id)id);
		struct strbuf origin = STRBUF_INIT;
		char *def = NULL;
		show_origin(inv, id, &origin);
		if (d->kind == SETTING_KIND_BOOL)
			v = v ? "true" : "false";
		else if (!v && inv->set.origin[id] == SETTING_FROM_DEFAULT)
			v = d->default_text ? d->default_text : (def = pluginargs_default_path(inv));
		printf("(%s) %s = %s\n", origin.buf, d->key, v ? v : "");
		strbuf_release(&origin);
		free(def);
	}
	return 0;
}

/* The real compiler the settings name (cc, default gcc), found on PATH as
 * a compile finds it; exits when there is none. */
static void find_compiler(struct invocation *inv)
{
	const char *name = invocation_setting(inv, SETTING_CC);
	if (!inv->compiler)
		inv->compiler = compiler_find(name ? name : "gcc", inv->self, 0, &inv->child_path);
}

/*
 * pgoptcc --version (alone, but not to configure or meson: pgoptcc.c) and
 * --pgopt-version: pgoptcc's own version,
 * the plugin it would load and the GCC that plugin was built for, and the
 * real compiler it would call; never the compiler's banner (that is
 * `pgoptcc gcc --version`).
 */
int ownopts_version(struct invocation *inv)
{
	const char *plugin, *built = compiler_plugin_gcc_version();
	const struct compiler_id *id;
	char *def = NULL;

	printf("pgoptcc %s\n", PGOPT_VERSION);
	fflush(stdout);
	pgoptcc_resolve_settings(inv);
	plugin = invocation_setting(inv, SETTING_PLUGIN);
	if (invocation_plugin_off(inv)) {
		char *src = pgoptcc_setting_source(inv, SETTING_PLUGIN);
		printf("plugin: off (%s)\n", src);
		free(src);
	} else {
		if (!plugin)
			plugin = def = pluginargs_default_path(inv);
		printf("plugin: %s, built for GCC %s%s\n", plugin, *built ? built : "(unknown)",
		       access(plugin, R_OK) == 0 ? "" : " (missing: changed compiles fail)");
	}
	if (invocation_setting(inv, SETTING_PREFIX))
		printf("prefix: %s\n", invocation_setting(inv, SETTING_PREFIX));
	find_compiler(inv);
	id = compiler_id(inv);
	if (id->same_gcc)
		printf("compiler: %s, GCC %s: the plugin loads into it\n", inv->compiler, id->version);
	else if (id->is_gcc)
		printf("compiler: %s, GCC %s: the plugin, built for GCC %s, cannot load into it\n",
		       inv->compiler, id->version, *built ? built : "(unknown)");
	else
		printf("compiler: %s, not GCC (%s): the plugin cannot load into it\n", inv->compiler,
		       id->banner ? id->banner : "no --version");
	free(def);
	return 0;
}

/*
 * pgoptcc --pgopt-check-policy FILE: validate under the settings in force
 * (unchecked-flags and weaken from the command line or the environment),
 * ask the real compiler whether it takes each flag (probe.h: once per
 * flag and compiler, cached), print the policy as JSON.  A flag the
 * compiler does not take is an error naming file:line and the flag.
 */
static int check_policy(struct invocation *inv, const char *path)
{
	struct policy p;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct strvec env = STRVEC_INIT, errors = STRVEC_INIT;
	struct policy_probe pr = { 0 };
	struct json_writer jw;
	int unknown;

	pgoptcc_resolve_settings(inv);
	if (policy_load(&p, path, (inv->unchecked ? POLICY_UNCHECKED_FLAGS : 0) |
			POLICY_WEAKEN(inv->weaken), &err) < 0)
		die(PGOPT_EXIT_POLICY, "%s", err.buf);
	/* sections that can never match: said here, never during a build */
	for (size_t i = 0; i < p.warnings.nr; i++)
		warning("%s", p.warnings.v[i]);
	find_compiler(inv);
	strvec_push(&env, "PGOPT_RECURSION=1");
	if (inv->child_path.len)
		strvec_pushf(&env, "PATH=%s", inv->child_path.buf);
	pr.compiler = inv->compiler;
	pr.env = &env;
	pr.cache_dir = policy_probe_cache_dir();
	unknown = policy_probe_flags(&p, &pr, &errors);
	verbose("%ld compiler runs asked about the policy's flags (cache %s)", pr.runs,
		pr.cache_file ? pr.cache_file : "none");
	free((char *)pr.cache_dir);
	policy_probe_release(&pr);
	strvec_clear(&env);
	if (unknown < 0)
		die(PGOPT_EXIT_EXEC, "%s", errors.v[0]);
	if (unknown > 0) {
		for (size_t i = 0; i < errors.nr; i++)
			error("%s", errors.v[i]);
		exit(PGOPT_EXIT_POLICY);
	}
	strvec_clear(&errors);
	json_writer_init(&jw, &out);
	json_object_begin(&jw);
	json_key(&jw, "policy"); json_string(&jw, p.path);
	json_key(&jw, "compiler"); json_string(&jw, inv->compiler);
	json_key(&jw, "lto");
	json_string(&jw, p.lto == LTO_OFF ? "off" : p.lto == LTO_ON ? "on" : p.lto == LTO_FAT ? "fat" : "slim");
	json_key(&jw, "bolt"); json_string(&jw, p.bolt ? "ready" : "off");
	json_key(&jw, "plugin"); json_bool(&jw, p.plugin);
	json_key(&jw, "unchecked_flags"); json_bool(&jw, inv->unchecked);
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

/* pgoptcc's own exit codes, "  CODE  meaning" a line, made from
 * exitcodes.h's PGOPT_EXIT_TABLE (the one list; pgoptcc(1)'s EXIT STATUS
 * quotes it, tests/t/91 holds both to it). */
#define OWN_EXIT_CODE_LINE_(name, code, text) "  " #code "  " text "\n"
#define OWN_EXIT_CODES_HELP PGOPT_EXIT_TABLE(OWN_EXIT_CODE_LINE_)

/* --pgopt-help, and --help as pgoptcc's only argument (as ccache does; the
 * compiler's own: pgoptcc gcc --help).  The settings come from their table,
 * each description wrapped at 80 columns (text_wrap). */
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
	       "it does not understand run unchanged.  Silent unless PGOPT_VERBOSE=yes,\n"
	       "but for a warning after each compile failsafe built with the caller's\n"
	       "flags (a bad policy or plugin, no log) or without its record.\n"
	       "\n"
	       "Settings, strongest first as git's and ccache's: --pgopt-KEY=VALUE options\n"
	       "before everything else (the command line, in CC), PGOPT_KEY in the\n"
	       "environment, the nearest pgoptcc.conf, the default.  Booleans take yes,\n"
	       "no, true, false, on, off, 1 or 0 (any case; empty is no):\n");
	for (int i = 0; i < SETTING_NR; i++) {
		const struct setting_def *d = &settings_table[i];
		printf("  --pgopt-%s=VALUE, %s\n", d->key, d->env);
		text_wrap(stdout, 80, 28, 28, d->help);
	}
	printf("\n"
	       "Own options (after the settings, never passed to the compiler):\n"
	       "  --pgopt-help              this help (also --help as the only argument)\n"
	       "  --pgopt-version           pgoptcc's version, the plugin it loads and the\n"
	       "                            GCC it was built for, the real compiler (also\n"
	       "                            --version as the only argument, but the\n"
	       "                            compiler's to configure and meson, which\n"
	       "                            identify the compiler by it)\n"
	       "  --pgopt-check-policy FILE validate a policy, ask the real compiler\n"
	       "                            whether it takes each flag (cached), print\n"
	       "                            the policy as JSON, warnings on stderr\n"
	       "  --pgopt-tu SOURCE         the translation-unit name SOURCE gets here\n"
	       "  --pgopt-show-config       each setting, its value and where it came from\n"
	       "                            (command line, environment PGOPT_KEY,\n"
	       "                            FILE:LINE, default)\n"
	       "\n"
	       "Environment only, booleans: PGOPT_PASSTHROUGH=yes (change nothing, still\n"
	       "logged), PGOPT_VERBOSE=yes (say what was decided, on stderr).\n"
	       "\n"
	       "The compiler's own help and version: pgoptcc gcc --help, pgoptcc gcc --version.\n"
	       "\n"
	       "Exit codes: the compiler's, or pgoptcc's own (one line \"pgoptcc: error: ...\"):\n");
	fputs(OWN_EXIT_CODES_HELP, stdout);
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
		if (argc != 1)
			die(PGOPT_EXIT_USAGE, "usage: pgoptcc [--pgopt-KEY=VALUE...] --pgopt-version");
		return ownopts_version(inv);
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
