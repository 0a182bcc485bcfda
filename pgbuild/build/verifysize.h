/*
 * verifysize.h - what a policy did to code size, for `pgbuild verify
 * --baseline`: total text size, hot and unlikely code per function (a linked
 * binary has no .text.hot/.text.unlikely sections of its own: a function
 * counts where its pgopt.so record says GCC put it, and every split
 * "NAME.cold" part counts as unlikely), and the top growing and shrinking
 * functions.
 */
#ifndef PGBUILD_VERIFYSIZE_H
#define PGBUILD_VERIFYSIZE_H

#include "pgbuild/elf/elfrec.h"

/* Print the size lines of cand against the binary base_bin (top functions
 * of growth and shrink); 0, or -1 after printing an error. */
int verifysize_compare(const char *base_bin, const struct elfrec_object *cand, int top);

#endif
