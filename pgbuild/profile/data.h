/*
 * data.h - a workload profile of the PostgreSQL server as data:
 * functions with a weight, attributed to translation units, ranked, and
 * turned into a hot list and a policy.  Pure logic (no processes), shared by
 * `pgbuild profile` and `pgbuild pgo`, and unit-tested.
 *
 * Weights come from one of two profilers:
 *   perf  - cpu-clock samples of the server processes (`perf report` text,
 *           prof_parse_perf); every sample in every object is kept so the
 *           share of time outside the server binary (kernel, libc) is known;
 *   gcov  - line execution counts of an instrumented build (`gcov
 *           --json-format` documents, prof_parse_gcov): the weight of a
 *           function is the sum of the counts of its executed lines, a proxy
 *           for the work done in it; the data file names the unit.
 *
 * Attribution: the profilers name functions as the linker sees them
 * ("tuplesort_heap_replace_top.isra.0", "ExecInterpExpr.cold"); the base
 * name (up to the first '.') is the C name.  A prof_map says which
 * translation unit defines which name (from the objects of the build or the
 * pgopt.so records in the binary).  A static name defined in several units
 * is ambiguous: its weight goes to the first unit and the entry is flagged.
 */
#ifndef PGBUILD_PROFILE_DATA_H
#define PGBUILD_PROFILE_DATA_H

#include <stddef.h>

#include "wrapper/common/json.h"
#include "wrapper/common/strbuf.h"

/* One function as the profiler saw it. */
struct prof_entry {
	char *name;       /* symbol name, e.g. "foo.isra.0"; "[unknown]" */
	char *base;       /* C name: name up to the first '.' */
	char *dso;        /* object it ran in ("postgres", "[kernel.kallsyms]") */
	char *tu;         /* translation unit, or NULL when unknown */
	double weight;    /* samples (perf) or line executions (gcov) */
	int in_server;    /* dso is the server binary (or gcov: always 1) */
	int ambiguous;    /* several units define a static of this name */
};

/* One translation unit with the summed weight of its functions. */
struct prof_file {
	char *tu;         /* e.g. "src/backend/utils/hash/dynahash.c" */
	double weight;
	size_t nfuncs;    /* functions with weight > 0 */
};

struct profile {
	char *method;             /* "perf" or "gcov" */
	struct prof_entry *v;     /* after prof_finish: by weight, descending */
	size_t nr, alloc;
	double total;             /* weight of everything profiled */
	double server;            /* ... of it in the server binary */
	double attributed;        /* ... of that in a known unit */
	struct prof_file *files;  /* after prof_finish: by weight, descending */
	size_t nfiles;
	size_t *index;            /* hash of (name, dso, tu) -> entry + 1 */
	size_t index_size;        /* slots, a power of two */
};

#define PROFILE_INIT { NULL, NULL, 0, 0, 0, 0, 0, NULL, 0, NULL, 0 }

void prof_init(struct profile *p, const char *method);
void prof_release(struct profile *p);

/* The C name of a symbol: "foo.isra.0" -> "foo"; malloced. */
char *prof_base_name(const char *sym);

/* Add weight to (name, dso, tu), merging with an existing entry; prof_add
 * leaves the unit unknown (for prof_attribute). */
struct prof_entry *prof_add(struct profile *p, const char *name, const char *dso,
			    double weight, int in_server);
struct prof_entry *prof_add_tu(struct profile *p, const char *name, const char *dso,
			       const char *tu, double weight, int in_server);

/*
 * Parse `perf report --stdio --no-children -n --sort dso,sym -g none -t TAB`
 * output.  server_dso is the basename of the server binary ("postgres").
 * Returns the number of rows read, or -1 with a message in err when the text
 * has no sample rows at all.
 */
long prof_parse_perf(struct profile *p, const char *text, const char *server_dso,
		     struct strbuf *err);

/*
 * Add one `gcov --json-format --stdout` document (one line of its output):
 * the weight of every function is the sum of the counts of the lines gcov
 * assigns to it (inline functions from headers count in the unit that
 * executed them); tu names the unit and dso the object file (from the data
 * file's name); in_server says whether that object is part of the server.
 * Returns the number of new functions, or -1 with err set.
 */
long prof_parse_gcov(struct profile *p, const char *json, size_t len, const char *tu,
		     const char *dso, int in_server, struct strbuf *err);

/* Is the object at rel (relative to the build directory) part of the
 * server?  (src/backend, src/timezone, src/pl, contrib, and the _srv
 * variants of src/common and src/port.) */
int prof_object_in_server(const char *rel);

/* ---------------- name -> translation unit ---------------- */

struct prof_map_item {
	char *name;       /* C name */
	char *tu;
	int global;       /* external linkage */
};

struct prof_map {
	struct prof_map_item *v;  /* sorted by name after prof_map_sort */
	size_t nr, alloc;
};

#define PROF_MAP_INIT { NULL, 0, 0 }

void prof_map_add(struct prof_map *m, const char *name, const char *tu, int global);
void prof_map_sort(struct prof_map *m);
void prof_map_release(struct prof_map *m);
/*
 * The unit defining name: a global definition wins; otherwise the first of
 * the static ones (*ambiguous set when there are several units).  NULL when
 * none.
 */
const char *prof_map_lookup(const struct prof_map *m, const char *name, int *ambiguous);

/* Give every server entry without a unit the one m names. */
void prof_attribute(struct profile *p, const struct prof_map *m);

/* Sort entries, sum the totals and build the per-file table. */
void prof_finish(struct profile *p);

/* ---------------- selections and outputs ---------------- */

/*
 * How many of the first files (by weight) cover pct percent of the
 * attributed weight, at most max_files (0: no limit), at least 1 when any
 * file has weight.
 */
size_t prof_cover_files(const struct profile *p, double pct, size_t max_files);

/*
 * The hot functions: C names of server functions, by weight, until pct
 * percent of the server weight is covered, at most max (0: no limit), one
 * per line, each name once.  Returns how many were written.
 */
size_t prof_write_hotlist(const struct profile *p, double pct, size_t max,
			  struct strbuf *out);

/*
 * The cold functions: functions defined in the first nfiles files (from the
 * map) that the profile never saw, one per line.  Returns how many.
 */
size_t prof_write_coldlist(const struct profile *p, size_t nfiles,
			   const struct prof_map *m, struct strbuf *out);

/* What prof_write_policy writes. */
struct prof_policy_opts {
	size_t nfiles;            /* the first nfiles files get cflags */
	const char *cflags;       /* e.g. "-O3 -finline-functions" */
	const char *hot;          /* hot list path as written in the policy, or NULL */
	const char *cold;         /* cold list path, or NULL */
	const char *comment;      /* header comment lines (each gets "# "), or NULL */
	const char *path;         /* where it will be written (for messages), or NULL */
};

/* A policy: a header comment, [global] hot/cold, one section per file,
 * built with the policy editor (wrapper/policy/edit.h).  Appends to out;
 * 0, or -1 with the parser's reason printed (cflags it refuses). */
int prof_write_policy(const struct profile *p, const struct prof_policy_opts *o,
		      struct strbuf *out);

/* The profile as JSON: totals, functions (at most max_funcs, 0 = all), files. */
void prof_write_json(const struct profile *p, size_t max_funcs, struct json_writer *jw);

/*
 * Read back what prof_write_json wrote (pgbuild profile --from FILE).
 * Returns 0, or -1 with err set.
 */
int prof_read_json(struct profile *p, const struct json_value *doc, struct strbuf *err);

#endif
