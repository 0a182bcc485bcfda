/*
 * wrapper/pgoptcc.c - the compiler wrapper.
 *
 * pgoptcc stands in for gcc (CC=pgoptcc, CC="pgoptcc gcc-12", or a symlink
 * named gcc earlier on PATH).  For each invocation it:
 *   1. finds the real compiler, refusing to call itself;
 *   2. expands @response files and classifies the command line (classify.c);
 *   3. takes its settings (settings.h) from --pgopt-KEY=VALUE options
 *      leading its arguments (options in CC), the environment and the
 *      nearest pgoptcc.conf, in that order of strength (git's and
 *      ccache's); a configure probe (conftest, with configure's
 *      confdefs.h beside it) first records the environment's settings in
 *      pgoptcc.conf in its directory, so make gets what configure got;
 *   4. for a C compile or a link, applies the policy to the argument list,
 *      adds -frecord-gcc-switches and loads the pgopt.so plugin with the
 *      translation unit's name and the rules that matched; everything
 *      else - configure probes above all - runs unchanged;
 *   5. runs [prefix...] real-compiler ARGS without a shell, so the
 *      compiler's exit code and stderr are the wrapper's (under
 *      failsafe = passthrough a compile whose plugin gcc cannot load is
 *      run again with the caller's argv unchanged);
 *   6. appends one JSON record to LOGDIR/compile.jsonl.
 *
 * Its parts: the real compiler (step 1) is found in compiler.c, the
 * plugin's arguments (4) are pluginargs.c's, the record (6) compilelog.c's,
 * what the invocation knows is struct invocation (invocation.h),
 * pgoptcc's own --pgopt- options are ownopts.c's; this file has main and
 * the flow.
 *
 * It prints nothing of its own unless PGOPT_VERBOSE=yes (autoconf treats any
 * stderr output as a failed probe), but for one warning line after a
 * compile that succeeded (never a probe) that failsafe = passthrough built
 * with the caller's flags or without its record (invocation_fall_back).
 * Its own errors are one line,
 * "pgoptcc: error: ...", with an exit code from exitcodes.h (100-119).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wrapper/classify.h"
#include "wrapper/common/boolean.h"
#include "wrapper/common/clock.h"
#include "wrapper/common/fdio.h"
#include "wrapper/compilelog.h"
#include "wrapper/compiler.h"
#include "wrapper/invocation.h"
#include "wrapper/ownopts.h"
#include "wrapper/pluginargs.h"
#include "wrapper/records.h"
#include "wrapper/common/error.h"
#include "wrapper/common/exitcodes.h"
#include "wrapper/policy/policy.h"
#include "wrapper/common/respfile.h"
#include "wrapper/common/run-command.h"
#include "wrapper/common/safefs.h"
#include "wrapper/settings.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"
#include "wrapper/tu.h"
#include "wrapper/common/xalloc.h"

/* Where a setting came from, for messages: "PGOPT_PREFIX",
 * "/b/pgoptcc.conf:3", "--pgopt-prefix" or "default" (malloced). */
char *pgoptcc_setting_source(const struct invocation *inv, enum setting_id id)
{
	switch (inv->set.origin[id]) {
	case SETTING_FROM_ENV: return xstrdup(settings_table[id].env);
	case SETTING_FROM_CONF: return xasprintf("%s:%d", inv->set.conf, inv->set.line[id]);
	case SETTING_FROM_CC: return xasprintf("--pgopt-%s", settings_table[id].key);
	default: return xstrdup("default");
	}
}

static const char *env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

/*
 * A per-run switch of the environment (PGOPT_VERBOSE, PGOPT_PASSTHROUGH): a
 * boolean read as every boolean setting is (boolean_parse: git's words);
 * unset is no.  A value it does not take must not be ignored silently:
 * exit 100, naming the variable and the words.
 */
static int env_switch(const char *name)
{
	const char *v = getenv(name);
	int on = v ? boolean_parse(v) : 0;
	if (on < 0)
		die(PGOPT_EXIT_USAGE, "%s=%s: expected a boolean: " BOOLEAN_WORDS, name, v);
	return on;
}

/* Remove every flag equal to f from sv. */
static void drop_flag(struct strvec *sv, const char *f)
{
	for (long i; (i = strvec_find(sv, f)) >= 0;)
		strvec_remove(sv, (size_t)i);
}

/* Does the command line map its paths (-ffile-prefix-map=, as Debian's
 * dpkg-buildflags passes, -fdebug-prefix-map=, -fmacro-prefix-map=)? */
