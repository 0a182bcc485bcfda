#!/bin/bash
# 47-bench-suite.t - the broad held-out suite (metric/workloads.c's WL_BROAD
# rows) on Debian's PostgreSQL 15:
#   - each of its workloads runs under pgbuild bench for two seconds on a
#     private cluster (its data set loaded from metric/datasets.c), over
#     the prepared protocol and one other: tps and transactions above zero,
#     no errors, every correctness check of its row passing (agg-join's
#     data unchanged, json-text's views and bulk-index's log rows equal to
#     the transactions committed, plpgsql's balances conserved, TPC-B's
#     balances at scale 10 and 100), at the scale its name says;
#   - a workload whose size is part of it refuses another --scale, and
#     needs that scale on a --connect server; --connect --init loads a new
#     data set (plpgsql's function included) and a later run uses it;
#   - the single-user instructions metric counts every one of them with a
#     single-user script once (a short run: --instr-statements 2), A/A:
#     measured, a positive count, A and B equal, each from its data set's
#     own template; an unknown workload is refused by name.
# The single-user part runs under the machine-wide heavy lock.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/bench.sh"
P=$B/bin/pgbuild

# label | workload | args | the checks its row adds (name=ok ...)
while IFS='|' read -r name wl args checks; do
	[ -z "$name" ] && continue
	eval "set -- $args"
	j=$TMP/$name.json
	"$P" bench --install "$PGPREFIX" -q --set fsync=off --json "$j" -W "$wl" "$@" >"$TMP/$name.out" 2>&1
	rc=$?
	is "$name: runs (exit 0)" "$rc" 0
	[ $rc = 0 ] || diag "$(tail -n 20 "$TMP/$name.out")"
	like "$name: tps > 0, transactions > 0" \
		"$(json_get "$j" '($d->{tps} > 0 ? "yes" : "no") . " " . $d->{transactions}')" '^yes [1-9][0-9]*$'
	is "$name: valid, no errors, no aborted clients" \
		"$(json_get "$j" '$d->{valid} . " " . ($d->{errors_total} + $d->{aborted_clients})')" "1 0"
	is "$name: every invariant ok or not applicable" \
		"$(json_get "$j" 'my $i = $d->{invariants}; join ",", sort grep { defined $i->{$_}{ok} && !$i->{$_}{ok} } keys %$i')" ""
	for c in $checks; do
		is "$name: check ${c%%=*} ran and passed" \
			"$(json_get "$j" '$d->{invariants}{'"${c%%=*}"'}{ok}')" "${c#*=}"
	done
done <<ROWS
agg-join|agg-join|-c 2 -T 2 -M prepared|row_counts=1 xact_commits=1
agg-join extended|agg-join|-c 1 -T 1 -M extended|row_counts=1
bulk-index|bulk-index|-c 2 -T 2 -M prepared|counted=1 xact_commits=1
bulk-index simple|bulk-index|-c 2 -T 1 -M simple|counted=1
json-text|json-text|-c 2 -T 2 -M prepared|counted=1 xact_commits=1
json-text simple|json-text|-c 1 -T 1 -M simple|counted=1
plpgsql|plpgsql|-c 2 -T 2 -M prepared|row_counts=1 xact_commits=1
select-only-s10|select-only-s10|-c 2 -T 2|balances=1
tpcb-s10|tpcb-s10|-c 2 -T 2|balances=1 history=1
select-only-s100|select-only-s100|-c 2 -T 2|balances=1
tpcb-s100|tpcb-s100|-c 2 -T 2|balances=1 history=1
ROWS
like "agg-join: its data unchanged, named" "$(json_get "$TMP/agg-join.json" '$d->{invariants}{row_counts}{detail}')" \
	'^line items 120000 -> 120000, orders 30000 -> 30000, sum\(l_price\) in cents ([0-9]+) -> \1$'
like "json-text: views added = transactions committed" "$(json_get "$TMP/json-text.json" '$d->{invariants}{counted}{detail}')" \
	'^sum\(views\) 0 -> ([0-9]+) \(transactions committed \1\), documents 20000 -> 20000$'
like "bulk-index: log rows added = transactions committed" "$(json_get "$TMP/bulk-index.json" '$d->{invariants}{counted}{detail}')" \
	'^log rows 0 -> ([0-9]+) \(transactions committed \1\)$'
like "plpgsql: balances conserved" "$(json_get "$TMP/plpgsql.json" '$d->{invariants}{row_counts}{detail}')" \
	'^accounts 10000 -> 10000, sum\(balance\) 10000000 -> 10000000$'
for n in select-only-s10:10 tpcb-s10:10 select-only-s100:100 tpcb-s100:100 agg-join:1; do
	is "${n%%:*}: runs at scale ${n#*:}" "$(json_get "$TMP/${n%%:*}.json" '$d->{scale}')" "${n#*:}"
done
like "tpcb-s100: 10M accounts loaded" "$(json_get "$TMP/tpcb-s100.json" '$d->{invariants}{row_counts}{detail}')" \
	'^accounts 10000000 -> 10000000, tellers 1000 -> 1000, branches 100 -> 100$'

