/*
 * settings.h - pgoptcc's settings: one table of keys, where each value
 * comes from, and pgoptcc.conf, the file configure leaves at the top of a
 * build tree (after ccache's config: a key table, an environment table,
 * "path:line: message" errors).
 *
 * Why: configure records CC in Makefile.global and `pg_config --cc`, but
 * not the environment it ran with.  A policy given as PGOPT_POLICY on the
 * configure line would reach configure's probes and no compile of make.
 * So a setting can come from four layers, strongest first, as git and
 * ccache resolve theirs (command line > environment > file > default):
 *
 *   cc       --pgopt-KEY=VALUE options leading pgoptcc's arguments, i.e.
 *            options inside CC, which configure records verbatim and make
 *            prints on every compile line (what the make log shows is what
 *            is used),
 *   env      PGOPT_KEY in the environment now (set, even to ""),
 *   conf     the nearest pgoptcc.conf at or above the working directory:
 *            written by pgoptcc while configure runs its probes, from
 *            configure's environment, so make sees what configure saw,
 *   default.
 *
 * An empty value means the default, and still overrides weaker layers
 * (PGOPT_PREFIX= drops a prefix given in pgoptcc.conf).
 *
 * Booleans (unchecked-flags here; PGOPT_VERBOSE and PGOPT_PASSTHROUGH in
 * pgoptcc.c) are read by one parser, boolean_parse() (common/boolean.h),
 * with git's words:
 * yes/on/true/1 and no/off/false/0, any case, empty = no.  Anything else
 * is an error naming the variable (or option, or pgoptcc.conf line) and
 * the words, never a silent default.
 *
 * Relative paths are resolved once, against a stated directory, never per
 * compile directory: values in pgoptcc.conf against the file's directory
 * (pgoptcc writes them absolute); values of CC options and of the
 * environment against the directory holding pgoptcc.conf (the top of the
 * build tree).  With no pgoptcc.conf above, a relative environment value
 * is taken against the working directory (plain use outside a configured
 * tree), and a relative CC option is an error: nothing says what it was
 * relative to (an extension built with PGXS after the build tree is gone).
 *
 * Caller-only settings (unchecked-flags, profile, bundle, weaken) come
 * from the environment or a --pgopt-KEY=VALUE option only: a pgoptcc.conf
 * line for one is an error, and a configure probe never records one.  They
 * widen what a policy may do, so only whoever runs the build may set them.
 *
 * pgoptcc.conf is trusted like git trusts a repository's configuration
 * since CVE-2022-24765 (safe.directory): it is used only when it is a
 * regular file (no link, FIFO or device) of at most SFS_READ_LIMIT bytes,
 * owned by the caller (the effective uid), by root, or - running as root
 * under sudo - by SUDO_UID, as git does, and writable by nobody else; and
 * when the directory holding it has such an owner too and, if group or
 * others can write it, is sticky (so no other user can replace the file).
 * Otherwise it is refused (exit 108, one line naming the file, its owner,
 * its mode and the fix): ignoring it would build without the policy it
 * names, silently.  The one exception: when the settings come out the
 * same without it (the environment or CC's options override every key it
 * sets, and no relative value needs its directory), ignoring it changes nothing, so it
 * is ignored (silently: a configure probe must print nothing) and the log
 * record says so ("config_ignored").  Such a file is read, bounded, but no
 * value of it is ever used.  The file is checked and read through one
 * descriptor.  The upward search stops at a file-system boundary.
 *
 * PGOPT_VERBOSE, PGOPT_PASSTHROUGH and PGOPT_RECURSION are per-run switches
 * read from the environment only; they are not settings (a configure probe
 * must never record PGOPT_VERBOSE: its stderr would fail every later
 * probe).  The first two are booleans (boolean_parse).
 */
#ifndef PGOPT_SETTINGS_H
#define PGOPT_SETTINGS_H

#include "wrapper/common/strbuf.h"

/* The settings, in the order pgoptcc.conf and --pgopt-show-config list them. */
enum setting_id {
	SETTING_POLICY,   /* policy file, or "none" */
	SETTING_LOGDIR,   /* compile log directory */
	SETTING_PREFIX,   /* commands run in front of the compiler */
	SETTING_ROOT,     /* source root for translation-unit names */
	SETTING_CC,       /* the real compiler (when CC names none after pgoptcc) */
	SETTING_PLUGIN,   /* the plugin file, or "off" */
	SETTING_FAILSAFE, /* "passthrough": build unchanged instead of failing */
	SETTING_UNCHECKED, /* caller only: a boolean; true lets policies use
			    * any flag */
	SETTING_PROFILE,  /* caller only: "generate|use [GLOB...]" (pgbuild pgo) */
	SETTING_RECORDS,  /* "side": a linked binary's records move to LOGDIR/records */
	SETTING_BUNDLE,   /* caller only: a profile bundle's directory (bundle.h) */
	SETTING_WEAKEN,   /* caller only: the hardening classes a policy may
			   * weaken, "pie,relro" (vocab.h) */
	SETTING_NR
};

/* What a value is, which decides how it is checked and resolved. */
enum setting_kind {
	SETTING_KIND_PATH,     /* a file or directory (relative paths resolved) */
	SETTING_KIND_COMMAND,  /* a program: a bare name is looked up on PATH,
				* a name with '/' is a path (resolved) */
	SETTING_KIND_COMMANDS, /* blank-separated programs, each a COMMAND */
	SETTING_KIND_SWITCH,   /* exactly the keyword, or empty */
	SETTING_KIND_BOOL,     /* a boolean (boolean_parse): resolved to "true",
				* or NULL for false */
	SETTING_KIND_TEXT,     /* taken as written (checked by its user) */
};

