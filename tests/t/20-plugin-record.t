#!/bin/bash
# 20-plugin-record.t - pgopt.so on small C programs whose inlining outcome is
# known: the record inside the object says what GCC did, per function.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/plugin.sh"
cd "$TMP" || exit 1
[ -f "$PLUGIN" ] || skip_all "plugin not built"

cat > known.c <<'C'
/* static helper: inlined early */
static int helper(int x) { return x * 3 + 1; }
int use_helper(int x) { return helper(x) + 2; }

/* noinline: refused, GCC says why */
__attribute__((noinline)) int refused(int x) { return x ^ 77; }
int use_refused(int x) { return refused(x) + 1; }

/* too large to inline into two callers */
int g;
static int huge(int *p, int n) {
#define X(k) for (int i = 0; i < n; i++) { p[i] = p[i] * k + (p[i] >> 3) - g; if (p[i] > k) g ^= p[i]; }
	X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12)
	return p[0];
}
int big1(int *p, int n) { return huge(p, n); }
int big2(int *p, int n) { return huge(p + 1, n); }

/* a static function called once is inlined by the IPA inliner, together
 * with what it calls (the chain) */
static int small(int *p, int n) {
	int s = 0;
	for (int i = 0; i < n; i++) { s += p[i] * 3; if (s > 1000) s -= p[i] ^ 5; g += s; }
	for (int i = 0; i < n; i++) { s ^= p[i] << 2; if (s < 0) s = -s; }
	return s;
}
int small_user(int *p, int n) { return small(p, n) + 1; }
static int once(int *p, int n) {
	int s = 0;
	for (int i = 0; i < n; i++) { s += p[i] * 7; if (s > 99) s -= p[i] ^ 3; g += s; }
	for (int i = 0; i < n; i++) { s ^= p[i] << 3; if (s < 0) s = -s; }
	return s + small(p, 3);
}
int only(int *p, int n) { return once(p, n); }
C

gcc -O2 -c known.c -o known.o $(plugin_flags src/known.c) \
	-fplugin-arg-pgopt-rules=/p/x.policy:3,/p/x.policy:7 \
	"-fplugin-arg-pgopt-added=-O3 -finline-functions" \
	-fplugin-arg-pgopt-removed=-g 2>err.txt
ok "gcc with the plugin compiles" test -s known.o
is "silent without verbose" "$(cat err.txt)" ""
sec=$(readelf -SW known.o | grep ' .pgopt.log ')
like "record is a .pgopt.log PROGBITS section" "$sec" "PROGBITS"
nok "record section is not allocated" sh -c "readelf -SW known.o | grep ' .pgopt.log ' | grep -q ' A'"

json=$("$PGBUILD" inspect --json - known.o)
like "unit: tu" "$json" '"tu":"src/known.c"'
like "unit: stage compile" "$json" '"stage":"compile"'
like "unit: rules" "$json" '"rules":\["/p/x.policy:3","/p/x.policy:7"\]'
like "unit: added flags" "$json" '"added":\["-O3","-finline-functions"\]'
like "unit: removed flags" "$json" '"removed":\["-g"\]'
like "unit: gcc version" "$json" "\"gcc\":\"$(gcc -dumpfullversion)\""
like "unit: plugin version" "$json" '"plugin":"[0-9]+\.[0-9]+\.[0-9]+"'
like "unit: command line" "$json" '"flags":\[[^]]*"-O2"'

sites=$("$PGBUILD" inspect --sites known.o)
like "static helper inlined early into use_helper" "$sites" $'use_helper\tknown.c:3:[0-9]+\thelper\tearly'
like "called-once function inlined by IPA" "$sites" $'only\tknown.c:[0-9]+:[0-9]+\tonce\tipa'
like "its callee inlined too (chain)" "$sites" $'only\tknown.c:[0-9]+:[0-9]+\tsmall\tipa'
like "chain names the intermediate function" "$json" '"callee":"small","line":[0-9]+,"col":[0-9]+,"chain":\["once"\]'
t=$("$PGBUILD" inspect --function use_refused known.o)
like "noinline callee refused with GCC's reason" "$t" "function not inlinable"
t=$("$PGBUILD" inspect --function big1 known.o)
like "too-large callee refused with GCC's reason" "$t" "max-inline-insns-auto limit reached"
like "noinline attribute recorded" "$("$PGBUILD" inspect --json - --function refused known.o)" '"attributes":\["noinline"\]'
like "per-function opt level and flags" "$json" '"O":"-O2","flags":\["inline-functions"'
like "estimated and ELF sizes" "$("$PGBUILD" inspect --json - --function big1 known.o)" '"size":[1-9][0-9]*,"size_est":[1-9]'
like "text section recorded" "$json" '"section":".text"'
nok "huge itself was not inlined anywhere" sh -c "printf '%s' \"\$1\" | grep -q 'huge'" _ "$sites"

