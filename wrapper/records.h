/*
 * records.h - records = side (PGOPT_RECORDS=side, --pgopt-records=side,
 * pgoptcc.conf): after a successful link of an ELF executable or shared
 * library that holds records (.pgopt.log, .GCC.command.line), move them
 * out of it into a side file named by its GNU build-id, as debug files
 * are: LOGDIR/records/.build-id/XX/REST.pgopt holds those sections and the
 * build-id note (objcopy --only-section), and the output loses them
 * (objcopy --remove-section, which writes a new file and renames it).
 * `pgbuild inspect`, `verify` and `explain --debug-dir LOGDIR/records`
 * read them back.  GNU ld cannot leave out chosen non-allocated sections
 * without replacing its whole linker script, hence this step after the
 * link.  objcopy is the one on PATH.  An output without a build-id or
 * without records is left alone.
 */
#ifndef PGOPT_RECORDS_H
#define PGOPT_RECORDS_H

#include "wrapper/common/strbuf.h"

/*
 * Move the records of output (relative to the working directory) into
 * logdir/records/.build-id/...; logfd is logdir's descriptor (the compile
 * log's, compilelog.h), below which records/, .build-id/ and XX/ are made
 * or opened without following a link (sfs_mkdir), objcopy writes into a
 * new directory of ours there, and the side file is renamed into place
 * between those descriptors.  0 (also when there was nothing to move), or
 * -1 with one sentence in err.  *side gets the side file's path (malloced)
 * when one was written.
 */
int records_move(const char *output, int logfd, const char *logdir, char **side,
		 struct strbuf *err);

#endif
