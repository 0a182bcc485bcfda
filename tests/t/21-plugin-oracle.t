#!/bin/bash
# 21-plugin-oracle.t - the inlined call sites pgopt.so records are exactly
# the ones GCC itself reports with -fopt-info-inline-optimized, in the same
# compile, at several optimization levels (early, IPA, clones, always_inline,
# flatten, header inline functions, recursion).
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

for o in -O2 "-O2 -g" -O3 -Os "-O3 -fno-early-inlining" "-O2 -finline-limit=1000"; do
	rm -f opt.txt
	gcc $o -c prog.c -o prog.o $(plugin_flags prog.c) -fopt-info-inline-optimized=$TMP/opt.txt
	oracle_check "prog.c $o: plugin sites == -fopt-info-inline-optimized" prog.o opt.txt
done

# -fopt-info is silent about the called-once inliner: check those against
# GCC's IPA dump instead
for o in -O1 "-O2 -fno-inline-small-functions"; do
	rm -f opt.txt prog.o-*
	gcc $o -c prog.c -o prog.o $(plugin_flags prog.c) -fopt-info-inline-optimized=$TMP/opt.txt \
		-fdump-ipa-inline=$TMP/ipa.txt
	oracle_check_dump "prog.c $o: -fopt-info sites recorded, the rest in GCC's IPA dump" \
		prog.o opt.txt ipa.txt
	like "prog.c $o: called-once inlining recorded" "$(plugin_sites prog.o)" "prog.c:36:[0-9]+ once"
done

# the same set holds in the known-outcome program of 20-plugin-record.t,
# reached through a chain of several files
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
	gcc $o -c a.c -o a.o $(plugin_flags a.c) -fopt-info-inline-optimized=$TMP/opt-a.txt
	oracle_check "a.c $o: plugin sites == -fopt-info" a.o opt-a.txt
	rm -f opt-a.txt
done
done_testing