"$P" bench --install "$PGPREFIX" -q -W select-only-s10 -s 2 -t 1 --json "$TMP/sc.json" >/dev/null 2>"$TMP/sc.err"
like "a size that is part of the workload: another --scale is refused" "$?:$(cat "$TMP/sc.err")" \
	'^2:.*--scale 2: workload "select-only-s10" runs at scale 10 \(the size is part of it\); leave --scale out'
like "... and the JSON says why" "$(json_get "$TMP/sc.json" '$d->{valid} . " " . $d->{error}')" \
	'^0 --scale 2: workload "select-only-s10" runs at scale 10'

"$P" bench --install "$PGPREFIX" -q -W agg-joins -t 1 >/dev/null 2>"$TMP/un.err"
like "an unknown workload is refused by name, with the nearest" "$?:$(cat "$TMP/un.err")" \
	'^2:.*unknown workload "agg-joins" \(did you mean "agg-join"\?\)'

S=$TMP/srv
if srv_start "$S"; then
	trap 'srv_stop "$S"; tap_cleanup' EXIT
	ok "--connect --init loads plpgsql's data set" "$P" bench --connect "$SRV" --init -q -W plpgsql \
		-c 2 -t 20 --json "$TMP/c1.json"
	is "--connect --init: ran, valid, loaded" \
		"$(json_get "$TMP/c1.json" '$d->{transactions} . " " . $d->{valid} . " " . $d->{environment}{dataset}')" \
		"40 1 plpgsql scale 1 loaded"
	ok "--connect: a later run uses what is there" "$P" bench --connect "$SRV" -q -W plpgsql -t 10 \
		--json "$TMP/c2.json"
	is "--connect: the existing data, conserved" \
		"$(json_get "$TMP/c2.json" '$d->{environment}{dataset} . " " . $d->{invariants}{row_counts}{ok}')" \
		"plpgsql scale 1 (existing) 1"
	ok "--connect --init: select-only's tables at scale 1" "$P" bench --connect "$SRV" --init -q \
		-W select-only -t 5
	"$P" bench --connect "$SRV" -q -W select-only-s10 -t 5 >/dev/null 2>"$TMP/c3.err"
	like "--connect: select-only-s10 refuses scale-1 data" "$?:$(cat "$TMP/c3.err")" \
		'^2:.*workload "select-only-s10" runs at scale 10, the pgbench data here has scale 1: load it with --init'
	srv_stop "$S"
else
	# a server that cannot start is a broken set-up, not a missing capability
	diag "$(cat "$S"/*.log 2>/dev/null)"
	tap_result 1 "start the server for --connect (its log is above; 6 checks not run)"
fi

# ---- the single-user metrics ----
"$P" gate --baseline "$PGPREFIX" --candidate "$PGPREFIX" --metric instructions -W tpcc-lite \
	--workdir "$TMP/w2" >/dev/null 2>"$TMP/t.err"
is "single-user: a workload without a script is not measured (exit 2), named" \
	"$?:$(grep -c 'no single-user script for workload "tpcc-lite"' "$TMP/t.err")" "2:1"
if ! command -v valgrind >/dev/null; then
	skip "valgrind is not installed (make deps): the instructions metric runs callgrind" 9
	done_testing
fi
. "$(dirname "$0")/../lib/heavy.sh"
SINGLE=agg-join,bulk-index,json-text,plpgsql,select-only-s10,tpcb-s10
# an A/A run of one install: no layout floor to measure (--noise none: the
# repeat resolution decides; without it a deterministic claim is undecided)
heavy "$P" gate --baseline "$PGPREFIX" --candidate "$PGPREFIX" --metric instructions --counter callgrind \
	-W "$SINGLE" --instr-statements 2 --gate 'instructions>=0.99' --noise none \
	--workdir "$TMP/w" --json "$TMP/i.json" >"$TMP/i.out" 2>"$TMP/i.err"
rc=$?
is "single-user: the gate ran A/A on the suite (exit 0)" "$rc" 0
[ $rc = 0 ] || diag "$(tail -n 30 "$TMP/i.out" "$TMP/i.err")"
i=0
for w in ${SINGLE//,/ }; do
	is "single-user $w: measured, a positive count, A = B" \
		"$(json_get "$TMP/i.json" 'my $x = $d->{workloads}['$i']; join " ", $x->{name}, $x->{instructions}{state}, ($x->{instructions}{a} > 0 ? "positive" : "zero"), (abs($x->{instructions}{a} / $x->{instructions}{b} - 1) < 1e-4 ? "equal" : "differ")')" \
		"$w ok positive equal"
	i=$((i + 1))
done
is "single-user: one template per data set and scale" \
	"$(ls "$TMP"/w/instr_*/ | grep '^template' | tr '\n' ' ')" \
	"template-analytic-s1 template-bulk template-docs-s1 template-pgbench-s10 template-plpgsql-s1 "
like "single-user: the loads ran without an error" "$(cat "$TMP"/w/instr_*/prepare-*.log | grep -c '^ERROR:')" '^0$'
done_testing
