/*
 * incremental.c - which objects and links of an existing build directory
 * does the policy now in effect change?  Each recorded compile and link is
 * replayed through pgoptcc (buildlog_replay: PGOPT_PREFIX=true, so only the
 * final command line is computed and logged) and what changed is marked
 * out of date for make; see build.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgbuild/build/build.h"
#include "pgbuild/build/buildlog.h"
#include "pgbuild/pgbuild.h"

/*
 * Is the state of the build directory exactly what its last successful
 * build left (same policy, nothing compiled since)?  Then the objects
 * already have the flags the policy gives and the dry run can be skipped.
 */
static int unchanged_since_last_build(struct build *b)
{
	char *path = xasprintf("%s/%s", b->builddir, BUILDLOG_RECORD);
	struct json_value *v = NULL;
	int same = 0;
	if (path_exists(path) && (v = buildlog_read_json(path))) {
		const struct json_value *pol = json_get(v, "policy");
		const struct json_value *log = json_get(v, "log");
		const struct json_value *ok = json_get(v, "ok");
		const char *ppath = json_get_str(pol, "path");
		const char *sha = json_get_str(pol, "sha256");
		same = ok && ok->type == JSON_BOOL && ok->u.boolean &&
		       !strcmp(ppath ? ppath : "", b->policy ? b->policy : "") &&
		       sha && b->policy_sha && !strcmp(sha, b->policy_sha) &&
		       (long)json_get_num(log, "last_line", -1) ==
			       buildlog_count_lines(b->logfile);
		json_free(v);
	}
	free(path);
	return same;
}

/*
 * Make make rebuild an object: give it the oldest possible time stamp (and
 * create it empty when it is missing).  Deleting is not enough: PostgreSQL's
 * Makefile.global declares every target .SECONDARY, and make does not remake
 * a missing secondary file when what depends on it (objfiles.txt) is newer
 * than its sources.
 */
static int make_stale(const char *path)
{
	static const struct timespec epoch[2] = { { 0, 0 }, { 0, 0 } };
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return error("cannot mark \"%s\" for rebuilding: %s", path, strerror(errno));
	close(fd);
	if (utimensat(AT_FDCWD, path, epoch, 0) < 0)
		return error("cannot mark \"%s\" for rebuilding: %s", path, strerror(errno));
	return 0;
}

/* Drop from os the records whose output directory is gone (an older
 * layout of the build directory). */
static void keep_existing_dirs(struct buildlog_objs *os)
{
	size_t w = 0;
	for (size_t i = 0; i < os->nr; i++) {
		char *dir = xstrdup(os->v[i].path);
		*strrchr(dir, '/') = '\0';
		if (path_exists(dir))
			os->v[w++] = os->v[i];
		else
			buildlog_obj_free(&os->v[i]);
		free(dir);
	}
	os->nr = w;
}

/*
 * Mark for rebuilding the objects whose final command line differs under
 * the policy now in effect (and those gone missing), and the link outputs
 * (postgres, libraries, client programs, contrib modules) whose final link
 * command line differs: a policy that changes only ldflags recompiles
 * nothing but must relink.  Returns 0 or -1.
 */
static int invalidate(struct build *b)
{
	struct buildlog_objs old = { 0 }, old_links = { 0 }, all = { 0 };
	struct buildlog_objs now_ = { 0 }, now_links = { 0 };
	char *drydir = xasprintf("%s/pgopt-dryrun", b->builddir);
	char *drylog = xasprintf("%s/%s", drydir, BUILDLOG_COMPILE);
	char *contrib = xasprintf("%s/contrib/", b->builddir), *cc = NULL;
	double t = clock_seconds();
	int r = -1;

	buildlog_objs_read(&old, b->logfile, NULL, NULL, 0);
	old_links.links = 1;
	buildlog_objs_read(&old_links, b->logfile, NULL, NULL, 1);
	/* only records whose directory still exists (not from an older layout);
	 * the links were read with existing outputs only */
	keep_existing_dirs(&old);
	b->replayed = (long)old.nr;
	b->links_checked = (long)old_links.nr;
	if (!old.nr && !old_links.nr) {
		r = 0;
		goto out;
	}
	if (!b->quiet)
		fprintf(stderr, "pgbuild: checking %zu objects and %zu links against the policy ...\n",
			old.nr, old_links.nr);
	if (remove_tree(drydir) < 0)
		warning("cannot remove \"%s\": %s", drydir, strerror(errno));
	/* one replay of both (shallow copies: old and old_links own them) */
	for (int k = 0; k < 2; k++) {
		const struct buildlog_objs *from = k ? &old_links : &old;
		for (size_t i = 0; i < from->nr; i++) {
			ALLOC_GROW(all.v, all.nr + 1, all.alloc);
			all.v[all.nr++] = from->v[i];
		}
	}
	/* the compiler the build runs, never one the log names */
	if (!(cc = locate_in_path(build_compiler()))) {
		error("cannot find the compiler \"%s\" on PATH (PGOPT_CC)", build_compiler());
		goto out;
	}
	if (mkdir_p(drydir) < 0 || buildlog_replay(&all, cc, &b->env, b->o.jobs, drydir) < 0) {
		error("the policy cannot be applied to this build directory");
		goto out;
	}
	buildlog_objs_read(&now_, drylog, drydir, b->logdir, 0);
	now_links.links = 1;
	buildlog_objs_read(&now_links, drylog, drydir, b->logdir, 0);
	for (size_t i = 0; i < now_.nr; i++) {
		struct buildlog_obj *o = buildlog_objs_find(&old, now_.v[i].path);
		if (!o || (path_exists(o->path) && !strcmp(o->argv_out, now_.v[i].argv_out)))
			continue;
		if (make_stale(o->path) < 0)
			goto out;
		b->invalidated++;
		if (!strncmp(o->path, contrib, strlen(contrib)))
			b->inval_contrib++;
		strvec_push(&b->invalidated_tus, o->tu);
		verbose("policy change: recompiling %s (%s)", o->tu, o->path);
	}
	/* a link output that exists with another final command line: relink
	 * (a missing one is remade by make anyway) */
	for (size_t i = 0; i < now_links.nr; i++) {
		struct buildlog_obj *o = buildlog_objs_find(&old_links, now_links.v[i].path);
		if (!o || !strcmp(o->argv_out, now_links.v[i].argv_out))
			continue;
		if (make_stale(o->path) < 0)
			goto out;
		b->relinked++;
		if (!strncmp(o->path, contrib, strlen(contrib)))
			b->relink_contrib++;
		strvec_push(&b->relinked_outputs, o->path + (strncmp(o->path, b->builddir,
			    strlen(b->builddir)) ? 0 : strlen(b->builddir) + 1));
		verbose("policy change: relinking %s", o->path);
	}
	if (!b->quiet)
		fprintf(stderr, "pgbuild: the policy change affects %ld of %zu objects and "
			"%ld of %zu links\n", b->invalidated, old.nr, b->relinked, old_links.nr);
	r = 0;
out:
	build_add_phase(b, "invalidate", clock_seconds() - t);
	free(all.v); /* shallow copies */
	buildlog_objs_free(&old);
	buildlog_objs_free(&old_links);
	buildlog_objs_free(&now_);
	buildlog_objs_free(&now_links);
	free(contrib);
	free(cc);
	free(drylog);
	free(drydir);
	return r;
}


int build_invalidate(struct build *b)
{
	if (b->fresh || unchanged_since_last_build(b))
		return 0;
	return invalidate(b);
}
