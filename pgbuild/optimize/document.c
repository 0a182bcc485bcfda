/*
 * optimize/document.c - optimize.json, the document of one `pgbuild
 * optimize` run: every stage's state, figures against stock and what it
 * added over its parent, its build time and text size, and the verdict;
 * see optimize.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbuild/metric/metrics.h"
#include "pgbuild/elf/elfrec.h"
#include "pgbuild/gate/gate.h"
#include "pgbuild/metric/cycles.h"
#include "pgbuild/optimize/optimize.h"
#include "pgbuild/profile/run.h"
#include "pgbuild/pgbuild.h"

static const char *const state_names[] = { "not-run", "baseline", "kept", "dropped", "skipped" };

/* One figure, with what the stage added over its parent's. */
static void write_figure(struct json_writer *jw, const struct optimize_figure *f,
			 const struct optimize_figure *parent, int stock)
{
	json_object_begin(jw);
	json_key(jw, "stock"); json_double(jw, f ? f->stock : NAN);
	json_key(jw, "build"); json_double(jw, f ? f->build : NAN);
	json_key(jw, "total"); json_double(jw, stock ? 1.0 : f ? f->total : NAN);
	json_key(jw, "lo"); json_double(jw, f ? f->lo : NAN);
	json_key(jw, "hi"); json_double(jw, f ? f->hi : NAN);
	json_key(jw, "added"); json_double(jw, stock ? NAN : optimize_added(f, parent));
	if (f && f->undecided) {
		json_key(jw, "gate"); json_string(jw, "undecided");
	}
	json_object_end(jw);
}

/* The postgres text size of a prefix (NAN when unreadable). */
static double text_size(const char *prefix)
{
	char *pg = xasprintf("%s/bin/postgres", prefix);
	struct elfrec_file f;
	struct strbuf err = STRBUF_INIT;
	double v = NAN;
	if (elfrec_open_flags(pg, ELFREC_SIZES_ONLY, &f, &err) == 0) {
		if (f.nr)
			v = (double)f.objs[0].text_size;
		elfrec_release(&f);
	}
	strbuf_release(&err);
	free(pg);
	return v;
}

/* The wall time PREFIX/pgopt-build.json records (NAN: none). */
static double recorded_secs(const char *prefix)
{
	struct json_value *root = prof_build_record(prefix);
	double v = json_get_num(root, "wall_seconds", NAN);
	json_free(root);
	return v;
}

/* The compiler's --version line its build record names (BOLT's: the
 * build it rewrote), malloced; NULL: none recorded. */
static char *recorded_compiler(const char *prefix)
{
	struct json_value *root = prof_build_record(prefix);
	const char *v = json_get_str(json_get(root, "compiler"), "version");
	char *r = v ? xstrdup(v) : NULL;
	json_free(root);
	return r;
}

/* The stage's workloads: figures against stock and what it added. */
static void write_stage_workloads(struct json_writer *jw, struct orun *r, int s)
{
	const struct ostage *st = &r->s[s];
	const struct optimize_measure *pm = st->parent > OS_STOCK ? &r->s[st->parent].m : NULL;

	json_key(jw, "workloads");
	json_array_begin(jw);
	for (size_t w = 0; w < r->o->workloads.nr; w++) {
		const char *wl = r->o->workloads.v[w];
		if (s != OS_STOCK && !optimize_measure_get(&st->m, wl, OM_CYCLES))
			continue;
		json_object_begin(jw);
		json_key(jw, "name"); json_string(jw, wl);
		json_key(jw, "sample");
		json_string(jw, s == OS_STOCK ? NULL : optimize_held_out(optimize_in_sample(r, s), wl) ?
			    "held-out" : "in-sample");
		json_key(jw, "role");
		json_string(jw, s == OS_STOCK ? NULL : optimize_role_names[optimize_role_of(r, s, wl)]);
		json_key(jw, "resolution");
		json_double(jw, optimize_resolution(&st->m, wl, OM_CYCLES));
		for (int k = 0; k < OM_NR; k++) {
			const struct optimize_figure *f = optimize_measure_get(&st->m, wl, k);
			json_key(jw, optimize_metric_names[k]);
			write_figure(jw, f, pm ? optimize_measure_get(pm, wl, k) : NULL, s == OS_STOCK);
		}
		/* the simulation next to the machine: the estimate inside the
		 * server CPU's interval (the gate's rule), null when either is
		 * missing */
		{
			const struct optimize_figure *c = optimize_measure_get(&st->m, wl, OM_CYCLES);
			const struct optimize_figure *u = optimize_measure_get(&st->m, wl, OM_CPU);
			enum gate_agree a = s == OS_STOCK || !c || !u ? GATE_AGREE_NA :
					    gate_agree_ratio(c->total, u->lo, u->hi);
			json_key(jw, "agree");
			json_string(jw, a == GATE_AGREE_NA ? NULL : gate_agree_names[a]);
		}
		json_object_end(jw);
	}
	json_array_end(jw);
}

