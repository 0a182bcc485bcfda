/*
 * buildlog.c - reading compile.jsonl and pgopt-build.json; see buildlog.h.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pgbuild/build/buildlog.h"
#include "pgbuild/pgbuild.h"
#include "wrapper/policy/policy.h"

long buildlog_each(const char *path, long first_line,
		   int (*fn)(const struct json_value *rec, long line, void *data),
		   void *data, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	long n = 0;
	int stop = 0;

	if (sfs_read(AT_FDCWD, path, SFS_IN_COMPILE_LOG, 0, &text, err) < 0) {
		strbuf_release(&text);
		return -1;
	}
	size_t pos = 0, len;
	for (const char *l; (l = text_next_line(text.buf, text.len, &pos, &len)); ) {
		struct json_value *rec;
		n++;
		if (!stop && n >= first_line && len && (rec = json_parse(l, len, NULL))) {
			if (rec->type == JSON_OBJECT && fn(rec, n, data))
				stop = 1;
			json_free(rec);
		}
	}
	strbuf_release(&text);
	return n;
}

long buildlog_count_lines(const char *path)
{
	struct strbuf text = STRBUF_INIT;
	long n = 0;

	if (sfs_read(AT_FDCWD, path, SFS_IN_COMPILE_LOG, 0, &text, NULL) >= 0)
		for (char *p = text.buf; (p = memchr(p, '\n', text.len - (size_t)(p - text.buf))); p++)
			n++;
	strbuf_release(&text);
	return n;
}

int buildlog_is_compile(const struct json_value *rec)
{
	const char *kind = json_get_str(rec, "kind");
	return kind && !strcmp(kind, "compile") && json_get_str(rec, "tu") &&
	       json_get_str(rec, "output") && json_get_num(rec, "exit", -1) == 0;
}

int buildlog_is_link(const struct json_value *rec)
{
	const char *kind = json_get_str(rec, "kind");
	return kind && !strcmp(kind, "link") && json_get_str(rec, "output") &&
	       json_get_num(rec, "exit", -1) == 0;
}

char *buildlog_output_path(const struct json_value *rec)
{
	const char *out = json_get_str(rec, "output");
	const char *cwd = json_get_str(rec, "cwd");
	if (!out)
		return NULL;
	if (out[0] == '/' || !cwd)
		return xstrdup(out);
	return xasprintf("%s/%s", cwd, out);
}

struct json_value *buildlog_read_json(const char *path)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	struct json_value *v = NULL;

	if (sfs_read(AT_FDCWD, path, SFS_IN_MANIFEST, 0, &sb, &err) < 0)
		error("%s", err.buf);
	else if (!(v = json_parse(sb.buf, sb.len, &err)))
		error("\"%s\": %s", path, err.buf);
	strbuf_release(&sb);
	strbuf_release(&err);
	return v;
}

int buildlog_dir_check(const char *what, const char *dir)
{
	struct strbuf err = STRBUF_INIT;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return 0;
	if (sfs_root_only(fd, what, dir, "reads the build's compile log from it", &err) < 0)
		r = error("%s", err.buf);
	close(fd);
	strbuf_release(&err);
	return r;
}

/* ---------------- a build record's environment ---------------- */

/* An absolute path: NULL, or what is wrong. */
static const char *check_abs_path(const char *v)
{
	return v[0] == '/' ? NULL : "expected an absolute path";
}

static const char *check_profile(const char *v)
{
	static char why[256];
	struct policy_profile pp;
	struct strbuf err = STRBUF_INIT;
	int r = policy_profile_parse(&pp, v, &err);

	if (r == 0)
		policy_profile_release(&pp);
	else
		snprintf(why, sizeof(why), "%s", err.buf);
	strbuf_release(&err);
	return r == 0 ? NULL : why;
}

