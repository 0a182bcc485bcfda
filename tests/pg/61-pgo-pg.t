#!/bin/bash
# 61-pgo-pg.t - pgbuild pgo and pgbuild profile --method gcov on
# PostgreSQL 15, with perf absent from PATH.
#
# To stay within CI's budget this is the suite's ONE extra instrumented
# build, and it is scoped: --files instruments (and then optimizes with the
# profile) the memory-context, hash table, nbtree and lwlock units only;
# every other object is a ccache hit of the shared baseline build (so the
# policy has no hot or cold list: a list loads the plugin into every
# compile, and then nothing would be a hit; the lists are checked on the
# shared candidate build, tests/pg/31), and the -fprofile-use build is an
# incremental rebuild of the same build tree.
#   1. pgbuild pgo --instrument-only: the instrumented install;
#   2. pgbuild profile on it with no perf on PATH: gcov counts rank the
#      known hot functions of those units;
#   3. pgbuild pgo (same options) trains on select-only (--train), builds with
#      -fprofile-use -fprofile-partial-training, runs the regression
#      suite: it must pass;
#   4. the profile-use flags and the profile's placement are in the binary
#      (pgbuild inspect); a second run reuses the profiles; touching a
#      source reports that unit's profile as stale.
. "$(dirname "$0")/lib.sh"
P=$B/bin/pgbuild
unset PGOPT_POLICY PGOPT_LOGDIR PGOPT_PREFIX

base=$(e2e_build base none) || { ok "baseline build (fills ccache)" false; done_testing; }
src=$(e2e_src)
# (pgo-scoped-2: the build tree of pgo-scoped was handed to the server user
# by earlier versions of pgbuild, and is now refused as such)
dir=$(e2e_dir pgo-scoped-2)
mkdir -p "$dir"
chmod 755 "$dir"
cd "$TMP" || exit 1

# PATH without perf: every other command of /usr/bin and /bin stays
mkdir nobin
for d in /usr/local/bin /usr/bin /bin /usr/sbin /sbin; do
	for f in "$d"/*; do
		n=${f##*/}
		[ "$n" = perf ] || [ -e "nobin/$n" ] || ln -s "$f" "nobin/$n"
	done
done
NOPERF=$TMP/nobin
ok "perf is absent from the test PATH" sh -c "! PATH=$NOPERF command -v perf"

printf '# pgo test policy: nothing but what pgo adds\n[global]\n' > "$dir/pgo.policy"
FILES=(--files 'src/backend/utils/{mmgr,hash}/*.c' --files 'src/backend/access/nbtree/*.c'
	--files 'src/backend/storage/lmgr/lwlock.c')
PGO=("$P" pgo --src "$src" --prefix "$dir/prefix" --builddir "$dir/build" --policy "$dir/pgo.policy"
	"${FILES[@]}" --train select-only --clients 2 --duration 10
	${PGOPT_E2E_JOBS:+--jobs "$PGOPT_E2E_JOBS"})

# 1. the instrumented install
t0=$(date +%s)
e2e_heavy env PATH="$NOPERF" "${PGO[@]}" --instrument-only >pgo1.out 2>pgo1.err
s=$?
is "pgo --instrument-only: exit 0" "$s" 0
[ $s = 0 ] || diag "$(tail -30 pgo1.err)"
diag "instrumented build: $(($(date +%s) - t0)) s"
like "it says how to profile it" "$(cat pgo1.out)" 'pgbuild profile --install .* --method gcov'
like "the record says instrumented" "$(cat "$dir/prefix/pgopt-build.json")" '-fprofile-generate -ftest-coverage'
ok "the scoped units have coverage notes" test -f "$dir/build/src/backend/utils/hash/dynahash.gcno"
ok "... the others not" test ! -e "$dir/build/src/backend/tcop/postgres.gcno"

