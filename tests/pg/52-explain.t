#!/bin/bash
# 52-explain.t - where the LTO candidate's cycles estimate comes from, on the
# shared PostgreSQL builds (the baseline, policy none, against coscup's
# flags with LTO), select-only, one cycles gate at a small statement count:
#   - the gate keeps its callgrind outputs (--workdir) and shows the explain
#     section; pgbuild explain --gate-result reads them without measuring;
#   - the rows add up to the gate's own totals at the metric's resolution,
#     every row's change to the total change;
#   - LTO's known change appears: a callee of another file inlined in B
#     only (check_stack_depth into expression_tree_walker), its cost in A
#     moved into the caller, with the policy line behind B's flags; and at
#     least one such cross-file row among the top 50 with its cost change;
#   - pgbuild explain on the two prefixes with the gate's --workdir reuses
#     the outputs (newer than both binaries) and says the same;
#   - report's size table lists no function twice under its LTO rename and
#     counts grouping_planner (inlined in B) in subquery_planner; its flags
#     section groups the units by flag set, the hot-listed units first.
# The top rows and the shares are printed as diagnostics.
. "$(dirname "$0")/lib.sh"
P=$B/bin/pgbuild
base=$(e2e_build base none) || { tap_result 1 "baseline build"; done_testing; }
cand=$(e2e_build coscup "$E2E_CANDIDATE_POLICY") || { tap_result 1 "candidate build"; done_testing; }
command -v valgrind >/dev/null || { skip "valgrind is not installed (make deps)" 1; done_testing; }
json() { perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; my $d = decode_json(<$f>);
	my $r = eval $ARGV[1]; die $@ if $@; print defined $r ? $r : "undef"' "$1" "$2"; }
N=50

# the bound at the repeat resolution (--noise none): this suite explains
# where the estimate changed; the layout floor is pg/51's and pg/55's, and
# without one a deterministic threshold is undecided (exit 3)
e2e_heavy "$P" gate --baseline "$base" --candidate "$cand" --metric cycles -W select-only \
	--instr-statements $N --gate 'select-only.cycles>=1.00' --noise none --workdir "$TMP/gw" \
	--json "$TMP/g.json" --quiet >"$TMP/g.out" 2>&1
is "cycles gate base vs coscup (exit 0)" "$?" 0
like "the gate's summary shows where the estimate changed" "$(cat "$TMP/g.out")" \
	'explain select-only: where the cycles estimate changed'
is "gate json: the explain section's rows" "$(json "$TMP/g.json" 'scalar @{$d->{workloads}[0]{explain}{rows}}')" 50
is "gate json: the callgrind outputs kept" \
	"$(json "$TMP/g.json" 'my $c = $d->{workloads}[0]{cycles}{callgrind}; join ",", $c->{statements}, scalar(grep { -s } @{$c->{a}}, @{$c->{b}})')" \
	"$N,4"

"$P" explain --gate-result "$TMP/g.json" --top 15 --json "$TMP/e.json" --html "$TMP/e.html" \
	>"$TMP/e.out" 2>"$TMP/e.err"
is "explain --gate-result: exit 0" "$?" 0
diag "$(cat "$TMP/e.out")"
w=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$TMP/e.out")
ok "the table fits 100 columns (widest line $w)" test "$w" -le 100
for s in a b; do
	is "$s: the rows add up to the gate's estimate at the 0.1% resolution" \
		"$(perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; my $g = decode_json(<$f>);
			open $f, "<", $ARGV[1] or die; my $e = decode_json(<$f>);
			my ($x, $y) = ($g->{workloads}[0]{cycles}{$ARGV[2]}{estimate}, $e->{totals}{$ARGV[2]}{estimate});
			print abs($x - $y) <= 0.001 * $x ? "yes" : "no: $x vs $y"' "$TMP/g.json" "$TMP/e.json" $s)" yes
done
is "the rows' changes add up to the total change" \
	"$(json "$TMP/e.json" 'my $s = 0; $s += $_->{change} for @{$d->{rows}}; abs($s - $d->{totals}{change}{estimate}) < 1 ? "yes" : "$s vs $d->{totals}{change}{estimate}"')" yes
is "reconciled" "$(json "$TMP/e.json" '$d->{reconciled} ? 1 : 0')" 1
known='my ($r) = grep { $_->{function} eq "expression_tree_walker" } @{$d->{rows}}; my ($s) = grep { $_->{callee} eq "check_stack_depth" } @{$r->{inlined_one_side}};'
is "known: check_stack_depth (postgres.c) inlined into expression_tree_walker in B only" \
	"$(json "$TMP/e.json" "$known"' join " ", $s->{inlined_in}, $s->{cross_file} ? "cross-file" : "same-file", $s->{callee_file}')" \
	"B cross-file src/backend/tcop/postgres.c"
like "known: A calls it out of line many times per transaction" \
	"$(json "$TMP/e.json" "$known"' int $s->{calls_other}')" '^[1-9][0-9]+$'
like "known: A's cost of it moved into expression_tree_walker" \
	"$(json "$TMP/e.json" 'my ($r) = grep { $_->{function} eq "expression_tree_walker" } @{$d->{rows}}; my ($a) = grep { $_->{callee} eq "check_stack_depth" } @{$r->{absorbed}}; $a->{side} . " " . int($a->{estimate})')" \
	'^A [1-9][0-9]*$'
like "known: the policy line behind B's flags" \
	"$(json "$TMP/e.json" 'my ($r) = grep { $_->{function} eq "expression_tree_walker" } @{$d->{rows}}; "$r->{tu} $r->{b}{rules} $r->{b}{flags}"')" \
	'^src/backend/nodes/nodeFuncs.c .*candidate.policy:[0-9]+ .*-flto'
like "a top-50 row with a cross-file callee inlined in B only and its cost change" \
	"$(json "$TMP/e.json" 'my @r = grep { my $r = $_; grep { $_->{cross_file} && $_->{inlined_in} eq "B" && $_->{calls_other} > 0 } @{$r->{inlined_one_side}} } @{$d->{rows}}[0..49]; @r ? sprintf("%s %+.1f", $r[0]{function}, $r[0]{change}) : "none"')" \
	'^[A-Za-z_][A-Za-z0-9_]* [-+][0-9]+\.[0-9]$'
like "the shares of the top 10 and top 50" \
	"$(json "$TMP/e.json" 'sprintf "%.3f %.3f", $d->{coverage}{top10_share}, $d->{coverage}{top50_share}')" \
	'^-?[0-9]+\.[0-9]{3} -?[0-9]+\.[0-9]{3}$'
like "the layout spread is said to be unmeasured" "$(cat "$TMP/e.out")" 'per-function layout spread: not measured'
like "html: the bar chart" "$(cat "$TMP/e.html")" '<svg .*change of the estimate per function'

"$P" explain --baseline "$base" --candidate "$cand" -W select-only --instr-statements $N \
	--workdir "$TMP/gw" --json "$TMP/m.json" >"$TMP/m.out" 2>"$TMP/m.err"
is "explain on the prefixes with the gate's --workdir: exit 0" "$?" 0
like "... reuses the outputs" "$(cat "$TMP/m.err")" 'using the callgrind outputs of .*gw'
is "... the same totals" "$(json "$TMP/m.json" 'sprintf "%.1f %.1f", $d->{totals}{a}{estimate}, $d->{totals}{b}{estimate}')" \
	"$(json "$TMP/e.json" 'sprintf "%.1f %.1f", $d->{totals}{a}{estimate}, $d->{totals}{b}{estimate}')"

"$P" report --gate-result "$TMP/g.json" --html "$TMP/r.html" --json "$TMP/r.json" >"$TMP/r.out" 2>&1
is "report exits 0" "$?" 0
like "report: the explain section" "$(cat "$TMP/r.out")" 'explain select-only: where the cycles estimate changed'
is "report: no function under an LTO, clone or cold name" \
	"$(json "$TMP/r.json" 'join " ", grep { /\.(lto_priv|isra|constprop|part|cold)/ } map { $_->{name} } @{$d->{functions}}')" ""
is "report: ExplainNode is at most one row, never two" \
	"$(json "$TMP/r.json" '(grep { $_->{name} =~ /^ExplainNode(\.|$)/ } @{$d->{functions}}) <= 1 ? "yes" : "no"')" yes
is "report: grouping_planner, inlined into subquery_planner in B, is not a row" \
	"$(json "$TMP/r.json" 'scalar grep { $_->{name} eq "grouping_planner" } @{$d->{functions}}')" 0
like "report: ... it is counted in subquery_planner" \
	"$(json "$TMP/r.json" 'my ($f) = grep { $_->{name} eq "subquery_planner" } @{$d->{functions}}; $f->{matched}')" \
	'grouping_planner[^;]*\(inlined into it in B\)'
like "report: the units grouped by flag set" "$(cat "$TMP/r.out")" '[0-9]+ units: \+ -O2 -finline-functions -flto=auto'
like "report: the hot-listed units first" "$(cat "$TMP/r.out")" 'hot list \(its functions are marked in\): src/backend/'
is "report json: one flag set holds every changed unit" \
	"$(json "$TMP/r.json" 'my $n = 0; $n += scalar @{$_->{units}} for @{$d->{flag_sets}}; $n == scalar @{$d->{translation_units}} ? "yes" : "no"')" yes
like "report html: the explain chart" "$(cat "$TMP/r.html")" '<svg .*change of the estimate per function'
diag "$(sed -n '/^functions:/,$p' "$TMP/r.out" | head -12)"
done_testing
