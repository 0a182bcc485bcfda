/*
 * test-tune-engine.c - unit tests of pgbuild/tune/engine.c on a synthetic
 * evaluator: every flag multiplies the speed by a known factor, some flags
 * "crash the compiler" or "fail the regression suite", and every call is
 * counted.  Checks: the known best set is found, failed sets are remembered
 * and never retried (nor their supersets), --max-builds and --max-time
 * are honoured, a search killed half-way resumes from its state file
 * without redoing any evaluation, and without a resolution (no layout
 * floor) nothing is searched; the --json documents of a finished search
 * and of --dry-run, byte for byte (tune/output.c).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "pgbuild/tune/engine.h"
#include "pgbuild/tune/tuner.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/xalloc.h"

#include "tests/unit/fixture.h"

/* ---------------- the synthetic evaluator ---------------- */

#define MAXCALLS 256

struct synth {
	const char *const *flags;   /* candidate names */
	const double *gain;         /* speed factor of each flag */
	tune_set crash;             /* sets containing any of these bits fail to build */
	tune_set regress;           /* ... fail the regression suite */
	tune_set built_list[MAXCALLS];
	int nr_built;
	tune_set cand[MAXCALLS], ref[MAXCALLS];
	int calls;
	int abort_after;            /* simulate a kill: fail the call after this many */
	int unmeasured_once;        /* first call of this many returns unmeasured */
	double seconds;             /* per evaluation */
	double noise;               /* half-width of the interval */
	int no_interval;            /* the gate gave an estimate without one */
};

static double speed(const struct synth *s, tune_set set)
{
	double v = 1;
	for (int i = 0; i < 64; i++)
		if (set & ((tune_set)1 << i))
			v *= s->gain[i];
	return v;
}

static int synth_built(struct synth *s, tune_set set)
{
	for (int i = 0; i < s->nr_built; i++)
		if (s->built_list[i] == set)
			return 1;
	return 0;
}

static int synth_eval(struct tune_engine *t, tune_set cand, tune_set ref,
		      struct tune_eval *out, void *ctx)
{
	struct synth *s = ctx;
	if (s->abort_after >= 0 && s->calls >= s->abort_after)
		return -1;
	assert_true(s->calls < MAXCALLS);
	s->cand[s->calls] = cand;
	s->ref[s->calls] = ref;
	s->calls++;
	out->seconds = s->seconds;
	if (!synth_built(s, cand)) {
		s->built_list[s->nr_built++] = cand;
		out->builds = 1;
		out->build_seconds = s->seconds / 2;
	}
	if (s->unmeasured_once > 0) {
		s->unmeasured_once--;
		out->outcome = TUNE_UNMEASURED;
		return 0;
	}
	if (cand & s->crash) {
		out->outcome = TUNE_BUILD_FAILED;
		out->note = xstrdup("internal compiler error");
		return 0;
	}
	if (cand & s->regress) {
		out->outcome = TUNE_REGRESS_FAILED;
		return 0;
	}
	out->outcome = TUNE_OK;
	out->ratio = speed(s, cand) / speed(s, ref);
	out->lo = s->no_interval ? NAN : out->ratio - s->noise;
	out->hi = s->no_interval ? NAN : out->ratio + s->noise;
	return 0;
}

static void synth_init(struct synth *s, const char *const *flags, const double *gain)
{
	memset(s, 0, sizeof(*s));
	s->flags = flags;
	s->gain = gain;
	s->abort_after = -1;
	s->seconds = 60;
	s->noise = 0.002;
}

static const struct tune_params defaults = {
	.tolerance = 0.005, .min_gain = 0.005, .max_builds = 0, .time_budget = 0,
	.readd = 1, .start_stock = 0,
};

