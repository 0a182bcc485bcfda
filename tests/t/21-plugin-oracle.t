#!/bin/bash
# 21-plugin-oracle.t - the inlined call sites pgopt.so records are exactly
# the inlining decisions GCC itself reports for the same compile:
# -fopt-info-inline-optimized, plus the called-once inliner's decisions,
# which GCC writes only to -fdump-ipa-inline (see tests/lib/plugin-oracle.pl),
# at several optimization levels (early, IPA, called-once, clones,
# always_inline, flatten, header inline functions, recursion), on the
# known-outcome program of 20-plugin-record.t, and at an LTO link.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/plugin.sh"
cd "$TMP" || exit 1
[ -f "$PLUGIN" ] || skip_all "plugin not built"

cat > util.h <<'C'
static inline int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
static inline unsigned hash_u32(unsigned x) { x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; return x; }
C
cat > prog.c <<'C'
#include <string.h>
#include "util.h"
int g;
struct buf { char *p; int len, cap; };
static int grow(struct buf *b, int need) {
	while (b->cap < b->len + need) { b->cap = b->cap ? b->cap * 2 : 16; g++; }
	return b->cap;
}
static void put(struct buf *b, const char *s) {
	int n = (int)strlen(s);
	grow(b, n);
	memcpy(b->p + b->len, s, (size_t)n);
	b->len += n;
}
void put3(struct buf *b) { put(b, "a"); put(b, "bc"); put(b, "def"); }
static inline __attribute__((always_inline)) int ai(int x) { return hash_u32((unsigned)x) & 7; }
__attribute__((flatten)) int flat(int x) { return ai(x) + clamp(x, 0, 9); }
static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int use_fib(int n) { return fib(n) + fib(n + 1); }
static int scale(int x, int k) { int s = 0; for (int i = 0; i < k; i++) s += x * i + (s >> 2); return s; }
int sc1(int x) { return scale(x, 4); }
int sc2(int x) { return scale(x, 4) + scale(x + 1, 4); }
int sc3(int x, int k) { return scale(x, k); }
typedef int (*fn)(int);
static int apply(fn f, int x) { return f(x) + 1; }
int use_apply(int x) { return apply(sc1, x) + apply(flat, x); }
static int mid(int *p, int n) {
	int s = 0;
	for (int i = 0; i < n; i++) { s += p[i] * 3; if (s > 1000) s -= p[i] ^ 5; g += s; }
	for (int i = 0; i < n; i++) { s ^= p[i] << 2; if (s < 0) s = -s; }
	return s + clamp(s, 1, 5);
}
int m1(int *p, int n) { return mid(p, n) + 1; }
int m2(int *p, int n) { return mid(p, n * 2) + 2; }
static int once(int *p, int n) { int s = mid(p, 3); for (int i = 0; i < n; i++) s += p[i] * 7 + (s >> 3); return s; }
int only(int *p, int n) { return once(p, n) + hash_u32((unsigned)n); }
C

# GCC's decisions: -fopt-info-inline-optimized, plus the called-once
# inliner's, which -fopt-info does not report and -fdump-ipa-inline does
for o in -O1 -O2 "-O2 -g" -O3 -Os "-O3 -fno-early-inlining" "-O2 -finline-limit=1000" \
	"-O2 -fno-inline-small-functions"; do
	rm -f opt.txt ipa.txt
	gcc $o -c prog.c -o prog.o $(plugin_flags prog.c) -fopt-info-inline-optimized=$TMP/opt.txt \
		-fdump-ipa-inline=$TMP/ipa.txt
	oracle_check "prog.c $o: plugin sites == GCC's decisions" prog.o opt.txt ipa.txt
done
for o in -O1 "-O2 -fno-inline-small-functions"; do
	rm -f opt.txt ipa.txt
	gcc $o -c prog.c -o prog.o $(plugin_flags prog.c) -fopt-info-inline-optimized=$TMP/opt.txt \
		-fdump-ipa-inline=$TMP/ipa.txt
	like "prog.c $o: called-once inlining recorded" "$(plugin_sites prog.o)" "prog.c:36:[0-9]+ once"
	like "prog.c $o: GCC's dump has it as called once" "$(cat ipa.txt)" $'Inlining once/[0-9]+ size [0-9]+.\n Called once from only/'
	nok "prog.c $o: -fopt-info does not report it" grep -q 'Inlin[a-z]* once/' opt.txt
done

