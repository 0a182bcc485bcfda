#!/bin/bash
# 80-bolt.t - pgbuild bolt on PostgreSQL 15: the shared BOLT-ready build
# (tests/pg/candidate.policy: coscup's flags, LTO, bolt = ready) instrumented, trained 5 s per
# workload, rewritten into a new prefix and checked with the core and
# contrib regression suites (installcheck against a server from that prefix).
#   1. the shared baseline build (no relocations, .cold fragments) is
#      refused naming the policy line, and nothing is made;
#   2. a whole run: a training run that completes, the postmaster's
#      profile (the largest of all per-process files: BOLT 15's counters
#      are shared across fork), coverage > 0 and both dyno-stats blocks in
#      OUT/pgopt-build.json, the suites (core and contrib) pass against
#      the rewritten binary;
#   3. inspect and verify read the pgopt records of the rewritten binary;
#   4. a rerun reuses the profile (no instrument, no training), with
#      other layout flags (--bolt-flags: shown, recorded, given to BOLT);
#   5. a changed input binary: a --profile trained on the old one is
#      refused, and without --profile the kept one is called stale and
#      trained again - and a training run that crashes (a backend killed
#      with SIGSEGV, as BOLT 15's call instrumentation makes them die)
#      fails naming the server log's line, leaving no server behind.
. "$(dirname "$0")/lib.sh"
P=$B/bin/pgbuild
unset PGOPT_POLICY PGOPT_LOGDIR PGOPT_PREFIX PGBUILD_BOLT
[ -x /usr/lib/llvm-15/bin/llvm-bolt ] ||
	skip_all "BOLT 15 is not installed (Debian's bolt-15 package: make deps)"

t00=$(date +%s)
ready=$(e2e_build coscup "$E2E_CANDIDATE_POLICY") || { tap_result 1 "BOLT-ready build"; done_testing; }
base=$(e2e_build base none) || { tap_result 1 "baseline build"; done_testing; }
diag "builds ready in $(($(date +%s) - t00)) s"
dir=$(e2e_dir bolt-run)
rm -rf "$dir"
mkdir -p "$dir"
chmod 755 "$dir"
out=$dir/out
wd=$dir/work
cd "$TMP" || exit 1
json() { # FILE PERL-EXPR: print the expression over the decoded file ($j)
	perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; my $j = decode_json(<$f>);
		my $r = eval $ARGV[1]; die $@ if $@; print defined $r ? $r : "undef"' "$1" "$2"
}

# 1. the baseline is not BOLT-ready
"$P" bolt --install "$base" --prefix "$dir/base-out" >out 2>err
is "the baseline build is refused: exit 2" "$?" 2
like "... it has no relocations and .cold fragments" "$(cat err)" "is not BOLT-ready: it has no code relocations .* and gcc split [0-9]+ functions into \.cold fragments"
like "... naming the policy line" "$(cat err)" 'build it with a policy that has "bolt = ready" in \[global\]'
ok "... and nothing is made" test ! -e "$dir/base-out" -a ! -e "$dir/base-out.bolt"

# 2. the whole run
t0=$(date +%s)
e2e_heavy "$P" bolt --install "$ready" --prefix "$out" --workdir "$wd" -T 5 --contrib \
	--json "$dir/bolt.json" >run1.out 2>run1.err
s=$?
t1=$(date +%s)
is "bolt: exit 0" "$s" 0
[ $s = 0 ] || diag "$(tail -30 run1.err)" "$(tail -10 run1.out)"
diag "pgbuild bolt -T 5 (instrument, train, optimize, installcheck): $((t1 - t0)) s"
diag "$(grep -E '^\[[0-9]/4\]' run1.err)"
for st in instrument train optimize regress; do
	like "a progress line per step: $st" "$(cat run1.err)" "\[[1-4]/4\] $st +done in "
