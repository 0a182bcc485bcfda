/*
 * bundle.h - profile bundles (`pgbuild bundle`): a training's result that a
 * later build applies without training, as build farms need (their
 * daemons build; they cannot run benchmarks).
 *
 * A bundle is a directory:
 *
 *   pgopt-bundle.json    the manifest (below)
 *   pgopt.policy         the policy the profile was trained and is used with
 *                        (its hot/cold lists copied beside it, lists/)
 *   gcda/DIR/STEM.gcda   the PGO profile of each unit: DIR the unit's
 *                        directory, STEM its object's name
 *                        (policy_bundle_gcda); what pgoptcc's bundle
 *                        setting hands each compile (wrapper/bundle.h)
 *   bolt/profile.fdata   the BOLT profile of the server binary, with the
 *                        manifest of its training (profile.fdata.json)
 *
 * The manifest says what the profiles were trained on (the source: spec,
 * version, directory and a hash of every unit's source; the workloads and
 * the training settings; the binary BOLT trained on), the weight of every
 * function the training ran (gcov's line counts, summed: a proxy for the
 * work done there) per unit, and the sha256 of every file of the bundle.
 *
 * Trust: a bundle is a stranger's, applied as root into a package others
 * install.  What it can change in a build is optimization decisions and
 * layout, nothing else:
 *   - its files are data, checked before any use: every use (pgoptcc's
 *     compiles, show, check, bolt, create --bundle, build --bundle, tune
 *     --bundle, deb --bundle) checks the whole tree against the manifest
 *     first (bundle_open_files: wrapper/common/bundle-verify.h: no link,
 *     FIFO or device, no unlisted or missing file, no path outside it,
 *     every sha256 the manifest's; and every path the manifest names
 *     elsewhere, the policy, the units' and BOLT's profiles, one of its
 *     files) and refuses, naming the file, before a byte of it is copied;
 *     what is copied (a unit's .gcda beside its object, the BOLT profile
 *     for llvm-bolt, the files of create --bundle) is read once and hashed
 *     as read, so it is what the manifest names even if the bundle changes
 *     afterwards;
 *   - its policy is a policy: a vocabulary of optimization flags, checked
 *     as every policy is (wrapper/policy/policy.h), its lists function
 *     names;
 *   - its .gcda files are GCC's profile input: counts, which GCC checks
 *     against each function's control flow;
 *   - its BOLT layout flags pass bolt_check_flags (layout only, no path);
 *     its BOLT profile is llvm-bolt's -data input.
 * It cannot make a build read a file outside it, run a program, write
 * outside the places named above, or change anything but the code's
 * optimization and layout.  tests/t/89-bundle-trust.t shows each part.
 *
 * What applies to a build is measured, not assumed:
 *   - PGO: GCC checks every function's profile against its control flow;
 *     pgoptcc records the functions GCC refused (-Wcoverage-mismatch) and
 *     the ones it did not find (-Wmissing-profile), and `bundle check`
 *     weighs them with the training's counts: the share of the profile's
 *     weight that the build used is the weight of the units the build
 *     compiled with their profile, less that of the functions GCC refused
 *     or did not find (a function new since the training weighs nothing;
 *     a static function compiled from another source path than the
 *     training's is looked up under another id, and its weight is lost).
 *     A unit the build did not compile loses its weight.
 *   - BOLT: `bundle bolt` rewrites the binary with the profile and reads
 *     BOLT's own count of the profile's samples that fall in functions
 *     whose profile is invalid (stale): the share that applies is the rest.
 * Both refuse below a stated share (--min-applies, default
 * BUNDLE_MIN_APPLIES %): check exits 1, and bolt leaves the binary as it
 * was and exits 1.
 */
#ifndef PGBUILD_BUNDLE_H
#define PGBUILD_BUNDLE_H

#include "wrapper/common/bundle-verify.h"
#include "wrapper/common/json.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"

#define BUNDLE_KIND BUNDLE_MANIFEST_KIND
#define BUNDLE_POLICY BUNDLE_POLICY_NAME
#define BUNDLE_BOLT_PROFILE "bolt/profile.fdata"
/* The share of a profile's weight a build must use, in percent. */
#define BUNDLE_MIN_APPLIES 90.0

