#!/bin/bash
# 51-run.t - pgbuild run, the whole pipeline, on the shared builds: the
# baseline install given with --baseline, the coscup candidate reused from
# its pgopt-build.json (same source, same policy hash: no rebuild), then
# verify, regress, gate and report.  Interrupted during the gate, a second
# run resumes: the finished stages are skipped, the gate runs again.  A
# third run only rewrites the report.  The gate measures the cycles
# estimate too (--metric tps,cycles): the report has its explain section
# (where the estimate changed, function by function), and the callgrind
# outputs stay in WORKDIR/gate, so `pgbuild explain --gate-result` reads them.
# Before the gate, run measures the given baseline's layout floor (5
# relinked variants, select-only, the cycles estimate) into
# WORKDIR/baseline-noise.json, and the gate compares the estimate at it;
# resumed, the floor is not measured again, and `pgbuild noise --reuse`
# on the same file measures nothing.
. "$(dirname "$0")/lib.sh"
P=$B/bin/pgbuild
POLICY=$E2E_CANDIDATE_POLICY
base=$(e2e_build base none) || { tap_result 1 "baseline build"; done_testing; }
cand=$(e2e_build coscup "$POLICY") || { tap_result 1 "candidate build"; done_testing; }
src=$(e2e_src)
W=$TMP/run
args=(run --policy "$POLICY" --src "$src" --workdir "$W" --baseline "$base"
	--candidate-prefix "$cand" --candidate-builddir "$(e2e_builddir coscup)"
	--gate 'select-only>=1.00,p99<=+25%' --pairs 7 --duration 2 --metric tps,cycles --noise-variants 5)
stamp=$(stat -c %Y "$cand/bin/postgres")

# 1: interrupted while the gate runs
e2e_heavy setsid "$P" "${args[@]}" >"$TMP/1.out" 2>"$TMP/1.err" &
pid=$!
for i in $(seq 1 1800); do
	grep -q '"regress"' "$W/run-state.json" 2>/dev/null && grep -q 'pair 1/7' "$TMP/1.err" && break
	kill -0 $pid 2>/dev/null || break
	sleep 1
