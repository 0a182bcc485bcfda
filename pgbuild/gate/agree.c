/*
 * gate/agree.c - the simulation next to the machine: does the cycles
 * estimate's gain (a simulation, A/B) fall inside the interval of the
 * server CPU per transaction's gain (measured, A/B, the same direction)?
 * See gate.h, gate_agreement.
 */
#include <math.h>

#include "pgbuild/gate/gate.h"

const char *const gate_agree_names[] = {
	[GATE_AGREE_NA] = "not both measured",
	[GATE_AGREE_YES] = "agree",
	[GATE_AGREE_OVER] = "estimate above the machine",
	[GATE_AGREE_UNDER] = "estimate below the machine",
};

enum gate_agree gate_agree_ratio(double estimate, double lo, double hi)
{
	if (!isfinite(estimate) || !isfinite(lo) || !isfinite(hi))
		return GATE_AGREE_NA;
	if (estimate > hi)
		return GATE_AGREE_OVER;
	if (estimate < lo)
		return GATE_AGREE_UNDER;
	return GATE_AGREE_YES;
}

enum gate_agree gate_agreement(const struct gate_workload *w, double *estimate)
{
	*estimate = NAN;
	if (w->cycles != INSTR_OK || !(w->cyc_b.estimate > 0))
		return GATE_AGREE_NA;
	*estimate = w->cyc_a.estimate / w->cyc_b.estimate;
	if (!w->cpu.ok)
		return GATE_AGREE_NA;
	return gate_agree_ratio(*estimate, w->cpu.lo, w->cpu.hi);
}