# 2. gcov profile, perf absent
out=$(e2e_heavy env PATH="$NOPERF" "$P" profile --install "$dir/prefix" --workload select-only \
	--duration 5 --top 15 --emit-policy gcov.policy --json gcov.json -q 2>prof.err)
s=$?
is "profile without perf picks gcov and works: exit 0" "$s" 0
[ $s = 0 ] || diag "$(tail -20 prof.err)"
like "method gcov" "$out" '^gcov: [0-9]+ line executions'
diag "$(printf '%s\n' "$out" | head -18)"
top=$(printf '%s\n' "$out" | awk '/^rank/{n++; next} n==1 && NF>=5 {print $4}')
known=0
for f in hash_search_with_hash_value AllocSetAlloc _bt_compare LWLockAcquire LWLockRelease \
	palloc AllocSetFree pfree hash_bytes _bt_checkkeys MemoryContextAlloc _bt_binsrch; do
	printf '%s\n' "$top" | grep -qx "$f" && known=$((known + 1))
done
ok "known hot functions rank in the top 15 by gcov counts ($known)" test $known -ge 3
ok "the gcov policy names real files" sh -c "for f in \$(sed -nE 's/^\\[(src\\/[^]]*)\\]\$/\\1/p' gcov.policy); do test -f '$src'/\$f || exit 1; done"

# 2b. the regression suite as a workload (training breadth, issue 25): its
# installcheck runs against the profiled server itself, so its counts are
# this server's; it reaches functions select-only never calls
out=$(e2e_heavy env PATH="$NOPERF" "$P" profile --install "$dir/prefix" --workload regress \
	--top 15 --json gcov-regress.json 2>prof-regress.err)
s=$?
is "profile --workload regress (the core suite as the workload): exit 0" "$s" 0
[ $s = 0 ] || diag "$(tail -20 prof-regress.err)"
like "... the suite ran against the profiled server and passed" "$out" \
	'regress: the core suite passed \([0-9]+ s\)'
like "... installcheck against that running server" "$(cat prof-regress.err)" \
	'regress: installcheck against the running server from '
only=$(perl -MJSON::PP -e 'sub names { open my $f, "<", $_[0] or die "$_[0]: $!\n";
		local $/; my $d = decode_json(<$f>);
		return map { $_->{name} => 1 } grep { $_->{weight} > 0 } @{ $d->{functions} } }
	my %s = names($ARGV[0]); my %r = names($ARGV[1]);
	print scalar(grep { !$s{$_} } keys %r), " ", scalar(keys %s), " ", scalar(keys %r), "\n"' \
	gcov.json gcov-regress.json)
diag "functions with counts: regress has $only (only in regress, select-only's, regress's)"
ok "the suite's profile has functions select-only's lacks (${only%% *}, at least 20)" \
	test "${only%% *}" -ge 20
err=$("$P" profile --install "$dir/prefix" --workload regres 2>&1)
is "a misspelt workload is refused before anything runs: exit 2" "$?" 2
like "... naming it" "$err" 'unknown workload "regres"'

# 3. the PGO build: train, -fprofile-use, regression suite
t0=$(date +%s)
e2e_heavy env PATH="$NOPERF" "${PGO[@]}" --retrain >pgo2.out 2>pgo2.err
s=$?
is "pgo: exit 0 (built, trained, regression suite passed)" "$s" 0
[ $s = 0 ] || diag "$(tail -40 pgo2.err)"
diag "pgo train + use build + regress: $(($(date +%s) - t0)) s"
like "summary line" "$(cat pgo2.out)" 'pgo: OK: trained on select-only \(now\), [0-9]+ profile data files.*regression suite passed'
like "the regression suite ran on it" "$(cat pgo2.out pgo2.err)" 'regress: PASSED'
R=$dir/prefix/pgopt-pgo.json
like "record: trained now, regress passed" "$(cat "$R")" '"trained_now":true.*"regress":"passed"'
ok "profiles are kept in the build tree" test -f "$dir/build/src/backend/utils/hash/dynahash.gcda"
like "the use stage gets the profile flags for the scoped files from PGOPT_PROFILE (its policy says so)" \
	"$(cat "$dir/build/pgo-use.policy")" \
	'PGOPT_PROFILE=use src/backend/utils/\{mmgr,hash\}/\*\.c src/backend/access/nbtree/\*\.c src/backend/storage/lmgr/lwlock\.c'
