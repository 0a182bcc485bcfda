#!/bin/bash
# 60-profile.t - pgbuild profile, pgo and sensitivity without building
# PostgreSQL: option errors (each names the option), --help, the profiler
# choice (no perf and no instrumented build is an error, gcov needs an
# instrumented build), a real perf profile of Debian's installed server on
# select-only (when perf works here), and policies/lists re-emitted from a
# saved profile, checked by the real wrapper on a real compile.
# tap: alone (it times something: make check runs it by itself, tests/tests.mk)
. "$(dirname "$0")/../lib/tap.sh"
P=$B/bin/pgbuild
unset PGOPT_POLICY PGOPT_LOGDIR PGOPT_PREFIX
cd "$TMP" || exit 1
DEB=/usr/lib/postgresql/15

for c in profile pgo sensitivity; do
	out=$("$P" $c --help)
	like "$c --help" "$out" "^usage: pgbuild $c"
done
like "profile --help names the methods" "$("$P" profile --help)" 'perf.*gcov'

err_is() { # title expected-regex command...
	local t=$1 re=$2
	shift 2
	local out s
	out=$("$@" 2>&1 >/dev/null)
	s=$?
	is "$t: exit 2" "$s" 2
	like "$t: message" "$out" "$re"
}
err_is "profile without --install" '--install \(or --from\) is required' "$P" profile
err_is "profile --method bogus" 'invalid value "bogus" for --method: expected auto, perf or gcov' \
	"$P" profile --install "$DEB" --method bogus
err_is "profile --coverage 0" '--coverage: expected a percentage' "$P" profile --install x --coverage 0
err_is "profile --coverage 150" '--coverage: expected a percentage.*"150"' "$P" profile --install x --coverage 150
err_is "profile --clients x" '--clients: expected an integer' "$P" profile --install x --clients x
err_is "profile --from and --install" '--from and --install exclude each other' \
	"$P" profile --install x --from y
err_is "profile --set without =" '--set: expected NAME=VALUE' "$P" profile --install x --set foo
err_is "profile of a missing install" 'no executable' "$P" profile --install "$TMP/none" --method perf
err_is "profile --from a missing file" 'nofile.json' "$P" profile --from "$TMP/nofile.json"
echo '{"method":"perf"}' > bad.json
err_is "profile --from a non-profile" 'not a pgbuild profile' "$P" profile --from bad.json
err_is "pgo without --prefix" '--prefix is required' "$P" pgo
err_is "pgo --baseline without --gate" '--baseline and --gate go together' \
	"$P" pgo --prefix x --baseline y
err_is "pgo --duration 0" 'invalid value "0" for --duration: expected a number of seconds > 0' \
	"$P" pgo --prefix x --duration 0
err_is "pgo --files with a bracket" '--files: expected a policy glob' "$P" pgo --prefix x --files 'a]'
err_is "pgo --policy missing" '--policy "nope.policy": No such file or directory' "$P" pgo --prefix x --policy nope.policy
err_is "pgo with a misspelt workload, before any build" 'unknown workload "selectonly"' \
	"$P" pgo --prefix "$TMP/w/prefix" --train tpcb,selectonly
ok "... and nothing was created" test ! -e "$TMP/w"
err_is "profile --workload sql:FILE of a missing file" 'cannot read script "nofile.sql"' \
	"$P" profile --install x -W sql:nofile.sql
err_is "sensitivity --metric bogus" '--metric: expected tps, instructions or cycles' \
	"$P" sensitivity --metric bogus
err_is "sensitivity --pairs x" 'invalid value "x" for --pairs: expected an integer from 6 to 1000' \
	"$P" sensitivity --pairs x

# ---- the profiler choice ----
if [ -x "$DEB/bin/postgres" ]; then
	err_is "gcov on a build that is not instrumented" 'not an instrumented build' \
		"$P" profile --install "$DEB" --method gcov
	# no perf on PATH and no instrumented build: say what to do
	err_is "auto without perf and without instrumentation" \
		'no profiler: perf is not installed.*pgbuild pgo' \
		env PATH=/nonexistent "$P" profile --install "$DEB"
	err_is "--method perf without perf" '--method perf: perf is not installed' \
		env PATH=/nonexistent "$P" profile --install "$DEB" --method perf
