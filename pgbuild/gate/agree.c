/*
 * gate/agree.c - the simulation next to the machine: does the cycles
 * estimate's gain (a simulation, A/B) fall inside the interval of the
 * server CPU per transaction's gain (measured, A/B, the same direction),
 * and was that interval narrow enough for the answer to mean anything?
 * See gate.h, gate_agreement.
 *
 * The rule.  Outside the interval: OVER or UNDER, whatever its width (a
 * real contradiction).  Inside: "agree" only when the interval's
 * half-width, on the log scale, is at most GATE_AGREE_SHARE (1/2) of the
 * estimate's distance from 1, |ln estimate|, or of ln(1 +
 * GATE_AGREE_MIN_EFFECT) (2%) when the estimate is closer to 1 than
 * that; else "not tested".  With it, an interval that holds an estimate
 * 2% or more away from 1 excludes 1: "agree" says the machine measured a
 * change in the estimate's direction, of about its size, not merely that
 * it could not tell anything apart (an estimate of 1.05 inside a server
 * CPU interval of [0.83, 1.18] agreed before, and says nothing); for an
 * estimate of no change the interval must lie within +-1%, so an estimate
 * 2% away would have fallen outside it.
 */
#include <math.h>

#include "pgbuild/gate/gate.h"

const char *const gate_agree_names[] = {
	[GATE_AGREE_NA] = "not both measured",
	[GATE_AGREE_YES] = "agree",
	[GATE_AGREE_OVER] = "estimate above the machine",
	[GATE_AGREE_UNDER] = "estimate below the machine",
	[GATE_AGREE_UNTESTED] = "not tested (the machine's interval is too wide)",
};

/* The log half-width the interval may have for an estimate. */
static double needed_log(double estimate)
{
	return GATE_AGREE_SHARE * fmax(fabs(log(estimate)), log1p(GATE_AGREE_MIN_EFFECT));
}

double gate_agree_needed(double estimate)
{
	if (!(estimate > 0) || !isfinite(estimate))
		return NAN;
	return expm1(needed_log(estimate));
}

enum gate_agree gate_agree_ratio(double estimate, double lo, double hi)
{
	if (!isfinite(estimate) || !(estimate > 0) || !(lo >= 0) || !(hi >= lo))
		return GATE_AGREE_NA;
	if (estimate > hi)
		return GATE_AGREE_OVER;
	if (estimate < lo)
		return GATE_AGREE_UNDER;
	/* an unbounded interval (a confidence sequence before it can decide,
	 * or one that ended inconsistent: [0, inf]) tests nothing; the
	 * tolerance only absorbs the rounding of an interval just at it */
	if (!(lo > 0) || !isfinite(hi) ||
	    (log(hi) - log(lo)) / 2 > needed_log(estimate) * (1 + 1e-12))
		return GATE_AGREE_UNTESTED;
	return GATE_AGREE_YES;
}

enum gate_agree gate_agreement(const struct gate *g, const struct gate_workload *w,
			       double *estimate, struct stats_ratio *cpu)
{
	*estimate = NAN;
	gate_ratio_of(g, w, GATE_SERVER_CPU, cpu);
	if (w->cycles != INSTR_OK || !(w->cyc_b.estimate > 0))
		return GATE_AGREE_NA;
	*estimate = w->cyc_a.estimate / w->cyc_b.estimate;
	if (!cpu->ok)
		return GATE_AGREE_NA;
	return gate_agree_ratio(*estimate, cpu->lo, cpu->hi);
}
