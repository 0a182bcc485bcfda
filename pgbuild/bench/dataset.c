/*
 * dataset.c - the data set of a `pgbuild bench` run (the workload's row
 * of metric/datasets.c): a private cluster created, started and loaded
 * (or copied from a --datadir-template), or what a --connect server has
 * (loaded with --init).  A workload whose size is part of it (a row with
 * a scale: select-only-s100) runs at that scale or not at all.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgbuild/bench/client.h"
#include "pgbuild/cluster/workdir.h"
#include "pgbuild/pgbuild.h"

static void sanitize(char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '.' && *s != '-')
			*s = '_';
}

/* Create, start and load the private cluster; returns 0 or -1. */
int bench_setup_cluster(struct bench_opts *o, struct bench_workload *w, int scale,
			struct cluster *cl, struct strbuf *note)
{
	struct cluster_options co = CLUSTER_OPTIONS_INIT;
	char *tmpl = NULL;
	int lockfd = -1, need_load = 1, r = -1;
	PGconn *conn = NULL;

	co.prefix = o->prefix;
	co.keep = o->keep;
	strvec_pushv(&co.settings, (const char *const *)o->settings.v);
	{
		int have_maxconn = 0;
		for (size_t i = 0; i < o->settings.nr; i++)
			if (!strncmp(o->settings.v[i], "max_connections=", 16))
				have_maxconn = 1;
		if (!have_maxconn && o->clients > 90)
			strvec_pushf(&co.settings, "max_connections=%d", o->clients + 10);
	}
	if (o->template_dir) {
		char *version = cluster_server_version(o->prefix);
		char *key;
		struct stat st;
		if (!version) {
			bench_note_error(cluster_last_error());
			goto out;
		}
		key = xasprintf("%s-s%d-%s", w->data->name, scale,
				strchr(version, ')') ? strchr(version, ')') + 1 : version);
		free(version);
		sanitize(key);
		tmpl = xasprintf("%s/%s", o->template_dir, key);
		free(key);
		lockfd = cluster_template_lock(o->template_dir);
		if (lockfd < 0) {
			bench_note_error(cluster_last_error());
			goto out;
		}
		if (workdir_trusted("template", tmpl) < 0) {
			bench_note_error("a template another user could change (refused)");
			goto out;
		}
		if (stat(tmpl, &st) == 0) {
			co.template_dir = tmpl;
			need_load = 0;
			strbuf_addf(note, "%s scale %d from template %s", w->data->name,
				    scale, tmpl);
		}
	}
	if (!w->data->tables && need_load)
		strbuf_addstr(note, "none");
	else if (need_load)
		strbuf_addf(note, "%s scale %d loaded", w->data->name, scale);
	if (cluster_create(cl, &co) < 0 || cluster_start(cl) < 0) {
		bench_note_error(cluster_last_error());
		goto out;
	}
	if (need_load && (w->data->tables || tmpl)) {
		conn = PQconnectdb(cluster_conninfo(cl, "postgres"));
		if (PQstatus(conn) != CONNECTION_OK) {
			char *m = bench_first_line(PQerrorMessage(conn));
			bench_error("cannot connect to the private cluster: %s", m);
			free(m);
			goto out;
		}
		PQclear(PQexec(conn, "SET client_min_messages = warning"));
		if (bench_load(conn, w->data, scale, o->quiet) < 0) {
			bench_note_error("loading the data set failed");
			goto out;
		}
		PQfinish(conn);
		conn = NULL;
		if (tmpl) {
			if (cluster_save_template(cl, tmpl, 1) < 0) {
				bench_note_error(cluster_last_error());
				goto out;
			}
			strbuf_addf(note, " (saved as template %s)", tmpl);
		}
	}
	r = 0;
out:
	if (conn)
		PQfinish(conn);
	if (lockfd >= 0)
		close(lockfd);
	free(tmpl);
	strvec_clear(&co.settings);
	return r;
}

/* --connect: load the data (--init), or find what is loaded. */
int bench_existing_data(struct session *s)
{
	struct bench_opts *o = s->o;
	struct bench_workload *w = &s->w;
	int sc;

	if (o->init) {
		if ((s->run.scale = bench_workload_scale(w, o->scale)) < 0)
			return -1;
		if (bench_load(s->ctrl, w->data, s->run.scale, o->quiet) < 0) {
			bench_note_error("loading the data set failed");
			return -1;
		}
		strbuf_addf(&s->note, "%s scale %d loaded", w->data->name, s->run.scale);
		return 0;
	}
	if (!w->data->tables) {
		s->run.scale = o->scale ? o->scale : 1;
		strbuf_addstr(&s->note, "none");
		return 0;
	}
	sc = bench_detect_scale(s->ctrl, w->data);
	if (sc < 0)
		return bench_error("the %s tables are not there (or empty): load them with --init",
				   w->data->name);
	if (!w->data->scale_sql) {
		/* an unscaled set: --scale is only :scale */
		s->run.scale = o->scale ? o->scale : 1;
		strbuf_addf(&s->note, "%s (existing)", w->data->name);
		return 0;
	}
	if (w->row && w->row->scale && w->row->scale != sc)
		return bench_error("workload \"%s\" runs at scale %ld, the %s data here has scale %d: "
				   "load it with --init", w->name, w->row->scale, w->data->name, sc);
	if (bench_workload_scale(w, o->scale) < 0)
		return -1;
	if (o->scale && o->scale != sc)
		warning("--scale %d given, but the data has scale %d: using %d", o->scale, sc, sc);
	s->run.scale = sc;
	strbuf_addf(&s->note, "%s scale %d (existing)", w->data->name, s->run.scale);
	return 0;
}