done
like "the suite ran against the rewritten binary" "$(cat run1.err)" "installcheck against a server from $out "
like "... and passed" "$(cat run1.out)" 'core: ([0-9]+) tests, \1 passed, 0 failed'
like "... contrib's too" "$(cat run1.out)" 'contrib: ([0-9]+) tests, \1 passed, 0 failed \([0-9]+ suites\)'
R=$out/pgopt-build.json
ok "OUT has its record" test -s "$R"
is "the record's prefix is OUT" "$(json "$R" '$j->{prefix}')" "$out"
like "coverage > 0" "$(json "$R" '$j->{bolt}{coverage}{functions_with_profile}')" '^[1-9][0-9]+$'
like "... of thousands of functions" "$(json "$R" '$j->{bolt}{coverage}{functions}')" '^[0-9]{4,}$'
like "dyno-stats before" "$(json "$R" '$j->{bolt}{dyno_stats}{before}{executed_instructions}')" '^[1-9][0-9]+$'
like "dyno-stats after" "$(json "$R" '$j->{bolt}{dyno_stats}{after}{taken_branches}')" '^[1-9][0-9]+$'
like "... fewer taken branches (BOLT's own figure)" "$(json "$R" '$j->{bolt}{dyno_stats}{change_percent}{taken_branches}')" '^-[0-9]'
is "the profile was trained, not reused" "$(json "$R" '$j->{bolt}{profile}{reused} ? 1 : 0')" 0
is "... on the default workloads" "$(json "$R" 'join ",", @{$j->{bolt}{profile}{workloads}}')" "select-only,tpcb"
is "... 5 s each" "$(json "$R" '$j->{bolt}{profile}{duration}')" 5
is "the suite's result is in the record" "$(json "$R" '$j->{bolt}{regress}{mode} . " " . ($j->{bolt}{regress}{ok} ? "ok" : "failed")')" "installcheck ok"
is "... checked" "$(json "$R" '$j->{bolt}{checked} ? 1 : 0')" 1
is "BOLT flipped the build-id's last bit (noted)" "$(json "$R" '$j->{bolt}{layout}{build_id_patched} ? 1 : 0')" 1
like "times per step" "$(json "$R" 'join " ", map { $j->{bolt}{seconds}{$_} > 0 ? "ok" : "no" } qw(instrument train optimize regress)')" '^ok ok ok ok$'
isnt_sha=$(json "$R" '$j->{bolt}{input}{sha256} ne $j->{bolt}{output}{sha256} ? 1 : 0')
is "the output is another binary than the input" "$isnt_sha" 1
is "--json holds the same bolt object" "$(json "$dir/bolt.json" '$j->{coverage}{functions_with_profile}')" "$(json "$R" '$j->{bolt}{coverage}{functions_with_profile}')"
is "the rewritten postgres is mode 755 (BOLT writes 0777)" "$(stat -c %a "$out/bin/postgres")" 755
ok "... and BOLT's" sh -c "readelf -S '$out/bin/postgres' | grep -q note.bolt_info"
nok "the input prefix is untouched (never in place)" sh -c "readelf -S '$ready/bin/postgres' | grep -q note.bolt_info"
# the profile is the postmaster's, the largest of the per-process snapshots
M=$wd/profile.fdata.json
pm=$(json "$M" '$j->{postmaster_pid}')
ok "the postmaster wrote a profile" test -s "$wd/prof/prof.$pm.fdata"
ok "... the kept one" cmp -s "$wd/prof/prof.$pm.fdata" "$wd/profile.fdata"
sums=$(for f in "$wd"/prof/*.fdata; do
	awk -v n="${f##*/}" '{ s += $NF } END { printf "%s %.0f\n", n, s }' "$f"; done | sort -k2,2n)
diag "count sums per process:" "$sums"
is "... with the largest count sum of all $(echo "$sums" | wc -l) files" "$(echo "$sums" | tail -n 1 | cut -d' ' -f1)" "prof.$pm.fdata"
nok "the training server log has no crash" grep -Eq 'terminated by signal|PANIC' "$wd/logs/train-server.log"
ok "no training copy is left" test ! -e "$wd/train-prefix" -a ! -e "$wd/postgres.inst"

