#!/bin/bash
# 48-bench-pgbench.t - pgbuild bench speaks pgbench: the same command lines
# (-S, -N, -b NAME@W, -f FILE@W, -M, -j, -n, -r, -P, -R, -L,
# a script with \sleep and the random functions) run through the real
# pgbench of PostgreSQL 15 and through `pgbuild bench --connect` on one
# server: both accept each set, and where the work is the same their tps
# agree within a generous band (0.5 to 2: the machine is shared and
# noisy).  Also: the default protocol is pgbench's (simple); an SQL error
# names the script's file:line (simple and prepared protocols), not "not
# every client could connect"; a script of the caller's that changes
# balances is not judged by the TPC-B check; --no-checks switches off a
# built-in's; -r reports each statement; -R paces the run.
# tap: alone (it times something: make check runs it by itself, tests/tests.mk)
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/bench.sh"
P=$B/bin/pgbuild
PGBENCH=$PGBIN/pgbench
[ -x "$PGBENCH" ] || skip_all "no pgbench in $PGBIN: nothing to compare with"
S=$TMP/srv
srv_start "$S" || { diag "$(cat "$S"/*.log 2>/dev/null)"; skip_all "cannot start a server"; }
trap 'srv_stop "$S"; tap_cleanup' EXIT

ok "pgbench -i loads the tables" "$PGBENCH" -i -q -s 1 "$SRV"

# a script in pgbench's language beyond the subset bench had: \sleep and
# the shaped random functions
cat >"$TMP/shaped.sql" <<'SQL'
\set aid random_gaussian(1, 100000 * :scale, 2.5)
\set bid random_exponential(1, :scale, 3.0)
\set tid random_zipfian(1, 10 * :scale, 1.07)
\sleep 1 ms
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
SELECT tbalance FROM pgbench_tellers WHERE tid = :tid AND bid = :bid;
SQL
# pgbench's \gset forms: in place of ';', with a prefix, on its own line
cat >"$TMP/gset.sql" <<'SQL'
SELECT 1 AS v \gset
SELECT :v + 1 AS w \gset p_
SELECT :p_w * 2 AS x
\gset
SELECT abalance FROM pgbench_accounts WHERE aid = :x;
SQL