static void engine_setup(struct tune_engine *t, const struct tune_params *p,
			 const char *const *flags, int n, struct synth *s)
{
	tune_engine_init(t, p);
	for (int i = 0; i < n; i++)
		assert_int_equal(tune_engine_add_flag(t, flags[i]), i);
	t->evaluate = synth_eval;
	t->ctx = s;
	t->key = xstrdup("unit");
}

static tune_set set_of(const struct tune_engine *t, const char *text)
{
	tune_set s = 0;
	char *copy = xstrdup(text), *save = NULL;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		long k = strvec_find(&t->flags, w);
		assert_true(k >= 0);
		s |= (tune_set)1 << k;
	}
	free(copy);
	return s;
}

/* ---------------- tests ---------------- */

static const char *const F4[] = { "-O3", "-fno-plt", "-fslow", "-march=native" };
static const double G4[] = { 1.05, 1.00, 0.97, 1.03 };

/* -O3 and -march=native pay off, -fno-plt does nothing, -fslow hurts. */
static void test_known_best(void **state)
{
	struct tune_engine t;
	struct synth s;
	synth_init(&s, F4, G4);
	engine_setup(&t, &defaults, F4, 4, &s);
	assert_int_equal(tune_engine_run(&t), 0);
	assert_true(t.best == set_of(&t, "-O3,-march=native"));
	assert_string_equal(t.stop_reason, "converged");
	/* final: best against stock, 1.05 * 1.03 */
	assert_true(t.final_record >= 0);
	assert_true(fabs(t.records[t.final_record].e.ratio - 1.05 * 1.03) < 1e-9);
	/* start + 4 drops + 2 re-checks after drops + 2 re-adds + final */
	assert_true(s.calls <= 10);
	/* every comparison is against the best of its time: never twice the same */
	for (int i = 0; i < s.calls; i++)
		for (int j = i + 1; j < s.calls; j++)
			assert_false(s.cand[i] == s.cand[j] && s.ref[i] == s.ref[j]);
	/* builds: each set at most once */
	assert_int_equal(t.builds, s.nr_built);
	{
		char *txt = tune_set_text(&t, t.best), *id = tune_set_id(&t, t.best), *id0 = tune_set_id(&t, 0);
		assert_string_equal(txt, "-O3 -march=native");
		assert_true(id[0] == 's' && strlen(id) == 13);
		assert_string_equal(id0, "stock");
		free(txt);
		free(id);
		free(id0);
	}
	tune_engine_release(&t);
}

/* Nothing pays off: the best is stock, whatever the start. */
static void test_nothing_helps(void **state)
{
	static const double g[] = { 0.99, 1.0, 0.98, 1.0 };
	struct tune_engine t;
	struct synth s;
	synth_init(&s, F4, g);
	engine_setup(&t, &defaults, F4, 4, &s);
	assert_int_equal(tune_engine_run(&t), 0);
	assert_true(t.best == 0);
	tune_engine_release(&t);

	/* starting from stock: re-add only */
	{
		struct tune_params p = defaults;
		p.start_stock = 1;
		synth_init(&s, F4, G4);
		engine_setup(&t, &p, F4, 4, &s);
		assert_int_equal(tune_engine_run(&t), 0);
		/* greedy: -O3 added, then -march=native on top */
		assert_true(t.best == set_of(&t, "-O3,-march=native"));
		assert_true(s.cand[0] == set_of(&t, "-O3") && s.ref[0] == 0);
		tune_engine_release(&t);
	}
}

/* The best set of a noiseless search over two flags (f, gains g) under p,
 * as set_of() would name it: 1 when it is expect ("" for stock). */
static int noiseless_best_is(const struct tune_params *p, const char *const *f,
			     const double *g, const char *expect)
{
	struct tune_engine t;
	struct synth s;
	int same;

	synth_init(&s, f, g);
	s.noise = 0;
	engine_setup(&t, p, f, 2, &s);
	assert_int_equal(tune_engine_run(&t), 0);
	same = t.best == (*expect ? set_of(&t, expect) : 0);
	tune_engine_release(&t);
	return same;
}

