#!/bin/bash
# 81-optimize.t - pgbuild optimize on PostgreSQL 15 with the suites' shared
# builds and no new build: --baseline the shared base build, --stages
# lto,bolt with WORKDIR/lto a symlink to the shared candidate build (an LTO
# build that is BOLT-ready: tests/pg/candidate.policy, given as --policy,
# so it is reused), short gates (7 or 8 pairs of 1 s: the family's need), trained on select-only
# (--train) and judged on select-only and tpcb (-W): tpcb is held out;
# stock's layout floor measured by the run (5 relinked variants, the fewest
# a floor may have).  (mixed,
# the default held-out workload, has a floor of several percent: LTO's
# 1.1% on it is not resolved there, and lto would be dropped.)
#   1. interrupted with SIGTERM during the bolt stage: it dies of the
#      signal (as run does), the lto stage's steps are recorded as
#      finished, no process of it is left, nothing at --prefix;
#   2. the same command again: the finished steps are skipped, not redone,
#      bolt runs, the best build is installed at --prefix (a copy with
#      pgopt-optimize.json), the JSON and the HTML waterfall hold the
#      stages, each workload marked in-sample or held-out per stage (lto
#      trained on nothing, bolt on select-only) with the gains side by
#      side, and `pgbuild report --optimize` re-renders it; stock's layout
#      floor was measured once, before the first gate (the stock-floor
#      step: pgbuild noise on stock, both workloads), and every gate and
#      resolution is that floor's;
#   2b. the same command with --bolt-flags: only the bolt stage is redone
#      (its key holds the flags), from its kept profile, with the flags
#      given to BOLT and recorded;
#   3. a stage that is not faster than the build it stacks on is dropped
#      with the reason: the shared LTO build as its own stock (A/A), exit 1,
#      nothing installed; --noise none: the repeat resolution, no floor
#      measured, on which no stage can show a gain (dropped: "no layout
#      floor"); bolt, with no BOLT-ready stage kept, is skipped (never
#      run on stock).
#   4. a stage whose regression suite fails is dropped with the reason:
#      the same reused LTO build, and a backend of the suite's temporary
#      server killed with SIGSEGV while `make check` runs (what a
#      miscompiled build does, without the cost of building one): the
#      real suite fails, lto is dropped naming the suite's log, no gate
#      runs and no floor is measured, exit 1, nothing installed.
. "$(dirname "$0")/lib.sh"
e2e_extra optimize "pgbuild optimize end to end (interrupted and resumed, new BOLT flags, an A/A run, a crashing suite: about 12 min)"
P=$B/bin/pgbuild
unset PGOPT_POLICY PGOPT_LOGDIR PGOPT_PREFIX PGBUILD_BOLT
[ -x /usr/lib/llvm-15/bin/llvm-bolt ] ||
	skip_all "BOLT 15 is not installed (Debian's bolt-15 package: make deps)"
command -v valgrind >/dev/null ||
	skip_all "valgrind is not installed (the cycles estimate needs callgrind: make deps)"

t00=$(date +%s)
ready=$(e2e_build coscup "$E2E_CANDIDATE_POLICY") || { tap_result 1 "BOLT-ready build"; done_testing; }
base=$(e2e_build base none) || { tap_result 1 "baseline build"; done_testing; }
src=$(e2e_src) || { tap_result 1 "source"; done_testing; }
diag "builds ready in $(($(date +%s) - t00)) s"
dir=$(e2e_dir optimize-run)
rm -rf "$dir"
mkdir -p "$dir/work"
chmod 755 "$dir" "$dir/work"
wd=$dir/work
ln -s "$(e2e_dir coscup)" "$wd/lto"
out=$dir/out
cd "$TMP" || exit 1
seeded_workdir() { # NAME: DIR/NAME, its lto stage the shared LTO build
	mkdir -p "$dir/$1"
	chmod 755 "$dir/$1"
	ln -s "$(e2e_dir coscup)" "$dir/$1/lto"
	echo "$dir/$1"
}
json() { # FILE PERL-EXPR: print the expression over the decoded file ($j)
	perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; my $j = decode_json(<$f>);
		my $r = eval $ARGV[1]; die $@ if $@; print defined $r ? $r : "undef"' "$1" "$2"
}
stage() { # FILE NAME FIELD: the field of the named stage
	json "$1" "my (\$s) = grep { \$_->{name} eq '$2' } @{\$j->{stages}}; \$s ? \$s->{$3} : 'none'"
}
args=(optimize --train select-only -W select-only,tpcb --src "$src" --baseline "$base" --policy "$E2E_CANDIDATE_POLICY" --stages lto,bolt
	--workdir "$wd" --prefix "$out" --pairs 8 -T 1 --noise-variants 5 --json "$dir/opt.json"
	--html "$dir/opt.html")

