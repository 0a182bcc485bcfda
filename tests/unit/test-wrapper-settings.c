/*
 * test-wrapper-settings.c - pgoptcc's settings (wrapper/settings.c): the
 * --pgopt-KEY=VALUE options, pgoptcc.conf parsing and its errors, the
 * boolean parser (wrapper/common/boolean.c), the precedence of the layers
 * (every pair: command line > environment > pgoptcc.conf > default), where relative paths are resolved,
 * pgoptcc.conf written by a configure probe (only when it changes), and
 * which pgoptcc.conf is trusted: owner, mode, its directory, links, FIFOs
 * (as root: another user's file too).  Also the "did you mean" helper
 * (wrapper/common/suggest.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "wrapper/common/boolean.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/exitcodes.h"
#include "wrapper/settings.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/suggest.h"

static void test_suggest(void **state)
{
	static const char *const keys[] = { "cflags", "ldflags", "lto", "march", "hot",
					    "cold", "plugin", "bolt", NULL };
	struct { const char *word, *want; } cases[] = {
		{ "cflag", "cflags" }, { "CFLAGS", "cflags" }, { "cflgas", "cflags" },
		{ "ldflag", "ldflags" }, { "LTO", "lto" }, { "lt", "lto" },
		{ "plugins", "plugin" }, { "blot", "bolt" }, { "mrach", "march" },
		{ "optimize", NULL }, { "x", NULL }, { "inline", NULL }, { "cxxflags", "cflags" },
	};
	(void)state;
	assert_int_equal(suggest_distance("kitten", "sitting"), 3);
	assert_int_equal(suggest_distance("", "abc"), 3);
	assert_int_equal(suggest_distance("abc", "abc"), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = suggest_word(cases[i].word, keys);
		if (cases[i].want ? !got || strcmp(got, cases[i].want) : got != NULL)
			fail_msg("suggest(%s): got %s, want %s", cases[i].word, got ? got : "NULL",
				 cases[i].want ? cases[i].want : "NULL");
	}
}

/* git's words, any case; empty is no; anything else is -1 */
static void test_boolean(void **state)
{
	static const struct { const char *v; int want; } cases[] = {
		{ "yes", 1 }, { "YES", 1 }, { "Yes", 1 }, { "on", 1 }, { "ON", 1 }, { "true", 1 },
		{ "True", 1 }, { "1", 1 },
		{ "no", 0 }, { "NO", 0 }, { "off", 0 }, { "Off", 0 }, { "false", 0 }, { "FALSE", 0 },
		{ "0", 0 }, { "", 0 },
		{ "maybe", -1 }, { "2", -1 }, { "-1", -1 }, { "01", -1 }, { " yes", -1 }, { "yes ", -1 },
		{ "y", -1 }, { "n", -1 }, { "enable", -1 }, { "passthrough", -1 }, { NULL, -1 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (boolean_parse(cases[i].v) != cases[i].want)
			fail_msg("boolean_parse(%s): got %d, want %d", cases[i].v ? cases[i].v : "NULL",
				 boolean_parse(cases[i].v), cases[i].want);
}

static void test_options(void **state)
{
	struct settings_layer cc;
	struct strbuf err = STRBUF_INIT;
	(void)state;
	settings_layer_init(&cc);
	assert_int_equal(settings_option("--pgopt-policy=/p/x.policy", &cc, &err), 1);
	assert_string_equal(cc.value[SETTING_POLICY], "/p/x.policy");
	assert_int_equal(settings_option("--pgopt-policy=/p/y.policy", &cc, &err), 1);
	assert_string_equal(cc.value[SETTING_POLICY], "/p/y.policy");
	/* repeated --pgopt-prefix is a chain, in order */
	assert_int_equal(settings_option("--pgopt-prefix=ccache", &cc, &err), 1);
	assert_int_equal(settings_option("--pgopt-prefix=distcc", &cc, &err), 1);
	assert_string_equal(cc.value[SETTING_PREFIX], "ccache distcc");
	assert_int_equal(settings_option("--pgopt-logdir=", &cc, &err), 1);
	assert_string_equal(cc.value[SETTING_LOGDIR], "");
	/* not settings: own options, gcc options, unknown --pgopt- names */
	assert_int_equal(settings_option("--pgopt-version", &cc, &err), 0);
	assert_int_equal(settings_option("--pgopt-show-config", &cc, &err), 0);
	assert_int_equal(settings_option("--pgopt-polcy=x", &cc, &err), 0);
	assert_int_equal(settings_option("-O2", &cc, &err), 0);
	assert_int_equal(settings_option("gcc-12", &cc, &err), 0);
	assert_int_equal(err.len, 0);
	assert_int_equal(settings_option("--pgopt-policy", &cc, &err), -1);
	assert_string_equal(err.buf,
			    "--pgopt-policy: expected --pgopt-policy=VALUE (the policy file; none: change no flag)");
	settings_layer_release(&cc);
	strbuf_release(&err);
}

struct bad_conf {
	const char *text;
	const char *error;
};

static const struct bad_conf bad_confs[] = {
	{ "policy = /x\nfoo = 1\n",
	  "/b/pgoptcc.conf:2: unknown key \"foo\" (expected one of policy, logdir, prefix, root, cc, plugin, failsafe, records)" },
	{ "polcy = /x\n",
	  "/b/pgoptcc.conf:1: unknown key \"polcy\" (expected one of policy, logdir, prefix, root, cc, plugin, failsafe, records): did you mean \"policy\"?" },
	{ "# c\nPGOPT_POLICY = /x\n",
	  "/b/pgoptcc.conf:2: unknown key \"PGOPT_POLICY\" (expected one of policy, logdir, prefix, root, cc, plugin, failsafe, records): did you mean \"policy\"?" },
	{ "LOGDIR = /x\n",
	  "/b/pgoptcc.conf:1: unknown key \"LOGDIR\" (expected one of policy, logdir, prefix, root, cc, plugin, failsafe, records): did you mean \"logdir\"?" },
	{ "\n\npolicy /x\n", "/b/pgoptcc.conf:3: expected \"key = value\", got \"policy /x\"" },
	/* a key given twice: both lines named */
	{ "policy = /a\n# x\nlogdir = /l\npolicy = /b\n",
	  "/b/pgoptcc.conf:4: expected policy once (line 1 sets it already)" },
	/* the caller-only settings are never taken from the file */
	{ "unchecked-flags = 1\n",
	  "/b/pgoptcc.conf:1: unchecked-flags cannot be set in pgoptcc.conf: only whoever runs the build can set it (PGOPT_UNCHECKED_FLAGS in the environment, or --pgopt-unchecked-flags=VALUE)" },
	{ "policy = /p\nprofile = generate\n",
	  "/b/pgoptcc.conf:2: profile cannot be set in pgoptcc.conf: only whoever runs the build can set it (PGOPT_PROFILE in the environment, or --pgopt-profile=VALUE)" },
};

static void test_conf_parse(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_confs) / sizeof(bad_confs[0]); i++) {
		struct settings_layer l;
		struct strbuf err = STRBUF_INIT;
		settings_layer_init(&l);
		if (settings_conf_parse("/b/pgoptcc.conf", bad_confs[i].text,
					strlen(bad_confs[i].text), &l, &err) != -1)
			fail_msg("accepted: %s", bad_confs[i].text);
		if (strcmp(err.buf, bad_confs[i].error))
			fail_msg("conf %zu: got  <%s>\nwant <%s>", i, err.buf, bad_confs[i].error);
		settings_layer_release(&l);
		strbuf_release(&err);
	}
	{
		/* a BOM, comments, blank lines, CRLF, spaces, an empty value */
		const char *text = "\xEF\xBB\xBF# written by hand\r\n"
				   "  cc=gcc-12  \r\n"
				   "\n"
				   "logdir = /l\n"
				   "prefix = ccache distcc\n"
				   "policy = /p/x.policy\n"
				   "root =\n";
		struct settings_layer l;
		struct strbuf err = STRBUF_INIT;
		settings_layer_init(&l);
		assert_int_equal(settings_conf_parse("/b/pgoptcc.conf", text, strlen(text), &l, &err), 0);
		assert_string_equal(l.value[SETTING_POLICY], "/p/x.policy");
		assert_int_equal(l.line[SETTING_POLICY], 6);
		assert_string_equal(l.value[SETTING_LOGDIR], "/l");
		assert_string_equal(l.value[SETTING_PREFIX], "ccache distcc");
		assert_string_equal(l.value[SETTING_ROOT], "");
		assert_string_equal(l.value[SETTING_CC], "gcc-12");
		settings_layer_release(&l);
		assert_int_equal(settings_conf_parse("/b/pgoptcc.conf", "a\0b", 3, &l, &err), -1);
		assert_string_equal(err.buf, "/b/pgoptcc.conf:1: expected a text file (found a NUL byte)");
		/* a NUL byte is reported at its own line */
		strbuf_reset(&err);
		assert_int_equal(settings_conf_parse("/b/pgoptcc.conf", "# a\npolicy = /x\nlog\0dir = /l\n",
						     29, &l, &err), -1);
		assert_string_equal(err.buf, "/b/pgoptcc.conf:3: expected a text file (found a NUL byte)");
		settings_layer_release(&l);
		strbuf_release(&err);
	}
}

