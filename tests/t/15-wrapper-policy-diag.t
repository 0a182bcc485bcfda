#!/bin/bash
# 15-wrapper-policy-diag.t - policy diagnostics through the real pgoptcc and
# gcc: --pgopt-check-policy warns about sections that can never match (the
# build stays silent), near-miss keys get the line they meant, hot/cold
# lists that cannot be read fail at load naming file:line, a UTF-8 BOM is
# fine, ABI-changing flags are refused, and bolt = ready gives what LLVM
# BOLT needs: no .cold function parts, relocations kept in the executable.
# (The parser's every message is in tests/unit/test-policy.c.)
. "$(dirname "$0")/../lib/tap.sh"
W=$B/bin/pgoptcc
unset PGOPT_POLICY PGOPT_LOGDIR PGOPT_PREFIX PGOPT_ROOT PGOPT_CC PGOPT_PLUGIN PGOPT_FAILSAFE
unset PGOPT_PASSTHROUGH PGOPT_VERBOSE
export PGOPT_ROOT=$TMP
cd "$TMP" || exit 1
mkdir -p src/backend/executor
cat > src/backend/executor/exec.c <<'C'
extern void report(int) __attribute__((cold));
extern int g(int);
int f(int x) {
	int s = 0;
	for (int i = 0; i < x; i++) {
		if (i == x / 3) { report(i); s += g(i) * g(s); report(s); }
		s += i;
	}
	return s;
}
C
printf 'int f(int);\nvoid report(int x) { (void)x; }\nint g(int x) { return x; }\nint main(void) { return f(10) == 54 ? 0 : 1; }\n' > main.c

# --- warnings: --pgopt-check-policy only, never in a build ---
cat > warn.policy <<'P'
[src/backend/executor]
cflags += -O3
[/src/backend/executor/exec.c]
cflags += -fno-plt
[*.o]
cflags += -O1
P
out=$("$W" --pgopt-check-policy warn.policy 2> err); s=$?
is "check-policy with warnings: exit 0" "$s" 0
is "three warnings, one line each" "$(wc -l < err)" 3
like "a bare directory: the globs it may have meant" "$(sed -n 1p err)" \
	"^pgoptcc: warning: $TMP/warn.policy:1: section \[src/backend/executor\] can never match a C translation unit: it names a directory, not files; for the C files in it write \[src/backend/executor/\*\.c\], with its subdirectories \[src/backend/executor/\*\*\]\$"
like "an absolute path" "$(sed -n 2p err)" "^pgoptcc: warning: $TMP/warn.policy:3: section \[/src/backend/executor/exec.c\] is an absolute path"
like "a glob of no C file" "$(sed -n 3p err)" "^pgoptcc: warning: $TMP/warn.policy:5: section \[\*\.o\] can never match a C translation unit"
like "the JSON carries them for callers (pgbuild)" "$out" '"warnings":\["[^"]*warn.policy:1: section \[src/backend/executor\]'
PGOPT_POLICY=$TMP/warn.policy "$W" -c src/backend/executor/exec.c -o w.o 2> err; s=$?
is "the build with that policy: exit 0, silent" "$s/$(cat err)" "0/"
like "... the leading '/' is ignored: that section applied" "$(readelf -p .GCC.command.line w.o)" "-fno-plt"

# --- near-miss keys ---
printf '[global]\nCFLAGS += -O3\n' > upper.policy
PGOPT_POLICY=$TMP/upper.policy "$W" -c main.c -o m.o 2> err; s=$?
is "CFLAGS += -O3: exit 101" "$s" 101
is "... answered with the lowercase line it meant" "$(cat err)" \
	"pgoptcc: error: $TMP/upper.policy:2: expected a known key (cflags, ldflags, lto, march, hot, cold, plugin, bolt), got \"CFLAGS\": did you mean \"cflags += -O3\"?"
printf '[global]\ncflag += -O3\n' > miss.policy
"$W" --pgopt-check-policy miss.policy >/dev/null 2> err; s=$?
like "cflag += -O3 in check-policy: exit 101 and the suggestion" "$s/$(cat err)" '^101/.*got "cflag": did you mean "cflags \+= -O3"\?$'

# --- hot/cold lists that cannot be read: at load, not in cc1 ---
printf '[global]\n\nhot = missing.txt\n' > hot.policy
"$W" --pgopt-check-policy hot.policy >/dev/null 2> err; s=$?
is "hot = missing.txt: check-policy exit 101" "$s" 101
is "... naming file:line, the list and strerror" "$(cat err)" \
	"pgoptcc: error: $TMP/hot.policy:3: cannot read the hot list $TMP/missing.txt: No such file or directory"