# 1. interrupted during the bolt stage
t0=$(date +%s)
"$P" "${args[@]}" >run1.out 2>run1.err &
pid=$!
for _ in $(seq 1 1800); do
	grep -Eq '^\[[0-9]+/[0-9]+\] bolt +pgbuild bolt' run1.err && break
	kill -0 $pid 2>/dev/null || break
	sleep 1
done
sleep 20
kill -TERM $pid 2>/dev/null
wait $pid
s=$?
t1=$(date +%s)
diag "run 1 (lto reused, verified, regress, gated; bolt interrupted): $((t1 - t0)) s"
is "interrupted: died of SIGTERM, like run (exit 143)" "$s" 143
[ $s = 143 ] || diag "$(tail -20 run1.err)"
like "the seeded lto build was reused" "$(cat "$wd/logs/lto.log")" "^reused $wd/lto/prefix"
like "the bolt stage had started" "$(cat run1.err)" '\[[0-9]+/[0-9]+\] bolt +pgbuild bolt --install .*/lto/prefix \(on lto\)'
sleep 2
nok "no pgbuild bolt of the run is left" pgrep -f "pgbuild bolt --install $wd/lto/[p]refix"
nok "... and no server of its training or suite" pgrep -f "$wd/bolt/(prefix|work)/.*[p]ostgres"
for st in stock-floor lto lto-verify lto-regress lto-gate; do
	is "state: $st finished" "$(json "$wd/run-state.json" "\$j->{stages}{'$st'}{exit} // 'none'")" 0
done
ok "nothing at --prefix" test ! -e "$out"

# 2. resumed
rerun() { # RUN WHAT [OPTION...]: the command again (RUN.out, RUN.err), exit 0, lto's steps skipped
	local run=$1 what=$2 s t0=$(date +%s)
	shift 2
	"$P" "${args[@]}" "$@" >"$run.out" 2>"$run.err"
	s=$?
	diag "$run ($what): $(($(date +%s) - t0)) s"
	is "$run: exit 0" "$s" 0
	[ $s = 0 ] || diag "$(tail -30 "$run.err")"
	for st in stock-floor lto lto-verify lto-regress lto-gate; do
		like "... $st is not redone" "$(cat "$run.err")" "\] $st +.*: finished in an earlier run \(exit 0\), skipped"
	done
}
rerun run2 "resumed: bolt, its installcheck and gate"
like "bolt ran" "$(cat run2.err)" '\[[0-9]+/[0-9]+\] bolt +done in '
J=$dir/opt.json
ok "the JSON is written" test -s "$J"
cmp -s "$J" "$wd/optimize.json"
is "... the same as WORKDIR/optimize.json" "$?" 0
is "stages" "$(json "$J" 'join ",", map { $_->{name} } @{$j->{stages}}')" "stock,lto,bolt"
is "stock is the baseline" "$(stage "$J" stock state)" baseline
is "lto is kept" "$(stage "$J" lto state)" kept
is "... and was reused" "$(stage "$J" lto reused)" 1
is "bolt stacks on lto" "$(stage "$J" bolt stacks_on)" lto
bolt_state=$(stage "$J" bolt state)
like "bolt kept or dropped with a reason" "$bolt_state $(stage "$J" bolt reason)" '^(kept undef|dropped .+)$'
best=$(json "$J" '$j->{best}')
diag "best: $best; cycles over stock: lto $(json "$J" '$j->{stages}[1]{workloads}[0]{cycles}{total}'), bolt $(json "$J" '$j->{stages}[2]{workloads}[0]{cycles}{total}') (added $(json "$J" '$j->{stages}[2]{workloads}[0]{cycles}{added}'))"
is "the best is the last kept stage" "$best" "$([ "$bolt_state" = kept ] && echo bolt || echo lto)"
like "per metric: cycles, instructions, I1 misses, tps with interval, server CPU" \
	"$(json "$J" 'my $w = $j->{stages}[1]{workloads}[0]; join " ", map { defined $w->{$_}{total} ? "ok" : "no" } qw(cycles instructions i1_misses tps server_cpu_us)')" '^ok ok ok ok ok$'
