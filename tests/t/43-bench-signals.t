#!/bin/bash
# 43-bench-signals.t - SIGINT or SIGTERM at any stage (initdb, loading, the
# timed run) leaves no server process and no directory behind, and pgbuild
# dies of the signal (exit 128+N) like any well-behaved tool; so does
# SIGPIPE when the reader of its output goes away.
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

# SIGPIPE: the reader of our stderr goes away (`... -P 1 2>&1 | head -1`):
# the cleanup handler takes it like SIGTERM, so nothing is left running
( "$P" bench --prefix "$PGPREFIX" --set fsync=off -P 1 -T 30 2>&1 | head -n 1 >/dev/null
  echo "${PIPESTATUS[0]}" >"$TMP/pipe.rc" )
is "SIGPIPE (2>&1 | head -1): exit 141" "$(cat "$TMP/pipe.rc")" 141
is "SIGPIPE (2>&1 | head -1): nothing left" "$(leftovers)" "dirs=0 procs=0"
done_testing
