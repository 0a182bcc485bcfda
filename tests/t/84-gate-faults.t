#!/bin/bash
# 84-gate-faults.t - a fault in one of the gate's benchmark runs (a backend
# killed with SIGKILL) marks that run invalid in the gate's JSON, and the
# gate cannot then give a verdict from too few valid pairs: exit 2, verdict
# "error", nothing left behind.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/bench.sh"
P=$B/bin/pgbuild
cd "$TMP" || exit 1

"$P" gate --baseline "$PGPREFIX" --candidate "$PGPREFIX" --pairs 6 --duration 1 --warmup 0 --clients 4 \
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
	victim=$(pgrep -P "$pm" -f 'postgres: postgres postgres .*(SELECT|BIND)' | head -1)
	[ -n "$victim" ] && break
done
ok "found a backend of a gate run to kill" test -n "$victim"
kill -KILL "$victim"
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
done_testing
