#!/bin/bash
# 41-bench-workloads.t - every workload runs on a private cluster of Debian's
# PostgreSQL 15, over each protocol, and reports sane numbers: transactions
# and tps above zero, ordered latency quantiles, a per-second timeline, the
# environment, and every invariant passing ("valid": true, exit 0); mixed,
# optimize's held-out workload, keeps the balances in step with the history.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/bench.sh"
P=$B/bin/pgbuild

check_run() { # name json
	local j=$2
	like "$1: tps > 0" "$(json_get "$j" '$d->{tps} > 0 ? "yes" : $d->{tps}')" '^yes$'
	like "$1: transactions > 0" "$(json_get "$j" '$d->{transactions}')" '^[1-9][0-9]*$'
	is "$1: valid" "$(json_get "$j" '$d->{valid}')" 1
	is "$1: no errors, no aborted clients" \
		"$(json_get "$j" '$d->{errors_total} + $d->{aborted_clients}')" 0
	is "$1: latency ordered (min <= p50 <= p90 <= p99 <= p999 <= max, avg > 0)" \
		"$(json_get "$j" 'my $l = $d->{latency_ms}; ($l->{min} <= $l->{p50} && $l->{p50} <= $l->{p90}
			&& $l->{p90} <= $l->{p99} && $l->{p99} <= $l->{p999} && $l->{p999} <= $l->{max}
			&& $l->{avg} > 0) ? 1 : 0')" 1
	is "$1: timeline sums to transactions" \
		"$(json_get "$j" 'my $s = 0; $s += $_->{transactions} for @{$d->{timeline}}; $s == $d->{transactions} ? 1 : 0')" 1
	like "$1: environment" "$(json_get "$j" '$d->{environment}{server_version} . " / " . $d->{environment}{cpu_model}')" \
		'^1[0-9]\.[0-9]+.* / .+'
	is "$1: every invariant ok or not applicable" \
		"$(json_get "$j" 'my $i = $d->{invariants}; scalar(grep { defined $i->{$_}{ok} && !$i->{$_}{ok} } keys %$i)')" 0
}

# name | args
while IFS='|' read -r name args; do
	[ -z "$name" ] && continue
	eval "set -- $args"
	ok "$name runs" "$P" bench --install "$PGPREFIX" -q --set fsync=off --json "$TMP/$name.json" "$@"
	check_run "$name" "$TMP/$name.json"
done <<ROWS
select-only-prepared|--workload select-only -M prepared -c 2 --threads 2 -T 1 --progress 1
select-only-simple|--workload select-only -M simple -c 2 --threads 1 -t 300
tpcb-extended|--workload tpcb -M extended -c 2 -T 1 --warmup 1
select1|--workload select1 -c 1 -t 500
point-select|--workload point-select -c 2 -T 1
tpcc-lite|--workload tpcc-lite -c 2 -T 2
mixed|--workload mixed -c 2 -T 1
ROWS

is "transactions mode: clients x N" "$(json_get "$TMP/select-only-simple.json" '$d->{transactions}')" 600
is "tpcb: balances invariant checked" \
	"$(json_get "$TMP/tpcb-extended.json" '$d->{invariants}{balances}{ok}')" 1
is "tpcb: history rows = commits (warm-up included)" \
	"$(json_get "$TMP/tpcb-extended.json" '$d->{invariants}{history}{ok}')" 1
like "tpcb: warm-up counted apart" "$(json_get "$TMP/tpcb-extended.json" '$d->{warmup_transactions}')" '^[1-9]'
is "tpcc-lite: consistency conditions checked" \
	"$(json_get "$TMP/tpcc-lite.json" 'scalar grep { /^tpcc_/ && $d->{invariants}{$_}{ok} } keys %{$d->{invariants}}')" 8
