#!/bin/bash
# 42-bench-correctness.t - the checks catch what they claim to: transactions
# counted equal the commits the server counted (pg_stat_database, measured
# here independently with psql), pgbench and pgbuild bench run on each
# other's data, a balance corrupted during a TPC-B run is detected (exit 1),
# a crashed backend is found in the server log, a run in which every
# transaction failed (serialization failures, retried) measured nothing and
# is invalid (exit 2), --keep and --datadir-template behave as documented.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/bench.sh"
P=$B/bin/pgbuild
S=$TMP/srv
# a server that cannot start is a broken set-up: a failure, not a skip
if ! srv_start "$S"; then
	diag "$(cat "$S"/*.log 2>/dev/null)"
	tap_result 1 "start the test server (its log is above)"
	done_testing
fi
trap 'srv_stop "$S"; tap_cleanup' EXIT

xact() { srv_psql "SELECT pg_stat_force_next_flush() FROM pg_database LIMIT 1" >/dev/null
	srv_psql "SELECT xact_commit FROM pg_stat_database WHERE datname = 'postgres'"; }

# --- --connect: load, run, count commits from outside ---
ok "--connect --init loads pgbench tables" "$P" bench --connect "$SRV" --init -q -W tpcb -t 1
is "pgbench-compatible row counts" "$(srv_psql "SELECT (SELECT count(*) FROM pgbench_accounts) || '/' || (SELECT count(*) FROM pgbench_tellers) || '/' || (SELECT count(*) FROM pgbench_branches)")" "100000/10/1"
x0=$(xact)
ok "select-only on the --connect server" "$P" bench --connect "$SRV" -q -W select-only -c 2 -t 500 --json "$TMP/so.json"
sleep 0.5
x1=$(xact)
# between x0 and x1, besides the clients: our control connection's own
# queries (fewer than 50) and the psql calls here
d=$((x1 - x0 - 2))
is "bench counted 1000 transactions" "$(json_get "$TMP/so.json" '$d->{transactions}')" 1000
like "server counted them all (pg_stat_database delta $d)" "$(( d >= 1000 && d < 1050 ? 1 : 0 ))" '^1$'
like "bench's own commit check is exact" "$(json_get "$TMP/so.json" '$d->{invariants}{xact_commits}{detail}')" \
	'clients committed 1000, server counted 1000 \(exact\)'
like "on --connect, more is allowed (other sessions)" "$(json_get "$TMP/so.json" '$d->{invariants}{xact_commits}{detail}')" \
	'not our server: other sessions may commit'
is "no server log check on a server we did not start" "$(json_get "$TMP/so.json" '$d->{invariants}{server_log}{ok}')" null

h0=$(srv_psql "SELECT count(*) FROM pgbench_history")
ok "tpcb on the --connect server" "$P" bench --connect "$SRV" -q -W tpcb -M simple -c 2 -t 200 --json "$TMP/tpcb.json"
h1=$(srv_psql "SELECT count(*) FROM pgbench_history")
is "history grew by exactly the transactions counted" "$((h1 - h0))" "$(json_get "$TMP/tpcb.json" '$d->{transactions}')"
is "sum(abalance) = sum(tbalance) = sum(bbalance) = sum(delta)" \
	"$(srv_psql "SELECT (SELECT sum(abalance) FROM pgbench_accounts) = (SELECT sum(delta) FROM pgbench_history) AND (SELECT sum(tbalance) FROM pgbench_tellers) = (SELECT sum(delta) FROM pgbench_history) AND (SELECT sum(bbalance) FROM pgbench_branches) = (SELECT sum(delta) FROM pgbench_history)")" t

if [ -x "$PGBIN/pgbench" ]; then
	ok "pgbench runs on our data" "$PGBIN/pgbench" -n -S -t 50 "$SRV"
	ok "pgbench -i data" "$PGBIN/pgbench" -i -q -s 1 "$SRV"
	ok "we run on pgbench's data" "$P" bench --connect "$SRV" -q -W tpcb -t 50
else
	skip "$PGBIN/pgbench is not installed: no data exchange with pgbench" 3
fi