static int has_prefix_map(const struct strvec *sv)
{
	for (size_t i = 0; i < sv->nr; i++)
		if (!strncmp(sv->v[i], "-ffile-prefix-map=", 18) ||
		    !strncmp(sv->v[i], "-fdebug-prefix-map=", 19) ||
		    !strncmp(sv->v[i], "-fmacro-prefix-map=", 19))
			return 1;
	return 0;
}

/*
 * Load the policy the settings name; 0 when none is in force.  One that
 * cannot be used fails the call (exit 101); under failsafe = passthrough
 * the call runs unchanged and, for a compile of a translation unit, says
 * so in one warning line after it (invocation_fall_back): the build is not
 * silently a stock one.  Only compiles and links get here, never a
 * configure or meson probe (those are passthrough calls, classify.c), so
 * no probe's result changes.
 */
static int load_policy(struct invocation *inv)
{
	const char *path = invocation_setting(inv, SETTING_POLICY);
	struct strbuf err = STRBUF_INIT;
	if (!path || !strcmp(path, "none"))
		return 0;
	if (policy_load(&inv->policy, path, (inv->unchecked ? POLICY_UNCHECKED_FLAGS : 0) |
			POLICY_WEAKEN(inv->weaken), &err) < 0) {
		if (!invocation_failsafe(inv))
			die(PGOPT_EXIT_POLICY, "%s", err.buf);
		invocation_fall_back(inv, "policy invalid", "policy %s unusable (%s)", path, err.buf);
		policy_release(&inv->policy);
		strbuf_release(&err);
		return 0;
	}
	strbuf_release(&err);
	return 1;
}

/*
 * The bundle setting: when the bundle (checked by trust_bundle) holds a
 * profile of this unit's object, the compile gets the profile-use flags
 * (bundle.h); the file, read and hashed here, is put beside the object
 * just before the compiler runs.
 */
static void apply_bundle(struct invocation *inv)
{
	const char *dir = invocation_setting(inv, SETTING_BUNDLE);
	struct strvec flags = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	char *out;
	int r;

	if (!dir || inv->cls.kind != KIND_COMPILE || inv->cls.mode_S)
		return;
	out = compilelog_output(inv);
	r = out ? bundle_lookup(inv->tu, out, &inv->bundle, &err) : 0;
	free(out);
	if (r < 0)
		die(PGOPT_EXIT_USAGE, "%s=%s: refused: %s", pgoptcc_setting_source(inv, SETTING_BUNDLE),
		    dir, err.buf);
	strbuf_release(&err);
	inv->have_bundle = r > 0;
	if (!inv->have_bundle)
		return;
	strvec_split(&flags, POLICY_PROFILE_USE);
	for (size_t i = 0; i < flags.nr; i++) {
		strvec_push(&inv->final, flags.v[i]);
		strvec_push(&inv->res.added, flags.v[i]);
	}
	inv->res.changed = 1;
	strvec_clear(&flags);
}

/*
 * A bundle is checked against its manifest before anything of it is read
 * (its policy may be PGOPT_POLICY): a refused one fails the command, exit
 * 100, naming the bundle's file (bundle.h).
 */
static void trust_bundle(const struct invocation *inv)
{
	const char *dir = invocation_setting(inv, SETTING_BUNDLE);
	struct strbuf err = STRBUF_INIT;

	if (!dir)
		return;
	if (bundle_trust(dir, invocation_setting(inv, SETTING_LOGDIR), &err) < 0)
		die(PGOPT_EXIT_USAGE, "%s=%s: refused: %s", pgoptcc_setting_source(inv, SETTING_BUNDLE),
		    dir, err.buf);
	strbuf_release(&err);
}

/* A bundle goes with a policy and without the profile mode; exits
 * otherwise. */
static void check_bundle(const struct invocation *inv)
{
	const char *dir = invocation_setting(inv, SETTING_BUNDLE);
	char *src;

	if (!dir)
		return;
	src = pgoptcc_setting_source(inv, SETTING_BUNDLE);
	if (invocation_setting(inv, SETTING_PROFILE))
		die(PGOPT_EXIT_USAGE,
		    "%s=%s: expected either a bundle or the profile mode (PGOPT_PROFILE=%s), not both",
		    src, dir, invocation_setting(inv, SETTING_PROFILE));
	if (!inv->have_policy)
		die(PGOPT_EXIT_USAGE,
		    "%s=%s: expected a policy too (PGOPT_POLICY): the profile flags are added to a policy's",
		    src, dir);
	free(src);
}

/* Replace the first from in sv by to (when there is one). */
static void swap_flag(struct strvec *sv, const char *from, const char *to)
{
	long i = strvec_find(sv, from);
	if (i >= 0) {
		free(sv->v[i]);
		sv->v[i] = xstrdup(to);
	}
}

