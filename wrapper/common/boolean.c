/*
 * boolean.c - the one reader of a boolean value; see boolean.h.
 */
#include <stddef.h>
#include <strings.h>

#include "wrapper/common/boolean.h"

int boolean_parse(const char *v)
{
	static const char *const yes[] = { "yes", "on", "true", "1" };
	static const char *const no[] = { "no", "off", "false", "0", "" };

	if (!v)
		return -1;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!strcasecmp(v, yes[i]))
			return 1;
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (!strcasecmp(v, no[i]))
			return 0;
	return -1;
}
