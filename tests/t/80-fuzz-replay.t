#!/bin/bash
# 80-fuzz-replay.t - the fuzzing corpora (seeds and every input that ever
# crashed, tests/fuzz/corpus/<harness>/) replayed through the ordinary build:
# the harnesses of tests/fuzz/ linked without libFuzzer.  Under
# `make SANITIZE=address,undefined check` this is a sanitized replay.
. "$(dirname "$0")/../lib/tap.sh"
for h in policy settings classify json elfrec report; do
	bin=$B/tests/fuzz-replay-$h
	n=$(find "$TOP/tests/fuzz/corpus/$h" -type f | wc -l)
	timeout 120 "$bin" "$TOP/tests/fuzz/corpus/$h" > "$TMP/$h.out" 2> "$TMP/$h.err"; s=$?
	is "$h: corpus replays without a crash" "$s" 0
	[ $s = 0 ] || tail -n 20 "$TMP/$h.err" | diag "$(cat)"
	is "$h: every input run" "$(cat "$TMP/$h.out")" "replayed $n inputs"
	ok "$h: corpus is not empty" test "$n" -gt 3
done
done_testing
