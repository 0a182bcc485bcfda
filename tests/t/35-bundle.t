#!/bin/bash
# 35-bundle.t - profile bundles with real gcc, pgoptcc and LLVM BOLT: a
# small project (two units, a hot loop) is built with pgoptcc's profile
# mode generate and trained by running it; `pgbuild bundle create` packs
# its .gcda files, whose per-function weights must equal the arc counters
# gcov-dump (GCC's own tool) prints.  The bundle is then applied in
# another, longer directory (PGOPT_BUNDLE): every unit is compiled with
# its profile (the code differs from a build without it), GCC's stderr is
# what plain gcc prints for the same command line, `bundle check` weighs
# 100%; a changed function is refused by GCC and named with its weight,
# a moved one keeps its profile, a static function compiled by another
# path is not found and its weight lost, and below --min-applies check
# exits 1.
# A changed bundle file, a directory that is no bundle and the settings
# that cannot go together are errors.  BOLT: a profile taken from the
# bundle-built program rewrites a copy of it in place (records = side:
# its side file follows the new build-id and inspect --debug-dir reads it;
# DWARF 4 debug information is kept), the layout flags a bundle carries
# are used and checked (create --bolt-install DIR copies them from a bolt
# output's record), a changed program is refused and left byte for byte
# as it was, and a DWARF 5 program is refused before BOLT runs.
. "$(dirname "$0")/../lib/tap.sh"
# bundle bolt without --log keeps its log in a new private directory of
# TMPDIR: here, so a run leaves nothing in /tmp
export TMPDIR=$TMP
cd "$TMP" || exit 1
PGOPTCC=$B/bin/pgoptcc PGB=$B/bin/pgbuild
unset CC CFLAGS CCACHE_DIR $(env | sed -n 's/^\(PGOPT_[A-Z_]*\)=.*/\1/p' | grep -vx PGOPT_KEEP_TMP)
GCOV_DUMP=$(command -v gcov-dump-12 || command -v gcov-dump)
LLVM=${PGBUILD_BOLT:-/usr/lib/llvm-15/bin}
# CMD's stderr and stdout, then "exit N", on one line
oneline() { { "$@" 2>&1; echo "exit $?"; } | tr '\n' ' ' | sed 's/ $//'; }

# the project: DIR/src/{hot,main}.c
project() {
	mkdir -p "$1/src" || return 1
	cat > "$1/src/hot.c" <<'C'
int hot_step(int x) { int s = 0; for (int i = 0; i < x; i++) s += (i * 7) % 13; return s; }
int hot_branch(int x) { if (x % 3) return x * 2; return x - 1; }
C
	cat > "$1/src/main.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
int hot_step(int x);
int hot_branch(int x);
static __attribute__((noinline)) long mix(long t, int i)
{
	return t + (i & 3);
}
int main(int argc, char **argv)
{
	long t = 0;
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	for (int i = 0; i < n; i++)
		t = mix(t, i) + hot_step(i % 50) + hot_branch(i);
	printf("%ld\n", t);
	return 0;
}
C
}
# compile and link DIR's project through pgoptcc; extra environment first
build() { # DIR [VAR=VALUE...] ; CFLAGS from $CF
	local d=$1; shift
	(cd "$d/src" && env PGOPT_ROOT="$d" PGOPT_LOGDIR="$d/log" "$@" "$PGOPTCC" $CF -c hot.c -o hot.o &&
		env PGOPT_ROOT="$d" PGOPT_LOGDIR="$d/log" "$@" "$PGOPTCC" $CF -c main.c -o main.o &&
		env PGOPT_ROOT="$d" PGOPT_LOGDIR="$d/log" "$@" "$PGOPTCC" $CF hot.o main.o -o prog)
}
CF="-O2"
printf '[global]\nbolt = ready\n' > use.policy

# ---- training
T=$TMP/train
project "$T"
build "$T" PGOPT_POLICY="$TMP/use.policy" PGOPT_PROFILE=generate
is "the instrumented build: exit 0" "$?" 0
want=$("$T/src/prog" 200000)
is "training run: the .gcda files are beside the objects" \
	"$(cd "$T/src" && ls *.gcda | tr '\n' ' ')" "hot.gcda main.gcda "

