/*
 * stage/stage.c - a resumable pipeline of pgbuild stages; see stage.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgbuild/build/regress.h"
#include "pgbuild/build/verify.h"
#include "pgbuild/cli/cli.h"
#include "pgbuild/cluster/cluster.h"
#include "pgbuild/pgbuild.h"
#include "pgbuild/stage/stage.h"
#include "wrapper/common/fdio.h"

static void state_load(struct pipeline *p)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_value *root;
	const struct json_value *stages;

	if (sfs_read(AT_FDCWD, p->state_path, SFS_IN_JSON, 0, &sb, NULL) < 0)
		goto out;
	root = json_parse(sb.buf, sb.len, NULL);
	stages = json_get(root, "stages");
	for (int i = 0; i < p->nr; i++) {
		const struct json_value *s = json_get(stages, p->names[i]);
		const char *key = json_get_str(s, "key");
		if (!key)
			continue;
		p->st[i].key = xstrdup(key);
		p->st[i].exit = (int)json_get_num(s, "exit", 2);
		p->st[i].secs = json_get_num(s, "seconds", 0);
	}
	json_free(root);
out:
	strbuf_release(&sb);
}

void stage_init(struct pipeline *p, const char *kind, const char *const *names, int nr,
		   const char *workdir, int restart)
{
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->names = names;
	p->nr = nr;
	p->st = xcalloc((size_t)nr, sizeof(*p->st));
	{
		/* the caller's own path, resolved once: the logs below it are
		 * then opened without following any link (stage_log_open) */
		char *real = realpath(workdir, NULL);
		p->logdir = xasprintf("%s/logs", real ? real : workdir);
		free(real);
	}
	mkdir(p->logdir, 0755);
	p->state_path = xasprintf("%s/run-state.json", workdir);
	if (!restart)
		state_load(p);
}

void stage_release(struct pipeline *p)
{
	for (int i = 0; p->st && i < p->nr; i++)
		free(p->st[i].key);
	free(p->st);
	free(p->logdir);
	free(p->state_path);
	memset(p, 0, sizeof(*p));
}

void stage_save(const struct pipeline *p)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_writer jw;

	json_writer_init(&jw, &sb);
	json_object_begin(&jw);
	json_key(&jw, "kind"); json_string(&jw, p->kind);
	if (p->header)
		p->header(&jw, p->ctx);
	json_key(&jw, "stages");
	json_object_begin(&jw);
	for (int i = 0; i < p->nr; i++) {
		if (!p->st[i].key)
			continue;
		json_key(&jw, p->names[i]);
		json_object_begin(&jw);
		json_key(&jw, "key"); json_string(&jw, p->st[i].key);
		json_key(&jw, "exit"); json_int(&jw, p->st[i].exit);
		json_key(&jw, "seconds"); json_double(&jw, p->st[i].secs);
		json_object_end(&jw);
	}
	json_object_end(&jw);
	json_object_end(&jw);
	strbuf_addch(&sb, '\n');
	write_file_atomic(p->state_path, sb.buf, sb.len);
	strbuf_release(&sb);
}

char *stage_log(const struct pipeline *p, int id)
{
	return xasprintf("%s/%s.log", p->logdir, p->names[id]);
}

int stage_finished(const struct pipeline *p, int id)
{
	return p->st[id].key && (p->st[id].exit == 0 || p->st[id].exit == 1);
}

void stage_forget(struct pipeline *p, int id)
{
	free(p->st[id].key);
	p->st[id].key = NULL;
}

int stage_run_pgbuild(struct pipeline *p, int id, struct strvec *args, int show_stderr)
{
	struct strvec a = STRVEC_INIT;
	int rc;
	strvec_push(&a, pgbuild_self());
	strvec_pushv(&a, (const char *const *)args->v);
	rc = stage_run_command(p, id, &a, NULL, NULL, show_stderr);
	strvec_clear(&a);
	return rc;
}

int stage_log_open(const struct pipeline *p, int id)
{
	struct strbuf err = STRBUF_INIT;
	char *log = stage_log(p, id);
	int fd = -1;
	if (sfs_remove(AT_FDCWD, log, &err) < 0 ||
	    (fd = sfs_create(AT_FDCWD, log, O_WRONLY | O_CLOEXEC, 0644, &err)) < 0)
		error("%s", err.buf);
	strbuf_release(&err);
	free(log);
	return fd;
}

void stage_log_line(const struct pipeline *p, int id, const char *line)
{
	int fd = stage_log_open(p, id);
	if (fd < 0)
		return;
	if (write_all(fd, line, strlen(line)) < 0 || write_all(fd, "\n", 1) < 0)
		error("cannot write the log of %s: %s", p->names[id], strerror(errno));
	close(fd);
}

/* cp for stage id: stdout (and stderr unless shown) into its log made
 * afresh; cp cleared.  Its exit code, 2 when it could not run. */
static int run_logged(struct pipeline *p, int id, struct child_process *cp, int show_stderr)
{
	int fd = stage_log_open(p, id), rc = PGBUILD_EXIT_ERROR;

	if (fd >= 0) {  /* else said; nothing runs without its log */
		cp->no_stdin = 1;
		cp->out = fd;
		if (!show_stderr || p->quiet)
			cp->err = fd;
		rc = run_command_forwarding(cp);
		close(fd);
		rc = rc < 0 ? PGBUILD_EXIT_ERROR : rc;
	}
	child_process_clear(cp);
	return rc;
}

