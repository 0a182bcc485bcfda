#!/bin/bash
# 84-gate-faults.t - a fault in one of the gate's benchmark runs (a backend
# killed with SIGKILL) marks that run invalid in the gate's JSON, and the
# gate cannot give a verdict: exit 2, verdict "error", nothing left behind.
# Ctrl-C (SIGINT to the gate's process group) in the middle of a run: exit
# 130 within seconds, no server or directory left, and the --json/--junit
# files (stale ones from an earlier gate) replaced by documents that say
# "interrupted".
# Runs in which no transaction completed (-T 0.0001) are failed runs for
# the gate too: exit 2, verdict "error", each run's exit 2 and its reason.
# --require-regress BUILDDIR on a fake build tree whose `make check` prints a
# failing pg_regress summary: the gate fails (exit 1) with the regression
# reason; one whose check cannot run at all: exit 2 before any benchmark.
# tap: alone (it times something: make check runs it by itself, tests/tests.mk)
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/bench.sh"
P=$B/bin/pgbuild
cd "$TMP" || exit 1

"$P" gate --baseline "$PGPREFIX" --candidate "$PGPREFIX" --pairs 6 --duration 2 --warmup 0 --clients 4 \
	--set fsync=off --json "$TMP/g.json" --quiet > g.out 2> g.err &
gp=$!
victim=
for _ in $(seq 300); do
	sleep 0.2
	pm=$(pgrep -f "postgres -D $TMPDIR/pgbuild-" | head -1)
	[ -n "$pm" ] || continue
	# a benchmark run is on when its 4 clients and the control connection
	# are there (the loader of the template, alone, is not a run: killing it
	# as it exits costs a crash restart and no run)
	[ "$(pgrep -P "$pm" -f 'postgres: postgres postgres ' | wc -l)" -ge 5 ] || continue
	# any backend of the run: a SIGKILL to one makes the postmaster end
	# them all (a crash restart), so the run fails whichever it is; one
	# caught in a statement was asked for before, and on a loaded machine
	# the clients' backends are mostly idle between statements when looked at
	victim=$(pgrep -P "$pm" -f 'postgres: postgres postgres ' | tail -1)
	# killed while it is there (on a loaded machine a run can end between
	# pgrep and kill; then look again)
	[ -n "$victim" ] && kill -KILL "$victim" 2>/dev/null && break
	victim=
done
ok "found and killed a backend of a gate run" test -n "$victim"
wait $gp
is "gate: exit 2 (could not measure)" "$?" 2
is "gate JSON: verdict error" "$(json_get g.json '$d->{verdict}')" error
like "gate JSON: the faulty run is counted" "$(json_get g.json '$d->{workloads}[0]{run_errors}')" '^[1-9]'
like "gate JSON: that run has a non-zero exit" \
	"$(json_get g.json 'join ",", map { $_->{exit} } @{$d->{workloads}[0]{runs}}')" '[12]'
like "gate JSON: fewer valid pairs than asked" "$(json_get g.json '$d->{workloads}[0]{valid_pairs}')" '^[0-5]$'
like "gate report says why" "$(cat g.out)" 'COULD NOT MEASURE'
is "no server process left" "$(pgrep -f "postgres -D $TMPDIR/pgbuild-" | wc -l)" 0
is "no cluster or gate directory left" "$(find "$TMPDIR" -maxdepth 1 -name 'pgbuild-*' | wc -l)" 0

# runs that measured nothing: bench exits 2, the gate cannot decide
"$P" gate --baseline "$PGPREFIX" --candidate "$PGPREFIX" --pairs 6 --duration 0.0001 --warmup 0 \
	-W select1 --set fsync=off --json "$TMP/z.json" --quiet >z.out 2>z.err
is "gate of runs with no transaction: exit 2" "$?" 2
is "... JSON: verdict error" "$(json_get z.json '$d->{verdict}')" error
is "... JSON: every run failed with exit 2" \
	"$(json_get z.json 'join ",", sort { $a <=> $b } keys %{{ map { $_->{exit} => 1 } @{$d->{workloads}[0]{runs}} }}')" 2
is "... JSON: no valid pair" "$(json_get z.json '$d->{workloads}[0]{valid_pairs}')" 0
like "... JSON: a run says why" "$(json_get z.json '$d->{workloads}[0]{runs}[0]{bench}{error}')" '^no transaction completed in the timed run'
like "... the report says it could not measure" "$(cat z.out)" 'COULD NOT MEASURE'

# Ctrl-C: SIGINT to the whole process group, as a terminal sends it
echo '{"kind":"pgbuild-gate","verdict":"pass","exit":0}' >"$TMP/i.json"  # an earlier gate's
echo '<testsuites/>' >"$TMP/i.xml"
setsid "$P" gate --baseline "$PGPREFIX" --candidate "$PGPREFIX" --pairs 6 --duration 5 --warmup 0 \
	--clients 2 --set fsync=off --json "$TMP/i.json" --junit "$TMP/i.xml" --quiet >i.out 2>i.err &
gp=$!
on=
for _ in $(seq 300); do
	sleep 0.2
	pm=$(pgrep -f "postgres -D $TMPDIR/pgbuild-" | head -1)
	[ -n "$pm" ] || continue
	[ "$(pgrep -P "$pm" -f 'postgres: postgres postgres ' | wc -l)" -ge 3 ] && { on=1; break; }
