/*
 * html.h - `pgbuild report --html`: one self-contained HTML file (no script,
 * no network, no external style sheet or font) with inline SVG plots:
 *
 *   - throughput over time of every A and B run (the bench timelines), and
 *     throughput per run in execution order;
 *   - latency distribution of A and B (percentile curve, medians over runs);
 *   - per-pair ratios B/A with the confidence band, the estimate, 1.0 and
 *     the thresholds;
 *   - tables: thresholds and verdict, instructions per transaction (marked
 *     as a proxy), translation units and their flags, top per-function
 *     changes.
 */
#ifndef PGBUILD_HTML_H
#define PGBUILD_HTML_H

#include "pgbuild/report/report.h"
#include "wrapper/common/strbuf.h"

void html_write(const struct report_data *rd, struct strbuf *out);

#endif
