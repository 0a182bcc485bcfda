/*
 * relink.c - the postgres link of a build's compile log, run again with
 * its objects reordered; see relink.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgbuild/build/buildlog.h"
#include "pgbuild/build/relink.h"
#include "pgbuild/pgbuild.h"
#include "wrapper/common/textfile.h"

/* The plugin's sidecar log directory: dropped, the tree is not written. */
#define RELINK_PLUGIN_LOG "-fplugin-arg-pgopt-log="

/* What relink_find keeps while walking the log: the last postgres link. */
struct find_state {
	struct relink *r;
	int found;
};

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

static int take_link(const struct json_value *rec, long line, void *data)
{
	struct find_state *st = data;
	const struct json_value *out = json_get(rec, "argv_out");
	const char *cc = json_get_str(rec, "compiler"), *cwd = json_get_str(rec, "cwd");

	if (!buildlog_is_link(rec) || strcmp(json_get_str(rec, "output"), "postgres") ||
	    !cwd || !ends_with(cwd, "/src/backend") || !cc || !out)
		return 0;
	strvec_clear(&st->r->argv);
	strvec_push(&st->r->argv, cc);
	for (size_t i = 0; i < json_len(out); i++) {
		const struct json_value *w = json_at(out, i);
		if (w->type == JSON_STRING && strncmp(w->u.str.s, RELINK_PLUGIN_LOG,
						      strlen(RELINK_PLUGIN_LOG)))
			strvec_push(&st->r->argv, w->u.str.s);
	}
	st->r->line = line;
	st->found = 1;
	return 0;
}

size_t relink_objects(const struct strvec *argv, size_t **at, size_t *out_at)
{
	size_t n = 0;
	*at = xmalloc(sizeof(**at) * (argv->nr + 1));
	*out_at = 0;
	for (size_t i = 1; i < argv->nr; i++) {
		const char *w = argv->v[i], *prev = argv->v[i - 1];
		if (i > 1 && !strcmp(prev, "-o")) {
			*out_at = i;
			continue;
		}
		if (w[0] == '-' || !ends_with(w, ".o") || (i > 1 && !strcmp(prev, "-Xlinker")))
			continue;
		(*at)[n++] = i;
	}
	return n;
}

int relink_find(const char *builddir, struct relink *r, struct strbuf *note)
{
	char *log = xasprintf("%s/pgopt-log/" BUILDLOG_COMPILE, builddir);
	struct find_state st = { r, 0 };
	int rc = -1;

	if (buildlog_each(log, 1, take_link, &st, note) < 0) {
		strbuf_addstr(note, " (was the build made by pgbuild build?)");
		goto out;
	}
	if (!st.found) {
		strbuf_addf(note, "%s records no link of src/backend/postgres", log);
		goto out;
	}
	r->nobj = relink_objects(&r->argv, &r->obj_at, &r->out_at);
	for (size_t i = 1; i < r->argv.nr; i++)
		r->lto |= !strncmp(r->argv.v[i], "-flto", 5) && strcmp(r->argv.v[i], "-fno-lto");
	if (!r->out_at || r->nobj < 2) {
		strbuf_addf(note, "the postgres link on line %ld of %s has %s", r->line, log,
			    !r->out_at ? "no -o" : "fewer than two object files");
		goto out;
	}
	r->cwd = xasprintf("%s/src/backend", builddir);
	rc = 0;
out:
	free(log);
	return rc;
}

int relink_run(const struct relink *r, const size_t *perm, const char *out, const char *log,
	       struct strbuf *note)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	int fd, code;

	strvec_pushv(&cp.args, (const char *const *)r->argv.v);
	for (size_t i = 0; perm && i < r->nobj; i++) {
		free(cp.args.v[r->obj_at[i]]);
		cp.args.v[r->obj_at[i]] = xstrdup(r->argv.v[r->obj_at[perm[i]]]);
	}
	free(cp.args.v[r->out_at]);
	cp.args.v[r->out_at] = xstrdup(out);
	cp.dir = r->cwd;
	cp.no_stdin = 1;
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		strbuf_addf(note, "cannot write %s: %s", log, strerror(errno));
		child_process_clear(&cp);
		return -1;
	}
	cp.out = fd;
	cp.err = fd;
	code = run_command(&cp);
	close(fd);
	child_process_clear(&cp);
	if (code != 0) {
		strbuf_addf(note, "the relink of postgres exited %d", code);
		textfile_note_tail(log, note);
		return -1;
	}
	return 0;
}

void relink_release(struct relink *r)
{
	free(r->cwd);
	free(r->obj_at);
	strvec_clear(&r->argv);
	r->cwd = NULL;
	r->obj_at = NULL;
	r->nobj = 0;
}
