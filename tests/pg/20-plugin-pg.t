#!/bin/bash
# 20-plugin-pg.t - pgopt.so on PostgreSQL itself.
#  1. Oracle: on 25 backend translation units of the shared baseline build,
#     recompiled exactly as make compiles them plus the plugin, the inlined
#     call sites in the record match GCC's own decisions exactly, both ways:
#     -fopt-info-inline-optimized plus the called-once inliner's decisions,
#     which GCC writes only to -fdump-ipa-inline (tests/lib/plugin-oracle.pl).
#  2. The installed postgres of the shared coscup-2017 (LTO) build: inspect
#     lists every backend translation unit, and the link-time (ltrans)
#     records show cross-file inlining.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib/plugin.sh"
[ -f "$PLUGIN" ] || skip_all "plugin not built"

TUS="utils/mmgr/aset.c utils/mmgr/mcxt.c utils/hash/dynahash.c utils/adt/int.c
utils/adt/numeric.c utils/adt/varlena.c access/heap/heapam.c
access/nbtree/nbtsearch.c access/nbtree/nbtinsert.c executor/execExprInterp.c
executor/execMain.c executor/nodeHashjoin.c optimizer/path/costsize.c
parser/parse_expr.c storage/buffer/bufmgr.c storage/lmgr/lwlock.c
storage/lmgr/lock.c tcop/postgres.c catalog/namespace.c commands/copyfrom.c
utils/cache/catcache.c utils/sort/tuplesort.c nodes/equalfuncs.c
access/transam/xact.c utils/fmgr/fmgr.c"

base=$(e2e_build base none) || { tap_result 1 "baseline build"; done_testing; }
# The exact compile make ran for each object (from the build's compile log,
# with gcc in place of pgoptcc: the baseline policy is none, so pgoptcc ran
# gcc unchanged), plus the plugin, -fopt-info and GCC's IPA inline dump,
# output to $TMP/o.  One heavy job for all 25 compiles.
mkdir -p "$TMP/o"
{
	echo "set -u"
	for rel in $TUS; do
		obj=$(basename "${rel%.c}").o
		out=$TMP/o/${rel//\//_}
		cmd=$(e2e_compile_cmd base "src/backend/$rel")
		[ -n "$cmd" ] || { echo "echo 'no compile of $rel in the log' >&2"; continue; }
		cmd=$(printf '%s' "$cmd" | sed -E "s# -o $obj( |$)# -o $out.o #; s# -MMD -MP -MF [^ ]+##")
		printf '(%s -fplugin=%q -fplugin-arg-pgopt-tu=%q -fopt-info-inline-optimized=%q -fdump-ipa-inline=%q) || echo "compile failed: %s" >&2\n' \
			"$cmd" "$PLUGIN" "src/backend/$rel" "$out.opt" "$out.ipa" "$rel"
	done
} > "$TMP/oracle.sh"
e2e_heavy bash "$TMP/oracle.sh" 2>"$TMP/oracle.err"
is "recompiled 25 backend TUs with the plugin" "$(cat "$TMP/oracle.err")" ""
n=0
for rel in $TUS; do
	out=$TMP/o/${rel//\//_}
	if [ -s "$out.o" ]; then
		oracle_check "oracle: src/backend/$rel" "$out.o" "$out.opt" "$out.ipa"
		n=$((n + 1))
	fi
done
is "oracle ran on 25 backend translation units" "$n" "25"

# --- the LTO build: every backend TU in the installed postgres ---
cand=$(e2e_build coscup "$E2E_CANDIDATE_POLICY") || { tap_result 1 "coscup build"; done_testing; }
cbd=$(e2e_builddir coscup)
units=$("$PGBUILD" inspect --units "$cand/bin/postgres" 2>"$TMP/err.txt"); rc=$?
is "inspect postgres: exit 0" "$rc" "0"
want=$(cd "$cbd" && cat src/backend/*/objfiles.txt | tr ' ' '\n' | grep '^src/backend/.*\.o$' |
	sed 's/\.o$/.c/' | LC_ALL=C sort -u)
got=$(printf '%s\n' "$units" | awk '$2 == "compile-lto" { print $1 }' | LC_ALL=C sort -u)
missing=$(LC_ALL=C comm -23 <(printf '%s\n' "$want") <(printf '%s\n' "$got"))
is "every backend translation unit is listed ($(printf '%s\n' "$want" | wc -l) TUs)" "$missing" ""
[ -z "$missing" ] || diag "missing: $(printf '%s\n' "$missing" | head -n 10)"
like "link-time (ltrans) units present" "$units" "^src/backend/postgres +ltrans"
cross=$(printf '%s\n' "$units" | sed -nE 's/.*cross-file ([0-9]+)\).*/\1/p' | awk '{s+=$1} END {print s+0}')
like "cross-file inlining decided at link time ($cross call sites)" "$cross" "^[1-9][0-9]{2,}$"
site=$("$PGBUILD" inspect --sites --tu src/backend/postgres "$cand/bin/postgres" | awk -F'\t' '$5 == "lto"' | head -n 1)
like "a link-time site names caller, call location and callee" "$site" $'^src/backend/postgres\t[^\t]+\t[^\t]+:[0-9]+:[0-9]+\t[^\t]+\tlto$'
done_testing
