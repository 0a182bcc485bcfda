/*
 * inspect.h - the optimization record of objects, archives, executables
 * and shared libraries, printed for people (a table per unit and
 * function, one line per unit, one line per inlined call site) or as one
 * JSON document (`pgbuild inspect`).
 */
#ifndef PGBUILD_INSPECT_H
#define PGBUILD_INSPECT_H

#include "wrapper/common/json.h"

/* What to print (the options of `pgbuild inspect`). */
struct inspect_opts {
	int json;             /* --json FILE given: the records as one document */
	int sites;            /* --sites */
	int units_only;       /* --units */
	int require;          /* --require: accepted; no record is always a failure */
	const char *function; /* --function NAME: only this function */
	const char *tu;       /* --tu PATH: only this unit */
};

/* Totals over everything printed. */
struct inspect_totals {
	long units;        /* translation units */
	long functions;    /* functions */
	long sites;        /* inlined call sites */
	long link_sites;   /* ... of which inlined at link time */
	long cross_sites;  /* ... of which across files */
	long refused;      /* calls not inlined */
	long matched;      /* functions shown (--function: those of that name) */
};

/*
 * Print one file's records (jw: as JSON units, its facts into fw) and add
 * to t.  Returns 0, 1 (no record: the sentence printed) or 2 (unreadable
 * or corrupt, the error printed).
 */
int inspect_file(const struct inspect_opts *o, const char *path,
		 struct json_writer *jw, struct json_writer *fw, struct inspect_totals *t);

#endif
