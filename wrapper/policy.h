/*
 * policy.h - the policy file: which flags each translation unit gets.
 *
 * Format (editorconfig-like; '#' starts a comment where a word may start):
 *
 *     [global]                  settings for every compile and link
 *     cflags += -march=native   add flags (gcc quoting: -DX="a b")
 *     cflags -= -g              remove every occurrence, also make's own
 *     ldflags += -Wl,-O1        link lines only
 *     lto = on|off|fat          -flto=auto at compile and link (fat: also
 *                               -ffat-lto-objects)
 *     march = native            shorthand for cflags += -march=native
 *     hot = hot.txt             functions the plugin marks hot
 *     cold = cold.txt           ... and cold (paths relative to the policy);
 *                               a list makes every compile a changed one:
 *                               the plugin must run to mark its functions
 *     plugin = on|off           load pgopt.so into changed compiles (on)
 *     bolt = ready|off          ready: -fno-reorder-blocks-and-partition on
 *                               every compile, -Wl,--emit-relocs on every
 *                               link (what LLVM BOLT needs to rewrite the
 *                               binary); off (the default)
 *
 *     [src/backend/utils/{mmgr/aset,hash/dynahash}.c]  a glob (glob.h)
 *     cflags += -O3                     over the TU path: here two files
 *
 * Every section whose glob matches applies, in file order ([global] first
 * wherever it stands is NOT special: it applies where it is written).
 * Errors are reported as "FILE:LINE: expected ..." and the policy is
 * rejected whole; a misspelt key gets a suggestion (cflag, CFLAGS ->
 * cflags).  Removing PostgreSQL's required flags, adding the fast-math
 * family, and adding or removing a flag that changes the ABI
 * (-fpack-struct, -fshort-enums, -funsigned-char, -m32, ...; in any
 * section, [global] too) is an error.  Values are only the documented
 * ones (on|off, not yes/true/1).  A UTF-8 byte-order mark at the start is
 * skipped.
 *
 * Warnings (policy.warnings, never printed by the parser): a section that
 * can never match a C translation unit - a bare directory, an absolute
 * path, a glob that cannot end in ".c".
 */
#ifndef PGOPT_POLICY_H
#define PGOPT_POLICY_H

#include <stddef.h>
#include "strbuf.h"
#include "strvec.h"

enum policy_lto { LTO_OFF, LTO_ON, LTO_FAT };

struct policy_op {
	int add;          /* 1: "+=", 0: "-=" */
	int link;         /* 1: ldflags, 0: cflags */
	char *flag;       /* one flag */
	int line;         /* its line in the policy */
};

struct policy_section {
	char *glob;              /* as written between the brackets */
	int global;              /* the [global] section */
	struct strvec patterns;  /* brace-expanded patterns */
	int line;                /* line of the [header] */
	struct policy_op *ops;   /* in file order */
	size_t nr_ops, alloc_ops;
};

struct policy {
	char *path;                      /* absolute path of the file */
	struct policy_section *sections; /* in file order */
	size_t nr_sections, alloc_sections;
	enum policy_lto lto;             /* lto = ... */
	int lto_line;                    /* line of the lto key, 0 if absent */
	char *hot, *cold;                /* absolute paths, or NULL */
	int hot_line, cold_line;         /* their lines, 0 if absent */
	int plugin;                      /* plugin = on (default) / off */
	int bolt;                        /* bolt = ready (1) / off (0, default) */
	int bolt_line;                   /* line of the bolt key, 0 if absent */
	struct strvec warnings;          /* "FILE:LINE: ..." for the caller to
					  * show (--pgopt-check-policy, pgbuild);
					  * the parser never prints */
};

/* The result of applying a policy to one compile or link. */
struct policy_result {
	struct strvec rules;    /* "file:line" of every matching section */
	struct strvec added;    /* flags appended */
	struct strvec removed;  /* flags removed (each occurrence once) */
	int lists;              /* hot/cold lists apply (a compile, plugin on) */
	int changed;            /* anything added or removed, or lists apply */
};

/*
 * Read and parse path into p, and check that the hot and cold lists it
 * names can be read.  Returns 0, or -1 with "path:line: ..." text in err
 * (call policy_release either way).
 */
int policy_load(struct policy *p, const char *path, struct strbuf *err);
/* Parse text only (no file is read); the same errors but the lists'. */
int policy_parse(struct policy *p, const char *path, const char *text,
		 size_t len, struct strbuf *err);
void policy_release(struct policy *p);

/* Does any section match tu?  (Used to decide whether a TU is touched.) */
int policy_section_matches(const struct policy_section *s, const char *tu);

/*
 * Apply p to args (argv without argv[0]) of a compile of tu, or of a link
 * when tu is NULL.  args is edited: removals taken out, additions appended.
 */
void policy_apply(const struct policy *p, const char *tu, struct strvec *args,
		  struct policy_result *res);
void policy_result_release(struct policy_result *res);

/* Is flag forbidden to add / to remove?  Returns a reason or NULL. */
const char *policy_forbidden_add(const char *flag);
const char *policy_forbidden_remove(const char *flag);

/* The flags bolt = ready adds to compiles, and to links. */
#define POLICY_BOLT_CFLAG  "-fno-reorder-blocks-and-partition"
#define POLICY_BOLT_LDFLAG "-Wl,--emit-relocs"

#endif
