# tests/lib/target.sh - the targets of the benchmarks (tests/bench/*), so
# that `make bench` is the performance gate: a script exits 1 when a figure
# misses the target it prints.
#
#   target LABEL FIGURE OP LIMIT   record one figure against its target
#                                  (OP: <= or >=); a FIGURE that is not a
#                                  number (a run that gave none) misses
#   target_end NAME                print the last line and exit: 0 when every
#                                  figure met its target, 1 when one missed
#                                  or none was recorded
#
# The last line names every figure with its target, e.g.
#   wrapper-overhead: target missed: trivial compile ratio 1.114 (target <= 1.05) MISSED
#   wrapper-overhead: every target met: trivial compile ratio R (target <= 1.05)
# Each script takes its limits from the environment (TARGET_*) so a test
# can give it one no figure can meet.
TARGET_LINES=()
TARGET_MISSED=0

target() {
	local label=$1 figure=$2 op=$3 limit=$4 met
	met=$(awk -v f="$figure" -v op="$op" -v l="$limit" 'BEGIN {
		if (f !~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/) { print 0; exit }
		print (op == "<=" ? f + 0 <= l + 0 : op == ">=" ? f + 0 >= l + 0 : 0) }')
	if [ "$met" = 1 ]; then
		TARGET_LINES+=("$label $figure (target $op $limit)")
	else
		TARGET_LINES+=("$label ${figure:-none} (target $op $limit) MISSED")
		TARGET_MISSED=$((TARGET_MISSED + 1))
	fi
}

target_end() {
	local IFS=';' all
	if [ ${#TARGET_LINES[@]} = 0 ]; then
		echo "$1: target missed: no figure was measured"
		exit 1
	fi
	all="${TARGET_LINES[*]}"
	all=${all//;/; }
	if [ "$TARGET_MISSED" = 0 ]; then
		echo "$1: every target met: $all"
		exit 0
	fi
	echo "$1: target missed: $all"
	exit 1
}
