/*
 * test-optimize.c - pgbuild/optimize: --stages parsing, the stage policies
 * (bolt = ready added, bolt = off refused, lto = on for tuned), policy
 * sameness (what makes a seeded build reusable), and the keep/drop
 * decision and waterfall arithmetic on real gate JSON files
 * (tests/unit/data/optimize-gate-lto.json: `pgbuild gate --metric
 * tps,instructions,cycles -W select-only --pairs 6 -T 1` of the shared
 * coscup LTO build of tests/pg against its base build;
 * optimize-gate-pgo-scoped.json: the same gate of the hot-files-only PGO
 * build, which is slower than the LTO build on the estimate).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pgbuild/metric/cycles.h"
#include "pgbuild/optimize/optimize.h"
#include "pgbuild/pgbuild.h"

#include "tests/unit/fixture.h"

static void load(struct optimize_measure *m, const char *name)
{
	struct strbuf err = STRBUF_INIT;
	char *text = fixture(name);
	assert_int_equal(optimize_measure_read(m, text, strlen(text), &err), 0);
	free(text);
	strbuf_release(&err);
}

static void test_stages(void **state)
{
	unsigned m = 0;
	(void)state;
	assert_int_equal(optimize_parse_stages("lto,bolt", &m), 0);
	assert_int_equal(m, (1u << OS_STOCK) | (1u << OS_LTO) | (1u << OS_BOLT));
	assert_int_equal(optimize_parse_stages("pgo", &m), 0); /* repeatable */
	assert_true(m & (1u << OS_PGO));
	m = 0;
	assert_int_equal(optimize_parse_stages("stock", &m), 0);
	assert_int_equal(m, 1u << OS_STOCK);
	m = 0;
	assert_int_equal(optimize_parse_stages("lto,blot", &m), -1);
	assert_int_equal(optimize_parse_stages("", &m), -1);
	assert_int_equal(optimize_parse_stages(",", &m), -1);
}

static void test_policy_text(void **state)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	(void)state;
	assert_int_equal(optimize_policy_text(NULL, NULL, 0, &out, &err), 0);
	assert_string_equal(out.buf, OPTIMIZE_DEFAULT_POLICY);
	/* bolt = ready added right after [global] */
	assert_int_equal(optimize_policy_text("# c\n[global]\ncflags += -O3\nlto = on\n",
					      "/p/x.policy", 0, &out, &err), 0);
	assert_string_equal(out.buf, "# c\n[global]\nbolt = ready\ncflags += -O3\nlto = on\n");
	/* already ready: unchanged */
	assert_int_equal(optimize_policy_text("[global]\nbolt = ready\n", "/p/x.policy", 0,
					      &out, &err), 0);
	assert_string_equal(out.buf, "[global]\nbolt = ready\n");
	/* no [global]: one is added first */
	assert_int_equal(optimize_policy_text("[src/backend/**]\ncflags += -O3\n", "/p/x.policy", 0,
					      &out, &err), 0);
	assert_string_equal(out.buf, "[global]\nbolt = ready\n[src/backend/**]\ncflags += -O3\n");
	/* the tuned stage: lto = on too */
	assert_int_equal(optimize_policy_text("[global]\ncflags += -O3\n", "/p/x.policy", 1,
					      &out, &err), 0);
	assert_string_equal(out.buf, "[global]\nlto = on\nbolt = ready\ncflags += -O3\n");
	/* bolt = off is refused, a section's bolt key is not [global]'s */
	assert_int_equal(optimize_policy_text("[global]\nbolt = off\n", "/p/x.policy", 0, &out, &err), -1);
	assert_non_null(strstr(err.buf, "bolt = off"));
	/* text that is no policy: the parser's reason, naming the file */
	strbuf_reset(&err);
	assert_int_equal(optimize_policy_text("[global]\nlto = yes\n", "/p/x.policy", 0, &out, &err),
			 -1);
	assert_string_equal(err.buf, "/p/x.policy:2: expected lto = on, off, fat or slim, got \"yes\"");
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_policy_same(void **state)
{
	(void)state;
	/* a commented policy with the same lines and the default say the same */
	assert_true(optimize_policy_same("# a policy - ...\n# more\n[global]\n"
					 "lto = on\n  bolt = ready  \n\n", OPTIMIZE_DEFAULT_POLICY));
	assert_false(optimize_policy_same("[global]\nlto = on\n", OPTIMIZE_DEFAULT_POLICY));
	assert_false(optimize_policy_same("[global]\nbolt = ready\nlto = on\n",
					  OPTIMIZE_DEFAULT_POLICY));
	assert_true(optimize_policy_same("", "# nothing\n\n"));
}