/* What `bundle create` packs (its options). */
struct bundle_create_opts {
	const char *out;          /* --out DIR: the new bundle */
	const char *pgo;          /* --pgo PREFIX: a `pgbuild pgo` install */
	const char *optimize;     /* --optimize WORKDIR: its best kept stage */
	const char *builddir;     /* --builddir: any build with .gcda files */
	const char *bundle;       /* --bundle: an existing bundle's policy and PGO */
	const char *log;          /* --log LOGDIR: its compile log (default
				   * BUILDDIR/pgopt-log) */
	const char *policy;       /* --policy FILE: the policy (with --builddir) */
	const char *bolt;         /* --bolt-install DIR: a `pgbuild bolt` output */
	const char *bolt_profile; /* --bolt-profile FILE: an .fdata (its manifest
				   * FILE.json beside it, when there is one) */
	int force;                /* --force: replace an existing bundle */
	int quiet;                /* -q */
};

/* Pack the bundle; prints one line of what went in.  Exit code: 0, or 2
 * after one error (nothing is left at --out then). */
int bundle_create(const struct bundle_create_opts *o);

/*
 * Check the bundle at dir (above: bundle_verify, and the paths its
 * manifest names are its files) and keep it open in bv (its manifest
 * bv->manifest; members read with bundle_verified_read).  0, or -1 after
 * one error naming the file and what was expected.
 */
int bundle_open_files(const char *dir, struct bundle_verified *bv);

/* The same, for the manifest alone: it, or NULL after the error. */
struct json_value *bundle_open(const char *dir);

/* `bundle show`: what the bundle holds and was trained on.  Exit code. */
int bundle_show(const char *dir);

/* What a build used of the bundle's PGO profile (`bundle check`). */
struct bundle_check_opts {
	const char *dir;          /* the bundle */
	const char *log;          /* LOGDIR of the build (its compile.jsonl) */
	const char *json;         /* --json FILE: the result as a document */
	double min_applies;       /* percent */
	int quiet;
};

/* Weigh the build's compile records against the bundle; prints the
 * summary.  Exit code: 0 at or above the threshold, 1 below, 2 error. */
int bundle_check(const struct bundle_check_opts *o);

/* A BOLT rewrite of an installed binary with the bundle's profile
 * (`bundle bolt`). */
struct bundle_bolt_opts {
	const char *dir;          /* the bundle */
	const char *binary;       /* the file, rewritten in place */
	const char *log;          /* --log LOGDIR: the compile log directory of
				   * the build that made the binary (records =
				   * side: its side file is renamed after BOLT's
				   * new build-id; BOLT's log is written there),
				   * or NULL */
	const char *bolt_dir;     /* --bolt DIR, or NULL */
	const char *json;         /* --json FILE */
	double min_applies;       /* percent */
	int quiet;
};

/* Exit code: 0 rewritten, 1 the profile applies below the threshold
 * (the binary untouched), 2 error (untouched). */
int bundle_bolt(const struct bundle_bolt_opts *o);

/* ---------------- the PGO weighing, as pure logic (check.c) ---------------- */

/* One compile of the build, as its compile-log record says (the last
 * successful compile of each object). */
struct bundle_compile {
	char *tu;                 /* the unit */
	char *object;             /* its object, absolute */
	char *dir;                /* the bundle it used, or NULL: none */
	char *profile;            /* ... its profile of the unit ("gcda/...") */
	struct strvec refused;    /* functions whose profile GCC refused */
	struct strvec moved;      /* functions whose lines moved (profile kept) */
	struct strvec missing;    /* functions the profile does not have */
};

/* One unit of the bundle, as the build used it. */
struct bundle_unit_use {
	const char *tu, *object;  /* the bundle's unit (pointers into the manifest) */
	double weight;            /* its functions' weight */
	double lost;              /* ... of it the build did not use */
	const char *state;        /* "used", "without its profile", "not built" */
	const struct bundle_compile *compile; /* the compile that used it, or NULL */
};

/* The whole weighing. */
struct bundle_weigh {
	struct bundle_unit_use *units;
	size_t nr;
	double weight, used;      /* the profile's weight, and what the build used */
	size_t compiled;          /* units compiled with their profile */
	size_t refused;           /* functions GCC refused, in all */
	size_t moved;             /* functions whose lines moved (profile kept) */
	size_t missing;           /* functions the profile does not have */
	size_t not_found;         /* ... of them, ones the training ran (their
				   * weight is lost: another id, see check.c) */
	size_t foreign;           /* compiles that used another bundle */
};

/*
 * Weigh the build's compiles against the manifest of the bundle in dir
 * (same_dir says whether a compile's bundle directory is this one).  0,
 * or -1 with the reason in err (a manifest without a PGO part).
 */
int bundle_weigh(const struct json_value *manifest, const struct bundle_compile *c, size_t n,
		 int (*same_dir)(const char *a, const char *b), const char *dir,
		 struct bundle_weigh *w, struct strbuf *err);
void bundle_weigh_release(struct bundle_weigh *w);
void bundle_compile_release(struct bundle_compile *c);

#endif