/*
 * A deterministic metric (lo = hi = ratio) at a resolution: a flag worth
 * 0.8% is kept, and re-added, at none, and neither once the resolution
 * (3 layout SDs) covers it.
 */
static void test_resolution(void **state)
{
	static const char *const f[] = { "-O3", "-fno-plt" };
	static const double g[] = { 1.008, 1.0 };
	struct tune_params p = defaults;
	(void)state;

	p.readd = 0;
	/* dropping -O3: 1/1.008 = 0.9921, below 1 - 0.5%: it hurts, -O3 stays */
	assert_true(noiseless_best_is(&p, f, g, "-O3"));

	/* 0.9921 + 0.54% = 0.9975: inside the resolution, the drop is taken */
	p.resolution = 0.0054;
	assert_true(noiseless_best_is(&p, f, g, ""));

	/* re-add from stock: 1.008 helps at no resolution, not at 0.9% */
	p = defaults;
	p.start_stock = 1;
	assert_true(noiseless_best_is(&p, f, g, "-O3"));
	p.resolution = 0.009;
	assert_true(noiseless_best_is(&p, f, g, ""));
}

/*
 * No resolution (NAN: a deterministic metric without a layout floor, as
 * cmd/tune.c refuses to run): the engine refuses too, before evaluating
 * anything; the old engine searched on, every rule comparing with NAN
 * false, so a drop of a flag worth 0.8% was taken.
 */
static void test_no_floor_refused(void **state)
{
	static const char *const f[] = { "-O3", "-fno-plt" };
	static const double g[] = { 1.008, 1.0 };
	struct tune_params p = defaults;
	struct tune_engine t;
	struct synth s;
	(void)state;

	p.resolution = NAN;
	synth_init(&s, f, g);
	s.noise = 0;
	engine_setup(&t, &p, f, 2, &s);
	assert_int_equal(tune_engine_run(&t), -1);
	assert_int_equal(s.calls, 0);
	assert_int_equal(t.nr_records, 0);
	assert_true(t.best == 0);
	assert_string_equal(t.stop_reason, "no resolution to decide at (no layout floor)");
	tune_engine_release(&t);
}

/* A flag that crashes the compiler: the failing sets are remembered, never
 * retried, and no set containing one is ever tried. */
static void test_crash_remembered(void **state)
{
	static const char *const f[] = { "-O3", "-fcrash", "-fregress", "-march=native" };
	static const double g[] = { 1.05, 1.10, 1.10, 1.03 };
	struct tune_engine t;
	struct synth s;
	synth_init(&s, f, g);
	s.crash = 1 << 1;
	s.regress = 1 << 2;
	engine_setup(&t, &defaults, f, 4, &s);
	assert_int_equal(tune_engine_run(&t), 0);
	assert_true(t.best == set_of(&t, "-O3,-march=native"));

	/* no failed set evaluated twice, no superset of a failed set evaluated */
	for (int i = 0; i < s.calls; i++) {
		int fi = (s.cand[i] & (s.crash | s.regress)) != 0;
		for (int j = 0; j < i && fi; j++) {
			int fj = (s.cand[j] & (s.crash | s.regress)) != 0;
			assert_false(fj && (s.cand[i] & s.cand[j]) == s.cand[j]);
		}
	}
	/* the failures are in the steps */
	{
		int failed = 0, skipped = 0;
		for (size_t i = 0; i < t.nr_steps; i++) {
			failed += t.steps[i].verdict == TV_FAILED;
			skipped += t.steps[i].verdict == TV_SKIPPED;
		}
		assert_true(failed >= 2);
		(void)skipped;
	}
	tune_engine_release(&t);
}

