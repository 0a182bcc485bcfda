/*
 * engine.c - elimination search over flag sets; see engine.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wrapper/common/fdio.h"
#include "wrapper/common/error.h"
#include "wrapper/common/json.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/textfile.h"
#include "pgbuild/tune/engine.h"
#include "wrapper/common/xalloc.h"

/* ---------------- names ---------------- */

static const char *const phase_names[] = { "start", "drop", "add", "final" };
static const char *const outcome_names[] = {
	"ok", "build-failed", "regress-failed", "unmeasured"
};
static const char *const verdict_names[] = {
	"start", "dropped", "kept", "added", "rejected", "failed", "skipped",
	"unmeasured", "final", "stock-better"
};

const char *tune_phase_name(enum tune_phase p) { return phase_names[p]; }
const char *tune_outcome_name(enum tune_outcome o) { return outcome_names[o]; }
const char *tune_verdict_name(enum tune_verdict v) { return verdict_names[v]; }

static int name_index(const char *const *names, size_t n, const char *s)
{
	for (size_t i = 0; s && i < n; i++)
		if (!strcmp(names[i], s))
			return (int)i;
	return -1;
}

/* ---------------- sets ---------------- */

int tune_set_count(tune_set s)
{
	return __builtin_popcountll(s);
}

char *tune_set_text(const struct tune_engine *t, tune_set s)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < t->flags.nr; i++)
		if (s & ((tune_set)1 << i))
			strbuf_addf(&sb, "%s%s", sb.len ? " " : "", t->flags.v[i]);
	return strbuf_detach(&sb, NULL);
}

/* FNV-1a over the flags' text: the name survives reordering the list. */
char *tune_set_id(const struct tune_engine *t, tune_set s)
{
	uint64_t h = 1469598103934665603ULL;
	char *text;
	if (!s)
		return xstrdup("stock");
	text = tune_set_text(t, s);
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		h ^= *p;
		h *= 1099511628211ULL;
	}
	free(text);
	return xasprintf("s%012llx", (unsigned long long)(h & 0xffffffffffffULL));
}

static tune_set full_set(const struct tune_engine *t)
{
	return t->flags.nr >= 64 ? ~(tune_set)0 : (((tune_set)1 << t->flags.nr) - 1);
}

/* ---------------- life cycle ---------------- */

void tune_engine_init(struct tune_engine *t, const struct tune_params *p)
{
	memset(t, 0, sizeof(*t));
	strvec_init(&t->flags);
	t->p = *p;
	t->final_record = -1;
	t->stop_reason = "not run";
}

static void eval_release(struct tune_eval *e)
{
	free(e->note);
	e->note = NULL;
}

void tune_engine_release(struct tune_engine *t)
{
	for (size_t i = 0; i < t->nr_records; i++) {
		eval_release(&t->records[i].e);
		free(t->records[i].time);
	}
	free(t->records);
	free(t->steps);
	free(t->key);
	free(t->state_path);
	strvec_clear(&t->flags);
	memset(t, 0, sizeof(*t));
}

int tune_engine_add_flag(struct tune_engine *t, const char *flag)
{
	if (t->flags.nr >= TUNE_MAX_FLAGS || strvec_find(&t->flags, flag) >= 0)
		return -1;
	strvec_push(&t->flags, flag);
	return (int)t->flags.nr - 1;
}

/* ---------------- records and steps ---------------- */

