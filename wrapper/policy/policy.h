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
 * cflags).  Flags are an allow-listed optimization vocabulary (vocab.h):
 * an option it does not know, and what loads code, names a path, changes
 * what the compiler produces or is no optimization option, is refused,
 * added or removed, unless the caller (never the policy) sets
 * PGOPT_UNCHECKED_FLAGS=1 (POLICY_UNCHECKED_FLAGS).  A flag that weakens
 * the build's hardening (vocab.h: stack-protector, cet, pie, relro,
 * bind-now, fortify, stack-clash) is refused unless the caller allows its
 * class by name, PGOPT_WEAKEN=pie,relro (POLICY_WEAKEN); every compile's
 * record then names the classes weakened there (policy_result.weakened).
 * Removing PostgreSQL's required flags, adding the fast-math family, and
 * adding or removing a flag that changes the ABI (-fpack-struct,
 * -fshort-enums, -funsigned-char, -m32, ...; in any section, [global] too)
 * is an error whatever the caller says.  The keys of [global] (lto,
 * plugin, bolt, hot, cold) are set once per policy and march once per
 * section: a second line is an error naming both.  Values are only the
 * documented ones (on|off, not yes/true/1).  A UTF-8 byte-order mark at
 * the start is skipped; a NUL byte is an error at its line.  Files (the
 * policy, its lists) are read as regular files of at most SFS_READ_LIMIT
 * bytes (safefs.h): a FIFO or a device is refused, never read.
 *
 * Warnings (policy.warnings, never printed by the parser): a section that
 * can never match a C translation unit - a bare directory, an absolute
 * path, a glob that cannot end in ".c".
 */
#ifndef PGOPT_POLICY_H
#define PGOPT_POLICY_H

#include <stddef.h>
#include "wrapper/common/sha256.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"
#include "wrapper/policy/vocab.h"

/*
 * lto = off | on | fat | slim.  on: -flto=auto, and fat LTO objects
 * (-ffat-lto-objects) where the compiler is GCC, so objects archived into
 * static libraries keep real code after strip --strip-debug (dh_strip
 * removes the .gnu.lto_* sections of .a files); fat: the same, refused
 * with a compiler that is not GCC; slim: slim LTO objects (IR only).
 */
enum policy_lto { LTO_OFF, LTO_ON, LTO_FAT, LTO_SLIM };

struct policy_op {
	int add;          /* 1: "+=", 0: "-=" */
	int link;         /* 1: ldflags, 0: cflags */
	char *flag;       /* one flag */
	int line;         /* its line in the policy */
	char *unchecked;  /* outside the vocabulary (the reason), accepted
			   * under POLICY_UNCHECKED_FLAGS; NULL normally */
	unsigned weakens; /* the hardening classes it weakens (1u <<
			   * VOCAB_HARD_...), allowed by POLICY_WEAKEN */
};

struct policy_section {
	char *glob;              /* as written between the brackets */
	int global;              /* the [global] section */
	struct strvec patterns;  /* brace-expanded patterns */
	int line;                /* line of the [header] */
	int march_line;          /* line of its march key, 0 if absent */
	struct policy_op *ops;   /* in file order */
	size_t nr_ops, alloc_ops;
};

struct policy {
	char *path;                      /* absolute path of the file */
	char sha256[SHA256_HEX_SIZE];    /* its text's SHA-256 as policy_load
					  * read it ("" from policy_parse): the
					  * compile log records it, and verify
					  * reads a policy a log names only when
					  * the file still hashes so */
	struct policy_section *sections; /* in file order */
	size_t nr_sections, alloc_sections;
	enum policy_lto lto;             /* lto = ... */
	int lto_line;                    /* line of the lto key, 0 if absent */
	char *hot, *cold;                /* absolute paths, or NULL */
	int hot_line, cold_line;         /* their lines, 0 if absent */
	int plugin;                      /* plugin = on (default) / off */
	int plugin_line;                 /* line of the plugin key, 0 if absent */
	int unchecked;                   /* parsed with POLICY_UNCHECKED_FLAGS */
	unsigned weaken;                 /* the hardening classes the caller
					  * lets it weaken (POLICY_WEAKEN) */
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
	struct strvec unchecked; /* flags of the sections applied that are
				  * outside the vocabulary (POLICY_UNCHECKED) */
	unsigned weakened;      /* hardening classes weakened here: by a flag
				 * added, or removed from the command line */
	int lists;              /* hot/cold lists apply (a compile, plugin on) */
	int changed;            /* anything added or removed, or lists apply */
	char *refusal;          /* why the compile may not run so (a removal
				 * left it without optimization, and so
				 * without _FORTIFY_SOURCE, which the caller
				 * did not allow), "FILE:LINE: ..."; NULL */
};

