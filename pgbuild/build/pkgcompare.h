/*
 * pkgcompare.h - what a package build links, against the archive's
 * package of the same source: for every ELF file both ship, its needed
 * libraries, the symbols it leaves undefined that nothing defines, and
 * what it exports (`pgbuild deb`'s compare stage).
 *
 * `pgbuild verify` checks the flags each object got; it cannot see that a
 * module was linked against the wrong library.  A package whose
 * llvmjit.so lost its DT_NEEDED libLLVM-14.so.1 (configure found another
 * LLVM's llvm-config, without its library) passes verify and fails every
 * query that JIT-compiles, with "undefined symbol: _ZN4llvm...".  This
 * compares what the dynamic linker sees:
 *
 *   needed      DT_NEEDED of the file: one the archive's file has and ours
 *               has not is a failure when ours still refers to a symbol
 *               that library defines (the llvmjit.so that lost
 *               libLLVM-14.so.1); when ours refers to none (the linker's
 *               --as-needed, PostgreSQL's default, left out a libm whose
 *               only caller LTO folded away) it is a note, as a new one is;
 *   undefined   the symbols the file leaves undefined (not weak) that no
 *               library of its needed closure defines (breadth-first, as
 *               ld.so loads them: each needed library found through the
 *               file's DT_RUNPATH, then the library directories, below the
 *               side's root first, then on the system), nor, for a
 *               library or module, a program of the same packages (a
 *               module loaded into postgres takes postgres's exports): one
 *               that ours leaves so and the archive's does not is a
 *               failure, the symbols named;
 *   exports     the symbols the file defines for others (.dynsym, GLOBAL,
 *               WEAK or GNU_UNIQUE, not hidden) but those a library of its
 *               needed closure defines too (a program's copy relocations
 *               of a library's variables: stdout, optarg, readline's rl_*,
 *               which a build whose code reaches them through the GOT has
 *               none of): one the archive's exports and ours does not is a
 *               failure (new ones are a note).
 *
 * Files are matched by path; an ELF file of a package both sides have
 * that the archive's holds and ours does not is a failure, one only ours
 * holds a note.  Symbol versions are not compared (names only).  Only
 * ELF programs and shared objects are read (not .o or .a files).
 *
 *     struct pkgcmp_result r = PKGCMP_RESULT_INIT;
 *     if (pkgcmp_compare(&opts, &r, &err) < 0) ... could not run ...
 *     pkgcmp_print(stdout, &r);     r.failures: files with a failure
 *     pkgcmp_release(&r);
 */
#ifndef PGBUILD_PKGCOMPARE_H
#define PGBUILD_PKGCOMPARE_H

#include <stdio.h>

#include "wrapper/common/json.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"

/* A regular file of a package (what dpkg-deb -c lists). */
struct pkgcmp_file {
	const char *path;     /* relative to the root: "usr/lib/x.so" */
	const char *package;  /* the binary package that holds it */
};

/* One side: packages extracted into one root. */
struct pkgcmp_side {
	const char *root;                 /* where their files are */
	const struct pkgcmp_file *files;  /* every regular file of them */
	size_t nfiles;
};

struct pkgcmp_opts {
	struct pkgcmp_side cand;     /* ours: the package build's */
	struct pkgcmp_side arch;     /* the archive's packages */
	/* absolute directories a needed library is looked for in after the
	 * file's DT_RUNPATH (the dynamic linker's default path), each first
	 * below the side's root, then on this system; NULL-terminated */
	const char *const *libdirs;
};

/* What one finding says of a file. */
enum pkgcmp_kind {
	PKGCMP_MISSING_FILE,  /* failure: the archive's package has it, ours not */
	PKGCMP_UNREADABLE,    /* failure: ours is no readable ELF file */
	PKGCMP_LOST_NEEDED,   /* failure: needed libraries the archive's has */
	PKGCMP_UNRESOLVED,    /* failure: undefined symbols nothing defines,
			       * that the archive's resolves or has not */
	PKGCMP_LOST_EXPORT,   /* failure: symbols the archive's exports */
	PKGCMP_NEW_FILE,      /* note: only ours has it */
	PKGCMP_UNUSED_NEEDED, /* note: needed libraries the archive's has, ours
			       * not, and ours refers to none of their symbols */
	PKGCMP_NEW_NEEDED,    /* note: needed libraries only ours has */
	PKGCMP_NEW_EXPORT,    /* note: symbols only ours exports */
	PKGCMP_NOT_FOUND,     /* note: needed libraries found nowhere (on our
			       * side: their symbols count as undefined) */
	PKGCMP_NKINDS
};

/* Is a finding of this kind a failure? */
int pkgcmp_kind_fails(enum pkgcmp_kind k);

struct pkgcmp_finding {
	char *path;            /* the file, relative to the root */
	char *package;         /* its package (ours, else the archive's) */
	enum pkgcmp_kind kind;
	struct strvec items;   /* the libraries or symbols, sorted */
};

struct pkgcmp_result {
	struct pkgcmp_finding *v;  /* in path order */
	size_t nr, alloc;
	long files;                /* ELF files of ours compared */
	long failed;               /* of them (and missing ones) with a failure */
	long failures;             /* findings that are failures */
};
#define PKGCMP_RESULT_INIT { NULL, 0, 0, 0, 0, 0 }

/*
 * Compare the sides.  0 with the findings in r (r->failures of them
 * failures), or -1 with err set when a side cannot be read at all (its
 * root is missing).  A file of ours that is not readable ELF where the
 * archive's is, is a finding, not an error.
 */
int pkgcmp_compare(const struct pkgcmp_opts *o, struct pkgcmp_result *r, struct strbuf *err);

/*
 * One line per finding: "FAIL PATH (PACKAGE): what" or "note PATH ...:
 * what", at most max_items symbols each (then "and N more"), failures
 * first.
 */
void pkgcmp_print(FILE *out, const struct pkgcmp_result *r, size_t max_items);

/* The findings as a JSON array of {path, package, kind, fails, items}. */
void pkgcmp_json(struct json_writer *jw, const struct pkgcmp_result *r);

void pkgcmp_release(struct pkgcmp_result *r);

#endif
