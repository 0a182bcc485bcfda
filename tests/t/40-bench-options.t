#!/bin/bash
# 40-bench-options.t - pgbuild bench's option and script errors, one table
# (like pgbench's t/002_pgbench_no_server.pl): every bad invocation exits 2
# with a one-line message naming the option or file; nothing needs a server
# except the last few rows, which show that a bad server is reported clearly.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/bench.sh"
P=$B/bin/pgbuild
PX="--install $PGPREFIX"

printf '\\set aid random(1, 10\nSELECT 1;\n' > "$TMP/paren.sql"
printf '\\shell ls\nSELECT 1;\n' > "$TMP/meta.sql"
printf '\\set x :nosuch + 1\nSELECT :x;\n' > "$TMP/undef.sql"
printf '\\gset\n' > "$TMP/gset.sql"
printf -- '-- nothing\n\n' > "$TMP/empty.sql"
printf '\\set x frob(1)\nSELECT :x;\n' > "$TMP/func.sql"

# args | expected stderr (extended regex)
while IFS='|' read -r args want; do
	[ -z "$args" ] && continue
	# shellcheck disable=SC2086
	eval "set -- $args"
	"$P" bench "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	is "exit 2: $args" "$rc" 2
	like "message: $args" "$(cat "$TMP/err")" "$want"
done <<ROWS
|one of --install DIR or --connect CONNSTR is required
$PX --connect x|--install and --connect cannot be used together
$PX --clients 0|invalid value "0" for --clients
$PX --clients abc|invalid value "abc" for --clients
$PX -c 2 --threads 3|--threads 3 is more than --clients 2
$PX --threads 0|invalid value "0" for --threads
$PX --duration 0|invalid value "0" for --duration
$PX --duration 5 --transactions 10|--duration and --transactions cannot be used together
$PX --transactions -1|invalid value "-1" for --transactions
$PX --warmup x|invalid value "x" for --warmup
$PX --progress 0|invalid value "0" for --progress
$PX --scale 0|invalid value "0" for --scale
$PX --protocol binary|invalid value "binary" for --protocol
$PX --set fsync|invalid value "fsync" for --set: expected NAME=VALUE
$PX --set =on|invalid value "=on" for --set
$PX --init|--init only applies to --connect
--connect x --keep|only apply to a private cluster
--connect x --set fsync=off|only apply to a private cluster
--connect x --datadir-template /tmp|only apply to a private cluster
$PX --seed -5|invalid value "-5" for --seed
$PX --nosuchoption|^pgbuild: error: unknown option "--nosuchoption" for pgbuild bench$
$PX extra|unexpected argument "extra"
$PX --workload nosuch|unknown workload "nosuch"
$PX --workload sql|--workload sql needs a script
$PX -b sql|-b sql: no built-in script: a script of yours is -f FILE, as pgbench.s
$PX --workload sql a.sql b.sql|unexpected argument "b.sql"
$PX --workload tpcb --file x.sql|--file only applies to --workload sql
$PX --workload sql:a.sql --file b.sql|either as --workload sql:FILE or --file FILE
$PX -f $TMP/nosuch.sql|cannot read script ".*nosuch.sql"
$PX -f $TMP/paren.sql|paren.sql:1: expected "\)" after random arguments
$PX -f $TMP/meta.sql|meta.sql:1: unsupported meta-command "\\\\shell"
$PX -f $TMP/undef.sql|undef.sql:1: undefined variable "nosuch"
$PX -f $TMP/gset.sql|gset.sql:1: \\\\gset must follow an SQL command
$PX -f $TMP/empty.sql|empty.sql: script has no commands
$PX -f $TMP/func.sql|func.sql:1: unknown function "frob"
--install $TMP/nowhere|--install $TMP/nowhere: no bin/postgres: not an installed PostgreSQL
--connect 'host=$TMP/nosock port=1 user=postgres connect_timeout=2'|cannot connect to "host=$TMP/nosock port=1 user=postgres connect_timeout=2": .*(No such file|could not connect)
--connect 'nosuchkey=1'|cannot connect to "nosuchkey=1": .*invalid connection option
ROWS