ok "... and names no profile flag itself (the vocabulary refuses them)" \
	sh -c "! grep -q '^cflags.*-fprofile' '$dir/build/pgo-use.policy'"
like "dynahash.c was compiled with -fprofile-use (its record in the binary)" \
	"$("$P" inspect --json - --tu src/backend/utils/hash/dynahash.c "$dir/prefix/bin/postgres")" \
	'"added":\[[^]]*"-fprofile-use"'
# verify replays the compiles with the profile mode the build recorded
# (its environment), so the profile flags are expected, not EXTRA
like "the build record keeps PGOPT_PROFILE" "$(cat "$dir/prefix/pgopt-build.json")" \
	'"PGOPT_PROFILE":"use src/backend/utils/'
"$P" verify --install "$dir/prefix" >verify.out 2>&1
s=$?
is "verify of the -fprofile-use build: exit 0" "$s" 0
[ $s = 0 ] || diag "$(grep -v '^ok' verify.out | head -20)"
like "... with the profile flags expected" "$(cat verify.out)" 'verify: OK'
j=$("$P" inspect --json - --function hash_search_with_hash_value "$dir/prefix/bin/postgres")
# (in the linked executable .text.hot is merged into .text: the record says where GCC put it)
like "the profile made GCC place hash_search_with_hash_value in .text.hot" "$j" '"section":".text.hot'
# outside --files nothing is added: tcop/postgres.c's last compile went
# through unchanged (no record, no profile flag), as in the baseline
ok "tcop/postgres.c (outside --files): compiled unchanged, without a profile flag" \
	perl -MJSON::PP -ne '$r = eval { decode_json($_) } or next;
		$last = $r if $r->{kind} eq "compile" && ($r->{tu} // "") eq "src/backend/tcop/postgres.c";
		END { die "no compile of tcop/postgres.c\n" unless $last;
			die "changed\n" if $last->{changed};
			die "profile flag\n" if grep { /-fprofile/ } @{$last->{argv_out} // $last->{argv_in}}; }' \
	"$dir/build/pgopt-log/compile.jsonl"
nok "... and it has no plugin record" "$P" inspect --tu src/backend/tcop/postgres.c "$dir/prefix/bin/postgres"
ok "the install runs" "$dir/prefix/bin/postgres" --version

# 4. reuse and staleness (no training, incremental): a changed source is
# simulated in the manifest's recorded hash, not in the shared source tree
perl -0pi -e 's/("src\/backend\/access\/nbtree\/nbtsearch\.c":")[0-9a-f]+"/${1}0000000000000000"/' \
	"$dir/build/pgopt-pgo.json"
e2e_heavy env PATH="$NOPERF" "${PGO[@]}" --no-regress >pgo3.out 2>pgo3.err
is "second pgo: exit 0" "$?" 0
like "it reuses the profiles" "$(cat pgo3.err)" 'reusing the profiles'
like "the stale unit is reported" "$(cat pgo3.err)" 'changed since the training.*src/backend/access/nbtree/nbtsearch.c'
like "summary: reused, one stale" "$(cat pgo3.out)" '\(reused\).* 1 stale'
like "the record lists it" "$(cat "$R")" '"stale":\["src/backend/access/nbtree/nbtsearch.c"\]'
ok "its profile was dropped" test ! -e "$dir/build/src/backend/access/nbtree/nbtsearch.gcda"
ok "the others are kept" test -f "$dir/build/src/backend/utils/hash/dynahash.gcda"
done_testing