/* A layer from "key=value;key=value". */
static void layer(struct settings_layer *l, const char *spec)
{
	char *s = strdup(spec), *save = NULL;
	settings_layer_init(l);
	for (char *kv = strtok_r(s, ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
		char *eq = strchr(kv, '=');
		int id;
		*eq = '\0';
		id = settings_lookup(kv);
		assert_true(id >= 0);
		free(l->value[id]);
		l->value[id] = strdup(eq + 1);
		l->line[id] = 7;
	}
	free(s);
}

struct resolve_case {
	const char *env, *conf, *cc;  /* layer specs; NULL: no such layer */
	const char *conf_path;        /* the pgoptcc.conf found, or NULL */
	int id;                       /* the setting checked */
	const char *want;             /* resolved value (NULL: the default) */
	const char *origin;           /* its origin */
	int code;                     /* expected return */
	const char *error;            /* expected message, when code */
};

static const struct resolve_case resolve_cases[] = {
	/* precedence, every pair (git's and ccache's order): command line
	 * (cc) > environment > pgoptcc.conf > default */
	{ "policy=/e.p", "policy=/c.p", "policy=/o.p", "/b/pgoptcc.conf", SETTING_POLICY, "/o.p", "cc", 0, NULL },
	{ "policy=/e.p", NULL, "policy=/o.p", NULL, SETTING_POLICY, "/o.p", "cc", 0, NULL },
	{ NULL, "policy=/c.p", "policy=/o.p", "/b/pgoptcc.conf", SETTING_POLICY, "/o.p", "cc", 0, NULL },
	{ NULL, NULL, "policy=/o.p", NULL, SETTING_POLICY, "/o.p", "cc", 0, NULL },
	{ "policy=/e.p", "policy=/c.p", "", "/b/pgoptcc.conf", SETTING_POLICY, "/e.p", "env", 0, NULL },
	{ "policy=/e.p", NULL, NULL, NULL, SETTING_POLICY, "/e.p", "env", 0, NULL },
	{ "", "policy=/c.p", "", "/b/pgoptcc.conf", SETTING_POLICY, "/c.p", "conf", 0, NULL },
	{ "", "", "", NULL, SETTING_POLICY, NULL, "default", 0, NULL },
	/* ... the same for a setting of each other kind */
	{ "prefix=distcc", "prefix=sccache", "prefix=ccache", "/b/pgoptcc.conf", SETTING_PREFIX, "ccache", "cc", 0, NULL },
	{ "cc=gcc-11", "cc=gcc-10", NULL, "/b/pgoptcc.conf", SETTING_CC, "gcc-11", "env", 0, NULL },
	{ NULL, "failsafe=passthrough", NULL, "/b/pgoptcc.conf", SETTING_FAILSAFE, "passthrough", "conf", 0, NULL },
	{ "unchecked-flags=no", NULL, "unchecked-flags=yes", NULL, SETTING_UNCHECKED, "true", "cc", 0, NULL },
	{ "unchecked-flags=on", NULL, "unchecked-flags=0", NULL, SETTING_UNCHECKED, NULL, "cc", 0, NULL },
	{ "unchecked-flags=TRUE", NULL, NULL, NULL, SETTING_UNCHECKED, "true", "env", 0, NULL },
	/* a caller-only setting is never taken from pgoptcc.conf, whatever its place */
	{ NULL, "unchecked-flags=1", NULL, "/b/pgoptcc.conf", SETTING_UNCHECKED, NULL, "default", 0, NULL },
	/* an empty value on the command line is the default, and overrides
	 * the environment and the file */
	{ "policy=/e.p", "policy=/c.p", "policy=", "/b/pgoptcc.conf", SETTING_POLICY, NULL, "cc", 0, NULL },
	/* an empty value is the default, and still overrides */
	{ "prefix=", "prefix=ccache", NULL, "/b/pgoptcc.conf", SETTING_PREFIX, NULL, "env", 0, NULL },
	{ "policy=none", "policy=/c.p", NULL, "/b/pgoptcc.conf", SETTING_POLICY, "none", "env", 0, NULL },
	/* relative paths: against the pgoptcc.conf's directory, whatever the layer */
	{ "policy=x.p", NULL, NULL, "/b/pgoptcc.conf", SETTING_POLICY, "/b/x.p", "env", 0, NULL },
	{ NULL, "logdir=log", NULL, "/b/pgoptcc.conf", SETTING_LOGDIR, "/b/log", "conf", 0, NULL },
	{ NULL, NULL, "logdir=./log/../log2", "/b/pgoptcc.conf", SETTING_LOGDIR, "/b/log2", "cc", 0, NULL },
	{ NULL, NULL, "policy=../p/x.p", "/pgoptcc.conf", SETTING_POLICY, "/p/x.p", "cc", 0, NULL },
	/* ... without one: env against the working directory, cc refused */
	{ "root=src/..", NULL, NULL, NULL, SETTING_ROOT, "/w/d", "env", 0, NULL },
	{ NULL, NULL, "policy=x.p", NULL, SETTING_POLICY, NULL, "cc", PGOPT_EXIT_CONFIG,
	  "--pgopt-policy=x.p: a relative path, and no pgoptcc.conf at or above /w/d says what it is relative to (configure writes one at the top of the build tree): give an absolute path, e.g. --pgopt-policy=$PWD/x.p in CC when configuring" },
	/* keywords and bare commands stay as they are; commands with '/' are paths */
	{ NULL, NULL, "plugin=off", NULL, SETTING_PLUGIN, "off", "cc", 0, NULL },
	{ NULL, NULL, "policy=none", NULL, SETTING_POLICY, "none", "cc", 0, NULL },
	{ NULL, NULL, "cc=gcc-12", NULL, SETTING_CC, "gcc-12", "cc", 0, NULL },
	{ "cc=bin/gcc", NULL, NULL, "/b/pgoptcc.conf", SETTING_CC, "/b/bin/gcc", "env", 0, NULL },
	{ NULL, "prefix=ccache ./wrap /abs/distcc", NULL, "/b/pgoptcc.conf", SETTING_PREFIX,
	  "ccache /b/wrap /abs/distcc", "conf", 0, NULL },
	/* the switch takes only its keyword; the message names the layer */
	{ "failsafe=passthrough", NULL, NULL, NULL, SETTING_FAILSAFE, "passthrough", "env", 0, NULL },
	{ "failsafe=yes", NULL, NULL, NULL, SETTING_FAILSAFE, NULL, "env", PGOPT_EXIT_USAGE,
	  "PGOPT_FAILSAFE=yes: expected PGOPT_FAILSAFE=passthrough, or unset" },
	{ NULL, "failsafe=1", NULL, "/b/pgoptcc.conf", SETTING_FAILSAFE, NULL, "conf", PGOPT_EXIT_CONFIG,
	  "/b/pgoptcc.conf:7: failsafe = 1: expected failsafe = passthrough, or no such line" },
	{ NULL, NULL, "failsafe=on", NULL, SETTING_FAILSAFE, NULL, "cc", PGOPT_EXIT_USAGE,
	  "--pgopt-failsafe=on: expected --pgopt-failsafe=passthrough" },
	/* a boolean that is none: an error naming the variable and the words */
	{ "unchecked-flags=maybe", NULL, NULL, NULL, SETTING_UNCHECKED, NULL, "env", PGOPT_EXIT_USAGE,
	  "PGOPT_UNCHECKED_FLAGS=maybe: expected a boolean: yes, no, true, false, on, off, 1 or 0 (empty is no)" },
	{ NULL, NULL, "unchecked-flags=2", NULL, SETTING_UNCHECKED, NULL, "cc", PGOPT_EXIT_USAGE,
	  "--pgopt-unchecked-flags=2: expected a boolean: yes, no, true, false, on, off, 1 or 0 (empty is no)" },
	/* ... also when a stronger layer would have been good: never a
	 * silent default below */
	{ "unchecked-flags=yess", NULL, NULL, NULL, SETTING_UNCHECKED, NULL, "env", PGOPT_EXIT_USAGE,
	  "PGOPT_UNCHECKED_FLAGS=yess: expected a boolean: yes, no, true, false, on, off, 1 or 0 (empty is no)" },
};

static void test_resolve(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(resolve_cases) / sizeof(resolve_cases[0]); i++) {
		const struct resolve_case *c = &resolve_cases[i];
		struct settings_layer env, conf, cc;
		struct settings s;
		struct strbuf err = STRBUF_INIT;
		int code;
		layer(&env, c->env ? c->env : "");
		layer(&conf, c->conf ? c->conf : "");
		layer(&cc, c->cc ? c->cc : "");
		code = settings_resolve(&s, c->env ? &env : NULL, c->conf ? &conf : NULL,
					c->conf_path, c->cc ? &cc : NULL, "/w/d", &err);
		if (code != c->code)
			fail_msg("case %zu: code %d, want %d (%s)", i, code, c->code, err.buf);
		if (c->code) {
			if (strcmp(err.buf, c->error))
				fail_msg("case %zu: got  <%s>\nwant <%s>", i, err.buf, c->error);
		} else {
			const char *v = s.value[c->id];
			if (c->want ? !v || strcmp(v, c->want) : v != NULL)
				fail_msg("case %zu: value <%s>, want <%s>", i, v ? v : "NULL",
					 c->want ? c->want : "NULL");
			if (strcmp(settings_origin_name(s.origin[c->id]), c->origin))
				fail_msg("case %zu: origin %s, want %s", i,
					 settings_origin_name(s.origin[c->id]), c->origin);
		}
		settings_release(&s);
		settings_layer_release(&env);
		settings_layer_release(&conf);
		settings_layer_release(&cc);
		strbuf_release(&err);
	}
}

