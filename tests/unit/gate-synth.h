/*
 * gate-synth.h - synthetic gates for the unit tests of the gate and its
 * verdict: a fixed-seed generator, interleaved A/B pairs of tps runs with
 * a given speed ratio and noise, and a gate with parsed thresholds.
 * Include after <cmocka.h> and pgbuild/gate/gate.h.
 */
#ifndef TESTS_UNIT_GATE_SYNTH_H
#define TESTS_UNIT_GATE_SYNTH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static uint64_t synth_rng = 88172645463325252ULL;

static inline double synth_uniform(void)
{
	synth_rng ^= synth_rng << 13;
	synth_rng ^= synth_rng >> 7;
	synth_rng ^= synth_rng << 17;
	return (double)(synth_rng >> 11) / 9007199254740992.0;
}

/* approximately normal, by the sum of 12 uniforms */
static inline double synth_gauss(void)
{
	double s = 0;
	for (int i = 0; i < 12; i++)
		s += synth_uniform();
	return s - 6;
}

static inline void synth_run(struct gate_workload *w, int pair, char build, double tps,
			     double p99, int exit)
{
	struct gate_run *r = gate_workload_add_run(w);
	r->pair = pair;
	r->build = build;
	r->tps = tps;
	r->exit = exit;
	r->lat[gate_lat_index("p99")] = p99;
	r->lat[gate_lat_index("avg")] = 1000 * 2 / tps;
}

/* n pairs of workload wl; B = A * speed * noise (relative sd noise) */
static inline void synth_pairs(struct gate *g, const char *wl, int n, double speed, double noise,
			       double p99ratio)
{
	struct gate_workload *w = gate_workload_get(g, wl, 1);
	for (int p = 0; p < n; p++) {
		double drift = 50000 * (1 + 0.05 * sin(p));
		double a = drift * exp(noise * synth_gauss());
		double b = drift * speed * exp(noise * synth_gauss());
		synth_run(w, p, p % 2 ? 'B' : 'A', p % 2 ? b : a, p % 2 ? 0.2 * p99ratio : 0.2, 0);
		synth_run(w, p, p % 2 ? 'A' : 'B', p % 2 ? a : b, p % 2 ? 0.2 : 0.2 * p99ratio, 0);
	}
}

/* A gate at 95% with Hodges-Lehmann intervals and the thresholds expr. */
static inline void synth_gate(struct gate *g, const char *expr)
{
	struct strbuf err = STRBUF_INIT;
	memset(g, 0, sizeof(*g));
	g->method = STATS_CI_HL;
	g->conf = 0.95;
	g->min_pairs = 6;
	assert_int_equal(gate_expr_parse(&g->th, expr, &err), 0);
	strbuf_release(&err);
}

#endif
