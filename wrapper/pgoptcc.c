/*
 * pgoptcc.c - the compiler wrapper's entry point (skeleton: passthrough).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>

#include "error.h"
#include "exitcodes.h"

int main(int argc, char **argv)
{
	(void)argc;
	argv[0] = "gcc";
	execvp(argv[0], argv);
	die(PGOPT_EXIT_NO_CC, "cannot run gcc: %s", strerror(errno));
}
