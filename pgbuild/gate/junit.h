/*
 * junit.h - a gate result as JUnit XML for Jenkins and GitLab.
 *
 * One <testsuite> named after the gate; one <testcase> per threshold and
 * workload it applies to (classname "pgbuild.gate.<workload>", name the
 * threshold text), plus a testcase for the regression suite and one per
 * workload for the benchmark's correctness checks.  A failed threshold is a
 * <failure>, one that could not be measured an <error>, a regression suite
 * that was not run a <skipped/>.  The layout follows the common JUnit schema
 * (testsuites > testsuite > testcase > failure|error|skipped, system-out).
 */
#ifndef PGBUILD_JUNIT_H
#define PGBUILD_JUNIT_H

#include "pgbuild/gate/gate.h"
#include "wrapper/common/strbuf.h"

void junit_write(const struct gate *g, struct strbuf *out, const char *suite_name);
/* Append s with XML's five special characters escaped (and control bytes dropped). */
void junit_escape(struct strbuf *out, const char *s);

#endif
