/*
 * explain/names.h - GCC's symbol names traced back to the functions of the
 * source, and the symbols of two builds matched function by function: the
 * name matching `pgbuild explain` and `pgbuild report`'s size table share.
 *
 * GCC, LTO and the linker give one source function several symbol names:
 *
 *     foo.lto_priv.N   LTO made static foo private to a partition (a rename)
 *     foo.isra.N       an IPA-SRA clone (parameters removed or split)
 *     foo.constprop.N  an IPA-CP clone (constant arguments propagated)
 *     foo.part.N       partial inlining: the part of foo left out of line
 *     foo.cold         the cold part of foo (hot/cold partitioning)
 *     foo.localalias   a local alias of global foo (the same code)
 *     foo.org.N        BOLT: a jump left at foo's old address (the code moved;
 *                      its split part is foo.cold.N)
 *
 * in any combination (foo.constprop.0.isra.0, foo.part.0.lto_priv.0,
 * heap_getattr.lto_priv.3.lto_priv.0, foo.isra.0.cold), the number after a
 * word optional (the plugin's records name callees "foo.isra"); callgrind
 * adds 'N to the name of a recursive activation (fn'2).  C identifiers
 * have no dots, so every dotted word is the compiler's; a word not in the
 * table (".str.1", "._omp_fn.0") ends the stripping and stays in the name.
 *
 * Matching: every symbol belongs to the row of its base name.  A base that
 * is more than one function on one side (static functions of one name in
 * two files) is scoped by file when asked: "base@file.c" per static, the
 * global one plain "base"; a fragment (cold, part, alias) joins the
 * function of its own file, else the side's one global function.  Only
 * when every static symbol of that base on both sides has a known file
 * that is not a header: a static inline function of a header is one
 * function in every file that includes it, and a static whose file is
 * not known (two records of one name in an LTO link) cannot be told
 * apart; such a base stays one row holding every function of its name.  The
 * file of a LOCAL symbol is the STT_FILE symbol before it in a plain link
 * (elfrec's file), or the plugin record's function file in an LTO link
 * (whose file symbols are artificial); only its base name is compared.
 * Code shared by several symbols (aliases, identical code folded by LTO:
 * the eight heap_getattr.lto_priv.N.lto_priv.0 at one address) is counted
 * once per side, in the first row (by key) that holds it.
 *
 * Pure: no I/O, nothing printed.
 */
#ifndef PGBUILD_EXPLAIN_NAMES_H
#define PGBUILD_EXPLAIN_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "wrapper/common/strbuf.h"

/* What a symbol's suffixes say it is (bits). */
enum explain_name_kind {
	EXPLAIN_NK_LTO_PRIV   = 1u << 0, /* .lto_priv.N: LTO's rename */
	EXPLAIN_NK_ISRA       = 1u << 1, /* .isra.N: IPA-SRA clone */
	EXPLAIN_NK_CONSTPROP  = 1u << 2, /* .constprop.N: IPA-CP clone */
	EXPLAIN_NK_PART       = 1u << 3, /* .part.N: partial inlining's rest */
	EXPLAIN_NK_COLD       = 1u << 4, /* .cold: the cold part */
	EXPLAIN_NK_LOCALALIAS = 1u << 5, /* .localalias: an alias */
	EXPLAIN_NK_RECURSION  = 1u << 6, /* 'N: callgrind's recursion level */
	EXPLAIN_NK_BOLT_ORG   = 1u << 7, /* .org.N: BOLT's jump at the old address */
	EXPLAIN_NK_LLVM       = 1u << 8, /* .llvm.N: clang's ThinLTO rename of a static */
};

/* One row of the suffix table. */
struct explain_suffix {
	const char *word;     /* ".lto_priv", ".isra", ... */
	unsigned kind;        /* its explain_name_kind bit */
	const char *meaning;  /* for people: "LTO rename", "IPA-SRA clone" */
};

/* GCC's suffixes, ending with a row whose word is NULL. */
extern const struct explain_suffix explain_suffixes[];

/*
 * The source function's name of symbol sym into base (replaced), and the
 * kinds its suffixes showed (0: a plain name).  "foo.constprop.0.isra.0"
 * gives "foo" and CONSTPROP | ISRA.
 */
unsigned explain_name_base(const char *sym, struct strbuf *base);

/* kinds for people ("LTO rename, IPA-SRA clone"), appended to out. */
void explain_name_kinds_text(unsigned kinds, struct strbuf *out);

/* Is a symbol of these kinds a fragment of a function (cold part,
 * partial inlining's rest, alias) rather than a definition of its own? */
int explain_name_is_fragment(unsigned kinds);

/* One function symbol given to the matcher. */
struct explain_sym {
	const char *name;  /* as in the symbol table */
	uint64_t addr;     /* its address: symbols at one address count once */
	uint64_t size;     /* bytes */
	const char *file;  /* source file of a LOCAL symbol (any path: its base
			      name is compared); NULL or "" unknown */
	int global;        /* GLOBAL or WEAK binding */
};

/* One function of either build: its symbols on each side. */
struct explain_symrow {
	char *key;          /* base, or "base@file.c" when scoped */
	char *base;         /* the source function's name */
	char *file;         /* the scope's file (base name); NULL unscoped */
	double size[2];     /* bytes of code per side (0 A, 1 B), shared code
			       once; NAN: no symbol on that side */
	double cold[2];     /* of which in .cold parts */
	unsigned kinds[2];  /* explain_name_kind bits of its symbols per side */
	size_t nsyms[2];    /* its symbols per side, aliases included */
	char *names[2];     /* those symbols' names, space separated ("" none) */
};

/* The rows of two builds, sorted by key. */
struct explain_symtab {
	struct explain_symrow *v;  /* rows */
	size_t nr, alloc;          /* used, allocated */
	char **scoped;             /* the base names scoped by file, sorted */
	size_t nscoped;            /* how many */
};

/*
 * Match the symbols of A (syms[0], n[0]) and B (syms[1], n[1]) into t
 * (empty before).  scoped: tell static functions of one name apart by
 * file (report's size table); 0: one row per base name (callgrind's
 * costs, which carry no file, merge such functions anyway).
 */
void explain_symtab_build(struct explain_symtab *t, const struct explain_sym *const syms[2],
			  const size_t n[2], int scoped);

/* The row of key, or NULL. */
const struct explain_symrow *explain_symtab_find(const struct explain_symtab *t,
						 const char *key);

/*
 * The key of a function called name (any of its symbol names) defined in
 * file (NULL: unknown) in t, into key (replaced): "base@file" when t has
 * that row (a scoped static function), else base.
 */
void explain_symtab_key(const struct explain_symtab *t, const char *name, const char *file,
			struct strbuf *key);

void explain_symtab_clear(struct explain_symtab *t);

#endif
