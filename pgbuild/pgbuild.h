/*
 * pgbuild.h - the base every part of pgbuild may include: the helpers of
 * wrapper/common/ and where the running pgbuild is installed (self.c).
 * Nothing of the command line is here: the commands' own header is
 * cmd/cmd.h, and an engine that parses option values includes cli/cli.h
 * itself.
 */
#ifndef PGBUILD_H
#define PGBUILD_H

#include "wrapper/common/clock.h"
#include "wrapper/common/dir.h"
#include "wrapper/common/error.h"
#include "wrapper/common/exitcodes.h"
#include "wrapper/common/fdio.h"
#include "wrapper/common/json.h"
#include "wrapper/common/path.h"
#include "wrapper/common/rmtree.h"
#include "wrapper/common/run-command.h"
#include "wrapper/common/safefs.h"
#include "wrapper/common/strbuf.h"
#include "wrapper/common/strvec.h"
#include "wrapper/common/textfile.h"
#include "wrapper/common/xalloc.h"

/* Find the running executable (main calls it first; self.c). */
void pgbuild_find_self(void);
/* Absolute path of the running pgbuild executable (for re-running itself). */
const char *pgbuild_self(void);
/* LIBDIR/pgoptcc: the plugin and the masquerade links (installdirs.h) */
const char *pgbuild_libdir(void);
/* DATADIR/pgoptcc: the files defaults name (tune-candidates.txt) */
const char *pgbuild_datadir(void);
/* Absolute path of pgoptcc next to pgbuild. */
const char *pgbuild_pgoptcc(void);

#endif
