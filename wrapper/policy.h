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
 *
 *     [src/backend/utils/{mmgr/aset,hash/dynahash}.c]  a glob (glob.h)
 *     cflags += -O3                     over the TU path: here two files
 *
 * Every section whose glob matches applies, in file order ([global] first
 * wherever it stands is NOT special: it applies where it is written).
 * Errors are reported as "FILE:LINE: expected ..." and the policy is
 * rejected whole.  Removing PostgreSQL's required flags or adding the
 * fast-math family is an error.
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
	int plugin;                      /* plugin = on (default) / off */
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
 * Parse path into p.  Returns 0, or -1 with "path:line: expected ..."
 * text in err.
 */
int policy_load(struct policy *p, const char *path, struct strbuf *err);
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

#endif
