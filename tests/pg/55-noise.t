#!/bin/bash
# 55-noise.t - pgbuild noise on the shared baseline build (policy none):
# five variants of its postgres (the fewest a floor may have) relinked with
# the object files in seeded orders, select-only, short single-user runs:
#   - the variants differ in layout: their binaries differ from each other
#     and from the build's own, and the address of a function moves;
#   - they execute the same code: the instruction counts of the variants
#     agree within 0.05% (a check of "the same code", not of the floor's
#     size, which the gate reads from the file: measured relink ranges are
#     0.0003% to 0.037%, another build's code differs by percents; below),
#     the cycles estimate is measured on every variant;
#   - the JSON has its fields, every spread is non-negative, the range
#     covers every value and the mean lies in it; the table names each
#     metric; the same seed gives the same first order (the binaries'
#     sha256 repeat), another seed another one;
#   - the per-function spread: over 100 functions of select-only, each 3
#     SDs, which explain --noise reads: variant 1 against variant 2 lies
#     inside it;
#   - refusals: no recorded link (a build tree without a compile log), a
#     workload without a single-user script.
# The figures are printed as diagnostics.
. "$(dirname "$0")/lib.sh"
e2e_extra noise "pgbuild noise's variants on PostgreSQL checked one by one (pg/51 measures a 5-variant floor of the same build with pgbuild noise and decides with it; about 2 min)"
P=$B/bin/pgbuild
base=$(e2e_build base none) || { tap_result 1 "baseline build"; done_testing; }
builddir=$(e2e_builddir base)
command -v valgrind >/dev/null || { skip "valgrind is not installed (make deps)" 1; done_testing; }
json() { perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; my $d = decode_json(<$f>);
	my $r = eval $ARGV[1]; die $@ if $@; print defined $r ? $r : "undef"' "$1" "$2"; }
N=40

e2e_heavy "$P" noise --install "$base" --builddir "$builddir" --variants 5 --seed 7 \
	-W select-only --instr-statements $N --workdir "$TMP/w" --json "$TMP/n.json" \
	>"$TMP/n.out" 2>"$TMP/n.err"
is "pgbuild noise, 5 variants (exit 0)" "$?" 0 || tail -n 20 "$TMP/n.err" | sed 's/^/# /' >&2
diag "$(cat "$TMP/n.out")"

v1=$TMP/w/v01/prefix/bin/postgres v2=$TMP/w/v02/prefix/bin/postgres v3=$TMP/w/v03/prefix/bin/postgres
ok "every variant has its prefix and postgres" test -x "$v1" -a -x "$v2" -a -x "$v3"
sums=$(sha256sum "$base/bin/postgres" "$v1" "$v2" "$v3" | cut -c1-64 | sort -u | wc -l)
is "the variants' binaries differ from each other and from the build's" "$sums" 4
addr() { nm "$1" | awk '$3 == "PostgresMain" { print $1 }'; }
a0=$(addr "$base/bin/postgres") a1=$(addr "$v1") a2=$(addr "$v2")
like "PostgresMain has an address" "$a1" '^[0-9a-f]+$'
ok "PostgresMain moved between variants and the build" test "$a1" != "$a2" -o "$a1" != "$a0"
is "the same symbols in the variant" "$(nm "$v1" | awk '{print $3}' | sort | md5sum)" \
	"$(nm "$base/bin/postgres" | awk '{print $3}' | sort | md5sum)"
like "the prefixes' paths have one length" \
	"$(json "$TMP/n.json" 'my %l = map { length($_->{prefix}) => 1 } @{$d->{variants}}; scalar keys %l')" '^1$'

for f in prefix builddir postgres_sha256 started seconds seed lto objects metrics counter; do
	is "json: $f" "$(json "$TMP/n.json" "defined \$d->{$f} ? 1 : 0")" 1
done
is "json: 5 variants, each with seed, prefix and sha256" \
	"$(json "$TMP/n.json" 'scalar grep { $_->{seed} && $_->{prefix} && length($_->{postgres_sha256}) == 64 } @{$d->{variants}}')" 5
is "json: the objects were shuffled (hundreds)" "$(json "$TMP/n.json" '$d->{objects} > 300 ? 1 : 0')" 1
is "json: the build's postgres sha256" "$(json "$TMP/n.json" '$d->{postgres_sha256}')" \
	"$(sha256sum <"$base/bin/postgres" | cut -c1-64)"
for m in instructions cycles_estimate cycles_ir i1_misses l1_misses ll_misses branch_mispredictions; do
	is "json: $m has 5 values, a non-negative spread, a range covering them" \
		"$(json "$TMP/n.json" "my \$s = \$d->{workloads}{'select-only'}{$m}; my @v = @{\$s->{values}};
			(@v == 5 && \$s->{sd} >= 0 && \$s->{sd_pct} >= 0 && \$s->{range_pct} >= 0 &&
			 !grep({ \$_ < \$s->{min} || \$_ > \$s->{max} } @v) &&
			 \$s->{min} <= \$s->{mean} && \$s->{mean} <= \$s->{max}) ? 1 : 0")" 1
	like "table: $m" "$(cat "$TMP/n.out")" "^select-only +$m "
done
sdpct() { json "$TMP/n.json" "sprintf '%.${2}f', \$d->{workloads}{'select-only'}{$1}{sd_pct}"; }
is "the last line: the SDs and what a gate makes of them" "$(tail -n 1 "$TMP/n.out")" \
	"layout SD over 5 variants (a gate against a candidate without a floor decides the cycles estimate at 1.96 x sqrt(2) x 2.372 = 6.58 of them): select-only instructions $(sdpct instructions 4)%, cycles estimate $(sdpct cycles_estimate 3)%"
ir=$(json "$TMP/n.json" '$d->{workloads}{"select-only"}{instructions}{range_pct}')
diag "instructions range over the variants: $ir%"
# Why 0.05%: it must hold for every relink of one build and fail for
# another build's code.  Measured ranges of the instructions over relinks
# of one stock build: 0.0003% (7 variants, seeds of --seed 7, select-only
# at N = 40 as here: `pgbuild noise --variants 7 --seed 7 -W select-only
# --instr-statements 40` on this suite's base build, 2026-12-06), 0.0025%
# (tpcb, 5 variants, pgbuild/README.md), 0.02% (the issue's 7 shuffles,
# select by key), and 0.037% once (one clean clone's build, three variants,
# twice in a row: the instructions executed depend a little on addresses);
# another build's code differs by percents (LTO: 3.7%).  0.05% is above
# every relink range measured and 70 times below that.
is "the variants execute the same instructions (range <= 0.05%)" \
	"$(json "$TMP/n.json" '$d->{workloads}{"select-only"}{instructions}{range_pct} <= 0.05 ? 1 : 0')" 1
is "the estimate's run counts the same instructions too (<= 0.05%)" \
	"$(json "$TMP/n.json" '$d->{workloads}{"select-only"}{cycles_ir}{range_pct} <= 0.05 ? 1 : 0')" 1

# the per-function spread (3 SDs of each function's self estimate over the
# variants), which explain --noise reads from the same document
is "json: kind pgbuild-noise (explain --noise reads it)" "$(json "$TMP/n.json" '$d->{kind}')" pgbuild-noise
is "json: select-only has a spread for over 100 functions, each 3 SDs" \
	"$(json "$TMP/n.json" 'my $f = $d->{workloads}{"select-only"}{functions};
		(@$f > 100 && !grep({ !($_->{sd} >= 0 && $_->{mean} > 0 && abs($_->{spread} - 3 * $_->{sd}) <= 1e-9 * (1 + $_->{spread})) } @$f)) ? 1 : 0')" 1
cg() { local d; d=$TMP/w/cycles$(printf '%s' "$TMP/w/$1/prefix" | tr / _)/out
	echo "$d/cycles-select-only-$N.out,$d/cycles-select-only-$((10 * N)).out"; }
"$P" explain --baseline "$TMP/w/v01/prefix" --candidate "$TMP/w/v02/prefix" \
	--callgrind-baseline "$(cg v01)" --callgrind-candidate "$(cg v02)" --instr-statements $N \
	-W select-only --noise "$TMP/n.json" --json "$TMP/e.json" >"$TMP/e.out" 2>&1
is "explain variant 1 against variant 2 with the run's own spread (exit 0)" "$?" 0 || tail -n 5 "$TMP/e.out" | sed 's/^/# /' >&2
is "... the spread is measured, for over 100 rows" \
	"$(json "$TMP/e.json" '$d->{noise}{measured} && $d->{noise}{rows_in_noise} > 100 ? 1 : 0')" 1
is "... and a relink's change lies inside it (share >= 99%)" \
	"$(json "$TMP/e.json" '$d->{noise}{in_noise_share} >= 0.99 ? 1 : 0')" 1
like "... which the terminal says in words" "$(tr '\n' ' ' <"$TMP/e.out" | tr -s ' ')" \
	'the gain is all in the layout spread'

# a cycles gate of the build against variant 2 with that floor: its
# explain section reads the floor's per-function spread too (the gate
# finds the spread of the workload it measures in the --noise document)
e2e_heavy "$P" gate --baseline "$base" --candidate "$TMP/w/v02/prefix" --metric cycles \
	-W select-only --instr-statements $N --noise "$TMP/n.json" --gate 'cycles>=0.9' \
	--json "$TMP/g.json" >"$TMP/g.out" 2>&1
is "a cycles gate against variant 2 with the floor (exit 0)" "$?" 0 || tail -n 5 "$TMP/g.out" | sed 's/^/# /' >&2
is "... its explain section has the floor's per-function spread, for over 100 rows" \
	"$(json "$TMP/g.json" 'my $n = $d->{workloads}[0]{explain}{noise}; $n->{measured} && $n->{rows_in_noise} > 100 ? 1 : 0')" 1
nok "... (no \"not measured\" spread line)" grep -q 'per-function layout spread: not measured' "$TMP/g.out"

# the same seed, the same order: variant 1 relinked again is the same binary
e2e_heavy "$P" noise --install "$base" --builddir "$builddir" --variants 5 --seed 7 \
	-W select-only --metric instructions --instr-statements 5 --workdir "$TMP/w2" \
	--json "$TMP/n2.json" --quiet >/dev/null 2>"$TMP/n2.err"
is "a second run (exit 0)" "$?" 0 || tail -n 5 "$TMP/n2.err" | sed 's/^/# /' >&2
is "the same seed relinks the same binary" \
	"$(json "$TMP/n2.json" '$d->{variants}[0]{postgres_sha256}')" \
	"$(json "$TMP/n.json" '$d->{variants}[0]{postgres_sha256}')"

mkdir -p "$TMP/empty"
"$P" noise --install "$base" --builddir "$TMP/empty" --workdir "$TMP/w3" --json "$TMP/n3.json" \
	>/dev/null 2>"$TMP/e.err"
is "no compile log: exit 2" "$?" 2
like "no compile log: said" "$(cat "$TMP/e.err")" 'cannot read .*/empty/pgopt-log/compile.jsonl: No such file or directory \(was the build made by pgbuild build\?\)'
"$P" noise --install "$base" -W tpcc-lite >/dev/null 2>"$TMP/e2.err"
is "-W tpcc-lite: exit 2" "$?" 2
like "-W tpcc-lite: said" "$(cat "$TMP/e2.err")" 'no single-user script'
done_testing