/* The full set crashes: the search starts from stock and adds flags. */
static void test_start_crashes(void **state)
{
	struct tune_engine t;
	struct synth s;
	synth_init(&s, F4, G4);
	s.crash = 1 << 2;   /* -fslow crashes */
	engine_setup(&t, &defaults, F4, 4, &s);
	assert_int_equal(tune_engine_run(&t), 0);
	assert_true(s.cand[0] == 0xf && s.ref[0] == 0);
	assert_int_equal(t.steps[0].verdict, TV_FAILED);
	assert_true(t.best == set_of(&t, "-O3,-march=native"));
	/* -fslow tried alone once at most, never again */
	{
		int n = 0;
		for (int i = 1; i < s.calls; i++)
			n += (s.cand[i] & (1 << 2)) != 0;
		assert_true(n <= 1);
	}
	tune_engine_release(&t);
}

static void test_max_builds(void **state)
{
	struct tune_params p = defaults;
	struct tune_engine t;
	struct synth s;
	p.max_builds = 3;
	synth_init(&s, F4, G4);
	engine_setup(&t, &p, F4, 4, &s);
	assert_int_equal(tune_engine_run(&t), 0);
	assert_string_equal(t.stop_reason, "max-builds reached");
	assert_int_equal(s.nr_built, 3);
	assert_int_equal(t.builds, 3);
	/* the best so far: start {all}, drop -O3 kept, drop -fno-plt dropped */
	assert_true(t.best == set_of(&t, "-O3,-fslow,-march=native"));
	/* ... still measured against stock: that needs no build */
	assert_true(t.final_record >= 0);
	assert_true(s.cand[s.calls - 1] == t.best && s.ref[s.calls - 1] == 0);
	assert_true(fabs(t.records[t.final_record].e.ratio - 1.05 * 0.97 * 1.03) < 1e-9);
	tune_engine_release(&t);
}

static void test_time_budget(void **state)
{
	struct tune_params p = defaults;
	struct tune_engine t;
	struct synth s;
	p.time_budget = 250;  /* evaluations take 60 s: 5 fit (the 5th starts at 240) */
	synth_init(&s, F4, G4);
	engine_setup(&t, &p, F4, 4, &s);
	assert_int_equal(tune_engine_run(&t), 0);
	assert_string_equal(t.stop_reason, "time budget spent");
	assert_int_equal(s.calls, 5);
	assert_true(t.seconds >= 250 && t.seconds < 250 + 60);
	tune_engine_release(&t);
}

/* Kill after k evaluations (the evaluator aborts), then resume from the state
 * file: the same best, no evaluation done twice, the same total count as an
 * uninterrupted search. */
static void test_resume(void **state)
{
	char path[] = "/tmp/test-tune-engine-state.XXXXXX";
	struct tune_engine t;
	struct synth s, s2, ref;
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);

	/* the uninterrupted search, for reference */
	synth_init(&ref, F4, G4);
	engine_setup(&t, &defaults, F4, 4, &ref);
	assert_int_equal(tune_engine_run(&t), 0);
	tune_engine_release(&t);

	for (int k = 0; k <= ref.calls; k++) {
		synth_init(&s, F4, G4);
		s.abort_after = k;
		engine_setup(&t, &defaults, F4, 4, &s);
		t.state_path = xstrdup(path);
		assert_int_equal(tune_engine_run(&t), k < ref.calls ? -1 : 0);
		tune_engine_release(&t);

		synth_init(&s2, F4, G4);
		/* the installs of the first run are still on disk */
		memcpy(s2.built_list, s.built_list, sizeof(s.built_list));
		s2.nr_built = s.nr_built;
		engine_setup(&t, &defaults, F4, 4, &s2);
		t.state_path = xstrdup(path);
		{
			struct strbuf err = STRBUF_INIT;
			assert_int_equal(tune_state_load(&t, path, &err), 0);
			strbuf_release(&err);
		}
		assert_int_equal((int)t.nr_records, k);
		assert_int_equal(tune_engine_run(&t), 0);
		assert_true(t.best == set_of(&t, "-O3,-march=native"));
		assert_int_equal(s.calls + s2.calls, ref.calls);
		assert_int_equal(t.new_evaluations, ref.calls - k);
		/* nothing evaluated in the first run is evaluated again */
		for (int i = 0; i < s2.calls; i++)
			for (int j = 0; j < s.calls; j++)
				assert_false(s2.cand[i] == s.cand[j] && s2.ref[i] == s.ref[j]);
		/* steps answered from the state are marked cached */
		{
			int cached = 0;
			for (size_t i = 0; i < t.nr_steps; i++)
				cached += t.steps[i].cached;
			assert_true(cached >= (k ? 1 : 0));
		}
		assert_int_equal(t.builds, ref.nr_built);
		tune_engine_release(&t);
		unlink(path);
	}
}

