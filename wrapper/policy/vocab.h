/*
 * vocab.h - the one vocabulary of flags that come from data: which
 * compiler and linker options a policy may add or remove (cflags,
 * ldflags; pgbuild tune's candidates go through the same check), which
 * llvm-bolt options a BOLT rewrite may take (--bolt-flags, optimize, a
 * bundle's manifest), and which of them weaken the build's hardening.
 *
 * Policies, candidates and bundles travel, and pgoptcc and pgbuild often
 * run as root (Debian packaging, CI).  So the vocabulary is an allow-list,
 * like ccache's table of compiler options: one sorted table of the options
 * we know, each with the type of its value, and anything not in it is
 * refused.  What is known but refused has a row too, with its class and
 * reason, so the refusal says why:
 *
 *   VOCAB_CODE    loads or runs code: plugins, programs, libraries,
 *                 runtimes (-fplugin=, -B, -specs=, -wrapper, -l,
 *                 -fsanitize=, llvm-bolt's -runtime-*-lib=);
 *   VOCAB_PATH    names a file or directory (-I, -include, --sysroot=,
 *                 a value with '/', llvm-bolt's -function-order=);
 *   VOCAB_OUTPUT  changes what the tool produces or writes (-o, -E, -S,
 *                 -save-temps, -fdump-*, profile instrumentation,
 *                 llvm-bolt's -print-*, -generate-*, -asm-dump);
 *   VOCAB_OTHER   no optimization option (-D, -U, -std=), or a value the
 *                 row does not take;
 *   VOCAB_UNKNOWN not in the table; the reason names the nearest row a
 *                 policy may use when one is close (suggest.h), keeping a
 *                 value and a "no-": "(did you mean -fomit-frame-pointer?)".
 *
 * Compiler options (vocab.c's first table, from gcc 12's --help=optimizers,
 * --help=common and --help=target, the clang-15/19 spellings pgoptcc and
 * the suites use, and -O, -g, -W forms): a row is the option as written;
 * its type says what may follow:
 *
 *   VOCAB_EXACT   the word itself (-O2, -pie, -gdwarf);
 *   VOCAB_BOOL    the word and its negation: -fX and -fno-X, -mX and
 *                 -mno-X, -gX and -gno-X;
 *   VOCAB_INT     NAME=N, N decimal, in the row's "MIN,MAX" when given;
 *   VOCAB_WORDS   NAME=WORD, one of the row's "a|b|c" ("<n>": any N);
 *   VOCAB_ALIGN   NAME=N[:M[:N2[:M2]]] (-falign-functions=);
 *   VOCAB_TEXT    NAME=TEXT, printable and without '/' (-frandom-seed=,
 *                 llvm-bolt's lists of function names);
 *   VOCAB_DASHED  the word, or the word and -KIND... (-fopt-info-inline);
 *                 "=" after it is the row's refusal (a file to write);
 *   VOCAB_WARNING -W[no-]NAME[=VALUE]: a checked form, no ',' (-Wl, -Wa,
 *                 -Wp, have rows of their own);
 *   VOCAB_PARAM   --param=NAME=N with NAME one of GCC 12's parameters
 *                 (the second table), N in its range;
 *   VOCAB_FAMILY  refused: the row and every option that starts with it;
 *   VOCAB_REFUSED refused: the word itself (-c, -p: not -pie).
 *
 * A value is never a path: any '/' in it is a VOCAB_PATH refusal.  -Wl,
 * words are checked option by option against a vetted set of linker
 * options (-O1, --gc-sections, --as-needed, --emit-relocs, -z relro ...)
 * in ldflags only.  The longest row that covers a flag decides.  The
 * semantic refusals (fast-math, ABI flags, PostgreSQL's required flags)
 * are policy.c's, on top of this.
 *
 * llvm-bolt's options (the third table, llvm-bolt-15 --help-hidden's
 * layout and optimization options): rows named without the dashes, which
 * the word may have one or two of; VOCAB_BOOL is the word or
 * word=true|false|1|0 (and the row's words: -icf=all), the valued types
 * as above; refused, with their class, the options pgbuild gives itself
 * (-o, -data, -instrument..., VOCAB_OTHER), -runtime-*-lib=, the ones
 * that read a file and the ones that print or write one.
 *
 * Hardening (below): the flags that weaken a hardening of the build when
 * a policy adds or removes them.  The vocabulary knows them (-U_FORTIFY_SOURCE
 * is a row), policy.c refuses them unless the caller allows the class by
 * name (PGOPT_WEAKEN, --pgopt-weaken=, pgbuild --weaken).
 *
 * The tables (vocab.c) are sorted by strcmp() of the name and every row
 * has a type; a unit test checks both.
 */
#ifndef PGOPT_VOCAB_H
#define PGOPT_VOCAB_H

#include <stddef.h>
#include "wrapper/common/strbuf.h"

/* What a flag is, for the vocabulary. */
enum vocab_class {
	VOCAB_OK,      /* allowed */
	VOCAB_CODE,    /* loads or runs code: plugins, programs, libraries */
	VOCAB_PATH,    /* names a file or directory */
	VOCAB_OUTPUT,  /* changes what the tool produces or writes */
	VOCAB_OTHER,   /* not an optimization option, or a value not taken */
	VOCAB_UNKNOWN, /* not in the vocabulary */
};

/* What may follow a row's name (see above); 0 is no type. */
enum vocab_type {
	VOCAB_EXACT = 1,
	VOCAB_BOOL,
	VOCAB_INT,
	VOCAB_WORDS,
	VOCAB_ALIGN,
	VOCAB_TEXT,
	VOCAB_DASHED,
	VOCAB_WARNING,
	VOCAB_PARAM,
	VOCAB_FAMILY,
	VOCAB_REFUSED,
};