done
ok "a gate run is on" test -n "$on"
t0=$(date +%s)
kill -INT -- "-$gp"
wait $gp
rc=$?
t1=$(date +%s)
is "gate Ctrl-C: exit 130 (died of SIGINT)" "$rc" 130
ok "gate Ctrl-C: stopped within 10 s ($((t1 - t0)) s)" test $((t1 - t0)) -le 10
like "gate Ctrl-C: says so" "$(cat i.err)" "interrupted by signal 2; nothing decided"
is "gate Ctrl-C JSON: verdict interrupted (the stale pass is gone)" "$(json_get i.json '$d->{verdict}')" interrupted
is "gate Ctrl-C JSON: exit 130" "$(json_get i.json '$d->{exit}')" 130
is "gate Ctrl-C JSON: nothing decided" "$(json_get i.json '$d->{decided} ? 1 : 0')" 0
ok "gate Ctrl-C JUnit: valid" xmllint --noout --schema "$TOP/tests/lib/junit.xsd" i.xml
like "gate Ctrl-C JUnit: an error says interrupted" "$(cat i.xml)" '<error message="interrupted by signal 2'
"$P" report --gate-result i.json >i.rep 2>&1
like "gate Ctrl-C: report says could not measure" "$(cat i.rep)" 'COULD NOT MEASURE - interrupted by signal 2'
is "gate Ctrl-C: no temporary output file left" "$(ls "$TMP" | grep -c '\.tmp[0-9]')" 0
is "gate Ctrl-C: no server process left" "$(pgrep -f "postgres -D $TMPDIR/pgbuild-" | wc -l)" 0
is "gate Ctrl-C: no cluster or gate directory left" "$(find "$TMPDIR" -maxdepth 1 -name 'pgbuild-*' | wc -l)" 0

# --require-regress: fake build trees (config.status + a GNUmakefile whose
# check target prints what pg_regress prints), as tests/t/30 makes them
fake_tree() { # DIR EXIT LINES...
	local dir=$1 rc=$2
	shift 2
	mkdir -p "$dir"
	touch "$dir/config.status"
	{
		printf 'check:\n'
		for l in "$@"; do printf '\t@echo %q\n' "$l"; done
		printf '\t@exit %d\n' "$rc"
	} >"$dir/GNUmakefile"
}
chmod 755 "$TMP"   # regress hands the tree to the server user when we are root
fake_tree "$TMP/failtree" 2 \
	"test boolean                       ... ok           12 ms" \
	"test char                          ... FAILED       15 ms" \
	"test name                          ... ok            9 ms" \
	"=======================" " 1 of 3 tests failed. " "======================="
"$P" gate --baseline "$PGPREFIX" --candidate "$PGPREFIX" --pairs 6 --duration 0.5 --warmup 0 \
	--set fsync=off --require-regress "$TMP/failtree" --json "$TMP/r.json" --junit "$TMP/r.xml" \
	>r.out 2>r.err
is "gate --require-regress, a test fails: exit 1" "$?" 1
like "... the verdict says why" "$(cat r.out)" 'FAILED - the candidate failed its regression suite'
is "... JSON: regress failed" "$(json_get r.json '$d->{regress}{state}')" failed
is "... JSON: the suite's counts, from regress's own result" "$(json_get r.json '$d->{regress}{note}')" 'regression suite check: 2/3 tests passed'
is "... JSON: verdict fail" "$(json_get r.json '$d->{verdict}')" fail
like "... JUnit: the regression suite is a failure" "$(grep -A1 'name="regression suite"' r.xml)" '<failure message='
ok "... JUnit valid" xmllint --noout --schema "$TOP/tests/lib/junit.xsd" r.xml

fake_tree "$TMP/brokentree" 2 "make: *** No rule to make target 'check'.  Stop."
"$P" gate --baseline "$PGPREFIX" --candidate "$PGPREFIX" --pairs 6 --duration 0.5 --warmup 0 \
	--require-regress "$TMP/brokentree" --json "$TMP/rb.json" >rb.out 2>rb.err
is "gate --require-regress, the suite cannot run: exit 2" "$?" 2
like "... says so, with the suite's error" "$(cat rb.err)" 'the regression suite of .*brokentree could not run \(exit 2\): pgbuild: error: core suite did not run to the end'
ok "... naming no log that is gone (a temporary work directory)" bash -c "! grep -q 'regress.log' rb.err"
ok "... before any benchmark" bash -c "! grep -q 'pair 1/6' rb.err"
is "... JSON: verdict error" "$(json_get rb.json '$d->{verdict}')" error
"$P" gate --baseline "$PGPREFIX" --candidate "$PGPREFIX" --pairs 6 --duration 0.5 --warmup 0 \
	--require-regress "$TMP/brokentree" --workdir "$TMP/rbw" >rbw.out 2>rbw.err
is "... with --workdir: exit 2, the log it names kept there" \
	"$?|$(grep -c "(log: $TMP/rbw/regress.log)" rbw.err)|$(grep -c 'No rule to make target' "$TMP/rbw/regress.log")" "2|1|1"
like "... JSON: reason" "$(json_get rb.json '$d->{reason}')" 'regression suite could not run'
is "no server process left" "$(pgrep -f "postgres -D $TMPDIR/pgbuild-" | wc -l)" 0
done_testing
