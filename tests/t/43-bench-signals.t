#!/bin/bash
# 43-bench-signals.t - SIGINT or SIGTERM at any stage (initdb, loading, the
# timed run) leaves no server process and no directory behind, pgbuild dies
# of the signal (exit 128+N) like any well-behaved tool after saying in one
# line what it stopped, and --json FILE is replaced by a result marked
# invalid (an old valid one must not survive); so does SIGPIPE when the
# reader of its output goes away.  With --json - the document goes to the
# standard output.
# tap: alone (it times something: make check runs it by itself, tests/tests.mk)
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/bench.sh"
P=$B/bin/pgbuild

# Every process below pid (initdb and its postgres, the postmaster and its
# backends), recursively: what must be gone afterwards.  (Matching the
# cluster's path on command lines finds the postmaster only: backends and
# initdb's children do not show it.)
descendants() {
	local c
	for c in $(pgrep -P "$1"); do
		echo "$c"
		descendants "$c"
	done
}
leftover_dirs() { find "$TMP" -maxdepth 1 -name 'pgbuild-*' | wc -l; }
# backends of user postgres in database postgres (the loader, our control
# connection, the clients) under the postmaster below pid
backends() {
	local pm
	pm=$(pgrep -P "$1" -f "postgres -D $TMP/pgbuild-" | head -n 1)
	[ -n "$pm" ] && pgrep -P "$pm" -f 'postgres: postgres postgres' | wc -l || echo 0
}
# wait_stage PID STAGE: start (a fixed 0.2 s: initdb or the server starting),
# load (a backend exists: the loader), run (3: control connection + 2 clients)
wait_stage() {
	local want
	case $2 in
	start) sleep 0.2; return ;;
	load) want=1 ;;
	run) want=3 ;;
	esac
	for _ in $(seq 300); do
		[ "$(backends "$1")" -ge "$want" ] && return
		sleep 0.1
	done
	diag "stage $2 not reached"
}

stale='{"valid":true,"tps":1,"exit_code":0}'
# signal | stage | workload
while read -r sig stage wl; do
	[ -z "$sig" ] && continue
	name="SIG$sig at $stage ($wl)"
	echo "$stale" >"$TMP/r.json"
	"$P" bench --install "$PGPREFIX" -q --set fsync=off -W "$wl" -c 2 -T 30 \
		--json "$TMP/r.json" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	wait_stage "$pid" "$stage"
	seen=$(descendants "$pid" | tr '\n' ' ')
	kill -"$sig" $pid
	wait $pid
	rc=$?
	want=$((128 + $(kill -l "$sig")))
	is "$name: exit $want" "$rc" "$want"
	is "$name: no process left (of $(echo $seen | wc -w) seen)" "$(pids_alive $seen)" 0
	is "$name: no directory left" "$(leftover_dirs)" 0
	is "$name: one line on stderr" "$(wc -l <"$TMP/err")" 1
	case $stage in
	run) like "$name: says what it stopped" "$(cat "$TMP/err")" \
		"^pgbuild: interrupted by SIG$sig: server stopped, $TMP/pgbuild-[A-Za-z0-9]+ removed\$" ;;
	*) like "$name: says it was interrupted" "$(cat "$TMP/err")" "^pgbuild: interrupted by SIG$sig(: .* removed)?\$" ;;
	esac
	is "$name: --json replaced: invalid, exit code, error" \
		"$(json_get "$TMP/r.json" 'join "/", $d->{valid}, $d->{exit_code}, $d->{error}')" \
		"0/$want/interrupted by SIG$sig"
	is "$name: no temporary JSON file left" "$(ls "$TMP" | grep -c 'r\.json\.')" 0
done <<ROWS
INT start select-only
TERM load point-select
INT run select-only
TERM run tpcb
ROWS

# --json -: the interrupt document goes to the standard output (its
# message to stderr), one document, and no FILE.sig.PID is made
"$P" bench --install "$PGPREFIX" -q --set fsync=off -W select-only -c 2 -T 30 \
	--json - >"$TMP/stdout.json" 2>"$TMP/err" &
pid=$!
wait_stage "$pid" run
kill -TERM $pid
wait $pid
is "--json -, SIGTERM in the run: exit 143" "$?" 143
is "... stdout is the document: invalid, exit code, error" \
	"$(json_get "$TMP/stdout.json" 'join "/", $d->{valid}, $d->{exit_code}, $d->{error}')" \
	"0/143/interrupted by SIGTERM"
like "... the message on stderr" "$(cat "$TMP/err")" "^pgbuild: interrupted by SIGTERM: server stopped"
is "... no file named - or -.sig.PID, no directory left" "$(ls -A "$TMP" | grep -c '^-')/$(leftover_dirs)" 0/0

# SIGPIPE: the reader of our stderr goes away (`... -P 1 2>&1 | head -1`):
# the cleanup handler takes it like SIGTERM, so nothing is left running
echo "$stale" >"$TMP/r.json"
( "$P" bench --install "$PGPREFIX" --set fsync=off -P 1 -T 30 --json "$TMP/r.json" 2>&1 |
	head -n 1 >/dev/null
  echo "${PIPESTATUS[0]}" >"$TMP/pipe.rc" )
is "SIGPIPE (2>&1 | head -1): exit 141" "$(cat "$TMP/pipe.rc")" 141
is "SIGPIPE (2>&1 | head -1): no directory left" "$(leftover_dirs)" 0
is "SIGPIPE (2>&1 | head -1): no server left" "$(pgrep -f "postgres -D $TMP/pgbuild-" | wc -l)" 0
is "SIGPIPE (2>&1 | head -1): --json says so" \
	"$(json_get "$TMP/r.json" 'join "/", $d->{valid}, $d->{exit_code}, $d->{error}')" \
	"0/141/interrupted by SIGPIPE"
done_testing
