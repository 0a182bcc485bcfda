#!/bin/bash
# 56-gate-sequential.t - pgbuild gate --pairs auto on real servers: Debian's
# PostgreSQL 15 as both baseline and candidate (A/A).
#   - an impossible claim (tps>=1.5) ends fail or undecided, never pass;
#     exit code, JSON verdict, result status, the confidence sequence's
#     ends and the stop reason agree with each other;
#   - a budget that cannot hold the pairs the sequence needs before it can
#     be bounded (10 at 95%) even without the servers' start and stop is
#     refused before anything runs (exit 2, saying how many and how long);
#   - a budget that holds them on paper but not on the machine ends
#     undecided: the pairs needed said before the first, exit 3,
#     "undecided" in the JSON, a skipped JUnit case saying so, and
#     `pgbuild report --gate-result` reads it back as UNDECIDED;
#   - option errors: --budget without --pairs auto, a budget under a
#     second, --pairs auto without --metric tps.
# Benchmarks run under the machine-wide heavy lock (1 s runs, a budget of
# minutes).
# tap: alone (it times something: make check runs it by itself, tests/tests.mk)
. "$(dirname "$0")/../lib/tap.sh"
PG=/usr/lib/postgresql/15
[ -x $PG/bin/postgres ] || skip_all "Debian's postgresql-15 is not installed ($PG)"
. "$(dirname "$0")/../lib/heavy.sh"
json() { # FILE PERL-EXPRESSION-ON-$d
	perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; my $d = decode_json(<$f>);
		my $r = eval $ARGV[1]; die $@ if $@; print defined $r ? $r : "undef"' "$1" "$2"
}
gate() { "$B/bin/pgbuild" gate --baseline $PG --candidate $PG --duration 1 --warmup 0.5 "$@"; }

# ---- option errors: exit 2 before anything runs ----
gate --budget 1m --gate 'tps>=1.5' >"$TMP/o1" 2>&1
is "--budget without --pairs auto: exit 2" "$?" 2
like "... says what it needs" "$(cat "$TMP/o1")" "--budget needs --pairs auto"
gate --pairs auto --budget 0.5s >"$TMP/o2" 2>&1
is "--budget 0.5s: exit 2" "$?" 2
like "... says the least" "$(cat "$TMP/o2")" "at least 1 second"
gate --pairs auto --budget 10x >"$TMP/o3" 2>&1
is "--budget 10x: exit 2" "$?" 2
gate --pairs auto --metric instructions --workload select1 >"$TMP/o4" 2>&1
is "--pairs auto --metric instructions: exit 2" "$?" 2
like "... says it needs tps" "$(cat "$TMP/o4")" "--pairs auto needs --metric tps"
gate --pairs autox >"$TMP/o5" 2>&1
is "--pairs autox: exit 2" "$?" 2

# ---- A/A with an impossible claim: fail or undecided, never pass ----
heavy gate --pairs auto --budget 4m --gate 'tps>=1.5' --json "$TMP/aa.json" \
	--junit "$TMP/aa.xml" --quiet >"$TMP/aa.out" 2>"$TMP/aa.err"
rc=$?
like "A/A tps>=1.5: exit 1 (fail) or 3 (undecided), never 0" "$rc" '^[13]$'
[ "$rc" = 1 ] || [ "$rc" = 3 ] || diag "$(cat "$TMP/aa.out" "$TMP/aa.err")"
v=$(json "$TMP/aa.json" '$d->{verdict}')
want=$([ "$rc" = 1 ] && echo fail || echo undecided)
is "json: the verdict matches the exit code ($rc)" "$v" "$want"
is "json: exit recorded" "$(json "$TMP/aa.json" '$d->{exit}')" "$rc"
is "json: the threshold's status is the verdict" "$(json "$TMP/aa.json" '$d->{results}[0]{status}')" "$v"
is "json: pairs mode auto" "$(json "$TMP/aa.json" '$d->{settings}{pairs_mode}')" auto
is "json: the budget in seconds" "$(json "$TMP/aa.json" '$d->{settings}{budget_s}')" 240
like "json: the method is named with its references" "$(json "$TMP/aa.json" '$d->{sequential}{method}')" \
	'normal mixture \(Robbins 1970; de la Pena 1999; Howard, Ramdas, McAuliffe & Sekhon'
n=$(json "$TMP/aa.json" '$d->{workloads}[0]{valid_pairs}')
is "json: the pairs run are the pairs in settings" "$(json "$TMP/aa.json" '$d->{settings}{pairs}')" "$n"
is "json: every pair has an A and a B run" "$(json "$TMP/aa.json" 'scalar @{$d->{workloads}[0]{runs}}')" $((2 * n))
like "json: the estimate lies in the sequence" "$(json "$TMP/aa.json" 'my $r = $d->{results}[0];
	(!defined $r->{ci_low} || $r->{ci_low} <= $r->{observed}) &&
	(!defined $r->{ci_high} || $r->{observed} <= $r->{ci_high}) ? "ok" : "bad"')" '^ok$'