/*
 * lto = on with clang: ThinLTO (the scalable mode, as GCC's -flto=auto
 * partitions), linked by lld: the system linker reads no LLVM bitcode.
 * The lld of the compiler's own LLVM, beside its resolved path
 * (/usr/lib/llvm-15/bin/ld.lld for clang-15), since the ld.lld on PATH
 * may be another LLVM's that cannot read this one's bitcode.
 */
static void llvm_lto(struct invocation *inv, int is_link)
{
	char real[PATH_MAX];
	char *slash, *lld = NULL;

	swap_flag(&inv->final, "-flto=auto", "-flto=thin");
	swap_flag(&inv->res.added, "-flto=auto", "-flto=thin");
	if (!is_link)
		return;
	if (realpath(inv->compiler, real) && (slash = strrchr(real, '/'))) {
		lld = xasprintf("%.*s/ld.lld", (int)(slash - real), real);
		if (access(lld, X_OK) < 0) {
			free(lld);
			lld = NULL;
		}
	}
	strvec_push(&inv->final, "-fuse-ld=lld");
	strvec_push(&inv->res.added, "-fuse-ld=lld");
	if (lld) {
		strvec_pushf(&inv->final, "--ld-path=%s", lld);
		strvec_pushf(&inv->res.added, "--ld-path=%s", lld);
	}
	free(lld);
}

/* Apply the policy to a compile or link; fills inv->final. */
static void apply_policy(struct invocation *inv)
{
	const char *root = invocation_setting(inv, SETTING_ROOT);
	int is_link = inv->cls.kind == KIND_LINK;

	strvec_pushv(&inv->final, (const char *const *)inv->expanded.v);
	if (!is_link)
		inv->tu = tu_name(inv->cls.source, inv->cwd, root);
	else
		inv->tu = tu_name(inv->cls.output ? inv->cls.output : "a.out", inv->cwd, root);
	if (!inv->have_policy)
		return;
	policy_apply(&inv->policy, is_link ? NULL : inv->tu, &inv->final, &inv->res);
	if (inv->res.refusal)
		die(PGOPT_EXIT_POLICY, "%s", inv->res.refusal);
	/* the caller's profile mode (pgbuild pgo) on top of the policy, in
	 * the compiler's own terms */
	if (inv->profile.mode != PROFILE_NONE) {
		int llvm = !compiler_id(inv)->is_gcc;
		const char *why = policy_profile_check(&inv->profile, llvm);
		if (why) {
			char *src = pgoptcc_setting_source(inv, SETTING_PROFILE);
			die(PGOPT_EXIT_USAGE, "%s=%s: %s is %s: %s", src,
			    invocation_setting(inv, SETTING_PROFILE), inv->compiler,
			    llvm ? "not GCC" : "GCC", why);
		}
		policy_profile_apply(&inv->profile, is_link ? NULL : inv->tu, llvm, &inv->final,
				     &inv->res);
	}
	if (!is_link)
		apply_bundle(inv);
	/* lists alone change nothing when the plugin is switched off */
	if (inv->res.lists && !inv->res.added.nr && !inv->res.removed.nr && invocation_plugin_off(inv))
		inv->res.changed = 0;
	if (!inv->res.changed)
		return;
	/* what only GCC has: fat LTO objects are refused elsewhere (clang
	 * would ignore the flag and make slim ones), and lto = on makes slim
	 * ones there; gcc's hot/cold function splitting, which bolt = ready
	 * turns off, clang does not do unless asked (and it rejects the flag) */
	if ((inv->policy.lto != LTO_OFF || inv->policy.bolt) && !compiler_id(inv)->is_gcc) {
		if (inv->policy.lto == LTO_FAT)
			die(PGOPT_EXIT_PLUGIN,
			    "%s:%d: lto = fat needs GCC, and %s (%s) is not: it would make slim objects (write lto = on or slim)",
			    inv->policy.path, inv->policy.lto_line, inv->compiler,
			    inv->ccid.banner ? inv->ccid.banner : "no --version");
		drop_flag(&inv->final, "-ffat-lto-objects");
		drop_flag(&inv->res.added, "-ffat-lto-objects");
		drop_flag(&inv->final, POLICY_BOLT_CFLAG);
		drop_flag(&inv->res.added, POLICY_BOLT_CFLAG);
		if (inv->policy.lto != LTO_OFF)
			llvm_lto(inv, is_link);
	}
	/* the object proves its flags; not with a path map (a reproducible
	 * build): cc1 would record its argv unmapped, the build path in the
	 * map itself, -fplugin=/abs/pgopt.so and the log directory; the
	 * plugin's record, mapped, holds the options then */
	if (!has_prefix_map(&inv->final))
		strvec_push(&inv->final, "-frecord-gcc-switches");
	else	/* DWARF's producer would name them too */
		strvec_push(&inv->final, "-gno-record-gcc-switches");
	/* the plugin runs in every changed compile, and in the LTO link where
	 * the cross-file inlining happens */
	if (!is_link || inv->policy.lto != LTO_OFF)
		pluginargs_add(inv, inv->tu, is_link);
}

