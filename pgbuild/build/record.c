/*
 * record.c - pgopt-build.json, the record of one build: source, policy (and
 * the files it names), compiler, configure arguments, environment, log
 * lines, incremental statistics, phase times, the text size of postgres,
 * the smoke benchmark and the gate; see build.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/build/build.h"
#include "pgbuild/build/buildlog.h"
#include "pgbuild/elf/elfrec.h"
#include "pgbuild/pgbuild.h"
#include "wrapper/policy/vocab.h"

/* Berkeley-style text size (allocated, non-writable, with contents) and the
 * size of .text alone. */
static int elf_text_size(const char *path, long long *text, long long *dot_text)
{
	struct elfrec_file f;
	*text = *dot_text = 0;
	if (elfrec_open_flags(path, ELFREC_SIZES_ONLY, &f, NULL) < 0)
		return -1;
	if (!f.nr) {
		elfrec_release(&f);
		return -1;
	}
	*text = (long long)f.objs[0].readonly_size;
	*dot_text = (long long)f.objs[0].dot_text_size;
	elfrec_release(&f);
	return 0;
}

struct count {
	long records;   /* log lines of this build */
	long compiles;  /* compiles of translation units */
	long links;     /* kind "link" */
};

static int count_rec(const struct json_value *rec, long line, void *data)
{
	struct count *c = data;
	const char *kind = json_get_str(rec, "kind");
	(void)line;
	c->records++;
	if (buildlog_is_compile(rec))
		c->compiles++;
	else if (kind && !strcmp(kind, "link"))
		c->links++;
	return 0;
}

/* "source", "policy" (with the files it names) and "compiler". */
static void record_inputs(struct json_writer *jw, const struct build *b)
{
	json_key(jw, "source");
	json_object_begin(jw);
	json_key(jw, "spec"); json_string(jw, b->src.spec);
	json_key(jw, "dir"); json_string(jw, b->src.dir);
	json_key(jw, "version"); json_string(jw, b->src.version);
	json_key(jw, "pkg_version"); json_string(jw, b->src.pkg_version);
	json_object_end(jw);
	json_key(jw, "policy");
	json_object_begin(jw);
	json_key(jw, "path"); json_string(jw, b->policy);
	json_key(jw, "content"); json_string(jw, b->policy_text.buf);
	json_key(jw, "sha256"); json_string(jw, b->policy_sha);
	json_key(jw, "lto"); json_string(jw, b->lto_mode);
	/* the hardening it weakens, which the caller allowed (PGOPT_WEAKEN) */
	json_key(jw, "weakened");
	json_array_begin(jw);
	for (int h = 0; h < VOCAB_HARD_NR; h++)
		if (b->weakened & (1u << h))
			json_string(jw, vocab_hardening_name((enum vocab_hardening)h));
	json_array_end(jw);
	json_key(jw, "files");
	json_array_begin(jw);
	for (size_t i = 0; i + 1 < b->policy_refs.nr; i += 2) {
		json_object_begin(jw);
		json_key(jw, "key"); json_string(jw, b->policy_refs.v[i]);
		json_key(jw, "path"); json_string(jw, b->policy_refs.v[i + 1]);
		json_key(jw, "content"); json_string(jw, b->policy_ref_text.v[i / 2]);
		json_object_end(jw);
	}
	json_array_end(jw);
	json_object_end(jw);
	json_key(jw, "compiler");
	json_object_begin(jw);
	json_key(jw, "wrapper"); json_string(jw, pgbuild_pgoptcc());
	json_key(jw, "cc"); json_string(jw, b->cc);
	json_key(jw, "version"); json_string(jw, b->cc_version);
	json_key(jw, "ar"); json_string(jw, b->ar);
	json_key(jw, "ranlib"); json_string(jw, b->ranlib);
	json_object_end(jw);
}

/* "configure_args", "environment" and where the build went. */
static void record_setup(struct json_writer *jw, struct build *b)
{
	json_key(jw, "configure_args");
	json_strvec(jw, &b->configure);
	/* make's environment as pgbuild set it (setup_env): what the build
	 * ran with, for people; read back only through buildlog_env_read,
	 * which takes a few checked names and never exports the rest */
	json_key(jw, "environment");
	json_object_begin(jw);
	for (size_t i = 0; i < b->env.nr; i++) {
		char *eq = strchr(b->env.v[i], '=');
		if (!eq)
			continue;
		*eq = '\0';
		json_key(jw, b->env.v[i]);
		json_string(jw, eq + 1);
		*eq = '=';
	}
	json_object_end(jw);
	json_key(jw, "prefix"); json_string(jw, b->prefix);
	json_key(jw, "builddir"); json_string(jw, b->builddir);
	json_key(jw, "installed"); json_bool(jw, b->o.install);
	json_key(jw, "jobs"); json_int(jw, b->o.jobs);
	json_key(jw, "enable_cassert"); json_bool(jw, b->o.cassert);
}

/* The first max strings of sv as a JSON array (a record stays small). */
static void json_strings_max(struct json_writer *jw, const struct strvec *sv, size_t max)
{
	json_array_begin(jw);
	for (size_t i = 0; i < sv->nr && i < max; i++)
		json_string(jw, sv->v[i]);
	json_array_end(jw);
}

