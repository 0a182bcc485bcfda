/*
 * wrapper/ownopts.h - pgoptcc's own options (ownopts.c) and what they take
 * from the program's flow (pgoptcc.c).  Both files are the program; this
 * header is not part of libwrapper.a.
 */
#ifndef PGOPT_OWNOPTS_H
#define PGOPT_OWNOPTS_H

#include "wrapper/invocation.h"

/* --pgopt-help, and --help as pgoptcc's only argument; returns 0. */
int ownopts_help(void);

/* --pgopt-version, and --version as pgoptcc's only argument when neither
 * configure nor meson asks: pgoptcc's version, its plugin, the real compiler;
 * returns 0 (exits on a bad setting or no compiler). */
int ownopts_version(struct invocation *inv);

/*
 * The own option argv[0] (argc counts it and what follows): runs it and
 * returns the exit code, or -1 when argv[0] is none of them.
 */
int ownopts_run(struct invocation *inv, int argc, char **argv);

/* An unknown --pgopt- option: says what exists and what it may have
 * meant, and exits with PGOPT_EXIT_USAGE. */
void ownopts_unknown(const char *arg) __attribute__((noreturn));

/* From pgoptcc.c: where a setting came from, for messages (malloced). */
char *pgoptcc_setting_source(const struct invocation *inv, enum setting_id id);

/* From pgoptcc.c: the settings in force resolved into inv->set (exits on
 * a bad value or an unusable pgoptcc.conf). */
void pgoptcc_resolve_settings(struct invocation *inv);

#endif