int stage_run_command(struct pipeline *p, int id, const struct strvec *args, const char *dir,
		      const struct strvec *env, int show_stderr)
{
	struct child_process cp = CHILD_PROCESS_INIT;

	strvec_pushv(&cp.args, (const char *const *)args->v);
	if (env)
		strvec_pushv(&cp.env, (const char *const *)env->v);
	cp.dir = dir;
	return run_logged(p, id, &cp, show_stderr);
}

int stage_run_fn(struct pipeline *p, int id, const char *name, int (*fn)(void *), void *data,
		 const struct strvec *env, int show_stderr)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct cluster_engine_call call = { fn, data };

	strvec_push(&cp.args, name);
	if (env)
		strvec_pushv(&cp.env, (const char *const *)env->v);
	cluster_engine_child(&cp, &call);
	return run_logged(p, id, &cp, show_stderr);
}

static int verify_fn(void *o)
{
	return verify_run(o);
}

static int regress_fn(void *o)
{
	return regress_run(o);
}

int stage_run_verify(struct pipeline *p, int id, const struct verify_opts *o,
		     const struct strvec *env)
{
	return stage_run_fn(p, id, "pgbuild verify", verify_fn, (void *)o, env, 0);
}

int stage_run_regress(struct pipeline *p, int id, const struct regress_opts *o,
		      const struct strvec *env)
{
	return stage_run_fn(p, id, "pgbuild regress", regress_fn, (void *)o, env, 0);
}

void stage_build_argv(struct strvec *args, const struct build_step *b)
{
	strvec_pushl(args, "build", "--policy", b->policy, "--prefix", b->prefix,
		     "--builddir", b->builddir, "--no-bench", NULL);
	if (b->src)
		strvec_pushl(args, "--src", b->src, NULL);
	if (b->jobs > 0)
		strvec_pushf(args, "--jobs=%d", b->jobs);
	if (b->configure_args)
		strvec_pushl(args, "--configure-args", b->configure_args, NULL);
	if (b->no_contrib)
		strvec_push(args, "--no-contrib");
	if (b->no_install)
		strvec_push(args, "--no-install");
	if (b->quiet)
		strvec_push(args, "--quiet");
	if (b->bundle)
		strvec_pushl(args, "--bundle", b->bundle, NULL);
}

int stage_gate_option(struct gate_step *g, int c, const char *arg)
{
	switch (c) {
	case OPT_PAIRS:
		if (cli_parse_pairs(arg, &g->pairs, &g->auto_pairs) < 0)
			return -1;
		if (g->auto_pairs)
			g->pairs = 0;
		return 1;
	case OPT_BUDGET:
		return cli_parse_budget(arg, &g->budget) < 0 ? -1 : 1;
	case 'T':
		return cli_parse_duration(arg, &g->duration) < 0 ? -1 : 1;
	case 'c':
		return cli_parse_clients(arg, &g->clients) < 0 ? -1 : 1;
	case OPT_GATE_DURATION:
		return cli_parse_seconds("--gate-duration", arg, 0, &g->duration) < 0 ? -1 : 1;
	case OPT_GATE_CLIENTS:
		return cli_parse_int("--gate-clients", arg, 1, CLI_CLIENTS_MAX, &g->clients) < 0 ?
		       -1 : 1;
	default:
		return 0;
	}
}

int stage_gate_check(const struct gate_step *g)
{
	if (g->budget > 0 && !g->auto_pairs)
		return cli_usage_error("--budget needs --pairs auto");
	return 0;
}

void stage_gate_argv(struct strvec *args, const struct gate_step *g)
{
	if (g->auto_pairs)
		strvec_push(args, "--pairs=auto");
	else if (g->pairs)
		strvec_pushf(args, "--pairs=%d", g->pairs);
	if (g->budget > 0)
		strvec_pushf(args, "--budget=%gs", g->budget);
	if (g->duration)
		strvec_pushf(args, "--duration=%g", g->duration);
	if (g->clients)
		strvec_pushf(args, "--clients=%d", g->clients);
}

int stage_run(struct pipeline *p, int id, const char *key, const char *what,
		   int (*fn)(struct pipeline *p, int id))
{
	double t0;
	char el[32];
	char *log, *last;
	int rc;

	if (p->st[id].key && !strcmp(p->st[id].key, key) && stage_finished(p, id)) {
		fprintf(stderr, "[%d/%d] %-9s %s: finished in an earlier run (exit %d), skipped\n",
			id + 1, p->nr, p->names[id], what, p->st[id].exit);
		return p->st[id].exit;
	}
	fprintf(stderr, "[%d/%d] %-9s %s ...\n", id + 1, p->nr, p->names[id], what);
	t0 = clock_seconds();
	rc = fn(p, id);
	free(p->st[id].key);
	p->st[id].key = xstrdup(key);
	p->st[id].exit = rc;
	p->st[id].secs = clock_seconds() - t0;
	stage_save(p);
	fmt_duration(p->st[id].secs, 1, el, sizeof(el));
	log = stage_log(p, id);
	last = textfile_last_line(log, NULL);
	fprintf(stderr, "[%d/%d] %-9s %s in %s%s%s\n", id + 1, p->nr, p->names[id],
		rc == 0 ? "done" : rc == 1 ? "FAILED" :
		rc == PGBUILD_EXIT_UNDECIDED ? "undecided" : "could not run", el,
		last ? ": " : "", last ? last : "");
	if (rc != 0)
		fprintf(stderr, "          log: %s\n", log);
	free(log);
	free(last);
	return rc;
}