/* The running compiler, for the signal relay (run-command.h). */
static volatile pid_t compiler_pid;

/*
 * Run [prefix...] compiler args; with errbuf, the child's stderr is
 * captured there instead of going to ours.  Returns the exit code as
 * finish_command; exits when the compiler cannot be run at all.
 */
static int run_compiler(const struct invocation *inv, const struct strvec *args,
			struct strbuf *errbuf)
{
	struct child_process cp;
	int code;

	child_process_init(&cp);
	strvec_pushv(&cp.args, (const char *const *)inv->prefix.v);
	strvec_push(&cp.args, inv->compiler);
	strvec_pushv(&cp.args, (const char *const *)args->v);
	cp.pid_watch = &compiler_pid;
	if (errbuf)
		cp.err = -1;
	if (start_command(&cp) < 0)
		die(PGOPT_EXIT_EXEC, "cannot start %s", cp.args.v[0]);
	if (errbuf) {
		strbuf_read_fd(errbuf, cp.err);
		close(cp.err);
	}
	if (cp.exec_errno) {
		finish_command(&cp);
		die(PGOPT_EXIT_EXEC, "cannot run %s: %s", cp.args.v[0], strerror(cp.exec_errno));
	}
	code = finish_command(&cp);
	if (code < 0)
		die(PGOPT_EXIT_EXEC, "lost the compiler process %s", cp.args.v[0]);
	child_process_clear(&cp);
	return code;
}

/*
 * The settings in force (settings.h): the nearest pgoptcc.conf and the
 * three layers resolved into inv->set.  Exits on a bad value, an
 * unreadable or invalid pgoptcc.conf, or a relative CC option with no
 * pgoptcc.conf above.
 */
void pgoptcc_resolve_settings(struct invocation *inv)
{
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	char *conf = NULL;
	int code = settings_find_conf(AT_FDCWD, inv->cwd, &conf, &text, &err);

	if (code < 0)
		die(PGOPT_EXIT_CONFIG, "%s", err.buf);
	if (code == 2) {
		/* not to be trusted: ignored only when the settings come out
		 * the same without it (nothing it says is used), else refused */
		struct strbuf e2 = STRBUF_INIT;
		struct settings with;
		int same = settings_conf_parse(conf, text.buf, text.len, &inv->conf_layer, &e2) == 0 &&
			   settings_resolve(&with, &inv->env_layer, &inv->conf_layer, conf,
					    &inv->cc_layer, inv->cwd, &e2) == 0 &&
			   settings_resolve(&inv->set, &inv->env_layer, NULL, NULL, &inv->cc_layer,
					    inv->cwd, &e2) == 0 &&
			   settings_same(&with, &inv->set);
		if (!same)
			die(PGOPT_EXIT_CONFIG, "%s", err.buf);
		settings_release(&with);
		strbuf_release(&e2);
		verbose("ignoring %s, which makes no difference here: %s", conf, err.buf);
		inv->conf_ignored = conf;
		conf = NULL;
	} else {
		if (conf && settings_conf_parse(conf, text.buf, text.len, &inv->conf_layer, &err) < 0)
			die(PGOPT_EXIT_CONFIG, "%s", err.buf);
		code = settings_resolve(&inv->set, &inv->env_layer, conf ? &inv->conf_layer : NULL,
					conf, &inv->cc_layer, inv->cwd, &err);
		if (code)
			die(code, "%s", err.buf);
	}
	inv->unchecked = invocation_setting(inv, SETTING_UNCHECKED) != NULL;
	inv->weaken = 0;
	if (invocation_setting(inv, SETTING_WEAKEN) &&
	    vocab_parse_weaken(invocation_setting(inv, SETTING_WEAKEN), &inv->weaken, &err) < 0) {
		char *src = pgoptcc_setting_source(inv, SETTING_WEAKEN);
		die(PGOPT_EXIT_USAGE, "%s=%s: %s", src, invocation_setting(inv, SETTING_WEAKEN), err.buf);
	}
	policy_profile_release(&inv->profile);
	if (invocation_setting(inv, SETTING_PROFILE) &&
	    policy_profile_parse(&inv->profile, invocation_setting(inv, SETTING_PROFILE), &err) < 0) {
		char *src = pgoptcc_setting_source(inv, SETTING_PROFILE);
		die(PGOPT_EXIT_USAGE, "%s=%s: %s", src, invocation_setting(inv, SETTING_PROFILE), err.buf);
	}
	free(conf);
	strbuf_release(&err);
	strbuf_release(&text);
}