static const char *check_bundle(const char *v)
{
	static char why[512];
	struct strbuf err = STRBUF_INIT;
	const char *r = NULL;
	int fd;

	if (v[0] != '/')
		return "expected an absolute path";
	if ((fd = open(v, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		snprintf(why, sizeof(why), "%s", strerror(errno));
		return why;
	}
	if (sfs_root_only(fd, "the bundle", v, "reads its profiles", &err) < 0) {
		snprintf(why, sizeof(why), "%s", err.buf);
		r = why;
	}
	close(fd);
	strbuf_release(&err);
	return r;
}

/* The names a build record's environment may carry (buildlog.h). */
static const struct {
	const char *name;
	size_t field;                      /* offset in struct buildlog_env */
	const char *(*check)(const char *); /* NULL: fine, else what is wrong */
} record_env[] = {
	{ "PGOPT_POLICY", offsetof(struct buildlog_env, policy), check_abs_path },
	{ "PGOPT_LOGDIR", offsetof(struct buildlog_env, logdir), check_abs_path },
	{ "PGOPT_PROFILE", offsetof(struct buildlog_env, profile), check_profile },
	{ "PGOPT_BUNDLE", offsetof(struct buildlog_env, bundle), check_bundle },
	{ "PGOPT_CC", offsetof(struct buildlog_env, cc), NULL },
};

/* Recorded by pgbuild build, of no use to a replay (PGOPT_WEAKEN: the
 * classes a replay allows come from the record's policy.weakened). */
static const char *const record_env_unused[] = { "PGOPT_PREFIX", "CCACHE_DIR", "PGOPT_WEAKEN",
						  NULL };

void buildlog_env_read(const struct json_value *rec, const char *what, struct buildlog_env *e)
{
	const struct json_value *env = json_get(rec, "environment");

	memset(e, 0, sizeof(*e));
	for (size_t i = 0; env && env->type == JSON_OBJECT && i < env->u.list.nr; i++) {
		const char *key = env->u.list.keys[i], *why = NULL;
		const struct json_value *v = env->u.list.items[i];
		size_t k, n = sizeof(record_env) / sizeof(record_env[0]);
		int unused = 0;

		for (const char *const *u = record_env_unused; *u; u++)
			unused |= !strcmp(key, *u);
		if (unused)
			continue;
		for (k = 0; k < n && strcmp(key, record_env[k].name); k++)
			;
		if (k == n) {
			warning("%s: environment \"%s\" ignored: a build record may only carry "
				"PGOPT_POLICY, PGOPT_LOGDIR, PGOPT_PROFILE, PGOPT_BUNDLE and PGOPT_CC "
				"(compared, never run); nothing else is exported", what, key);
			continue;
		}
		if (v->type != JSON_STRING)
			why = "expected a string";
		else if (memchr(v->u.str.s, '\0', v->u.str.len) || strpbrk(v->u.str.s, "\n\r"))
			why = "expected one line of text";
		else if (record_env[k].check)
			why = record_env[k].check(v->u.str.s);
		if (why) {
			warning("%s: environment \"%s\" ignored: %s", what, key, why);
			continue;
		}
		{
			char **field = (char **)((char *)e + record_env[k].field);
			free(*field);
			*field = xstrdup(v->u.str.s);
		}
	}
}

void buildlog_env_release(struct buildlog_env *e)
{
	free(e->policy);
	free(e->logdir);
	free(e->profile);
	free(e->bundle);
	free(e->cc);
	memset(e, 0, sizeof(*e));
}

/* ---------------- objects and their compiles ---------------- */

static int is_prefix_word(const char *s)
{
	static const char *const words[] = { "ccache", "true", "distcc", "icecc", "sccache", NULL };
	const char *base = strrchr(s, '/');
	base = base ? base + 1 : s;
	for (const char *const *w = words; *w; w++)
		if (!strcmp(base, *w))
			return 1;
	return 0;
}

/* The final command line without the PGOPT_PREFIX words and the policy
 * rule names, as one string. */
static char *norm_argv(const struct json_value *argv, const char *from, const char *to)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i = 0, n = json_len(argv);
	while (i < n && json_at(argv, i)->type == JSON_STRING &&
	       is_prefix_word(json_at(argv, i)->u.str.s))
		i++;
	for (; i < n; i++) {
		const struct json_value *a = json_at(argv, i);
		const char *s = a->type == JSON_STRING ? a->u.str.s : "";
		const char *hit;
		/* which policy lines matched is provenance, not code: a policy
		 * edit that moves lines must not recompile everything */
		if (!strncmp(s, "-fplugin-arg-pgopt-rules=", 25))
			continue;
		if (from && (hit = strstr(s, from))) {
			strbuf_add(&sb, s, (size_t)(hit - s));
			strbuf_addstr(&sb, to);
			strbuf_addstr(&sb, hit + strlen(from));
		} else {
			strbuf_addstr(&sb, s);
		}
		strbuf_addch(&sb, '\x1f');
	}
	return strbuf_detach(&sb, NULL);
}

static void push_strings(struct strvec *sv, const struct json_value *arr)
{
	for (size_t i = 0; i < json_len(arr); i++)
		if (json_at(arr, i)->type == JSON_STRING)
			strvec_push(sv, json_at(arr, i)->u.str.s);
}

static int collect_obj(const struct json_value *rec, long line, void *data)
{
	struct buildlog_objs *os = data;
	const struct json_value *in = json_get(rec, "argv_in");
	const struct json_value *out = json_get(rec, "argv_out");
	struct buildlog_obj *o;

	if (!in || !out)
		return 0;
	if (os->links ? !buildlog_is_link(rec) : !buildlog_is_compile(rec))
		return 0;
	ALLOC_GROW(os->v, os->nr + 1, os->alloc);
	o = &os->v[os->nr++];
	memset(o, 0, sizeof(*o));
	o->path = buildlog_output_path(rec);
	o->tu = xstrdup(json_get_str(rec, "tu") ? json_get_str(rec, "tu") :
			json_get_str(rec, "output"));
	o->cwd = xstrdup(json_get_str(rec, "cwd") ? json_get_str(rec, "cwd") : "/");
	o->compiler = json_get_str(rec, "compiler") ? xstrdup(json_get_str(rec, "compiler")) : NULL;
	strvec_init(&o->argv_in);
	strvec_init(&o->added);
	strvec_init(&o->removed);
	push_strings(&o->argv_in, in);
	push_strings(&o->added, json_get(rec, "added"));
	push_strings(&o->removed, json_get(rec, "removed"));
	o->argv_out = norm_argv(out, os->from, os->to);
	o->line = line;
	return 0;
}

static int cmp_obj(const void *a, const void *b)
{
	const struct buildlog_obj *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	return c ? c : (x->line > y->line) - (x->line < y->line);
}

void buildlog_obj_free(struct buildlog_obj *o)
{
	free(o->path);
	free(o->tu);
	free(o->cwd);
	free(o->compiler);
	strvec_clear(&o->argv_in);
	strvec_clear(&o->added);
	strvec_clear(&o->removed);
	free(o->argv_out);
}

void buildlog_objs_free(struct buildlog_objs *os)
{
	for (size_t i = 0; i < os->nr; i++)
		buildlog_obj_free(&os->v[i]);
	free(os->v);
	os->v = NULL;
	os->nr = os->alloc = 0;
}

void buildlog_objs_read(struct buildlog_objs *os, const char *logfile,
			const char *from, const char *to, int existing_only)
{
	size_t w = 0;
	os->from = from;
	os->to = to;
	buildlog_each(logfile, 1, collect_obj, os, NULL);
	qsort(os->v, os->nr, sizeof(*os->v), cmp_obj);
	for (size_t i = 0; i < os->nr; i++) {
		int last = i + 1 == os->nr || strcmp(os->v[i].path, os->v[i + 1].path);
		if (last && (!existing_only || access(os->v[i].path, F_OK) == 0))
			os->v[w++] = os->v[i];
		else
			buildlog_obj_free(&os->v[i]);
	}
	os->nr = w;
}

struct buildlog_obj *buildlog_objs_find(struct buildlog_objs *os, const char *path)
{
	size_t lo = 0, hi = os->nr;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(os->v[mid].path, path);
		if (!c)
			return &os->v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int buildlog_replay(const struct buildlog_objs *os, const char *cc, const struct strvec *env,
		    int jobs, const char *drydir)
{
	struct child_process *slot;
	char *errlog = xasprintf("%s/stderr.log", drydir);
	size_t next = 0;
	int running = 0, failed = 0;
	int errfd = open(errlog, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);

	if (errfd < 0) {
		error("cannot write \"%s\": %s", errlog, strerror(errno));
		free(errlog);
		return -1;
	}
	if (jobs < 1)
		jobs = 1;
	slot = xcalloc((size_t)jobs, sizeof(*slot));
	while ((next < os->nr && !failed) || running) {
		int status;
		pid_t pid;
		while (running < jobs && next < os->nr && !failed) {
			const struct buildlog_obj *o = &os->v[next++];
			struct child_process *cp = NULL;
			for (int i = 0; i < jobs; i++)
				if (!slot[i].pid) {
					cp = &slot[i];
					break;
				}
			child_process_init(cp);
			/* the caller's compiler as pgoptcc's compiler word: what
			 * follows is the compiler's, never pgoptcc's settings */
			strvec_pushl(&cp->args, pgbuild_pgoptcc(), cc, NULL);
			strvec_pushv(&cp->args, (const char *const *)o->argv_in.v);
			strvec_pushv(&cp->env, (const char *const *)env->v);
			strvec_pushf(&cp->env, "PGOPT_CC=%s", cc);
			strvec_push(&cp->env, "PGOPT_PREFIX=true");
			strvec_pushf(&cp->env, "PGOPT_LOGDIR=%s", drydir);
			cp->dir = o->cwd;
			cp->no_stdin = 1;
			cp->no_stdout = 1;
			cp->err = errfd;
			if (start_command(cp) < 0) {
				child_process_clear(cp);
				cp->pid = 0;
				failed = 1;
				break;
			}
			running++;
		}
		if (!running)
			break;
		pid = waitpid(-1, &status, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			failed = 1;
			break;
		}
		for (int i = 0; i < jobs; i++) {
			if (slot[i].pid != pid)
				continue;
			if (wait_status_to_code(status) != 0 && !failed) {
				failed = 1;
				error("pgoptcc failed replaying a compile in %s (exit %d):",
				      slot[i].dir, wait_status_to_code(status));
				textfile_print_tail(errlog, 5, stderr);
			}
			child_process_clear(&slot[i]);
			slot[i].pid = 0;
			running--;
		}
	}
	close(errfd);
	free(slot);
	free(errlog);
	return failed ? -1 : 0;
}
