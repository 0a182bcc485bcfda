/*
 * build/regsummary.c - what one regression suite's output says: the
 * counts of pg_regress's result lines, the failed tests and the
 * regression.diffs paths; printed and as --json; see regress.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/build/regress.h"
#include "pgbuild/pgbuild.h"

/*
 * Parse one line of pg_regress output:
 *   "test tablespace                   ... ok          318 ms"
 *   "     boolean                      ... FAILED       98 ms"
 *   "     stats                        ... failed (ignored)"
 */
static void parse_line(struct regress_suite *s, const char *line)
{
	const char *dots = strstr(line, " ... ");
	const char *q, *e;
	const char *name_end, *name;

	if (dots) {
		const char *res = dots + 5;
		while (*res == ' ')
			res++;
		name_end = dots;
		while (name_end > line && name_end[-1] == ' ')
			name_end--;
		name = name_end;
		while (name > line && name[-1] != ' ')
			name--;
		if (name == name_end)
			return;
		if (!strncmp(res, "ok", 2) && (!res[2] || res[2] == ' ')) {
			s->passed++;
		} else if (!strncmp(res, "FAILED", 6)) {
			s->failed++;
			strvec_push_nodup(&s->failed_tests,
					  xstrndup(name, (size_t)(name_end - name)));
		} else if (!strncmp(res, "failed (ignored)", 16)) {
			s->ignored++;
		}
		return;
	}
	if (strstr(line, " tests passed") || strstr(line, " tests failed") ||
	    strstr(line, " test passed") || strstr(line, " test failed"))
		if (line[strspn(line, " ")] != '\0' &&
		    (strstr(line, "All ") || strstr(line, " of ")))
			s->summaries++;
	if ((q = strstr(line, "regression.diffs\"")) && (e = q) && (q = memrchr(line, '"', (size_t)(q - line)))) {
		char *p = xstrndup(q + 1, (size_t)(e - q - 1) + strlen("regression.diffs"));
		if (strvec_find(&s->diffs, p) < 0)
			strvec_push(&s->diffs, p);
		free(p);
	}
}

void regress_parse_output(struct regress_suite *s, const char *text)
{
	while (*text) {
		const char *e = strchr(text, '\n');
		size_t n = e ? (size_t)(e - text) : strlen(text);
		char *line = xstrndup(text, n);
		parse_line(s, line);
		free(line);
		text += n + (e ? 1 : 0);
	}
}

void regress_print_suite(FILE *out, const struct regress_suite *s)
{
	fprintf(out, "%s: %ld tests, %ld passed, %ld failed", s->name,
	       s->passed + s->failed + s->ignored, s->passed, s->failed);
	if (s->ignored)
		fprintf(out, ", %ld failed but ignored", s->ignored);
	if (!strcmp(s->name, "contrib"))
		fprintf(out, " (%ld suites)", s->summaries);
	fprintf(out, "\n");
	for (size_t i = 0; i < s->failed_tests.nr; i++)
		fprintf(out, "%s: FAILED %s\n", s->name, s->failed_tests.v[i]);
	for (size_t i = 0; i < s->diffs.nr; i++)
		fprintf(out, "%s: diffs %s\n", s->name, s->diffs.v[i]);
	if (s->make_exit != 0 && !s->failed)
		fprintf(out, "%s: make exited with %d; see %s\n", s->name, s->make_exit, s->log);
}

void regress_suite_json(struct json_writer *jw, const struct regress_suite *s)
{
	json_key(jw, s->name);
	json_object_begin(jw);
	json_key(jw, "passed"); json_int(jw, s->passed);
	json_key(jw, "failed"); json_int(jw, s->failed);
	json_key(jw, "ignored"); json_int(jw, s->ignored);
	json_key(jw, "make_exit"); json_int(jw, s->make_exit);
	json_key(jw, "log"); json_string(jw, s->log);
	json_key(jw, "failed_tests");
	json_strvec(jw, &s->failed_tests);
	json_key(jw, "diffs");
	json_strvec(jw, &s->diffs);
	json_object_end(jw);
}

int regress_result_read(const char *path, struct regress_result *r, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	struct json_value *v = NULL;
	const struct json_value *ok;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	if (sfs_read(AT_FDCWD, path, SFS_IN_JSON, 0, &text, err) < 0)
		goto out;
	v = json_parse(text.buf, text.len, NULL);
	ok = json_get(v, "ok");
	if (!v || !ok || ok->type != JSON_BOOL || json_get_num(v, "tests", -1) < 0) {
		strbuf_addf(err, "%s: expected a `pgbuild regress --json` document "
			    "(\"ok\", \"tests\", \"failed\")", path);
		goto out;
	}
	r->ok = ok->u.boolean;
	r->tests = (long)json_get_num(v, "tests", 0);
	r->failed = (long)json_get_num(v, "failed", 0);
	r->mode = json_get_str(v, "mode") ? xstrdup(json_get_str(v, "mode")) : NULL;
	{
		const char *pr = json_get_str(v, "server_problems");
		r->problems = pr && *pr ? xstrdup(pr) : NULL;
	}
	rc = 0;
out:
	json_free(v);
	strbuf_release(&text);
	return rc;
}

void regress_result_clear(struct regress_result *r)
{
	free(r->mode);
	free(r->problems);
	memset(r, 0, sizeof(*r));
}
