#!/bin/bash
# 30-build-base.t - the baseline: Debian's PostgreSQL 15 source built through
# pgoptcc with policy none (passthrough, still logged), its build record, and
# PostgreSQL's own regression suite on it (as the unprivileged user).
. "$(dirname "$0")/lib.sh"
P=$B/bin/pgbuild

base=$(e2e_build base none)
ok "baseline built and installed" test -x "$base/bin/postgres"
R=$base/pgopt-build.json
json() { perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); for (split /\./, $ARGV[0]) {
	$j = ref $j eq "ARRAY" ? $j->[$_] : $j->{$_} } print $j // "null"' "$1" < "$R"; }
like "record: PostgreSQL 15 source" "$(json source.version)" '^15\.[0-9]+$'
is "record: no policy" "$(json policy.path)" null
like "record: many compiles logged" "$(json log.compiles)" '^[0-9]{3,}$'
like "record: text size of postgres" "$(json postgres.text_size)" '^[0-9]{7,}$'
like "postgres runs" "$("$base/bin/postgres" --version)" 'PostgreSQL\) 15'
like "pg_config records pgoptcc as CC" "$("$base/bin/pg_config" --cc)" 'pgoptcc'
ok "the compile log has no policy-changed compile" \
	sh -c "! grep -q '\"changed\":true' '$(e2e_builddir base)/pgopt-log/compile.jsonl'"
ok "verify of the baseline passes" "$P" verify --prefix "$base"

out=$(e2e_heavy "$P" regress --builddir "$(e2e_builddir base)" 2>&1)
s=$?
is "regression suite passes on the baseline" "$s" 0
like "summary: all core tests passed" "$out" 'core: ([0-9]{3}) tests, \1 passed, 0 failed'
if [ "$(id -u)" = 0 ]; then
	like "it says it ran as the unprivileged user" "$out" 'running as user postgres'
fi
like "verdict is the last line" "$(printf '%s\n' "$out" | tail -1)" '^regress: PASSED'
diag "$(printf '%s\n' "$out" | grep -E '^(core|regress):')"

# a real failure: the planner settings change EXPLAIN output in create_index
printf 'enable_indexscan = off\nenable_bitmapscan = off\n' > "$TMP/noindex.conf"
out=$(e2e_heavy "$P" regress --builddir "$(e2e_builddir base)" --tests "test_setup create_index" \
	--temp-config "$TMP/noindex.conf" 2>&1)
is "a failing regression test makes regress exit 1" "$?" 1
like "... the summary counts it" "$out" 'core: 2 tests, 1 passed, 1 failed'
like "... names it" "$out" 'core: FAILED create_index'
diffs=$(printf '%s\n' "$out" | sed -n 's/^core: diffs //p')
like "... and prints the path of regression.diffs" "$diffs" '/src/test/regress/regression.diffs$'
ok "... which exists and shows the plan change" grep -q 'Seq Scan' "$diffs"
like "... verdict" "$(printf '%s\n' "$out" | tail -1)" '^regress: FAILED \(1 of 2 tests failed\)'
out=$(e2e_heavy "$P" regress --builddir "$(e2e_builddir base)" --tests "test_setup boolean" 2>&1)
is "a passing subset exits 0" "$?" 0
like "... 2 tests" "$out" 'core: 2 tests, 2 passed, 0 failed'
done_testing
