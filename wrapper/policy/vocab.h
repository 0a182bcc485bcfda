/*
 * vocab.h - the policy vocabulary: which flags a policy may add to or
 * remove from a compile (cflags) or a link (ldflags).
 *
 * A policy is a list of optimization choices, and pgoptcc often runs as
 * root (Debian packaging, CI).  So a policy may only use options that
 * change how the code is optimized or generated; anything that loads or
 * runs code (-fplugin=, -B, -specs=, -wrapper, -l), names a path (-I,
 * -include, --sysroot=, a -f option with a path value), changes what the
 * compiler produces or writes (-o, -E, -S, -fsyntax-only, -x, -save-temps,
 * -fdump-*, profile instrumentation) or is no optimization option at all
 * (-D, -U, -std=) is refused when the policy is parsed, naming the file,
 * the line, the flag and the reason.
 *
 * Allowed: -O*, -f* but for the rows of the table, -m*, --param=NAME=VALUE,
 * -g*, warnings (-W*, -w, -pedantic), and in ldflags a vetted set of linker
 * options (-Wl,-O1, -Wl,--gc-sections, -Wl,--as-needed, -Wl,--emit-relocs,
 * -Wl,-z,relro / now / noexecstack ..., -Wl,--hash-style=, -Wl,--build-id,
 * -Wl,--icf=, -fuse-ld=bfd|gold|lld|mold) besides the compile options
 * (with LTO the link optimizes too).  -fno-X is checked as -fX.  The
 * semantic refusals (fast-math, ABI flags, PostgreSQL's required flags)
 * are policy.c's, on top of this.
 *
 * The table (vocab.c) is sorted by strcmp() of the name (a unit test
 * checks); a row is a flag or, with VOCAB_PREFIX, every flag starting
 * with it; the longest row that matches decides.
 */
#ifndef PGOPT_VOCAB_H
#define PGOPT_VOCAB_H

#include <stddef.h>
#include "wrapper/common/strbuf.h"

/* What a flag is, for the policy. */
enum vocab_class {
	VOCAB_OK,      /* an optimization or code-generation option */
	VOCAB_CODE,    /* loads or runs code: plugins, programs, libraries */
	VOCAB_PATH,    /* names a file or directory */
	VOCAB_OUTPUT,  /* changes what the compiler produces or writes */
	VOCAB_OTHER,   /* not an optimization option */
};

#define VOCAB_PREFIX    1u /* the row covers every flag starting with name */
#define VOCAB_LINK_ONLY 2u /* allowed in ldflags only */

struct vocab_row {
	const char *name;       /* the flag, or (VOCAB_PREFIX) its start */
	unsigned flags;         /* VOCAB_* bits */
	enum vocab_class cls;
	const char *why;        /* the detail given in parentheses, or NULL */
};

/*
 * May a policy add or remove flag in cflags (link 0) or ldflags (link 1)?
 * Returns VOCAB_OK, or the class of the refusal with the reason appended
 * to why ("it loads code (a GCC plugin)").
 */
enum vocab_class vocab_check(const char *flag, int link, struct strbuf *why);

/* For the unit test: the table and its length. */
const struct vocab_row *vocab_table(size_t *n);

#endif
