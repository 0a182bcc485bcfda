#!/bin/bash
# 71-tune-options.t - `pgbuild tune` without PostgreSQL: every option error
# names the option and exits 2 before anything is built; unsafe candidates
# are refused with the wrapper's reasons; the generated start policies
# (--dry-run, and its plan as --json) are what pgoptcc accepts; a state
# file of another tune is refused.
. "$(dirname "$0")/../lib/tap.sh"
P=$B/bin/pgbuild

printf -- '-O3\n-fno-plt\n' >"$TMP/c2"
# option error table: args | message
while IFS='|' read -r args msg; do
	# shellcheck disable=SC2086
	"$P" tune --candidates "$TMP/c2" --workdir "$TMP/w" $args >"$TMP/o" 2>"$TMP/e"
	rc=$?
	is "tune $args: exit 2" "$rc" 2
	like "tune $args: says why" "$(cat "$TMP/e")" "$msg"
done <<'EOF'
--max-builds x|invalid value "x" for --max-builds
--max-builds -1|invalid value "-1" for --max-builds
--time-budget 1|--time-budget H is now --max-time TIME
--metric cycle|invalid value "cycle" for --metric
--pairs 0|invalid value "0" for --pairs
--budget 90s --metric tps|--budget is the sequential gate's \(--pairs auto\); the search's time limit is --max-time
--pairs auto --budget 0.5s --metric tps|invalid value "0.5s" for --budget: at least 1 second
--pairs auto|--pairs auto needs --metric tps
--tolerance 80|invalid value "80" for --tolerance
--start half|invalid value "half" for --start
--plugin maybe|invalid value "maybe" for --plugin
--scope a]b|invalid value "a]b" for --scope
--scope @/nonexistent/hot.txt|cannot read --scope file
--train tpcc-lite|--metric instructions supports
--workload select-only|--workload \(-W\) names the workloads a command judges a build on; this command's workloads are what it trains or searches on: --train LIST
--candidates /nonexistent|cannot read --candidates /nonexistent
--baseline /nonexistent|--baseline /nonexistent: no bin/postgres
--noise /nonexistent/floor.json|--noise /nonexistent/floor.json needs --baseline PREFIX, the stock build the floor was measured on
stray|unexpected argument "stray"
--bundle /nonexistent|/nonexistent is no profile bundle
--min-applies 120|invalid value "120" for --min-applies
EOF
ok "no directory was created by the failed runs" test ! -e "$TMP/w"

# unsafe candidates: refused with the reason, never in any policy
cat >"$TMP/mixed" <<'EOF'
# comment line
-O3
-ffast-math
-Ofast                      # trailing comment
-fno-wrapv
-fstrict-aliasing
-funsafe-math-optimizations
-fexcess-precision=fast
-ftrapv
-fno-plt
-O3
--param  max-inline-insns-auto=30
-march=native    -mno-avx512f
-flto
EOF
"$P" tune --dry-run --candidates "$TMP/mixed" >"$TMP/o" 2>"$TMP/e"
is "dry run: exit 0" "$?" 0
for f in -ffast-math -Ofast -fno-wrapv -fstrict-aliasing -funsafe-math-optimizations -fexcess-precision=fast -ftrapv; do
	like "refused $f" "$(cat "$TMP/e")" "refused candidate \"$f\""
	nok "$f is in no policy" grep -q -- "cflags.*$f" "$TMP/o"
done
like "duplicates are ignored" "$(cat "$TMP/e")" 'duplicate candidate "-O3"'
like "a two-word candidate is one candidate, blanks normalised" "$(cat "$TMP/o")" '  -march=native -mno-avx512f'
like "--param VALUE in two words: refused with a hint" "$(cat "$TMP/e")" 'write --param=NAME=VALUE as one word'
is "candidates kept" "$(sed -n 's/^candidates (\([0-9]*\), from .*):/\1/p' "$TMP/o")" 4
like "global scope: -flto becomes lto = on" "$(cat "$TMP/o")" 'lto = on'
like "train and held out: the defaults" "$(cat "$TMP/o")" '^train: select-only; held out: mixed \(the best is judged on it after the search\)$'
sed -n '/^start policy:/,$p' "$TMP/o" | tail -n +2 >"$TMP/start.policy"
ok "pgoptcc accepts the start policy" "$B/bin/pgoptcc" --pgopt-check-policy "$TMP/start.policy"

