#!/bin/bash
# 50-gate-options.t - pgbuild gate/report/run option errors and --help, no
# server needed: every bad option names itself and its value, exits 2, and
# nothing is measured.  (After pgbench's t/002_pgbench_no_server.pl.)
. "$(dirname "$0")/../lib/tap.sh"
PG=/usr/lib/postgresql/15

# check_err TITLE REGEX ARGS... : exit 2 and stderr matches REGEX
check_err() {
	local title=$1 re=$2 rc
	shift 2
	"$B/bin/pgbuild" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	is "$title: exit 2" "$rc" 2
	like "$title: message" "$(cat "$TMP/err")" "$re"
}

check_err "gate without prefixes" "--baseline and --candidate are required" gate
check_err "gate bad --pairs" 'invalid value "0" for --pairs' gate --baseline $PG --candidate $PG --pairs 0
# --pairs below the family's need (gate.h: Holm's first step has no interval, every bound
# would be untested): refused before anything runs, in seconds
start=$SECONDS
check_err "gate --pairs 6 for 4 tests" \
	"--pairs 6: 4 tests \\(the thresholds x the workloads they apply to\\) need at least 8 pairs \\(Holm's first step at 0.625%\\); give --pairs 8 or --pairs auto" \
	gate --baseline $PG --candidate $PG -W select-only,tpcb --gate 'tps>=1.00,p99<=1.2' --pairs 6
ok "... refused at once ($((SECONDS - start)) s)" test $((SECONDS - start)) -le 5
is "... nothing measured" "$(cat "$TMP/out")" ""
check_err "gate --pairs 6 for 2 workloads" "--pairs 6: 2 tests .* need at least 7 pairs" \
	gate --baseline $PG --candidate $PG -W select-only,tpcb --pairs 6
check_err "run --pairs 6 for 2 workloads" "--pairs 6: 2 tests .* need at least 7 pairs" \
	run --policy none --src /nonexistent --gate tps\>=1.00 -W select-only,tpcb --pairs 6
check_err "gate bad --duration" 'invalid value "x" for --duration' gate --baseline $PG --candidate $PG --duration x
check_err "gate bad --clients" 'invalid value "-1" for --clients' gate --baseline $PG --candidate $PG --clients -1
check_err "gate bad --metric" 'invalid value "cycle" for --metric' gate --baseline $PG --candidate $PG --metric cycle
check_err "gate bad --counter" 'invalid value "papi" for --counter: expected auto, perf or callgrind' \
	gate --baseline $PG --candidate $PG --metric instructions --counter papi
# --counter perf where hardware counters do not count (this VM): a clear error, nothing measured
if perf stat -x, -e instructions:u -- true 2>&1 | grep -q '^[0-9]'; then
	skip "hardware counters work here: --counter perf would measure; its error is not tested" 3
else
	check_err "gate --counter perf without counters" \
		'--counter perf: (hardware counters do not work here: `perf stat -e instructions:u true` says <(not supported|not counted)>|perf is not installed|`perf stat)' \
		gate --baseline $PG --candidate $PG --metric instructions --counter perf --json "$TMP/perf.json"
	like "... and the JSON says why nothing was decided" "$(cat "$TMP/perf.json")" \
		'"reason":"--counter perf: hardware counters do not work here; nothing decided"'
fi
check_err "gate bad --ci" 'invalid value "t" for --ci' gate --baseline $PG --candidate $PG --ci t
check_err "gate bad --set" 'invalid value "fsync" for --set: expected NAME=VALUE' gate --baseline $PG --candidate $PG --set fsync
check_err "gate bad --min-speedup" 'invalid value "fast" for --min-speedup' gate --baseline $PG --candidate $PG --min-speedup fast
check_err "gate bad --cpus" 'invalid value "a-b" for --cpus' gate --baseline $PG --candidate $PG --cpus a-b --metric instructions
check_err "gate --gate operator" 'invalid value "select-only>1.05" for --gate: item 1 "select-only>1.05": expected >= or <=' \
	gate --baseline $PG --candidate $PG --gate 'select-only>1.05'
