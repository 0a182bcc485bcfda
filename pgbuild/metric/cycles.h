/*
 * cycles.h - a layout-aware per-transaction metric of the PostgreSQL
 * server, `--metric cycles`: callgrind's cache and branch simulation of
 * the server in single-user mode, N and 10N transactions differenced like
 * the instruction count (instr.h), and from its events an estimated cycle
 * count per transaction.
 *
 *     setarch ARCH -R valgrind --tool=callgrind --cache-sim=yes --branch-sim=yes \
 *         --I1=32768,8,64 --D1=32768,8,64 --LL=33554432,16,64 \
 *         DIR/cycles/bin/postgres --single -D DIR/cycles/data postgres < W-N.sql
 *
 * What makes it repeatable and comparable between builds:
 *   - the cache geometry is pinned (valgrind's own detection reads the
 *     host's CPUID: on this VM a bogus 256 MiB direct-mapped LL, and other
 *     hosts give other numbers): 32 KiB 8-way L1s and a 32 MiB 16-way LL,
 *     64-byte lines;
 *   - ASLR is off (setarch -R), so addresses, and with them the cache sets
 *     each access maps to, are the same on every run;
 *   - A and B run with the same data-directory path, the same argv (the
 *     server is started through a symlink at a fixed path; PostgreSQL
 *     resolves it to find its installation) and the same environment: a
 *     different data-directory path moves the estimate by about 0.1%.
 *
 * Per transaction, from callgrind.out's "events:" and "summary:" lines,
 * read by event name: Ir; L1 misses L1m = I1mr + D1mr + D1mw (I1mr, the
 * instruction-cache misses, is reported on its own: it is what code layout
 * moves); last-level misses LLm = ILmr + DLmr + DLmw; branch
 * mispredictions Bm = Bcm + Bim (conditional + indirect); and
 *
 *     estimate = Ir + 10 * Bm + 10 * L1m + 100 * LLm
 *
 * the "cycle estimation" formula KCachegrind uses.  It is a simulation:
 * callgrind's model of caches and of a simple branch predictor, not the
 * CPU (no out-of-order execution, prefetching or the real predictor).
 *
 *   - every run starts with a cleared environment and a frozen clock
 *     (single.h: SINGLE_RUN_ENV, frozen-clock.so): PostgreSQL flushes its
 *     statistics at most once a second of wall time, so without it a run
 *     slowed by a loaded machine did more flushes (measured: A/A moved by
 *     up to 0.155% on tpcb under load); with it repeat runs agree to
 *     0.001% or better, also when every run is slowed down (tests/t/53).
 *
 * Ratios are compared at a resolution of CYCLES_RESOLUTION (0.1%).  A build valgrind cannot run
 * (AVX-512 code: SIGILL) is unavailable, never a number.
 */
#ifndef PGBUILD_CYCLES_H
#define PGBUILD_CYCLES_H

#include "wrapper/common/strbuf.h"

/* Estimate ratios closer than this count as equal (repeat-run spread). */
#define CYCLES_RESOLUTION 1e-3

/* The cache geometry every measurement uses (valgrind options). */
#define CYCLES_I1 "--I1=32768,8,64"
#define CYCLES_D1 "--D1=32768,8,64"
#define CYCLES_LL "--LL=33554432,16,64"
#define CYCLES_LL_MIB 32     /* CYCLES_LL's size, for what is set against it */

/* One sentence for every output that shows the metric. */
#define CYCLES_SIMULATION "a simulation: callgrind's cache and branch simulator " \
	"(L1 32 KiB 8-way, LL 32 MiB 16-way, 64 B lines), not the CPU; " \
	"estimate = Ir + 10*Bm + 10*L1m + 100*LLm (KCachegrind's cycle estimate)"

/* The callgrind events the metric reads, by their names in callgrind.out. */
enum cycles_event {
	CYC_IR,     /* instructions executed */
	CYC_I1MR,   /* L1 instruction-cache read misses */
	CYC_D1MR,   /* L1 data-cache read misses */
	CYC_D1MW,   /* L1 data-cache write misses */
	CYC_ILMR,   /* last-level misses of instruction fetches */
	CYC_DLMR,   /* last-level misses of data reads */
	CYC_DLMW,   /* last-level misses of data writes */
	CYC_BC,     /* conditional branches executed */
	CYC_BCM,    /* conditional branches mispredicted */
	CYC_BI,     /* indirect branches executed */
	CYC_BIM,    /* indirect branches mispredicted */
	CYC_NEVENTS
};
extern const char *const cycles_event_names[CYC_NEVENTS]; /* "Ir" "I1mr" ... */

/* The totals of one callgrind run (the "summary:" line). */
struct cycles_counts {
	double v[CYC_NEVENTS];  /* by enum cycles_event */
};

/* Per transaction, the figures every output shows. */
struct cycles_tx {
	double ir;        /* instructions */
	double i1mr;      /* L1 instruction-cache misses (part of l1m) */
	double l1m;       /* L1 misses: I1mr + D1mr + D1mw */
	double llm;       /* last-level misses: ILmr + DLmr + DLmw */
	double bm;        /* branch mispredictions: Bcm + Bim */
	double estimate;  /* Ir + 10*Bm + 10*L1m + 100*LLm */
};

/*
 * The figures of t in the order every output shows them (metric/metrics.c's
 * rows of the cycles metric: instructions, I1, L1, LL misses, branch
 * mispredictions, the estimate), and back.
 */
#define CYCLES_ROWS 6
#define CYCLES_ROW_ESTIMATE 5
void cycles_tx_values(const struct cycles_tx *t, double v[CYCLES_ROWS]);
void cycles_tx_set(struct cycles_tx *t, const double v[CYCLES_ROWS]);

/*
 * The counts of a callgrind output file: the "events:" line names the
 * columns, the "summary:" line (else "totals:") holds the values in that
 * order; a value left off at the end is 0, as in callgrind's format.
 * Returns 0, or -1 with the reason in why: no events line, no summary, or
 * events the metric needs missing (a run without --cache-sim=yes has no
 * I1mr..DLmw, one without --branch-sim=yes no Bc..Bim).
 */
int cycles_parse_callgrind(const char *text, struct cycles_counts *c, struct strbuf *why);

/* (c10 - c1) / 9n for every event, then the sums and the estimate. */
void cycles_per_tx(const struct cycles_counts *c1, const struct cycles_counts *c10, long n,
		   struct cycles_tx *out);

/* Ir + 10*Bm + 10*L1m + 100*LLm of t's fields. */
double cycles_estimate(const struct cycles_tx *t);

/*
 * Measure PREFIX's server on workload (select-only, tpcb or select1) below
 * workdir; statements = N (0: the workload's default).  Returns 0 with
 * *out, or -1 with the reason in note (never a number for a build that
 * could not be measured).  A and B of a comparison must use the same
 * workdir: the data-directory path is part of what is measured.
 */
int cycles_measure(const char *prefix, const char *workload, const char *workdir,
		   long statements, struct cycles_tx *out, struct strbuf *note);

/*
 * The callgrind output of prefix's run of n statements of workload below
 * workdir (malloced): cycles_measure keeps both of its runs' files there
 * (per-function totals, --dump-instr=no --dump-line=no: about 1 MB), which
 * `pgbuild explain` reads.  The runs' directory belongs to the server user.
 */
#define CYCLES_OUT_FMT "%s/cycles-%s-%ld.out"
char *cycles_output_path(const char *prefix, const char *workload, const char *workdir, long n);

#endif