out=$("$PGB" bundle create --builddir "$T" --log "$T/log" --policy use.policy --out "$TMP/B" 2>&1)
is "bundle create --builddir: exit 0" "$?" 0 || diag "$out"
like "... says what went in" "$out" 'PGO profiles of 2 units \(4 functions with counts\), no BOLT profile'
M=$TMP/B/pgopt-bundle.json
is "the manifest lists the policy and both profiles with their sha256" \
	"$(jq -r '.files | keys | join(" ")' "$M")" "gcda/src/hot.gcda gcda/src/main.gcda pgopt.policy"
is "... and the sha256 are the files'" "$(cd "$TMP/B" && sha256sum gcda/src/hot.gcda | cut -c1-64)" \
	"$(jq -r '.files["gcda/src/hot.gcda"]' "$M")"
if [ -n "$GCOV_DUMP" ]; then
	# gcov-dump -l: "FUNCTION ident=N, ..." then "COUNTERS arcs" and the counts
	peer=$("$GCOV_DUMP" -l "$T/src/hot.gcda" | perl -ne '
		$f = $1 if /FUNCTION ident=(\d+)/; $arcs = /COUNTERS arcs/ ? 1 : /COUNTERS/ ? 0 : $arcs;
		if ($arcs && /^\S+:\s+\d+: ([\d ]+)$/) { $s{$f} += $_ for split " ", $1 }
		END { print join(" ", sort { $a <=> $b } grep { $_ } values %s) }')
	ours=$(jq -r '.pgo.units[] | select(.tu == "src/hot.c") | .functions | [.[]] | sort | map(tostring) | join(" ")' "$M")
	is "the weights are the arc counters gcov-dump prints (hot.c: $ours)" "$ours" "$peer"
else
	skip "gcov-dump is not installed (gcc's package has it): weights not cross-checked"
fi
like "the hot loop carries most of the weight" \
	"$(jq -r '.pgo.units[] | select(.tu == "src/hot.c") | .functions.hot_step / .weight' "$M")" '^0\.9'
like "bundle show: both units, no BOLT" "$(oneline "$PGB" bundle show "$TMP/B")" 'PGO: 2 units, 4 functions with counts.*BOLT: none'

# create's refusals
nok "create without --out fails" "$PGB" bundle create --builddir "$T" --policy use.policy
like "... naming it" "$(cat "$TMP/.out")" 'create needs --out DIR'
nok "create from two sources fails" "$PGB" bundle create --out x --builddir "$T" --policy use.policy --pgo /nonexistent
like "... naming them" "$(cat "$TMP/.out")" 'one of --pgo, --optimize, --builddir and --bundle'
nok "create --builddir without --policy fails" "$PGB" bundle create --out x --builddir "$T"
mkdir notbundle && echo keep > notbundle/file
nok "create over a directory that is no bundle fails" "$PGB" bundle create --builddir "$T" --log "$T/log" \
	--policy use.policy --out notbundle
like "... and leaves it" "$(cat "$TMP/.out") $(cat notbundle/file)" 'exists and is not a bundle.* keep$'
nok "create over a bundle without --force fails" "$PGB" bundle create --builddir "$T" --log "$T/log" \
	--policy use.policy --out "$TMP/B"
U=$TMP/untrained && project "$U" && build "$U" PGOPT_POLICY="$TMP/use.policy"
nok "create from an untrained build fails" "$PGB" bundle create --builddir "$U" --log "$U/log" \
	--policy use.policy --out "$TMP/B2"
like "... saying why, and makes nothing" "$(cat "$TMP/.out") $(ls -d "$TMP"/B2* 2>/dev/null)" \
	'no profile data \(\.gcda beside an object\).*was the build trained\? $'

# ---- the bundle applied elsewhere
A=$TMP/a-longer-directory-for-the-package-build
project "$A"
P=(PGOPT_POLICY="$TMP/B/pgopt.policy" PGOPT_BUNDLE="$TMP/B")
build "$A" "${P[@]}" 2>"$TMP/a.err"
is "the build with the bundle: exit 0, GCC quiet" "$?:$(cat "$TMP/a.err")" "0:"
is "... the program works" "$("$A/src/prog" 200000)" "$want"
is "both compiles used their unit's profile (logged)" \
	"$(jq -r 'select(.bundle) | .tu + " " + .bundle.profile' "$A/log/compile.jsonl" | sort | tr '\n' ';')" \
	"src/hot.c gcda/src/hot.gcda;src/main.c gcda/src/main.gcda;"
like "... with -fprofile-use" "$(jq -r 'select(.tu == "src/hot.c") | .added | join(" ")' "$A/log/compile.jsonl")" \
	'-fprofile-use -fprofile-partial-training -Wno-error=coverage-mismatch'
N=$TMP/noprofile && project "$N" && build "$N" PGOPT_POLICY="$TMP/use.policy"
nok "the profile changed the code (hot.o differs from a build without it)" \
	cmp -s <(objdump -d "$A/src/hot.o" | sed 1,3d) <(objdump -d "$N/src/hot.o" | sed 1,3d)
out=$("$PGB" bundle check "$TMP/B" --log "$A/log" --json "$TMP/check.json" 2>&1)
is "bundle check: exit 0" "$?" 0 || diag "$out"
like "... 100% of the weight used" "$out" 'applied 100\.0% of the PGO profile.s weight \(threshold 90%\): pass'
is "... its JSON says so" "$(jq -r '[.pass, .units_compiled, .functions_refused] | map(tostring) | join(" ")' "$TMP/check.json")" \
	"true 2 0"

# a changed function: GCC refuses its profile
sed -i 's/if (x % 3) return x \* 2;/if (x % 3) return x * 2; if (x == 7) return 1;/' "$A/src/hot.c"
(cd "$A/src" && env PGOPT_ROOT="$A" PGOPT_LOGDIR="$A/log" "${P[@]}" "$PGOPTCC" -O2 -c hot.c -o hot.o) 2>"$TMP/pgoptcc.err"
final=$(jq -r 'select(.tu == "src/hot.c") | .argv_out | @sh' "$A/log/compile.jsonl" | tail -1)
mkdir peer && cp "$A/src/hot.c" peer/ && cp "$TMP/B/gcda/src/hot.gcda" peer/
(cd peer && eval "gcc $final") 2>"$TMP/gcc.err"
like "GCC warns of the changed function" "$(cat "$TMP/pgoptcc.err")" "hot_branch.*\[-Wcoverage-mismatch\]"
is "... and pgoptcc's stderr is gcc's for the same command line" "$(cat "$TMP/pgoptcc.err")" "$(cat "$TMP/gcc.err")"
is "the compile log names it as refused" \
	"$(jq -r 'select(.tu == "src/hot.c") | .bundle.mismatched | join(" ")' "$A/log/compile.jsonl" | tail -1)" hot_branch
out=$("$PGB" bundle check "$TMP/B" --log "$A/log" 2>&1)
like "check weighs it: below 100%, above 90%" "$out" 'applied 9[0-9]\.[0-9]% of the PGO profile.s weight.*pass'
like "... and names it" "$out" 'src/hot\.c: GCC refused hot_branch'
nok "check --min-applies 99: exit 1" "$PGB" bundle check "$TMP/B" --log "$A/log" --min-applies 99
like "... with the error" "$(cat "$TMP/.out")" 'error: the build used 9[0-9]\.[0-9]% of the bundle.s PGO profile, below the 99%'
# a moved function keeps its profile
printf '\n\n' | cat - "$A/src/main.c" > "$TMP/m.c" && mv "$TMP/m.c" "$A/src/main.c"
(cd "$A/src" && env PGOPT_ROOT="$A" PGOPT_LOGDIR="$A/log" "${P[@]}" "$PGOPTCC" -O2 -c main.c -o main.o) 2>/dev/null
is "functions whose lines moved are logged as moved, not refused" \
	"$(jq -r 'select(.tu == "src/main.c") | (.bundle.moved | sort | join(" ")) + "/" + (.bundle.mismatched | join(" "))' "$A/log/compile.jsonl" | tail -1)" "main mix/"
like "... and check still counts their weight" "$("$PGB" bundle check "$TMP/B" --log "$A/log")" \
	'functions: 1 refused by GCC .*, 2 moved'
# the same source by another path: GCC 12's id of a static function hashes
# the source's name as the compile gives it, so mix is not found
(cd "$A/src" && env PGOPT_ROOT="$A" PGOPT_LOGDIR="$A/log" "${P[@]}" "$PGOPTCC" -O2 -c "$A/src/main.c" -o main.o) 2>"$TMP/abs.err"
like "compiled by its absolute path, the static function's profile is not found" "$(cat "$TMP/abs.err")" \
	"profile for function .mix. not found in profile data \[-Wmissing-profile\]"
out=$("$PGB" bundle check "$TMP/B" --log "$A/log" 2>&1)
like "... and check counts its weight as lost, saying it ran in the training" "$out" \
	'1 not in the profile \(1 of them ran in the training: GCC looked them up under another id'
is "... the share is the weight less hot_branch's and mix's" \
	"$("$PGB" bundle check "$TMP/B" --log "$A/log" --min-applies 0 --json "$TMP/abs.json" >/dev/null; jq -r '.used' "$TMP/abs.json")" \
	"$(jq -r '.pgo.weight - .pgo.units[0].functions.hot_branch - .pgo.units[1].functions.mix' "$M")"

# the settings' errors
nok "PGOPT_BUNDLE without a policy fails" env PGOPT_BUNDLE="$TMP/B" "$PGOPTCC" -c "$A/src/hot.c" -o x.o
like "... exit 100, saying so" "$(oneline env PGOPT_BUNDLE="$TMP/B" "$PGOPTCC" -c "$A/src/hot.c" -o x.o)" \
	'PGOPT_BUNDLE=.*: expected a policy too.*exit 100$'
like "PGOPT_BUNDLE with PGOPT_PROFILE fails" \
	"$(oneline env "${P[@]}" PGOPT_PROFILE=use "$PGOPTCC" -c "$A/src/hot.c" -o x.o)" \
	'expected either a bundle or the profile mode.*exit 100$'
like "a directory that is no bundle fails" \
	"$(oneline env PGOPT_POLICY="$TMP/use.policy" PGOPT_BUNDLE="$TMP/notbundle" "$PGOPTCC" -c "$A/src/hot.c" -o x.o)" \
	'refused: .*notbundle is no profile bundle: .*pgopt-bundle.json: No such file.*exit 100$'
like "PGOPT_BUNDLE cannot come from pgoptcc.conf" \
	"$(mkdir -p conf && cd conf && printf 'bundle = /x\n' > pgoptcc.conf && oneline "$PGOPTCC" -c "$A/src/hot.c" -o x.o)" \
	'bundle cannot be set in pgoptcc.conf.*exit 108$'
cp -a "$TMP/B" "$TMP/Bbad" && printf 'x' >> "$TMP/Bbad/gcda/src/main.gcda"
nok "check of a changed bundle fails" "$PGB" bundle check "$TMP/Bbad" --log "$A/log"
like "... exit 2, naming the file" "$(oneline "$PGB" bundle check "$TMP/Bbad" --log "$A/log")" \
	'Bbad/gcda/src/main.gcda: its sha256 is .*the bundle was changed after it was made.*exit 2$'

# ---- BOLT: a profile of the bundle-built program, applied to copies
if [ ! -x "$LLVM/llvm-bolt" ]; then
	skip "llvm-bolt is not installed in $LLVM (bolt-15; make deps): bundle bolt not run" 23
	done_testing
fi
BO=$TMP/bolt && project "$BO"
CF="-O2 -g" build "$BO" "${P[@]}" PGOPT_RECORDS=side 2>/dev/null
is "a BOLT-ready program with the bundle's PGO and -g: built" "$?" 0
like "... bolt = ready made its debug information DWARF 4" 	"$(readelf --debug-dump=info "$BO/src/prog" 2>/dev/null | sed -n 's/^ *Version: *//p' | sort -u | tr '\n' ' ')" '^4 $'
"$LLVM/llvm-bolt" "$BO/src/prog" -instrument -instrument-calls=0 -instrumentation-file="$TMP/prog.fdata" \
	-o "$TMP/prog.inst" >"$TMP/inst.log" 2>&1 && "$TMP/prog.inst" 100000 >/dev/null
"$PGB" bundle create --builddir "$T" --log "$T/log" --policy use.policy --bolt-profile "$TMP/prog.fdata" \
	--out "$TMP/B" --force >/dev/null
like "the bundle now has the BOLT profile" "$("$PGB" bundle show "$TMP/B")" 'BOLT: .*/bolt/profile\.fdata'
nok "create --bundle without a BOLT profile fails (it would be a copy)" "$PGB" bundle create --bundle "$TMP/B" --out "$TMP/B4"
"$PGB" bundle create --bundle "$TMP/B" --bolt-profile "$TMP/prog.fdata" --out "$TMP/B4" >/dev/null
is "create --bundle: the same PGO part and policy, with the BOLT profile" \
	"$(jq -c '[.pgo, .files["pgopt.policy"], .files["gcda/src/hot.gcda"], (.bolt.profile != null)]' "$TMP/B4/pgopt-bundle.json")" \
	"$(jq -c '[.pgo, .files["pgopt.policy"], .files["gcda/src/hot.gcda"], true]' "$TMP/B/pgopt-bundle.json")"
cp "$BO/src/prog" "$TMP/prog.copy"
old=$(readelf -nW "$TMP/prog.copy" | sed -n 's/.*Build ID: *//p')
out=$("$PGB" bundle bolt "$TMP/B" "$TMP/prog.copy" --log "$BO/log" 2>&1)
is "bundle bolt on the program it was trained on: exit 0" "$?" 0 || diag "$out"
like "... all of the profile applies" "$out" '100\.0% of the profile.s samples apply'
new=$(readelf -nW "$TMP/prog.copy" | sed -n 's/.*Build ID: *//p')
is "... rewritten in place: BOLT's note, the same output" \
	"$(readelf -SW "$TMP/prog.copy" | grep -c note.bolt_info) $("$TMP/prog.copy" 200000)" "1 $want"
like "... its debug information kept (DWARF 4, updated)" "$(readelf -SW "$TMP/prog.copy")" '\.debug_info'
is "... the records' side file moved to the new build-id" \
	"$(test ! -e "$BO/log/records/.build-id/${old:0:2}/${old:2}.pgopt" && test -f "$BO/log/records/.build-id/${new:0:2}/${new:2}.pgopt" && echo yes)" yes
like "... which inspect --debug-dir reads" "$("$PGB" inspect --units --debug-dir "$BO/log/records" "$TMP/prog.copy" 2>&1)" 'src/hot\.c'
# the layout flags a bundle carries (pgbuild bolt --bolt-flags's): used,
# and checked like the option, naming the manifest
cp -a "$TMP/B" "$TMP/Bflags"
jq '.bolt.optimize_flags = "-reorder-blocks=ext-tsp -icf=1"' "$TMP/B/pgopt-bundle.json" >"$TMP/Bflags/pgopt-bundle.json"
cp "$BO/src/prog" "$TMP/prog.flags" && mkdir -p "$BO/logf"
"$PGB" bundle bolt "$TMP/Bflags" "$TMP/prog.flags" --log "$BO/logf" >/dev/null 2>&1
is "bundle bolt with the bundle's own layout flags: exit 0" "$?" 0
like "... BOLT ran with them, -dyno-stats added" "$(cat "$BO"/logf/bolt-prog.flags.log)" ' -reorder-blocks=ext-tsp -icf=1 -dyno-stats'
jq '.bolt.optimize_flags = "-icf=1 -o /tmp/elsewhere"' "$TMP/B/pgopt-bundle.json" >"$TMP/Bflags/pgopt-bundle.json"
cp "$BO/src/prog" "$TMP/prog.flags2"
like "flags that would write elsewhere: refused, exit 2, naming the manifest" \
	"$(oneline "$PGB" bundle bolt "$TMP/Bflags" "$TMP/prog.flags2")" \
	'Bflags/pgopt-bundle.json: bolt.optimize_flags: "-o" is not a layout flag.*exit 2$'
ok "... the program left as it was" cmp -s "$BO/src/prog" "$TMP/prog.flags2"
# create --bolt-install DIR: the profile and the layout flags a pgbuild bolt
# output's record names (OUT/pgopt-build.json; tests/pg/80 checks that
# bolt writes them there), and the default flags when it names none
mkdir -p "$TMP/boltout"
jq -n --arg p "$TMP/prog.fdata" '{bolt: {profile: {path: $p}, optimize_flags: "-reorder-blocks=ext-tsp -split-functions"}}' \
	>"$TMP/boltout/pgopt-build.json"
"$PGB" bundle create --builddir "$T" --log "$T/log" --policy use.policy --bolt-install "$TMP/boltout" --out "$TMP/B5" >/dev/null
is "create --bolt-install DIR: the record's layout flags in the manifest" \
	"$(jq -r .bolt.optimize_flags "$TMP/B5/pgopt-bundle.json")" "-reorder-blocks=ext-tsp -split-functions"
cp "$BO/src/prog" "$TMP/prog.flags3" && mkdir -p "$BO/logf3"
"$PGB" bundle bolt "$TMP/B5" "$TMP/prog.flags3" --log "$BO/logf3" >/dev/null 2>&1
is "... bundle bolt with that bundle: exit 0" "$?" 0
like "... BOLT ran with the record's flags" "$(cat "$BO"/logf3/bolt-prog.flags3.log)" ' -reorder-blocks=ext-tsp -split-functions -dyno-stats'
jq -n --arg p "$TMP/prog.fdata" '{bolt: {profile: {path: $p}}}' >"$TMP/boltout/pgopt-build.json"
"$PGB" bundle create --builddir "$T" --log "$T/log" --policy use.policy --bolt-install "$TMP/boltout" --out "$TMP/B5" --force >/dev/null
like "... a record without flags: the default ones in the manifest" \
	"$(jq -r .bolt.optimize_flags "$TMP/B5/pgopt-bundle.json")" '^-reorder-blocks=ext-tsp -reorder-functions=hfsort\+ .*-use-gnu-stack -dyno-stats$'
# a changed program: stale
sed -i 's/s += (i \* 7) % 13;/s += (i * 7) % 13; if (s == 99) s += 2;/' "$BO/src/hot.c"
CF="-O2 -g" build "$BO" "${P[@]}" 2>/dev/null
cp "$BO/src/prog" "$TMP/prog.changed" && sum=$(sha256sum < "$TMP/prog.changed")
nok "bundle bolt on a changed program: exit 1" "$PGB" bundle bolt "$TMP/B" "$TMP/prog.changed"
like "... saying how little applies" "$(cat "$TMP/.out")" 'only [0-9.]+% of the BOLT profile.s samples apply \(1 functions stale\).*left as it was'
is "... and the program is byte for byte as it was" "$(sha256sum < "$TMP/prog.changed")" "$sum"
(cd "$BO/src" && gcc -O2 -g -fno-reorder-blocks-and-partition -Wl,--emit-relocs hot.c main.c -o "$TMP/prog.dwarf5")
like "a DWARF 5 program is refused before BOLT runs, naming -gdwarf-4" \
	"$(oneline "$PGB" bundle bolt "$TMP/B" "$TMP/prog.dwarf5")" 'DWARF 5 debug information.*bolt = ready.*-gdwarf-4.*exit 2$'
done_testing