struct setting_def {
	const char *key;         /* in pgoptcc.conf and --pgopt-KEY=VALUE */
	const char *env;         /* the environment variable */
	enum setting_kind kind;
	const char *keyword;     /* PATH: a value that is no path ("none", "off");
				  * SWITCH: the one accepted value; or NULL */
	const char *default_text; /* the default, as --pgopt-show-config shows it */
	const char *help;        /* one line: what it is */
	int caller_only;         /* never from pgoptcc.conf, never recorded */
};

/* The table, indexed by enum setting_id. */
extern const struct setting_def settings_table[SETTING_NR];

/* Where a value came from (weakest first). */
enum setting_origin {
	SETTING_FROM_DEFAULT, /* not given anywhere */
	SETTING_FROM_CONF,    /* pgoptcc.conf */
	SETTING_FROM_ENV,     /* the environment */
	SETTING_FROM_CC,      /* a --pgopt-KEY=VALUE option (in CC) */
};

/* "default", "cc", "conf", "env": the compile log's words. */
const char *settings_origin_name(enum setting_origin o);


/* The values one layer gives, as written. */
struct settings_layer {
	char *value[SETTING_NR]; /* NULL: not given here; "" given empty */
	int line[SETTING_NR];    /* pgoptcc.conf: the line; else 0 */
};

void settings_layer_init(struct settings_layer *l);
void settings_layer_release(struct settings_layer *l);

/* The id of key ("policy"), or -1. */
int settings_lookup(const char *key);

/* Fill l from the environment (every variable of the table that is set). */
void settings_layer_from_env(struct settings_layer *l);

/*
 * One argument of pgoptcc's command line.  Returns 1 when arg is a
 * --pgopt-KEY=VALUE settings option (stored in cc: --pgopt-prefix adds a
 * word to the chain, any other key replaces an earlier one); 0 when arg is
 * not one (an own option such as --pgopt-version, or no --pgopt- option
 * at all); -1 for --pgopt-KEY of a settings key without "=VALUE", with
 * the message in err.
 */
int settings_option(const char *arg, struct settings_layer *cc, struct strbuf *err);

/*
 * Parse the text of a pgoptcc.conf: "key = value" lines, '#' comment
 * lines, blank lines; a UTF-8 byte-order mark at the start is skipped.  A
 * key given twice, a caller-only key and a NUL byte are errors.  Returns
 * 0, or -1 with "path:line: message" in err.
 */
int settings_conf_parse(const char *path, const char *text, size_t len,
			struct settings_layer *out, struct strbuf *err);

/*
 * Find the nearest pgoptcc.conf at or above dir (an absolute path;
 * dirfd its descriptor, or AT_FDCWD when dir is the working directory),
 * never across a file-system boundary, check that it can be trusted (see
 * above) and read it.  Returns 1 with *path (malloced) and its text
 * appended to text; 2 the same for one that cannot be trusted, with the
 * refusal in err (its values must not be used: see above); 0 when there
 * is none; -1 with a one-line message in err when the one found is
 * refused unread (a link, a FIFO, over the limit) or cannot be read.
 */
int settings_find_conf(int dirfd, const char *dir, char **path, struct strbuf *text,
		       struct strbuf *err);

/* The resolved settings of one invocation. */
struct settings {
	char *conf;                            /* pgoptcc.conf in force, or NULL */
	char *value[SETTING_NR];               /* resolved value; NULL: the default
						* (and false, for a boolean) */
	enum setting_origin origin[SETTING_NR]; /* the layer it came from */
	int line[SETTING_NR];                  /* pgoptcc.conf line, if from there */
};

/*
 * Combine the layers (cc strongest, then env, then conf; any may be NULL)
 * into s.  conf_path
 * is the file conf was read from (NULL when there is none); cwd the
 * absolute working directory.  Paths come out absolute; a keyword ("none",
 * "off") and bare command names stay as they are; an empty value becomes
 * NULL (the default).  Returns 0, or an exit code (PGOPT_EXIT_USAGE for a
 * bad value in the environment or a CC option, PGOPT_EXIT_CONFIG for one in
 * pgoptcc.conf or a relative CC option with no pgoptcc.conf above) with a
 * one-line message in err.
 */
int settings_resolve(struct settings *s, const struct settings_layer *env,
		     const struct settings_layer *conf, const char *conf_path,
		     const struct settings_layer *cc, const char *cwd, struct strbuf *err);
void settings_release(struct settings *s);

/* Do a and b resolve every setting to the same value? */
int settings_same(const struct settings *a, const struct settings *b);

/*
 * The "key = value" lines pgoptcc.conf records for env (values resolved
 * against dir), one per setting env gives, in table order.  Returns 0, or
 * -1 with a message when a value cannot be written (a newline in it).
 */
int settings_conf_body(const struct settings_layer *env, const char *dir,
		       struct strbuf *out, struct strbuf *err);

/*
 * Remember env in dir/pgoptcc.conf (what a configure probe does; dirfd is
 * dir's descriptor, or AT_FDCWD for the working directory): the header
 * comment and settings_conf_body().  The file is replaced atomically
 * through the directory's descriptor (safefs.h), mode 0644, and only when
 * its settings lines differ from the new ones (configure runs hundreds of
 * probes).  Returns 0, or -1 with a message in err.
 */
int settings_conf_remember(int dirfd, const char *dir, const struct settings_layer *env,
			   struct strbuf *err);

#define SETTINGS_CONF_NAME "pgoptcc.conf"

#endif
