/*
 * test-report-html.c - the HTML report and the terminal summary on synthetic
 * gate data: every plot is drawn (4 SVGs per workload), no coordinate is NaN
 * or infinite even with missing numbers, text is escaped, and nothing refers
 * to the network.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pgbuild/report/html.h"
#include "pgbuild/report/report.h"
#include "wrapper/common/xalloc.h"

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void make_gate(struct report_data *rd, int with_latency)
{
	struct strbuf err = STRBUF_INIT;
	struct gate_workload *w;
	memset(rd, 0, sizeof(*rd));
	rd->gate.method = STATS_CI_HL;
	rd->gate.conf = 0.95;
	rd->gate.min_pairs = 6;
	assert_int_equal(gate_expr_parse(&rd->gate.th, "select-only>=1.05,p99<=+10%", &err), 0);
	w = gate_workload_get(&rd->gate, "select-only", 1);
	for (int p = 0; p < 7; p++)
		for (int k = 0; k < 2; k++) {
			struct gate_run *r = gate_workload_add_run(w);
			r->pair = p;
			r->build = (k == 0) == (p % 2 == 0) ? 'A' : 'B';
			r->tps = r->build == 'A' ? 40000 + 900 * p : 43000 + 700 * p;
			if (with_latency)
				for (int l = 0; l < GATE_NLAT; l++)
					r->lat[l] = 0.01 * (l + 1) * (l + 1) * (r->build == 'A' ? 1.1 : 1.0);
			r->json = xasprintf("{\"elapsed_s\":3.0,\"timeline\":[{\"t\":1,\"transactions\":%d},"
					    "{\"t\":2,\"transactions\":%d},{\"t\":3,\"transactions\":%d},"
					    "{\"t\":4,\"transactions\":3}]}", 40000 + p, 41000 + p, 42000 + p);
		}
	gate_analyse(&rd->gate);
	gate_decide(&rd->gate);
	rd->have_gate = 1;
	rd->baseline = xstrdup("/opt/a<b>");
	rd->candidate = xstrdup("/opt/\"b\"&c");
	strbuf_release(&err);
}

static void test_html_plots(void **state)
{
	struct report_data rd;
	struct strbuf out = STRBUF_INIT;
	make_gate(&rd, 1);
	html_write(&rd, &out);
	/* the thresholds' plot first, then four of the runs */
	assert_int_equal(count(out.buf, "<svg "), 5);
	assert_int_equal(count(out.buf, "</svg>"), 5);
	assert_true(strstr(out.buf, "<svg class=\"forest\"") < strstr(out.buf, "<table"));
	assert_int_equal(count(out.buf, "nan"), 0);
	assert_int_equal(count(out.buf, "inf"), 0);
	assert_int_equal(count(out.buf, "<script"), 0);
	/* the only URLs are the SVG namespace names (never fetched) */
	assert_int_equal(count(out.buf, "http:"), count(out.buf, "xmlns=\"http://www.w3.org/2000/svg\""));
	assert_non_null(strstr(out.buf, "/opt/a&lt;b&gt;"));
	assert_non_null(strstr(out.buf, "/opt/&quot;b&quot;&amp;c"));
	assert_non_null(strstr(out.buf, "Content-Security-Policy"));
	/* the median of the per-pair ratios, and the estimate, each in its column */
	assert_non_null(strstr(out.buf, "median B/A</th>"));
	{
		char cells[128];
		snprintf(cells, sizeof(cells), "<td class=\"n\">%.4f</td><td class=\"n\">%.4f</td>",
			 rd.gate.wl[0].tps.median, rd.gate.wl[0].tps.estimate);
		assert_non_null(strstr(out.buf, cells));
	}
	/* the timeline's partial last second (t=4, 3 transactions) is left out */
	assert_int_equal(count(out.buf, "throughput over time"), 2); /* title + <title> */
	strbuf_release(&out);
	report_data_clear(&rd);
}

static void test_html_missing_numbers(void **state)
{
	struct report_data rd;
	struct strbuf out = STRBUF_INIT;
	make_gate(&rd, 0);  /* no latency in any run */
	html_write(&rd, &out);
	assert_int_equal(count(out.buf, "nan"), 0);
	assert_int_equal(count(out.buf, "inf"), 0);
	assert_int_equal(count(out.buf, "latency distribution"), 0);
	assert_int_equal(count(out.buf, "<svg "), 4);
	strbuf_release(&out);
	report_data_clear(&rd);

	memset(&rd, 0, sizeof(rd));
	html_write(&rd, &out);
	assert_non_null(strstr(out.buf, "Nothing to report."));
	strbuf_release(&out);
}

static void test_terminal(void **state)
{
	struct report_data rd;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	make_gate(&rd, 1);
	report_gate_terminal(&rd.gate, rd.baseline, rd.candidate, fp);
	fclose(fp);
	assert_non_null(strstr(buf, "gate: "));
	assert_non_null(strstr(buf, "select-only"));
	assert_non_null(strstr(buf, "95% CI"));
	assert_non_null(strstr(buf, "Hodges-Lehmann"));
	assert_non_null(strstr(buf, "p99<=+10%"));
	/* the median of the per-pair ratios next to the Hodges-Lehmann estimate */
	{
		char med[64], est[32];
		const struct stats_ratio *t = &rd.gate.wl[0].tps;
		snprintf(med, sizeof(med), "%.4f", t->median);
		snprintf(est, sizeof(est), "%.4f", t->estimate);
		assert_string_equal(med, "1.0562");     /* pair 4 of 7: 45100 / 42700 */
		snprintf(med, sizeof(med), "%8.4f %8s", t->median, est);
		assert_non_null(strstr(buf, med));
		assert_non_null(strstr(buf, "  median   B/A HL"));
		assert_non_null(strstr(buf, "(median: of the per-pair ratios B/A; B/A HL: Hodges-Lehmann"));
	}
	free(buf);
	report_data_clear(&rd);
}

static void test_escape(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr_html(&sb, "<a href='x'>&\"</a>");
	assert_string_equal(sb.buf, "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;");
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_html_plots),
		cmocka_unit_test(test_html_missing_numbers),
		cmocka_unit_test(test_terminal),
		cmocka_unit_test(test_escape),
	};
	return cmocka_run_group_tests_name("gate-html", tests, NULL, NULL);
}