/*
 * Is an autoconf configure running in dir?  Its probes are compiles of
 * conftest.*, and while it runs it keeps confdefs.h (the #defines found so
 * far) in its directory, which it creates first and removes at exit.  A
 * conftest.c compiled anywhere else (by hand, another tool) leaves no
 * pgoptcc.conf behind.
 */
static int configure_running(const char *dir)
{
	struct stat st;
	char *p = xasprintf("%s/confdefs.h", dir);
	int r = stat(p, &st) == 0 && S_ISREG(st.st_mode);
	free(p);
	return r;
}

/*
 * Is meson asking (its compiler detection runs `$CC --version` as a child
 * of the meson process: python3 /usr/bin/meson setup ...)?  The parent's
 * command line, read bounded from /proc, has a word whose base name is
 * "meson" or "meson.py" before any option.
 */
static int meson_asking(void)
{
	struct strbuf cmd = STRBUF_INIT;
	char *path = xasprintf("/proc/%ld/cmdline", (long)getppid());
	int r = 0;

	if (sfs_read(AT_FDCWD, path, SFS_IN_SYSTEM, 0, &cmd, NULL) > 0) {
		for (size_t i = 0; i < cmd.len && !r; i += strlen(cmd.buf + i) + 1) {
			const char *w = cmd.buf + i, *base = strrchr(w, '/');
			base = base ? base + 1 : w;
			if (w[0] == '-')
				break;
			r = !strcmp(base, "meson") || !strcmp(base, "meson.py");
		}
	}
	free(path);
	strbuf_release(&cmd);
	return r;
}

/*
 * A configure probe: remember the environment's settings in pgoptcc.conf
 * in this directory (configure's, the top of the build tree), so every
 * later compile and link of make, which runs without that environment,
 * gets them.  Values that are wrong fail here, before they are written.
 */
static void remember_settings(struct invocation *inv)
{
	struct strbuf err = STRBUF_INIT;
	struct settings check;
	int code = settings_resolve(&check, &inv->env_layer, NULL, NULL, NULL, inv->cwd, &err);

	settings_release(&check);
	if (code)
		die(code, "%s", err.buf);
	if (settings_conf_remember(AT_FDCWD, inv->cwd, &inv->env_layer, &err) < 0)
		die(PGOPT_EXIT_CONFIG, "%s", err.buf);
	strbuf_release(&err);
}


/* The invocation's empty state, our own path and working directory, and
 * the settings of the environment. */
static void invocation_init(struct invocation *inv)
{
	memset(inv, 0, sizeof(*inv));
	strvec_init(&inv->prefix);
	strvec_init(&inv->orig);
	strvec_init(&inv->expanded);
	strvec_init(&inv->final);
	strvec_init(&inv->cls_argv);
	strbuf_init(&inv->child_path, 0);
	strbuf_init(&inv->failsafe_note, 0);
	settings_layer_init(&inv->env_layer);
	settings_layer_init(&inv->cc_layer);
	settings_layer_init(&inv->conf_layer);
	error_set_program("pgoptcc", PGOPT_EXIT_NOMEM);
	error_verbose = env_switch("PGOPT_VERBOSE");
	(void)env_switch("PGOPT_PASSTHROUGH"); /* a bad value fails every call, as PGOPT_VERBOSE's */
	if (!realpath("/proc/self/exe", inv->self))
		die(PGOPT_EXIT_USAGE, "cannot resolve /proc/self/exe: %s", strerror(errno));
	if (!getcwd(inv->cwd, sizeof(inv->cwd)))
		die(PGOPT_EXIT_USAGE, "cannot get the working directory: %s", strerror(errno));
	settings_layer_from_env(&inv->env_layer);
}

/*
 * How we were called: masquerading (argv[0] is gcc, cc, ...), or as
 * pgoptcc with --pgopt-KEY=VALUE settings, our own options and an optional
 * compiler name first.  Returns the index of the compiler's first
 * argument; *exit_code >= 0 when one of our own options was the whole job.
 */
