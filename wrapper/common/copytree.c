/*
 * copytree.c - copying a directory tree with cp -a; see copytree.h.
 */
#include <sys/stat.h>

#include "wrapper/common/copytree.h"
#include "wrapper/common/run-command.h"

void copytree_args(struct strvec *args, const char *from, const char *to,
		   enum copytree_mode mode)
{
	strvec_pushl(args, "cp", "-a", NULL);
	if (mode == COPYTREE_INTO)
		strvec_pushf(args, "%s/.", from);
	else
		strvec_push(args, from);
	strvec_push(args, to);
}

int copytree_run(const char *from, const char *to, enum copytree_mode mode,
		 struct strbuf *out)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	int code;

	copytree_args(&cp.args, from, to, mode);
	cp.no_stdin = 1;
	code = out ? capture_command(&cp, out, 1) : run_command(&cp);
	child_process_clear(&cp);
	return code;
}

int copytree_fresh(const char *from, const char *to, struct strbuf *out)
{
	if (mkdir(to, 0755) < 0)
		return -1;
	return copytree_run(from, to, COPYTREE_INTO, out);
}
