/*
 * tools.c - LLVM BOLT itself: where it is, which version, running it, and
 * whether a binary is fit for it; see bolt.h.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgbuild/bolt/bolt.h"
#include "pgbuild/elf/elfrec.h"
#include "pgbuild/pgbuild.h"

char *bolt_path(const struct bolt_run *b, const char *name)
{
	return xasprintf("%s/%s", b->workdir, name);
}

/* llvm-bolt failed: its own error line. */
static void report_failure(const char *what, int code, const char *log)
{
	struct strbuf text = STRBUF_INIT;
	char *line;

	sfs_read(AT_FDCWD, log, SFS_IN_LOG, 0, &text, NULL);
	line = bolt_error_line(text.buf);
	error("llvm-bolt %s (exit %d): %s (log: %s)", what, code, line, log);
	free(line);
	strbuf_release(&text);
}

int bolt_exec(const struct bolt_run *b, const struct strvec *args, const char *log,
	      const char *what)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int rc;

	if (fd < 0)
		return error("cannot write %s: %s", log, strerror(errno));
	strvec_push(&cp.args, b->llvm_bolt);
	strvec_pushv(&cp.args, (const char *const *)args->v);
	cp.no_stdin = 1;
	cp.out = cp.err = fd;
	{
		/* the command line first, so the log says what ran */
		struct strbuf line = STRBUF_INIT;
		for (size_t i = 0; i < cp.args.nr; i++)
			strbuf_addf(&line, "%s%s", i ? " " : "# ", cp.args.v[i]);
		strbuf_addch(&line, '\n');
		write_all(fd, line.buf, line.len);
		strbuf_release(&line);
	}
	rc = run_command_forwarding(&cp);
	close(fd);
	if (cp.exec_errno)
		rc = error("cannot run %s: %s", b->llvm_bolt, strerror(cp.exec_errno));
	else if (rc > 0)
		report_failure(what, rc, log);
	child_process_clear(&cp);
	return rc;
}

/* Count the .cold fragments gcc's hot/cold partitioning made. */
static long cold_fragments(const struct elfrec_object *obj)
{
	long n = 0;
	for (size_t i = 0; i < obj->nfuncs; i++) {
		const char *c = strstr(obj->funcs[i].name, ".cold");
		if (c && (c[5] == '\0' || c[5] == '.'))
			n++;
	}
	return n;
}

int bolt_binary_ready(const char *binary, const char *flags, struct strbuf *why)
{
	char *plt = NULL;
	struct elfrec_file f;
	struct strbuf err = STRBUF_INIT;
	const struct elfrec_object *obj;
	long cold;
	int ready;

	if (elfrec_open(binary, &f, &err) < 0) {
		strbuf_add(why, err.buf, err.len);
		strbuf_release(&err);
		return -1;
	}
	strbuf_release(&err);
	obj = &f.objs[0];
	if (f.nr != 1 || (obj->elf_type != ET_EXEC && obj->elf_type != ET_DYN)) {
		strbuf_addf(why, "%s is not an executable", binary);
		elfrec_release(&f);
		return -1;
	}
	if (obj->bolt_rewritten) {
		strbuf_addf(why, "%s was already rewritten by BOLT (it has .note.bolt_info): give "
			    "the prefix it was made from", binary);
		elfrec_release(&f);
		return 0;
	}
	cold = cold_fragments(obj);
	ready = obj->rela_text_size > 0 && cold == 0 && obj->has_symtab;
	if (ready && !obj->bind_now && (plt = bolt_plt_flag(flags))) {
		strbuf_addf(why, "%s is not ready for llvm-bolt's %s: that rewrite needs a binary "
			    "linked with -z now (BOLT refuses one without DT_FLAGS BIND_NOW); add "
			    "\"ldflags += -Wl,-z,now\" to the policy's [global] and build again, or "
			    "drop %s", binary, plt, plt);
		ready = 0;
		free(plt);
	} else if (!ready) {
		strbuf_addf(why, "%s is not BOLT-ready: ", binary);
		if (!obj->has_symtab)
			strbuf_addstr(why, "it has no symbol table (stripped); ");
		if (!obj->rela_text_size)
			strbuf_addstr(why, "it has no code relocations (.rela.text, from "
				      "-Wl,--emit-relocs)");
		if (!obj->rela_text_size && cold)
			strbuf_addstr(why, " and ");
		if (cold)
			strbuf_addf(why, "gcc split %ld functions into .cold fragments "
				    "(-freorder-blocks-and-partition)", cold);
		strbuf_addf(why, "; build it with a policy that has \"%s\" in [global] "
			    "(pgbuild build --policy FILE)", BOLT_POLICY_LINE);
	}
	elfrec_release(&f);
	return ready;
}
