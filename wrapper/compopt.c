/*
 * compopt.c - the table of gcc options pgoptcc understands; see compopt.h.
 *
 * Keep it sorted by strcmp() order of the name (the unit test checks).
 * Options not listed are plain flags: they take no separate argument and do
 * not change what kind of command this is.
 */
#include <stdlib.h>
#include <string.h>

#include "compopt.h"

#define ARG    CO_TAKES_ARG
#define CONCAT CO_TAKES_CONCAT_ARG
#define PATH   CO_TAKES_PATH

static const struct compopt compopts[] = {
	{ "-###",               CO_TOO_HARD },              /* prints, does not run */
	{ "--help",             CO_QUERY },
	{ "--param",            ARG },
	{ "--target-help",      CO_QUERY },
	{ "--version",          CO_QUERY },
	{ "-A",                 ARG | CONCAT },
	{ "-B",                 ARG | CONCAT | PATH },
	{ "-D",                 ARG | CONCAT },
	{ "-E",                 CO_MODE_PREPROCESS },
	{ "-I",                 ARG | CONCAT | PATH },
	{ "-L",                 ARG | CONCAT | PATH },
	{ "-M",                 CO_MODE_DEPEND },
	{ "-MF",                ARG | CONCAT | PATH },
	{ "-MM",                CO_MODE_DEPEND },
	{ "-MQ",                ARG | CONCAT },
	{ "-MT",                ARG | CONCAT },
	{ "-S",                 CO_MODE_ASSEMBLE },
	{ "-T",                 ARG | CONCAT | PATH },
	{ "-U",                 ARG | CONCAT },
	{ "-Xassembler",        ARG },
	{ "-Xlinker",           ARG },
	{ "-Xpreprocessor",     ARG },
	{ "-aux-info",          ARG | PATH },
	{ "-c",                 CO_MODE_COMPILE },
	{ "-dumpbase",          ARG },
	{ "-dumpbase-ext",      ARG },
	{ "-dumpdir",           ARG | PATH },
	{ "-dumpfullversion",   CO_QUERY },
	{ "-dumpmachine",       CO_QUERY },
	{ "-dumpspecs",         CO_QUERY },
	{ "-dumpversion",       CO_QUERY },
	{ "-e",                 ARG },
	{ "-idirafter",         ARG | CONCAT | PATH },
	{ "-imacros",           ARG | CONCAT | PATH },
	{ "-imultilib",         ARG | CONCAT },
	{ "-include",           ARG | CONCAT | PATH },
	{ "-iprefix",           ARG | CONCAT | PATH },
	{ "-iquote",            ARG | CONCAT | PATH },
	{ "-isysroot",          ARG | CONCAT | PATH },
	{ "-isystem",           ARG | CONCAT | PATH },
	{ "-iwithprefix",       ARG | CONCAT },
	{ "-iwithprefixbefore", ARG | CONCAT },
	{ "-l",                 ARG | CONCAT },
	{ "-o",                 ARG | CONCAT | PATH | CO_OUTPUT },
	{ "-r",                 CO_LINK_RELOC },
	{ "-shared",            CO_LINK_SHARED },
	{ "-u",                 ARG | CONCAT },
	{ "-wrapper",           CO_TOO_HARD | ARG },        /* runs other programs */
	{ "-x",                 ARG | CONCAT | CO_LANGUAGE },
	{ "-z",                 ARG },
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
