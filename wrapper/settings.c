/*
 * settings.c - the settings table, its layers and pgoptcc.conf; see
 * settings.h.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wrapper/common/boolean.h"
#include "wrapper/compilelog.h"
#include "wrapper/common/exitcodes.h"
#include "wrapper/common/fdio.h"
#include "wrapper/common/safefs.h"
#include "wrapper/settings.h"
#include "wrapper/common/strvec.h"
#include "wrapper/common/suggest.h"
#include "wrapper/tu.h"
#include "wrapper/common/xalloc.h"

const struct setting_def settings_table[SETTING_NR] = {
	[SETTING_POLICY] = { "policy", "PGOPT_POLICY", SETTING_KIND_PATH, "none", "none",
			     "the policy file; none: change no flag" },
	[SETTING_LOGDIR] = { "logdir", "PGOPT_LOGDIR", SETTING_KIND_PATH, NULL, "",
			     "directory of compile.jsonl and the plugin's records; empty: no log" },
	[SETTING_PREFIX] = { "prefix", "PGOPT_PREFIX", SETTING_KIND_COMMANDS, NULL, "",
			     "commands run in front of the compiler (ccache, distcc)" },
	[SETTING_ROOT] = { "root", "PGOPT_ROOT", SETTING_KIND_PATH, NULL, "",
			   "source root for translation-unit names; empty: found per file" },
	[SETTING_CC] = { "cc", "PGOPT_CC", SETTING_KIND_COMMAND, NULL, "gcc",
			 "the real compiler when CC names none after pgoptcc" },
	[SETTING_PLUGIN] = { "plugin", "PGOPT_PLUGIN", SETTING_KIND_PATH, "off", NULL,
			     "the plugin file; off: never load it" },
	[SETTING_FAILSAFE] = { "failsafe", "PGOPT_FAILSAFE", SETTING_KIND_SWITCH, "passthrough", "",
			       "passthrough: build unchanged instead of failing (a compile warns of a bad policy)" },
	[SETTING_UNCHECKED] = { "unchecked-flags", "PGOPT_UNCHECKED_FLAGS", SETTING_KIND_BOOL, NULL, "false",
				"a boolean; true: policies may use flags outside the vocabulary (caller only, logged)",
				1 },
	[SETTING_PROFILE] = { "profile", "PGOPT_PROFILE", SETTING_KIND_TEXT, NULL, "",
			      "generate|use [GLOB...]: add the profile flags (pgbuild pgo; caller only)",
			      1 },
	[SETTING_RECORDS] = { "records", "PGOPT_RECORDS", SETTING_KIND_SWITCH, "side", "",
			      "side: move a linked binary's records to LOGDIR/records/.build-id/" },
	[SETTING_BUNDLE] = { "bundle", "PGOPT_BUNDLE", SETTING_KIND_PATH, NULL, "",
			     "a profile bundle (pgbuild bundle create): its units' profiles are used (caller only)",
			     1 },
	[SETTING_WEAKEN] = { "weaken", "PGOPT_WEAKEN", SETTING_KIND_TEXT, NULL, "",
			     "CLASS,...: hardening a policy may weaken: stack-protector, cet, pie, relro, bind-now, fortify, stack-clash (caller only, logged)",
			     1 },
};

const char *settings_origin_name(enum setting_origin o)
{
	switch (o) {
	case SETTING_FROM_CC: return "cc";
	case SETTING_FROM_CONF: return "conf";
	case SETTING_FROM_ENV: return "env";
	default: return "default";
	}
}

void settings_layer_init(struct settings_layer *l)
{
	memset(l, 0, sizeof(*l));
}

void settings_layer_release(struct settings_layer *l)
{
	for (int i = 0; i < SETTING_NR; i++)
		free(l->value[i]);
	memset(l, 0, sizeof(*l));
}

int settings_lookup(const char *key)
{
	for (int i = 0; i < SETTING_NR; i++)
		if (!strcmp(key, settings_table[i].key))
			return i;
	return -1;
}

void settings_layer_from_env(struct settings_layer *l)
{
	for (int i = 0; i < SETTING_NR; i++) {
		const char *v = getenv(settings_table[i].env);
		if (v) {
			free(l->value[i]);
			l->value[i] = xstrdup(v);
		}
	}
}

int settings_option(const char *arg, struct settings_layer *cc, struct strbuf *err)
{
	const char *name, *eq;
	char *key;
	int id;

	if (strncmp(arg, "--pgopt-", 8))
		return 0;
	name = arg + 8;
	eq = strchr(name, '=');
	key = xstrndup(name, eq ? (size_t)(eq - name) : strlen(name));
	id = settings_lookup(key);
	free(key);
	if (id < 0)
		return 0;
	if (!eq) {
		strbuf_addf(err, "%s: expected --pgopt-%s=VALUE (%s)", arg, settings_table[id].key,
			    settings_table[id].help);
		return -1;
	}
	if (id == SETTING_PREFIX && cc->value[id] && *cc->value[id] && eq[1]) {
		/* repeated: a chain, in order (--pgopt-prefix=ccache --pgopt-prefix=distcc) */
		char *chain = xasprintf("%s %s", cc->value[id], eq + 1);
		free(cc->value[id]);
		cc->value[id] = chain;
	} else {
		free(cc->value[id]);
		cc->value[id] = xstrdup(eq + 1);
	}
	return 1;
}