/* Flags of policy_load and policy_parse_flags: what the caller allows. */
#define POLICY_UNCHECKED_FLAGS 1u /* flags outside the vocabulary (the
				   * caller's PGOPT_UNCHECKED_FLAGS=1): each
				   * is a warning and marked in its op */
/* ... the hardening classes mask (1u << VOCAB_HARD_...) may be weakened
 * (the caller's PGOPT_WEAKEN): each flag that does is a warning and marked
 * in its op */
#define POLICY_WEAKEN(mask) (((unsigned)(mask) & VOCAB_HARD_ALL) << 8)
#define POLICY_WEAKEN_MASK(flags) (((unsigned)(flags) >> 8) & VOCAB_HARD_ALL)
/* ... and everything the caller could allow: for the policies pgbuild
 * writes and edits (pgo, optimize, tune, sensitivity, bundle), which the
 * build that uses them checks again with the caller's own switches */
#define POLICY_UNCHECKED (POLICY_UNCHECKED_FLAGS | POLICY_WEAKEN(VOCAB_HARD_ALL))

/*
 * Read and parse path into p, and check that the hot and cold lists it
 * names can be read.  Returns 0, or -1 with "path:line: ..." text in err
 * (call policy_release either way).
 */
int policy_load(struct policy *p, const char *path, unsigned flags, struct strbuf *err);
/* Parse text only (no file is read); the same errors but the lists'. */
int policy_parse(struct policy *p, const char *path, const char *text,
		 size_t len, struct strbuf *err);
int policy_parse_flags(struct policy *p, const char *path, const char *text,
		       size_t len, unsigned flags, struct strbuf *err);

/*
 * Read a hot or cold list (or any file a policy names) the bounded way:
 * a regular file of at most SFS_READ_LIMIT bytes, appended to out.
 * Returns 0, or -1 with the reason alone in err ("it is a FIFO, expected
 * a regular file", "No such file or directory").
 */
int policy_read_list(const char *path, struct strbuf *out, struct strbuf *err);
void policy_release(struct policy *p);

/*
 * Where the comment of one policy line starts: the offset of its '#' (at
 * the start or after white space, outside quotes), or strlen(line) when it
 * has none.  The parser cuts lines there; the editor (edit.h) keeps what
 * follows when it rewrites a line.
 */
size_t policy_comment_start(const char *line);

/* Does any section match tu?  (Used to decide whether a TU is touched.) */
int policy_section_matches(const struct policy_section *s, const char *tu);

/*
 * The sections of p that the translation units tus (n of them: the units
 * a build compiled, from its compile log) leave unused: one line each in
 * out, in file order, "FILE:LINE: section [GLOB] matched none of the N
 * translation units compiled" - or, for a brace glob some of whose
 * patterns matched, "... its pattern PAT matched none ..." (a misspelt
 * name in {a,b,c} is as silent as a misspelt section).  [global] applies
 * to every compile and link and is never one.  Returns how many lines.
 */
size_t policy_unmatched(const struct policy *p, const char *const *tus, size_t n,
			struct strvec *out);

/*
 * Apply p to args (argv without argv[0]) of a compile of tu, or of a link
 * when tu is NULL.  args is edited: removals taken out, additions appended.
 */
void policy_apply(const struct policy *p, const char *tu, struct strvec *args,
		  struct policy_result *res);
void policy_result_release(struct policy_result *res);

/*
 * May a policy add (add 1) or remove (add 0) flag in cflags (link 0) or
 * ldflags (link 1), with what the caller allows (flags: POLICY_WEAKEN,
 * POLICY_UNCHECKED_FLAGS)?  NULL, or the reason it may not (semantics and
 * ABI, the vocabulary, hardening), valid until the next call.
 */