# --- errors: a non-retryable one aborts the client (exit 2), a
# serialization failure is rolled back, counted by SQLSTATE, and the client
# goes on ---
printf 'SELECT 1/0;\n' >"$TMP/div0.sql"
"$P" bench --connect "$SRV" -q -f "$TMP/div0.sql" -c 2 -t 5 --json "$TMP/div0.json" >/dev/null 2>"$TMP/div0.err"
is "division by zero: exit 2" "$?" 2
like "division by zero: reason given" "$(cat "$TMP/div0.err")" 'client [01] aborted: .*division by zero \(SQLSTATE 22012\)'
is "division by zero: counted by SQLSTATE, clients aborted" \
	"$(json_get "$TMP/div0.json" '$d->{errors}{22012} . "/" . $d->{aborted_clients} . "/" . $d->{valid}')" "2/2/0"
cat >"$TMP/rr.sql" <<'SQL'
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) FROM pgbench_branches;
SELECT pg_sleep(0.05);
UPDATE pgbench_branches SET bbalance = bbalance + 0 WHERE bid = 1;
END;
SQL
ok "serialization failures: the run completes" "$P" bench --connect "$SRV" -q -f "$TMP/rr.sql" -c 2 -t 5 --json "$TMP/rr.json"
like "serialization failures: counted as 40001" "$(json_get "$TMP/rr.json" '$d->{errors}{40001}')" '^[1-9]'
is "serialization failures: every client still did its 5" "$(json_get "$TMP/rr.json" '$d->{transactions} . "/" . $d->{aborted_clients}')" "10/0"

# --- a balance corrupted during the run is detected ---
"$P" bench --connect "$SRV" -q -W tpcb -c 2 -T 3 >"$TMP/corrupt.out" 2>"$TMP/corrupt.err" &
bp=$!
sleep 1.5
srv_psql "UPDATE pgbench_accounts SET abalance = abalance + 7 WHERE aid = 1"
wait $bp
is "corrupted balance: exit 1" "$?" 1
like "corrupted balance: message" "$(cat "$TMP/corrupt.err")" 'check balances failed: change of sum\(abalance\)'
like "corrupted balance: summary says INVALID" "$(cat "$TMP/corrupt.out")" 'result: INVALID'

# --- a script of the caller's is not held to a built-in's invariants: one
# that updates accounts without a history row is its author's business ---
printf '\\set aid random(1, 100000)\nUPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;\n' >"$TMP/bad.sql"
"$P" bench --install "$PGPREFIX" -q --set fsync=off -f "$TMP/bad.sql" -t 20 --json "$TMP/bad.json" >/dev/null 2>&1
is "a caller's script updating balances: exit 0" "$?" 0
is "... valid, no balance check, commits still counted" "$(json_get "$TMP/bad.json" '$d->{valid} . "/" . (exists $d->{invariants}{balances} ? "balances" : "none") . "/" . $d->{invariants}{xact_commits}{ok} . "/" . $d->{exit_code}')" "1/none/1/0"

# --- every transaction fails with a serialization failure: the client
# goes on (retryable), none completes, so nothing was measured: exit 2 ---
printf "DO \$\$ BEGIN RAISE EXCEPTION 'always' USING ERRCODE = '40001'; END \$\$;\n" >"$TMP/fail.sql"
"$P" bench --install "$PGPREFIX" -q --set fsync=off -f "$TMP/fail.sql" -M simple -T 1 \
	--json "$TMP/fail.json" >"$TMP/fail.out" 2>"$TMP/fail.err"
is "no transaction completed: exit 2" "$?" 2
is "... no client aborted, transactions 0, errors counted, invalid" \
	"$(json_get "$TMP/fail.json" '$d->{aborted_clients} . "/" . $d->{transactions} . "/" . ($d->{errors}{40001} > 0 ? "errors" : "none") . "/" . $d->{valid} . "/" . $d->{exit_code}')" "0/0/errors/0/2"
like "... the error says so" "$(cat "$TMP/fail.err")" \
	'^pgbuild: error: no transaction completed in the timed run \([0-9.]+ s, every one failed\): nothing was measured$'
like "... the summary too" "$(tr '\n' ' ' <"$TMP/fail.out")" 'transactions: 0, tps: 0.0, errors: [1-9][0-9]*, .*result: INVALID'

