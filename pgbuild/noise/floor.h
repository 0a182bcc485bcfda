/*
 * floor.h - reading layout noise floors (`pgbuild noise`'s
 * PREFIX/pgopt-noise.json, noise.h) and the one rule that turns the
 * floors of a comparison's two builds into the resolution of a
 * deterministic metric.
 *
 * A deterministic metric (instructions, the cycles estimate: one number
 * per build) of a comparison A/B is decided on the relative interval
 *
 *     [observed x (1 - r), observed x (1 + r)]        (gate/expr.c)
 *
 * so a 1.2x ratio gets the same relative width as a 1.0x one.  Repeat runs
 * of one binary agree within the repeat resolution (GATE_INSTR_RESOLUTION
 * 0.01%, CYCLES_RESOLUTION 0.1%); relinking the same objects in another
 * order moves the metric further: the layout floor.  Measured: the stock
 * postgres (policy none, -O2, 733 objects) relinked with only its .o order
 * changed, 7 seeded shuffles, select-only under callgrind: a cycles
 * estimate SD of 0.28% (range 0.84%) with instructions within 0.02%
 * (issue 41's read); again here, `pgbuild noise --variants 7 --seed 7 -W
 * select-only --instr-statements 40` on tests/pg's base build
 * (2026-12-06): SD 0.294%, range 0.75%, instructions within 0.0003%;
 * examples/RESULTS.md has stock at 0.13-0.74% and an LTO build at
 * 0.10-0.36% (cycles) and 0.005-0.033% (instructions, where LTO's
 * partitions follow the order).  An SD from 5 relinks has 4 degrees of
 * freedom: its 95% upper bound is 2.37 times it (chi-square).
 *
 * The rule (noise_floor_rule).  A and B are two independently laid-out
 * binaries, so the log of A/B moves by sqrt(sA^2 + sB^2), not by one
 * build's SD.  Each s is estimated from n variants (n - 1 degrees of
 * freedom), so each is replaced by its one-sided NOISE_FLOOR_BOUND (95%)
 * chi-square upper bound, s x sqrt((n - 1) / chi2_0.05(n - 1)) (2.372 s
 * over 5 variants; stats_sd_upper_factor):
 *
 *     r = max(repeat, z x sqrt(uA^2 + uB^2)),   z = 1.960
 *
 * z is the normal quantile of 1 - NOISE_FLOOR_FALSE_KEEP: the rule is
 * built for a one-sided false-keep rate of at most 2.5% (the level of
 * every gate claim: the lower end of a 95% interval).  Under the model
 * (each build's metric = truth x (1 + e), e normal with its SD, the floor's
 * SD a sample SD over n variants, the candidate's side its stand-in) an
 * A/A claim of any gain passes with probability P(t_{n-1} >= z x
 * bound factor): 0.5% at 5 variants and at 10, tending to 2.5% as n grows
 * (the bound's margin is what keeps the stand-in honest, below);
 * tests/unit/test-noise.c draws 20,000 A/A comparisons through the gate's
 * own decision and checks the rate is at or under 2.5% (0.5% drawn), and
 * that the old rule (3 x one build's SD, subtracted from the ratio) is
 * above it (5.0% drawn at 5 variants, 13.4% at 2).
 *
 * The candidate's SD (sB): its own floor when CANDIDATE/pgopt-noise.json
 * is of CANDIDATE/bin/postgres with at least NOISE_FLOOR_MIN_VARIANTS,
 * else a stand-in: the baseline's (a relinked build's layout spread is a
 * property of the workload more than of the flags: LTO + no-pie's cycles
 * SD was 0.46-0.98 of stock's on select-only, tpcb and mixed), and for
 * instructions at least NOISE_FLOOR_INSTR_STANDIN over 5 variants (LTO +
 * no-pie select-only, examples/RESULTS.md: stock's is ~0, so the baseline's
 * would say nothing); the stand-in is bounded as an SD over
 * NOISE_FLOOR_STANDIN_VARIANTS (5) whatever the baseline's count.  What
 * the stand-in assumes: at 5 variants the
 * false-keep rate of one test alone (one workload, one threshold) stays
 * at or under 2.5% while the candidate's true SD is up to 2.1 times the
 * baseline's (2.0% drawn at twice); a gate's family of m such tests is
 * rescaled by Student's t quantiles over the floor's variants less one
 * (gate.h: 2.1% drawn at twice over 6 workloads); measure the
 * candidate's own floor (`pgbuild noise --install CANDIDATE`) when it may
 * be noisier.
 *
 * The minimum (NOISE_FLOOR_MIN_VARIANTS = 5).  The bound's factor is 15.9
 * over 2 variants, 4.41 over 3, 2.92 over 4, 2.37 over 5, 1.65 over 10:
 * 5 is the fewest at which it is under 2.5, i.e. at which the expected
 * resolution is within 2.25 times what an exactly known SD would give
 * (6.2 SDs against 2.77).  Floors over fewer variants are refused (a
 * named one is an error, a found one a note: no floor); `pgbuild noise
 * --variants` and --noise-variants start there (cli.h), and the default is
 * that minimum (10 variants narrow the resolution by 30%).
 *
 * A floor belongs to one postgres: it is used only when its
 * postgres_sha256 is the sha256 of the binary of the build it is used for.
 * Without a floor a deterministic threshold of `pgbuild gate` is
 * undecided, with the reason and the command that measures one, unless
 * the caller said `--noise none` (then the repeat resolution decides a
 * bound, a claim stays undecided: gate/gate.h, and
 * the result says so).
 *
 * Who uses it: `pgbuild gate --noise FILE|none` and `pgbuild tune --noise
 * FILE|none` (cmd/: noise_floors_find and noise_floors_resolution, the one
 * place a resolution is computed; gate/ and tune/ only carry the
 * numbers), `pgbuild noise --reuse` and optimize (noise_floor_covers).
 */