else
	skip "Debian's PostgreSQL ($DEB) is not installed: no errors about a real install" 6
fi

# ---- a real profile: Debian's server on select-only, perf cpu-clock ----
perf_ok=0
if command -v perf >/dev/null && perf record -q -e cpu-clock -o "$TMP/p.data" -- true 2>/dev/null; then
	perf_ok=1
fi
if [ $perf_ok = 1 ] && [ -x "$DEB/bin/postgres" ] && id postgres >/dev/null 2>&1; then
	out=$("$P" profile --install "$DEB" --workload select-only --duration 5 --top 25 \
		--json deb.json --emit-hotlist deb.hot -q 2>err.txt)
	s=$?
	is "perf profile of select-only: exit 0" "$s" 0
	[ $s = 0 ] || diag "$(cat err.txt)"
	like "it reports the workload's throughput" "$out" 'select-only: [0-9]+ tps'
	like "it reports the share in the server binary" "$out" '^perf: [0-9]+ samples, [0-9.]+% in the server binary'
	top=$(printf '%s\n' "$out" | awk '/^rank/{n++} n==1 && $1 ~ /^[0-9]+$/ {print $4}')
	known=0
	for f in hash_search_with_hash_value _bt_compare AllocSetAlloc SearchCatCache1 \
		LWLockAcquire LWLockRelease GetSnapshotData palloc PostgresMain \
		heap_hot_search_buffer hash_bytes ExecInterpExpr; do
		printf '%s\n' "$top" | grep -qx "$f" && known=$((known + 1))
	done
	ok "several known hot functions in the top 25 ($known)" test $known -ge 3
	like "the JSON has functions with weights" "$(head -c 600 deb.json)" '"method":"perf".*"functions":\[\{"name":'
	like "the hot list names C functions" "$(cat deb.hot)" '(hash_search_with_hash_value|_bt_compare)'
	nok "the hot list has no kernel or unresolved symbols" grep -Eq '^\[|^0x|\.isra|finish_task_switch' deb.hot
	ok "--from re-reads the saved profile" "$P" profile --from deb.json --top 5
else
	skip "perf cpu-clock sampling or Debian's PostgreSQL (with user postgres) unavailable: no live profile" 8
fi

# ---- policies from a saved profile, applied by the real wrapper ----
cat > saved.json <<'J'
{"method":"perf","total":1000,"server":600,"attributed":560,"functions":[
{"name":"hash_search_with_hash_value","dso":"postgres","tu":"src/backend/utils/hash/dynahash.c","weight":200,"share":0.2,"server":true},
{"name":"_bt_compare","dso":"postgres","tu":"src/backend/access/nbtree/nbtsearch.c","weight":150,"share":0.15,"server":true},
{"name":"AllocSetAlloc.part.0","dso":"postgres","tu":"src/backend/utils/mmgr/aset.c","weight":100,"share":0.1,"server":true},
{"name":"hash_search","dso":"postgres","tu":"src/backend/utils/hash/dynahash.c","weight":60,"share":0.06,"server":true},
{"name":"pq_getbyte","dso":"postgres","tu":"src/backend/libpq/pqcomm.c","weight":50,"share":0.05,"server":true},
{"name":"[unknown]","dso":"postgres","tu":null,"weight":40,"share":0.04,"server":true},
{"name":"finish_task_switch.isra.0","dso":"[kernel.kallsyms]","tu":null,"weight":400,"share":0.4,"server":false}]}
J
out=$("$P" profile --from saved.json --coverage 80 --hot-coverage 60 \
	--emit-policy gen.policy --emit-hotlist gen.hot 2>err.txt)
is "emit from a saved profile: exit 0" "$?" 0
like "the file table ranks dynahash first" "$(printf '%s\n' "$out" | awk '/funcs/{f=1;next} f&&NF{print $5; exit}')" \
	'^src/backend/utils/hash/dynahash.c$'
is "hot list: 60% of the server's 600 is three functions, C names" "$(cat gen.hot)" \
	"$(printf 'hash_search_with_hash_value\n_bt_compare\nAllocSetAlloc')"
