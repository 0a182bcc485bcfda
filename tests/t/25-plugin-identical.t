#!/bin/bash
# 25-plugin-identical.t - the plugin in record-only mode (no hot/cold lists)
# leaves the generated code as it is: objects compiled with pgopt.so loaded
# have byte-identical code and data sections (.text*, .rodata*, .data*,
# .bss*, .tdata*/.tbss*, init/fini arrays), symbols and relocations to
# plain gcc's - on the C fixtures of the plugin suites (tests/t/20, 21)
# and a set of constructs below, at several optimization levels, and at an
# LTO link where the plugin runs in the link-time stage.  The same on
# PostgreSQL backend files: tests/pg/21.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/plugin.sh"
cd "$TMP" || exit 1
[ -f "$PLUGIN" ] || skip_all "plugin not built"

# the fixtures the plugin suites compile (extracted from their here-docs;
# headers keep their names, for the #includes)
for t in 20-plugin-record 21-plugin-oracle 22-plugin-hotcold; do
	perl -ne 'if (/^cat > (\S+\.[ch]) <<.(\w+).$/) { $f = $1; $e = $2;
			open(O, ">", $f =~ /\.h$/ ? $f : "'"$t"'-$f") or die; next }
		if (defined $e && $_ eq "$e\n") { close(O); undef $e; next }
		print O $_ if defined $e;' "$TOP/tests/t/$t.t"
done
# and constructs whose code lands in every kind of section
cat > constructs.c <<'C'
#include <setjmp.h>
#include <stdarg.h>
#include <string.h>
int counter = 7;                          /* .data */
static int zeros[64];                     /* .bss */
const int table[] = { 3, 1, 4, 1, 5, 9 }; /* .rodata */
__thread int tls_init = 5;                /* .tdata */
__thread int tls_zero;                    /* .tbss */
static jmp_buf jb;
static inline int sq(int x) { return x * x; }
__attribute__((always_inline)) static inline int cube(int x) { return x * sq(x); }
__attribute__((noinline)) int keep(int x) { return x + counter; }
__attribute__((hot)) int hotf(int *p, int n) { int s = 0; for (int i = 0; i < n; i++) s += p[i] * 3; return s; }
__attribute__((cold)) void coldf(const char *m) { memcpy(zeros, m, strlen(m) % 64); }
int jump(int k) {
	switch (k) { case 0: return 11; case 1: return 22; case 2: return 37; case 3: return 41;
	case 4: return 53; case 5: return 67; case 6: return 71; default: return -1; }
}
const char *name(int k) { static const char *n[] = { "zero", "one", "two" }; return k < 3 ? n[k] : "many"; }
int sum(int n, ...) { va_list ap; int s = 0; va_start(ap, n); while (n--) s += va_arg(ap, int); va_end(ap); return s; }
int rec(int n) { return n < 2 ? n : rec(n - 1) + rec(n - 2); }
void vec(float *restrict a, const float *restrict b, int n) { for (int i = 0; i < n; i++) a[i] = a[i] * 2.0f + b[i]; }
int jumpy(void) { if (setjmp(jb)) return 1; longjmp(jb, 1); }
int computed(int i) { static void *l[] = { &&a, &&b }; goto *l[i & 1]; a: return 1; b: return 2; }
int all(int x) { if (x < 0) coldf("negative"); tls_zero += tls_init; return cube(x) + keep(x) + jump(x) + table[x % 6] + sum(3, 1, 2, x) + computed(x); }
__attribute__((constructor)) static void init(void) { counter++; }
C

n=0 bad=0 tried=0
for src in *.c; do
	for flags in "-O0" "-O2" "-O3 -g" "-Os -fPIC -ffunction-sections -fdata-sections" "-O2 -flto=auto -ffat-lto-objects"; do
		tag=$(printf '%s' "$flags" | tr -c 'A-Za-z0-9' _)
		tried=$((tried + 1))
		# shellcheck disable=SC2086
		gcc $flags -c "$src" -o "plain-$tag-$src.o" 2>/dev/null || { diag "plain gcc cannot compile $src with $flags: not compared"; continue; }
		# record-only: the plugin with its record and sidecar, no lists
		# shellcheck disable=SC2086
		gcc $flags -c "$src" -o "rec-$tag-$src.o" $(plugin_flags "$src") \
			-fplugin-arg-pgopt-log="$TMP/log" -fplugin-arg-pgopt-rules=/p/x.policy:1 \
			"-fplugin-arg-pgopt-added=$flags" 2>err.txt || { bad=$((bad + 1)); diag "$src $flags: plugin compile failed"; continue; }
		n=$((n + 1))
		if ! same_code "plain-$tag-$src.o" "rec-$tag-$src.o" 2>diff.txt; then
			bad=$((bad + 1))
			diag "$src with $flags:" "$(cat diff.txt)"
		fi
		readelf -SW "rec-$tag-$src.o" | grep -q '\.pgopt\.log\|\.gnu\.lto' || { bad=$((bad + 1)); diag "$src $flags: no record"; }
	done
done
is "every fixture compiled with every flag set ($(ls ./*.c | wc -l) sources x 5)" "$n" "$tried"
is "every object with the plugin has plain gcc's code, data, symbols and relocations ($n pairs)" "$bad" 0

# the check can fail: with a hot and a cold list the plugin does change
# where code goes (.text.hot / .text.unlikely)
printf 'hotf\nrec\n' > hot.txt
printf 'keep\n' > cold.txt
gcc -O2 -c constructs.c -o lists.o $(plugin_flags constructs.c) \
	-fplugin-arg-pgopt-hot="$TMP/hot.txt" -fplugin-arg-pgopt-cold="$TMP/cold.txt"
nok "with hot/cold lists the code differs (the comparison sees it)" same_code plain-_O2-constructs.c.o lists.o

# the LTO link: the plugin runs in lto1 (the link-time stage) too
gcc -O2 -flto=auto -c constructs.c -o lto-a.o
printf 'int all(int);\nint main(int c, char **v) { (void)v; return all(c) & 1; }\n' > main.lto
gcc -O2 -flto=auto -x c -c main.lto -o lto-m.o
gcc -O2 -flto=auto -o plain-exe lto-m.o lto-a.o
gcc -O2 -flto=auto -o rec-exe lto-m.o lto-a.o $(plugin_flags src/postgres) 2>err.txt
ok "the LTO link with the plugin works" test -x rec-exe
like "the executable holds the link-time record" "$(readelf -SW rec-exe)" '\.pgopt\.log'
ok "LTO link: the executable's code is plain gcc's" same_code plain-exe rec-exe
done_testing
