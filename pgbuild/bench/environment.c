/*
 * environment.c - what the results of `pgbuild bench` say about where they
 * were measured: the CPU model, the server's version, CFLAGS and settings.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgbuild/bench/client.h"
#include "pgbuild/pgbuild.h"

char *bench_cpu_model(void)
{
	struct strbuf sb = STRBUF_INIT;
	char *r = NULL;
	if (sfs_read(AT_FDCWD, "/proc/cpuinfo", SFS_IN_SYSTEM, 0, &sb, NULL) > 0) {
		char *p = strstr(sb.buf, "model name");
		if (p && (p = strchr(p, ':'))) {
			p++;
			while (*p == ' ' || *p == '\t')
				p++;
			r = xstrndup(p, strcspn(p, "\n"));
		}
	}
	strbuf_release(&sb);
	return r ? r : xstrdup("unknown");
}

char *bench_query_text(PGconn *conn, const char *sql)
{
	PGresult *res = PQexec(conn, sql);
	char *r = NULL;
	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1 &&
	    !PQgetisnull(res, 0, 0))
		r = xstrdup(PQgetvalue(res, 0, 0));
	PQclear(res);
	return r;
}

/* pg_config --cflags of the install; else the server's pg_config view. */
char *bench_server_cflags(const char *prefix, PGconn *conn)
{
	if (prefix) {
		struct child_process cp = CHILD_PROCESS_INIT;
		struct strbuf out = STRBUF_INIT;
		char *path = xasprintf("%s/bin/pg_config", prefix);
		if (access(path, X_OK) == 0) {
			strvec_pushl(&cp.args, path, "--cflags", NULL);
			cp.no_stdin = 1;
			cp.no_stderr = 1;
			if (capture_command(&cp, &out, 0) == 0) {
				child_process_clear(&cp);
				free(path);
				strbuf_trim(&out);
				return strbuf_detach(&out, NULL);
			}
		}
		child_process_clear(&cp);
		strbuf_release(&out);
		free(path);
	}
	return bench_query_text(conn, "SELECT setting FROM pg_config WHERE name = 'CFLAGS'");
}

void bench_json_environment(struct json_writer *jw, const struct bench_opts *o, int nthreads,
			    const struct bench_env *env, PGconn *conn)
{
	char *cpu = bench_cpu_model();
	json_object_begin(jw);
	json_key(jw, "server_version"); json_string(jw, env->server_version);
	json_key(jw, "server_version_num");
	if (env->version_num) json_int(jw, env->version_num); else json_null(jw);
	json_key(jw, "pg_config_cflags"); json_string(jw, env->cflags);
	json_key(jw, "cpu_model"); json_string(jw, cpu);
	json_key(jw, "cores"); json_int(jw, sysconf(_SC_NPROCESSORS_ONLN));
	json_key(jw, "clients"); json_int(jw, o->clients);
	json_key(jw, "threads"); json_int(jw, nthreads);
	json_key(jw, "prefix"); json_string(jw, o->prefix);
	json_key(jw, "private_cluster"); json_bool(jw, o->prefix != NULL);
	json_key(jw, "dataset"); json_string(jw, env->dataset);
	json_key(jw, "server_user"); json_string(jw, env->server_user);
	json_key(jw, "cpus"); json_string(jw, o->cpus);
	json_key(jw, "pinning"); json_string(jw, env->pinning);
	json_key(jw, "settings_requested");
	json_strvec(jw, &o->settings);
	json_key(jw, "settings");
	json_object_begin(jw);
	if (conn && PQstatus(conn) == CONNECTION_OK) {
		static const char *const std[] = { "shared_buffers", "max_connections", "fsync",
			"synchronous_commit", "full_page_writes", "wal_level", "max_wal_size",
			"autovacuum", "jit", NULL };
		struct strvec names = STRVEC_INIT;
		for (int i = 0; std[i]; i++)
			strvec_push(&names, std[i]);
		for (size_t i = 0; i < o->settings.nr; i++) {
			char *n = xstrndup(o->settings.v[i], strcspn(o->settings.v[i], "="));
			if (strvec_find(&names, n) < 0)
				strvec_push(&names, n);
			free(n);
		}
		for (size_t i = 0; i < names.nr; i++) {
			char *sql, *v;
			char *q = PQescapeLiteral(conn, names.v[i], strlen(names.v[i]));
			sql = xasprintf("SELECT current_setting(%s, true)", q ? q : "''");
			PQfreemem(q);
			v = bench_query_text(conn, sql);
			json_key(jw, names.v[i]);
			json_string(jw, v);
			free(v);
			free(sql);
		}
		strvec_clear(&names);
	}
	json_object_end(jw);
	json_object_end(jw);
	free(cpu);
}
