#!/bin/bash
# 95-checks-fail.t - the checks that guard performance and coverage can fail
# (issue 21 item 6):
#   - a benchmark's target (tests/lib/target.sh) is met or missed both ways,
#     and a figure that is not a number misses;
#   - a real benchmark script (tests/bench/wrapper-overhead, its quick part)
#     given a target no figure can meet exits 1 with the figure and the
#     target on its last line, and `make bench` running it fails, naming it;
#     given a target every figure meets, it exits 0;
#   - every tests/bench script ends on target_end (its last line);
#   - `make check-tap` ends with the skipped checks and where: a planted
#     skip is counted, named with its file and reason; none says "none";
#   - tests/pg/40 fails (not skips) when its PostgreSQL build fails.
. "$(dirname "$0")/../lib/tap.sh"
cd "$TMP" || exit 1
mk() { env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$TOP" O="$B" "$@"; }

# ---- tests/lib/target.sh ----
tgt() { bash -c '. "$1/tests/lib/target.sh"; target "ratio" "$2" "$3" "$4"; target_end t' _ "$TOP" "$@"; }
out=$(tgt 1.01 '<=' 1.05); s=$?
is "target met (1.01 <= 1.05): exit 0" "$s" 0
is "... the last line has the figure and the target" "$out" "t: every target met: ratio 1.01 (target <= 1.05)"
out=$(tgt 1.06 '<=' 1.05); s=$?
is "target missed (1.06 <= 1.05): exit 1" "$s" 1
is "... the last line says so" "$out" "t: target missed: ratio 1.06 (target <= 1.05) MISSED"
out=$(tgt 0.99 '>=' 1.00); s=$?
is "target missed (0.99 >= 1.00): exit 1" "$s" 1
out=$(tgt 1.00 '>=' 1.00); s=$?
is "the edge is met (1.00 >= 1.00): exit 0" "$s" 0
out=$(tgt "" '>=' 1.00); s=$?
is "no figure misses: exit 1" "$s" 1
like "... said as none" "$out" 'ratio none \(target >= 1.00\) MISSED'
out=$(tgt nan '<=' 1); s=$?
is "a figure that is not a number misses" "$s" 1
out=$(bash -c '. "$1/tests/lib/target.sh"; target_end t' _ "$TOP"); s=$?
is "no figure at all misses" "$s:$out" "1:t: target missed: no figure was measured"

# ---- a real benchmark script, its quick part (100 trivial compiles) ----
QUICK=1 TARGET_COMPILE=0.001 "$TOP/tests/bench/wrapper-overhead" >wo.out 2>&1; s=$?
is "wrapper-overhead with an impossible target exits 1" "$s" 1
like "... its last line: the figure, the target, MISSED" "$(tail -n 1 wo.out)" \
	'^wrapper-overhead: target missed: trivial compile ratio [0-9.]+ \(target <= 0.001\) MISSED$'
QUICK=1 TARGET_COMPILE=1000 "$TOP/tests/bench/wrapper-overhead" >wo.out 2>&1; s=$?
is "wrapper-overhead with a target any figure meets exits 0" "$s" 0
like "... its last line says so" "$(tail -n 1 wo.out)" \
	'^wrapper-overhead: every target met: trivial compile ratio [0-9.]+ \(target <= 1000\)$'
QUICK=1 TARGET_COMPILE=0.001 mk bench BENCH_SCRIPTS="$TOP/tests/bench/wrapper-overhead" >mb.out 2>&1; s=$?
isnt_zero() { [ "$1" != 0 ]; }
ok "make bench fails on the missed target (exit $s)" isnt_zero "$s"
like "... naming the script" "$(cat mb.out)" "make bench: failed: $TOP/tests/bench/wrapper-overhead"

missing=
for f in "$TOP"/tests/bench/*; do
	[ -x "$f" ] || continue
	grep -q '^\. "\$TOP/tests/lib/target.sh"' "$f" && grep -q 'target_end ' "$f" || missing="$missing $(basename "$f")"
done
is "every tests/bench script ends on target_end" "$missing" ""

# ---- make check-tap counts the skips ----
printf '#!/bin/sh\necho 1..3\necho ok 1\necho "ok 2 # SKIP planted: no frobnicator"\necho "ok 3 # SKIP planted: no frobnicator"\n' >planted.t
printf '#!/bin/sh\necho "1..0 # SKIP planted whole: no widget"\n' >whole.t
printf '#!/bin/sh\necho 1..1\necho ok 1\n' >clean.t
chmod +x planted.t whole.t clean.t
mk check-tap TAP_TESTS="$TMP/planted.t $TMP/whole.t $TMP/clean.t" >ct.out 2>&1; s=$?
is "check-tap with planted skips passes (exit 0)" "$s" 0
like "... prove's result first" "$(cat ct.out)" 'Result: PASS'
is "... then the count of skipped checks" "$(grep '^skipped:' ct.out)" \
	"skipped: 2 checks in 1 file, 1 file skipped whole"
like "... where and why" "$(cat ct.out)" "  $TMP/planted.t: 2 checks \(2-3\): planted: no frobnicator"
like "... and the file skipped whole" "$(cat ct.out)" "  $TMP/whole.t: whole file: planted whole: no widget"
like "... as the last lines" "$(tail -n 1 ct.out)" "whole.t: whole file"
mk check-tap TAP_TESTS="$TMP/clean.t" >ct.out 2>&1
is "no skip: it says none" "$(tail -n 1 ct.out)" "skipped: none"
printf '#!/bin/sh\necho 1..1\necho not ok 1\n' >bad.t; chmod +x bad.t
mk check-tap TAP_TESTS="$TMP/bad.t $TMP/planted.t" >ct.out 2>&1; s=$?
ok "a failing file still fails check-tap (exit $s)" isnt_zero "$s"

# ---- tests/pg/40 (an extra suite: named in PGOPT_TEST_EXTRA): a failed build fails the suite ----
mkdir -p e2e
PGOPT_TEST_EXTRA=bench-pg PGOPT_E2E=$TMP/e2e PGOPT_E2E_SRC=$TMP/no-such-source bash "$TOP/tests/pg/40-bench-pg.t" >pg40.out 2>&1; s=$?
ok "tests/pg/40 with a build that fails exits non-zero ($s)" isnt_zero "$s"
like "... with a failed check, not a skip" "$(cat pg40.out)" '^not ok 1 - the base build'
nok "... and no skip" grep -q 'SKIP' pg40.out

done_testing
