/*
 * explain/explain.h - where a cycles-estimate change comes from
 * (`pgbuild explain`, and the same section in gate's, run's, report's and
 * optimize's outputs): the per-function costs of two builds from the
 * callgrind runs of the cycles metric, joined with what the compiler did
 * to each function in each build.
 *
 * Inputs per side (A baseline, B candidate):
 *   - the two callgrind output files of the cycles metric (N and 10N
 *     statements, metric/cycles.h), read by callgrind.h;
 *   - the binary: its function symbols (sizes, .cold parts, BOLT's
 *     sections) and the plugin's records (.pgopt.log: per function the
 *     inlined callees, GCC's reason for each call not inlined, the section;
 *     per unit the flags pgoptcc added and the policy lines that matched);
 *   - the build record PREFIX/pgopt-build.json and the compile log it names
 *     (per unit the flags and the policy's file:line, for a build without
 *     plugin records).
 *
 * Per function, per transaction: (10N run - N run) / 9N of every event, as
 * cycles_per_tx() does for the totals, so start-up cost cancels; the
 * figures are metric/cycles.h's (instructions, I1 misses, L1 and LL misses,
 * branch mispredictions, the estimate), exclusive ("self") and inclusive.
 * Functions are rows by names.h (clones, LTO renames, cold parts: one
 * row), per object (the server, each library).
 *
 * Attribution: where one side inlined a callee X into C (its records say
 * so: an inlined site) and the other side calls X out of line (its
 * callgrind graph has the call), the other side's cost of X is moved into
 * C in the proportion the call graph gives (the inclusive cost of the
 * path C -> ... -> X over X's inclusive cost from all callers; through
 * the site's inline chain), so C is compared with C.  Totals are kept:
 * the rows' self costs add up to each side's total, which is the files'
 * "totals:" line, the gate's figure to its resolution.
 *
 * The decision behind a row: callees inlined on one side only, with what
 * the other side did (GCC's reason from its records; or, without records,
 * the call callgrind saw and, across files without LTO, that); sizes; the
 * section (.text.hot, .text.unlikely, a .cold part); the unit's flags and
 * the policy line; BOLT's layout where a binary was rewritten.
 *
 * Does it add up: rows by |change of the estimate|, each with its share of
 * the total change; the shares of the top 10 and top 50; and, with a
 * per-function layout spread (--noise FILE, a "pgbuild-noise" document),
 * the share of the change in rows whose change is inside their spread.
 * Without one the output says the spread is not measured.
 */
#ifndef PGBUILD_EXPLAIN_H
#define PGBUILD_EXPLAIN_H

#include <stddef.h>
#include <stdio.h>

#include "pgbuild/elf/elfrec.h"
#include "pgbuild/explain/callgrind.h"
#include "pgbuild/explain/names.h"
#include "pgbuild/explain/strmap.h"
#include "pgbuild/metric/cycles.h"
#include "wrapper/common/strbuf.h"

/* The JSON document's kind and version. */
#define EXPLAIN_KIND "pgbuild-explain"
#define EXPLAIN_VERSION 1
/* Rows the gate's and report's sections show, and keep in the gate JSON. */
#define EXPLAIN_SECTION_ROWS 10
#define EXPLAIN_KEEP_ROWS 50
/* The repeat floor of the total estimate (same binary, same directory),
 * measured: 0.001-0.012% (cycles.h, README); stated, never a spread. */
#define EXPLAIN_REPEAT_FLOOR "0.01%"

/* What a side's compile log says of one unit. */
struct explain_unit {
	char *tu;        /* path relative to the source root */
	char *added;     /* flags pgoptcc added, space separated */
	char *rules;     /* the policy's file:line list */
};

/* The plugin's records of one function (all its clones and parts). */
struct explain_recs {
	struct {
		const struct json_value *fn;    /* the "fn" record */
		const struct json_value *unit;  /* the "unit" record it belongs to */
	} *v;
	size_t nr, alloc;                   /* used, allocated */
};

