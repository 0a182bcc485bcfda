#!/bin/bash
# 43-bench-signals.t - SIGINT or SIGTERM at any stage (initdb, loading, the
# timed run) leaves no server process and no directory behind, and pgbuild
# dies of the signal (exit 128+N) like any well-behaved tool.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/bench.sh"
P=$B/bin/pgbuild

leftovers() { # directories and processes of our private clusters
	echo "dirs=$(ls "$TMP" | grep -c pgbuild-) procs=$(pgrep -f "$TMP/pgbuild-" | wc -l)"
}

# signal | seconds after start | workload
while read -r sig after wl; do
	[ -z "$sig" ] && continue
	"$P" bench --prefix "$PGPREFIX" -q --set fsync=off -W "$wl" -c 2 -T 30 >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	sleep "$after"
	running=$(leftovers)
	kill -"$sig" $pid
	wait $pid
	rc=$?
	want=$((128 + $(kill -l "$sig")))
	is "SIG$sig after ${after}s ($wl): exit $want" "$rc" "$want"
	is "SIG$sig after ${after}s ($wl): nothing left (was: $running)" "$(leftovers)" "dirs=0 procs=0"
	is "SIG$sig after ${after}s ($wl): quiet" "$(cat "$TMP/err")" ""
done <<ROWS
INT 0.2 select-only
TERM 1 point-select
INT 4 select-only
TERM 3 tpcb
ROWS
done_testing
