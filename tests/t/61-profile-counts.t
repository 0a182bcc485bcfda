#!/bin/bash
# 61-profile-counts.t - pgbuild profile --no-run on a tiny instrumented
# "install": real pgoptcc compiles with the instrumentation policy (its own
# compile log), a real program named postgres that writes .gcda counts (and
# perf samples, where perf works), then gcov counts and perf samples ranked
# and attributed to the right translation units, seconds instead of a
# PostgreSQL build.
. "$(dirname "$0")/../lib/tap.sh"
P=$B/bin/pgbuild
unset PGOPT_POLICY PGOPT_LOGDIR PGOPT_PREFIX
cd "$TMP" || exit 1
command -v gcov >/dev/null || skip_all "gcov is not installed"

# a source tree shaped like PostgreSQL's, built out of tree
mkdir -p src/src/backend/utils/hash src/src/backend/tcop src/src/bin/psql \
	build/src/backend/utils/hash build/src/backend/tcop build/src/bin/psql prefix/bin
touch src/configure
cat > src/src/backend/utils/hash/dynahash.c <<'C'
unsigned hash_search_with_hash_value(unsigned k)
{
	unsigned h = k;
	for (int i = 0; i < 64; i++)
		h = h * 31 + (h >> 7) + (unsigned)i;
	return h;
}
unsigned never_called(unsigned k) { return k * 3; }
C
cat > src/src/backend/tcop/postgres.c <<'C'
unsigned hash_search_with_hash_value(unsigned k);
static unsigned small_work(unsigned x) { return x ^ (x << 3); }
int main(int argc, char **argv)
{
	unsigned s = 0;
	long n = argc > 1 ? 20000000L : 200000L;
	for (long i = 0; i < n; i++)
		s += hash_search_with_hash_value((unsigned)i) + (i % 16 == 0 ? small_work(s) : 0);
	return (int)(s & 1) + (argv[0][0] == 0);
}
C
echo 'int psql_main(void) { return 0; }' > src/src/bin/psql/command.c
# the profile flags come from the caller's PGOPT_PROFILE, as pgbuild pgo
# gives them (a policy may not name them); the policy says so, as pgo's do
printf '# PGOPT_PROFILE=generate adds -fprofile-generate -ftest-coverage\n[global]\nplugin = off\n' > instr.policy
export PGOPT_POLICY=$TMP/instr.policy PGOPT_LOGDIR=$TMP/build/pgopt-log PGOPT_ROOT=$TMP/src
export PGOPT_PROFILE=generate
for u in backend/utils/hash/dynahash backend/tcop/postgres bin/psql/command; do
	(cd "build/src/$(dirname $u)" && "$B/bin/pgoptcc" gcc -O2 -c "$TMP/src/src/$u.c" -o "$(basename $u).o")
	is "instrumented compile of $u.c" "$?" 0
done
(cd build/src/backend && "$B/bin/pgoptcc" gcc -O2 -o "$TMP/prefix/bin/postgres" tcop/postgres.o utils/hash/dynahash.o)
is "instrumented link" "$?" 0
unset PGOPT_POLICY PGOPT_LOGDIR PGOPT_ROOT PGOPT_PROFILE
ok "the link got -fprofile-generate" grep -q '"kind":"link".*"added":\["-fprofile-generate"\]' build/pgopt-log/compile.jsonl
cat > prefix/pgopt-build.json <<J
{"builddir":"$TMP/build","policy":{"path":"$TMP/instr.policy","content":"$(tr '\n' ' ' < instr.policy)"}}
J

# the "workload": run the program; the counts land next to the objects
prefix/bin/postgres
ok "counts were written next to the objects" test -f build/src/backend/utils/hash/dynahash.gcda

out=$("$P" profile --install "$TMP/prefix" --method gcov --no-run --top 5 --json g.json \
	--emit-policy g.policy --emit-hotlist g.hot --emit-coldlist g.cold 2>err.txt)
s=$?
is "gcov --no-run: exit 0" "$s" 0
[ $s = 0 ] || diag "$(cat err.txt)"
like "method and unit" "$out" '^gcov: [0-9]+ line executions'
first=$(printf '%s\n' "$out" | awk '/^rank/{n++; next} n==1 && NF>=5 {print $4, $5; exit}')
is "the hottest function by counts, in its unit" "$first" \
	"hash_search_with_hash_value src/backend/utils/hash/dynahash.c"
like "the counts are exact: 200000 calls x 64 iterations dominate" \
	"$(grep -o '"name":"hash_search_with_hash_value"[^}]*' g.json)" '"weight":[0-9.e+]{6,}'
nok "front-end units are not server code" grep -q 'src/bin/psql' g.policy
like "the policy's first file is dynahash.c" "$(grep -m1 '^\[src' g.policy)" '^\[src/backend/utils/hash/dynahash.c\]$'
is "the hot list starts with it" "$(head -1 g.hot)" hash_search_with_hash_value
like "the never-executed function is cold" "$(cat g.cold)" 'never_called'
nok "the executed ones are not" grep -qx hash_search_with_hash_value g.cold
# --no-run does not touch the counts
ok "the counts are still there" test -f build/src/backend/utils/hash/dynahash.gcda

err=$("$P" profile --install "$TMP/prefix" --no-run 2>&1 >/dev/null)
like "--no-run needs a method" "$err" '--no-run needs --method perf or gcov'
err=$("$P" profile --install "$TMP/prefix" --method perf --no-run 2>&1 >/dev/null)
if command -v perf >/dev/null; then
	like "--no-run perf needs --perf-data" "$err" '--no-run with --method perf needs --perf-data'
else
	skip "perf is not installed: --no-run --method perf stops earlier"
fi

# perf samples of the same program, attributed through the objects
if command -v perf >/dev/null && perf record -q -e cpu-clock -o p.data -- true 2>/dev/null; then
	perf record -q -e cpu-clock -F 2000 -o p.data -- prefix/bin/postgres long 2>/dev/null
	out=$("$P" profile --install "$TMP/prefix" --method perf --no-run --perf-data p.data --top 3 2>err.txt)
	is "perf --no-run: exit 0" "$?" 0
	first=$(printf '%s\n' "$out" | awk '/^rank/{n++; next} n==1 && NF>=5 {print $4, $5; exit}')
	is "perf: the hottest function, in its unit" "$first" \
		"hash_search_with_hash_value src/backend/utils/hash/dynahash.c"
else
	skip "perf cpu-clock sampling does not work here: no perf profile to attribute" 2
fi
done_testing
