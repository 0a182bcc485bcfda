#!/bin/bash
# 54-optimize-report.t - the waterfall of a recorded pgbuild optimize run,
# re-rendered by `pgbuild report --optimize` (terminal and HTML), and its
# refusals.  The recordings are real runs of tests/pg/81-optimize.t:
# tests/unit/data/optimize-run.json (--stages lto,bolt on the shared
# builds: both kept) and optimize-aa.json (the LTO build as its own stock:
# dropped, exit 1), both from before --train (in-sample), and
# optimize-heldout.json (--train select-only -W select-only,mixed
# --stages lto,bolt: mixed held out, both kept on held-out evidence).
# optimize-floor.json is the stack held out at the layout floor
# (examples/RESULTS.md), with its stages' gate documents cut down.
# A copy of optimize-run.json with one tps figure marked undecided (as
# optimize writes it after a --pairs auto gate ran out of budget) shows it.
. "$(dirname "$0")/../lib/tap.sh"
P=$B/bin/pgbuild
D=$TOP/tests/unit/data
cd "$TMP" || exit 1

"$P" report --optimize "$D/optimize-run.json" --html run.html >out 2>err
is "report --optimize: exit 0" "$?" 0
like "the deciding metric, said to be a simulation" "$(cat out)" '^pgbuild optimize: deciding metric: the cycles estimate per transaction, at each stage.s own resolution \(at least the 0\.1% repeat one; '
like "... a simulation" "$(cat out)" 'a simulation: callgrind.s cache and branch simulator'
like "one table per workload" "$(cat out)" '^select-only: speedup over stock \(what the stage added over the build it stacks on\)'
like "the metrics' columns" "$(cat out)" 'stage +state +sample +cycles estimate +instructions +I1 misses +tps +server CPU/tx'
like "a run recorded before --train is said to be in-sample" "$(cat out)" '^  in-sample: recorded before --train, when pgo and bolt trained on every workload shown$'
like "stock is 1" "$(cat out)" '  stock +baseline +- +1\.0000 +1\.0000 +1\.0000 +1\.0000 +1\.0000'
# the recorded figures: lto 1.0273 over stock, bolt 1.0941 = lto * 1.0650
like "lto's row: its total and what it added" "$(cat out)" '  lto +kept +- +1\.0273 \(\+2\.73%\) +1\.0279 \(\+2\.79%\)'
like "bolt's row: its total and what it added over lto" "$(cat out)" '  bolt +kept +- +1\.0941 \(\+6\.50%\)'
like "tps with its interval" "$(cat out)" '1\.2138 \[0\.795, 1\.854\] \(\+21\.38%\)'
like "the builds: stacks on, compiler (none recorded then), text size, build time" "$(cat out)" '  bolt +kept +lto +- +7340713 +1m17s'
# a stage document that names its compiler (the build record's --version
# line): shown short, gcc or clang and the version
perl -0pe 's/"text_size":7340713/"text_size":7340713,"compiler":"Debian clang version 15.0.6"/' \
	"$D/optimize-run.json" > cc.json
"$P" report --optimize cc.json --html cc.html > cc.out 2>&1
like "the builds: the compiler of a stage, short" "$(cat cc.out)" '  bolt +kept +lto +clang 15\.0\.6 +7340713 +1m17s'
like "... and whole on the page" "$(cat cc.html)" '<td class="l">Debian clang version 15\.0\.6</td>'
like "the verdict" "$(cat out)" '^best: bolt, installed at /.*/optimize-run/out$'
like "the page is written" "$(cat err)" 'report: wrote run.html'
H=$(cat run.html)
like "HTML: one table per workload" "$H" '<h2>select-only</h2>'
like "HTML: the rows" "$H" '<tr class="kept"><td>bolt</td><td class="l">kept</td><td class="l">-</td><td>1\.0941 \(\+6\.50%\)</td>'
like "HTML: an SVG waterfall with a bar per stage" "$H" '<svg xmlns="http://www.w3.org/2000/svg".*<text[^>]*>lto</text><rect .*<text[^>]*>bolt</text><rect '
like "HTML: no fetch allowed" "$H" "Content-Security-Policy\" content=\"default-src 'none'"
like "HTML: a run recorded before --train is said to be in-sample" "$H" '<p class="note">in-sample: recorded before --train'
nok "HTML: no script" grep -qi '<script' run.html

"$P" report --optimize "$D/optimize-aa.json" >aa.out 2>aa.err
is "a run with nothing kept renders too: exit 0" "$?" 0
like "... the dropped stage and its reason" "$(cat aa.out)" '  lto +dropped +stock .* select-only: cycles estimate 1\.0000x of stock, 1\.0000x of stock \(not faster than stock'
like "... nothing installed" "$(cat aa.out)" '^best: stock \(no stage beat stock: nothing installed\)$'