/* What the stage trained on, what decided it, and its cycles gain on the
 * held-out and the in-sample workloads side by side. */
static void write_stage_samples(struct json_writer *jw, struct orun *r, int s)
{
	const struct strvec *trained = optimize_trained_on(r, s);
	const struct strvec *t = optimize_in_sample(r, s);
	static const char *const side[2] = { "in_sample", "held_out" };
	struct strvec none = STRVEC_INIT, chosen = STRVEC_INIT;

	json_key(jw, "trained_on"); json_strvec(jw, trained ? trained : &none);
	for (size_t i = 0; i < t->nr; i++)
		if (optimize_held_out(trained, t->v[i]))
			strvec_push(&chosen, t->v[i]);
	json_key(jw, "chosen_on"); json_strvec(jw, &chosen);
	strvec_clear(&chosen);
	json_key(jw, "decided_on");
	/* a stage dropped before its gate (a failed suite) decided on nothing */
	json_string(jw, (r->s[s].state == SS_KEPT || r->s[s].state == SS_DROPPED) &&
		    r->s[s].m.nr ? optimize_evidence(&r->s[s].m, t) : NULL);
	json_key(jw, "gain");
	json_object_begin(jw);
	for (int h = 1; h >= 0; h--) {
		struct optimize_gain g = { 0, NAN, NAN };
		if (s != OS_STOCK)
			optimize_gain(&r->s[s].m, optimize_parent_measure(r, s), t, h, &g);
		json_key(jw, side[h]);
		json_object_begin(jw);
		json_key(jw, "workloads"); json_int(jw, (long)g.n);
		json_key(jw, "total"); json_double(jw, g.total);
		json_key(jw, "added"); json_double(jw, g.added);
		json_object_end(jw);
	}
	json_object_end(jw);
	strvec_clear(&none);
}

static void write_stage(struct json_writer *jw, struct orun *r, int s)
{
	const struct ostage *st = &r->s[s];
	double secs = r->p.st[STEP_ID(s, STEP_BUILD)].secs;
	int built = st->state != SS_NOT_RUN && st->state != SS_SKIPPED;

	json_object_begin(jw);
	json_key(jw, "name"); json_string(jw, optimize_stage_names[s]);
	json_key(jw, "state"); json_string(jw, state_names[st->state]);
	json_key(jw, "reason"); json_string(jw, st->reason);
	json_key(jw, "stacks_on");
	json_string(jw, st->parent >= 0 ? optimize_stage_names[st->parent] : NULL);
	json_key(jw, "prefix"); json_string(jw, built ? st->prefix : NULL);
	json_key(jw, "policy"); json_string(jw, st->policy);
	json_key(jw, "gate_json"); json_string(jw, built && s != OS_STOCK ? st->gate_json : NULL);
	json_key(jw, "reused"); json_bool(jw, st->reused || (s == OS_STOCK && r->o->baseline));
	/* a reused or given build: the time its own record says it took */
	if (st->reused || (s == OS_STOCK && r->o->baseline))
		secs = recorded_secs(st->prefix);
	else if (!r->p.st[STEP_ID(s, STEP_BUILD)].key)
		secs = NAN;
	json_key(jw, "build_secs");
	json_double(jw, built ? secs : NAN);
	json_key(jw, "text_size"); json_double(jw, built ? text_size(st->prefix) : NAN);
	{
		int from = s == OS_BOLT && st->parent >= 0 ? st->parent : s;
		char *cc = built ? recorded_compiler(r->s[from].prefix) : NULL;
		json_key(jw, "compiler"); json_string(jw, cc);
		free(cc);
	}
	write_stage_samples(jw, r, s);
	write_stage_workloads(jw, r, s);
	json_object_end(jw);
}