done
ok "first run reached the gate" grep -q '\[6/7\] gate' "$TMP/1.err"
pg=$(ps -o pgid= -p "$(pgrep -n -f "pgbuild ${args[0]} --policy $POLICY")" 2>/dev/null | tr -d ' ')
[ -n "$pg" ] && kill -TERM -- -"$pg"
wait $pid
rc1=$?
ok "first run was interrupted (exit $rc1)" test "$rc1" -ne 0 -a "$rc1" -ne 1
like "candidate reused, not rebuilt" "$(cat "$W/logs/candidate.log")" "^reused $cand"
is "candidate binary untouched" "$(stat -c %Y "$cand/bin/postgres")" "$stamp"
like "verify stage done" "$(cat "$TMP/1.err")" '\[3/7\] verify +done'
like "regress stage done" "$(cat "$TMP/1.err")" '\[4/7\] regress +done'
like "the baseline's layout floor measured before the gate" "$(cat "$TMP/1.err")" '\[5/7\] floor +done in'
floor=$W/baseline-noise.json
jf() { perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; my $d = decode_json(<$f>); print eval $ARGV[1]' "$@"; }
is "... over 5 variants" "$(jf "$floor" 'scalar @{$d->{variants}}')" 5
is "... of the gate's workload, the cycles estimate (not instructions: not compared)" \
	"$(jf "$floor" 'join ",", map { my $w = $d->{workloads}{$_}; "$_:" . (exists $w->{cycles_estimate} ? "cycles" : "-") . (exists $w->{instructions} ? "+instr" : "") } sort keys %{$d->{workloads}}')" "select-only:cycles"
is "... of the baseline's postgres" "$(jf "$floor" '$d->{postgres_sha256}')" "$(sha256sum "$base/bin/postgres" | cut -d' ' -f1)"
ok "no gate verdict yet (none, or the interrupted gate's)" bash -c "! test -e '$W/gate.json' || grep -q '\"verdict\":\"interrupted\"' '$W/gate.json'"

# 2: resume
e2e_heavy "$P" "${args[@]}" >"$TMP/2.out" 2>"$TMP/2.err"
rc=$?
ok "resumed run reached a verdict (exit $rc)" test "$rc" -le 1
like "verify skipped on resume" "$(cat "$TMP/2.err")" '\[3/7\] verify .*finished in an earlier run'
like "regress skipped on resume" "$(cat "$TMP/2.err")" '\[4/7\] regress .*finished in an earlier run'
like "floor not measured again on resume" "$(cat "$TMP/2.err")" '\[5/7\] floor .*finished in an earlier run'
like "gate ran" "$(cat "$TMP/2.err")" '\[6/7\] gate +(done|FAILED) in'
like "report printed" "$(cat "$TMP/2.out")" '^gate: (FASTER|NOT SLOWER|NOT SHOWN SLOWER|NOT SHOWN FASTER|SLOWER|FAILED)'
like "regression result reached the gate" "$(cat "$TMP/2.out")" 'regression suite: passed'
ok "html report written" test -s "$W/report.html"
ok "junit written and valid" xmllint --noout --schema "$TOP/tests/lib/junit.xsd" "$W/gate.junit.xml"
diag "$(head -12 "$TMP/2.out")"
is "the cycles estimate was measured" "$(perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; print decode_json(<$f>)->{workloads}[0]{cycles}{state}' "$W/gate.json")" ok
like "... and reported" "$(cat "$TMP/2.out")" 'cycles estimate per transaction - '
is "the gate used the floor run measured" "$(jf "$W/gate.json" '$d->{noise_floor}{state}')" used
like "... which decided the estimate's resolution (the rule on it, or the repeat one above it)" \
	"$(jf "$W/gate.json" '$d->{workloads}[0]{cycles}{resolution_source}')" "^(repeat 0.1% \(above the )?layout floor: 1.96 x sqrt\(a\^2 \+ b\^2\), a = 95% bound of SD .* over 5 variants = .* \($floor\), b = "
like "... and the report says so" "$(cat "$TMP/2.out")" "resolution of .*: layout floor $floor \(5 variants of "
m0=$(stat -c %Y "$floor")
"$P" noise --install "$base" --json "$floor" --workdir "$TMP/nw" --variants 5 -W select-only --metric cycles --reuse >"$TMP/n.out" 2>"$TMP/n.err"
is "pgbuild noise --reuse on the same floor: exit 0" "$?" 0
like "... reused, nothing measured" "$(cat "$TMP/n.err")" "^noise: $floor is a floor of .* reused \(--reuse\), nothing measured"
is "... the file untouched" "$(stat -c %Y "$floor")" "$m0"
nok "... no variant made" test -e "$TMP/nw"
# a build tree that is not the install's (here the candidate's): refused
# before any relink, as its variants would be another binary's floor
"$P" noise --install "$base" --builddir "$(e2e_builddir coscup)" --json "$TMP/nx.json" --workdir "$TMP/nx" \
	--variants 5 -W select-only --metric cycles >"$TMP/nx.out" 2>"$TMP/nx.err"
is "pgbuild noise with another build's tree: exit 2" "$?" 2
like "... saying its postgres is not the install's" "$(cat "$TMP/nx.err")" \
	"^pgbuild: error: --builddir .*: its postgres .*/src/backend/postgres is not $base/bin/postgres \(sha256 [0-9a-f]{12}\.\.\. against [0-9a-f]{12}\.\.\.\): "
nok "... nothing relinked, no floor written" sh -c "ls '$TMP/nx' 2>/dev/null | grep -q . || test -e '$TMP/nx.json'"
like "the report explains it, function by function" "$(cat "$TMP/2.out")" 'explain select-only: where the cycles estimate changed'
like "... in the HTML report too (the bar chart)" "$(cat "$W/report.html")" '<svg .*change of the estimate per function'
"$P" explain --gate-result "$W/gate.json" --json "$TMP/e.json" >"$TMP/e.out" 2>"$TMP/e.err"
is "pgbuild explain --gate-result on run's gate: exit 0" "$?" 0
like "... run kept the callgrind outputs in WORKDIR/gate" \
	"$(perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; print decode_json(<$f>)->{workloads}[0]{cycles}{callgrind}{a}[0]' "$W/gate.json")" "^$W/gate/"
nok "... which explain read, measuring nothing again" grep -Eq 'were not kept|cache and branch simulation' "$TMP/e.err"
ok "... and wrote its rows" test -s "$TMP/e.json"

# 3: everything finished: only the report is rewritten, same verdict
e2e_heavy "$P" "${args[@]}" >"$TMP/3.out" 2>"$TMP/3.err"
is "third run: same exit code" "$?" "$rc"
like "third run: gate skipped" "$(cat "$TMP/3.err")" '\[6/7\] gate .*finished in an earlier run'
done_testing
