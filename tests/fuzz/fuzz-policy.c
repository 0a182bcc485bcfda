/*
 * fuzz-policy.c - libFuzzer harness for the policy parser (wrapper/policy.c).
 *
 * The input is a policy file.  When it parses, it is applied to a compile
 * and a link, so glob matching and flag editing are fuzzed too.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "policy.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const tus[] = {
		"src/backend/utils/mmgr/aset.c", "src/port/snprintf.c", "a.c",
		"src/backend/access/heap/heapam.c",
	};
	struct policy p = { 0 };
	struct strbuf err = STRBUF_INIT;

#ifdef FUZZ_SKIP_KNOWN
	if (known_finding(data, size))
		return 0;
#endif
	if (policy_parse(&p, "/fuzz/x.policy", (const char *)data, size, &err) == 0) {
		for (size_t i = 0; i <= sizeof(tus) / sizeof(*tus); i++) {
			struct strvec args = STRVEC_INIT;
			struct policy_result res = { 0 };
			strvec_pushl(&args, "-O2", "-g", "-Wall", "-c", "x.c", "-o", "x.o", NULL);
			/* i == size: a link (tu NULL) */
			policy_apply(&p, i < sizeof(tus) / sizeof(*tus) ? tus[i] : NULL,
				     &args, &res);
			policy_result_release(&res);
			strvec_clear(&args);
		}
	}
	policy_release(&p); /* also after an error: parse may have filled some */
	strbuf_release(&err);
	return 0;
}