check_err "gate --gate latency direction" 'item 2 "p99>=\+10%": p99 is a latency, bound it from above with <=' \
	gate --baseline $PG --candidate $PG --gate 'tpcb>=1,p99>=+10%'
check_err "gate --gate empty item" 'item 2 is empty' gate --baseline $PG --candidate $PG --gate 'tpcb>=1,'
check_err "gate --gate value" 'value "\+1.05": a signed value needs %' gate --baseline $PG --candidate $PG --gate 'tpcb>=+1.05'
check_err "gate instructions need the metric" 'threshold "instructions>=1.01" needs --metric instructions \(alone or in a list: --metric tps,instructions\)' \
	gate --baseline $PG --candidate $PG --gate 'instructions>=1.01'
check_err "gate tps needs the metric" 'threshold "tpcb>=1" needs --metric tps \(alone or in a list: --metric tps,instructions\)' \
	gate --baseline $PG --candidate $PG --gate 'tpcb>=1' --metric instructions
check_err "gate not an install" "$TMP: no bin/postgres" gate --baseline $PG --candidate "$TMP"
check_err "gate regress options exclude each other" "exclude each other" \
	gate --baseline $PG --candidate $PG --require-regress /x --regress-result passed
check_err "gate bad --regress-result" 'invalid value "maybe" for --regress-result' \
	gate --baseline $PG --candidate $PG --regress-result maybe
check_err "gate stray argument" 'unexpected argument "extra"' gate --baseline $PG --candidate $PG extra
check_err "report nothing" "nothing to report" report
check_err "report missing gate file" "cannot read $TMP/none.json" report --gate-result "$TMP/none.json"
echo '{"kind":"something-else"}' >"$TMP/other.json"
check_err "report not a gate result" "not a pgbuild gate result" report --gate-result "$TMP/other.json"
echo '{"kind":"pgbuild-gate",' >"$TMP/trunc.json"
check_err "report truncated gate result" "trunc.json: line" report --gate-result "$TMP/trunc.json"
check_err "run without policy" "--policy is required" run
check_err "run missing policy" '--policy "/nonexistent.policy"' run --policy /nonexistent.policy
touch "$TMP/empty.policy"
check_err "run bad gate expression before any build" 'invalid value "tpcb" for --gate' \
	run --policy "$TMP/empty.policy" --workdir "$TMP/w" --gate tpcb
ok "run made no build for a bad gate" test ! -e "$TMP/w"
check_err "run bad --cpus before any build" 'invalid value "a-b" for --cpus' \
	run --policy "$TMP/empty.policy" --workdir "$TMP/w" --cpus a-b
check_err "run --cpus with a bad range, as the gate parses it, before any build" 'invalid value "3-1" for --cpus' \
	run --policy "$TMP/empty.policy" --workdir "$TMP/w" --cpus 3-1
check_err "run bad --counter before any build" 'invalid value "papi" for --counter' \
	run --policy "$TMP/empty.policy" --workdir "$TMP/w" --counter papi
ok "run made no build for a bad --cpus or --counter" test ! -e "$TMP/w"

for c in gate report run; do
	"$B/bin/pgbuild" $c --help >"$TMP/help" 2>&1
	is "$c --help exits 0" "$?" 0
	like "$c --help shows usage" "$(head -1 "$TMP/help")" "^usage: pgbuild $c"
done
like "run --help: --cpus and --counter go to the gate" "$("$B/bin/pgbuild" run --help)" "--cpus LIST --counter auto\|perf\|callgrind"
like "gate --help: claims need the interval's lower end" "$("$B/bin/pgbuild" gate --help)" "the lower end of the"
like "gate --help names the interval method" "$(cat "$TMP/help" ; "$B/bin/pgbuild" gate --help)" "Hodges-Lehmann"

# an error before deciding replaces an earlier gate's --json/--junit
echo '{"kind":"pgbuild-gate","verdict":"pass","exit":0}' >"$TMP/stale.json"
echo '<testsuites/>' >"$TMP/stale.xml"
check_err "gate error with an old --json" "$TMP: no bin/postgres" gate --baseline $PG --candidate "$TMP" \
	--json "$TMP/stale.json" --junit "$TMP/stale.xml"