like "tps has its interval" "$(json "$J" '$j->{stages}[1]{workloads}[0]{tps}{lo} < $j->{stages}[1]{workloads}[0]{tps}{hi} ? "ok" : "no"')" '^ok$'
like "added = total / total of the build it stacks on" "$(json "$J" 'my ($l, $b) = map { $j->{stages}[$_]{workloads}[0]{cycles} } 1, 2; abs($b->{added} - $b->{total} / $l->{total}) < 1e-9 ? "ok" : "no"')" '^ok$'
like "postgres text sizes" "$(json "$J" 'join " ", map { $_->{text_size} > 1000000 ? "ok" : "no" } @{$j->{stages}}')" '^ok ok ok$'
like "build time of bolt" "$(stage "$J" bolt build_secs)" '^[0-9.]+$'
# trained on select-only, judged on tpcb too
is "the training set" "$(json "$J" 'join ",", @{$j->{train}}')" select-only
is "the held-out set" "$(json "$J" 'join ",", @{$j->{held_out}}')" tpcb
is "... so the run is judged held-out" "$(json "$J" '$j->{evidence}')" held-out
is "lto trained on nothing" "$(json "$J" 'scalar @{$j->{stages}[1]{trained_on}}')" 0
is "... every workload is held out for it" "$(json "$J" 'join ",", map { "$_->{name}:$_->{sample}" } @{$j->{stages}[1]{workloads}}')" "select-only:held-out,tpcb:held-out"
is "bolt trained on select-only" "$(json "$J" 'join ",", @{$j->{stages}[2]{trained_on}}')" select-only
is "... select-only in-sample, tpcb held-out" "$(json "$J" 'join ",", map { "$_->{name}:$_->{sample}" } @{$j->{stages}[2]{workloads}}')" "select-only:in-sample,tpcb:held-out"
is "... decided on held-out evidence" "$(stage "$J" bolt decided_on)" held-out
like "... its gains side by side: one workload each" "$(json "$J" 'my $g = $j->{stages}[2]{gain}; "$g->{held_out}{workloads} $g->{in_sample}{workloads} " . ($g->{held_out}{total} > 0 && $g->{in_sample}{total} > 0 ? "ok" : "no")')" '^1 1 ok$'
is "... the held-out gain is tpcb's" "$(json "$J" 'my $s = $j->{stages}[2]; abs($s->{gain}{held_out}{added} - $s->{workloads}[1]{cycles}{added}) < 1e-9 ? "ok" : "no"')" ok
# the floor: measured here, once, before lto's gate; every gate read it
F=$wd/gates/stock-noise.json
is "the floor was measured by the run" "$(json "$J" '$j->{noise_floor}{state}')" measured
is "... into WORKDIR/gates/stock-noise.json" "$(json "$J" '$j->{noise_floor}{file}')" "$F"
is "... over 5 relinked variants of stock" "$(json "$F" 'scalar @{$j->{variants}}') $(json "$J" '$j->{noise_floor}{variants}')" "5 5"
is "... of stock's postgres" "$(json "$F" '$j->{postgres_sha256}')" "$(sha256sum "$base/bin/postgres" | cut -c1-64)"
is "... both workloads" "$(json "$F" 'join ",", sort keys %{$j->{workloads}}')" "select-only,tpcb"
like "... before lto's gate" "$(tr '\n' ' ' <run1.err)" '\] stock-floor +pgbuild noise --install STOCK .*\] lto-gate '
for g in lto bolt; do
	is "$g's gate used that floor" "$(json "$wd/gates/$g.json" '$j->{noise_floor}{state}')" used
	like "... naming it" "$(json "$wd/gates/$g.json" '$j->{noise_floor}{note}')" "$F"