/* A state file of another tune is refused; unmeasured evaluations are retried. */
static void test_state_key_and_unmeasured(void **state)
{
	char path[] = "/tmp/test-tune-engine-state.XXXXXX";
	struct tune_engine t;
	struct synth s;
	struct strbuf err = STRBUF_INIT;
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);

	synth_init(&s, F4, G4);
	s.unmeasured_once = 1;
	engine_setup(&t, &defaults, F4, 4, &s);
	t.state_path = xstrdup(path);
	assert_int_equal(tune_engine_run(&t), 0);
	assert_string_equal(t.stop_reason, "start set could not be measured");
	assert_true(t.best == 0);
	tune_engine_release(&t);

	/* retried on the next run */
	synth_init(&s, F4, G4);
	engine_setup(&t, &defaults, F4, 4, &s);
	assert_int_equal(tune_state_load(&t, path, &err), 0);
	assert_int_equal(tune_engine_run(&t), 0);
	assert_true(s.calls > 0 && s.cand[0] == 0xf);
	assert_true(t.best == set_of(&t, "-O3,-march=native"));
	tune_engine_release(&t);

	/* an estimate without an interval (tps with too few pairs) decides
	 * nothing: unmeasured, where it was taken as a point and the best
	 * chosen on it */
	synth_init(&s, F4, G4);
	s.no_interval = 1;
	engine_setup(&t, &defaults, F4, 4, &s);
	assert_int_equal(tune_engine_run(&t), 0);
	assert_string_equal(t.stop_reason, "start set could not be measured");
	assert_true(t.best == 0);
	tune_engine_release(&t);

	/* another key */
	synth_init(&s, F4, G4);
	engine_setup(&t, &defaults, F4, 4, &s);
	free(t.key);
	t.key = xstrdup("another");
	assert_int_equal(tune_state_load(&t, path, &err), -1);
	assert_non_null(strstr(err.buf, "belongs to another tune"));
	tune_engine_release(&t);
	strbuf_release(&err);
	unlink(path);
}

static void test_flags(void **state)
{
	struct tune_engine t;
	tune_engine_init(&t, &defaults);
	assert_int_equal(tune_engine_add_flag(&t, "-O3"), 0);
	assert_int_equal(tune_engine_add_flag(&t, "-O3"), -1);
	for (int i = 1; i < TUNE_MAX_FLAGS; i++) {
		char buf[32];
		snprintf(buf, sizeof(buf), "-f%d", i);
		assert_int_equal(tune_engine_add_flag(&t, buf), i);
	}
	assert_int_equal(tune_engine_add_flag(&t, "-fone-too-many"), -1);
	assert_int_equal(tune_set_count(~(tune_set)0), 64);
	tune_engine_release(&t);
}

/* The held-out verdict: the gate's one rule with the claim 1 (its relative
 * interval), both ways, at the edge, for an exact ratio (lo = hi) and for
 * an interval; undecided without a layout floor. */