static int parse_front(struct invocation *inv, int argc, char **argv, const char **cc_name,
		       int *masquerade, int *exit_code)
{
	const char *name = strrchr(argv[0], '/');
	struct strbuf err = STRBUF_INIT;
	int first_arg = 1;

	*exit_code = -1;
	name = name ? name + 1 : argv[0];
	if (strncmp(name, "pgoptcc", 7)) {
		*cc_name = name;           /* masquerading as gcc, cc, ... */
		*masquerade = 1;
		return first_arg;
	}
	/* CC="pgoptcc --pgopt-policy=FILE ... [gcc-12]": settings first */
	for (; first_arg < argc; first_arg++) {
		int r = settings_option(argv[first_arg], &inv->cc_layer, &err);
		if (r < 0)
			die(PGOPT_EXIT_USAGE, "%s", err.buf);
		if (!r)
			break;
	}
	strbuf_release(&err);
	if (first_arg == argc - 1 && !strcmp(argv[first_arg], "--help")) {
		*exit_code = ownopts_help();
		return first_arg;
	}
	/* --version alone is ours (as ccache's), but not for a build system
	 * that identifies the compiler by it: configure (PostgreSQL's puts
	 * the first line of `$CC --version` into PG_VERSION_STR, pg_config.h
	 * and version(), which must stay the compiler's) and meson (which
	 * takes the compiler's kind and version from it) - a probe is sacred */
	if (first_arg == argc - 1 && !strcmp(argv[first_arg], "--version") &&
	    !configure_running(inv->cwd) && !meson_asking()) {
		*exit_code = ownopts_version(inv);
		return first_arg;
	}
	if (first_arg < argc && !strncmp(argv[first_arg], "--pgopt-", 8)) {
		*exit_code = ownopts_run(inv, argc - first_arg, argv + first_arg);
		if (*exit_code >= 0)
			return first_arg;
		ownopts_unknown(argv[first_arg]);
	}
	if (first_arg < argc && compiler_looks_like(argv[first_arg]))
		*cc_name = argv[first_arg++]; /* CC="pgoptcc gcc-12" */
	return first_arg;
}

/* What kind of call this is (the pure classifier, after @file expansion),
 * and the settings that apply to it. */
static void classify(struct invocation *inv, int argc, char **argv)
{
	strvec_pushn(&inv->orig, (const char *const *)argv, (size_t)argc);
	/* classify_args expects an argv[0] (it does not read it); cls keeps
	 * pointers into cls_argv */
	strvec_push(&inv->cls_argv, "cc");
	if (respfile_expand((int)inv->orig.nr, (const char *const *)inv->orig.v,
			    &inv->expanded) < 0) {
		inv->cls.kind = KIND_PASSTHROUGH;
		inv->cls.reason = REASON_TOO_HARD;
	} else {
		strvec_pushv(&inv->cls_argv, (const char *const *)inv->expanded.v);
		classify_args((int)inv->cls_argv.nr, (const char *const *)inv->cls_argv.v,
			      &inv->cls);
	}
	/* configure's probes record its environment before anything reads
	 * the settings, so a probe already sees the new pgoptcc.conf */
	if (inv->cls.reason == REASON_CONFTEST && configure_running(inv->cwd))
		remember_settings(inv);
	pgoptcc_resolve_settings(inv);
	if (inv->cls.kind != KIND_PASSTHROUGH && env_switch("PGOPT_PASSTHROUGH")) {
		inv->cls.kind = KIND_PASSTHROUGH;
		inv->cls.reason = REASON_PASSTHROUGH_ENV;
	}
}

/* The words of the prefix setting (ccache, distcc), found on PATH. */
static void resolve_prefix(struct invocation *inv)
{
	struct strvec words = STRVEC_INIT;
	char *src;

	if (!invocation_setting(inv, SETTING_PREFIX))
		return;
	src = pgoptcc_setting_source(inv, SETTING_PREFIX);
	strvec_split(&words, invocation_setting(inv, SETTING_PREFIX));
	for (size_t i = 0; i < words.nr; i++) {
		char *p = locate_in_path(words.v[i]);
		if (!p)
			die(PGOPT_EXIT_NO_CC, "cannot find \"%s\" of the prefix (%s) on PATH",
			    words.v[i], src);
		if (compiler_same_file(p, inv->self))
			die(PGOPT_EXIT_RECURSION, "the prefix (%s) names pgoptcc itself (%s)", src, p);
		strvec_push_nodup(&inv->prefix, p);
	}
	free(src);
	strvec_clear(&words);
}

/* The log is opened before anything is decided: under failsafe, a log that
 * cannot be written means the build runs unchanged (a policy applied
 * without the record of what it did is no failsafe). */
