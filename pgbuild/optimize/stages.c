/*
 * stages.c - the words of `pgbuild optimize`: --stages, and the lto
 * stage's policy (the user's, with "bolt = ready" added through the policy
 * editor, wrapper/policy/edit.h), the default workload sets; see
 * optimize.h.
 */
#include <stdlib.h>
#include <string.h>

#include "pgbuild/cli/cli.h"
#include "wrapper/common/error.h"
#include "wrapper/policy/edit.h"
#include "pgbuild/optimize/optimize.h"
#include "wrapper/common/xalloc.h"

const char *const optimize_stage_names[OS_NR] = { "stock", "lto", "pgo", "tuned", "clang",
						  "clang-pgo", "bolt" };

void optimize_default_workloads(struct strvec *train, struct strvec *eval)
{
	int has = 0;
	if (!train->nr)
		strvec_push(train, OPTIMIZE_DEFAULT_TRAIN);
	if (eval->nr)
		return;
	/* what can be measured of the training set; training on the suite
	 * alone is judged on the default training workloads, held out */
	for (size_t i = 0; i < train->nr; i++)
		if (workloads_has(train->v[i], WL_SINGLE))
			strvec_push(eval, train->v[i]);
	if (!eval->nr)
		workloads_push(eval, WL_TRAIN);
	for (size_t i = 0; i < eval->nr; i++)
		has |= !strcmp(eval->v[i], OPTIMIZE_HELD_OUT);
	if (!has)
		strvec_push(eval, OPTIMIZE_HELD_OUT);
	/* and the broad suite's single-user workloads: nothing was chosen on
	 * them, so they are the held-out evidence the keep rule decides on */
	for (const char *const *n = workloads_names(WL_BROAD | WL_SINGLE); *n; n++)
		if (strvec_find(eval, *n) < 0 && strvec_find(train, *n) < 0)
			strvec_push(eval, *n);
}

int optimize_parse_stages(const char *arg, unsigned *mask)
{
	struct strvec items = STRVEC_INIT;
	int rc = 0;

	cli_parse_list(arg, &items);
	if (!items.nr)
		rc = error("invalid value \"%s\" for --stages: expected a comma-separated list of "
			   "stock, lto, pgo, tuned, clang, clang-pgo, bolt", arg);
	for (size_t i = 0; i < items.nr && !rc; i++) {
		int k;
		for (k = 0; k < OS_NR; k++)
			if (!strcmp(items.v[i], optimize_stage_names[k]))
				break;
		if (k == OS_NR)
			rc = error("invalid stage \"%s\" in --stages: expected stock, lto, pgo, "
				   "tuned, clang, clang-pgo or bolt", items.v[i]);
		else
			*mask |= 1u << k;
	}
	*mask |= 1u << OS_STOCK;
	strvec_clear(&items);
	return rc ? -1 : 0;
}

int optimize_policy_same(const char *a, const char *b)
{
	return policy_text_same(a, b);
}

/* Take bolt = ready (and lto = on when lto) into d where it says nothing
 * of them; bolt set to anything else is refused. */
static int add_keys(struct policy_doc *d, int lto, struct strbuf *err)
{
	char *bolt = policy_doc_value(d, "bolt");
	int rc = 0;

	if (bolt && strcmp(bolt, "ready"))
		rc = -1, strbuf_addf(err, "its [global] says \"bolt = %s\": every stage BOLT may "
				     "stack on is built with \"bolt = ready\" (remove the line: "
				     "optimize adds it)", bolt);
	if (!rc && lto && !d->pol.lto_line)
		rc = policy_doc_set(d, "lto", "on", err);
	if (!rc && !bolt)
		rc = policy_doc_set(d, "bolt", "ready", err);
	free(bolt);
	return rc;
}

int optimize_policy_text(const char *user_text, const char *path, int lto, struct strbuf *out,
			 struct strbuf *err)
{
	const char *text = user_text ? user_text : OPTIMIZE_DEFAULT_POLICY;
	struct policy_doc d;
	/* unchecked flags pass: pgbuild build checks each stage's policy with
	 * the caller's PGOPT_UNCHECKED_FLAGS */
	int rc = policy_doc_parse(&d, path ? path : "(the default lto policy)", text,
				  strlen(text), POLICY_UNCHECKED, err);

	if (rc == 0)
		rc = add_keys(&d, lto, err);
	strbuf_reset(out);
	if (rc == 0)
		policy_doc_text(&d, out);
	policy_doc_release(&d);
	return rc;
}
