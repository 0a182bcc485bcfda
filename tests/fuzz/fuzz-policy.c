/*
 * fuzz-policy.c - libFuzzer harness for the policy parser (wrapper/policy/policy.c)
 * and the flag vocabulary it consults (wrapper/policy/vocab.c).
 *
 * The input is a policy file.  It is parsed from memory, strictly; when it
 * parses, it is applied to a compile and a link, so glob matching and flag
 * editing are fuzzed too.  Then the same bytes go through the path a build
 * takes: written to a file in a private directory and loaded with
 * policy_load (the bounded reader sfs_read, the hot/cold lists it names,
 * read the bounded way too), with the caller's PGOPT_UNCHECKED_FLAGS=1
 * when the input's first byte is odd.  The first line, when it starts
 * "#profile ", is also a PGOPT_PROFILE value, applied after the policy.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wrapper/policy/policy.h"

#ifdef FUZZ_SKIP_KNOWN
/*
 * Built with -DFUZZ_SKIP_KNOWN (see RUNS.md), inputs that reach a finding in
 * corpus/policy/ not fixed yet are skipped, so a long run can look for
 * others: more than 8 '*' (glob_match backtracks exponentially).
 */
static int known_finding(const uint8_t *data, size_t size)
{
	size_t stars = 0;
	for (const uint8_t *p = data; (p = memchr(p, '*', size - (size_t)(p - data))); p++)
		stars++;
	return stars > 8;
}
#endif

static const char *const tus[] = {
	"src/backend/utils/mmgr/aset.c", "src/port/snprintf.c", "a.c",
	"src/backend/access/heap/heapam.c",
};
#define NR_TUS (sizeof(tus) / sizeof(*tus))

/* Apply p (and pp, when given) to each unit and to a link (i == NR_TUS). */
static void apply_all(const struct policy *p, const struct policy_profile *pp)
{
	for (size_t i = 0; i <= NR_TUS; i++) {
		struct strvec args = STRVEC_INIT;
		struct policy_result res = { 0 };
		const char *tu = i < NR_TUS ? tus[i] : NULL;
		strvec_pushl(&args, "-O2", "-g", "-Wall", "-c", "x.c", "-o", "x.o", NULL);
		policy_apply(p, tu, &args, &res);
		if (pp)
			policy_profile_apply(pp, tu, 0, &args, &res);
		policy_result_release(&res);
		strvec_clear(&args);
	}
}

/* The private directory the file-based half writes into, made once. */
static const char *scratch(void)
{
	static char dir[] = "/tmp/pgopt-fuzz-policy.XXXXXX";
	static int made;
	if (!made) {
		if (!mkdtemp(dir))
			abort();
		made = 1;
	}
	return dir;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy p = { 0 };
	struct policy_profile pp = { 0 };
	struct strbuf err = STRBUF_INIT;
	char path[64];
	int fd, have_profile = 0;

#ifdef FUZZ_SKIP_KNOWN
	if (known_finding(data, size))
		return 0;
#endif
	if (size > 9 && !memcmp(data, "#profile ", 9)) {
		const uint8_t *nl = memchr(data, '\n', size);
		char *v = strndup((const char *)data + 9, (size_t)((nl ? nl : data + size) - data - 9));
		have_profile = v && policy_profile_parse(&pp, v, &err) == 0;
		free(v);
		strbuf_reset(&err);
	}
	if (policy_parse(&p, "/fuzz/x.policy", (const char *)data, size, &err) == 0)
		apply_all(&p, have_profile ? &pp : NULL);
	policy_release(&p); /* also after an error: parse may have filled some */
	strbuf_reset(&err);

	/* the build's path: a file, the bounded reader, the lists */
	snprintf(path, sizeof(path), "%s/x.policy", scratch());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	close(fd);
	if (policy_load(&p, path, size && (data[0] & 1) ? POLICY_UNCHECKED : 0, &err) == 0)
		apply_all(&p, have_profile ? &pp : NULL);
	policy_release(&p);
	policy_profile_release(&pp);
	strbuf_release(&err);
	return 0;
}