/* WORKDIR/optimize.json: the whole run. */
void optimize_write_doc(struct orun *r, struct strbuf *out, int rc)
{
	struct json_writer jw;

	json_writer_init(&jw, out);
	json_object_begin(&jw);
	json_key(&jw, "kind"); json_string(&jw, "pgbuild-optimize");
	json_key(&jw, "version"); json_int(&jw, 1);
	json_key(&jw, "src"); json_string(&jw, r->o->src);
	json_key(&jw, "workloads"); json_strvec(&jw, &r->o->workloads);
	json_key(&jw, "train"); json_strvec(&jw, &r->o->train);
	{
		struct strvec out = STRVEC_INIT;
		for (size_t i = 0; i < r->o->workloads.nr; i++)
			if (optimize_held_out(&r->o->train, r->o->workloads.v[i]))
				strvec_push(&out, r->o->workloads.v[i]);
		json_key(&jw, "held_out"); json_strvec(&jw, &out);
		json_key(&jw, "evidence"); json_string(&jw, out.nr ? "held-out" : "in-sample");
		strvec_clear(&out);
	}
	json_key(&jw, "keep_rule"); json_string(&jw, OPTIMIZE_KEEP_RULE);
	/* the Bonferroni family of the keep rule (optimize_measure_of) */
	json_key(&jw, "stage_family"); json_int(&jw, (int64_t)optimize_run_family(r));
	/* this run's own, when an earlier run of the workdir decided at more */
	json_key(&jw, "stage_family_asked"); json_int(&jw, (int64_t)optimize_asked_family(r));
	json_key(&jw, "deciding_metric"); json_string(&jw, metrics_of(METRIC_CYCLES)->name);
	json_key(&jw, "resolution"); json_double(&jw, metrics_of(METRIC_CYCLES)->resolution);
	json_key(&jw, "cycles_note"); json_string(&jw, metrics_of(METRIC_CYCLES)->method);
	json_key(&jw, "gate"); json_string(&jw, OPT_GATE_EXPR);
	json_key(&jw, "noise_floor");
	json_object_begin(&jw);
	json_key(&jw, "state"); json_string(&jw, optimize_floor_state_names[r->floor_state]);
	json_key(&jw, "file");
	json_string(&jw, r->floor && strcmp(r->floor, "none") ? r->floor : NULL);
	json_key(&jw, "variants");
	if (r->floor_state == OF_MEASURED)
		json_int(&jw, r->o->noise_variants);
	else
		json_null(&jw);
	json_key(&jw, "note"); json_string(&jw, r->floor_note);
	json_object_end(&jw);
	json_key(&jw, "stages");
	json_array_begin(&jw);
	for (int s = 0; s < OS_NR; s++)
		if (r->o->stages & (1u << s))
			write_stage(&jw, r, s);
	json_array_end(&jw);
	json_key(&jw, "best"); json_string(&jw, optimize_stage_names[r->best]);
	json_key(&jw, "installed");
	json_string(&jw, rc == 0 && r->o->prefix ? r->o->prefix : NULL);
	json_key(&jw, "stopped_at"); json_string(&jw, r->stop);
	json_key(&jw, "verdict");
	json_string(&jw, r->stop ? "stopped: a step could not run (run again to resume)" :
		    rc == 0 ? (r->o->prefix ? "installed" : "faster than stock (no --prefix)") :
		    "no stage beat stock: nothing installed");
	json_key(&jw, "exit"); json_int(&jw, rc);
	json_object_end(&jw);
	strbuf_addch(out, '\n');
}