"$P" tune --dry-run --candidates "$TMP/mixed" --train tpcb --held-out select-only,mixed >"$TMP/o" 2>"$TMP/e"
like "--train and --held-out" "$(cat "$TMP/o")" '^train: tpcb; held out: select-only,mixed \('
"$P" tune --dry-run --candidates "$TMP/mixed" --train mixed >"$TMP/o" 2>"$TMP/e"
like "training on mixed leaves nothing held out by default, and says so" "$(cat "$TMP/e")" 'note: nothing held out: the search trains on mixed'
like "... held out: none" "$(cat "$TMP/o")" '^train: mixed; held out: none$'
"$P" tune --dry-run --candidates "$TMP/mixed" --held-out none >"$TMP/o" 2>"$TMP/e"
like "--held-out none" "$(cat "$TMP/o")" '^train: select-only; held out: none$'

"$P" tune --dry-run --candidates "$TMP/mixed" --scope 'src/backend/executor/*.c' >"$TMP/o" 2>"$TMP/e"
like "file scope: -flto refused (LTO is global)" "$(cat "$TMP/e")" 'refused candidate "-flto": LTO applies to the whole link'
like "file scope: the flags go into the scope's section" "$(cat "$TMP/o")" '\[src/backend/executor/\*\.c\]'
sed -n '/^start policy:/,$p' "$TMP/o" | tail -n +2 >"$TMP/start2.policy"
ok "pgoptcc accepts it" "$B/bin/pgoptcc" --pgopt-check-policy "$TMP/start2.policy"

printf 'src/backend/access/nbtree/nbtsearch.c\n# hot\nsrc/backend/executor/execMain.c  42%%\n' >"$TMP/hot.txt"
"$P" tune --dry-run --candidates "$TMP/c2" --scope "@$TMP/hot.txt" >"$TMP/o" 2>&1
like "@FILE scope: one section per listed file" "$(grep -c '^\[src/' "$TMP/o")" '^2$'

printf -- '-ffast-math\n-Ofast\n' >"$TMP/bad"
"$P" tune --dry-run --candidates "$TMP/bad" >"$TMP/o" 2>"$TMP/e"
is "only unsafe candidates: exit 2" "$?" 2
like "... nothing left to tune" "$(cat "$TMP/e")" 'no candidate flags left'

# a state file that belongs to another tune (--metric tps: the baseline has
# no layout floor, without which tune refuses the deterministic metrics
# first: tests/t/72)
mkdir -p "$TMP/w2"
printf '{"kind":"pgbuild-tune-state","version":1,"key":"workload=tpcb metric=tps","candidates":["-O3"]}\n' >"$TMP/w2/state.jsonl"
"$P" tune --candidates "$TMP/c2" --workdir "$TMP/w2" --baseline /usr/lib/postgresql/15 \
	--metric tps >"$TMP/o" 2>"$TMP/e"
is "foreign state: exit 2" "$?" 2
like "foreign state: refused" "$(cat "$TMP/e")" 'belongs to another tune'
# a layout floor that cannot be read, and one of another postgres
echo '{"postgres_sha256":' >"$TMP/bad-floor.json"
"$P" tune --candidates "$TMP/c2" --workdir "$TMP/w3" --baseline /usr/lib/postgresql/15 \
	--noise "$TMP/bad-floor.json" >"$TMP/o" 2>"$TMP/e"
is "malformed --noise: exit 2" "$?" 2
like "malformed --noise: the file and what was expected" "$(cat "$TMP/e")" \
	"^pgbuild: error: $TMP/bad-floor.json: not JSON: line 2, column 1: "
printf '{"postgres_sha256":"%064d","variants":[{},{}],"workloads":{}}\n' 0 >"$TMP/other-floor.json"
"$P" tune --candidates "$TMP/c2" --workdir "$TMP/w3" --baseline /usr/lib/postgresql/15 \
	--noise "$TMP/other-floor.json" >"$TMP/o" 2>"$TMP/e"
is "--noise of another postgres: exit 2" "$?" 2
like "... says whose it is" "$(cat "$TMP/e")" \
	"^pgbuild: error: --noise $TMP/other-floor.json: $TMP/other-floor.json was measured on another postgres \\(sha256 000000000000\\.\\.\\.\\), not /usr/lib/postgresql/15/bin/postgres"
ok "nothing was built" test ! -e "$TMP/w3/build"