static void open_log(struct invocation *inv, struct compilelog *log)
{
	struct strbuf err = STRBUF_INIT;

	if (!invocation_setting(inv, SETTING_LOGDIR))
		return;
	if (compilelog_open(log, invocation_setting(inv, SETTING_LOGDIR), &err) < 0) {
		if (!invocation_failsafe(inv))
			die(PGOPT_EXIT_LOG, "%s (set PGOPT_FAILSAFE=passthrough to build without a log)",
			    err.buf);
		invocation_fall_back(inv, "log unwritable", "no compile log (%s)", err.buf);
		compilelog_close(log);
		log->fd = -1;
	}
	strbuf_release(&err);
}

/* The policy's decision for this call (or just the unit's name). */
static void decide(struct invocation *inv)
{
	if (inv->cls.kind != KIND_PASSTHROUGH && !inv->failsafe_error) {
		trust_bundle(inv);
		inv->have_policy = load_policy(inv);
		/* the profile flags go with a policy's record, never alone */
		if (!inv->have_policy && invocation_setting(inv, SETTING_PROFILE) && !inv->failsafe_error) {
			char *src = pgoptcc_setting_source(inv, SETTING_PROFILE);
			die(PGOPT_EXIT_USAGE,
			    "%s=%s: expected a policy too (PGOPT_POLICY): the profile flags are added to a policy's",
			    src, invocation_setting(inv, SETTING_PROFILE));
		}
		if (!inv->failsafe_error)
			check_bundle(inv);
		apply_policy(inv);
	} else if (inv->cls.source && inv->cls.n_sources == 1) {
		/* unchanged, but the log still names the unit */
		inv->tu = tu_name(inv->cls.source, inv->cwd, invocation_setting(inv, SETTING_ROOT));
	}
	verbose("%s (%s)%s%s: %s", classify_kind_name(inv->cls.kind),
		classify_reason_name(inv->cls.reason), inv->tu ? " " : "", inv->tu ? inv->tu : "",
		inv->have_policy && inv->res.changed ? "policy applied" : "unchanged");
}

/* The bundle's profile where GCC reads it; a profile that cannot be put
 * there fails the compile (the policy with a profile the build could not
 * use is no failsafe either). */
static void place_bundle_profile(const struct invocation *inv)
{
	struct strbuf err = STRBUF_INIT;
	if (bundle_place(&inv->bundle, &err) < 0)
		die(PGOPT_EXIT_LOG, "%s (bundle %s, unit %s)", err.buf,
		    invocation_setting(inv, SETTING_BUNDLE), inv->tu);
	strbuf_release(&err);
}

/* Run the compiler as a child (signals forwarded), retrying unchanged when
 * the plugin cannot be loaded under failsafe; returns its exit code. */
static int compile(struct invocation *inv, int changed, int retry)
{
	int code;

	signal_relay_install(&compiler_pid);
	if (changed && inv->have_bundle)
		place_bundle_profile(inv);
	if (!retry && !(changed && inv->have_bundle))
		return run_compiler(inv, changed ? &inv->final : &inv->orig, NULL);
	{
		struct strbuf cerr = STRBUF_INIT;
		code = run_compiler(inv, &inv->final, &cerr);
		if (inv->have_bundle)
			bundle_scan_diagnostics(&inv->bundle, cerr.buf, cerr.len);
		if (retry && code != 0 && pluginargs_load_failed(cerr.buf, inv->plugin)) {
			invocation_fall_back(inv, "plugin failed to load",
					     "the plugin %s failed to load", inv->plugin);
			inv->res.changed = 0;
			if (inv->have_bundle) {
				bundle_use_release(&inv->bundle);
				inv->have_bundle = 0;
			}
			code = run_compiler(inv, &inv->orig, NULL);
		} else {
			(void)write_all(2, cerr.buf, cerr.len);
		}
		strbuf_release(&cerr);
	}
	return code;
}

/*
 * records = side: after a successful link, the output's records move into
 * LOGDIR/records (records.h).  When that fails the output is removed, so
 * that make links it again, and pgoptcc fails.
 */
static void move_records(const struct invocation *inv, const struct compilelog *log,
			 struct compilelog_guard *guard)
{
	const char *mode = invocation_setting(inv, SETTING_RECORDS);
	const char *logdir = invocation_setting(inv, SETTING_LOGDIR);
	struct strbuf err = STRBUF_INIT;
	char *side = NULL;

	if (inv->cls.kind != KIND_LINK || !inv->cls.output || !mode || strcmp(mode, "side") ||
	    !logdir || !*logdir)
		return;
	if (records_move(inv->cls.output, log->dirfd, logdir, &side, &err) < 0) {
		compilelog_guard_remove(guard);
		die(PGOPT_EXIT_LOG, "records = side: %s (removed %s, so that make links it again)",
		    err.buf, inv->cls.output);
	}
	if (side)
		verbose("records of %s moved to %s", inv->cls.output, side);
	free(side);
	strbuf_release(&err);
}

