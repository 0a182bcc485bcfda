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
 *
 * Trust: a bundle is a stranger's (it is made on another host and applied
 * as root to a package others install).  Every command with the bundle
 * setting (but passthrough) first checks the bundle against its manifest
 * (bundle_trust; wrapper/common/bundle-verify.h: no link, FIFO or device
 * anywhere below it, no file the manifest does not list, every file's
 * sha256 the manifest's; and its policy's hot and cold lists its own
 * files: wrapper/policy/bundle-policy.h), before the policy is loaded
 * (PGOPT_POLICY may be the bundle's), and fails (exit 100, naming the
 * file) before anything is copied.  A compile then reads its unit's
 * profile once, below the bundle's descriptor with no link followed,
 * hashes those bytes against the manifest, and copies exactly them beside
 * the object: that copy is all GCC reads of the bundle (and, when
 * PGOPT_POLICY is the bundle's policy, the plugin its lists, checked as
 * said).
 *
 * Not the whole check on every command: measured on a bundle the size of
 * a PostgreSQL build's (1,000 .gcda files, 9.6 MB, a 1.3 MB manifest; a
 * 2-core VM under a load of 5), the whole check costs 95 ms of CPU (60-90
 * ms hashing, 30-40 ms reading and parsing the manifest): a minute and
 * more over the ~1,000 compiles of a build.  So the first command makes
 * the whole check and records the list it checked (each file's path and
 * sha256) in a stamp, LOGDIR/bundle-verified/DEV-INO (the bundle
 * directory's device and inode), keyed by the manifest's device, inode,
 * size, mtime and ctime (which no user can set back); LOGDIR is the
 * compile log's (PGOPT_LOGDIR), bundle-verified/ a 0700 directory of the
 * caller's (sfs_mkdir refuses one that is not), so only the caller writes
 * stamps.  Later commands with the same manifest take the list from the
 * stamp (3 ms of CPU in a fresh process, 0.6 ms warm, measured as above),
 * and still hash what they read: their unit's profile, and the bundle's
 * text files (the policy and its lists), so a file changed after the
 * first check is refused by the next command that reads it.  A stamp that
 * does not match (a new or changed manifest, an unreadable stamp) means
 * the whole check again; without a LOGDIR every command makes it.  A stale
 * stamp can only refuse (a listed file whose bytes differ), never admit a
 * byte the manifest does not name.  What the stamp does not see: a file
 * added to the bundle after the first check and read by no compile (an
 * unlisted name a compile looks up is refused).
 */
#ifndef PGOPT_BUNDLE_H
#define PGOPT_BUNDLE_H

#include <stddef.h>

#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"

/* The bundle's profile for one compile, and what GCC said of it. */
struct bundle_use {
	char *rel;                /* the file inside the bundle ("gcda/src/x/y.gcda") */
	char *src;                /* ... its path (bundle directory + rel), for messages */
	struct strbuf data;       /* its bytes, read once and checked against the manifest */
	char *dest;               /* where GCC reads it: the object's path with .gcda */
	struct strvec mismatched; /* functions whose profile GCC dropped: their control
				   * flow changed (-Wcoverage-mismatch) */
	struct strvec moved;      /* functions whose lines moved, profile kept
				   * ("source locations ... have changed") */
	struct strvec missing;    /* functions not in the profile (-Wmissing-profile) */
};

/*
 * Check the bundle in dir as above (from the stamp in
 * logdir/bundle-verified when there is one for it; logdir NULL: none),
 * and its policy (pgopt.policy): its hot and cold lists must be its
 * files.  The bundle stays open for bundle_lookup (one per process:
 * pgoptcc runs one command).  0, or -1 with one sentence in err naming
 * the bundle's file and why it is refused.
 */
int bundle_trust(const char *dir, const char *logdir, struct strbuf *err);

/*
 * The checked bundle's profile of unit tu compiled into object, read once
 * and hashed as read: 1 with u filled; 0 when the bundle has none (or no
 * bundle was checked; u untouched); -1 with err when a file is there that
 * the manifest does not list, or not what it says.
 */
int bundle_lookup(const char *tu, const char *object, struct bundle_use *u, struct strbuf *err);

/*
 * Copy the profile (u->data, the checked bytes) to where GCC reads it
 * (u->dest, relative to the working directory), replacing whatever is
 * there atomically; a file that already holds the same bytes is left
 * alone.  0, or -1 with one sentence in err.
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