# --bundle: a PGO-aware tune on a real bundle (a tiny program trained
# through pgoptcc's profile mode, as tests/t/35 makes one): every set's
# policy is the bundle's plus the set's flags
mkdir -p "$TMP/tr/src"
printf 'int hot(int x) { int s = 0; for (int i = 0; i < x; i++) s += i %% 7; return s; }\nint main(void) { return hot(100000) == 3 ? 1 : 0; }\n' >"$TMP/tr/src/m.c"
printf '[global]\nbolt = ready\ncflags += -finline-functions\n' >"$TMP/trained.policy"
(cd "$TMP/tr/src" && env -u PGOPT_PREFIX PGOPT_ROOT="$TMP/tr" PGOPT_LOGDIR="$TMP/tr/log" \
	PGOPT_POLICY="$TMP/trained.policy" PGOPT_PROFILE=generate "$B/bin/pgoptcc" -O2 -c m.c -o m.o &&
	env -u PGOPT_PREFIX PGOPT_ROOT="$TMP/tr" PGOPT_LOGDIR="$TMP/tr/log" PGOPT_POLICY="$TMP/trained.policy" \
	PGOPT_PROFILE=generate "$B/bin/pgoptcc" -O2 m.o -o m && ./m)
ok "the training wrote a profile" test -f "$TMP/tr/src/m.gcda"
"$P" bundle create --builddir "$TMP/tr" --log "$TMP/tr/log" --policy "$TMP/trained.policy" \
	--out "$TMP/bundle" -q >"$TMP/o" 2>&1
is "bundle create: exit 0" "$?" 0 || diag "$(cat "$TMP/o")"
"$P" tune --dry-run --candidates "$TMP/c2" --bundle "$TMP/bundle" --min-applies 95 >"$TMP/o" 2>"$TMP/e"
is "--bundle dry run: exit 0" "$?" 0 || diag "$(cat "$TMP/e")"
like "... names the bundle and the share a set must keep" "$(cat "$TMP/o")" \
	"^bundle: $TMP/bundle \\(its PGO profile in every set's build; a set is refused below 95% of its weight\\)"
sed -n '/^start policy:/,$p' "$TMP/o" | tail -n +2 >"$TMP/start3.policy"
like "the start policy is the bundle's policy ..." "$(cat "$TMP/start3.policy")" \
	'bolt = ready'
like "... with its flags" "$(cat "$TMP/start3.policy")" 'cflags \+= -finline-functions'
like "... then the set's flags in the same [global]" "$(tr '\n' ' ' <"$TMP/start3.policy")" \
	'\[global\] .*-finline-functions.*cflags \+= -O3 -fno-plt'
is "... one [global] section" "$(grep -c '^\[global\]' "$TMP/start3.policy")" 1
like "... and names the bundle (an incremental build never mistakes it for the same flags without the profile)" \
	"$(cat "$TMP/start3.policy")" "PGOPT_BUNDLE=$TMP/bundle"
ok "pgoptcc accepts it" "$B/bin/pgoptcc" --pgopt-check-policy "$TMP/start3.policy"
cp -r "$TMP/bundle" "$TMP/bundle2"
echo '[global]' >>"$TMP/bundle2/pgopt.policy"
"$P" tune --dry-run --candidates "$TMP/c2" --bundle "$TMP/bundle2" >"$TMP/o" 2>"$TMP/e"
is "a bundle whose policy changed after it was packed: exit 2" "$?" 2
like "... named" "$(cat "$TMP/e")" 'pgopt.policy'
# --dry-run --json: the plan as a document (it wrote nothing before), and
# with "-" the document alone on stdout, the text on stderr
"$P" tune --dry-run --candidates "$TMP/c2" --train tpcb --json "$TMP/plan.json" >"$TMP/o" 2>"$TMP/e"
is "--dry-run --json FILE: exit 0" "$?" 0
is "... FILE is the plan" "$(perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>);
	print join " ", $d->{kind}, $d->{train}, join(",", @{$d->{candidates}}),
		$d->{start_policy} =~ /cflags \+= -O3 -fno-plt/ ? "policy" : "nopolicy"' <"$TMP/plan.json")" \
	"pgbuild-tune-plan tpcb -O3,-fno-plt policy"
like "... and the text on stdout as before" "$(cat "$TMP/o")" '^train: tpcb; held out: mixed'
"$P" tune --dry-run --candidates "$TMP/c2" --json - >"$TMP/o" 2>"$TMP/e"
is "--dry-run --json -: exit 0" "$?" 0
is "... stdout is the document alone" "$(perl -MJSON::PP -e 'local $/; print decode_json(<STDIN>)->{kind}' <"$TMP/o")" \
	pgbuild-tune-plan
like "... the text on stderr" "$(cat "$TMP/e")" 'start policy:'
ok "help" "$P" tune --help
done_testing