/* "log" (this build's lines of the compile log) and "incremental". */
static void record_log(struct json_writer *jw, const struct build *b, const struct count *cnt)
{
	json_key(jw, "log");
	json_object_begin(jw);
	json_key(jw, "dir"); json_string(jw, b->logdir);
	json_key(jw, "compile_log"); json_string(jw, b->logfile);
	json_key(jw, "first_line"); json_int(jw, b->log_first);
	json_key(jw, "last_line"); json_int(jw, b->log_last);
	json_key(jw, "records"); json_int(jw, cnt->records);
	json_key(jw, "compiles"); json_int(jw, cnt->compiles);
	json_key(jw, "links"); json_int(jw, cnt->links);
	json_object_end(jw);
	json_key(jw, "incremental");
	json_object_begin(jw);
	json_key(jw, "fresh"); json_bool(jw, b->fresh);
	json_key(jw, "reconfigured"); json_bool(jw, b->reconfigured);
	json_key(jw, "checked_objects"); json_int(jw, b->replayed);
	json_key(jw, "invalidated"); json_int(jw, b->invalidated);
	json_key(jw, "invalidated_tus");
	json_strings_max(jw, &b->invalidated_tus, 1000);
	json_key(jw, "checked_links"); json_int(jw, b->links_checked);
	json_key(jw, "relinked"); json_int(jw, b->relinked);
	json_key(jw, "relinked_outputs");
	json_strings_max(jw, &b->relinked_outputs, 1000);
	json_object_end(jw);
}

/* "wall_seconds", "phases", "postgres" (its text size), "bench", "gate". */
static void record_results(struct json_writer *jw, const struct build *b, double wall,
			   const char *postgres, long long *text)
{
	long long dot_text = 0;

	json_key(jw, "wall_seconds"); json_double(jw, wall);
	json_key(jw, "phases");
	json_object_begin(jw);
	for (int i = 0; i < b->nphases; i++) {
		json_key(jw, b->phases[i].name);
		json_double(jw, b->phases[i].seconds);
	}
	json_object_end(jw);
	json_key(jw, "postgres");
	json_object_begin(jw);
	json_key(jw, "path"); json_string(jw, postgres);
	if (elf_text_size(postgres, text, &dot_text) == 0) {
		json_key(jw, "text_size"); json_int(jw, *text);
		json_key(jw, "dot_text_size"); json_int(jw, dot_text);
	} else {
		json_key(jw, "text_size"); json_null(jw);
		json_key(jw, "dot_text_size"); json_null(jw);
	}
	json_object_end(jw);
	json_key(jw, "bench");
	if (b->bench.len) {
		json_raw(jw, b->bench.buf);
	} else if (b->bench_note) {
		json_object_begin(jw);
		json_key(jw, "skipped"); json_string(jw, b->bench_note);
		json_object_end(jw);
	} else {
		json_null(jw);
	}
	json_key(jw, "gate");
	if (b->gate_code >= 0) {
		json_object_begin(jw);
		json_key(jw, "baseline"); json_string(jw, b->o.baseline);
		json_key(jw, "expr"); json_string(jw, b->o.gate);
		json_key(jw, "args"); json_string(jw, b->o.gate_args);
		json_key(jw, "exit"); json_int(jw, b->gate_code);
		json_object_end(jw);
	} else {
		json_null(jw);
	}
}

void build_write_record(struct build *b, int ok)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_writer jw = JSON_WRITER_INIT(&sb);
	struct count cnt = { 0, 0, 0 };
	char *postgres = xasprintf("%s/bin/postgres", b->prefix);
	long long text = 0;
	double wall = clock_seconds() - b->t0;

	if (!b->o.install || !path_exists(postgres)) {
		free(postgres);
		postgres = xasprintf("%s/src/backend/postgres", b->builddir);
	}
	b->log_last = buildlog_each(b->logfile, b->log_first, count_rec, &cnt, NULL);

	json_object_begin(&jw);
	json_key(&jw, "pgoptcc_version"); json_string(&jw, PGOPT_VERSION);
	json_key(&jw, "started"); json_string(&jw, b->started);
	json_key(&jw, "ok"); json_bool(&jw, ok);
	record_inputs(&jw, b);
	record_setup(&jw, b);
	record_log(&jw, b, &cnt);
	record_results(&jw, b, wall, postgres, &text);
	json_object_end(&jw);
	strbuf_addch(&sb, '\n');

	for (int i = 0; i < 2; i++) {
		char *path;
		if (i == 1 && !(b->o.install && ok))
			break;
		path = xasprintf("%s/%s", i ? b->prefix : b->builddir, BUILDLOG_RECORD);
		write_file_atomic(path, sb.buf, sb.len);
		free(path);
	}
	if (!b->quiet) {
		char d[32];
		fprintf(stderr, "pgbuild: %s in %s: %ld compiles, %ld links; postgres text %.2f MB\n",
			ok ? "built" : "build FAILED", fmt_duration(wall, 0, d, sizeof(d)),
			cnt.compiles, cnt.links, (double)text / 1e6);
	}
	free(postgres);
	strbuf_release(&sb);
}
