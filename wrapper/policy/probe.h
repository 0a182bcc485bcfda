/*
 * probe.h - does the real compiler take each flag of a policy?  Asked by
 * `pgoptcc --pgopt-check-policy FILE`, never during a build.
 *
 * The vocabulary (vocab.h) knows which options a policy may use by their
 * shape; a misspelt one of an allowed shape (-fno-such-flag) passes it and
 * would fail only in make.  Only the compiler can say whether it takes a
 * flag, so it is asked, once per distinct flag of the policy's cflags and
 * ldflags (added or removed):
 *
 *     COMPILER -Werror FLAG -E -x c /dev/null -o /dev/null   (LC_ALL=C)
 *
 * exit 0: it takes the flag; anything else: it does not, and the first
 * line of its stderr says why ("gcc: error: unrecognized command-line
 * option '-fno-such-flag'").  -E makes it cheap and parses every option
 * the driver and cc1 know (-march=foo is refused too); -Werror turns what
 * the compiler would ignore into a refusal (clang's unused --param).
 * Linker options (-Wl,...) are not asked: -E never links; the vocabulary
 * vets them.  No shell runs; the compiler gets no input but /dev/null.
 *
 * The answers are cached, so a second check of a policy runs nothing: one
 * file per compiler, named by the sha256 of its identity (the resolved
 * path, size, modification time, device and inode of its executable: an
 * upgraded compiler is a new one), holding one line per flag asked
 * ("known\tFLAG" or "unknown\tFLAG\tWHY").  The cache lives where only the
 * caller can write (policy_probe_cache_dir): a directory owned by the
 * effective user that neither group nor others can write; one that is not
 * (or cannot be made) means no cache, never a cache another user could
 * have filled.
 */
#ifndef PGOPT_POLICY_PROBE_H
#define PGOPT_POLICY_PROBE_H

#include "wrapper/common/strvec.h"
#include "wrapper/policy/policy.h"

/* How to ask, and what asking cost. */
struct policy_probe {
	const char *compiler;      /* path of the real compiler */
	const struct strvec *env;  /* "NAME=value" added to its environment, or NULL */
	const char *cache_dir;     /* the cache directory, or NULL: no cache */
	long runs;                 /* compiler runs made (the rest came from the cache) */
	char *cache_file;          /* the cache file used, or NULL (malloced) */
};

/*
 * The default cache directory: $XDG_CACHE_HOME/pgoptcc, else
 * $HOME/.cache/pgoptcc (either only when absolute), malloced; NULL when
 * neither is set.
 */
char *policy_probe_cache_dir(void);

/*
 * Ask pr->compiler about every distinct flag of p (cached answers first).
 * Each flag it does not take adds one line to errors: "FILE:LINE: cflags
 * += FLAG: COMPILER does not take it: WHY" (the first line naming it).
 * Returns the number of such flags, or -1 when the compiler cannot be run
 * at all (the reason in errors); the cache is updated with the new
 * answers (a cache that cannot be written is no error).
 */
int policy_probe_flags(const struct policy *p, struct policy_probe *pr, struct strvec *errors);

void policy_probe_release(struct policy_probe *pr);

#endif
