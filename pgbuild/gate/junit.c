/*
 * junit.c - write a gate result as JUnit XML; see junit.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/gate/junit.h"
#include "pgbuild/gate/verdict.h"

void junit_escape(struct strbuf *out, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '&': strbuf_addstr(out, "&amp;"); break;
		case '<': strbuf_addstr(out, "&lt;"); break;
		case '>': strbuf_addstr(out, "&gt;"); break;
		case '"': strbuf_addstr(out, "&quot;"); break;
		case '\'': strbuf_addstr(out, "&apos;"); break;
		default:
			/* XML 1.0 forbids most control characters */
			if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
				break;
			strbuf_addch(out, (char)c);
		}
	}
}

struct testcase {
	const char *classname;
	const char *name;
	enum gate_status status; /* or -1 for skipped */
	int skipped;
	const char *message;
};

static void write_case(struct strbuf *out, const struct testcase *tc)
{
	strbuf_addstr(out, "    <testcase classname=\"");
	junit_escape(out, tc->classname);
	strbuf_addstr(out, "\" name=\"");
	junit_escape(out, tc->name);
	strbuf_addstr(out, "\" time=\"0\">\n");
	if (tc->skipped || tc->status == GATE_UNDECIDED) {
		/* undecided is neither a failure nor an error: a skipped case
		 * whose message says so (the verdict property and exit 3 too) */
		strbuf_addstr(out, "      <skipped message=\"");
		if (!tc->skipped)
			strbuf_addstr(out, "undecided: ");
		junit_escape(out, tc->message);
		strbuf_addstr(out, "\"/>\n");
	} else if (tc->status != GATE_PASS) {
		const char *tag = tc->status == GATE_FAIL ? "failure" : "error";
		strbuf_addf(out, "      <%s message=\"", tag);
		junit_escape(out, tc->message);
		strbuf_addf(out, "\" type=\"%s\">", tc->status == GATE_FAIL ? "threshold" : "measurement");
		junit_escape(out, tc->message);
		strbuf_addf(out, "</%s>\n", tag);
	}
	if (tc->message) {
		strbuf_addstr(out, "      <system-out>");
		junit_escape(out, tc->message);
		strbuf_addstr(out, "</system-out>\n");
	}
	strbuf_addstr(out, "    </testcase>\n");
}

void junit_write(const struct gate *g, struct strbuf *out, const char *suite_name)
{
	struct testcase *tc;
	size_t n = 0, max = g->nr_res + g->nr_wl + 2;
	int failures = 0, errors = 0, skipped = 0;
	char classname[256], names[64][128];
	struct strbuf body = STRBUF_INIT;

	tc = calloc(max, sizeof(*tc));
	if (!tc)
		return;
	/* the regression suite */
	tc[n].classname = "pgbuild.gate";
	tc[n].name = "regression suite";
	tc[n].skipped = g->regress == REGRESS_NOT_RUN;
	tc[n].status = g->regress == REGRESS_FAILED ? GATE_FAIL : GATE_PASS;
	tc[n].message = g->regress_note ? g->regress_note :
			g->regress == REGRESS_NOT_RUN ? "not run (no --require-regress)" : NULL;
	n++;
	/* a gate that stopped before deciding: one error says why */
	if (g->stopped) {
		tc[n].classname = "pgbuild.gate";
		tc[n].name = "verdict";
		tc[n].status = GATE_ERROR;
		tc[n].message = g->verdict_reason;
		n++;
	}
	/* correctness checks of the benchmark, per workload */
	for (size_t i = 0; i < g->nr_wl && i < 64 && !g->stopped; i++) {
		snprintf(names[i], sizeof(names[i]), "%s correctness", g->wl[i].name);
		tc[n].classname = "pgbuild.gate";
		tc[n].name = names[i];
		tc[n].status = g->wl[i].correctness_failed ? GATE_FAIL : GATE_PASS;
		tc[n].message = g->wl[i].correctness_failed ?
			"a correctness check of the benchmark failed on the candidate" : NULL;
		n++;
	}
	for (size_t i = 0; i < n; i++) {
		failures += !tc[i].skipped && tc[i].status == GATE_FAIL;
		errors += !tc[i].skipped && tc[i].status == GATE_ERROR;
		skipped += tc[i].skipped;
		write_case(&body, &tc[i]);
	}
	for (size_t i = 0; i < g->nr_res; i++) {
		const struct gate_result *r = &g->res[i];
		struct testcase c = { 0 };
		snprintf(classname, sizeof(classname), "pgbuild.gate.%s", r->workload);
		c.classname = classname;
		c.name = r->th->text;
		c.status = r->status;
		c.message = r->message;
		failures += r->status == GATE_FAIL;
		errors += r->status == GATE_ERROR;
		skipped += r->status == GATE_UNDECIDED;
		write_case(&body, &c);
		n++;
	}

	strbuf_addstr(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	/* the common schema (junit-10.xsd) allows skipped on testsuite only */
	strbuf_addf(out, "<testsuites tests=\"%zu\" failures=\"%d\" errors=\"%d\">\n",
		    n, failures, errors);
	strbuf_addstr(out, "  <testsuite name=\"");
	junit_escape(out, suite_name ? suite_name : "pgbuild gate");
	strbuf_addf(out, "\" tests=\"%zu\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"0\">\n",
		    n, failures, errors, skipped);
	strbuf_addstr(out, "    <properties>\n");
	strbuf_addf(out, "      <property name=\"verdict\" value=\"%s\"/>\n", gate_status_name(g->verdict));
	{
		/* the verdict in words (gate_verdict_word), beside pass/fail */
		struct gate_verdict v = GATE_VERDICT_INIT;
		gate_verdict_of(g, &v);
		strbuf_addf(out, "      <property name=\"verdict_word\" value=\"%s\"/>\n",
			    gate_verdict_word(&v));
		gate_verdict_clear(&v);
	}
	strbuf_addstr(out, "      <property name=\"method\" value=\"");
	junit_escape(out, stats_method_name(g->method));
	strbuf_addstr(out, "\"/>\n    </properties>\n");
	strbuf_add(out, body.buf, body.len);
	strbuf_addstr(out, "  </testsuite>\n</testsuites>\n");
	strbuf_release(&body);
	free(tc);
}