ok "--help exits 0" "$P" bench --help
# pgbench's -b list: the built-in workloads, then stop (exit 0, nothing run),
# in bench and in gate from the one list bench's --help prints too
"$P" bench -b list >"$TMP/list" 2>"$TMP/err"
is "-b list: exit 0, nothing on stderr, no cluster" "$?|$(cat "$TMP/err")|$(ls "$TMP" | grep -c pgbuild-)" "0||0"
for w in select-only tpcb tpcc-lite mixed agg-join simple-update sql; do
	like "-b list names $w" "$(cat "$TMP/list")" "^  $w "
done
is "pgbuild-bench(1)'s workload list is -b list's rows (the one table)" \
	"$(sed -n '/^\\fBWorkloads\\fR/,/^\.fi/p' "$TOP/pgbuild/man/pgbuild-bench.1" | grep '^  ' | sed 's/\\-/-/g')" \
	"$(grep '^  ' "$TMP/list")"
like "-b list says pgbench's names" "$(cat "$TMP/list")" "tpcb-like is tpcb"
is "gate -b list: the same list, exit 0" "$("$P" gate -b list; echo "rc=$?")" "$(cat "$TMP/list"; echo rc=0)"
# a misspelt -b is refused while the options are read, before a cluster:
# a prefix of list points to -b list, another name to the nearest workload
for a in lis l; do
	"$P" bench $PX -b $a >"$TMP/out" 2>"$TMP/err"
	is "-b $a: exit 2, pointed to -b list, no cluster" "$?|$(head -n 1 "$TMP/err")|$(ls "$TMP" | grep -c pgbuild-)" \
		"2|pgbuild: error: --builtin $a: no workload of that name (did you mean -b list, which lists them?)|0"
done
"$P" gate --baseline $PGPREFIX --candidate $PGPREFIX -b selct-only >"$TMP/out" 2>"$TMP/err"
is "gate -b selct-only: exit 2, the nearest workload named before anything runs" "$?|$(head -n 1 "$TMP/err")" \
	"2|pgbuild: error: unknown workload \"selct-only\" (did you mean \"select-only\"?): expected $(workloads="$("$P" bench -b list | awk '/^  /{printf "%s%s", n++ ? ", " : "", $1}')"; echo "$workloads")"
like "--help ends with the same list" "$("$P" bench --help | tail -n "$(wc -l <"$TMP/list")")" "^$(head -n 1 "$TMP/list" | sed 's/[()*;]/./g')"
like "--help lists the workloads" "$("$P" bench --help)" "tpcc-lite"
like "--help says who runs the server when pgbuild runs as root" "$("$P" bench --help | tr '\n' ' ')" \
	'runs as root .*PGBUILD_SERVER_USER.*postgres'
# PGOPT_VERBOSE is a boolean as pgoptcc reads it (git's words, boolean.h):
# pgbuild read only "1" (yes was silently no), and refuses another word
for v in yes true 1; do
	PGOPT_VERBOSE=$v "$P" bench $PX -T 1 -q >"$TMP/out" 2>"$TMP/err"
	is "PGOPT_VERBOSE=$v: verbose (exit 0, the cluster's lines)" \
		"$?|$(grep -c '^pgbuild: cluster: created' "$TMP/err")" "0|1"
done
PGOPT_VERBOSE=no "$P" bench $PX -T 1 -q >"$TMP/out" 2>"$TMP/err"
is "PGOPT_VERBOSE=no: quiet" "$?|$(cat "$TMP/err")" "0|"
PGOPT_VERBOSE=maybe "$P" bench $PX -T 1 -q >"$TMP/out" 2>"$TMP/err"
is "PGOPT_VERBOSE=maybe: refused before anything, naming the variable and the words" \
	"$?|$(cat "$TMP/err")" \
	"2|pgbuild: error: PGOPT_VERBOSE=maybe: expected a boolean: yes, no, true, false, on, off, 1 or 0 (empty is no)"
is "no cluster directory left behind" "$(ls "$TMP" | grep -c pgbuild-)" 0
done_testing
