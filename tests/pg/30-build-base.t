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
done_testing
