/*
 * error.c - one-line diagnostics with a program prefix; see error.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wrapper/common/error.h"
#include "wrapper/common/exitcodes.h"

static const char *program = "pgoptcc";
static int oom_code = PGOPT_EXIT_NOMEM;
int error_verbose;

void error_set_program(const char *name, int oom_exit_code)
{
	program = name;
	oom_code = oom_exit_code;
}

const char *error_program(void)
{
	return program;
}

int error_oom_exit_code(void)
{
	return oom_code;
}

/*
 * Format the whole line first so it reaches stderr in one write.  What it
 * quotes may come from a file another party wrote (a policy's token, a
 * file name, a server's log): every control byte but newline and tab
 * (ESC, carriage return, backspace, DEL ...) is written as '?', so a
 * message cannot set the terminal's title, move the cursor, recolour,
 * hide or overwrite what pgoptcc or pgbuild says.
 */
static void report(const char *kind, const char *fmt, va_list ap)
{
	char msg[4096];
	int n = snprintf(msg, sizeof(msg), "%s: %s", program, kind);
	if (n < 0 || (size_t)n >= sizeof(msg))
		n = 0;
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	size_t len = strlen(msg);
	if (len + 1 >= sizeof(msg)) {
		/* cut long messages visibly and keep them one line */
		len = sizeof(msg) - 5;
		memcpy(msg + len, "...", 3);
		len += 3;
	}
	for (size_t i = 0; i < len; i++)
		if (((unsigned char)msg[i] < 0x20 && msg[i] != '\n' && msg[i] != '\t') ||
		    msg[i] == 0x7f)
			msg[i] = '?';
	msg[len++] = '\n';
	msg[len] = '\0';
	fputs(msg, stderr);
	fflush(stderr);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("error: ", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("warning: ", fmt, ap);
	va_end(ap);
}

void verbose(const char *fmt, ...)
{
	va_list ap;
	if (!error_verbose)
		return;
	va_start(ap, fmt);
	report("", fmt, ap);
	va_end(ap);
}

void die(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("error: ", fmt, ap);
	va_end(ap);
	exit(code);
}

void bug_at(const char *file, int line, const char *fmt, ...)
{
	char where[256];
	va_list ap;
	snprintf(where, sizeof(where), "BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	report(where, fmt, ap);
	va_end(ap);
	abort();
}
