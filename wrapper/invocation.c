/*
 * invocation.c - what one pgoptcc call knows of itself beyond its parts
 * (invocation.h): the failsafe fallback, kept for the one line that says
 * a compile ran with the caller's flags.
 */
#include <stdarg.h>

#include "wrapper/invocation.h"
#include "wrapper/common/error.h"

void invocation_fall_back(struct invocation *inv, const char *tag, const char *fmt, ...)
{
	va_list ap;

	if (inv->failsafe_error)
		return;         /* the first reason is the one said */
	inv->failsafe_error = tag;
	va_start(ap, fmt);
	strbuf_vaddf(&inv->failsafe_note, fmt, ap);
	va_end(ap);
	verbose("building unchanged (failsafe = passthrough): %s", inv->failsafe_note.buf);
}