static char *iso_now(void)
{
	char buf[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return xstrdup(buf);
}

static long add_record(struct tune_engine *t, enum tune_phase phase, tune_set cand,
		       tune_set ref, const struct tune_eval *e, char *time, int loaded)
{
	struct tune_record *r;
	if (t->nr_records == t->alloc_records) {
		t->alloc_records = t->alloc_records ? 2 * t->alloc_records : 16;
		t->records = xrealloc(t->records, t->alloc_records * sizeof(*t->records));
	}
	r = &t->records[t->nr_records];
	r->phase = phase;
	r->cand = cand;
	r->ref = ref;
	r->e = *e;
	r->time = time;
	r->loaded = loaded;
	t->builds += e->builds;
	if (isfinite(e->seconds))
		t->seconds += e->seconds;
	return (long)t->nr_records++;
}

static void add_step(struct tune_engine *t, enum tune_phase phase, tune_set cand, tune_set ref,
		     int flag, long record, int cached, enum tune_verdict v)
{
	struct tune_step *s;
	if (t->nr_steps == t->alloc_steps) {
		t->alloc_steps = t->alloc_steps ? 2 * t->alloc_steps : 16;
		t->steps = xrealloc(t->steps, t->alloc_steps * sizeof(*t->steps));
	}
	s = &t->steps[t->nr_steps++];
	s->phase = phase;
	s->cand = cand;
	s->ref = ref;
	s->flag = flag;
	s->record = record;
	s->cached = cached;
	s->verdict = v;
}

/* A memoised answer for (cand, ref), or -1. */
static long find_record(const struct tune_engine *t, tune_set cand, tune_set ref)
{
	for (size_t i = 0; i < t->nr_records; i++) {
		const struct tune_record *r = &t->records[i];
		if (r->cand == cand && r->ref == ref && r->e.outcome != TUNE_UNMEASURED)
			return (long)i;
	}
	return -1;
}

static int failed_outcome(enum tune_outcome o)
{
	return o == TUNE_BUILD_FAILED || o == TUNE_REGRESS_FAILED;
}

/* Does s contain a set that failed (or is it one)? */
static int contains_failed(const struct tune_engine *t, tune_set s)
{
	for (size_t i = 0; i < t->nr_records; i++) {
		const struct tune_record *r = &t->records[i];
		if (failed_outcome(r->e.outcome) && (s & r->cand) == r->cand)
			return 1;
	}
	return 0;
}

/* Has s been built already (any record with s as a candidate that got past
 * the build, or stock which the evaluator provides)? */
static int is_built(const struct tune_engine *t, tune_set s)
{
	for (size_t i = 0; i < t->nr_records; i++) {
		const struct tune_record *r = &t->records[i];
		if ((r->cand == s && r->e.outcome != TUNE_BUILD_FAILED) || r->ref == s)
			return 1;
	}
	return 0;
}

enum { EV_OK = 0, EV_BUDGET = 1, EV_ABORT = -1 };

/*
 * The answer for (cand, ref): from a record, or by calling the evaluator
 * when the budget allows.  *rec gets the record index.
 */
static int evaluate(struct tune_engine *t, enum tune_phase phase, tune_set cand, tune_set ref,
		    long *rec, int *cached)
{
	struct tune_eval e;
	long i = find_record(t, cand, ref);
	*cached = 0;
	if (i >= 0) {
		*rec = i;
		*cached = t->records[i].loaded;
		return EV_OK;
	}
	if (cand && !is_built(t, cand)) {
		if (t->p.max_builds > 0 && t->builds >= t->p.max_builds) {
			t->stop_reason = "max-builds reached";
			return EV_BUDGET;
		}
	}
	if (t->p.time_budget > 0 && t->seconds >= t->p.time_budget) {
		t->stop_reason = "time budget spent";
		return EV_BUDGET;
	}
	memset(&e, 0, sizeof(e));
	e.ratio = e.lo = e.hi = NAN;
	if (t->evaluate(t, cand, ref, &e, t->ctx) < 0) {
		eval_release(&e);
		t->stop_reason = "evaluation error";
		return EV_ABORT;
	}
	/* no estimate, or no interval (a deterministic metric's interval is its
	 * one figure, lo = hi = ratio): unmeasured, never decided on a point */
	if (e.outcome == TUNE_OK && !(isfinite(e.ratio) && isfinite(e.lo) && isfinite(e.hi)))
		e.outcome = TUNE_UNMEASURED;
	t->new_evaluations++;
	*rec = add_record(t, phase, cand, ref, &e, iso_now(), 0);
	if (t->state_path && tune_state_save(t, t->state_path) < 0) {
		t->stop_reason = "state not saved";
		return EV_ABORT;
	}
	return EV_OK;
}

/* The rules on the interval, widened by the resolution of a deterministic
 * metric (p.resolution, 0 for tps). */
static int hurts(const struct tune_engine *t, const struct tune_eval *e)
{
	/* the gate's relative interval (gate/expr.c decide_point) */
	return e->hi * (1 + t->p.resolution) < 1.0 - t->p.tolerance;
}

static int helps(const struct tune_engine *t, const struct tune_eval *e)
{
	return e->lo * (1 - t->p.resolution) > 1.0 && e->ratio >= 1.0 + t->p.min_gain;
}

static enum tune_verdict failure_verdict(const struct tune_eval *e)
{
	return failed_outcome(e->outcome) ? TV_FAILED : TV_UNMEASURED;
}

/*
 * One step of elimination (TUNE_DROP: cand is best without flag) or re-add
 * (TUNE_ADD: best with flag): skip a set that contains a failed one, else
 * evaluate cand against best and record the verdict.  *taken is 1 when
 * cand becomes the new best: a drop that does not hurt, an add that helps.
 * Returns what evaluate() returned (EV_OK for a skipped set).
 */
static int try_flag(struct tune_engine *t, enum tune_phase phase, tune_set cand,
		    tune_set best, int flag, int *taken)
{
	const struct tune_eval *e;
	long rec;
	int cached, rc;

	*taken = 0;
	if (contains_failed(t, cand)) {
		add_step(t, phase, cand, best, flag, -1, 0, TV_SKIPPED);
		return EV_OK;
	}
	rc = evaluate(t, phase, cand, best, &rec, &cached);
	if (rc != EV_OK)
		return rc;
	e = &t->records[rec].e;
	if (e->outcome != TUNE_OK) {
		add_step(t, phase, cand, best, flag, rec, cached, failure_verdict(e));
		return EV_OK;
	}
	if (phase == TUNE_DROP) {
		*taken = !hurts(t, e);
		add_step(t, phase, cand, best, flag, rec, cached, *taken ? TV_DROPPED : TV_KEPT);
	} else {
		*taken = helps(t, e);
		add_step(t, phase, cand, best, flag, rec, cached, *taken ? TV_ADDED : TV_REJECTED);
	}
	return EV_OK;
}

/* ---------------- the search ---------------- */

int tune_engine_run(struct tune_engine *t)
{
	tune_set best, start;
	long rec;
	int cached, rc, changed, taken;

	t->nr_steps = 0;
	t->final_record = -1;
	t->stop_reason = "converged";
	if (isnan(t->p.resolution)) {
		/* a deterministic metric without a layout floor: nothing is
		 * decided at the repeat resolution unasked (cmd/tune.c refuses
		 * first; this is the engine's own guard) */
		t->best = 0;
		t->stop_reason = "no resolution to decide at (no layout floor)";
		return -1;
	}
	if (!t->flags.nr) {
		t->best = 0;
		t->stop_reason = "no candidates";
		return 0;
	}

	/* 1. start */
	start = t->p.start_stock ? 0 : full_set(t);
	best = 0;
	if (start) {
		if (find_record(t, start, 0) < 0 && contains_failed(t, start)) {
			add_step(t, TUNE_START, start, 0, -1, -1, 0, TV_SKIPPED);
		} else {
			const struct tune_eval *e;
			rc = evaluate(t, TUNE_START, start, 0, &rec, &cached);
			if (rc != EV_OK)
				goto out;
			e = &t->records[rec].e;
			if (e->outcome == TUNE_OK) {
				best = start;
				add_step(t, TUNE_START, start, 0, -1, rec, cached, TV_START);
			} else {
				add_step(t, TUNE_START, start, 0, -1, rec, cached, failure_verdict(e));
				if (e->outcome == TUNE_UNMEASURED) {
					t->stop_reason = "start set could not be measured";
					goto out;
				}
			}
		}
	}

	/* 2. elimination, pass after pass until nothing is dropped */
	do {
		changed = 0;
		for (size_t i = 0; i < t->flags.nr; i++) {
			tune_set bit = (tune_set)1 << i;
			if (!(best & bit))
				continue;
			rc = try_flag(t, TUNE_DROP, best & ~bit, best, (int)i, &taken);
			if (rc == EV_BUDGET)
				goto final;
			if (rc != EV_OK)
				goto out;
			if (taken) {
				best &= ~bit;
				changed = 1;
			}
		}
	} while (changed);

	/* 3. greedy re-add */
	if (t->p.readd) {
		for (size_t i = 0; i < t->flags.nr; i++) {
			tune_set bit = (tune_set)1 << i;
			if (best & bit)
				continue;
			rc = try_flag(t, TUNE_ADD, best | bit, best, (int)i, &taken);
			if (rc == EV_BUDGET)
				goto final;
			if (rc != EV_OK)
				goto out;
			if (taken)
				best |= bit;
		}
	}

	/* 4. the best against stock (on a budget stop too: both are built,
	 * so only the time budget can refuse it) */
final:
	if (best) {
		const struct tune_eval *e;
		rc = evaluate(t, TUNE_FINAL, best, 0, &rec, &cached);
		if (rc != EV_OK)
			goto out;
		e = &t->records[rec].e;
		t->final_record = rec;
		if (e->outcome == TUNE_OK && hurts(t, e)) {
			add_step(t, TUNE_FINAL, best, 0, -1, rec, cached, TV_STOCK_BETTER);
			best = 0;
		} else {
			add_step(t, TUNE_FINAL, best, 0, -1, rec, cached,
				 e->outcome == TUNE_OK ? TV_FINAL : failure_verdict(e));
		}
	}
	rc = EV_OK;
out:
	/* on a budget stop the best so far stands (every step to it was judged) */
	t->best = best;
	return rc == EV_ABORT ? -1 : 0;
}

/* ---------------- state file ---------------- */

static void set_json(const struct tune_engine *t, tune_set s, struct json_writer *jw)
{
	json_array_begin(jw);
	for (size_t i = 0; i < t->flags.nr; i++)
		if (s & ((tune_set)1 << i))
			json_string(jw, t->flags.v[i]);
	json_array_end(jw);
}

void tune_record_json(const struct tune_engine *t, const struct tune_record *r,
		      struct json_writer *jw)
{
	json_object_begin(jw);
	json_key(jw, "kind"); json_string(jw, "eval");
	json_key(jw, "phase"); json_string(jw, tune_phase_name(r->phase));
	json_key(jw, "cand"); set_json(t, r->cand, jw);
	json_key(jw, "ref"); set_json(t, r->ref, jw);
	json_key(jw, "outcome"); json_string(jw, tune_outcome_name(r->e.outcome));
	json_key(jw, "ratio"); json_double(jw, r->e.ratio);
	json_key(jw, "ci_low"); json_double(jw, r->e.lo);
	json_key(jw, "ci_high"); json_double(jw, r->e.hi);
	json_key(jw, "builds"); json_int(jw, r->e.builds);
	json_key(jw, "build_seconds"); json_double(jw, r->e.build_seconds);
	json_key(jw, "seconds"); json_double(jw, r->e.seconds);
	json_key(jw, "note"); json_string(jw, r->e.note);
	json_key(jw, "time"); json_string(jw, r->time);
	json_object_end(jw);
}

int tune_state_save(const struct tune_engine *t, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_writer jw;
	int rc;

	json_writer_init(&jw, &sb);
	json_object_begin(&jw);
	json_key(&jw, "kind"); json_string(&jw, "pgbuild-tune-state");
	json_key(&jw, "version"); json_int(&jw, 1);
	json_key(&jw, "key"); json_string(&jw, t->key ? t->key : "");
	json_key(&jw, "candidates");
	json_strvec(&jw, &t->flags);
	json_object_end(&jw);
	strbuf_addch(&sb, '\n');
	for (size_t i = 0; i < t->nr_records; i++) {
		json_writer_init(&jw, &sb);
		tune_record_json(t, &t->records[i], &jw);
		strbuf_addch(&sb, '\n');
	}

	rc = write_file_atomic(path, sb.buf, sb.len);
	strbuf_release(&sb);
	return rc;
}

/* A JSON array of flag strings -> set; -1 when a flag is not a candidate. */
static int json_set(const struct tune_engine *t, const struct json_value *v, tune_set *out)
{
	*out = 0;
	if (!v || v->type != JSON_ARRAY)
		return -1;
	for (size_t i = 0; i < json_len(v); i++) {
		const struct json_value *f = json_at(v, i);
		long k;
		if (!f || f->type != JSON_STRING || (k = strvec_find(&t->flags, f->u.str.s)) < 0)
			return -1;
		*out |= (tune_set)1 << k;
	}
	return 0;
}

static double json_num_or_nan(const struct json_value *o, const char *key)
{
	const struct json_value *v = json_get(o, key);
	return v && v->type == JSON_NUMBER ? v->u.number : NAN;
}

int tune_state_load(struct tune_engine *t, const char *path, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT, line = STRBUF_INIT;
	size_t pos = 0, n, mark = err->len;
	int lineno = 0, rc = -1;

	if (sfs_read(AT_FDCWD, path, SFS_IN_JSON, 0, &text, err) < 0) {
		strbuf_release(&text);
		if (errno != ENOENT)
			return -1;
		strbuf_setlen(err, mark);  /* no state yet */
		return 0;
	}
	for (const char *l; (l = text_next_line(text.buf, text.len, &pos, &n)); ) {
		struct json_value *v;
		const char *kind;
		strbuf_reset(&line);
		strbuf_add(&line, l, n);
		lineno++;
		if (!line.len)
			continue;
		v = json_parse(line.buf, line.len, NULL);
		kind = json_get_str(v, "kind");
		if (!v || !kind) {
			/* a torn last line cannot happen (rename), but a hand edit can */
			strbuf_addf(err, "%s:%d: not a tune state record", path, lineno);
			json_free(v);
			goto out;
		}
		if (!strcmp(kind, "pgbuild-tune-state")) {
			const char *key = json_get_str(v, "key");
			if (strcmp(key ? key : "", t->key ? t->key : "")) {
				strbuf_addf(err, "%s belongs to another tune (%s); use another --state "
					    "or delete it", path, key ? key : "no key");
				json_free(v);
				goto out;
			}
		} else if (!strcmp(kind, "eval")) {
			struct tune_eval e;
			tune_set cand, ref;
			int phase = name_index(phase_names, 4, json_get_str(v, "phase"));
			int outcome = name_index(outcome_names, 4, json_get_str(v, "outcome"));
			const char *note = json_get_str(v, "note");
			const char *time = json_get_str(v, "time");
			if (json_set(t, json_get(v, "cand"), &cand) < 0 ||
			    json_set(t, json_get(v, "ref"), &ref) < 0 || phase < 0 || outcome < 0) {
				/* a flag no longer in the candidates: that record is moot */
				json_free(v);
				continue;
			}
			memset(&e, 0, sizeof(e));
			e.outcome = outcome;
			e.ratio = json_num_or_nan(v, "ratio");
			e.lo = json_num_or_nan(v, "ci_low");
			e.hi = json_num_or_nan(v, "ci_high");
			e.builds = (int)json_get_num(v, "builds", 0);
			e.build_seconds = json_num_or_nan(v, "build_seconds");
			e.seconds = json_num_or_nan(v, "seconds");
			e.note = note ? xstrdup(note) : NULL;
			add_record(t, phase, cand, ref, &e, xstrdup(time ? time : ""), 1);
		}
		json_free(v);
	}
	rc = 0;
out:
	strbuf_release(&text);
	strbuf_release(&line);
	return rc;
}