static char *trim(char *s)
{
	char *e;
	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* "policy, logdir, ...": the keys pgoptcc.conf may hold */
static void list_keys(struct strbuf *sb)
{
	int n = 0;
	for (int i = 0; i < SETTING_NR; i++)
		if (!settings_table[i].caller_only)
			strbuf_addf(sb, "%s%s", n++ ? ", " : "", settings_table[i].key);
}

/* The key a misspelt or environment-style key (PGOPT_POLICY) meant, or NULL. */
static const char *conf_suggest(const char *key)
{
	const char *keys[SETTING_NR + 1];
	int n = 0;
	for (int i = 0; i < SETTING_NR; i++) {
		if (settings_table[i].caller_only)
			continue;
		if (!strcasecmp(key, settings_table[i].env))
			return settings_table[i].key;
		keys[n++] = settings_table[i].key;
	}
	keys[n] = NULL;
	return suggest_word(key, keys);
}

int settings_conf_parse(const char *path, const char *text, size_t len,
			struct settings_layer *out, struct strbuf *err)
{
	size_t pos = 0;
	int lineno = 0;

	if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
		pos = 3;
	{
		const char *nul = memchr(text, '\0', len);
		if (nul) {
			int line = 1;
			for (const char *c = text; c < nul; c++)
				line += *c == '\n';
			strbuf_addf(err, "%s:%d: expected a text file (found a NUL byte)", path, line);
			return -1;
		}
	}
	while (pos < len) {
		size_t eol = pos;
		char *line, *s, *eq, *key, *value;
		int id;

		while (eol < len && text[eol] != '\n')
			eol++;
		lineno++;
		line = xstrndup(text + pos, eol - pos);
		pos = eol + 1;
		s = trim(line);
		if (!*s || *s == '#') {
			free(line);
			continue;
		}
		eq = strchr(s, '=');
		if (!eq) {
			strbuf_addf(err, "%s:%d: expected \"key = value\", got \"%s\"", path, lineno, s);
			free(line);
			return -1;
		}
		*eq = '\0';
		key = trim(s);
		value = trim(eq + 1);
		id = settings_lookup(key);
		if (id < 0) {
			const char *hint = conf_suggest(key);
			strbuf_addf(err, "%s:%d: unknown key \"%s\" (expected one of ", path, lineno, key);
			list_keys(err);
			strbuf_addch(err, ')');
			if (hint)
				strbuf_addf(err, ": did you mean \"%s\"?", hint);
			free(line);
			return -1;
		}
		if (settings_table[id].caller_only) {
			strbuf_addf(err,
				    "%s:%d: %s cannot be set in %s: only whoever runs the build can set it (%s in the environment, or --pgopt-%s=VALUE)",
				    path, lineno, key, SETTINGS_CONF_NAME, settings_table[id].env, key);
			free(line);
			return -1;
		}
		if (out->line[id]) {
			strbuf_addf(err, "%s:%d: expected %s once (line %d sets it already)", path,
				    lineno, key, out->line[id]);
			free(line);
			return -1;
		}
		free(out->value[id]);
		out->value[id] = xstrdup(value);
		out->line[id] = lineno;
		free(line);
	}
	return 0;
}

/* "alice (uid 1000)", or "uid 1000" for a uid with no name. */
static void add_user(struct strbuf *sb, uid_t uid)
{
	struct passwd *pw = getpwuid(uid);
	if (pw)
		strbuf_addf(sb, "%s (uid %ld)", pw->pw_name, (long)uid);
	else
		strbuf_addf(sb, "uid %ld", (long)uid);
}

/* May a pgoptcc.conf, or its directory, be owned by uid?  The caller,
 * root, and under sudo the user who ran sudo (git's rule). */
static int trusted_owner(uid_t uid)
{
	uid_t me = geteuid();
	const char *sudo = getenv("SUDO_UID");
	if (uid == me || uid == 0)
		return 1;
	if (me == 0 && sudo && *sudo) {
		char *end;
		unsigned long u = strtoul(sudo, &end, 10);
		if (!*end && (uid_t)u == uid)
			return 1;
	}
	return 0;
}

/* Who may own a pgoptcc.conf, for messages: "root", "root or alice (uid 1000)". */
static void add_trusted(struct strbuf *sb)
{
	strbuf_addstr(sb, "root");
	if (geteuid() != 0) {
		strbuf_addstr(sb, " or ");
		add_user(sb, geteuid());
	}
}

/*
 * Check the pgoptcc.conf open on fd (st its fstat) in the directory dst:
 * 0 when it may be used, else -1 with the refusal in err.
 */
static int check_trust(const char *path, const char *dir, const struct stat *st,
		       const struct stat *dst, struct strbuf *err)
{
	if (!trusted_owner(st->st_uid) || (st->st_mode & 022)) {
		strbuf_addf(err, "refusing %s: it is owned by ", path);
		add_user(err, st->st_uid);
		strbuf_addf(err, " with mode %04o", (unsigned)(st->st_mode & 07777));
		if (!trusted_owner(st->st_uid)) {
			strbuf_addstr(err, ", expected a file of ");
			add_trusted(err);
			strbuf_addstr(err,
				      " (another user's pgoptcc.conf would choose the compiler): remove it, or chown it if you trust it");
		} else {
			strbuf_addf(err,
				    ", writable by %s (another user could choose the compiler): chmod go-w %s",
				    (st->st_mode & 002) ? "others" : "its group", path);
		}
		return -1;
	}
	if (!trusted_owner(dst->st_uid) || ((dst->st_mode & 022) && !(dst->st_mode & S_ISVTX))) {
		strbuf_addf(err, "refusing %s: its directory %s is owned by ", path, dir);
		add_user(err, dst->st_uid);
		strbuf_addf(err, " with mode %04o", (unsigned)(dst->st_mode & 07777));
		if (!trusted_owner(dst->st_uid)) {
			strbuf_addstr(err, ", expected a directory of ");
			add_trusted(err);
			strbuf_addstr(err, " (its owner could replace the file): move the tree, or chown the directory if you trust it");
		} else {
			strbuf_addf(err,
				    ", writable by %s and not sticky (another user could replace the file): chmod go-w %s",
				    (dst->st_mode & 002) ? "others" : "its group", dir);
		}
		return -1;
	}
	return 0;
}

/* Open, check and read NAME in the directory dfd (dst its fstat): 1 read,
 * 2 read but not to be trusted (the refusal in err), 0 not there, -1
 * refused unread. */
static int read_conf(int dfd, const struct stat *dst, const char *path, const char *dir,
		     struct strbuf *text, struct strbuf *err)
{
	struct stat lst, st;
	int fd, r;

	if (fstatat(dfd, SETTINGS_CONF_NAME, &lst, AT_SYMLINK_NOFOLLOW) < 0)
		return 0; /* not there (or this directory cannot be searched) */
	if (S_ISLNK(lst.st_mode)) {
		strbuf_addf(err,
			    "refusing %s: it is a symbolic link, expected a regular file (pgoptcc reads only a file it can check: replace the link by a copy)",
			    path);
		return -1;
	}
	fd = sfs_open_input_as(dfd, SETTINGS_CONF_NAME, path, SFS_IN_SETTINGS, SFS_NOFOLLOW,
			       &st, err);
	if (fd < 0)
		return -1;
	{
		/* read it even when it cannot be trusted (bounded, never used as
		 * it is): the caller may find that it makes no difference */
		struct strbuf why = STRBUF_INIT;
		int untrusted = S_ISREG(st.st_mode) && check_trust(path, dir, &st, dst, &why) < 0;
		r = sfs_read_fd(fd, path, SFS_IN_SETTINGS, text, err) < 0 ? -1 : untrusted ? 2 : 1;
		if (r == 2)
			strbuf_add(err, why.buf, why.len);
		strbuf_release(&why);
	}
	close(fd);
	return r;
}

int settings_find_conf(int dirfd, const char *dir, char **path, struct strbuf *text,
		       struct strbuf *err)
{
	char *d = xstrdup(dir);
	int fd = open(dirfd == AT_FDCWD ? "." : dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r = 0;

	*path = NULL;
	if (dirfd != AT_FDCWD) {
		if (fd >= 0)
			close(fd);
		fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	}
	while (fd >= 0) {
		struct stat st, up;
		char *p = xasprintf("%s/%s", strcmp(d, "/") ? d : "", SETTINGS_CONF_NAME);
		char *slash;
		int parent;

		if (fstat(fd, &st) < 0) {
			free(p);
			break;
		}
		r = read_conf(fd, &st, p, d, text, err);
		if (r) {
			if (r > 0)
				*path = p;
			else
				free(p);
			break;
		}
		free(p);
		/* up one level, on the same file system only (like git's
		 * GIT_DISCOVERY_ACROSS_FILESYSTEM unset) */
		parent = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (parent < 0 || fstat(parent, &up) < 0 || up.st_dev != st.st_dev ||
		    up.st_ino == st.st_ino) {
			if (parent >= 0)
				close(parent);
			break;
		}
		close(fd);
		fd = parent;
		slash = strrchr(d, '/');
		if (!slash || !strcmp(d, "/"))
			break;
		if (slash == d)
			slash[1] = '\0'; /* "/x" -> "/" */
		else
			*slash = '\0';
	}
	if (fd >= 0)
		close(fd);
	free(d);
	return r;
}

/* dir/rel, lexically normalised. */
static char *join(const char *dir, const char *rel)
{
	char *j = xasprintf("%s/%s", dir, rel), *n = tu_normalize(j);
	free(j);
	return n;
}

/* Does this value name a file (is it subject to resolution)? */
static int is_path(enum setting_kind kind, const char *word)
{
	if (kind == SETTING_KIND_PATH)
		return 1;
	return strchr(word, '/') != NULL; /* a command given by path */
}

/*
 * Resolve one word of setting id from origin: absolute as it is, relative
 * against the directory the rules of settings.h name.  NULL with err
 * filled when it cannot be resolved.
 */
static char *resolve_word(int id, const char *word, enum setting_origin origin,
			  const char *conf_dir, const char *cwd, struct strbuf *err)
{
	const struct setting_def *d = &settings_table[id];

	if (word[0] == '/' || !is_path(d->kind, word) ||
	    (d->keyword && !strcmp(word, d->keyword)))
		return xstrdup(word);
	if (conf_dir)
		return join(conf_dir, word);
	if (origin == SETTING_FROM_ENV)
		return join(cwd, word);
	strbuf_addf(err,
		    "--pgopt-%s=%s: a relative path, and no %s at or above %s says what it is relative to (configure writes one at the top of the build tree): give an absolute path, e.g. --pgopt-%s=$PWD/%s in CC when configuring",
		    d->key, word, SETTINGS_CONF_NAME, cwd, d->key, word);
	return NULL;
}

static int check_switch(int id, const char *v, enum setting_origin origin, const char *conf_path,
			int line, struct strbuf *err)
{
	const struct setting_def *d = &settings_table[id];
	if (!*v || !strcmp(v, d->keyword))
		return 0;
	switch (origin) {
	case SETTING_FROM_ENV:
		/* the wording tests and users know from before the table */
		strbuf_addf(err, "%s=%s: expected %s=%s, or unset", d->env, v, d->env, d->keyword);
		return PGOPT_EXIT_USAGE;
	case SETTING_FROM_CONF:
		strbuf_addf(err, "%s:%d: %s = %s: expected %s = %s, or no such line", conf_path, line,
			    d->key, v, d->key, d->keyword);
		return PGOPT_EXIT_CONFIG;
	default:
		strbuf_addf(err, "--pgopt-%s=%s: expected --pgopt-%s=%s", d->key, v, d->key,
			    d->keyword);
		return PGOPT_EXIT_USAGE;
	}
}

/* A boolean setting's value: 0 with *on set, or an exit code with the
 * message (naming the variable, option or line, and the words) in err. */
static int check_bool(int id, const char *v, enum setting_origin origin, const char *conf_path,
		      int line, int *on, struct strbuf *err)
{
	const struct setting_def *d = &settings_table[id];

	*on = boolean_parse(v);
	if (*on >= 0)
		return 0;
	switch (origin) {
	case SETTING_FROM_ENV:
		strbuf_addf(err, "%s=%s: expected a boolean: " BOOLEAN_WORDS, d->env, v);
		return PGOPT_EXIT_USAGE;
	case SETTING_FROM_CONF:
		strbuf_addf(err, "%s:%d: %s = %s: expected a boolean: " BOOLEAN_WORDS,
			    conf_path, line, d->key, v);
		return PGOPT_EXIT_CONFIG;
	default:
		strbuf_addf(err, "--pgopt-%s=%s: expected a boolean: " BOOLEAN_WORDS, d->key, v);
		return PGOPT_EXIT_USAGE;
	}
}

int settings_resolve(struct settings *s, const struct settings_layer *env,
		     const struct settings_layer *conf, const char *conf_path,
		     const struct settings_layer *cc, const char *cwd, struct strbuf *err)
{
	char *conf_dir = NULL;
	int code = 0;

	memset(s, 0, sizeof(*s));
	if (conf_path) {
		char *slash;
		s->conf = xstrdup(conf_path);
		conf_dir = xstrdup(conf_path);
		slash = strrchr(conf_dir, '/');
		if (slash == conf_dir)
			slash[1] = '\0';
		else if (slash)
			*slash = '\0';
	}
	for (int id = 0; id < SETTING_NR && !code; id++) {
		const struct setting_def *d = &settings_table[id];
		const char *v = NULL;
		enum setting_origin origin = SETTING_FROM_DEFAULT;

		/* command line > environment > file > default (git, ccache) */
		if (cc && cc->value[id]) {
			v = cc->value[id];
			origin = SETTING_FROM_CC;
		} else if (env && env->value[id]) {
			v = env->value[id];
			origin = SETTING_FROM_ENV;
		} else if (conf && conf->value[id] && !d->caller_only) {
			v = conf->value[id];
			origin = SETTING_FROM_CONF;
			s->line[id] = conf->line[id];
		}
		s->origin[id] = origin;
		if (!v || !*v)
			continue; /* the default (an empty value still overrides) */
		if (d->kind == SETTING_KIND_BOOL) {
			int on;
			code = check_bool(id, v, origin, conf_path, s->line[id], &on, err);
			if (!code && on)
				s->value[id] = xstrdup("true");
			continue;
		}
		if (strchr(v, '\n')) {
			strbuf_addf(err, "%s: expected one line, got a value with a newline", d->key);
			code = origin == SETTING_FROM_CONF ? PGOPT_EXIT_CONFIG : PGOPT_EXIT_USAGE;
			break;
		}
		if (d->kind == SETTING_KIND_SWITCH) {
			code = check_switch(id, v, origin, conf_path, s->line[id], err);
			if (!code)
				s->value[id] = xstrdup(v);
			continue;
		}
		if (d->kind == SETTING_KIND_TEXT) {
			s->value[id] = xstrdup(v);
			continue;
		}
		if (d->kind == SETTING_KIND_COMMANDS) {
			struct strvec words = STRVEC_INIT;
			struct strbuf out = STRBUF_INIT;
			strvec_split(&words, v);
			for (size_t i = 0; i < words.nr && !code; i++) {
				char *w = resolve_word(id, words.v[i], origin, conf_dir, cwd, err);
				if (!w) {
					code = PGOPT_EXIT_CONFIG;
					break;
				}
				strbuf_addf(&out, "%s%s", out.len ? " " : "", w);
				free(w);
			}
			strvec_clear(&words);
			if (!code && out.len)
				s->value[id] = strbuf_detach(&out, NULL);
			strbuf_release(&out);
			continue;
		}
		s->value[id] = resolve_word(id, v, origin, conf_dir, cwd, err);
		if (!s->value[id])
			code = PGOPT_EXIT_CONFIG;
	}
	free(conf_dir);
	return code;
}

int settings_same(const struct settings *a, const struct settings *b)
{
	for (int i = 0; i < SETTING_NR; i++) {
		const char *x = a->value[i], *y = b->value[i];
		if (x ? !y || strcmp(x, y) : y != NULL)
			return 0;
	}
	return 1;
}

void settings_release(struct settings *s)
{
	free(s->conf);
	for (int i = 0; i < SETTING_NR; i++)
		free(s->value[i]);
	memset(s, 0, sizeof(*s));
}

int settings_conf_body(const struct settings_layer *env, const char *dir,
		       struct strbuf *out, struct strbuf *err)
{
	for (int id = 0; id < SETTING_NR; id++) {
		const struct setting_def *d = &settings_table[id];
		const char *v = env->value[id];
		if (!v || d->caller_only)
			continue; /* never recorded: make must be given them again */
		if (strchr(v, '\n')) {
			strbuf_addf(err, "%s has a newline in its value: pgoptcc cannot record it in %s/%s",
				    d->env, dir, SETTINGS_CONF_NAME);
			return -1;
		}
		strbuf_addf(out, "%s =", d->key);
		if (d->kind == SETTING_KIND_COMMANDS) {
			struct strvec words = STRVEC_INIT;
			strvec_split(&words, v);
			for (size_t i = 0; i < words.nr; i++) {
				char *w = resolve_word(id, words.v[i], SETTING_FROM_ENV, dir, dir, err);
				strbuf_addf(out, " %s", w);
				free(w);
			}
			strvec_clear(&words);
		} else if (*v) {
			char *w = d->kind == SETTING_KIND_SWITCH || d->kind == SETTING_KIND_BOOL
					  ? xstrdup(v)
					  : resolve_word(id, v, SETTING_FROM_ENV, dir, dir, err);
			strbuf_addf(out, " %s", w);
			free(w);
		}
		strbuf_addch(out, '\n');
	}
	return 0;
}

/* The settings lines of a pgoptcc.conf's text: every line that is not
 * blank or a comment, trimmed, each followed by '\n'. */
static void settings_lines(const char *text, size_t len, struct strbuf *out)
{
	size_t pos = 0;
	if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
		pos = 3;
	while (pos < len) {
		size_t eol = pos;
		char *line, *s;
		while (eol < len && text[eol] != '\n')
			eol++;
		line = xstrndup(text + pos, eol - pos);
		pos = eol + 1;
		s = trim(line);
		if (*s && *s != '#')
			strbuf_addf(out, "%s\n", s);
		free(line);
	}
}

int settings_conf_remember(int dirfd, const char *dir, const struct settings_layer *env,
			   struct strbuf *err)
{
	struct strbuf body = STRBUF_INIT, old = STRBUF_INIT, old_lines = STRBUF_INIT;
	struct strbuf file = STRBUF_INIT, ts = STRBUF_INIT, why = STRBUF_INIT;
	char *path = xasprintf("%s/%s", strcmp(dir, "/") ? dir : "", SETTINGS_CONF_NAME);
	int r = -1;

	if (settings_conf_body(env, dir, &body, err) < 0)
		goto out;
	if (sfs_read(dirfd, SETTINGS_CONF_NAME, SFS_IN_SETTINGS, SFS_NOFOLLOW, &old, NULL) >= 0) {
		settings_lines(old.buf, old.len, &old_lines);
		if (old_lines.len == body.len && !memcmp(old_lines.buf, body.buf, body.len)) {
			r = 0; /* unchanged: configure's other probes find it as it is */
			goto out;
		}
	}
	compilelog_timestamp(&ts);
	strbuf_addf(&file,
		    "# %s - pgoptcc's settings for the build tree below this directory.\n"
		    "# Written by pgoptcc %s at %s\n"
		    "# while configure ran its probes here, from the PGOPT_* variables of\n"
		    "# configure's environment (relative paths resolved against this\n"
		    "# directory); running configure again rewrites it.\n"
		    "# pgoptcc reads the nearest %s at or above the directory it runs in\n"
		    "# (only one owned by root or by the user running the build, writable by\n"
		    "# nobody else).\n"
		    "# Precedence, as git's and ccache's: --pgopt-KEY=VALUE options in CC,\n"
		    "# then PGOPT_* in the environment, then this file, then the defaults;\n"
		    "# relative paths in CC's options and in the environment are taken\n"
		    "# against this directory.\n"
		    "# `pgoptcc --pgopt-show-config` shows each setting and where it comes from.\n",
		    SETTINGS_CONF_NAME, PGOPT_VERSION, ts.buf, SETTINGS_CONF_NAME);
	strbuf_add(&file, body.buf, body.len);
	if (sfs_write_atomic(dirfd, SETTINGS_CONF_NAME, file.buf, file.len, 0644, &why) < 0) {
		const char *reason = strstr(why.buf, ": ");
		strbuf_addf(err, "cannot write %s (configure's settings for make): %s", path,
			    reason ? reason + 2 : why.buf);
		goto out;
	}
	r = 0;
out:
	free(path);
	strbuf_release(&body);
	strbuf_release(&old);
	strbuf_release(&old_lines);
	strbuf_release(&file);
	strbuf_release(&ts);
	strbuf_release(&why);
	return r;
}