# builtins are not calls GCC could inline: not in the refusals
unlike() { if printf '%s' "$2" | grep -Eq -- "$3"; then tap_result 1 "$1"
	diag "got:  '$2'" "want no match: /$3/"; else tap_result 0 "$1"; fi; }
cat > bi.c <<'C'
#include <string.h>
extern int ext_call(int);
extern void fail(void) __attribute__((noreturn));
int bi(unsigned x, char *d, const char *s, size_t n) {
	if (__builtin_expect(x == 0, 0))
		fail();
	if (x > 100000)
		__builtin_unreachable();
	memcpy(d, s, n);
	int k = __builtin_constant_p(n) ? 1 : 2;
	return __builtin_clz(x) + (int)__builtin_bswap32(x) + ext_call(k) + (int)strlen(s);
}
C
for o in -O0 -O2; do
	gcc $o -c bi.c -o bi.o $(plugin_flags bi.c)
	t=$("$PGBUILD" inspect --json - --function bi bi.o)
	like "builtins $o: real external calls still refused" "$t" '"not_inlined":\[\{"callee":"fail".*\{"callee":"ext_call","reason":"function body not available"'
	unlike "builtins $o: no __builtin_* in the refusals" "$t" '"callee":"__builtin'
	unlike "builtins $o: no library builtins (memcpy, strlen) in the refusals" "$t" '"callee":"(memcpy|strlen)"'
done

# clones: ipa-cp (.constprop), ipa-sra (.isra), partial inlining (.part),
# each recorded under its own name with the function it was cloned from
cat > clones.c <<'C'
/* ipa-cp: a constant argument from every caller -> .constprop clone */
int g;
static __attribute__((noinline)) int cp(int *p, int n, int k)
{
	int s = 0;
	for (int i = 0; i < n; i++) { s += p[i] * k; g ^= s; }
	return s;
}
int cp1(int *p, int n) { return cp(p, n, 5); }
int cp2(int *p, int n) { return cp(p, n + 1, 5); }

/* ipa-sra: only one field of the struct is used -> .isra clone */
struct big { int a, b, c, d[16]; };
static __attribute__((noinline)) int sra(struct big *b, int n)
{
	int s = 0, c = b->c;
	for (int i = 0; i < n; i++) { s += c * i; g += s; }
	return s;
}
int sra1(struct big *b, int n) { return sra(b, n); }
int sra2(struct big *b) { return sra(b, 7); }