/* What configure's probe writes, and that it rewrites only on a change. */
static void test_remember(void **state)
{
	char dir[] = "/tmp/pgopt-unit-settings.XXXXXX";
	char *sub, *conf, *found;
	struct settings_layer env, back;
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	struct stat st1, st2;
	int dfd;
	(void)state;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	sub = malloc(strlen(dir) + 16);
	conf = malloc(strlen(dir) + 32);
	sprintf(conf, "%s/pgoptcc.conf", dir);
	sprintf(sub, "%s/src", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	sprintf(sub, "%s/src/backend", dir);
	assert_int_equal(mkdir(sub, 0755), 0);

	/* no settings: the file still marks the top of the tree */
	settings_layer_init(&env);
	assert_int_equal(settings_conf_remember(dfd, dir, &env, &err), 0);
	{
		int sfd = open(sub, O_RDONLY | O_DIRECTORY);
		assert_int_equal(settings_find_conf(sfd, sub, &found, &text, &err), 1);
		close(sfd);
	}
	assert_string_equal(found, conf);
	free(found);
	assert_int_equal(stat(conf, &st1), 0);
	assert_int_equal(st1.st_mode & 07777, 0644);
	strbuf_reset(&text);
	assert_int_equal(sfs_read(AT_FDCWD, conf, SFS_IN_BINARY, 0, &text, NULL) > 0, 1);
	assert_non_null(strstr(text.buf, "# pgoptcc.conf - "));
	settings_layer_init(&back);
	assert_int_equal(settings_conf_parse(conf, text.buf, text.len, &back, &err), 0);
	for (int i = 0; i < SETTING_NR; i++)
		assert_null(back.value[i]);
	settings_layer_release(&back);

	/* settings, relative ones resolved against the directory */
	layer(&env, "policy=../p/x.policy;logdir=log;prefix=ccache;failsafe=passthrough;root=");
	assert_int_equal(settings_conf_remember(dfd, dir, &env, &err), 0);
	strbuf_reset(&text);
	sfs_read(AT_FDCWD, conf, SFS_IN_BINARY, 0, &text, NULL);
	settings_layer_init(&back);
	assert_int_equal(settings_conf_parse(conf, text.buf, text.len, &back, &err), 0);
	{
		char *want = malloc(strlen(dir) + 16);
		sprintf(want, "%s/log", dir);
		assert_string_equal(back.value[SETTING_LOGDIR], want);
		free(want);
	}
	assert_string_equal(back.value[SETTING_PREFIX], "ccache");
	assert_string_equal(back.value[SETTING_FAILSAFE], "passthrough");
	assert_string_equal(back.value[SETTING_ROOT], "");
	assert_null(back.value[SETTING_CC]);
	assert_int_equal(back.value[SETTING_POLICY][0], '/');
	assert_non_null(strstr(back.value[SETTING_POLICY], "/p/x.policy"));
	settings_layer_release(&back);

	/* the same settings again: the file is left alone (same inode) */
	assert_int_equal(stat(conf, &st1), 0);
	assert_int_equal(settings_conf_remember(dfd, dir, &env, &err), 0);
	assert_int_equal(stat(conf, &st2), 0);
	assert_int_equal(st1.st_ino, st2.st_ino);
	/* a setting no longer given disappears */
	settings_layer_release(&env);
	layer(&env, "logdir=/l");
	assert_int_equal(settings_conf_remember(dfd, dir, &env, &err), 0);
	strbuf_reset(&text);
	sfs_read(AT_FDCWD, conf, SFS_IN_BINARY, 0, &text, NULL);
	assert_null(strstr(text.buf, "policy ="));
	assert_non_null(strstr(text.buf, "\nlogdir = /l\n"));
	assert_int_equal(err.len, 0);

	/* the caller-only settings are never recorded */
	settings_layer_release(&env);
	layer(&env, "logdir=/l;unchecked-flags=1;profile=generate");
	assert_int_equal(settings_conf_remember(dfd, dir, &env, &err), 0);
	strbuf_reset(&text);
	sfs_read(AT_FDCWD, conf, SFS_IN_BINARY, 0, &text, NULL);
	assert_null(strstr(text.buf, "unchecked"));
	assert_null(strstr(text.buf, "profile ="));

	/* a newline cannot be recorded: refused, nothing written */
	settings_layer_release(&env);
	layer(&env, "policy=/a\nb");
	assert_int_equal(settings_conf_remember(dfd, dir, &env, &err), -1);
	assert_non_null(strstr(err.buf, "PGOPT_POLICY has a newline in its value"));

	settings_layer_release(&env);
	strbuf_release(&err);
	strbuf_release(&text);
	close(dfd);
	unlink(conf);
	rmdir(sub);
	sprintf(sub, "%s/src", dir);
	rmdir(sub);
	rmdir(dir);
	free(sub);
	free(conf);
}

/* find_conf from dir: the return code, the message in err. */
static int find(const char *dir, struct strbuf *err, char **found)
{
	struct strbuf text = STRBUF_INIT;
	int fd = open(dir, O_RDONLY | O_DIRECTORY), r;
	assert_true(fd >= 0);
	strbuf_reset(err);
	r = settings_find_conf(fd, dir, found, &text, err);
	close(fd);
	strbuf_release(&text);
	return r;
}

/* Refused: unread (-1: a link, a FIFO ...) or read but untrusted (2: the
 * caller may use it only if it makes no difference). */
static void expect_code(const char *dir, int code, const char *want)
{
	struct strbuf err = STRBUF_INIT;
	char *found = NULL;
	int r = find(dir, &err, &found);
	if (r != code)
		fail_msg("find: %d, want %d (want <%s>)", r, code, want);
	if (!strstr(err.buf, want))
		fail_msg("got  <%s>\nwant <...%s...>", err.buf, want);
	if (code < 0)
		assert_null(found);
	else
		assert_non_null(found);
	free(found);
	strbuf_release(&err);
}
#define expect_refused(dir, want) expect_code(dir, -1, want)
#define expect_untrusted(dir, want) expect_code(dir, 2, want)

/* Which pgoptcc.conf is used (git's safe.directory bar). */
static void test_trust(void **state)
{
	char top[] = "/tmp/pgopt-unit-trust.XXXXXX";
	char sub[64], conf[64], want[256];
	struct strbuf err = STRBUF_INIT;
	char *found = NULL;
	FILE *f;
	(void)state;

	assert_non_null(mkdtemp(top));
	assert_int_equal(chmod(top, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/sub", top);
	snprintf(conf, sizeof(conf), "%s/pgoptcc.conf", top);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(find(sub, &err, &found), 0);  /* none here (nor above, we hope) */
	f = fopen(conf, "w");
	fputs("policy = /x.policy\n", f);
	fclose(f);
	assert_int_equal(chmod(conf, 0644), 0);

	/* ours, 0644, in a 0755 directory of ours: used */
	assert_int_equal(find(sub, &err, &found), 1);
	assert_string_equal(found, conf);
	free(found);
	found = NULL;

	/* writable by the group or others: refused with the fix */
	assert_int_equal(chmod(conf, 0664), 0);
	snprintf(want, sizeof(want), "refusing %s: it is owned by ", conf);
	expect_untrusted(sub, want);
	snprintf(want, sizeof(want), "with mode 0664, writable by its group (another user could choose the compiler): chmod go-w %s", conf);
	expect_untrusted(sub, want);
	assert_int_equal(chmod(conf, 0606), 0);
	expect_untrusted(sub, "with mode 0606, writable by others");
	assert_int_equal(chmod(conf, 0644), 0);

	/* in a directory others can write, not sticky: refused; sticky: used */
	assert_int_equal(chmod(top, 0777), 0);
	snprintf(want, sizeof(want), "refusing %s: its directory %s is owned by ", conf, top);
	expect_untrusted(sub, want);
	expect_untrusted(sub, "with mode 0777, writable by others and not sticky (another user could replace the file): chmod go-w");
	assert_int_equal(chmod(top, 01777), 0);
	assert_int_equal(find(sub, &err, &found), 1);
	free(found);
	found = NULL;
	assert_int_equal(chmod(top, 0755), 0);

	/* a link, a FIFO, a directory: refused, never followed or read */
	assert_int_equal(unlink(conf), 0);
	assert_int_equal(symlink("/etc/hostname", conf), 0);
	expect_refused(sub, "it is a symbolic link, expected a regular file");
	assert_int_equal(unlink(conf), 0);
	assert_int_equal(mkfifo(conf, 0644), 0);
	expect_refused(sub, "it is a FIFO, expected a regular file");
	assert_int_equal(unlink(conf), 0);
	assert_int_equal(mkdir(conf, 0755), 0);
	expect_refused(sub, "it is a directory, expected a regular file");
	assert_int_equal(rmdir(conf), 0);

	/* another user's file: as root only (chown) */
	f = fopen(conf, "w");
	fputs("cc = /tmp/not-a-compiler\n", f);
	fclose(f);
	assert_int_equal(chmod(conf, 0644), 0);
	if (geteuid() == 0 && chown(conf, 65534, 65534) == 0) {
		unsetenv("SUDO_UID");
		expect_untrusted(sub, "with mode 0644, expected a file of root (another user's pgoptcc.conf would choose the compiler): remove it, or chown it if you trust it");
		/* under sudo, the user who ran it is trusted too (git's rule) */
		setenv("SUDO_UID", "65534", 1);
		assert_int_equal(find(sub, &err, &found), 1);
		free(found);
		found = NULL;
		setenv("SUDO_UID", "1", 1);
		expect_untrusted(sub, "expected a file of root");
		unsetenv("SUDO_UID");
		/* ours again, but in a directory of another user */
		assert_int_equal(chown(conf, 0, 0), 0);
		assert_int_equal(chown(top, 65534, 65534), 0);
		expect_untrusted(sub, "expected a directory of root (its owner could replace the file)");
		assert_int_equal(chown(top, 0, 0), 0);
	} else {
		print_message("not root: another user's pgoptcc.conf is checked by tests/t/14\n");
	}
	unlink(conf);
	rmdir(sub);
	rmdir(top);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suggest),
		cmocka_unit_test(test_boolean),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_conf_parse),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_remember),
		cmocka_unit_test(test_trust),
	};
	return cmocka_run_group_tests_name("settings", tests, NULL, NULL);
}
