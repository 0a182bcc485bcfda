#!/bin/bash
# 93-make-bench.t - `make bench` runs every benchmark script and fails when
# one of them fails (it used to end in "; true"), naming it; scripts after
# the failing one still run.  Uses BENCH_SCRIPTS with three small scripts,
# not the real benchmarks (those take hours: tests/bench/).
. "$(dirname "$0")/../lib/tap.sh"
cd "$TMP" || exit 1
printf '#!/bin/sh\necho one ran\n' >one; printf '#!/bin/sh\necho two failed; exit 3\n' >two
printf '#!/bin/sh\necho three ran\n' >three; chmod +x one two three
mk() { env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$TOP" O="$B" bench "$@"; }

mk BENCH_SCRIPTS="$TMP/one $TMP/two $TMP/three" >out 2>&1; s=$?
isnt_zero() { [ "$1" != 0 ]; }
ok "a failing script fails make bench (exit $s)" isnt_zero "$s"
like "it is named" "$(cat out)" "make bench: failed: $TMP/two"
like "the scripts after it still ran" "$(cat out)" 'three ran'
mk BENCH_SCRIPTS="$TMP/one $TMP/three" >out 2>&1; s=$?
is "scripts that pass: make bench exits 0" "$s" 0
like "each script is announced" "$(cat out)" "== $TMP/one"

done_testing