/* partial inlining: a cheap test inlined, the large rest split off -> .part */
int slow_total;
static int part(int *p, int n)
{
	if (__builtin_expect(n <= 0, 1))
		return 0;
	for (int i = 0; i < n; i++) { slow_total += p[i] * 3; if (p[i] > 7) slow_total ^= p[i]; }
	for (int i = 0; i < n; i++) { slow_total -= p[i] << 2; if (p[i] < 0) slow_total = -slow_total; }
	for (int i = 0; i < n; i++) { slow_total += p[i] >> 1; g ^= slow_total; }
	return slow_total;
}
int part1(int *p, int n) { return part(p, n) + 1; }
int part2(int *p, int n) { return part(p, n * 2) + 2; }
int part3(int *p, int n) { return part(p + 1, n) + 3; }
C
gcc -O2 -c clones.c -o clones.o $(plugin_flags clones.c)
syms=$(nm clones.o)
for k in constprop:cp isra:sra part:part; do
	kind=${k%%:*} of=${k#*:}
	like "GCC made a .$kind clone of $of" "$syms" " t $of\\.$kind\\.[0-9]+$"
	like ".$kind clone recorded with clone_of and clone_kind" \
		"$("$PGBUILD" inspect --json - --function "$of.$kind.0" clones.o)" \
		"\"name\":\"$of\\.$kind\\.0\".*\"clone_of\":\"$of\",\"clone_kind\":\"$kind\""
done
like ".part clone: the cheap test was inlined into the callers" "$("$PGBUILD" inspect --sites clones.o)" $'part1\tclones.c:[0-9]+:[0-9]+\tpart\t(early|ipa)'
unlike "callers are not clones" "$("$PGBUILD" inspect --json - --function cp1 clones.o)" '"clone_of":"'

# cross-file: only -flto inlines across objects, at link time
cat > x1.c <<'C'
int helper2(int x);
int main(int argc, char **argv) { (void)argv; return helper2(argc) & 1; }
C
cat > x2.c <<'C'
int helper2(int x) { return x * 5 + 1; }
C
gcc -O2 -c x1.c $(plugin_flags x1.c) && gcc -O2 -c x2.c $(plugin_flags x2.c) &&
	gcc -O2 x1.o x2.o -o plain
ok "non-LTO build links" test -x plain
t=$("$PGBUILD" inspect --function main x1.o)
like "non-LTO: cross-file call refused (no body)" "$t" "function body not available"
is "non-LTO: no link-time record" "$("$PGBUILD" inspect --units plain | grep -c ltrans)" "0"
is "non-LTO binary carries both objects' records" "$("$PGBUILD" inspect --units plain | grep -c compile)" "2"

gcc -O2 -flto -c x1.c -o l1.o $(plugin_flags x1.c) &&
	gcc -O2 -flto -c x2.c -o l2.o $(plugin_flags x2.c) &&
	gcc -O2 -flto l1.o l2.o -o lto $(plugin_flags lto) 2>err.txt
ok "LTO build links with the plugin at link time" test -x lto
is "LTO link silent" "$(cat err.txt)" ""
units=$("$PGBUILD" inspect --units lto)
like "compile-time records survive LTO (x1.c)" "$units" "x1.c +compile-lto"
like "compile-time records survive LTO (x2.c)" "$units" "x2.c +compile-lto"
like "link-time (ltrans) record present" "$units" "lto +ltrans"
like "cross-file inline recorded at link time" "$("$PGBUILD" inspect --sites lto)" $'main\tx1.c:2:[0-9]+\thelper2\tlto'
like "counted as cross-file" "$units" "cross-file 1"

# -ffat-lto-objects: the LTO IR's record (compile-lto, before IPA) and the
# fat code's own record (compile-fat, after IPA inlining, like a plain compile)
gcc -O2 -flto -ffat-lto-objects -c known.c -o fat.o $(plugin_flags src/known.c) \
	-fplugin-arg-pgopt-log=$TMP/fatlog 2>err.txt
is "fat: silent" "$(cat err.txt)" ""
units=$("$PGBUILD" inspect --units fat.o)
like "fat: the IR's record (compile-lto)" "$units" "^src/known.c +compile-lto "
like "fat: the fat code's record (compile-fat)" "$units" "^src/known.c +compile-fat +8 fn "
t=$("$PGBUILD" inspect --sites fat.o | awk -F'\t' '$2 == "only"')
like "fat: IPA inlining of the fat code recorded" "$t" $'only\tknown.c:[0-9]+:[0-9]+\tonce\tipa'
like "fat: refusals of the fat code recorded" "$("$PGBUILD" inspect --function big1 fat.o)" "max-inline-insns-auto limit reached"
is "fat: the same IPA inlining as a plain compile" \
	"$("$PGBUILD" inspect --sites fat.o | grep -v $'\tearly$' | cut -f2-)" \
	"$("$PGBUILD" inspect --sites known.o | grep -v $'\tearly$' | cut -f2-)"
objcopy --dump-section .pgopt.log=fatsec.txt fat.o junk.o
ok "fat: sidecar equals the section (both records)" cmp fatsec.txt fatlog/functions/src/known.c.jsonl
gcc -O2 -flto -ffat-lto-objects -c x1.c -o f1.o $(plugin_flags x1.c) &&
	gcc -O2 -flto -ffat-lto-objects -c x2.c -o f2.o $(plugin_flags x2.c) &&
	gcc -O2 -fno-lto f1.o f2.o -o fatplain
like "fat, linked without LTO: the fat code's records are in the binary" \
	"$("$PGBUILD" inspect --units fatplain | grep -c compile-fat)" "^2$"
gcc -O2 -flto f1.o f2.o -o fatlto $(plugin_flags fatlto)
like "fat, linked with LTO: link-time record and cross-file inline" \
	"$("$PGBUILD" inspect --sites fatlto)" $'main\tx1.c:2:[0-9]+\thelper2\tlto'
is "fat, linked with LTO: the fat code is not in the binary" \
	"$("$PGBUILD" inspect --units fatlto | grep -c compile-fat)" "0"

# sidecar
gcc -O2 -c known.c -o side.o $(plugin_flags src/known.c) -fplugin-arg-pgopt-log=$TMP/log
ok "sidecar functions/<tu>.jsonl written" test -s log/functions/src/known.c.jsonl
is "sidecar: a unit line and 8 function lines" "$(wc -l < log/functions/src/known.c.jsonl)" "9"
objcopy --dump-section .pgopt.log=sec.txt side.o junk.o
ok "sidecar equals the section" cmp sec.txt log/functions/src/known.c.jsonl

# verbose
gcc -O2 -c known.c -o v.o $(plugin_flags known.c) -fplugin-arg-pgopt-verbose 2>err.txt
like "verbose: says what it recorded" "$(cat err.txt)" "pgopt: 8 function records in .pgopt.log"

# option errors: one GCC error naming the full option
gcc -O2 -c known.c -o e.o -fplugin=$PLUGIN -fplugin-arg-pgopt-bogus=1 2>err.txt
like "unknown key is an error naming the option" "$(cat err.txt)" "unknown option .-fplugin-arg-pgopt-bogus."
nok "unknown key fails the compile" gcc -O2 -c known.c -o e.o -fplugin=$PLUGIN -fplugin-arg-pgopt-bogus=1
gcc -O2 -c known.c -o e.o -fplugin=$PLUGIN -fplugin-arg-pgopt-log 2>err.txt
like "missing value is an error" "$(cat err.txt)" "-fplugin-arg-pgopt-log. needs a value"
gcc -O2 -c known.c -o e.o -fplugin=$PLUGIN -fplugin-arg-pgopt-tu= 2>err.txt
is "empty tu is accepted (the wrapper's default)" "$(cat err.txt)" ""
like "empty tu: named after the input" "$("$PGBUILD" inspect --units e.o)" "^known.c "
gcc -O2 -c known.c -o e.o -fplugin=$PLUGIN -fplugin-arg-pgopt-hot=/nonexistent 2>err.txt
like "unreadable hot list is an error" "$(cat err.txt)" "-fplugin-arg-pgopt-hot=/nonexistent.: cannot open"

# list-digest: the wrapper's digest of the hot/cold lists, kept in the unit
gcc -O2 -c known.c -o d.o $(plugin_flags known.c) -fplugin-arg-pgopt-list-digest=0123abcdef99 2>err.txt
is "list-digest accepted silently" "$(cat err.txt)" ""
objcopy --dump-section .pgopt.log=d.txt d.o junk.o
like "list-digest recorded in the unit line" "$(head -n 1 d.txt)" '"kind":"unit".*"list_digest":"0123abcdef99"'
objcopy --dump-section .pgopt.log=d.txt known.o junk.o
nok "no list-digest: no list_digest key" grep -q list_digest d.txt
gcc -O2 -c known.c -o e.o -fplugin=$PLUGIN -fplugin-arg-pgopt-list-digest=xyz 2>err.txt
like "non-hex list-digest is an error" "$(cat err.txt)" "-fplugin-arg-pgopt-list-digest=xyz.: not a hexadecimal digest"
gcc -O2 -c known.c -o e.o -fplugin=$PLUGIN -fplugin-arg-pgopt-list-digest 2>err.txt
like "list-digest without a value is an error" "$(cat err.txt)" "-fplugin-arg-pgopt-list-digest. needs a value"
gcc -O2 -c known.c -o e.o -fplugin=$PLUGIN -fplugin-arg-pgopt-list-digests=ab 2>err.txt
like "a near-miss key stays unknown" "$(cat err.txt)" "unknown option .-fplugin-arg-pgopt-list-digests."

# every option the plugin accepts is documented: in its help text (what
# gcc -fplugin=pgopt.so -v --help prints) and in pgopt.cc's header
src=$TOP/plugin/pgopt.cc
keys=$(sed -nE 's/.*strcmp\(arg->key, "([a-z-]+)"\).*/\1/p' "$src")
help=$(gcc -fplugin=$PLUGIN -v --help 2>&1 </dev/null | sed -n '/^Help for the loaded plugins:/,$p')
header=$(sed -n '1,/^\*\//p' "$src")
is "option parser knows 9 keys" "$(printf '%s\n' $keys | wc -l)" "9"
for k in $keys; do
	like "option $k in --help" "$help" "-fplugin-arg-pgopt-$k(=| )"
	like "option $k in the header's option list" "$header" "^ \* +$k(=| |$)"
done
for f in $(printf '%s\n' "$header" | grep -oE '(plugin|tests|wrapper|pgbuild)/[A-Za-z0-9_./-]*[A-Za-z0-9_]|README[A-Za-z.]*' | sort -u); do
	ok "the header's reference $f exists" test -e "$TOP/$f"
done

# a plugin built for another GCC: one clear line, no crash
if [ -f "$B/tests/pgopt-fakever.so" ]; then
	gcc -O2 -c known.c -o e.o -fplugin=$B/tests/pgopt-fakever.so 2>err.txt; rc=$?
	is "version mismatch fails with gcc's error status" "$rc" "1"
	is "version mismatch: exactly one line" "$(wc -l < err.txt)" "1"
	like "version mismatch: says both versions" "$(cat err.txt)" "built for GCC 11.1.0 but this is GCC $(gcc -dumpfullversion)"
else
	skip "$B/tests/pgopt-fakever.so is not built (make all): no version-mismatch case" 3
fi
done_testing