static void test_measure(void **state)
{
	struct optimize_measure lto;
	const struct optimize_figure *f;
	(void)state;
	load(&lto, "optimize-gate-lto.json");
	assert_int_equal(lto.nr, 1);
	assert_string_equal(lto.wl[0].name, "select-only");
	f = optimize_measure_get(&lto, "select-only", OM_CYCLES);
	assert_non_null(f);
	/* what the gate printed: 151742 / 148023 = 1.0251 */
	assert_true(fabs(f->stock - 151742) < 1 && fabs(f->build - 148023) < 1);
	assert_true(fabs(f->total - 1.0251) < 1e-4);
	assert_true(isnan(f->lo));
	/* instructions from their own measurement: A 92226 B 89755, 1.0275 */
	f = optimize_measure_get(&lto, "select-only", OM_INSTRUCTIONS);
	assert_true(fabs(f->total - 1.0275) < 1e-4);
	f = optimize_measure_get(&lto, "select-only", OM_I1);
	assert_true(fabs(f->total - 1.0189) < 1e-4);
	/* tps: the gate's estimate and interval 1.0893 [0.9108, 1.3412] */
	f = optimize_measure_get(&lto, "select-only", OM_TPS);
	assert_true(fabs(f->total - 1.0893) < 1e-4);
	assert_true(fabs(f->lo - 0.9108) < 1e-4 && fabs(f->hi - 1.3412) < 1e-4);
	assert_null(optimize_measure_get(&lto, "tpcb", OM_CYCLES));
	assert_true(fabs(optimize_score(&lto) - 1.0251) < 1e-4);
	optimize_measure_clear(&lto);
}

static void test_decide(void **state)
{
	struct optimize_measure lto, pgo;
	struct strbuf why = STRBUF_INIT;
	double added;
	(void)state;
	load(&lto, "optimize-gate-lto.json");
	load(&pgo, "optimize-gate-pgo-scoped.json");
	/* both are faster than stock */
	assert_int_equal(optimize_decide(&lto, NULL, "stock", &why), 1);
	assert_int_equal(optimize_decide(&pgo, NULL, "stock", &why), 1);
	assert_int_equal(why.len, 0);
	/* stacked on lto (1.0251x), pgo-scoped (1.0023x) adds 1.0023/1.0251 */
	added = optimize_added(optimize_measure_get(&pgo, "select-only", OM_CYCLES),
			       optimize_measure_get(&lto, "select-only", OM_CYCLES));
	assert_true(fabs(added - 1.0023 / 1.0251) < 2e-4);
	assert_int_equal(optimize_decide(&pgo, &lto, "lto", &why), 0);
	assert_non_null(strstr(why.buf, "select-only"));
	assert_non_null(strstr(why.buf, "not faster than lto"));
	/* and lto on pgo-scoped is kept: 1.0251/1.0023 */
	strbuf_reset(&why);
	assert_int_equal(optimize_decide(&lto, &pgo, "pgo", &why), 1);
	/* a stage is not faster than itself (A/A at the resolution) */
	assert_int_equal(optimize_decide(&lto, &lto, "lto", &why), 0);
	/* no estimate for the workload: dropped, and says so */
	strbuf_reset(&why);
	pgo.wl[0].f[OM_CYCLES].total = NAN;
	assert_int_equal(optimize_decide(&pgo, NULL, "stock", &why), 0);
	assert_non_null(strstr(why.buf, "no cycles estimate"));
	/* the arithmetic: stock's parent total is 1 */
	assert_true(fabs(optimize_added(&lto.wl[0].f[OM_CYCLES], NULL) - 1.0251) < 1e-4);
	optimize_measure_clear(&lto);
	optimize_measure_clear(&pgo);
	strbuf_release(&why);
}

static void test_bad_gate(void **state)
{
	struct optimize_measure m;
	struct strbuf err = STRBUF_INIT;
	(void)state;
	assert_int_equal(optimize_measure_read(&m, "{\"kind\":\"x\"}", 12, &err), -1);
	assert_true(err.len > 0);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stages),
		cmocka_unit_test(test_policy_text),
		cmocka_unit_test(test_policy_same),
		cmocka_unit_test(test_measure),
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_bad_gate),
	};
	error_set_program("pgbuild", 2);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
