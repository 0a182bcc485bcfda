/*
 * fuzz-elfrec.c - libFuzzer harness for the ELF reader behind
 * `pgbuild inspect` (pgbuild/elf/elfrec.c, libelf): objects, archives,
 * executables, corrupt and truncated.
 *
 * The input is written to a memfd and opened through /proc/self/fd/N, as
 * elfrec_open() takes a path.  Everything it returns is walked, and each
 * image's .pgopt.log is grouped into units.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pgbuild/elf/elfrec.h"

static int memfd = -1;
static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elfrec_file f;
	struct strbuf err = STRBUF_INIT;
	volatile size_t sum = 0;

	if (memfd < 0) {
		memfd = memfd_create("fuzz-elf", 0);
		if (memfd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	}
	if (ftruncate(memfd, 0) < 0 ||
	    (size && pwrite(memfd, data, size, 0) != (ssize_t)size))
		abort();
	if (elfrec_open(path, &f, &err) < 0) {
		if (!err.len || memchr(err.buf, '\n', err.len))
			abort(); /* one line saying what is wrong */
		strbuf_release(&err);
		return 0;
	}
	for (size_t i = 0; i < f.nr; i++) {
		const struct elfrec_object *o = &f.objs[i];
		struct elfrec_unit *units;
		long n;
		for (size_t j = 0; j < o->ncmdlines; j++)
			sum += strlen(o->cmdlines[j]);
		for (size_t j = 0; j < o->nlog; j++)
			sum += strlen(o->log[j]);
		for (size_t j = 0; j < o->nfuncs; j++)
			sum += strlen(o->funcs[j].name) + strlen(o->funcs[j].section) +
			       strlen(o->funcs[j].file);
		if (o->member)
			sum += strlen(o->member);
		if (o->nfuncs) {
			/* the lookup finds a symbol of that name, or none when
			 * the name is ambiguous */
			const struct elfrec_func *hit =
				elfrec_find_func(o, o->funcs[0].name, o->funcs[0].file);
			if (hit && strcmp(hit->name, o->funcs[0].name))
				abort();
		}
		strbuf_reset(&err);
		n = elfrec_units(o, &units, &err);
		if (n >= 0)
			elfrec_units_free(units, (size_t)n);
	}
	elfrec_release(&f);
	strbuf_release(&err);
	return 0;
}
