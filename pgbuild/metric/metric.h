/*
 * metric/metric.h - the names of what a gate measures, as bits of one
 * mask: `--metric tps,cycles` is METRIC_TPS | METRIC_CYCLES.
 * cli/options.c spells them on the command line (tps, instructions,
 * cycles, both); gate/ picks the runs and the threshold kinds by them.
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
