#!/bin/bash
# 55-explain.t - pgbuild explain on real builds of a small program: two
# files compiled through pgoptcc with the plugin, A at -O2 without LTO
# (records, a call across files), B the same with LTO (the callee of the
# other file inlined at link time), C without the plugin; each run twice
# under callgrind's cache and branch simulation (N and 10N iterations).
#   - the caller's row says B inlined the callee of the other file and A
#     did not, with GCC's reason from A's records (C: the call callgrind
#     saw, no LTO), and the policy line behind B's flags;
#   - the callee's cost in A is moved into that caller (absorbed), so its
#     own row barely changes; the rows add up to the totals, which match
#     the files' summaries (reconciled);
#   - the terminal table fits 100 columns; --json, --html;
#   - bad input: one line, exit 2;
#   - A's records moved into a side file, read with --debug-dir;
#   - a libc function's row names its callers on both sides (memset
#     inline in one build, called in the other).
. "$(dirname "$0")/../lib/tap.sh"
cd "$TMP" || exit 1
[ -f "$B/lib/pgoptcc/pgopt.so" ] || skip_all "plugin not built"
command -v valgrind >/dev/null || skip_all "valgrind is not installed (make deps)"
json() { perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; my $d = decode_json(<$f>);
	my $r = eval $ARGV[1]; die $@ if $@; print defined $r ? $r : "undef"' "$1" "$2"; }

mkdir -p src
touch configure   # marks the source root for translation-unit names
cat > src/util.c <<'C'
int mix(int x) { int s = x; for (int i = 0; i < 4; i++) s = (s * 31 + i) ^ (s >> 3); return s; }
C
cat > src/main.c <<'C'
#include <stdlib.h>
int mix(int x);
__attribute__((noinline)) static int work(int n) { int s = 0; for (int i = 0; i < n; i++) s += mix(i + s); return s; }
volatile int sink;
int main(int argc, char **argv) { sink = work(argc > 1 ? atoi(argv[1]) : 10); return 0; }
C
printf '[global]\ncflags += -O2\n' > a.policy
printf '[global]\ncflags += -O2\nlto = on\n' > b.policy

build() { # NAME POLICY
	local name=$1 policy=$2
	mkdir -p "$name/log"
	for f in src/util.c src/main.c; do
		PGOPT_POLICY=$policy PGOPT_LOGDIR=$TMP/$name/log PGOPT_ROOT=$TMP \
			"$B/bin/pgoptcc" gcc -O1 -c "$f" -o "$name/$(basename "$f" .c).o" || return 1
	done
	PGOPT_POLICY=$policy PGOPT_LOGDIR=$TMP/$name/log PGOPT_ROOT=$TMP \
		"$B/bin/pgoptcc" gcc -O1 -o "$name/prog" "$name/util.o" "$name/main.o"
}
measure() { # NAME: callgrind of 1000 and 10000 iterations
	for n in 1000 10000; do
		setarch "$(uname -m)" -R valgrind --tool=callgrind --cache-sim=yes --branch-sim=yes \
			--I1=32768,8,64 --D1=32768,8,64 --LL=33554432,16,64 --dump-instr=no \
			--dump-line=no --compress-strings=no --callgrind-out-file="$1/cg-$n.out" \
			"$1/prog" $n 2>/dev/null || return 1
	done
}
ok "build A (-O2, plugin, no LTO)" build a "$TMP/a.policy"
ok "build B (-O2, plugin, LTO)" build b "$TMP/b.policy"
ok "build C (no policy: no plugin)" build c none
for x in a b c; do ok "callgrind of $x, N and 10N" measure $x; done
cg() { echo "$1/cg-1000.out,$1/cg-10000.out"; }

"$B/bin/pgbuild" explain --baseline a/prog --candidate b/prog --callgrind-baseline "$(cg a)" \
	--callgrind-candidate "$(cg b)" --instr-statements 1000 --json ab.json --html ab.html \
	--top 10 >ab.out 2>ab.err
is "explain A B: exit 0" "$?" 0
[ -s ab.err ] && diag "$(cat ab.err)"
w=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' ab.out)
ok "the terminal table fits 100 columns (widest line $w)" test "$w" -le 100
like "the caller's row names the cross-file callee inlined in B only" \
	"$(cat ab.out)" "inlined in B only: mix \(src/util.c, another file\); A calls it 1\.00/tx"
site='my ($r) = grep { $_->{function} eq "work" } @{$d->{rows}}; my ($s) = grep { $_->{callee} eq "mix" } @{$r->{inlined_one_side}};'
is "json: the site is B's, across files" "$(json ab.json "$site"' "$s->{inlined_in} $s->{cross_file}"')" "B 1"
is "json: A's side is GCC's reason from A's records" \
	"$(json ab.json "$site"' ($s->{other_is_gcc_reason} ? "gcc: " : "") . $s->{other}')" \
	"gcc: function body not available"
like "json: A calls it once per iteration" "$(json ab.json "$site"' $s->{calls_other}')" '^1(\.0+)?$'
is "json: the policy line behind B's flags" \
	"$(json ab.json 'my ($r) = grep { $_->{function} eq "work" } @{$d->{rows}}; $r->{b}{rules}')" \
	"$TMP/b.policy:1"
is "json: its unit" "$(json ab.json 'my ($r) = grep { $_->{function} eq "work" } @{$d->{rows}}; $r->{tu}')" \
	"src/main.c"
like "json: A's cost of mix is moved into work (absorbed, > 10 per iteration)" \
	"$(json ab.json 'my ($r) = grep { $_->{function} eq "work" } @{$d->{rows}}; my ($a) = grep { $_->{callee} eq "mix" } @{$r->{absorbed}}; $a->{side} . " " . int($a->{estimate})')" \
	'^A [1-9][0-9]+$'
is "json: mix's own row is left with (almost) nothing in A" \
	"$(json ab.json 'my ($r) = grep { $_->{function} eq "mix" && $_->{object} eq "" } @{$d->{rows}}; abs($r->{a}{self}{estimate}) < 1 ? "yes" : $r->{a}{self}{estimate}')" yes
is "json: every row's change adds up to the total change" \
	"$(json ab.json 'my $s = 0; $s += $_->{change} for @{$d->{rows}}; abs($s - $d->{totals}{change}{estimate}) < 1e-6 * abs($d->{totals}{a}{estimate}) ? "yes" : "$s"')" yes
is "json: the rows reconcile with the files' summaries" "$(json ab.json '$d->{reconciled} ? 1 : 0')" 1
is "json: the per-function layout spread is said to be unmeasured" \
	"$(json ab.json '$d->{noise}{measured} ? 1 : 0')" 0
like "the output says so" "$(cat ab.out)" "per-function layout spread: not measured"
like "html: the bar chart and the decisions" "$(cat ab.html)" '<svg .*change of the estimate per function'
like "html: the site in the table" "$(cat ab.html)" 'inlined in B only: mix \(src/util.c\)'

# C has no plugin record: the call callgrind saw, and that C has no LTO
"$B/bin/pgbuild" explain --baseline c/prog --candidate b/prog --callgrind-baseline "$(cg c)" \
	--callgrind-candidate "$(cg b)" --instr-statements 1000 --json cb.json >cb.out 2>cb.err
is "explain C B: exit 0" "$?" 0
is "json: without records, the other side is the call across units" \
	"$(json cb.json "$site"' "$s->{other_is_gcc_reason} $s->{other}"')" \
	"0 called across units (no LTO; no plugin record)"
like "a note says C has no records" "$(cat cb.out)" "note: A \(.*c/prog\) has no plugin records"

# a noise document: the rows inside their spread are counted
printf '{"kind":"pgbuild-noise","version":1,"functions":[{"function":"work","object":"","spread":1e9}]}\n' > noise.json
"$B/bin/pgbuild" explain --baseline a/prog --candidate b/prog --callgrind-baseline "$(cg a)" \
	--callgrind-candidate "$(cg b)" --instr-statements 1000 --noise noise.json --json n.json >n.out 2>&1
is "explain --noise: exit 0" "$?" 0
is "json: work is inside its (huge) spread" \
	"$(json n.json 'my ($r) = grep { $_->{function} eq "work" } @{$d->{rows}}; $r->{inside_noise} ? 1 : 0')" 1
is "json: one row in the noise" "$(json n.json '$d->{noise}{rows_in_noise}')" 1
# ... and pgbuild noise's own document (one spread per workload) for -W's workload
printf '{"kind":"pgbuild-noise","version":1,"postgres_sha256":"x","workloads":{"select1":{"functions":[{"function":"work","object":"","spread":1e9}]}}}\n' > floor.json
"$B/bin/pgbuild" explain --baseline a/prog --candidate b/prog --callgrind-baseline "$(cg a)" \
	--callgrind-candidate "$(cg b)" --instr-statements 1000 -W select1 --noise floor.json --json f.json >f.out 2>&1
is "explain --noise PREFIX/pgopt-noise.json -W select1: exit 0" "$?" 0
is "json: work is inside the workload's spread" "$(json f.json '$d->{noise}{rows_in_noise}')" 1
"$B/bin/pgbuild" explain --baseline a/prog --candidate b/prog --callgrind-baseline "$(cg a)" \
	--callgrind-candidate "$(cg b)" --instr-statements 1000 --noise floor.json >bad.out 2>bad.err
is "... without -W: exit 2" "$?" 2
like "... said" "$(cat bad.err)" 'holds one spread per workload: name the workload \(-W\)'
"$B/bin/pgbuild" explain --baseline a/prog --candidate b/prog --callgrind-baseline "$(cg a)" \
	--callgrind-candidate "$(cg b)" --instr-statements 1000 -W tpcb --noise floor.json >bad.out 2>bad.err
is "... of another workload: exit 2" "$?" 2
like "... said" "$(cat bad.err)" 'no workload "tpcb" in it'

# bad input: one line, exit 2
"$B/bin/pgbuild" explain --baseline a/prog --candidate b/prog --callgrind-baseline a/cg-1000.out \
	--callgrind-candidate "$(cg b)" --instr-statements 1000 >bad.out 2>bad.err
is "one callgrind file where two are needed: exit 2" "$?" 2
like "... named" "$(head -n1 bad.err)" 'invalid value "a/cg-1000.out" for --callgrind-baseline: expected two callgrind output files'
"$B/bin/pgbuild" explain --baseline a/prog --candidate b/prog --callgrind-baseline a/none,a/none \
	--callgrind-candidate "$(cg b)" --instr-statements 1000 >bad.out 2>bad.err
is "a missing callgrind output: exit 2" "$?" 2
is "... one line" "$(wc -l < bad.err)" 1
like "... naming it" "$(cat bad.err)" 'a/none'
printf 'not a callgrind file\n' > junk.out
"$B/bin/pgbuild" explain --baseline a/prog --candidate b/prog --callgrind-baseline junk.out,junk.out \
	--callgrind-candidate "$(cg b)" --instr-statements 1000 >bad.out 2>bad.err
is "not a callgrind output: exit 2" "$?" 2
like "... said" "$(cat bad.err)" 'junk.out: no "events:" line: not a callgrind output file'
"$B/bin/pgbuild" explain --baseline a/prog --candidate b/prog >bad.out 2>bad.err
is "no workload and nothing to read: exit 2" "$?" 2
like "... said" "$(head -n1 bad.err)" '-W: give the one workload to measure'
"$B/bin/pgbuild" explain --gate-result noise.json >bad.out 2>bad.err
is "--gate-result of something else: exit 2" "$?" 2
like "... said" "$(cat bad.err)" 'not a pgbuild gate result'
"$B/bin/pgbuild" explain --baseline a/prog --candidate b/prog --callgrind-baseline "$(cg a)" \
	--callgrind-candidate "$(cg b)" --instr-statements 1000 --noise ab.json >bad.out 2>bad.err
is "--noise of something else: exit 2" "$?" 2
like "... said" "$(cat bad.err)" 'not a pgbuild-noise document'

# A's records moved into a side file of its build-id: --debug-dir reads them
id=$(readelf -n a/prog | sed -n 's/.*Build ID: //p')
if command -v objcopy >/dev/null && [ -n "$id" ]; then
	mkdir -p "dbg/.build-id/${id:0:2}"
	objcopy --only-section=.pgopt.log --only-section=.GCC.command.line \
		--only-section=.note.gnu.build-id a/prog "dbg/.build-id/${id:0:2}/${id:2}.pgopt" 2>/dev/null
	objcopy --remove-section=.pgopt.log --remove-section=.GCC.command.line a/prog
	"$B/bin/pgbuild" explain --baseline a/prog --candidate b/prog --callgrind-baseline "$(cg a)" \
		--callgrind-candidate "$(cg b)" --instr-statements 1000 --json nd.json >nd.out 2>&1
	is "A without its records: exit 0" "$?" 0
	like "... a note says A has no plugin records" "$(cat nd.out)" "note: A \(.*a/prog\) has no plugin records"
	"$B/bin/pgbuild" explain --baseline a/prog --candidate b/prog --callgrind-baseline "$(cg a)" \
		--callgrind-candidate "$(cg b)" --instr-statements 1000 --debug-dir dbg --json d.json >d.out 2>&1
	is "--debug-dir: exit 0" "$?" 0
	is "... A's side is GCC's reason again, read from the side file" \
		"$(json d.json "$site"' ($s->{other_is_gcc_reason} ? "gcc: " : "") . $s->{other}')" \
		"gcc: function body not available"
else
	skip "no objcopy or no GNU build-id in the linked program" 4
fi

# a library function's row says who calls it: the same program with
# memset inline (A: gcc expands it) and as a libc call (B:
# -fno-builtin-memset); the libc row's change comes with its caller
cat > z.c <<'C'
#include <stdlib.h>
#include <string.h>
volatile char zsink;
__attribute__((noinline)) static void fill(char *p, int i) { memset(p, i, 4096); zsink = p[i & 4095]; }
int main(int argc, char **argv) { static char buf[4096]; int n = argc > 1 ? atoi(argv[1]) : 10; for (int i = 0; i < n; i++) fill(buf, i); return 0; }
C
mkdir -p za zb
gcc -O2 -minline-all-stringops -mstringop-strategy=unrolled_loop -o za/prog z.c &&
	gcc -O2 -fno-builtin-memset -o zb/prog z.c && measure za && measure zb
is "memset inline (A) and called (B): built and measured" "$?" 0
nok "... A calls no memset" sh -c "objdump -d za/prog | grep -q 'call.*<memset@plt>'"
ok "... B does" sh -c "objdump -d zb/prog | grep -q 'call.*<memset@plt>'"
"$B/bin/pgbuild" explain --baseline za/prog --candidate zb/prog --callgrind-baseline "$(cg za)" \
	--callgrind-candidate "$(cg zb)" --instr-statements 1000 --json z.json --html z.html \
	--top 5 >z.out 2>z.err
is "explain of the memset pair: exit 0" "$?" 0
lib='my ($r) = grep { $_->{object} =~ /libc/ && $_->{function} =~ /memset/ } @{$d->{rows}};'
like "json: the libc memset row is there, dearer in B" "$(json z.json "$lib"' $r->{change} > 0 ? "dearer" : "not"')" '^dearer$'
is "json: its caller is fill, never in A, once per iteration in B" \
	"$(json z.json "$lib"' my $c = $r->{callers}[0]; sprintf "%s %.2f %.2f", $c->{caller}, $c->{calls_a}, $c->{calls_b}')" \
	"fill 0.00 1.00"
like "... B's calls carry the inclusive cost" "$(json z.json "$lib"' $r->{callers}[0]{inclusive_b} > $r->{callers}[0]{inclusive_a} ? "yes" : "no"')" '^yes$'
like "terminal: the row says who calls it" "$(tr '\n' ' ' <z.out | tr -s ' ')" \
	'called from \(largest changes\): fill 0\.00/tx in A \(0 inclusive\), 1\.00/tx in B \([0-9]+\)'
like "html: too" "$(cat z.html)" 'called from fill: 0\.00/tx in A \(0\), 1\.00/tx in B \([0-9]+\)'
is "json: a row of the program has no callers list entries" \
	"$(json z.json 'my ($r) = grep { $_->{function} eq "fill" } @{$d->{rows}}; scalar @{$r->{callers}}')" 0

# measuring: explain runs the single-user cycles runs itself (no gate, no
# callgrind files given), here Debian's PostgreSQL against itself: the two
# sides' runs agree, so the total does not change and no share is claimed
PG=/usr/lib/postgresql/15
if [ -x $PG/bin/postgres ] && [ -d /usr/share/postgresql/15 ]; then
	"$B/bin/pgbuild" explain --baseline $PG --candidate $PG -W select1 --instr-statements 5 \
		--json m.json --html m.html >m.out 2>m.err
	is "measuring: exit 0" "$?" 0 || tail -n 5 m.err | sed 's/^/# /' >&2
	like "... it ran the simulation on both sides" "$(cat m.err)" 'explain: B /usr/lib/postgresql/15: callgrind cache and branch simulation, 5 and 50 statements'
	is "... the same binary twice: no change of the total" \
		"$(json m.json '$d->{totals}{a}{estimate} == $d->{totals}{b}{estimate} ? 1 : 0')" 1
	is "... reconciled" "$(json m.json '$d->{reconciled} ? 1 : 0')" 1
	like "... and no share of a change that is not there" "$(tr '\n' ' ' <m.out | tr -s ' ')" \
		'the total did not change: no share to explain; [0-9]+ rows'
	nok "... no nan in the text or the page" grep -qi 'nan%' m.out m.html
else
	skip "Debian's postgresql-15 is not installed ($PG): no measuring run" 6
fi
done_testing