done
for i in 0 1; do
	wl=$(json "$J" "\$j->{stages}[2]{workloads}[$i]{name}")
	gw="my (\$w) = grep { \$_->{name} eq '$wl' } @{\$j->{workloads}}; \$w->{cycles}"
	res=$(json "$wd/gates/bolt.json" "$gw{resolution}")
	is "the resolution of $wl: its gate's ($(json "$wd/gates/bolt.json" "$gw{resolution_source}"))" \
		"$(json "$J" "\$j->{stages}[2]{workloads}[$i]{resolution}")" "$res"
	like "... at least the repeat 0.1%" "$(perl -e 'print $ARGV[0] >= 0.001 ? "ok" : "no $ARGV[0]"' "$res")" '^ok$'
done
like "the waterfall names the floor" "$(cat run2.out)" "Layout floor of stock: measured \\(measured here: $F over 5 relinked variants of stock\\)\."
diag "held-out (tpcb) vs in-sample (select-only) cycles over stock: lto $(json "$J" '$j->{stages}[1]{workloads}[1]{cycles}{total}') vs $(json "$J" '$j->{stages}[1]{workloads}[0]{cycles}{total}'), bolt $(json "$J" '$j->{stages}[2]{workloads}[1]{cycles}{total}') vs $(json "$J" '$j->{stages}[2]{workloads}[0]{cycles}{total}')"
ok "installed at --prefix" test -x "$out/bin/postgres"
is "... the best build (pgopt-optimize.json)" "$(json "$out/pgopt-optimize.json" '$j->{stage}')" "$best"
ok "... no temporary sibling left" sh -c "! ls -d '$out'.tmp-* '$out'.old-* 2>/dev/null | grep -q ."
is "the JSON says where" "$(json "$J" '$j->{installed}')" "$out"
like "the waterfall on stdout" "$(cat run2.out)" 'select-only: speedup over stock'
like "... the sets and the rule" "$(cat run2.out)" 'pgo, tuned and bolt trained on select-only; held out: tpcb\.  Keep rule: a stage is kept when'
like "... the gains side by side" "$(cat run2.out)" '  bolt +(kept|dropped) +held-out +[0-9.]+ \([-+][0-9.]+%\) on 1 +[0-9.]+ \([-+][0-9.]+%\) on 1'
like "... says the cycles estimate is a simulation" "$(cat run2.out)" 'a simulation: callgrind'
H=$dir/opt.html
like "the HTML waterfall holds the stages" "$(cat "$H")" '<td>lto</td><td class="l">kept</td><td class="l">held-out</td>'
like "... the held-out and in-sample table" "$(cat "$H")" '<h2>held-out and in-sample</h2>'
like "... an SVG" "$(cat "$H")" '<svg '
nok "... no script" grep -qi '<script' "$H"
"$P" report --optimize "$J" --html rerender.html >rerender.out 2>rerender.err
is "report --optimize: exit 0" "$?" 0
is "... the same waterfall" "$(cat rerender.out)" "$(sed -n '/^pgbuild optimize:/,/^best:/p' run2.out)"
cmp -s rerender.html "$H"
is "... the same page" "$?" 0

# 2b. BOLT's layout flags: part of the bolt stage's key, so the same run
#     with --bolt-flags redoes bolt (from its kept profile) and its gate,
#     and nothing before it
flags="-reorder-blocks=ext-tsp -reorder-functions=none -icf=1"
rerun run2b "--bolt-flags: bolt again from its profile, its installcheck and gate" --bolt-flags "$flags"
nok "... bolt is redone" grep -Eq '\] bolt +.*finished in an earlier run' run2b.err
like "... from the profile of run 2" "$(cat run2b.err)" "reusing the profile $wd/bolt/work/profile\\.fdata"
like "... given to BOLT" "$(cat run2b.err)" "\\[3/4\\] optimize +llvm-bolt -data=$wd/bolt/work/profile\\.fdata $flags -> "
is "... which the rewrite's record names" "$(json "$wd/bolt/prefix/pgopt-build.json" '$j->{bolt}{optimize_flags}')" "$flags"
like "... the stage's key holds them" "$(json "$wd/run-state.json" '$j->{stages}{bolt}{key}')" " bolt-flags=\\{$flags\\}"
nok "... the gate's too: it is not skipped" grep -Eq '\] bolt-gate +.*finished in an earlier run' run2b.err
like "bolt kept or dropped again" "$(stage "$J" bolt state)" '^(kept|dropped)$'