PGOPT_POLICY=$TMP/hot.policy "$W" -c main.c -o m.o 2> err; s=$?
is "hot = missing.txt in a build: exit 101 before gcc runs" "$s/$(cat err)" \
	"101/pgoptcc: error: $TMP/hot.policy:3: cannot read the hot list $TMP/missing.txt: No such file or directory"
mkdir -p cold.d && printf '[global]\ncold = cold.d\n' > cold.policy
"$W" --pgopt-check-policy cold.policy >/dev/null 2> err; s=$?
like "cold = a directory: exit 101" "$s/$(cat err)" "^101/.*cold.policy:2: cannot read the cold list $TMP/cold.d: it is a directory, expected a regular file\$"

# --- a UTF-8 BOM ---
printf '\xef\xbb\xbf[global]\ncflags += -fno-plt\n' > bom.policy
PGOPT_POLICY=$TMP/bom.policy "$W" -c main.c -o bom.o 2> err; s=$?
is "a policy starting with a UTF-8 BOM: builds, silent" "$s/$(cat err)" "0/"
like "... and applies" "$(readelf -p .GCC.command.line bom.o)" "-fno-plt"

# --- documented values only ---
printf '[global]\nlto = yes\n' > yes.policy
"$W" --pgopt-check-policy yes.policy >/dev/null 2> err; s=$?
is "lto = yes: exit 101, the values listed" "$s/$(cat err)" \
	"101/pgoptcc: error: $TMP/yes.policy:2: expected lto = on, off or fat, got \"yes\""

# --- ABI-changing flags: refused everywhere, [global] too ---
for flag in -fpack-struct -fshort-enums -fshort-wchar -freg-struct-return -fpcc-struct-return \
	-funsigned-char -fsigned-char -malign-double -mabi=ms -ffixed-rbx -fcall-used-rbx \
	-fcall-saved-r11 -m32 -mx32 -m16; do
	printf '[src/backend/executor/exec.c]\ncflags += -O2 %s\n' "$flag" > abi.policy
	PGOPT_POLICY=$TMP/abi.policy "$W" -c src/backend/executor/exec.c -o abi.o 2> err; s=$?
	like "$flag in a section: exit 101, line and reason" "$s/$(cat err)" \
		"^101/pgoptcc: error: $TMP/abi.policy:2: cannot add $flag: it changes the ABI \([^)]+\): objects built with it disagree with the rest of PostgreSQL, libc and extensions\$"
done
printf '[global]\ncflags += -fpack-struct=4\n' > abi.policy
"$W" --pgopt-check-policy abi.policy >/dev/null 2> err; s=$?
like "-fpack-struct=4 in [global]: refused too" "$s/$(cat err)" "^101/.*abi.policy:2: cannot add -fpack-struct=4: it changes the ABI \(struct layout\)"

# --- bolt = ready ---
printf '[global]\nbolt = ready\n' > bolt.policy
like "check-policy shows bolt" "$("$W" --pgopt-check-policy bolt.policy)" '"bolt":"ready"'
like "check-policy: bolt off by default" "$("$W" --pgopt-check-policy bom.policy)" '"bolt":"off"'
gcc -O2 -c src/backend/executor/exec.c -o plain.o
like "plain gcc -O2 splits f into a .cold part (the fixture shows the case)" "$(nm plain.o)" " f\.cold\$"
PGOPT_LOGDIR=$TMP/log PGOPT_POLICY=$TMP/bolt.policy "$W" -O2 -c src/backend/executor/exec.c -o bolt.o 2> err; s=$?
is "bolt = ready: the compile builds, silent" "$s/$(cat err)" "0/"
ok "bolt = ready: no .cold part" sh -c "! nm bolt.o | grep -q 'f\.cold'"
like "bolt = ready: the object records -fno-reorder-blocks-and-partition" "$(readelf -p .GCC.command.line bolt.o)" "-fno-reorder-blocks-and-partition"
PGOPT_POLICY=$TMP/bolt.policy "$W" -O2 -c main.c -o main.o
PGOPT_LOGDIR=$TMP/log PGOPT_POLICY=$TMP/bolt.policy "$W" -O2 -o prog main.o bolt.o 2> err; s=$?
is "bolt = ready: the link builds, silent" "$s/$(cat err)" "0/"
ok "bolt = ready: the program runs" ./prog
like "bolt = ready: the executable keeps its relocations (--emit-relocs)" "$(readelf -SW prog)" '\.rela\.text '
gcc -O2 -o prog-plain main.o bolt.o
ok "without it, a plain link has none (the check can fail)" sh -c "! readelf -SW prog-plain | grep -q '\.rela\.text '"
like "bolt = ready: the link is a changed one, logged" "$(grep '"kind":"link"' log/compile.jsonl | tail -n 1)" \
	'"changed":true.*"added":\["-Wl,--emit-relocs"\]'
done_testing