is "policy: the three files covering 80% get the flags, in order" \
	"$(grep '^\[' gen.policy | tr '\n' ' ')" \
	"[global] [src/backend/utils/hash/dynahash.c] [src/backend/access/nbtree/nbtsearch.c] [src/backend/utils/mmgr/aset.c] "
like "policy: hot list next to it, relative" "$(cat gen.policy)" $'\nhot = gen.hot\n'
like "policy: default flags" "$(cat gen.policy)" 'cflags \+= -O3 -finline-functions'
"$P" profile --from saved.json --coverage 30 --cflags "-O2 -fno-semantic-interposition" \
	--emit-policy narrow.policy -q >/dev/null
is "--coverage 30: one file" "$(grep -c '^\[src' narrow.policy)" 1
like "--cflags is used" "$(cat narrow.policy)" 'cflags \+= -O2 -fno-semantic-interposition'
"$P" profile --from saved.json --coverage 100 --max-files 2 --emit-policy two.policy -q >/dev/null
is "--max-files 2 caps the files" "$(grep -c '^\[src' two.policy)" 2

# the wrapper accepts the policy and applies it to exactly those files
mkdir -p tree/src/backend/utils/hash tree/src/backend/libpq log
touch tree/configure
echo 'int hs(int x) { return x * 3; }' > tree/src/backend/utils/hash/dynahash.c
echo 'int pq(int x) { return x + 1; }' > tree/src/backend/libpq/pqcomm.c
(cd tree/src/backend/utils/hash && PGOPT_POLICY=$TMP/gen.policy PGOPT_LOGDIR=$TMP/log PGOPT_ROOT=$TMP/tree \
	"$B/bin/pgoptcc" gcc -O2 -c dynahash.c -o dynahash.o)
is "pgoptcc accepts the generated policy (hot file)" "$?" 0
(cd tree/src/backend/libpq && PGOPT_POLICY=$TMP/gen.policy PGOPT_LOGDIR=$TMP/log PGOPT_ROOT=$TMP/tree \
	"$B/bin/pgoptcc" gcc -O2 -c pqcomm.c -o pqcomm.o)
is "pgoptcc accepts the generated policy (other file)" "$?" 0
like "the hot file got -O3 -finline-functions" \
	"$(grep '"tu":"src/backend/utils/hash/dynahash.c"' log/compile.jsonl)" '"added":\["-O3","-finline-functions"\]'
like "... and the hot list reached the plugin" \
	"$(grep '"tu":"src/backend/utils/hash/dynahash.c"' log/compile.jsonl)" "pgopt-hot=$TMP/gen.hot"
like "the file outside the policy is untouched" \
	"$(grep '"tu":"src/backend/libpq/pqcomm.c"' log/compile.jsonl)" '"added":\[\]'

# ---- sensitivity: the watermark arithmetic on given installs (A/A) ----
. "$TOP/tests/lib/heavy.sh"
if [ -x "$DEB/bin/postgres" ] && command -v valgrind >/dev/null; then
	out=$(heavy "$P" sensitivity --workdir sens --low-install "$DEB" --high-install "$DEB" \
		--metric instructions --workload select1 --json sens.json -q 2>sens.err)
	s=$?
	is "sensitivity on given installs: exit 0" "$s" 0
	[ $s = 0 ] || diag "$(tail -20 sens.err)"
	like "one line per workload with the ratio and a verdict" "$out" \
		'^select1: -O3 / -O0 = 1\.00x \[1\.00, 1\.00\] \(instructions\): the workload barely moves'
	# an A/A: the ratio is 1 or within 1% below (JSON writes an exact 1 as "1")
	like "JSON watermarks" "$(cat sens.json)" '"kind":"pgbuild-sensitivity".*"name":"select1","high_vs_low":(0\.99[0-9]*|1|1\.00[0-9]*)[,}]'
	ok "the gate result is kept in the workdir" test -s sens/gate-high-vs-low.json
	ok "nothing was built" test ! -e sens/low
else
	skip "Debian's PostgreSQL ($DEB) or valgrind is not installed: no sensitivity run" 5
fi

done_testing