# trained on select-only, judged on mixed too
"$P" report --optimize "$D/optimize-heldout.json" --html heldout.html >ho.out 2>ho.err
is "held-out run: exit 0" "$?" 0
like "... the sets and the keep rule" "$(cat ho.out)" '^  pgo, tuned and bolt trained on select-only; held out: mixed\.  Keep rule: a stage is kept when its cycles estimate beats the build it stacks on by more than the resolution on every workload it was not trained on'
like "... a table per workload, mixed too" "$(cat ho.out)" '^mixed: speedup over stock'
# the recorded figures: on mixed lto 1.0112, bolt 1.0230 (+1.17% over lto);
# on select-only bolt 1.1019, in-sample
like "... bolt in-sample on select-only" "$(cat ho.out)" '  bolt +kept +in-sample +1\.1019 \(\+7\.69%\)'
like "... lto held-out on mixed (it trained on nothing)" "$(cat ho.out)" '  lto +kept +held-out +1\.0112 \(\+1\.12%\)'
like "... bolt held-out on mixed" "$(cat ho.out)" '  bolt +kept +held-out +1\.0230 \(\+1\.17%\)'
like "... the gains side by side" "$(cat ho.out)" '  bolt +kept +held-out +1\.0230 \(\+1\.17%\) on 1 +1\.1019 \(\+7\.69%\) on 1'
like "... lto: held-out only" "$(cat ho.out)" '  lto +kept +held-out +1\.0172 \(\+1\.72%\) on 2 +- *$'
HO=$(cat heldout.html)
like "HTML: the sample column" "$HO" '<tr class="kept"><td>bolt</td><td class="l">kept</td><td class="l">held-out</td><td>1\.0230 \(\+1\.17%\)</td>'
like "HTML: the side-by-side table" "$HO" '<td>bolt</td><td class="l">kept</td><td class="l">held-out</td><td>1\.0230 \(\+1\.17%\) on 1</td><td>1\.1019 \(\+7\.69%\) on 1</td>'

# refusals
"$P" report --optimize "$D/optimize-gate-lto.json" >out 2>err
is "a gate JSON is not an optimize result: exit 2" "$?" 2
like "... said" "$(cat err)" 'not a pgbuild optimize result \(its "kind" is not "pgbuild-optimize"\)'
echo '{"kind":"pgbuild-optimize"}' > nostages.json
"$P" report --optimize nostages.json >out 2>err
is "no stages: exit 2" "$?" 2
like "... said" "$(cat err)" 'no "stages" array'
"$P" report --optimize "$D/optimize-run.json" --json x.json >out 2>err
is "--optimize with --json: exit 2" "$?" 2
like "... said" "$(cat err)" '--optimize takes no other input and no --json'
# a stage whose tps gate was undecided (--pairs auto, the figure's "gate":
# "undecided", as optimize writes it): shown after its tps figure only
perl -MJSON::PP -e 'local $/; my $d = decode_json(<>); $d->{stages}[1]{workloads}[0]{tps}{gate} = "undecided";
	print JSON::PP->new->canonical->encode($d)' "$D/optimize-run.json" >undecided.json
"$P" report --optimize undecided.json >out 2>err
is "report --optimize, tps undecided: exit 0" "$?" 0
like "lto's tps figure says undecided" "$(cat out)" '  lto +kept .*1\.2138 \[0\.795, 1\.854\] \(\+21\.38%\) undecided'
nok "bolt's does not" grep -q '^  bolt .*undecided' out

# what the stages were decided at: the run's family of candidate stages,
# or an earlier run's of the same workdir when that was larger (a rerun
# asking for fewer stages never loosens the level of the same gates)
perl -MJSON::PP -e 'local $/; my $d = decode_json(<>); $d->{stage_family} = 3; $d->{stage_family_asked} = 3;
	print JSON::PP->new->canonical->encode($d)' "$D/optimize-run.json" >family.json
"$P" report --optimize family.json >out 2>err
like "the family's level is said" "$(cat out)" "at 1 - \(1 - confidence\) / 3, the run's 3 candidate stages\)"
perl -MJSON::PP -e 'local $/; my $d = decode_json(<>); $d->{stage_family} = 5; $d->{stage_family_asked} = 2;
	print JSON::PP->new->canonical->encode($d)' "$D/optimize-run.json" >family2.json
"$P" report --optimize family2.json >out 2>err
like "the workdir's larger family is said, and why it holds" "$(cat out)" \
	"at 1 - \(1 - confidence\) / 5: the 5 candidate stages every run of this workdir asked for, this one 2; stages chosen after a verdict never loosen its level\)"