# 3. A/A: the shared LTO build against itself is not faster: dropped
wd3=$(seeded_workdir aa)
t0=$(date +%s)
"$P" optimize --train select-only -W select-only --src "$src" --baseline "$ready" --policy "$E2E_CANDIDATE_POLICY" --stages lto,bolt --workdir "$wd3" \
	--prefix "$dir/aa-out" --pairs 7 -T 1 --noise none >aa.out 2>aa.err
s=$?
diag "A/A run: $(($(date +%s) - t0)) s"
is "A/A: exit 1 (no stage beat stock)" "$s" 1
[ $s = 1 ] || diag "$(tail -20 aa.err)"
is "lto dropped" "$(stage "$wd3/optimize.json" lto state)" dropped
like "... with the reason: no layout floor, no gain can be shown" "$(stage "$wd3/optimize.json" lto reason)" 'select-only \(held-out\): no layout floor: the cycles estimate \([01]\.[0-9]+x of stock\) was decided at the repeat resolution \(0\.1%, --noise none\), which cannot show a gain'
like "... -W inside --train: warned that pgo, tuned and bolt would be judged in-sample" "$(cat aa.err)" 'warning: every -W workload is one --train trains on'
is "... the run says so" "$(json "$wd3/optimize.json" '$j->{evidence}')" in-sample
ok "nothing installed" test ! -e "$dir/aa-out"
is "the verdict says so" "$(json "$wd3/optimize.json" '$j->{verdict}')" "no stage beat stock: nothing installed"
is "--noise none: no floor" "$(json "$wd3/optimize.json" '$j->{noise_floor}{state}') $(json "$wd3/optimize.json" '$j->{noise_floor}{file}')" "none undef"
nok "... none measured" grep -q 'stock-floor' aa.err
is "bolt skipped: nothing BOLT-ready kept to stack on" "$(stage "$wd3/optimize.json" bolt state) $(stage "$wd3/optimize.json" bolt reason)" \
	"skipped skipped: no BOLT-ready stage (lto, pgo, tuned, clang, clang-pgo) was kept to stack on, and BOLT never rewrites stock"
nok "... not run" grep -q '\] bolt +pgbuild bolt' aa.err

# 4. the regression suite fails: a backend of make check's server crashes
wd4=$(seeded_workdir crash)
t0=$(date +%s)
"$P" optimize -W select-only --src "$src" --baseline "$base" --policy "$E2E_CANDIDATE_POLICY" --stages lto --workdir "$wd4" \
	--prefix "$dir/crash-out" --pairs 7 -T 1 >crash.out 2>crash.err &
op=$!
# a backend of a test (connected to "regression"), not the CREATE DATABASE
# before the first one
check_server=$(e2e_check_server "$(e2e_builddir coscup)")
killed=$(e2e_segv_backend "$check_server" 'regression \[local\]' $op)
wait $op
s=$?
diag "crashed-suite run: $(($(date +%s) - t0)) s"
ok "a backend of make check's server was killed with SIGSEGV" test -n "$killed"
is "a failed suite: exit 1 (no stage beat stock)" "$s" 1
[ $s = 1 ] || diag "$(tail -20 crash.err)"
J4=$wd4/optimize.json
is "lto dropped" "$(stage "$J4" lto state)" dropped
like "... because its suite failed, naming the suite's log" "$(stage "$J4" lto reason)" "^regression suite failed \(log $wd4/logs/lto-regress\.log\)\$"
like "... which says what failed" "$(cat "$wd4/logs/lto-regress.log")" 'FAIL'
like "the drop is said on stderr" "$(cat crash.err)" 'optimize: lto dropped: regression suite failed'
is "... decided on no measurement" "$(stage "$J4" lto decided_on)" undef
nok "no gate ran for it" grep -q 'lto-gate .*pgbuild gate' crash.err
nok "... and no floor was measured (it is measured before the first gate)" grep -q 'stock-floor .*pgbuild noise' crash.err
is "... the document says it is pending" "$(json "$J4" '$j->{noise_floor}{state}')" pending
ok "nothing installed" test ! -e "$dir/crash-out"
is "the verdict says so" "$(json "$J4" '$j->{verdict}')" "no stage beat stock: nothing installed"
nok "no server of the suite is left" pgrep -f "$check_server"
diag "81-optimize.t: $(($(date +%s) - t00)) s"
done_testing