/* One build: its binary, records and compile log. */
struct explain_side {
	char *label;                 /* "A" or "B" */
	char *prefix;                /* the install, NULL when given a binary */
	char *binary;                /* its executable (bin/postgres) */
	char *real;                  /* realpath of binary (callgrind's ob=) */
	struct elfrec_file elf;      /* symbols and .pgopt.log */
	struct elfrec_unit *units;   /* the plugin's unit records */
	size_t nunits;               /* how many */
	int lto;                     /* link-time records exist (LTO build) */
	int bolt;                    /* rewritten by BOLT */
	struct strmap recs;          /* base name -> struct explain_recs * */
	struct explain_sym *syms;    /* function symbols for the matcher */
	size_t nsyms;                /* how many */
	char **sym_files;            /* owned files of syms (records' files) */
	struct explain_unit *log;    /* compile log units, sorted by tu */
	size_t nlog;                 /* how many */
	char *logdir;                /* where the compile log was read */
	char *srcdir;                /* the source tree its build record names */
	struct cg_profile prof[2];   /* callgrind: N and 10N runs */
	char *files[2];              /* their paths */
};

/* A callee inlined into a row's function on one side only. */
struct explain_site {
	char *callee;        /* its base name */
	char *callee_file;   /* its file (relative), NULL: unknown */
	int cross_file;      /* defined in another .c file than the caller */
	int side;            /* the side that inlined it: 0 A, 1 B */
	char *stage;         /* the record's stage: early, ipa, lto */
	char *other;         /* what the other side did, one phrase */
	int reason_is_gcc;   /* other is GCC's reason (else callgrind's call) */
	double calls_other;  /* calls per transaction on the other side, NAN */
	double cost_other;   /* their inclusive estimate per transaction, NAN */
	size_t *froms;       /* the other side's calling rows counted in them */
	size_t nfroms, alloc_froms; /* used, allocated */
};

/* A callee's cost moved into a row (see the header comment). */
struct explain_absorbed {
	char *callee;        /* its base name */
	int side;            /* the side whose cost moved (the one that called it) */
	double estimate;     /* estimate per transaction moved */
};

/* Who calls a library function (a row whose code neither build made), per
 * side: its cost changes only with those calls. */
struct explain_caller {
	char *caller;        /* the calling row's key */
	double calls[2];     /* calls per transaction, A and B */
	double incl[2];      /* their inclusive estimate per transaction */
};

/* The callers kept per library row: the largest changes. */
#define EXPLAIN_CALLERS_MAX 5

/* One source function of either build. */
struct explain_row {
	char *key;                 /* names.h's key */
	char *object;              /* "" the binary, else the library's file name */
	struct cycles_tx self[2];  /* exclusive, after attribution */
	struct cycles_tx incl[2];  /* inclusive */
	double calls[2];           /* calls into it per transaction */
	int present[2];            /* callgrind saw it on that side */
	double change;             /* self estimate B - A */
	double share;              /* change / the total change */
	double noise;              /* its layout spread (estimate), NAN: not known */
	char *symbols[2];          /* its symbols, space separated */
	double size[2];            /* bytes of code (NAN: no symbol) */
	double cold[2];            /* of which .cold parts */
	char *section[2];          /* what the records or symbols say, NULL */
	char *tu;                  /* its translation unit, NULL unknown */
	char *flags[2];            /* the unit's added flags per side */
	char *rules[2];            /* the policy lines per side */
	char *bolt[2];             /* BOLT: moved, split, unchanged; NULL */
	struct explain_site *sites;        /* inlined on one side only */
	size_t nsites, alloc_sites;        /* used, allocated */
	struct explain_absorbed *absorbed; /* callees' costs moved in */
	size_t nabsorbed, alloc_absorbed;  /* used, allocated */
	struct explain_caller *callers;    /* a library row's callers whose
					      calls changed most (see above) */
	size_t ncallers;                   /* used (at most EXPLAIN_CALLERS_MAX) */
};

/* Everything explain found. */
struct explain_result {
	char *workload;            /* the workload measured, or NULL */
	long statements;           /* N */
	struct cycles_tx total[2]; /* the rows' sums per side */
	struct cycles_tx summary[2]; /* the files' summary lines, per transaction */
	double change;             /* total estimate B - A */
	double gross;              /* sum of |row change| */
	double top10, top50;       /* shares of the total change */
	struct explain_row *rows;  /* by |change|, largest first */
	size_t nr, alloc;          /* used, allocated */
	int noise_measured;        /* a --noise file was given */
	char *noise_source;        /* its path, or NULL */
	double in_noise;           /* share of the change inside the spread */
	size_t rows_in_noise;      /* rows inside it */
	struct strvec notes;       /* sentences about the inputs */
};