static void test_held_verdict(void **state)
{
	struct tune_eval e = { .outcome = TUNE_OK };
	(void)state;
	e.ratio = e.lo = e.hi = 1.03;
	assert_string_equal(tuner_held_verdict(&e, 0.022), "faster");
	assert_string_equal(tuner_held_verdict(&e, 0.03), "not significant"); /* 1.03 - 0.03 = 1 */
	assert_string_equal(tuner_held_verdict(&e, 0.031), "not significant");
	/* the gate's interval is relative: 1.0302 x (1 - 0.03) < 1, so not
	 * faster (ratio - resolution called it faster) */
	e.ratio = e.lo = e.hi = 1.0302;
	assert_string_equal(tuner_held_verdict(&e, 0.03), "not significant");
	/* no layout floor (NAN): undecided, however large the ratio */
	e.ratio = e.lo = e.hi = 1.5;
	assert_string_equal(tuner_held_verdict(&e, NAN), "undecided");
	e.ratio = e.lo = e.hi = 0.97;
	assert_string_equal(tuner_held_verdict(&e, 0.022), "slower");
	assert_string_equal(tuner_held_verdict(&e, 0.03), "slower"); /* 0.97 x 1.03 < 1 */
	assert_string_equal(tuner_held_verdict(&e, 0.031), "not significant");
	/* tps: the interval decides (resolution 0) */
	e.ratio = 1.10; e.lo = 1.01; e.hi = 1.20;
	assert_string_equal(tuner_held_verdict(&e, 0), "faster");
	e.lo = 0.99;
	assert_string_equal(tuner_held_verdict(&e, 0), "not significant");
	e.ratio = 0.9; e.lo = 0.8; e.hi = 0.99;
	assert_string_equal(tuner_held_verdict(&e, 0), "slower");
	e.outcome = TUNE_UNMEASURED;
	assert_string_equal(tuner_held_verdict(&e, 0), "unmeasured");
	e.outcome = TUNE_OK;
	e.ratio = NAN;
	assert_string_equal(tuner_held_verdict(&e, 0), "unmeasured");
}

/* The held-out workloads together: slower wins, then unmeasured, then
 * undecided, then not significant; faster only when every one is. */
static void test_held_overall(void **state)
{
	struct tune_held h[3] = {
		{ .workload = "mixed", .verdict = "faster" },
		{ .workload = "select1", .verdict = "faster" },
		{ .workload = "tpcb", .verdict = "faster" },
	};
	(void)state;
	assert_string_equal(tuner_held_overall(h, 0), "not judged");
	assert_string_equal(tuner_held_overall(h, 3), "faster");
	h[1].verdict = "not significant";
	assert_string_equal(tuner_held_overall(h, 3), "not significant");
	assert_string_equal(tuner_held_overall(h, 1), "faster");
	h[2].verdict = "undecided";
	assert_string_equal(tuner_held_overall(h, 3), "undecided");
	assert_string_equal(tuner_held_overall(h + 2, 1), "undecided");
	h[2].verdict = "unmeasured";
	assert_string_equal(tuner_held_overall(h, 3), "unmeasured");
	h[0].verdict = "slower";
	assert_string_equal(tuner_held_overall(h, 3), "slower");
	assert_string_equal(tuner_held_overall(h, 1), "slower");
}

/* The document written at path, its one figure of the clock
 * ("wall_seconds") blanked; to free. */
static char *document(const char *path)
{
	struct strbuf sb = STRBUF_INIT, out = STRBUF_INIT;
	const char *key = "\"wall_seconds\":", *at;

	assert_true(sfs_read(AT_FDCWD, path, SFS_IN_JSON, 0, &sb, NULL) > 0);
	at = strstr(sb.buf, key);
	if (!at)
		return strbuf_detach(&sb, NULL);
	at += strlen(key);
	strbuf_add(&out, sb.buf, (size_t)(at - sb.buf));
	strbuf_addf(&out, "0%s", at + strcspn(at, ",}"));
	strbuf_release(&sb);
	return strbuf_detach(&out, NULL);
}