#ifndef PGBUILD_NOISE_FLOOR_H
#define PGBUILD_NOISE_FLOOR_H

#include <stddef.h>

#include "pgbuild/build/buildlog.h"
#include "pgbuild/cli/cli.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"

/* The one-sided level of each SD's chi-square upper bound. */
#define NOISE_FLOOR_BOUND 0.95
/* The one-sided false-keep rate the rule is built for (z = 1.960). */
#define NOISE_FLOOR_FALSE_KEEP 0.025
/* The fewest variants a floor may have (derived above). */
#define NOISE_FLOOR_MIN_VARIANTS CLI_NOISE_VARIANTS_MIN
/* The candidate's instruction SD when it has no floor: LTO + no-pie,
 * select-only, 5 variants (examples/RESULTS.md, 2026-12-03). */
#define NOISE_FLOOR_INSTR_STANDIN 0.000333
#define NOISE_FLOOR_INSTR_STANDIN_VARIANTS 5
/* The variants the candidate's stand-in SD is bounded over, whatever the
 * baseline's count: its margin (2.37 x at 5) is what keeps the false-keep
 * rate at or under 2.5% with a candidate up to ~2 times noisier; bounded
 * over the baseline's count it shrank (candidate SD 2x: 1.93% at 5
 * variants, 3.46% at 10, 4.87% at 20, simulated). */
#define NOISE_FLOOR_STANDIN_VARIANTS NOISE_FLOOR_MIN_VARIANTS
/* explain --noise's per-function band: this many SDs of a function's self
 * estimate over the variants (functions.c). */
#define NOISE_FUNCTION_SDS 3
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
 * not JSON, a member missing or of the wrong type).  Any number of
 * variants from 2 is read (explain --noise reads the per-function
 * spread); noise_floors_find refuses fewer than NOISE_FLOOR_MIN_VARIANTS.
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

/* ---------------- the rule ---------------- */

/* sd's NOISE_FLOOR_BOUND upper bound over variants (>= 2) variants. */
double noise_floor_sd_bound(double sd, int variants);
/* z: the normal quantile of 1 - NOISE_FLOOR_FALSE_KEEP (1.960). */
double noise_floor_z(void);
/* z for a gate at confidence conf: the quantile of (1 + conf) / 2, so a
 * deterministic claim passes at the one-sided level of a tps claim at
 * that confidence (2.576 at 99%: 0.5%, not 2.5%). */
