#!/bin/bash
# 38-deb-options.t - `pgbuild deb` checks every option its gate, policy and
# baseline will need before it starts a package build (which takes about
# 25 minutes here): each bad one exits 2 within seconds, naming the option,
# and makes nothing in --workdir.
. "$(dirname "$0")/../lib/tap.sh"
cd "$TMP" || exit 1
PGBUILD=$B/bin/pgbuild
POL=$TOP/examples/coscup-2017.policy

refused() { # title want-regex args...
	local t=$1 want=$2 s t0
	shift 2
	t0=$(date +%s)
	timeout 30 "$PGBUILD" deb --workdir "$TMP/w" "$@" >out 2>&1; s=$?
	is "$t: exit 2" "$s" 2
	like "$t: says why" "$(cat out)" "$want"
	ok "$t: within seconds" test $(( $(date +%s) - t0 )) -le 10
	ok "$t: nothing made in --workdir" test ! -e "$TMP/w"
}
# against the distribution's package the gate runs with --noise none: its
# estimate bounds are no statistical tests, its family the two tps bounds
refused "too few pairs" "--pairs 4: 2 tests \\(the thresholds x the workloads they apply to\\) need at least 7 pairs" \
	--policy "$POL" --pairs 4 -T 3
refused "a claim on the estimate against the distribution's package" \
	"--gate cycles>=1.05: a claim on cycles, which the gate cannot decide against a baseline without a layout floor" \
	--policy "$POL" --gate 'cycles>=1.05'
refused "... on instructions too" "a claim on instructions" \
	--policy "$POL" --gate 'instructions>=1.01'
refused "... and against that package named as --baseline (it has no floor either)" "a claim on cycles" \
	--policy "$POL" --gate 'cycles>=1.05' --baseline /usr/lib/postgresql/15
refused "... and \"not slower\" is no family of 4 tests there: --pairs 6 is too few for its 2" \
	"--pairs 6: 2 tests .* need at least 7 pairs" --policy "$POL" --pairs 6 -T 3
refused "a gate threshold of no workload" "select-onyl.*did you mean" \
	--policy "$POL" --gate 'select-onyl>=1.00'
refused "a threshold of a metric not measured" "cycles" \
	--policy "$POL" --gate 'cycles>=1.01' --metric tps
refused "a baseline that is no install" "--baseline.*bin/postgres" \
	--policy "$POL" --baseline "$TMP"
echo '[global]' >bad.policy && echo 'cflags += -fplugin=/tmp/x.so' >>bad.policy
refused "a policy pgoptcc refuses" "bad.policy:2" --policy bad.policy
refused "a --dsc that cannot be read" "--dsc" --policy "$POL" --dsc "$TMP/nosuch.dsc"

done_testing