# 3. the pgopt records survive the rewrite
"$P" inspect "$ready/bin/postgres" --units >in.units 2>&1
"$P" inspect "$out/bin/postgres" --units >out.units 2>&1
is "inspect reads the rewritten binary: exit 0" "$?" 0
ok "... the same units as the input's" cmp -s in.units out.units
like "... backend units among them" "$(cat out.units)" 'src/backend/access/nbtree/nbtree.c'
"$P" verify --install "$out" >verify.out 2>&1
is "verify of OUT: exit 0" "$?" 0
like "... every object checked" "$(cat verify.out)" 'verify: OK: [0-9]+ objects of postgres checked'

is "the record names the default layout flags" "$(json "$R" '$j->{bolt}{optimize_flags}')" \
	"-reorder-blocks=ext-tsp -reorder-functions=hfsort+ -split-functions -split-all-cold -split-eh -icf=1 -use-gnu-stack -dyno-stats"

# 4. a rerun reuses the profile, with other layout flags (the profile does
#    not depend on them)
flags="-reorder-blocks=ext-tsp -reorder-functions=none -split-functions"
"$P" bolt --install "$ready" --prefix "$out" --workdir "$wd" -T 5 --no-regress \
	--bolt-flags "$flags" >run2.out 2>run2.err
is "rerun: exit 0" "$?" 0
like "... reuses the profile, saying so" "$(cat run2.err)" "reusing the profile $wd/profile.fdata"
like "... no instrumentation" "$(cat run2.err)" 'instrument skipped: the profile is reused'
is "... the record says reused" "$(json "$R" '$j->{bolt}{profile}{reused} ? 1 : 0')" 1
is "... --no-regress: not checked" "$(json "$R" '$j->{bolt}{checked} ? 1 : 0')" 0
like "--bolt-flags: the optimize line shows them" "$(cat run2.err)" "\\[3/4\\] optimize +llvm-bolt -data=$wd/profile.fdata $flags -> "
is "... the record names them" "$(json "$R" '$j->{bolt}{optimize_flags}')" "$flags"
like "... BOLT ran with them, and with -dyno-stats added" "$(head -n 1 "$wd/logs/optimize.log")" " -data=$wd/profile.fdata $flags -dyno-stats\$"
like "... no function reordering: BOLT printed no hfsort+ line" "$(grep -c 'hfsort' "$wd/logs/optimize.log")" '^0$'
like "... its dyno-stats still parsed" "$(json "$R" '$j->{bolt}{dyno_stats}{after}{taken_branches}')" '^[1-9][0-9]+$'

# 5. a changed input: stale
cp -a "$ready" "$dir/changed"
printf 'x' >>"$dir/changed/bin/postgres"   # same code, another sha256
"$P" bolt --install "$dir/changed" --prefix "$dir/out2" --profile "$wd/profile.fdata" --no-regress >run3.out 2>run3.err
is "a --profile of the old binary: exit 2" "$?" 2
like "... refused as stale" "$(cat run3.err)" "--profile $wd/profile.fdata is stale: the input binary changed"
# without --profile: trained again; kill a backend of the training server
"$P" bolt --install "$dir/changed" --prefix "$dir/out2" --workdir "$wd" -T 5 --no-regress >run4.out 2>run4.err &
bp=$!
killed=$(e2e_segv_backend "$wd/train-prefix/bin/postgres -D" '\[local\]' $bp)
wait $bp
s=$?
ok "a backend of the training server was killed with SIGSEGV" test -n "$killed"
like "the changed input made the kept profile stale: one line" "$(cat run4.err)" "the kept profile $wd/profile.fdata is stale: the input binary changed \(sha256 [0-9a-f]{12}\.\.\. now, [0-9a-f]{12}\.\.\. when trained\): training again"
is "the crashed training: exit 2" "$s" 2
like "... named with the server log's line" "$(cat run4.err)" "the training run crashed: .*server process \(PID $killed\) was terminated by signal 11"
like "... and where the log is" "$(cat run4.err)" "server log: $wd/logs/train-server.log"
ok "... no OUT" test ! -e "$dir/out2"
ok "... no server left" sh -c "! pgrep -f '$wd/train-prefi[x]/bin/postgres'"
ok "... no training copy left" test ! -e "$wd/train-prefix"
diag "80-bolt.t: $(($(date +%s) - t0)) s after the builds"
done_testing
