/*
 * gcov.h - the counts of a GCC profile, per function: a unit's .gcda (the
 * training's counters) joined with its .gcno (the compile's notes, which
 * name the functions), in GCC 12's format (gcc/gcov-io.h).
 *
 * Why not `gcov --json-format` (profile/run.c reads that for hot files):
 * gcov gives each source line to the function the line is in, so code a
 * caller inlined from a header counts for the header's function; GCC's
 * profile is per function as compiled, the inlined code in its caller's
 * counters, and that is what GCC keeps or refuses whole (a
 * coverage-mismatch drops the function's counters).  The weight of a
 * function here is the sum of its arc counters: the executions of the
 * edges of its control flow.
 *
 * The format: both files start with a magic word ("gcda" / "gcno" read as
 * a little-endian word on this machine), the version and a stamp; the
 * .gcda then a checksum, the .gcno a checksum, the working directory (a
 * string) and a flag word.  Then records: a tag word, a length word (in
 * bytes; in a .gcda a negative length means that many bytes of zero
 * counters, not stored) and the data.  Strings are a length word
 * (including the NUL) and the bytes, unpadded.  Tags used: FUNCTION
 * 0x01000000 (ident, lineno checksum, cfg checksum; in the .gcno then the
 * name), ARCS counters 0x01a10000 (64-bit counts, low word first).
 */
#ifndef PGBUILD_PROFILE_GCOV_H
#define PGBUILD_PROFILE_GCOV_H

#include <stddef.h>
#include <stdint.h>

#include "wrapper/common/strbuf.h"

/* One function of a unit's profile. */
struct gcov_function {
	uint32_t ident;       /* GCC's function id in the unit */
	uint32_t cfg_checksum; /* what GCC compares with the function it compiles */
	char *name;           /* from the .gcno; NULL when none was read */
	uint64_t arcs;        /* sum of its arc counters */
};

struct gcov_unit {
	struct gcov_function *v;  /* in the .gcda's order */
	size_t nr, alloc;
	uint64_t arcs;            /* sum over the functions */
};

/*
 * Read the .gcda at gcda (and, when gcno is not NULL, the names from the
 * .gcno) into u.  0, or -1 with one sentence in err naming the file and
 * what was expected there.
 */
int gcov_read_unit(const char *gcda, const char *gcno, struct gcov_unit *u, struct strbuf *err);

/* The same from bytes (for tests and fuzzing); names are for messages. */
int gcov_parse_gcda(const unsigned char *buf, size_t len, const char *name, struct gcov_unit *u,
		    struct strbuf *err);
int gcov_parse_gcno(const unsigned char *buf, size_t len, const char *name, struct gcov_unit *u,
		    struct strbuf *err);

void gcov_unit_release(struct gcov_unit *u);

#endif