/* ---------------- inputs (side.c) ---------------- */

/*
 * Load a side: path is an install prefix (PATH/bin/postgres) or an
 * executable; its symbols, plugin records, build record and compile log.
 * 0, or -1 after one error naming the file.
 */
int explain_side_load(struct explain_side *s, const char *label, const char *path);

/*
 * Read the callgrind output files of the N and 10N runs into s.  A file in
 * a directory another user writes (the server user's) is read through
 * safefs's bounded reader, never following a link.  0, or -1 after one
 * error naming the file.
 */
int explain_side_profiles(struct explain_side *s, const char *file_n, const char *file_10n);

void explain_side_release(struct explain_side *s);

/*
 * Symbol name -> source file of an LTO link's link-time function records
 * into m (its STT_FILE symbols are artificial); explain_record_file gives
 * the file, NULL for a name records of two files carry.
 */
void explain_record_files(const struct elfrec_unit *units, size_t nunits, struct strmap *m);
const char *explain_record_file(const struct strmap *m, const char *name);

/* ---------------- computing (rows.c, decide.c, sum.c) ---------------- */

/*
 * Rows of both sides from their profiles: per-function costs per
 * transaction (n = N), attribution of inlined-away callees, the decisions
 * behind each row, sorted and summed.  noise: a parsed "pgbuild-noise"
 * document or NULL.
 */
struct json_value;
void explain_compute(struct explain_result *r, struct explain_side sides[2], long n,
		     const struct json_value *noise, const char *noise_source);

void explain_result_release(struct explain_result *r);

/* ---------------- from start to end (run.c) ---------------- */

/* What explain_run needs. */
struct explain_inputs {
	const char *baseline, *candidate; /* prefixes or executables */
	const char *files[2][2];          /* callgrind outputs [side][N run, 10N run] */
	long statements;                  /* N */
	const char *workload;             /* for the document; NULL: not named */
	const char *noise;                /* --noise FILE, or NULL */
	int noise_optional;               /* noise is the gate's floor: a document
					     without this workload's functions
					     leaves the spread out (not measured),
					     silently, instead of an error */
	size_t keep_rows;                 /* rows in the document, 0: all */
};

/* Load both sides, compute, and write the JSON document into out.  0, or
 * -1 after one error. */
int explain_run(const struct explain_inputs *in, struct strbuf *out);

/* ---------------- outputs (doc.c, render.c) ---------------- */

/*
 * The result as the JSON document (EXPLAIN_KIND) with at most max_rows
 * rows (0: all); baseline and candidate name the builds.
 */
void explain_write_json(const struct explain_result *r, const char *baseline,
			const char *candidate, size_t max_rows, struct strbuf *out);

/* Is doc an explain document this version reads?  0, or -1 with why. */
int explain_doc_check(const struct json_value *doc, struct strbuf *why);

/* The table for a terminal (fits 100 columns): rows rows, then the sums. */
/*
 * A unit's added flags and policy lines in words, into sb: "+ FLAGS
 * (policy FILE:LINE ...)", the file's base name when basenames, and the
 * flags of pgbuild pgo's profile mode (policy.h's POLICY_PROFILE_*, which
 * PGOPT_PROFILE adds and no policy may hold) apart: ", + -fprofile-use ...
 * (the profile: pgbuild pgo's PGOPT_PROFILE, or a bundle's PGOPT_BUNDLE)"; "no flags added" for none.
 */
void explain_flags_text(struct strbuf *sb, const char *flags, const char *rules, int basenames);
void explain_render_text(const struct json_value *doc, size_t rows, FILE *fp);

/* The HTML section: a sorted bar chart of the rows' changes and the table
 * of their decisions (strbuf_addstr_html'd, inline SVG). */
void explain_render_html(const struct json_value *doc, size_t rows, struct strbuf *out);
/* The style rules that section needs, for a page of its own. */
void explain_html_css(struct strbuf *out);

#endif