if [ "$v" = fail ]; then
	like "fail: the upper end is below 1.5" "$(json "$TMP/aa.json" '$d->{results}[0]{ci_high} < 1.5 ? "below" : "not"')" '^below$'
	like "fail: stopped because it decided" "$(json "$TMP/aa.json" '$d->{sequential}{stopped}')" "^decided after $n pairs"
else
	like "undecided: 1.5 is still inside" "$(json "$TMP/aa.json" 'my $h = $d->{results}[0]{ci_high}; !defined $h || $h >= 1.5 ? "inside" : "not"')" '^inside$'
	like "undecided: stopped by the budget" "$(json "$TMP/aa.json" '$d->{sequential}{stopped}')" "^the budget after $n pairs"
fi
like "terminal: the sequence and its stop" "$(cat "$TMP/aa.out")" '--pairs auto: confidence sequence: .* after [0-9]+ pairs? in [0-9]+ s of a 240 s budget'
ok "junit validates against the JUnit schema" xmllint --noout --schema "$TOP/tests/lib/junit.xsd" "$TMP/aa.xml"
like "junit: the verdict property" "$(cat "$TMP/aa.xml")" "<property name=\"verdict\" value=\"$v\"/>"

# ---- a budget that cannot hold the pairs the sequence needs: refused ----
gate --pairs auto --budget 5s --gate 'tps>=1.00' --json "$TMP/r.json" --workdir "$TMP/rw" \
	>"$TMP/r.out" 2>"$TMP/r.err"
is "a 5 s budget (10 pairs of 2 x 1.5 s need 30 s): exit 2" "$?" 2
like "... says how many pairs and how long" "$(cat "$TMP/r.err")" \
	'pgbuild: error: --budget 5s: the 95% confidence sequence is unbounded before 10 pairs, and 10 pairs of 1 workload x 2 runs of 1.5 s \(--warmup 0.5 \+ --duration 1\) take at least 30 s: give --budget 45s or more'
is "json: nothing decided" "$(json "$TMP/r.json" '$d->{decided} ? "decided" : "not"')" not
ok "nothing was measured" test -z "$(ls -A "$TMP/rw" 2>/dev/null)"

# ---- a budget too small to decide: undecided, exit 3 ----
heavy gate --pairs auto --budget 32s --gate 'tps>=1.00' --json "$TMP/u.json" \
	--junit "$TMP/u.xml" >"$TMP/u.out" 2>"$TMP/u.err"
rc=$?
is "a 32 s budget: undecided (exit 3)" "$rc" 3
[ "$rc" = 3 ] || diag "$(cat "$TMP/u.out" "$TMP/u.err")"
like "progress: the pairs the sequence needs, before the first" "$(head -1 "$TMP/u.err")" \
	'^gate: --pairs auto: the 95% confidence sequence can decide from pair 10 on \(it is unbounded before\); the 32 s budget holds at most 10 pairs of at least 3 s$'
is "json: verdict undecided" "$(json "$TMP/u.json" '$d->{verdict}')" undecided
is "json: exit 3" "$(json "$TMP/u.json" '$d->{exit}')" 3
is "json: the threshold undecided" "$(json "$TMP/u.json" '$d->{results}[0]{status}')" undecided
n=$(json "$TMP/u.json" '$d->{workloads}[0]{valid_pairs}')
like "json: fewer pairs than the sequence needs ($n)" "$n" '^[1-9]$'
like "json: the reason says undecided" "$(json "$TMP/u.json" '$d->{reason}')" '^undecided: the budget ended'
like "json: ... and the result says the sequence is unbounded before 10 pairs" \
	"$(json "$TMP/u.json" '$d->{results}[0]{message}')" 'undecided, the sequence still contains 1 \(it is unbounded before 10 pairs\)$'
like "terminal: UNDECIDED" "$(head -1 "$TMP/u.out")" '^gate: UNDECIDED - '
like "progress: the stop is said" "$(cat "$TMP/u.err")" "gate: --pairs auto stopped: the budget after $n pairs?"
ok "junit validates" xmllint --noout --schema "$TOP/tests/lib/junit.xsd" "$TMP/u.xml"
like "junit: the threshold is a skipped case saying undecided" "$(grep -A1 'name="tps&gt;=1.00"' "$TMP/u.xml")" \
	'<skipped message="undecided: throughput B/A'
nok "junit: no failure" grep -q '<failure' "$TMP/u.xml"
"$B/bin/pgbuild" report --gate-result "$TMP/u.json" >"$TMP/u.rep" 2>&1
like "report --gate-result reads it back undecided" "$(head -1 "$TMP/u.rep")" '^gate: UNDECIDED - '
done_testing