double noise_floor_z_at(double conf);
/*
 * The resolution of a comparison whose builds' layout SDs are sd_a over
 * n_a variants and sd_b over n_b: max(repeat, z x sqrt(uA^2 + uB^2)), u
 * each SD's bound.  The rule every deterministic decision uses.
 */
double noise_floor_rule(double repeat, double sd_a, int n_a, double sd_b, int n_b);

/* ---------------- the floors of one comparison ---------------- */

/* What noise_floors_find found of the baseline's floor. */
enum noise_floor_state {
	NOISE_FLOOR_USED,     /* loaded and of this binary */
	NOISE_FLOOR_NONE,     /* --noise none: the repeat resolution, said */
	NOISE_FLOOR_ABSENT,   /* the default and PREFIX has none */
	NOISE_FLOOR_MISMATCH, /* the default, of another binary: not used */
	NOISE_FLOOR_FEW,      /* the default, over fewer than the minimum */
};
const char *noise_floor_state_name(enum noise_floor_state s); /* "used" "none" ... */

/* Both builds' floors of a comparison. */
struct noise_floors {
	enum noise_floor_state state; /* the baseline's */
	struct noise_floor a;         /* the baseline's, when NOISE_FLOOR_USED */
	int has_b;                    /* b is the candidate's own floor */
	struct noise_floor b;
	char *baseline;               /* its prefix, for the hint (owned; NULL: none given) */
	double z;                     /* the rule's z: noise_floor_z() (a 95%
					 gate's 1.960) unless the caller sets
					 it for its confidence:
					 noise_floor_z_at(conf) */
	char *note;                   /* one line: which floors, or why none (owned) */
};

/*
 * The floors of baseline and candidate as `--noise SPEC` asks: SPEC NULL
 * (the default) is BASELINE/pgopt-noise.json when it exists, is of
 * BASELINE/bin/postgres and has at least NOISE_FLOOR_MIN_VARIANTS, else no
 * floor; "none" is no floor, said; anything else is a file that must be
 * such a floor of BASELINE/bin/postgres.  Unless "none", the candidate's
 * own CANDIDATE/pgopt-noise.json is used for its side when it is of
 * CANDIDATE/bin/postgres with enough variants (candidate NULL: the
 * stand-in).  baseline NULL: no floor (state NONE when spec is "none",
 * else ABSENT).  0, or -1 after the error: a malformed file, a named file
 * of another binary or over too few variants, a binary that cannot be
 * read.
 */
int noise_floors_find(struct noise_floors *f, const char *spec, const char *baseline,
		      const char *candidate);
void noise_floors_release(struct noise_floors *f);

/*
 * The resolution of metric on workload for the comparison: noise_floor_rule
 * on the baseline's SD and the candidate's (its own, else the stand-in).
 * 1: from the floors; 0: the repeat resolution because the caller said
 * --noise none; -1: no floor (no file, of another binary, too few
 * variants, or no figure of this workload and metric), *res NAN.  *source
 * (malloced) always says where it came from, or why there is none and
 * the command that measures one: "layout floor: 1.96 x sqrt(a^2 + b^2),
 * a = 95% bound of SD 0.209% over 5 variants = 0.496% (FILE), b = ...",
 * "repeat 0.1% (--noise none: no layout floor)", "no layout floor: ...;
 * `pgbuild noise --install BASELINE -W select1` measures one".
 */
int noise_floors_resolution(const struct noise_floors *f, const char *workload,
			    unsigned metric, double *res, char **source);
/* The fewest variants of the two sides noise_floors_resolution uses for
 * metric on workload (the candidate's own floor or the stand-in's
 * NOISE_FLOOR_STANDIN_VARIANTS): less one, the degrees of freedom the
 * family correction rescales by.  0: no floor. */
int noise_floors_variants(const struct noise_floors *f, const char *workload, unsigned metric);

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