/* Does the document written at path read as the fixture name? */
static void document_is(const char *path, const char *name)
{
	char *got = document(path), *want = fixture(name);

	assert_string_equal(got, want);
	free(got);
	free(want);
}

/*
 * tuner_write_json and tuner_write_plan_json on finished synthetic
 * searches, byte for byte as recorded in tests/unit/data: tune-best.json
 * and tune-plan.json (a flag that fails to build, one refused, two
 * held-out workloads, one unmeasured), tune-best-stock.json (on a bundle,
 * no flag pays off, no resolution, nothing held out).
 */
static void test_json_documents(void **state)
{
	static const double none[] = { 0.99, 1.0, 0.98, 1.0 };
	struct tuner tu;
	struct tune_params p, q = defaults;
	struct synth s;
	char *dir = scratch_dir_make("pgopt-tune-json"), *best, *plan;
	(void)state;

	assert_non_null(dir);
	best = xasprintf("%s/best.json", dir);
	plan = xasprintf("%s/plan.json", dir);
	tuner_init(&tu, &p);
	synth_init(&s, F4, G4);
	s.crash = (tune_set)1 << 2;
	q.resolution = 0.003;
	engine_setup(&tu.t, &q, F4, 4, &s);
	assert_int_equal(tune_engine_run(&tu.t), 0);
	tu.workdir = xstrdup("/w");
	tu.o.resolution_source = xstrdup("layout floor: unit");
	tu.o.noise_note = xstrdup("stock's floor, 5 variants");
	tu.o.candidates = "candidates.txt";
	strvec_push(&tu.refused, "-ffast-math: it changes PostgreSQL's arithmetic");
	strvec_push(&tu.o.held_out, "select-only");
	strvec_push(&tu.o.held_out, "mixed");
	tu.held = xcalloc(2, sizeof(*tu.held));
	tu.nr_held = 2;
	tu.held[0] = (struct tune_held){ "select-only", 0.003,
					 { .outcome = TUNE_OK, .ratio = 1.05, .lo = 1.04, .hi = 1.06,
					   .seconds = 30 }, "faster" };
	tu.held[1] = (struct tune_held){ "mixed", NAN,
					 { .outcome = TUNE_UNMEASURED, .ratio = NAN, .lo = NAN,
					   .hi = NAN, .note = xstrdup("no server CPU") }, "unmeasured" };
	assert_int_equal(tuner_write_json(&tu, best, "/w/best.policy"), 0);
	document_is(best, "tune-best.json");
	assert_int_equal(tuner_write_plan_json(&tu, plan, "[global]\ncflags += -O3\n"), 0);
	document_is(plan, "tune-plan.json");
	tuner_release(&tu);

	tuner_init(&tu, &p);
	synth_init(&s, F4, none);
	engine_setup(&tu.t, &defaults, F4, 4, &s);
	assert_int_equal(tune_engine_run(&tu.t), 0);
	assert_true(tu.t.best == 0);
	tu.workdir = xstrdup("/w");
	tu.o.metric = "tps";
	tu.o.bundle = xstrdup("/b/bundle");
	assert_int_equal(tuner_write_json(&tu, best, NULL), 0);
	document_is(best, "tune-best-stock.json");
	tuner_release(&tu);
	free(best);
	free(plan);
	assert_int_equal(scratch_dir_remove(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_best),
		cmocka_unit_test(test_nothing_helps),
		cmocka_unit_test(test_resolution),
		cmocka_unit_test(test_no_floor_refused),
		cmocka_unit_test(test_crash_remembered),
		cmocka_unit_test(test_start_crashes),
		cmocka_unit_test(test_max_builds),
		cmocka_unit_test(test_time_budget),
		cmocka_unit_test(test_resume),
		cmocka_unit_test(test_state_key_and_unmeasured),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_held_verdict),
		cmocka_unit_test(test_held_overall),
		cmocka_unit_test(test_json_documents),
	};
	return cmocka_run_group_tests_name("tune", tests, NULL, NULL);
}
