/*
 * classify.h - decide what a compiler command line is, and whether pgoptcc
 * may change it.
 *
 * classify_args() is a pure function: it reads an (already @file-expanded)
 * argument vector and fills a struct classification, never exits and never
 * prints.  Every outcome carries a named reason, which the compile log
 * records.  Anything the classifier does not fully understand becomes
 * KIND_PASSTHROUGH: the real compiler then runs with the caller's argv
 * unchanged.
 */
#ifndef PGOPT_CLASSIFY_H
#define PGOPT_CLASSIFY_H

#include <stddef.h>

enum cmd_kind {
	KIND_PASSTHROUGH, /* run unchanged */
	KIND_COMPILE,     /* one C source compiled (-c) or to assembler (-S) */
	KIND_LINK,        /* objects linked into an executable or shared object */
};

/* Why; keep in sync with classify_reason_name(). */
enum cmd_reason {
	REASON_C_COMPILE,        /* -c of one C source: policy applies */
	REASON_C_ASSEMBLE,       /* -S of one C source: policy applies */
	REASON_LINK_EXECUTABLE,  /* link of an executable */
	REASON_LINK_SHARED,      /* link with -shared */
	REASON_LINK_RELOCATABLE, /* -r partial link */
	REASON_QUERY,            /* --version, -dumpversion, -print-*, --help */
	REASON_NO_INPUT,         /* nothing to compile (e.g. "gcc -v") */
	REASON_PREPROCESS,       /* -E */
	REASON_DEPENDENCY_ONLY,  /* -M / -MM without -MD/-MMD */
	REASON_ASSEMBLER,        /* .s / .S / -x assembler input */
	REASON_OTHER_LANGUAGE,   /* C++, Objective-C, headers, .i ... */
	REASON_MULTIPLE_SOURCES, /* several sources in one compile */
	REASON_COMPILE_AND_LINK, /* sources compiled and linked in one call */
	REASON_STDIN_INPUT,      /* source read from "-" */
	REASON_CONFTEST,         /* autoconf probe (conftest.*) */
	REASON_MESON_PROBE,      /* meson probe (meson-private/, sanitycheck) */
	REASON_PASSTHROUGH_ENV,  /* PGOPT_PASSTHROUGH=1 */
	REASON_TOO_HARD,         /* -###, -wrapper, or an option missing its argument */
	REASON_NR
};

struct classification {
	enum cmd_kind kind;
	enum cmd_reason reason;
	const char *source;     /* the C source of a compile (points into argv) */
	const char *output;     /* -o argument, or NULL (points into argv) */
	int mode_c, mode_S, mode_E, mode_M; /* modes seen */
	size_t n_sources;       /* compilable sources of any language */
	size_t n_objects;       /* linker inputs (.o, .a, .so, -l) */
};

void classify_args(int argc, const char *const *argv, struct classification *out);
const char *classify_reason_name(enum cmd_reason r);
const char *classify_kind_name(enum cmd_kind k);

/* Is this input path an autoconf or meson probe?  Returns the reason or
 * REASON_NR when not. */
enum cmd_reason classify_probe(const char *path);

#endif
