#!/bin/bash
# 62-pgo-clang.t - the LLVM stack on PostgreSQL 15: pgbuild pgo with
# PGOPT_CC=clang-15 and lto = on (ThinLTO linked by clang-15's own lld,
# clang's instrumented PGO: -fprofile-generate, llvm-profdata merge,
# -fprofile-use), scoped with --files like tests/pg/61, then pgbuild
# verify on a binary without pgopt.so records.
#   1. pgbuild pgo trains on select-only: one raw profile per binary,
#      copied back and merged into BUILDDIR/pgopt-pgo.profdata; the
#      scoped units are compiled with -fprofile-use of that file, the
#      others without; the regression suite passes;
#   2. the profile holds the known hot functions of those units, with
#      counts; postgres is linked by LLD; verify checks every unit against
#      the command lines the binary records and says no plugin ran;
#   3. a second run reuses the merged profile.
# Two full clang builds of PostgreSQL (no ccache hit from GCC's): about
# 20 minutes on 2 cores, so not in CI's budget.
. "$(dirname "$0")/lib.sh"
e2e_extra clang "pgbuild pgo and verify with clang-15 (ThinLTO, instrumented PGO), about 20 min"
P=$B/bin/pgbuild
unset PGOPT_POLICY PGOPT_LOGDIR PGOPT_PREFIX
CC15=$(command -v clang-15) || skip_all "clang-15 is not installed (make deps)"
LLVM=$(dirname "$(readlink -f "$CC15")")
[ -x "$LLVM/ld.lld" ] && [ -x "$LLVM/llvm-profdata" ] ||
	skip_all "clang-15's lld or llvm-profdata is missing (make deps: lld-15, llvm-15)"

src=$(e2e_src)
dir=$(e2e_dir pgo-clang)
mkdir -p "$dir"
chmod 755 "$dir"
cd "$TMP" || exit 1
printf '# clang pgo test policy\n[global]\nlto = on\nbolt = ready\n' > "$dir/pgo.policy"
FILES=(--files 'src/backend/utils/{mmgr,hash}/*.c' --files 'src/backend/access/nbtree/*.c')
PGO=(env PGOPT_CC="$CC15" "$P" pgo --src "$src" --prefix "$dir/prefix" --builddir "$dir/build"
	--policy "$dir/pgo.policy" "${FILES[@]}" --train select-only --clients 2 --duration 10
	${PGOPT_E2E_JOBS:+--jobs "$PGOPT_E2E_JOBS"})

# 1. instrumented build, training, merged profile, use build, suite
t0=$(date +%s)
e2e_heavy "${PGO[@]}" --retrain >pgo.out 2>pgo.err
s=$?
is "pgo with clang-15: exit 0 (built, trained, suite passed)" "$s" 0
[ $s = 0 ] || diag "$(tail -40 pgo.err)"
diag "clang pgo: $(($(date +%s) - t0)) s"
like "summary: trained now, raw profiles merged, suite passed" "$(cat pgo.out)" \
	'pgo: OK: trained on select-only \(now\), [1-9][0-9]* profile data files.*regression suite passed'
R=$dir/prefix/pgopt-pgo.json
like "the record: llvm-profdata, and the use flag names the merged file" "$(cat "$R")" \
	"\"profile_format\":\"llvm-profdata\".*\"use_flags\":\"-fprofile-use=$dir/build/pgopt-pgo.profdata\""
ok "the merged profile is in the build tree" test -s "$dir/build/pgopt-pgo.profdata"
ok "no .gcda was written (clang's profile is not GCC's)" \
	sh -c "! find '$dir/build/src/backend' -name '*.gcda' | grep -q ."
like "the use build's policy says what the environment adds" "$(cat "$dir/build/pgo-use.policy")" \
	"PGOPT_PROFILE=use=$dir/build/pgopt-pgo.profdata src/backend/utils/"
log=$dir/build/pgopt-log/compile.jsonl
like "dynahash.c: -fprofile-use of the merged profile" \
	"$(grep '"tu":"src/backend/utils/hash/dynahash.c"' "$log" | tail -n 1)" \
	"\"added\":\\[[^]]*\"-fprofile-use=$dir/build/pgopt-pgo.profdata\""
like "... ThinLTO" "$(grep '"tu":"src/backend/utils/hash/dynahash.c"' "$log" | tail -n 1)" \
	'"added":\[[^]]*"-flto=thin"'
ok "tcop/postgres.c, outside --files: no profile flag" \
	sh -c "! grep '\"tu\":\"src/backend/tcop/postgres.c\"' '$log' | tail -n 1 | grep -q fprofile"

# 2. what the profile holds, the binary, verify
show=$("$LLVM/llvm-profdata" show --all-functions --counts "$dir/build/pgopt-pgo.profdata" 2>&1)
for f in hash_search_with_hash_value AllocSetAlloc _bt_compare; do
	# "  NAME:" or, for a static function, "  /path/to/file.c:NAME:"; its
	# first block count is the function's entry count
	cnt=$(printf '%s\n' "$show" | awk -v f="$f" '$0 ~ "^  (.*:)?"f":$" {hit=1; next}
		hit && /Block counts:/ {sub(/.*\[/, ""); sub(/[],].*/, ""); print; exit}')
	ok "the profile counts $f (${cnt:-absent})" test "${cnt:-0}" -gt 0
done
like "postgres is linked by clang-15's LLD" "$(readelf -p .comment "$dir/prefix/bin/postgres")" \
	'Linker: .*LLD 15'
like "... and keeps its relocations (bolt = ready)" "$(readelf -SW "$dir/prefix/bin/postgres")" '\.rela\.text '
"$P" verify --install "$dir/prefix" >verify.out 2>&1
s=$?
is "verify of the clang build: exit 0" "$s" 0
[ $s = 0 ] || diag "$(grep -v '^ok' verify.out | head -20)"
like "... every unit against the command lines the binary records, no plugin" "$(cat verify.out)" \
	'verify: no pgopt.so ran \(a compiler it cannot load into\): [1-9][0-9]* objects checked against the command lines postgres records instead; no per-function records'

# 3. reuse
e2e_heavy "${PGO[@]}" >pgo2.out 2>pgo2.err
s=$?
is "second pgo run: exit 0" "$s" 0
like "... reuses the merged profile" "$(cat pgo2.err)" 'pgo: reusing the profiles of .* \([1-9][0-9]* data files, trained on select-only\)'
like "... and says so" "$(cat pgo2.out)" 'trained on select-only \(reused\)'
done_testing
