/*
 * bundle.h - a profile bundle applied to one compile (the bundle setting,
 * PGOPT_BUNDLE=DIR: a directory `pgbuild bundle create` wrote).
 *
 * Why: a build daemon cannot run benchmarks, so the profile a training run
 * recorded (the .gcda of each unit) travels with the build as data, and
 * pgoptcc hands each compile the file its unit was trained with.  GCC reads
 * a unit's profile from beside its object (OBJECT minus its suffix, .gcda),
 * so the bundle's file for the unit (policy_bundle_gcda) is copied there
 * first, and the compile gets the profile-use flags (POLICY_PROFILE_USE).
 * GCC itself checks, function by function, that the profile still fits the
 * source (a checksum of each function's control flow): a function that
 * changed loses its profile with a -Wcoverage-mismatch warning, a function
 * the training never saw gets -Wmissing-profile.  pgoptcc passes GCC's
 * stderr through unchanged and counts those warnings per function into the
 * compile log, where `pgbuild bundle check` weighs them against the
 * training's counts.
 *
 * A unit without a file in the bundle is compiled as the policy says, with
 * no profile flag.
 */
#ifndef PGOPT_BUNDLE_H
#define PGOPT_BUNDLE_H

#include <stddef.h>

#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"

/* The bundle's profile for one compile, and what GCC said of it. */
struct bundle_use {
	char *rel;                /* the file inside the bundle ("gcda/src/x/y.gcda") */
	char *src;                /* ... its path (bundle directory + rel) */
	char *dest;               /* where GCC reads it: the object's path with .gcda */
	struct strvec mismatched; /* functions whose profile GCC dropped: their control
				   * flow changed (-Wcoverage-mismatch) */
	struct strvec moved;      /* functions whose lines moved, profile kept
				   * ("source locations ... have changed") */
	struct strvec missing;    /* functions not in the profile (-Wmissing-profile) */
};

/*
 * The bundle in dir has a profile for unit tu compiled into object: fill u
 * and return 1; 0 when it has none (u untouched).
 */
int bundle_lookup(const char *dir, const char *tu, const char *object, struct bundle_use *u);

/*
 * Copy the profile to where GCC reads it (u->dest, relative to the working
 * directory), replacing whatever is there atomically; a file that already
 * holds the same bytes is left alone.  0, or -1 with one sentence in err.
 */
int bundle_place(const struct bundle_use *u, struct strbuf *err);

/*
 * Read GCC's diagnostics (its stderr, text of len bytes) for the profile
 * warnings and add each function they name, once, to the lists of u.  The
 * warning is known by its option in brackets, which GCC never translates;
 * the function is the first quoted name of the line ('x', or x in the
 * typographic quotes of a UTF-8 locale).  "source locations" tells the
 * one warning that keeps the profile; in a translated locale GCC's text
 * differs and such a function is counted as mismatched (an overcount,
 * never an undercount).
 */
void bundle_scan_diagnostics(struct bundle_use *u, const char *text, size_t len);

void bundle_use_release(struct bundle_use *u);

#endif