# the simulation next to the machine: each stage's cycles estimate beside
# its server CPU per transaction's interval (recorded: lto 1.0273 in
# [0.843, 1.365], bolt 1.0941 in [0.971, 1.214]: both inside intervals too
# wide to contradict them, so not tested, never "agree"; gate/agree.c)
"$P" report --optimize "$D/optimize-run.json" --html agree.html >out 2>err
like "agreement: its table" "$(cat out)" '^the simulation next to the machine: cycles estimate and server CPU/tx, speedups over stock$'
like "agreement: lto's row" "$(cat out)" '^  lto +select-only +1\.0273 +1\.0708 \[0\.843, 1\.365\] +not tested \(the machine.s interval is too wide\)$'
like "agreement: bolt's row" "$(cat out)" '^  bolt +select-only +1\.0941 +1\.0719 \[0\.971, 1\.214\] +not tested \(the machine.s interval is too wide\)$'
like "agreement: the count" "$(cat out)" '^  agree on 0 of 2 \(agree: the estimate inside the server CPU.s interval, narrow enough to contradict it: gate/agree.c\)$'
like "agreement: on the page" "$(cat agree.html)" '<h2>the simulation next to the machine</h2>'
like "... its rows" "$(cat agree.html)" '<tr><td>bolt</td><td class="l">select-only</td><td>1\.0941</td><td>1\.0719 \[0\.971, 1\.214\]</td><td class="l">not tested \(the machine.s interval is too wide\)</td>'
# a copy whose bolt interval is narrow around its estimate: agree
perl -MJSON::PP -e 'local $/; my $d = decode_json(<>); @{$d->{stages}[2]{workloads}[0]{server_cpu_us}}{qw(lo hi)} = (1.07, 1.11);
	print JSON::PP->new->canonical->encode($d)' "$D/optimize-run.json" >narrow.json
"$P" report --optimize narrow.json >out 2>err
like "bolt inside a narrow interval: agree" "$(cat out)" '^  bolt +select-only +1\.0941 +1\.0719 \[1\.070, 1\.110\] +agree$'
like "the count: 1 of 2" "$(cat out)" '^  agree on 1 of 2 '
# a copy whose bolt server CPU interval ends below its estimate: not agreeing
perl -MJSON::PP -e 'local $/; my $d = decode_json(<>); $d->{stages}[2]{workloads}[0]{server_cpu_us}{hi} = 1.05;
	delete $d->{stages}[1]{workloads}[0]{server_cpu_us}{lo};
	print JSON::PP->new->canonical->encode($d)' "$D/optimize-run.json" >over.json
"$P" report --optimize over.json >out 2>err
is "report --optimize, estimate above the machine: exit 0" "$?" 0
like "bolt: the estimate above the machine" "$(cat out)" '^  bolt +select-only +1\.0941 +1\.0719 \[0\.971, 1\.050\] +estimate above the machine$'
nok "lto, with no interval, is left out" grep -q '^  lto +select-only +1\.0273 +1\.0708' out
like "the count: 0 of 1" "$(cat out)" '^  agree on 0 of 1 '

# optimize-floor.json: the stack held out at the layout floor (a real run
# of --train select-only,tpcb -W select-only,tpcb,mixed --stages
# lto,pgo,bolt against a stock build with its pgopt-noise.json), with each
# stage's gate document cut to select-only's first 5 explain rows
# (optimize-floor-STAGE-gate.json)
perl -pe 's{"gate_json":"[^"]*/(lto|pgo|bolt)\.json"}{"gate_json":"'"$D"'/optimize-floor-$1-gate.json"}g' \
	"$D/optimize-floor.json" >floor.json
"$P" report --optimize floor.json --html floor.html >out 2>err
is "report --optimize, the floor run: exit 0" "$?" 0
like "held out: lto kept on all three" "$(cat out)" '^  lto +kept +held-out +1\.0404 \(\+4\.04%\) on 3 '
like "pgo dropped at mixed's floor" "$(cat out)" 'pgo +dropped +lto .*mixed \(held-out\): cycles estimate 1\.0375x of stock, 1\.0095x of lto \(not faster than lto at the resolution, 2\.2%\)'
like "the best is lto" "$(cat out)" '^best: lto, installed at '
# the stage's explain section, from its gate's document
like "lto's explain section" "$(cat out)" '^stage lto against stock: explain select-only: where the cycles estimate changed'
like "... reconciled with the gate's totals" "$(cat out)" 'reconciled at the 0\.1% resolution'
like "... its top row with the decision behind it" "$(cat out)" '^    1 PostgresMain .*'
like "... a callee inlined across files in B only" "$(cat out)" 'inlined in B only: appendStringInfoChar \(src/common/stringinfo\.c, another file\)'
flat=$(tr '\n' ' ' <out | tr -s ' ')
like "pgo's section: the profile put PostgresMain in .text.hot" "$flat" \
	'stage pgo against stock: explain select-only: .* 1 PostgresMain .* section \.text\.hot'
like "... its profile flags said to be PGOPT_PROFILE's, not the policy line's" "$flat" \
	'-fno-reorder-blocks-and-partition \(policy pgo-use\.policy:5\), \+ -fprofile-use -fprofile-partial-training -Wno-error=coverage-mismatch \(the profile: pgbuild pgo.s PGOPT_PROFILE, or a bundle.s PGOPT_BUNDLE\)'
nok "... never inside the policy line's flags" grep -q 'coverage-mismatch (policy ' out
like "... the page too" "$(cat floor.html)" '\(policy /[^ ]*/pgo-use\.policy:5\), \+ -fprofile-use [^<]*\(the profile: pgbuild pgo[^ ]* PGOPT_PROFILE'
like "bolt's section: BOLT split its functions" "$flat" \
	'stage bolt against stock: explain select-only: .*BOLT split \(hot part moved, cold part in \.text\.cold\)'
like "the page has it too" "$(cat floor.html)" '<h2>Stage lto against stock</h2>'
done_testing
