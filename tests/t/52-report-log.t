#!/bin/bash
# 52-report-log.t - pgbuild report over a real compile log and two real
# binaries: a small project built twice with gcc through pgoptcc, without a
# policy (A) and with one that gives one file -O3 and inlining knobs (B).
# The report lists exactly the changed translation unit with its flags and
# rule, and the functions whose size or inlining changed; A has no plugin
# record, so B's inlining counts are labelled as B's alone.
. "$(dirname "$0")/../lib/tap.sh"
cd "$TMP" || exit 1
[ -f "$B/lib/pgoptcc/pgopt.so" ] || skip_all "plugin not built"

mkdir -p src/hot src/cold
touch configure   # marks the source root for translation-unit names
cat > src/hot/loop.c <<'C'
static int step(int x) { return (x * 31 + 7) ^ (x >> 3); }
static int mix(int x, int y) { int s = 0; for (int i = 0; i < y; i++) s += step(x + i) % 17; return s; }
int hot_loop(int n) { int s = 0; for (int i = 0; i < n; i++) s += mix(i, 8) + step(s); return s; }
C
cat > src/cold/main.c <<'C'
int hot_loop(int n);
int main(int argc, char **argv) { (void)argv; return hot_loop(argc * 1000) & 1; }
C
cat > hot.policy <<'P'
[src/hot/*.c]
cflags += -O3 --param=max-inline-insns-auto=60
P

build() { # NAME POLICY
	local name=$1 policy=$2
	mkdir -p "$name/log"
	for f in src/hot/loop.c src/cold/main.c; do
		PGOPT_POLICY=$policy PGOPT_LOGDIR=$TMP/$name/log PGOPT_ROOT=$TMP \
			"$B/bin/pgoptcc" gcc -O1 -c "$f" -o "$name/$(basename "$f" .c).o" || return 1
	done
	PGOPT_POLICY=$policy PGOPT_LOGDIR=$TMP/$name/log PGOPT_ROOT=$TMP \
		"$B/bin/pgoptcc" gcc -o "$name/prog" "$name/loop.o" "$name/main.o"
}
ok "build A (no policy)" build a none
ok "build B (hot.policy)" build b "$TMP/hot.policy"
# a configure-style probe in the same log: logged with its tu, never a unit
printf 'int main(void) { return 0; }\n' > conftest.c
PGOPT_POLICY=$TMP/hot.policy PGOPT_LOGDIR=$TMP/b/log PGOPT_ROOT=$TMP \
	"$B/bin/pgoptcc" gcc -c conftest.c -o conftest.o
like "the probe is logged with its tu" "$(tail -n1 b/log/compile.jsonl)" '"reason":"conftest".*"tu":"conftest.c"|"tu":"conftest.c".*"reason":"conftest"'

"$B/bin/pgbuild" report --log b/log --inspect-baseline a/prog --inspect-candidate b/prog \
	--json report.json --html report.html >out 2>err
is "report exits 0" "$?" 0
[ -s err ] && diag "$(cat err)"
like "... says where the page went" "$(cat err)" "^report: wrote report.html$"
# -q/--quiet (gate's spelling): the same report, no "wrote" line
"$B/bin/pgbuild" report --log b/log --inspect-baseline a/prog --inspect-candidate b/prog \
	--json report.json --html report.html -q >out.q 2>err.q
is "report -q: exit 0, the same report on stdout" "$?|$(cat out.q)" "0|$(cat out)"
is "... and no \"report: wrote\" line" "$(grep -c '^report: wrote' err.q)" 0
like "one of two units changed" "$(cat out)" "per-file flags: 1 of 2 translation units changed"
like "the changed unit and its flags" "$(grep 'src/hot/loop.c' out)" "src/hot/loop.c +\+ -O3 --param=max-inline-insns-auto=60"
ok "the unchanged unit is not listed" bash -c "! grep -q 'src/cold/main.c' out"
ok "the configure probe is not a unit" bash -c "! grep -q 'conftest' out"
like "functions section" "$(cat out)" "functions: A [0-9]+, B [0-9]+"
json() { perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; my $d = decode_json(<$f>);
	my $r = eval $ARGV[1]; die $@ if $@; print defined $r ? $r : "undef"' "$1" "$2"; }
is "json: one changed unit" "$(json report.json 'scalar @{$d->{translation_units}}')" 1
is "json: its rule names the policy line" "$(json report.json '$d->{translation_units}[0]{rules}')" "$TMP/hot.policy:1"
is "json: two units seen" "$(json report.json '$d->{translation_units_total}')" 2
like "json: hot_loop changed size or inlining" \
	"$(json report.json 'join ",", map { $_->{name} } @{$d->{functions}}')" "hot_loop"
like "json: B's inlining record is read from the binary" \
	"$(json report.json 'my ($f) = grep { $_->{name} eq "hot_loop" } @{$d->{functions}}; $f->{inlined_b}')" '^[1-9][0-9]*$'
is "json: A has no records (built without the plugin)" \
	"$(json report.json 'my ($f) = grep { $_->{name} eq "hot_loop" } @{$d->{functions}}; $f->{inlined_a} // "none"')" none
# A has no plugin record: B's counts are labelled as B's alone, not as changes
like "the baseline without records is said" "$(cat out)" \
	"inl B: inlined calls in B alone, not a change \(the baseline has no plugin record\)"
is "json: inlining not compared" "$(json report.json '$d->{inlining_compared} ? 1 : 0')" 0
like "html: the same note" "$(cat report.html)" "The baseline has no plugin record \(built without the plugin\)"
like "html: the flags table" "$(cat report.html)" "<td class=\"mono\">src/hot/loop.c</td><td class=\"mono\">-O3 --param=max-inline-insns-auto=60</td>"
like "html: the function table" "$(cat report.html)" "<td class=\"mono\">hot_loop</td>"
ok "html: well-formed XML-ish (xmllint --html)" xmllint --html --noout report.html

# a gate result whose installs are gone (a document kept from another
# machine): the per-function part is left out with a warning, not an error
"$B/bin/pgbuild" report --gate-result "$TOP/tests/unit/data/optimize-gate-pgo-scoped.json" \
	>gone.out 2>gone.err
is "report of a gate whose installs are gone: exit 0" "$?" 0
like "... warns that the per-function changes are left out, naming the file" "$(cat gone.err)" \
	'^pgbuild: warning: per-function changes left out: .*/bin/postgres: No such file or directory'
nok "... and prints no error" grep -q 'error:' gone.err
done_testing
