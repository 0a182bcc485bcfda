#!/bin/bash
# 18-wrapper-static-lto.t - a static library built with an LTO policy keeps
# its code when stripped.  lto = on makes fat LTO objects with GCC, so after
# the strip debhelper's dh_strip gives a static library (--strip-debug, and
# the LTO sections and symbols removed: -R .gnu.lto_* -R .gnu.debuglto_*
# -N __gnu_lto_slim -N __gnu_lto_v1) the archive still defines its
# functions, and a
# program linked statically against it, without LTO, links and runs.
# lto = slim makes slim objects: the same steps leave an archive that
# defines nothing, and the link fails, as it did before lto = on was fat.
. "$(dirname "$0")/../lib/tap.sh"
W=$B/bin/pgoptcc
cd "$TMP" || exit 1
mkdir -p src/port
touch configure
cat > src/port/add.c <<'C'
int port_add(int a, int b) { return a + b; }
C
cat > src/port/mul.c <<'C'
int port_mul(int a, int b) { return a * b; }
C
cat > main.c <<'C'
int port_add(int, int); int port_mul(int, int);
int main(void) { return port_add(2, 3) * port_mul(1, 1) == 5 ? 0 : 1; }
C
printf '[global]\nlto = on\n' > on.policy
printf '[global]\nlto = slim\n' > slim.policy
FLAGS="-O2 -fno-strict-aliasing -fwrapv -fexcess-precision=standard"

# lib POLICY: libport-POLICY.a through pgoptcc, stripped like dh_strip does
lib() {
	rm -f "lib$1.a" add.o mul.o
	PGOPT_POLICY=$TMP/$1.policy "$W" $FLAGS -c src/port/add.c -o add.o &&
	PGOPT_POLICY=$TMP/$1.policy "$W" $FLAGS -c src/port/mul.c -o mul.o &&
	gcc-ar crs "lib$1.a" add.o mul.o &&
	strip --strip-debug --remove-section=.comment --remove-section=.note \
		--enable-deterministic-archives -R '.gnu.lto_*' -R '.gnu.debuglto_*' \
		-N __gnu_lto_slim -N __gnu_lto_v1 "lib$1.a"
}
defined() { nm --defined-only "$1" 2>/dev/null | grep -c ' T port_'; }

ok "lto = on: the library builds and strips" lib on
like "lto = on: the objects are LTO objects" "$(readelf -S add.o)" '\.gnu\.lto_'
like "lto = on: pgoptcc added -ffat-lto-objects" \
	"$(readelf -p .GCC.command.line add.o)" ' -flto .*-ffat-lto-objects'
is "lto = on: no LTO section survives the strip" "$(readelf -S libon.a | grep -c '\.gnu\.lto_')" 0
is "lto = on: the stripped archive defines both functions" "$(defined libon.a)" 2
ok "lto = on: a program links statically against it" gcc -O2 main.c -o prog-on -L. -lon -static
ok "lto = on: and runs" ./prog-on

ok "lto = slim: the library builds and strips" lib slim
nok "lto = slim: no -ffat-lto-objects" grep -q -- -ffat-lto-objects <(readelf -p .GCC.command.line add.o)
is "lto = slim: the stripped archive defines nothing" "$(defined libslim.a)" 0
nok "lto = slim: the static link fails" gcc -O2 main.c -o prog-slim -L. -lslim -static
done_testing