const char *policy_refusal(const char *flag, int add, int link, unsigned flags);
/* ... in cflags, with nothing allowed. */
const char *policy_forbidden_add(const char *flag);
const char *policy_forbidden_remove(const char *flag);

/* The hardening classes p weakens: those of all its flags. */
unsigned policy_weakens(const struct policy *p);

/*
 * The profile mode, PGOPT_PROFILE=MODE [GLOB...]: a caller-only setting
 * (never in a policy or pgoptcc.conf), with which pgbuild pgo builds its
 * instrumented and its optimized stage.  MODE generate adds
 * POLICY_PROFILE_GENERATE to the compiles of the units the globs match
 * (every unit without globs) and POLICY_PROFILE_LINK to every link; use
 * adds POLICY_PROFILE_USE to those compiles and nothing to links (the
 * profile is read at compile time, .gcda files next to the objects).
 *
 * LLVM (clang) writes one .profraw per binary where LLVM_PROFILE_FILE
 * says and reads one merged .profdata for every unit: with llvm set,
 * generate adds POLICY_PROFILE_GENERATE_LLVM to compiles and links, and
 * the mode use=FILE (FILE absolute: the merged profile) adds
 * -fprofile-use=FILE; plain use has no file for it, and use=FILE none for
 * GCC (policy_profile_check says so).
 */
enum policy_profile_mode { PROFILE_NONE, PROFILE_GENERATE, PROFILE_USE };
struct policy_profile {
	enum policy_profile_mode mode;
	char *data;               /* use=FILE: the .profdata, or NULL */
	struct strvec patterns;   /* brace-expanded globs; empty: every unit */
};
#define POLICY_PROFILE_GENERATE "-fprofile-generate -ftest-coverage"
#define POLICY_PROFILE_LINK     "-fprofile-generate"
#define POLICY_PROFILE_USE      "-fprofile-use -fprofile-partial-training -Wno-error=coverage-mismatch"
#define POLICY_PROFILE_GENERATE_LLVM "-fprofile-generate"
#define POLICY_PROFILE_USE_LLVM "-fprofile-use=FILE"

/* Parse value into pp; -1 with what was expected in err. */
int policy_profile_parse(struct policy_profile *pp, const char *value, struct strbuf *err);
void policy_profile_release(struct policy_profile *pp);
/* Can a compiler (llvm: clang, else GCC) take the mode?  NULL, or what
 * is wrong, in words. */
const char *policy_profile_check(const struct policy_profile *pp, int llvm);
/* Add the profile flags to args and res for a compile of tu (NULL: a
 * link), for GCC or (llvm) clang; policy_profile_check passed. */
void policy_profile_apply(const struct policy_profile *pp, const char *tu, int llvm,
			  struct strvec *args, struct policy_result *res);

/*
 * A profile bundle (pgbuild bundle; pgoptcc's bundle setting) keeps the
 * training's .gcda of each unit at one path inside the bundle, made from
 * the unit's name and its object's: "gcda/DIR/STEM.gcda", DIR the unit
 * name's directory, STEM the object's file name without its suffix (a
 * unit compiled into two objects has two).  NULL when the unit's name is
 * not a relative path inside its tree (absolute, or with a ".."
 * component) or there is no object: no bundle profile applies to it.
 */
char *policy_bundle_gcda(const char *tu, const char *object);

/* The bundle's manifest, at its top: what makes a directory a bundle. */
#define POLICY_BUNDLE_MANIFEST "pgopt-bundle.json"

/* The flags bolt = ready adds to compiles, and to links. */
#define POLICY_BOLT_CFLAG  "-fno-reorder-blocks-and-partition"
#define POLICY_BOLT_LDFLAG "-Wl,--emit-relocs"
/* ... and to a compile or link that asks for debug information (-g...):
 * BOLT 15 carries DWARF 4 over a rewrite (-update-debug-sections) but
 * fails on GCC 12's default DWARF 5, and without that option drops it */
#define POLICY_BOLT_DWARF  "-gdwarf-4"

#endif
