/*
 * compopt.c - the table of gcc options pgoptcc understands; see compopt.h.
 *
 * Keep it sorted by strcmp() order of the name (the unit test checks).
 * Options not listed are plain flags: they take no separate argument and do
 * not change what kind of command this is.
 *
 * gcc's driver also takes long aliases (gcc.cc's option map, "Driver
 * Alias" in common.opt): "--compile" is -c, "--output FILE" and
 * "--output=FILE" are -o FILE, "--language=c++" is -x c++, and so on.
 * Each alias that takes an argument has two rows, "--NAME" (argument in
 * the next word) and "--NAME=" (glued on); the comment names the short
 * option.  Aliases of plain flags (--pedantic, --verbose) need no row.
 */
#include <stdlib.h>
#include <string.h>

#include "wrapper/compopt.h"

#define ARG    CO_TAKES_ARG
#define CONCAT CO_TAKES_CONCAT_ARG
#define PATH   CO_TAKES_PATH

static const struct compopt compopts[] = {
	{ "-###",                           CO_TOO_HARD },                     /* prints, does not run */
	{ "--assemble",                     CO_MODE_ASSEMBLE },                /* = -S */
	{ "--assert",                       ARG },                             /* = -A */
	{ "--assert=",                      CONCAT },
	{ "--compile",                      CO_MODE_COMPILE },                 /* = -c */
	{ "--define-macro",                 ARG },                             /* = -D */
	{ "--define-macro=",                CONCAT },
	{ "--dependencies",                 CO_MODE_DEPEND },                  /* = -M */
	{ "--dumpbase",                     ARG },                             /* = -dumpbase */
	{ "--dumpbase=",                    CONCAT },
	{ "--dumpdir",                      ARG | PATH },                      /* = -dumpdir */
	{ "--dumpdir=",                     CONCAT | PATH },
	{ "--entry",                        ARG },                             /* = -e */
	{ "--entry=",                       CONCAT },
	{ "--for-assembler",                ARG },                             /* = -Wa, */
	{ "--for-assembler=",               CONCAT },
	{ "--for-linker",                   ARG },                             /* = -Xlinker */
	{ "--for-linker=",                  CONCAT },
	{ "--force-link",                   ARG },                             /* = -u */
	{ "--force-link=",                  CONCAT },
	{ "--help",                         CO_QUERY },
	{ "--imacros",                      ARG | PATH },                      /* = -imacros */
	{ "--imacros=",                     CONCAT | PATH },
	{ "--include",                      ARG | PATH },                      /* = -include */
	{ "--include-directory",            ARG | PATH },                      /* = -I */
	{ "--include-directory-after",      ARG | PATH },                      /* = -idirafter */
	{ "--include-directory-after=",     CONCAT | PATH },
	{ "--include-directory=",           CONCAT | PATH },
	{ "--include-prefix",               ARG | PATH },                      /* = -iprefix */
	{ "--include-prefix=",              CONCAT | PATH },
	{ "--include-with-prefix",          ARG },                             /* = -iwithprefix */
	{ "--include-with-prefix-after",    ARG },                             /* = -iwithprefix */
	{ "--include-with-prefix-after=",   CONCAT },
	{ "--include-with-prefix-before",   ARG },                             /* = -iwithprefixbefore */
	{ "--include-with-prefix-before=",  CONCAT },
	{ "--include-with-prefix=",         CONCAT },
	{ "--include=",                     CONCAT | PATH },
	{ "--language",                     ARG | CO_LANGUAGE },               /* = -x */
	{ "--language=",                    CONCAT | CO_LANGUAGE },
	{ "--library-directory",            ARG | PATH },                      /* = -L */
	{ "--library-directory=",           CONCAT | PATH },
	{ "--output",                       ARG | PATH | CO_OUTPUT },          /* = -o */
	{ "--output=",                      CONCAT | PATH | CO_OUTPUT },
	{ "--param",                        ARG },
	{ "--prefix",                       ARG | PATH },                      /* = -B */
	{ "--prefix=",                      CONCAT | PATH },
	{ "--preprocess",                   CO_MODE_PREPROCESS },              /* = -E */
	{ "--shared",                       CO_LINK_SHARED },                  /* = -shared */
	{ "--specs",                        ARG | PATH },                      /* = -specs= */
	{ "--specs=",                       CONCAT | PATH },
	{ "--std",                          ARG },                             /* = -std= */
	{ "--std=",                         CONCAT },
	{ "--sysroot",                      ARG | PATH },                      /* = --sysroot= */
	{ "--sysroot=",                     CONCAT | PATH },
	{ "--target-help",                  CO_QUERY },
	{ "--undefine-macro",               ARG },                             /* = -U */
	{ "--undefine-macro=",              CONCAT },
	{ "--user-dependencies",            CO_MODE_DEPEND },                  /* = -MM */
	{ "--version",                      CO_QUERY },
	{ "--write-dependencies",           CO_WRITE_DEPS },                   /* = -MD */
	{ "--write-user-dependencies",      CO_WRITE_DEPS },                   /* = -MMD */
	{ "-A",                             ARG | CONCAT },
	{ "-B",                             ARG | CONCAT | PATH },
	{ "-D",                             ARG | CONCAT },
	{ "-E",                             CO_MODE_PREPROCESS },
	{ "-I",                             ARG | CONCAT | PATH },
	{ "-L",                             ARG | CONCAT | PATH },
	{ "-M",                             CO_MODE_DEPEND },
	{ "-MD",                            CO_WRITE_DEPS },                   /* compile and write dependencies */
	{ "-MF",                            ARG | CONCAT | PATH },
	{ "-MM",                            CO_MODE_DEPEND },
	{ "-MMD",                           CO_WRITE_DEPS },
	{ "-MQ",                            ARG | CONCAT },
	{ "-MT",                            ARG | CONCAT },
	{ "-S",                             CO_MODE_ASSEMBLE },
	{ "-T",                             ARG | CONCAT | PATH },
	{ "-U",                             ARG | CONCAT },
	{ "-Xassembler",                    ARG },
	{ "-Xlinker",                       ARG },
	{ "-Xpreprocessor",                 ARG },
	{ "-aux-info",                      ARG | PATH },
	{ "-c",                             CO_MODE_COMPILE },
	{ "-dumpbase",                      ARG },
	{ "-dumpbase-ext",                  ARG },
	{ "-dumpdir",                       ARG | PATH },
	{ "-dumpfullversion",               CO_QUERY },
	{ "-dumpmachine",                   CO_QUERY },
	{ "-dumpspecs",                     CO_QUERY },
	{ "-dumpversion",                   CO_QUERY },
	{ "-e",                             ARG },
	{ "-idirafter",                     ARG | CONCAT | PATH },
	{ "-imacros",                       ARG | CONCAT | PATH },
	{ "-imultilib",                     ARG | CONCAT },
	{ "-include",                       ARG | CONCAT | PATH },
	{ "-iprefix",                       ARG | CONCAT | PATH },
	{ "-iquote",                        ARG | CONCAT | PATH },
	{ "-isysroot",                      ARG | CONCAT | PATH },
	{ "-isystem",                       ARG | CONCAT | PATH },
	{ "-iwithprefix",                   ARG | CONCAT },
	{ "-iwithprefixbefore",             ARG | CONCAT },
	{ "-l",                             ARG | CONCAT },
	{ "-o",                             ARG | CONCAT | PATH | CO_OUTPUT },
	{ "-r",                             CO_LINK_RELOC },
	{ "-shared",                        CO_LINK_SHARED },
	{ "-u",                             ARG | CONCAT },
	{ "-wrapper",                       CO_TOO_HARD | ARG },               /* runs other programs */
	{ "-x",                             ARG | CONCAT | CO_LANGUAGE },
	{ "-z",                             ARG },
};

static int cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct compopt *)elem)->name);
}

const struct compopt *compopt_find(const char *arg)
{
	return bsearch(arg, compopts, sizeof(compopts) / sizeof(compopts[0]),
		       sizeof(compopts[0]), cmp);
}

const struct compopt *compopt_find_prefix(const char *arg)
{
	const struct compopt *best = NULL;
	size_t best_len = 0;
	for (size_t i = 0; i < sizeof(compopts) / sizeof(compopts[0]); i++) {
		size_t n = strlen(compopts[i].name);
		if (!(compopts[i].flags & CO_TAKES_CONCAT_ARG))
			continue;
		if (n < strlen(arg) && !strncmp(arg, compopts[i].name, n) && n > best_len) {
			best = &compopts[i];
			best_len = n;
		}
	}
	return best;
}

const struct compopt *compopt_table(unsigned *n)
{
	*n = sizeof(compopts) / sizeof(compopts[0]);
	return compopts;
}
