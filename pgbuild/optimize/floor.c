/*
 * floor.c - the layout floor optimize decides at: stock's own, measured
 * here (`pgbuild noise` on stock, one step of the pipeline) unless one is
 * given (--noise FILE, or none: the repeat resolution, said) or found,
 * before the first gate; a floor that can be neither found nor measured
 * (unavailable) stops the run before its first gate, with the reason:
 * optimize never decides at the repeat resolution unasked; see optimize.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgbuild/metric/metric.h"
#include "pgbuild/metric/metrics.h"
#include "pgbuild/noise/floor.h"
#include "pgbuild/noise/noise.h"
#include "pgbuild/optimize/optimize.h"
#include "pgbuild/profile/run.h"
#include "pgbuild/stage/stage.h"
#include "pgbuild/pgbuild.h"

const char *const optimize_floor_state_names[OF_NR] = {
	"pending", "given", "found", "measured", "none", "unavailable",
};

/* The floor's file when optimize measures it. */
static char *measured_file(const struct orun *r)
{
	return xasprintf("%s/gates/stock-noise.json", r->workdir);
}

/* Does a floor of stock's postgres at file (NULL: STOCK/pgopt-noise.json)
 * have both deterministic metrics of every -W workload, over at least
 * NOISE_FLOOR_MIN_VARIANTS variants?  1 yes, 0 no (why in *note), -1 a
 * malformed file. */
static int floor_covers(struct orun *r, const char *spec, char **note)
{
	struct noise_floors f;
	struct strbuf err = STRBUF_INIT;
	int st;

	*note = NULL;
	if (noise_floors_find(&f, spec, r->s[OS_STOCK].prefix, NULL) < 0)
		return -1;
	if (f.state != NOISE_FLOOR_USED) {
		*note = xstrdup(f.note);
		noise_floors_release(&f);
		return 0;
	}
	st = noise_floor_covers(&f.a, &r->o->workloads, METRIC_INSTR | METRIC_CYCLES,
				NOISE_FLOOR_MIN_VARIANTS, &err);
	noise_floors_release(&f);
	if (!st) {
		*note = strbuf_detach(&err, NULL);
		return 0;
	}
	strbuf_release(&err);
	return 1;
}

/* The noise step: noise's engine on stock over the -W workloads, called
 * as a library (in the step's own process, its output into its log). */
static int floor_noise(void *data)
{
	struct orun *r = data;
	const struct optimize_opts *o = r->o;
	struct noise_opts no;
	char *wd = xasprintf("%s/stock/noise", r->workdir);
	int rc;

	noise_opts_init(&no);
	no.prefix = r->s[OS_STOCK].prefix;
	no.workdir = wd;
	no.json = r->floor;
	if (!o->baseline) {
		no.builddir = r->s[OS_STOCK].builddir;
		no.builddir_as = "optimize's stock build tree (WORKDIR/stock/build)";
	} else
		no.builddir_as = "the build tree --baseline's pgopt-build.json records";
	no.variants = o->noise_variants;
	no.metrics = metrics_deterministic();
	strvec_pushv(&no.workloads, (const char *const *)o->workloads.v);
	no.quiet = o->quiet;
	rc = noise_run(&no);
	noise_opts_release(&no);
	free(wd);
	return rc;
}

static int st_floor(struct pipeline *p, int id)
{
	return stage_run_fn(p, id, "pgbuild noise", floor_noise, p->ctx, NULL, 1);
}

/* Can stock be relinked: built here, or a pgbuild build whose record
 * names a build tree that is still there? */
static int relinkable(const struct orun *r)
{
	struct json_value *rec;
	const char *dir;
	struct stat st;
	int yes;

	if (!r->o->baseline)
		return 1;
	rec = prof_build_record(r->s[OS_STOCK].prefix);
	dir = json_get_str(rec, "builddir");
	yes = dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
	json_free(rec);
	return yes;
}

static void set_state(struct orun *r, enum optimize_floor_state st, char *file, char *note)
{
	r->floor_state = st;
	free(r->floor);
	r->floor = file;
	free(r->floor_note);
	r->floor_note = note;
}

int optimize_floor(struct orun *r)
{
	const struct optimize_opts *o = r->o;
	struct ostage *st = &r->s[OS_STOCK];
	char *note = NULL, *key;
	int rc, id = STEP_ID(OS_STOCK, STEP_FLOOR);

	if (r->floor_state != OF_PENDING)
		return 0;
	if (o->noise && !strcmp(o->noise, "none")) {
		set_state(r, OF_NONE, xstrdup("none"),
			  xstrdup("--noise none: the repeat resolution (0.1%), on which no "
				  "stage can show a gain: nothing will be kept"));
		return 0;
	}
	if (o->noise) {
		/* checked before the first build (cmd/optimize.c) */
		set_state(r, OF_GIVEN, xstrdup(o->noise), xasprintf("--noise %s", o->noise));
		return 0;
	}
	{
		char *found = xasprintf("%s/%s", st->prefix, NOISE_FLOOR_FILE);
		rc = floor_covers(r, NULL, &note);
		if (rc < 0) {
			free(found);
			r->stop = "stock-floor";
			return -1;
		}
		if (rc > 0) {
			free(note);
			set_state(r, OF_FOUND, found, xasprintf("%s, of stock's postgres", found));
			return 0;
		}
		free(found);
	}
	if (!relinkable(r)) {
		/* never decide at the repeat resolution: no floor, no gate */
		set_state(r, OF_UNAVAILABLE, NULL,
			  xasprintf("%s; and stock has no build tree to relink (none recorded in "
				    "%s/pgopt-build.json, or gone): no layout floor to decide at; "
				    "`pgbuild noise --install %s --builddir DIR` measures one (or "
				    "--noise FILE, or --noise none to decide at the repeat "
				    "resolution)", note ? note : "no floor of stock", st->prefix,
				    st->prefix));
		free(note);
		error("optimize: %s", r->floor_note);
		r->stop = "stock-floor";
		return -1;
	}
	free(note);
	note = NULL;
	set_state(r, OF_MEASURED, measured_file(r), NULL);
	{
		struct strbuf k = STRBUF_INIT;
		strbuf_addf(&k, "floor stock={%s} variants=%d wl=", st->key, o->noise_variants);
		for (size_t i = 0; i < o->workloads.nr; i++)
			strbuf_addf(&k, "%s%s", i ? "," : "", o->workloads.v[i]);
		key = strbuf_detach(&k, NULL);
	}
	r->cur = OS_STOCK;
	rc = stage_run(&r->p, id, key, "pgbuild noise --install STOCK (the layout floor)", st_floor);
	free(key);
	if (rc != 0 || floor_covers(r, r->floor, &note) <= 0) {
		if (rc == 0)
			error("optimize: %s: not a floor of every -W workload: %s", r->floor,
			      note ? note : "?");
		free(note);
		r->stop = "stock-floor";
		return -1;
	}
	free(note);
	r->floor_note = xasprintf("measured here: %s over %d relinked variants of stock",
				  r->floor, o->noise_variants);
	return 0;
}