like "tpcc-lite: both transaction types ran" \
	"$(json_get "$TMP/tpcc-lite.json" 'join ",", map { "$_->{name}=" . ($_->{commits} > 0 ? "yes" : "no") } @{$d->{scripts}}')" \
	'^new-order=yes,payment=yes$'
like "point-select: 1M rows untouched" \
	"$(json_get "$TMP/point-select.json" '$d->{invariants}{row_counts}{detail}')" '^test01 rows 1000000 -> 1000000, sum\(id\) 500000500000 -> 500000500000$'
is "mixed: balances in step with the history (its INSERTs add delta 0)" \
	"$(json_get "$TMP/mixed.json" '$d->{invariants}{balances}{ok}')" 1
like "mixed: its history rows carry delta 0" \
	"$(json_get "$TMP/mixed.json" '$d->{invariants}{balances}{detail}')" 'sum\(history\.delta\) 0$'
like "settings reported" "$(json_get "$TMP/select1.json" '$d->{environment}{settings}{fsync}')" '^off$'

# a pgbench script with \set, :var, \gset and a multi-line command
cat > "$TMP/custom.sql" <<'SQL'
\set aid random(1, 100000 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta
 WHERE aid = :aid;
SELECT abalance AS bal FROM pgbench_accounts WHERE aid = :aid;
\gset
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime)
 VALUES (1, 1, :aid, :delta, CURRENT_TIMESTAMP);
END;
SQL
ok "sql script runs (prepared)" "$P" bench --install "$PGPREFIX" -q --set fsync=off \
	-f "$TMP/custom.sql" -M prepared -c 2 -t 100 --json "$TMP/sql.json"
check_run sql "$TMP/sql.json"
ok "sql script runs (simple)" "$P" bench --install "$PGPREFIX" -q --set fsync=off \
	--workload "sql:$TMP/custom.sql" -M simple -c 1 -t 100
like "progress lines on stderr" "$("$P" bench --install "$PGPREFIX" -q --set fsync=off -W select1 -T 2 -P 1 2>&1 >/dev/null)" \
	'progress: 1\.[0-9] s, [0-9.]+ tps, lat [0-9.]+ ms stddev [0-9.]+, 0 failed'
like "human summary on stdout" "$("$P" bench --install "$PGPREFIX" -q --set fsync=off -W select1 -t 10 2>/dev/null | tr '\n' ' ')" \
	'transactions: 10, tps: [0-9.]+.*result: valid'

# --workload sql FILE (the script as the argument after sql), besides
# -f FILE and sql:FILE; a script that names no pgbench_ table gets no
# pgbench data loaded, and runs on a --connect server without those tables
cat > "$TMP/plain.sql" <<'SQL'
\set n random(1, 1000)
SELECT CAST(:n AS int) + CAST(:client_id AS int) AS x;
\gset
SQL
ok "--workload sql FILE runs" "$P" bench --install "$PGPREFIX" -q --set fsync=off \
	--workload sql "$TMP/custom.sql" -c 2 -t 50 --json "$TMP/sqlarg.json"
is "--workload sql FILE: the script ran" \
	"$(json_get "$TMP/sqlarg.json" '$d->{script} . " " . $d->{transactions} . " " . $d->{valid}')" "$TMP/custom.sql 100 1"
ok "-W sql FILE before other options" "$P" bench --install "$PGPREFIX" -q --set fsync=off \
	-W sql "$TMP/plain.sql" -t 20 --json "$TMP/plain.json"
