#!/bin/bash
# 30-build-base.t - the baseline: Debian's PostgreSQL 15 source built through
# pgoptcc with policy none (passthrough, still logged), its build record, and
# PostgreSQL's own regression suite on it (as the unprivileged user): a
# passing subset, the whole core suite, and a failing subset (the whole core
# suite runs on the candidates too: 51-run on coscup, 61-pgo on the PGO
# build).
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
# the latest compile of every object is unchanged by any policy (the log is
# append-only: 70-tune's steps in this build directory stay in it, restored)
is "the compile log: every object's latest compile is policy-free" "$(perl -MJSON::PP -ne '
	my $r = eval { decode_json($_) } or next;
	next unless ($r->{kind} // "") eq "compile" && $r->{output};
	$last{$r->{output} =~ m{^/} ? $r->{output} : "$r->{cwd}/$r->{output}"} = $r->{changed} ? 1 : 0;
	END { print scalar grep { $_ } values %last }' "$(e2e_builddir base)/pgopt-log/compile.jsonl")" 0
ok "verify of the baseline passes" "$P" verify --install "$base"

out=$(e2e_heavy "$P" regress --builddir "$(e2e_builddir base)" --tests "test_setup boolean" 2>&1)
s=$?
is "a passing subset of the regression suite exits 0" "$s" 0
like "... 2 tests" "$out" 'core: 2 tests, 2 passed, 0 failed'
if [ "$(id -u)" = 0 ]; then
	like "it says it ran as the unprivileged user" "$out" 'running as user postgres'
	# the privilege boundary: the suites ran in a test tree of hard links,
	# the build tree (where root builds again) stayed root's
	like "... in a test tree of hard links" "$out" "test tree $(e2e_builddir base)/pgopt-check: [0-9]+ hard links"
	is "... the build tree still has no entry of another user" \
		"$(find "$(e2e_builddir base)" ! -user root -print -quit)" ""
	is "... and the test tree is gone" "$(ls -d "$(e2e_builddir base)/pgopt-check" 2>/dev/null)" ""
else
	skip "not root: regress runs as the caller, no user switch to report" 4
fi
like "verdict is the last line" "$(printf '%s\n' "$out" | tail -1)" '^regress: PASSED'
diag "$(printf '%s\n' "$out" | grep -E '^(core|regress):')"

# the whole core suite on the baseline: the reference a candidate's run is
# compared with must itself pass
out=$(e2e_heavy "$P" regress --builddir "$(e2e_builddir base)" 2>&1)
is "the full core regression suite passes on the baseline" "$?" 0
like "... the parsed summary: N passed, 0 failed" "$out" 'core: [0-9]{3,} tests, [0-9]{3,} passed, 0 failed'
like "... verdict" "$(printf '%s\n' "$out" | tail -1)" '^regress: PASSED \([0-9]{3,} tests'
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

# a crash: a backend of make check's server killed with SIGSEGV (what a
# miscompiled build does) fails the suite, named with the server log's line,
# also when it stops pg_regress before the first test (CREATE DATABASE)
bd=$(e2e_builddir base)
e2e_heavy "$P" regress --builddir "$bd" --tests "test_setup boolean char name varchar text int2 int4 int8" \
	>"$TMP/crash.out" 2>&1 &
rp=$!
killed=$(e2e_segv_backend "$(e2e_check_server "$bd")" '\[local\]' $rp)
wait $rp
rc=$?
ok "a backend of make check's server was killed" test -n "$killed"
is "a crashed server makes regress exit 1" "$rc" 1
like "... said" "$(cat "$TMP/crash.out")" "server: the log of make check's server reports a crash:"
like "... with the server log's line" "$(cat "$TMP/crash.out")" \
	"server process \(PID $killed\) was terminated by signal 11"
like "... and where that log is" "$(cat "$TMP/crash.out")" "server: log $bd/src/test/regress/log/postmaster.log"
like "... verdict" "$(tail -1 "$TMP/crash.out")" '^regress: FAILED \(the server crashed; [0-9]+ of [0-9]+ tests failed\)$'

# killed (a CI timeout, kill PID): make, pg_regress and its temporary server
# all stop; pg_regress alone would leave that server running
in_regress_dir() { # pids of processes working in the build's regress directory
	local d
	for d in /proc/[0-9]*; do
		case $(readlink "$d/cwd" 2>/dev/null) in
		"$bd"/src/test/regress*|"$bd"/pgopt-check/src/test/regress*) echo "${d#/proc/}" ;;
		esac
	done
}
regress_killed() {
	local rp i
	touch "$TMP/rk.stamp"
	# the whole core suite: it runs long enough to be killed mid-way on
	# any machine (a short subset could end before the kill arrives)
	"$P" regress --builddir "$bd" >"$TMP/rk.out" 2>&1 &
	rp=$!
	for i in $(seq 1500); do
		# a test of this run has started (pg_regress creates its
		# results/NAME.out when it starts the test): the server runs
		[ -n "$(find "$bd/src/test/regress/results" "$bd/pgopt-check/src/test/regress/results" \
			-name '*.out' -newer "$TMP/rk.stamp" 2>/dev/null | head -n 1)" ] && break
		kill -0 "$rp" 2>/dev/null || break
		sleep 0.2
	done
	in_regress_dir | wc -l >"$TMP/rk.before"
	kill -TERM "$rp"
	wait "$rp"
	echo $? >"$TMP/rk.rc"
	for i in $(seq 100); do
		[ -z "$(in_regress_dir)" ] && break
		sleep 0.2
	done
	in_regress_dir | wc -l >"$TMP/rk.left"
}
bd=$(e2e_builddir base)
e2e_heavy regress_killed
ok "the regression suite's server ran before the kill" test "$(cat "$TMP/rk.before")" -ge 3
is "regress killed with SIGTERM dies of it" "$(cat "$TMP/rk.rc")" 143
[ "$(cat "$TMP/rk.rc")" = 143 ] || diag "pgbuild regress said:" "$(tail -n 5 "$TMP/rk.out")"
is "... and leaves no make, pg_regress or server behind" "$(cat "$TMP/rk.left")" 0
done_testing
