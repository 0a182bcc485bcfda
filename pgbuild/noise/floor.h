/*
 * floor.h - reading a layout noise floor (`pgbuild noise`'s
 * PREFIX/pgopt-noise.json, noise.h) and the resolution of a deterministic
 * metric it gives.
 *
 * A deterministic metric (instructions, the cycles estimate: one number per
 * build) is compared at a resolution: the half-width of the interval
 * observed +- resolution that gate/expr.c decides on.  Repeat runs of one
 * binary give the repeat resolution (GATE_INSTR_RESOLUTION 0.01%,
 * CYCLES_RESOLUTION 0.1%); relinking the same objects in another order
 * moves the metric further (the layout floor).  With a floor the
 * resolution is
 *
 *     max(repeat resolution, NOISE_FLOOR_SDS x layout SD)
 *
 * the SD as a fraction of the metric's mean over the floor's variants, of
 * the workload and metric compared.  A floor belongs to one postgres: it
 * is used only when its postgres_sha256 is the sha256 of the binary of the
 * build it is used for (the baseline of a gate, tune's stock build).
 *
 * Who uses it: `pgbuild gate --noise FILE|none` and `pgbuild tune
 * --noise FILE|none` (the commands resolve it, cmd/; gate/ and tune/ only
 * carry the numbers); a later caller with a prefix needs one call,
 * noise_floor_prefix().
 */
#ifndef PGBUILD_NOISE_FLOOR_H
#define PGBUILD_NOISE_FLOOR_H

#include <stddef.h>

#include "pgbuild/build/buildlog.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"

/* A gain must exceed this many layout SDs. */
#define NOISE_FLOOR_SDS 3
/* The floor's file name in a prefix. */
#define NOISE_FLOOR_FILE BUILDLOG_NOISE

/* One workload's layout SDs. */
struct noise_floor_wl {
	char *name;
	double instr_sd;   /* instructions: SD / mean (a fraction); NAN: absent */
	double cycles_sd;  /* the cycles estimate: the same */
};

/* A loaded pgopt-noise.json. */
struct noise_floor {
	char *file;               /* as given */
	char sha256[65];          /* its postgres_sha256 */
	int variants;             /* how many variants the SDs are over */
	struct noise_floor_wl *wl;
	size_t nr;
};

/*
 * Read file.  0, or -1 with err = "FILE: what was expected" (unreadable,
 * not JSON, a member missing or of the wrong type).
 */
int noise_floor_load(struct noise_floor *f, const char *file, struct strbuf *err);
void noise_floor_release(struct noise_floor *f);

/*
 * Is f the floor of the binary postgres (its sha256)?  1 yes, 0 no (err
 * says both hashes), -1 the binary cannot be read (err says why).
 */
int noise_floor_matches(const struct noise_floor *f, const char *postgres, struct strbuf *err);

/*
 * The layout SD of metric (METRIC_INSTR or METRIC_CYCLES, metric/metric.h)
 * on workload as a fraction of its mean.  0, or -1 with err naming the
 * file and the workload or metric it does not have.
 */
int noise_floor_sd(const struct noise_floor *f, const char *workload, unsigned metric,
		   double *sd, struct strbuf *err);

/*
 * Has f the SD of each metric in metrics (METRIC_INSTR, METRIC_CYCLES
 * bits) of every workload, over at least min_variants variants?  1 yes, 0
 * no (err says the first thing missing).
 */
int noise_floor_covers(const struct noise_floor *f, const struct strvec *workloads,
		       unsigned metrics, int min_variants, struct strbuf *err);

/* The repeat resolution of metric (its resolution in metric/metrics.c). */
double noise_floor_repeat(unsigned metric);

/*
 * The resolution of metric on workload: max(repeat, NOISE_FLOOR_SDS x SD)
 * with f, the repeat resolution without (f NULL, or no figure of this
 * workload and metric in it).  *source (malloced) says where it came
 * from: "repeat 0.1%", "layout floor: 3 x SD 0.180% over 5 variants,
 * FILE", "repeat 0.1% (above the layout floor: ...)", "repeat 0.1% (FILE
 * has no select1 figure of the cycles estimate)".
 */
double noise_floor_resolution(const struct noise_floor *f, const char *workload,
			      unsigned metric, char **source);

/* What noise_floor_find() found. */
enum noise_floor_state {
	NOISE_FLOOR_USED,     /* loaded and of this binary */
	NOISE_FLOOR_NONE,     /* --noise none */
	NOISE_FLOOR_ABSENT,   /* the default and PREFIX has none */
	NOISE_FLOOR_MISMATCH, /* the default, of another binary: not used */
};
const char *noise_floor_state_name(enum noise_floor_state s); /* "used" "none" ... */

/*
 * The floor for the build at prefix as `--noise SPEC` asks: SPEC NULL (the
 * default) is PREFIX/pgopt-noise.json when it exists and is of
 * PREFIX/bin/postgres, else no floor; "none" is no floor; anything else is
 * a file that must be the floor of PREFIX/bin/postgres.  Returns the
 * state (f loaded when NOISE_FLOOR_USED) with *note (malloced) saying
 * which file and why, or -1 after the error: a malformed file, a named
 * file of another binary, a binary that cannot be read.
 */
int noise_floor_find(struct noise_floor *f, const char *spec, const char *prefix, char **note);

/*
 * One call for a caller with a prefix: the resolution of metric on
 * workload for the build at prefix (the default of noise_floor_find:
 * PREFIX/pgopt-noise.json when it is of PREFIX/bin/postgres), with its
 * source.  0, or -1 after the error (a malformed floor); a floor of
 * another binary is a note on stderr and the repeat resolution.
 */
int noise_floor_prefix(const char *prefix, const char *workload, unsigned metric,
		       double *resolution, char **source);

/*
 * A command's `--noise SPEC`, checked before its first build: NULL and
 * "none" pass; a file must be a floor of PREFIX/bin/postgres, so it needs
 * the baseline given (prefix NULL: the command builds it, and no file can
 * be its floor yet; baseline names it, "stock", and measures says what
 * the command does instead, "optimize measures stock's floor").  0, or the exit code after the message
 * (cli_usage_error's, or PGBUILD_EXIT_ERROR: a file that cannot be the
 * floor).
 */
int noise_floor_check_given(const char *spec, const char *prefix, const char *baseline,
			    const char *measures);

#endif
