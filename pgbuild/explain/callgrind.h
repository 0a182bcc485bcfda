/*
 * explain/callgrind.h - the per-function costs and the call graph of one
 * callgrind output file, as the cycles metric's runs write it
 * (metric/cycles.h: --cache-sim=yes --branch-sim=yes --dump-instr=no
 * --dump-line=no; names compressed or not).
 *
 * Per function (its object "ob=" and name "fn="; callgrind gives a static
 * function of one name in one object without debug information a single
 * entry): the exclusive ("self") counts of every event the metric reads,
 * and per callee the number of calls and the inclusive counts of those
 * calls.  A function's blocks may be spread over the file ("fn=" repeated):
 * they are summed, as are the repeated calls of one caller to one callee.
 * The sum of every function's self counts is the file's "totals:" line.
 *
 * The format (callgrind's own documentation, "Callgrind Format
 * Specification"): "events:" names the cost columns; "positions:" how many
 * position columns come first (line, or instr line); "fn=" starts the
 * costs of a function, each cost line adding to its self cost, except the
 * line after "calls=COUNT TARGET", which is the inclusive cost of the
 * call to the function named by the last "cfn=" (in the object of the
 * last "cob=", else the caller's; cob= is given again for every call).
 * A compressed name is "(ID) name" where first seen and "(ID)" after.
 *
 * Pure: parses text, prints nothing.  Malformed input (a cost line before
 * any function, a call without a cost line, a value that is not a number,
 * an id never defined) is -1 with one sentence naming the line.
 */
#ifndef PGBUILD_EXPLAIN_CALLGRIND_H
#define PGBUILD_EXPLAIN_CALLGRIND_H

#include <stddef.h>

#include "pgbuild/metric/cycles.h"
#include "wrapper/common/strbuf.h"

/* The calls of one function to one callee. */
struct cg_call {
	size_t callee;                 /* index into the profile's fns */
	double count;                  /* calls */
	struct cycles_counts incl;     /* their inclusive counts */
};

/* One function of a profile. */
struct cg_fn {
	char *object;                  /* ob=: the executable or library */
	char *name;                    /* fn=: the symbol (callgrind's 'N kept) */
	struct cycles_counts self;     /* exclusive counts */
	struct cg_call *calls;         /* to each callee, one entry per callee */
	size_t ncalls, alloc_calls;    /* used, allocated */
};

/* One output file. */
struct cg_profile {
	struct cg_fn *fns;             /* in the order first seen */
	size_t nr, alloc;              /* used, allocated */
	size_t *hash;                  /* open addressing: index + 1, 0 empty */
	size_t hash_size;              /* slots (a power of two) */
	struct cycles_counts totals;   /* the sum of every self count */
	struct cycles_counts summary;  /* the "summary:" line (cycles.c's total) */
};

/* Parse text into p (zeroed before).  0, or -1 with why set. */
int cg_parse(const char *text, size_t len, struct cg_profile *p, struct strbuf *why);

/* The function (object, name), or -1. */
long cg_find(const struct cg_profile *p, const char *object, const char *name);

/* The function (object, name), added with no cost when missing. */
size_t cg_intern(struct cg_profile *p, const char *object, const char *name);

/* fn's entry for callee (added with no calls when missing). */
struct cg_call *cg_call_get(struct cg_fn *fn, size_t callee);

void cg_release(struct cg_profile *p);

#endif