is "a script without pgbench tables: nothing loaded" "$(json_get "$TMP/plain.json" '$d->{environment}{dataset} . " " . $d->{valid}')" "none 1"
"$P" bench --install "$PGPREFIX" -q -W sql a.sql b.sql >/dev/null 2>"$TMP/err2"
like "-W sql with two files: unexpected argument" "$?:$(cat "$TMP/err2")" '^2:.*unexpected argument "b.sql"'
S=$TMP/srv
if srv_start "$S"; then
	trap 'srv_stop "$S"; tap_cleanup' EXIT
	ok "--connect: a script without pgbench tables needs none" "$P" bench --connect "$SRV" -q \
		--workload sql "$TMP/plain.sql" -c 2 -t 30 --json "$TMP/conn-plain.json"
	is "--connect: ran and valid" "$(json_get "$TMP/conn-plain.json" '$d->{transactions} . " " . $d->{valid}')" "60 1"
	"$P" bench --connect "$SRV" -q -W sql "$TMP/custom.sql" -t 5 >/dev/null 2>"$TMP/err3"
	like "--connect: a script using pgbench tables still requires them" "$?:$(cat "$TMP/err3")" \
		'^2:.*the pgbench tables are not there'
	srv_stop "$S"
else
	# a server that cannot start is a broken set-up, not a missing capability
	diag "$(cat "$S"/*.log 2>/dev/null)"
	for t in "--connect: a script without pgbench tables needs none" "--connect: ran and valid" \
		"--connect: a script using pgbench tables still requires them"; do
		tap_result 1 "$t (the server for --connect did not start: its log is above)"
	done
fi

# the progress bar: drawn (time done, or transactions done with -t) only
# when stderr is a terminal
bar_out=$(script -qec "'$P' bench --install '$PGPREFIX' --set fsync=off -W select1 -c 2 -T 2 >/dev/null" /dev/null | tr '\r' '\n')
like "progress bar on a terminal (duration)" "$bar_out" '^\[#+\.*\] +[0-9.]+/2 s +[0-9.]+ tps  0 failed'
bar_out=$(script -qec "'$P' bench --install '$PGPREFIX' --set fsync=off -W select1 -c 2 -t 20000 >/dev/null" /dev/null | tr '\r' '\n')
# drawn at once, so a run faster than the first redraw still shows it (the
# other client thread may have run a few transactions by then: CI saw 4)
like "progress bar on a terminal (--transactions)" "$bar_out" '^\[[#.]{30}\] [0-9]+/40000 tx +[0-9.]+ tps  0 failed'
bar_out=$(script -qec "'$P' bench --install '$PGPREFIX' -q --set fsync=off -W select1 -c 2 -T 2 >/dev/null" /dev/null | tr '\r' '\n')
is "no progress bar with --quiet" "$(printf '%s\n' "$bar_out" | grep -c '^\[')" 0
"$P" bench --install "$PGPREFIX" --set fsync=off -W select1 -c 2 -T 2 >/dev/null 2>"$TMP/notty.err"
is "no progress bar when stderr is not a terminal" "$(grep -c $'\r\|\[#' "$TMP/notty.err")" 0

# as root: one line says who runs the server, and the JSON records it
if [ "$(id -u)" = 0 ]; then
	like "root: the server user is named on stderr" "$(cat "$TMP/notty.err")" \
		"^pgbuild: running the server as user $SRV_USER \(pgbuild runs as root\)\$"
	is "root: --quiet does not say it" "$("$P" bench --install "$PGPREFIX" -q --set fsync=off -W select1 -t 10 2>&1 >/dev/null)" ""
else
	is "not root: nothing said about the server user" "$(cat "$TMP/notty.err")" ""
fi
is "environment.server_user" "$(json_get "$TMP/select1.json" '$d->{environment}{server_user}')" \
	"$( [ "$(id -u)" = 0 ] && echo "$SRV_USER" || id -un)"
# a relative --install (initdb and the server run in the cluster's directory)
rel=$(realpath --relative-to="$TMP" "$PGPREFIX")
ok "a relative --install ($rel) works" sh -c "cd '$TMP' && '$P' bench --install '$rel' -q --set fsync=off -W select1 -t 10 --json rel.json"
is "... and runs that build" "$(json_get "$TMP/rel.json" '$d->{valid}')" 1
rm -f "$TMP/rel.json"
is "no cluster directory left behind" "$(ls "$TMP" | grep -c pgbuild-)" 0
done_testing
