#!/bin/bash
# 21-plugin-identical-pg.t - the plugin in record-only mode (no hot/cold
# lists) leaves PostgreSQL's code unchanged: 20 backend translation units
# of the shared baseline build, each compiled exactly as make compiled it
# (from the build's compile log) with plain gcc and again with pgopt.so
# loaded (record and sidecar, as pgoptcc loads it), have the same code and
# data sections (.text*, .rodata*, .data*, .bss*, ...), symbols and
# relocations (same_code, tests/lib/plugin.sh).  The fixtures of the plugin
# suites: tests/t/25.
. "$(dirname "$0")/lib.sh"
e2e_extra plugin-identical "the plugin in record-only mode leaves 20 PostgreSQL units' code unchanged (tests/t/25 checks the same on small programs in the fast suites; about 1 min)"
. "$TOP/tests/lib/plugin.sh"
[ -f "$PLUGIN" ] || skip_all "plugin not built"
t0=$(date +%s)

# a spread of the backend: executor, access methods, storage, planner,
# parser, utilities, large and small
TUS="utils/mmgr/aset.c utils/hash/dynahash.c utils/adt/numeric.c utils/adt/varlena.c
utils/adt/selfuncs.c access/heap/heapam.c access/nbtree/nbtsearch.c access/transam/xlog.c
executor/execExprInterp.c executor/nodeAgg.c executor/nodeHashjoin.c optimizer/path/costsize.c
optimizer/plan/createplan.c parser/gram.c storage/buffer/bufmgr.c storage/lmgr/lwlock.c
tcop/postgres.c catalog/namespace.c utils/sort/tuplesort.c utils/cache/relcache.c"

base=$(e2e_build base none) || { tap_result 1 "baseline build"; done_testing; }
mkdir -p "$TMP/o"
# one script, one heavy job: two compiles per TU
{
	echo "set -u"
	echo "date +%s > '$TMP/started'"
	for rel in $TUS; do
		obj=$(basename "${rel%.c}").o
		out=$TMP/o/${rel//\//_}
		cmd=$(e2e_compile_cmd base "src/backend/$rel")
		[ -n "$cmd" ] || { echo "echo 'no compile of $rel in the log' >&2"; continue; }
		cmd=$(printf '%s' "$cmd" | sed -E "s# -o $obj( |\$)# -o OUT #; s# -MMD -MP -MF [^ ]+##")
		printf '(%s) || echo "plain compile failed: %s" >&2\n' "${cmd/OUT/$out.plain.o}" "$rel"
		printf '(%s -fplugin=%q -fplugin-arg-pgopt-tu=%q -fplugin-arg-pgopt-rules= -fplugin-arg-pgopt-added= -fplugin-arg-pgopt-removed= -fplugin-arg-pgopt-log=%q) || echo "plugin compile failed: %s" >&2\n' \
			"${cmd/OUT/$out.rec.o}" "$PLUGIN" "src/backend/$rel" "$TMP/log" "$rel"
	done
} > "$TMP/compile.sh"
e2e_heavy bash "$TMP/compile.sh" 2> "$TMP/compile.err"
t1=$(date +%s)
diag "40 compiles took $((t1 - $(cat "$TMP/started"))) s (after $(( $(cat "$TMP/started") - t0 )) s waiting for the heavy lock)"
is "compiled 20 backend TUs with and without the plugin" "$(cat "$TMP/compile.err")" ""
n=0
for rel in $TUS; do
	out=$TMP/o/${rel//\//_}
	[ -s "$out.plain.o" ] && [ -s "$out.rec.o" ] || continue
	n=$((n + 1))
	like "src/backend/$rel: the plugin's record is in the object" "$(readelf -SW "$out.rec.o")" '\.pgopt\.log'
	ok "src/backend/$rel: same code, data, symbols and relocations as plain gcc's" same_code "$out.plain.o" "$out.rec.o"
done
is "compared 20 translation units" "$n" 20
ok "the plugin wrote its sidecar records too" test "$(find "$TMP/log/functions" -type f | wc -l)" -ge 20
diag "21-plugin-identical-pg took $(( $(date +%s) - t0 )) s"
done_testing