int main(int argc, char **argv)
{
	struct invocation inv;
	struct compilelog log = { -1, NULL, -1 };
	struct compilelog_guard guard = { NULL, -1, NULL, 0, { 0 } };
	const char *cc_name = NULL;
	int first_arg, code, changed, retry, wrote, masquerade = 0;
	double t0;

	invocation_init(&inv);
	first_arg = parse_front(&inv, argc, argv, &cc_name, &masquerade, &code);
	if (code >= 0)
		return code;
	if (env("PGOPT_RECURSION"))
		die(PGOPT_EXIT_RECURSION,
		    "recursion: pgoptcc was called by the compiler it runs (%s); check PGOPT_CC, PGOPT_PREFIX and PATH",
		    cc_name ? cc_name : env("PGOPT_CC") ? env("PGOPT_CC") : "gcc");
	classify(&inv, argc - first_arg, argv + first_arg);
	if (!cc_name)
		cc_name = invocation_setting(&inv, SETTING_CC) ? invocation_setting(&inv, SETTING_CC) : "gcc";
	inv.compiler = compiler_find(cc_name, inv.self, masquerade, &inv.child_path);
	resolve_prefix(&inv);
	open_log(&inv, &log);
	decide(&inv);

	changed = inv.have_policy && inv.res.changed;
	/* under failsafe a compile with the plugin is retried unchanged when
	 * gcc cannot load the plugin (built for another gcc, not a plugin) */
	retry = changed && inv.plugin && invocation_failsafe(&inv);
	setenv("PGOPT_RECURSION", "1", 1);
	if (inv.child_path.len)
		setenv("PATH", inv.child_path.buf, 1);
	if (log.fd < 0 && !retry && !(changed && inv.have_bundle) && !inv.failsafe_note.len) {
		/* no log: become the compiler */
		struct child_process cp;
		child_process_init(&cp);
		strvec_pushv(&cp.args, (const char *const *)inv.prefix.v);
		strvec_push(&cp.args, inv.compiler);
		strvec_pushv(&cp.args, (const char *const *)(changed ? inv.final.v : inv.orig.v));
		execv(cp.args.v[0], cp.args.v);
		die(PGOPT_EXIT_EXEC, "cannot run %s: %s", cp.args.v[0], strerror(errno));
	}
	if (log.fd >= 0)
		compilelog_guard_begin(&inv, &guard);
	t0 = clock_ms();
	code = compile(&inv, changed, retry);
	if (code == 0 && log.fd >= 0)
		move_records(&inv, &log, &guard);
	wrote = log.fd < 0 ? 0 : compilelog_write_record(&inv, &log, code, clock_ms() - t0);
	if (wrote < 0 && invocation_failsafe(&inv)) {
		/* built, with no record of what the policy did: said */
		if (code == 0 && inv.cls.kind == KIND_COMPILE)
			warning("cannot write the compile log %s: %s; %s built without its record "
				"(failsafe passthrough)", log.path, strerror(errno),
				inv.tu ? inv.tu : "the unit");
	} else if (wrote < 0) {
		/* no record, no object: the next make compiles it again */
		int e = errno, removed = compilelog_guard_remove(&guard);
		if (removed > 0)
			die(PGOPT_EXIT_LOG,
			    "cannot write the compile log %s: %s (removed %s, so that make builds it again)",
			    log.path, strerror(e), guard.path);
		if (removed < 0)
			die(PGOPT_EXIT_LOG,
			    "cannot write the compile log %s: %s (and cannot remove %s: %s; remove it by hand, make would take it as up to date)",
			    log.path, strerror(e), guard.path, strerror(errno));
		die(PGOPT_EXIT_LOG, "cannot write the compile log %s: %s", log.path, strerror(e));
	}
	compilelog_guard_end(&guard);
	compilelog_close(&log);
	/* failsafe: say that this unit got the caller's flags, after a
	 * compile that succeeded (a failing one fails as plain gcc's) */
	if (code == 0 && inv.failsafe_note.len && inv.cls.kind == KIND_COMPILE)
		warning("%s; compiled with the caller's flags (failsafe passthrough)",
			inv.failsafe_note.buf);
	if (code > 128 && code < 128 + 65) {
		/* the compiler died by a signal: die the same way */
		signal(code - 128, SIG_DFL);
		raise(code - 128);
	}
	return code;
}
