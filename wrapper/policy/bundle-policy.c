/*
 * bundle-policy.c - a profile bundle's policy and its lists; see
 * bundle-policy.h.
 */
#include <stdlib.h>

#include "wrapper/common/xalloc.h"
#include "wrapper/policy/bundle-policy.h"
#include "wrapper/policy/policy.h"

/* See bundle-policy.h. */
int policy_bundle_check(const struct bundle_verified *bv, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT, e = STRBUF_INIT;
	char *path = xasprintf("%s/%s", bv->dir, BUNDLE_POLICY_NAME);
	struct policy p;
	int r = bundle_verified_read(bv, BUNDLE_POLICY_NAME, &text, err);

	if (r > 0) {
		/* parsed as DIR/pgopt.policy: relative lists resolve below DIR */
		if (policy_parse_flags(&p, path, text.buf, text.len, POLICY_UNCHECKED, &e) < 0) {
			strbuf_addf(err, "the bundle's policy: %s", e.buf);
			r = -1;
		} else if (bundle_verified_list_ok(bv, "hot", p.hot, err) < 0 ||
			   bundle_verified_list_ok(bv, "cold", p.cold, err) < 0) {
			r = -1;
		}
		policy_release(&p);
	}
	strbuf_release(&text);
	strbuf_release(&e);
	free(path);
	return r < 0 ? -1 : 0;
}