#define VOCAB_LINK_ONLY 1u /* allowed in ldflags only */

struct vocab_row {
	const char *name;       /* the option as written (llvm-bolt's without
				 * dashes); a valued row's ends in '=' */
	enum vocab_type type;   /* what may follow name */
	const char *values;     /* VOCAB_WORDS: "a|b|c"; VOCAB_INT: "MIN,MAX"
				 * or NULL; llvm-bolt's VOCAB_BOOL: words it
				 * also takes after '=' */
	unsigned flags;         /* VOCAB_LINK_ONLY */
	enum vocab_class cls;   /* VOCAB_FAMILY, VOCAB_REFUSED: the refusal's
				 * class; else the class of a value the row
				 * does not take (VOCAB_OK: "its value is not
				 * one the vocabulary allows") */
	const char *why;        /* the refusal's detail, given in parentheses
				 * (for a bad value, what is expected); NULL:
				 * the class alone, or what the type expects */
};

/* A --param the vocabulary knows: GCC 12's integer parameters. */
struct vocab_param {
	const char *name;       /* "max-inline-insns-auto" */
	long min, max;          /* its range (max -1: no upper bound) */
};

/*
 * May a policy add or remove flag in cflags (link 0) or ldflags (link 1)?
 * Returns VOCAB_OK, or the class of the refusal with the reason appended
 * to why ("it loads code (a GCC plugin)").
 */
enum vocab_class vocab_check(const char *flag, int link, struct strbuf *why);

/*
 * May a BOLT rewrite take word, one of llvm-bolt's options as written
 * ("-reorder-blocks=ext-tsp", "--icf=1")?  Only layout and optimization
 * options are: none that names a path, prints or writes a file, takes a
 * library or is one pgbuild gives itself (-o, -data, -instrument).
 * Returns VOCAB_OK, or the class with the reason appended to why ("it
 * loads code (a runtime library linked into the rewritten binary)").
 */
enum vocab_class vocab_bolt_check(const char *word, struct strbuf *why);

/* For the unit test: the tables and their lengths. */
const struct vocab_row *vocab_table(size_t *n);
const struct vocab_row *vocab_bolt_table(size_t *n);
const struct vocab_param *vocab_params(size_t *n);

/* ---------------- hardening ---------------- */

/*
 * The hardening a distribution builds with, by class.  A policy weakens
 * one when it adds or removes (in cflags or ldflags):
 *
 *   stack-protector  adds -fno-stack-protector, or -fstack-protector or
 *                    -fstack-protector-explicit (the last one wins, so
 *                    either replaces a -fstack-protector-strong), or
 *                    --param=ssp-buffer-size=N; removes any
 *                    -fstack-protector*
 *   cet              adds -fcf-protection=none, =branch, =return or =check
 *                    (which instruments nothing), or
 *                    -mmanual-endbr; removes -fcf-protection[=...],
 *                    -Wl,-z,ibt or -Wl,-z,shstk
 *   pie              adds -fno-pie, -fno-PIE, -fno-pic, -fno-PIC or
 *                    -no-pie; removes -fpie, -fPIE, -fpic, -fPIC or -pie
 *   relro            adds -Wl,-z,norelro; removes -Wl,-z,relro
 *   bind-now         adds -Wl,-z,lazy; removes -Wl,-z,now
 *   fortify          adds -U_FORTIFY_SOURCE, -D_FORTIFY_SOURCE=0 or =1
 *                    (or without a value), or -O0 (glibc's checks need
 *                    optimization); removes -D_FORTIFY_SOURCE[=N] (and
 *                    removing a compile's last -O level is refused by
 *                    policy_apply, which sees the command line)
 *   stack-clash      adds -fno-stack-clash-protection or a
 *                    --param=stack-clash-protection-guard-size= or
 *                    -probe-interval= (a larger one leaves frames up to
 *                    it unprobed); removes -fstack-clash-protection
 *
 * Integers are written without a leading zero (vocab_check refuses
 * -D_FORTIFY_SOURCE=00), so the table's spellings are the only ones.
 *
 * A -Wl, word is taken apart: -Wl,-z,relro,-z,now removed weakens relro
 * and bind-now.  Classes are bits (1u << VOCAB_HARD_...).
 */
enum vocab_hardening {
	VOCAB_HARD_STACK_PROTECTOR,
	VOCAB_HARD_CET,
	VOCAB_HARD_PIE,
	VOCAB_HARD_RELRO,
	VOCAB_HARD_BIND_NOW,
	VOCAB_HARD_FORTIFY,
	VOCAB_HARD_STACK_CLASH,
	VOCAB_HARD_NR
};
#define VOCAB_HARD_ALL ((1u << VOCAB_HARD_NR) - 1)

/* The classes flag weakens when a policy adds it (add 1) or removes it
 * (add 0); 0 when none. */
unsigned vocab_weakens(const char *flag, int add);

/* A class's name ("pie") and what it protects, in words. */
const char *vocab_hardening_name(enum vocab_hardening h);
const char *vocab_hardening_what(enum vocab_hardening h);

/*
 * A list of class names as the caller writes it (PGOPT_WEAKEN=pie,relro):
 * comma-separated, blanks around the names ignored, "" none.  0 with the
 * classes or-ed into *mask, or -1 with what was expected in err (an
 * unknown name, with the nearest one).
 */
int vocab_parse_weaken(const char *list, unsigned *mask, struct strbuf *err);

/* The names of mask's classes, comma-separated in table order, appended
 * to out ("pie,relro"). */
void vocab_weaken_text(unsigned mask, struct strbuf *out);

#endif