like "the old pass is replaced by an error" "$(cat "$TMP/stale.json")" \
	'"verdict":"error","reason":"baseline or candidate is not a working PostgreSQL install; nothing decided","exit":2,"decided":false'
like "the JUnit says error too" "$(cat "$TMP/stale.xml")" '<error message="baseline or candidate is not a working PostgreSQL install'
ok "that JUnit is valid" xmllint --noout --schema "$TOP/tests/lib/junit.xsd" "$TMP/stale.xml"
# a candidate whose postgres does not run: refused before the first pair
mkdir -p "$TMP/broken/bin" && printf '#!/bin/sh\nexit 1\n' >"$TMP/broken/bin/postgres" && chmod +x "$TMP/broken/bin/postgres"
t0=$(date +%s)
check_err "gate with a candidate whose postgres does not run" \
	"--candidate $TMP/broken: its postgres does not run: not a working PostgreSQL install" \
	gate --baseline $PG --candidate "$TMP/broken" --pairs 6
ok "... at once, not after the baseline's pairs ($(($(date +%s) - t0)) s)" test $(($(date +%s) - t0)) -le 10
# that postgres --version runs as the server user, never as root: the
# tested install is trusted for nothing (tests/SECURITY.md)
if [ "$(id -u)" = 0 ]; then
	who=$(mktemp -d /tmp/pgopt-who.XXXXXX) && chmod 755 "$who" && mkdir -m 755 "$who/bin" &&
		mkdir -m 1777 "$who/out" &&
		printf '#!/bin/sh\nid -un >%s/out/who\nexit 1\n' "$who" >"$who/bin/postgres" &&
		chmod 755 "$who/bin/postgres"
	"$B/bin/pgbuild" gate --baseline "$who" --candidate $PG --pairs 6 >/dev/null 2>&1
	is "the install's postgres --version ran as the server user" "$(cat "$who/out/who" 2>/dev/null)" \
		"${PGBUILD_SERVER_USER:-postgres}"
	rm -rf "$who"
else
	skip "not root: every server runs as ourselves"
fi
check_err "gate usage error with an old --json" 'invalid value "0" for --pairs' gate --json "$TMP/stale2.json" \
	--baseline $PG --candidate $PG --pairs 0
like "a usage error writes an error document" "$(cat "$TMP/stale2.json")" '"verdict":"error","reason":"usage error; nothing decided"'

# the JUnit schema the gate tests validate against follows the common one
# (junit-10.xsd): no "skipped" on <testsuites>, no "status" on <testcase>
junit_doc() { # TESTSUITES-ATTRS TESTCASE-ATTRS
	printf '<?xml version="1.0"?>\n<testsuites tests="1" failures="0" errors="0"%s>\n' "$1"
	printf '<testsuite name="s" tests="1" failures="0" errors="0" skipped="1" time="0">\n'
	printf '<testcase classname="c" name="n" time="0"%s><skipped message="m"/></testcase>\n' "$2"
	printf '</testsuite>\n</testsuites>\n'
}
XSD=$TOP/tests/lib/junit.xsd
junit_doc "" "" >"$TMP/j-ok.xml"
junit_doc ' skipped="1"' "" >"$TMP/j-sk.xml"
junit_doc "" ' status="run"' >"$TMP/j-st.xml"
ok "junit.xsd accepts the gate's layout" xmllint --noout --schema "$XSD" "$TMP/j-ok.xml"
like "junit.xsd rejects skipped on testsuites" "$(xmllint --noout --schema "$XSD" "$TMP/j-sk.xml" 2>&1)" \
	"element testsuites: .*attribute 'skipped': The attribute 'skipped' is not allowed"
like "junit.xsd rejects status on testcase" "$(xmllint --noout --schema "$XSD" "$TMP/j-st.xml" 2>&1)" \
	"element testcase: .*attribute 'status': The attribute 'status' is not allowed"
done_testing