pgbench_tps() { sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$1" | head -1; }
within() { awk -v a="$1" -v b="$2" 'BEGIN { r = b > 0 ? a / b : 0; exit !(r >= 0.5 && r <= 2) }'; }

# name | options (the same for both) | compare tps (1) or only accept (0)
while IFS='|' read -r name opts cmp; do
	[ -z "$name" ] && continue
	eval "set -- $opts"
	"$PGBENCH" "$@" -T 3 "$SRV" >"$TMP/$name.pgbench" 2>&1
	pg=$?
	"$P" bench --connect "$SRV" -q "$@" -T 3 --json "$TMP/$name.json" >"$TMP/$name.out" 2>&1
	pb=$?
	is "$name: pgbench accepts $opts" "$pg" 0 || diag "$(tail -5 "$TMP/$name.pgbench")"
	is "$name: pgbuild bench accepts the same" "$pb" 0 || diag "$(tail -5 "$TMP/$name.out")"
	if [ "$cmp" = 1 ]; then
		a=$(json_get "$TMP/$name.json" '$d->{tps}' 2>/dev/null); b=$(pgbench_tps "$TMP/$name.pgbench")
		within "${a:-0}" "${b:-0}"
		tap_result $? "$name: tps within 0.5..2 of pgbench's (bench $a, pgbench $b)"
	fi
done <<ROWS
select-only|-S -c 2 -j 2|1
simple-update|-N -c 2 -j 2 -M prepared -n|1
builtin-mix|-b select-only@9 -b tpcb-like@1 -c 2 -M extended -r|1
prefix|-b si -c 2 -n|0
script-mix|-f $TMP/shaped.sql@3 -b select-only@1 -c 2 -P 1|1
rate|-S -c 2 -R 200 -L 50|1
threads-clamped|-S -c 1 -j 2 -n|0
one-script|-f $TMP/shaped.sql -c 2 -n|0
gset|-f $TMP/gset.sql -c 2 -n|0
ROWS
is "pgbench's \\gset forms (in place of ';', PREFIX, own line): every transaction ran, valid" \
	"$(json_get "$TMP/gset.json" '$d->{valid} . " " . ($d->{transactions} > 0 ? "ran" : "none")')" "1 ran"

# --- what each run says ---
is "default protocol is pgbench's (simple)" "$(json_get "$TMP/select-only.json" '$d->{protocol}')" simple
is "-M prepared is kept" "$(json_get "$TMP/simple-update.json" '$d->{protocol}')" prepared
is "-N runs pgbench's simple-update" "$(json_get "$TMP/simple-update.json" '$d->{workload}')" simple-update
is "-b si: a prefix of pgbench's simple-update, as pgbench" "$(json_get "$TMP/prefix.json" '$d->{workload}')" simple-update
is "-j 2 is two client threads" "$(json_get "$TMP/select-only.json" '$d->{threads}')" 2
is "-j 2 with one client: one thread (as pgbench)" "$(json_get "$TMP/threads-clamped.json" '$d->{threads}')" 1
is "-b NAME@W: both scripts with their weights" \
	"$(json_get "$TMP/builtin-mix.json" 'join " ", map { "$_->{name}\@$_->{weight}" } @{$d->{scripts}}')" "select-only@9 tpcb@1"
mix=$(json_get "$TMP/builtin-mix.json" '$d->{scripts}[0]{commits} / ($d->{scripts}[1]{commits} || 1)')
like "-b weights: select-only ran about 9 times as often as tpcb ($mix)" \
	"$(awk -v r="$mix" 'BEGIN { print (r > 5 && r < 15) ? "yes" : "no" }')" yes
is "-r: every command of tpcb timed" \
	"$(json_get "$TMP/builtin-mix.json" 'scalar grep { $_->{count} > 0 } @{$d->{scripts}[1]{commands}}')" 7
like "-r: the summary lists statement latencies" "$(cat "$TMP/builtin-mix.out")" \
	'statement latencies in milliseconds of tpcb:'
# the transactions named as pgbench names them ("transaction type:"): a
# script by its name, never "sql"; a mix "multiple scripts", then each
# script with its weight and its share, pgbench's "SQL script N:" lines
like "pgbench names a mix \"multiple scripts\"" "$(cat "$TMP/builtin-mix.pgbench")" '^transaction type: multiple scripts$'
like "... and so does bench" "$(cat "$TMP/builtin-mix.out")" '^workload: multiple scripts \(extended protocol\)'
is "... each script's weight line is pgbench's" "$(grep '^ - weight:' "$TMP/builtin-mix.out")" \
	"$(grep '^ - weight:' "$TMP/builtin-mix.pgbench")"
like "... each script by its name" "$(grep '^SQL script' "$TMP/builtin-mix.out" | tr '\n' ' ')" \
	'^SQL script 1: select-only SQL script 2: tpcb $'
is "... json: transaction_type, and the scripts' transactions add up" \
	"$(json_get "$TMP/builtin-mix.json" '$d->{transaction_type} . "|" . ($d->{scripts}[0]{transactions} + $d->{scripts}[1]{transactions} == $d->{transactions} ? "sum" : "not")')" \
	"multiple scripts|sum"
like "pgbench names one script by its file" "$(cat "$TMP/one-script.pgbench")" '^transaction type: .*shaped\.sql$'
like "... and so does bench (not \"sql\")" "$(cat "$TMP/one-script.out")" '^workload: shaped\.sql \(simple protocol\)'
is "... json: its transaction_type" "$(json_get "$TMP/one-script.json" '$d->{transaction_type}')" shaped.sql
is "-f FILE@W with \\sleep and random_gaussian/exponential/zipfian: ran, valid" \
	"$(json_get "$TMP/script-mix.json" '$d->{valid} . " " . ($d->{scripts}[0]{commits} > 0 ? "ran" : "idle")')" "1 ran"
t=$(json_get "$TMP/rate.json" '$d->{transactions}')
like "-R 200 for 3 s: about 600 transactions ($t)" "$(( t > 300 && t < 800 ? 1 : 0 ))" '^1$'
is "--latency-limit: counted" "$(json_get "$TMP/rate.json" '$d->{latency_limit_ms} . " " . (defined $d->{late_transactions} ? "late" : "none")')" "50 late"

# \sleep paces a client: 20 ms a transaction, about 50 tps for both
printf '\\sleep 20 ms\nSELECT 1;\n' >"$TMP/sleep.sql"
"$PGBENCH" -n -f "$TMP/sleep.sql" -c 1 -T 2 "$SRV" >"$TMP/sleep.pgbench" 2>&1
"$P" bench --connect "$SRV" -q -f "$TMP/sleep.sql" -c 1 -T 2 --json "$TMP/sleep.json" >/dev/null 2>&1
a=$(json_get "$TMP/sleep.json" '$d->{tps}'); b=$(pgbench_tps "$TMP/sleep.pgbench")
like "\\sleep 20 ms: at most 50 tps (bench $a)" "$(awk -v a="$a" 'BEGIN { print (a > 20 && a <= 50.5) ? "yes" : "no" }')" yes
within "${a:-0}" "${b:-0}"; tap_result $? "\\sleep: tps within 0.5..2 of pgbench's (bench $a, pgbench $b)"

# --- an SQL error names the script's file and line, in both protocols ---
printf 'SELECT 1;\n\nSELECT * FROM no_such_table;\n' >"$TMP/bad.sql"
"$PGBENCH" -n -f "$TMP/bad.sql" -c 1 -t 2 "$SRV" >/dev/null 2>&1
pg=$?
"$P" bench --connect "$SRV" -q -f "$TMP/bad.sql" -c 2 -t 2 >/dev/null 2>"$TMP/bad.err"
is "SQL error: exit 2 (pgbench exits $pg)" "$?" 2
like "SQL error: file:line and the server's message" "$(cat "$TMP/bad.err")" \
	"$TMP/bad.sql:3: ERROR:  relation \"no_such_table\" does not exist \(SQLSTATE 42P01\)"
"$P" bench --connect "$SRV" -q -f "$TMP/bad.sql" -M prepared -c 2 -t 2 >/dev/null 2>"$TMP/badp.err"
is "SQL error, prepared: exit 2" "$?" 2
like "SQL error, prepared: file:line" "$(cat "$TMP/badp.err")" "cannot prepare $TMP/bad.sql:3: ERROR:  relation \"no_such_table\""
like "SQL error, prepared: not a connection failure" "$(grep -c 'could connect' "$TMP/badp.err")" '^0$'
printf '\\set x random_zipfian(1, 10, 0.5)\nSELECT 1;\n' >"$TMP/badz.sql"
"$P" bench --connect "$SRV" -q -f "$TMP/badz.sql" -t 1 >/dev/null 2>"$TMP/badz.err"
like "random_zipfian's range checked, with file:line" "$?:$(cat "$TMP/badz.err")" \
	'^2:.*badz.sql:1: random_zipfian\(\): parameter 0.5 out of range: expected from 1.001 to 1000'

# --- checks: a caller's script is its author's business; --no-checks ---
printf '\\set aid random(1, 100000)\nUPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;\n' >"$TMP/upd.sql"
ok "a script updating accounts without history is not judged INVALID" \
	"$P" bench --connect "$SRV" -q -f "$TMP/upd.sql" -c 2 -t 20 --json "$TMP/upd.json"
like "... and says why it was not checked" "$(json_get "$TMP/upd.json" '$d->{invariants}{invariants}{detail}')" \
	'not checked: a script of yours'
# a balance corrupted during a tpcb run: found, unless --no-checks
corrupt_during() { # OUT-PREFIX ARGS...: tpcb for 3 s, a teller's balance changed after 1.5 s
	local out=$1; shift
	"$P" bench --connect "$SRV" -q -W tpcb -c 2 -T 3 "$@" >"$out.out" 2>"$out.err" &
	local bp=$!
	sleep 1.5
	srv_psql "UPDATE pgbench_tellers SET tbalance = tbalance + 7 WHERE tid = 1" >/dev/null
	wait $bp
}
corrupt_during "$TMP/cc"
is "a built-in's check still sees a balance corrupted during the run (exit 1)" "$?" 1
corrupt_during "$TMP/nc" --no-checks --json "$TMP/nc.json"
is "--no-checks switches it off (exit 0)" "$?" 0
like "--no-checks: said in the JSON" "$(json_get "$TMP/nc.json" '$d->{invariants}{invariants}{detail}')" 'not checked: --no-checks'

# --- options pgbench refuses, bench refuses too ---
for bad in "-M bogus" "-c 0" "-R 0" "-b nosuch"; do
	eval "set -- $bad"
	"$PGBENCH" "$@" -t 1 "$SRV" >/dev/null 2>&1
	pg=$?
	"$P" bench --connect "$SRV" -q "$@" -t 1 >/dev/null 2>&1
	pb=$?
	like "$bad: refused by both (pgbench $pg, bench $pb)" "$pg:$pb" '^[1-9][0-9]*:[1-9][0-9]*$'
done
done_testing
