/*
 * metric/metric.h - the bits of what a gate measures, one mask:
 * `--metric tps,cycles` is METRIC_TPS | METRIC_CYCLES.  Everything else
 * about a metric (its --metric word, keys, unit, direction, resolution,
 * run, rows) is its descriptor in metric/metrics.c's table; a new metric
 * is one bit here and one descriptor there.
 *
 *   tps           wall-clock runs: throughput, latency, server CPU per
 *                 transaction (bench/)
 *   instructions  instructions per transaction of the single-user server
 *                 (instr.h)
 *   cycles        the cycles estimate of its callgrind run (cycles.h)
 */
#ifndef PGBUILD_METRIC_H
#define PGBUILD_METRIC_H

#define METRIC_TPS    1u
#define METRIC_INSTR  2u
#define METRIC_CYCLES 4u

#endif