# --- a crashed backend: clients abort (exit 2), the log scan reports it ---
"$P" bench --install "$PGPREFIX" -q --set fsync=off -W select1 -c 2 -T 6 --json "$TMP/crash.json" >/dev/null 2>"$TMP/crash.err" &
bp=$!
pm=
for _ in $(seq 50); do
	sleep 0.2
	pm=$(pgrep -f "postgres -D $TMP/pgbuild-" | head -1)
	[ -n "$pm" ] && [ -n "$(pgrep -P "$pm" -f 'postgres: postgres postgres')" ] && break
done
sleep 1
kill -SEGV "$(pgrep -P "$pm" -f 'postgres: postgres postgres' | head -1)"
wait $bp
is "crash: exit 2 (clients aborted)" "$?" 2
is "crash: server log check failed" "$(json_get "$TMP/crash.json" '$d->{invariants}{server_log}{ok}')" 0
like "crash: log line quoted" "$(json_get "$TMP/crash.json" '$d->{invariants}{server_log}{detail}')" 'terminated by signal 11'

# --- on a private cluster with autovacuum off nobody else commits: the
# server must count exactly what the clients committed; one extra commit
# from outside during the run fails the check (exit 1) ---
"$P" bench --install "$PGPREFIX" -q --set fsync=off --set autovacuum=off -W tpcb -c 2 -T 1 \
	--json "$TMP/exact.json" >/dev/null 2>&1
is "private cluster: exit 0" "$?" 0
like "private cluster: commits counted exactly" "$(json_get "$TMP/exact.json" '$d->{invariants}{xact_commits}{ok} . " " . $d->{invariants}{xact_commits}{detail}')" \
	'^1 clients committed ([0-9]+), server counted \1 \(exact\) \(private cluster, autovacuum off: must be equal\)$'
"$P" bench --install "$PGPREFIX" -q --set fsync=off --set autovacuum=off -W select1 -c 2 -T 4 \
	--json "$TMP/extra.json" >/dev/null 2>"$TMP/extra.err" &
bp=$!
pm=
for _ in $(seq 100); do
	sleep 0.1
	pm=$(pgrep -f "postgres -D $TMP/pgbuild-" | head -1)
	[ -n "$pm" ] && [ "$(pgrep -P "$pm" -f 'postgres: postgres postgres' | wc -l)" -ge 3 ] && break
done
sock=$(ls -d "$TMP"/pgbuild-* | head -1)
"$PGBIN/psql" -X -Atq -h "$sock" -p 54329 -U postgres -d postgres -c "SELECT 1" >/dev/null
wait $bp
is "an outside commit on the private cluster: exit 1" "$?" 1
like "an outside commit on the private cluster: the check says so" "$(cat "$TMP/extra.err")" \
	'check xact_commits failed: clients committed [0-9]+, server counted [0-9]+ \(more\) \(private cluster, autovacuum off: must be equal\)'
like "private cluster with autovacuum on: more is allowed, and why" \
	"$(json_get "$TMP/bad.json" '$d->{invariants}{xact_commits}{detail}')" '\(autovacuum on: its workers commit too\)$'

# --- --keep and --datadir-template ---
ok "--keep" "$P" bench --install "$PGPREFIX" -q --set fsync=off -W select1 -t 5 --keep
kept=$(ls -d "$TMP"/pgbuild-* 2>/dev/null | head -1)
like "--keep left the data directory" "$kept" "pgbuild-"
ok "kept cluster holds a data directory" test -f "$kept/data/PG_VERSION"
is "kept cluster is stopped" "$(test -f "$kept/data/postmaster.pid" && echo running || echo stopped)" stopped
rm -rf "$kept"

ok "--datadir-template: first run makes it" "$P" bench --install "$PGPREFIX" -q --set fsync=off -W tpcb -t 20 --datadir-template "$TMP/tmpl" --json "$TMP/t1.json"
ok "--datadir-template: second run reuses it" "$P" bench --install "$PGPREFIX" -q --set fsync=off -W tpcb -t 20 --datadir-template "$TMP/tmpl" --json "$TMP/t2.json"
like "first run saved the template" "$(json_get "$TMP/t1.json" '$d->{environment}{dataset}')" 'loaded \(saved as template'
like "second run started from it" "$(json_get "$TMP/t2.json" '$d->{environment}{dataset}')" 'from template'
is "second run: its own history check" \
	"$(json_get "$TMP/t2.json" '$d->{invariants}{history}{detail}')" "transactions committed 20, history rows added 20"
is "no cluster directory left behind" "$(ls "$TMP" | grep -c pgbuild-)" 0
done_testing