# without the called-once decisions of the dump, the record has sites GCC
# did not report: the oracle would fail (it is not a superset check)
gcc -O1 -c prog.c -o prog.o $(plugin_flags prog.c) -fopt-info-inline-optimized=$TMP/opt.txt
out=$(perl "$TOP/tests/lib/plugin-oracle.pl" <("$PGBUILD" inspect --json - prog.o) '^compile$' opt.txt)
is "the oracle fails on a record with unreported sites" "$?" "1"
like "and names the unreported site" "$out" "recorded, but no GCC decision: prog.c:36:[0-9]+ once in only"

# a small multi-function program: early and IPA inlining into several callers
cat > a.c <<'C'
static int sq(int x) { return x * x; }
static int add3(int a) { return sq(a) + 3; }
__attribute__((noinline)) static int never(int x) { return x * 7 + sq(x); }
int big(int x);
int ext(int x) { return big(x) + add3(x) + never(x); }
static int mid(int *p, int n) { int s = 0; for (int i = 0; i < n; i++) s += p[i] * add3(i); return s; }
int caller2(int *p, int n) { return mid(p, n) + mid(p + 1, n - 1); }
C
for o in -O2 -O3; do
	rm -f opt-a.txt ipa-a.txt
	gcc $o -c a.c -o a.o $(plugin_flags a.c) -fopt-info-inline-optimized=$TMP/opt-a.txt \
		-fdump-ipa-inline=$TMP/ipa-a.txt
	oracle_check "a.c $o: plugin sites == GCC's decisions" a.o opt-a.txt ipa-a.txt
done

# the known-outcome program of 20-plugin-record.t (small is inlined into
# small_user by the called-once inliner at -O2, into once by the greedy one)
sed -n '/^cat > known.c/,/^C$/p' "$TOP/tests/t/20-plugin-record.t" | sed '1d;$d' > known.c
for o in -O1 -O2 -O3; do
	rm -f opt-k.txt ipa-k.txt
	gcc $o -c known.c -o known.o $(plugin_flags known.c) -fopt-info-inline-optimized=$TMP/opt-k.txt \
		-fdump-ipa-inline=$TMP/ipa-k.txt
	oracle_check "known.c $o: plugin sites == GCC's decisions" known.o opt-k.txt ipa-k.txt
done

# -ffat-lto-objects: the fat code's record (compile-fat) is what a plain
# compile records: the same exact match with the same compile's decisions
for o in -O1 -O2; do
	rm -f opt-f.txt ipa-f.txt
	gcc $o -flto -ffat-lto-objects -c known.c -o fat.o $(plugin_flags known.c) \
		-fopt-info-inline-optimized=$TMP/opt-f.txt -fdump-ipa-inline=$TMP/ipa-f.txt
	ORACLE_STAGE='^compile-fat$' oracle_check "known.c $o -ffat-lto-objects: fat code's sites == GCC's decisions" \
		fat.o opt-f.txt ipa-f.txt
done

# -flto across files: the oracle is the LTO link's -fopt-info and WPA dump
# (WPA has no statements, so its decisions carry no location: they are
# matched by callee and caller), against the link-time (ltrans) records
cat > l1.c <<'C'
int helper2(int x);
int twice(int x);
static int loc(int x) { return helper2(x) ^ twice(x); }
int main(int argc, char **argv) { (void)argv; return (helper2(argc) + loc(argc)) & 1; }
C
cat > l2.c <<'C'
int g2;
int helper2(int x) { return x * 5 + 1; }
static int inner(int x) { int s = 0; for (int i = 0; i < x; i++) { s += i * x; g2 ^= s; } return s; }
int twice(int x) { return inner(x) + inner(x + 1) + helper2(x); }
C
rm -rf ld && mkdir ld
gcc -O2 -flto -c l1.c -o l1.o $(plugin_flags l1.c) &&
	gcc -O2 -flto -c l2.c -o l2.o $(plugin_flags l2.c) &&
	gcc -O2 -flto l1.o l2.o -o lprog $(plugin_flags lprog) -dumpdir ld/ \
		-fopt-info-inline-optimized=$TMP/opt-l.txt -fdump-ipa-inline
ok "LTO program links with the plugin" test -x lprog
like "LTO: GCC reports a cross-module inline" "$(cat opt-l.txt)" "Inlined helper2/[0-9]+ into main/[0-9]+ .*cross module"
ORACLE_STAGE='^ltrans$' oracle_check "LTO link: link-time sites == GCC's WPA decisions" lprog opt-l.txt ld/wpa.*i.inline
done_testing
