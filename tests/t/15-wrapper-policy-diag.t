#!/bin/bash
# 15-wrapper-policy-diag.t - policy diagnostics through the real pgoptcc and
# gcc: --pgopt-check-policy warns about sections that can never match (the
# build stays silent), near-miss keys get the line they meant, hot/cold
# lists that cannot be read fail at load naming file:line, a UTF-8 BOM is
# fine, ABI-changing flags are refused, the policy is an optimization
# vocabulary (every flag that loads code, names a path or changes the output
# refused at load and by check-policy, exit 101, file:line, flag and reason),
# the caller's PGOPT_UNCHECKED_FLAGS=1 lets such flags through (logged in
# every record), PGOPT_PROFILE adds the profile flags pgbuild pgo needs, and
# bolt = ready gives what LLVM BOLT needs: no .cold function parts,
# relocations kept in the executable; --pgopt-check-policy asks the real
# compiler whether it takes each flag (exit 101, file:line and the flag),
# once per flag and compiler: a second check runs nothing (a PATH wrapper
# counts the calls).
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

# --- the compiler is asked whether it takes each flag: once, cached ---
# (issue 42: -fno-such-flag passed the check and failed only in make)
mkdir -p probe/bin
cat > probe/bin/gcc <<EOF
#!/bin/sh
echo "\$*" >> $TMP/probe/calls
exec $(command -v gcc) "\$@"
EOF
chmod +x probe/bin/gcc
probe() { PATH=$TMP/probe/bin:$PATH XDG_CACHE_HOME=$TMP/probe/cache "$W" --pgopt-check-policy "$@"; }
calls() { if [ -e probe/calls ]; then wc -l < probe/calls; else echo 0; fi; }
printf '# a flag gcc does not have\n[global]\ncflags += -O2 -fno-plt\n[src/backend/executor/exec.c]\ncflags += -fno-plt -fno-such-flag\n' > nosuch.policy
PGOPT_UNCHECKED_FLAGS=yes probe nosuch.policy > out 2> err; s=$?
is "an unknown flag (let through the vocabulary by the caller): exit 101" "$s" 101
is "... one line: file:line, the flag, the compiler and its own words" "$(grep error: err)" \
	"pgoptcc: error: $TMP/nosuch.policy:5: cflags += -fno-such-flag: $TMP/probe/bin/gcc does not take it: gcc: error: unrecognized command-line option '-fno-such-flag'; did you mean '-fno-mudflap'?"
is "... and no JSON" "$(cat out)" ""
is "... the compiler ran once per distinct flag (-O2, -fno-plt, -fno-such-flag)" "$(calls)" 3
is "... as COMPILER -Werror FLAG -E -x c /dev/null -o /dev/null" "$(sed -n 1p probe/calls)" "-Werror -O2 -E -x c /dev/null -o /dev/null"
PGOPT_UNCHECKED_FLAGS=yes probe nosuch.policy > out 2> err2; s=$?
is "the second check: the same answer" "$s/$(grep error: err2)" "101/$(grep error: err)"
is "... and the compiler is not run again (the cache)" "$(calls)" 3
is "... the cache is the caller's alone (0700)" "$(stat -c '%a %u' probe/cache/pgoptcc)" "700 $(id -u)"
touch probe/bin/gcc
PGOPT_UNCHECKED_FLAGS=yes probe nosuch.policy > /dev/null 2>&1
is "a changed compiler (its executable's time) is asked again" "$(calls)" 6
chmod 0777 probe/cache/pgoptcc
PGOPT_UNCHECKED_FLAGS=yes probe nosuch.policy > /dev/null 2> err2; s=$?
is "a cache directory others can write is not used (asked again), no other change" "$s/$(calls)" "101/9"
chmod 0700 probe/cache/pgoptcc
printf '[global]\ncflags += -O2 -fno-plt\nldflags += -Wl,-O1\n' > known.policy
out=$(probe known.policy 2> err); s=$?
is "a policy of flags gcc takes: exit 0, silent" "$s/$(cat err)" "0/"
like "... the JSON names the compiler asked" "$out" "\"compiler\":\"$TMP/probe/bin/gcc\""
is "... the linker's flags are not asked (-E never links), the rest were cached" "$(calls)" 9
# a value the vocabulary allows but this gcc does not know: a newer CPU
if ! gcc -Werror -march=znver4 -E -x c /dev/null -o /dev/null 2>/dev/null; then
	printf '[src/backend/executor/exec.c]\nmarch = znver4\n' > cpu.policy
	probe cpu.policy > /dev/null 2> err; s=$?
	is "march = znver4 with a gcc that does not know it: exit 101, file:line" "$s/$(cat err)" \
		"101/pgoptcc: error: $TMP/cpu.policy:2: cflags += -march=znver4: $TMP/probe/bin/gcc does not take it: cc1: error: bad value 'znver4' for '-march=' switch"
	PGOPT_POLICY=$TMP/cpu.policy "$W" -c src/backend/executor/exec.c -o cpu.o 2> err; s=$?
	is "... which a build finds only in make (gcc's own error, status 1)" "$s" 1
else
	skip "gcc knows -march=znver4 (GCC 13 or later): no vocabulary-allowed value to refuse" 2
fi

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
	"101/pgoptcc: error: $TMP/yes.policy:2: expected lto = on, off, fat or slim, got \"yes\""

# --- ABI-changing flags: refused everywhere, [global] too ---
for flag in -fpack-struct -fshort-enums -fshort-wchar -freg-struct-return -fpcc-struct-return \
	-funsigned-char -fsigned-char -malign-double -mabi=ms -ffixed-rbx -fcall-used-rbx \
	-fcall-saved-r11 -m32 -mx32 -m16 -mno-sse -mno-sse2 -mno-80387 -msoft-float \
	-mgeneral-regs-only -mlong-double-64 -m96bit-long-double -mpreferred-stack-boundary=2 \
	-mcmodel=kernel; do
	printf '[src/backend/executor/exec.c]\ncflags += -O2 %s\n' "$flag" > abi.policy
	PGOPT_POLICY=$TMP/abi.policy "$W" -c src/backend/executor/exec.c -o abi.o 2> err; s=$?
	like "$flag in a section: exit 101, line and reason" "$s/$(cat err)" \
		"^101/pgoptcc: error: $TMP/abi.policy:2: cannot add $flag: it changes the ABI \([^)]+\): objects built with it disagree with the rest of PostgreSQL, libc and extensions\$"
done
printf '[global]\ncflags += -fpack-struct=4\n' > abi.policy
"$W" --pgopt-check-policy abi.policy >/dev/null 2> err; s=$?
like "-fpack-struct=4 in [global]: refused too" "$s/$(cat err)" "^101/.*abi.policy:2: cannot add -fpack-struct=4: it changes the ABI \(struct layout\)"

# --- the vocabulary: what a policy may not add (the issue's list) ---
V="cflags += -fplugin=$TMP/x.so|it loads code (a GCC plugin)
cflags += -B $TMP/bin|it loads code (where the driver finds cc1, as and ld)
cflags += -specs=$TMP/s.specs|it loads code (a specs file can run any program)
cflags += --sysroot=$TMP/root|it names a path (the system root)
cflags += -iplugindir=$TMP|it loads code (where GCC finds plugins)
cflags += -o $TMP/out.o|it changes what the compiler produces (the output file)
cflags += -E|it changes what the compiler produces (preprocessed source instead of an object)
cflags += -S|it changes what the compiler produces (assembler code instead of an object)
cflags += -fsyntax-only|it changes what the compiler produces (no object at all)
cflags += -x c++|it changes what the compiler produces (the language the input is read as)
cflags += -imacros $TMP/m.h|it names a path (a file to include or an include directory)
ldflags += -Wl,-rpath,$TMP|it names a path (the linker option -rpath is outside the vetted set: -Wl,-O1, --gc-sections, --as-needed, --emit-relocs, --hash-style=, --build-id, --icf=, --sort-common, -z relro, -z now, -z noexecstack ...)
ldflags += -Wl,--wrap=main|it is not an optimization option (the linker option --wrap=main is outside the vetted set: -Wl,-O1, --gc-sections, --as-needed, --emit-relocs, --hash-style=, --build-id, --icf=, --sort-common, -z relro, -z now, -z noexecstack ...)
cflags += -Wa,-adhln=$TMP/l.lst|it changes what the compiler produces (options for the assembler, unchecked)
ldflags += -l:libevil.so|it loads code (a library)
cflags += -save-temps|it changes what the compiler produces (intermediate files kept)
cflags += -fprofile-generate=$TMP/prof|it changes what the compiler produces (profile instrumentation or feedback: pgbuild pgo adds it through PGOPT_PROFILE)
cflags += -fexec-charset=latin1|it is not an optimization option (the program's string constants in another character set)
cflags += -DX=1|it is not an optimization option (a macro definition changes the program, not how it is optimized)
cflags -= -DFRONTEND|it is not an optimization option (a macro definition changes the program, not how it is optimized)"
while IFS='|' read -r line why; do
	flag=${line#* [+-]= }; flag=${flag%% *}
	op=add; case $line in *" -= "*) op=remove ;; esac
	printf '# refused\n[global]\n%s\n' "$line" > vocab.policy
	PGOPT_POLICY=$TMP/vocab.policy "$W" -c main.c -o v.o 2> err; s=$?
	is "$line: the build refuses it (101), file:line, flag, reason" "$s/$(cat err)" \
		"101/pgoptcc: error: $TMP/vocab.policy:3: cannot $op $flag: $why"
	"$W" --pgopt-check-policy vocab.policy > /dev/null 2> err; s=$?
	is "$line: check-policy refuses it too (101)" "$s" 101
done <<< "$V"
ok "no refused policy produced an object" test ! -e v.o
# what the vocabulary allows still builds, compile and link
printf '[global]\ncflags += -O3 -fno-plt --param=max-inline-insns-auto=30 -march=x86-64 -g1 -Wno-unused\nldflags += -Wl,-O1 -Wl,--as-needed -Wl,-z,relro,-z,now -Wl,--gc-sections\n' > ok.policy
PGOPT_POLICY=$TMP/ok.policy "$W" -O2 -c main.c -o okm.o 2> err && \
	PGOPT_POLICY=$TMP/ok.policy "$W" -O2 -c src/backend/executor/exec.c -o oke.o 2>> err && \
	PGOPT_POLICY=$TMP/ok.policy "$W" -O2 -o okprog okm.o oke.o 2>> err; s=$?
is "the vocabulary's optimization and vetted link flags: builds, silent" "$s/$(cat err)" "0/"
ok "... and runs" ./okprog

# --- the caller's switch: PGOPT_UNCHECKED_FLAGS=1 (never from a policy) ---
printf '[global]\ncflags += -O2 -DPGOPT_EXPERT=1\n' > expert.policy
printf '#ifndef PGOPT_EXPERT\n#error not defined\n#endif\nint e;\n' > expert.c
PGOPT_LOGDIR=$TMP/elog PGOPT_UNCHECKED_FLAGS=1 PGOPT_POLICY=$TMP/expert.policy "$W" -c expert.c -o expert.o 2> err; s=$?
is "PGOPT_UNCHECKED_FLAGS=1: -D reaches gcc, silent" "$s/$(cat err)" "0/"
like "... every record says which flags were unchecked" "$(tail -n 1 elog/compile.jsonl)" '"unchecked_flags":\["-DPGOPT_EXPERT=1"\]'
like "... and where the switch came from" "$(tail -n 1 elog/compile.jsonl)" '"origins":\{[^}]*"unchecked-flags":"env"'
PGOPT_LOGDIR=$TMP/elog PGOPT_UNCHECKED_FLAGS=1 PGOPT_POLICY=$TMP/bom.policy "$W" -c main.c -o m.o 2> err
like "... also a record whose policy needed none" "$(tail -n 1 elog/compile.jsonl)" '"unchecked_flags":\[\]'
"$W" --pgopt-unchecked-flags=1 --pgopt-policy=$TMP/expert.policy -c expert.c -o expert2.o 2> err; s=$?
is "... or --pgopt-unchecked-flags=1 in CC" "$s/$(cat err)" "0/"
out=$(PGOPT_UNCHECKED_FLAGS=1 "$W" --pgopt-check-policy expert.policy 2> err); s=$?
is "check-policy under the switch: exit 0" "$s" 0
like "... warns for each unchecked flag" "$(cat err)" \
	"^pgoptcc: warning: $TMP/expert.policy:2: cflags \+= -DPGOPT_EXPERT=1 is outside the policy vocabulary \(it is not an optimization option \(a macro definition changes the program, not how it is optimized\)\): used because the caller allowed unchecked flags \(unchecked-flags: --pgopt-unchecked-flags or PGOPT_UNCHECKED_FLAGS\)\$"
like "... and says it in the JSON" "$out" '"unchecked_flags":true'
PGOPT_UNCHECKED_FLAGS=1 "$W" --pgopt-check-policy abi.policy > /dev/null 2> err; s=$?
is "the switch never lets an ABI flag through" "$s" 101
printf '[global]\ncflags += -ffast-math\n' > fm.policy
PGOPT_UNCHECKED_FLAGS=1 "$W" --pgopt-check-policy fm.policy > /dev/null 2> err; s=$?
is "... nor the fast-math family" "$s" 101

# --- the caller's profile mode (pgbuild pgo): PGOPT_PROFILE ---
mkdir -p prof && cd prof || exit 1
printf '# nothing but what the profile mode adds\n[global]\n' > p.policy
export PGOPT_ROOT=$TMP/prof
mkdir -p src/backend src/port
cp "$TMP/src/backend/executor/exec.c" src/backend/exec.c
printf 'int h(int x) { return x + 1; }\n' > src/port/g.c
cp "$TMP/main.c" main.c
for u in src/backend/exec src/port/g main; do
	PGOPT_LOGDIR=$TMP/prof/log PGOPT_POLICY=$TMP/prof/p.policy PGOPT_PROFILE="generate src/backend/**" \
		"$W" -O2 -c $u.c -o $u.o || echo "compile of $u failed" >&2
done
PGOPT_LOGDIR=$TMP/prof/log PGOPT_POLICY=$TMP/prof/p.policy PGOPT_PROFILE="generate src/backend/**" \
	"$W" -O2 -o prog main.o src/backend/exec.o src/port/g.o 2> err; s=$?
is "PGOPT_PROFILE=generate: the instrumented link builds" "$s/$(cat err)" "0/"
ok "... the unit the glob names has coverage notes" test -f src/backend/exec.gcno
ok "... the others not" test ! -e src/port/g.gcno
like "... its record names the mode and the flags" "$(grep '"tu":"src/backend/exec.c"' log/compile.jsonl | tail -n 1)" \
	'"added":\["-fprofile-generate","-ftest-coverage"\].*"profile":"generate src/backend/\*\*"'
like "... the link got -fprofile-generate" "$(grep '"kind":"link"' log/compile.jsonl | tail -n 1)" '"added":\["-fprofile-generate"\]'
./prog
ok "... the program writes its counts" test -f src/backend/exec.gcda
PGOPT_LOGDIR=$TMP/prof/log PGOPT_POLICY=$TMP/prof/p.policy PGOPT_PROFILE="use src/backend/**" \
	"$W" -O2 -c src/backend/exec.c -o src/backend/exec.o 2> err; s=$?
is "PGOPT_PROFILE=use: the optimized compile builds, silent" "$s/$(cat err)" "0/"
like "... with the profile flags" "$(readelf -p .GCC.command.line src/backend/exec.o)" "-fprofile-use"
PGOPT_PROFILE=generate "$W" -c src/port/g.c -o g2.o 2> err; s=$?
is "PGOPT_PROFILE without a policy: exit 100" "$s/$(cat err)" \
	"100/pgoptcc: error: PGOPT_PROFILE=generate: expected a policy too (PGOPT_POLICY): the profile flags are added to a policy's"
PGOPT_POLICY=$TMP/prof/p.policy PGOPT_PROFILE=instrument "$W" -c src/port/g.c -o g2.o 2> err; s=$?
is "PGOPT_PROFILE=instrument: exit 100, the words it takes" "$s/$(cat err)" \
	"100/pgoptcc: error: PGOPT_PROFILE=instrument: expected generate, use or use=FILE, then the units' globs, got \"instrument\""
PGOPT_POLICY=$TMP/prof/p.policy PGOPT_PROFILE="use=$TMP/prof/x.profdata" "$W" -c src/port/g.c -o g2.o 2> err; s=$?
like "use=FILE with GCC: exit 100, why" "$s/$(cat err)" \
	"^100/pgoptcc: error: PGOPT_PROFILE=use=$TMP/prof/x.profdata: $(command -v gcc) is GCC: use=FILE is clang's merged profile; GCC reads the .gcda beside each object: expected use\$"
# clang's instrumented PGO: a raw profile per binary where LLVM_PROFILE_FILE
# says, merged by llvm-profdata into the one file use=FILE names
LLVM=$(dirname "$(readlink -f "$(command -v clang-15 2>/dev/null || echo /nonexistent)")")
if [ -x "$LLVM/clang" ] && [ -x "$LLVM/llvm-profdata" ]; then
	PGOPT_POLICY=$TMP/prof/p.policy PGOPT_PROFILE=use "$W" clang-15 -c src/port/g.c -o g2.o 2> err; s=$?
	like "clang with plain use: exit 100, why" "$s/$(cat err)" \
		"^100/pgoptcc: error: PGOPT_PROFILE=use: $(command -v clang-15) is not GCC: clang reads one merged profile: expected use=FILE \\(the \\.profdata\\)\$"
	: > err
	for f in main src/backend/exec src/port/g; do
		PGOPT_LOGDIR=$TMP/prof/log PGOPT_POLICY=$TMP/prof/p.policy PGOPT_PROFILE="generate src/backend/**" \
			"$W" clang-15 -O2 -c $f.c -o $f.ll.o 2>> err
	done
	like "clang generate: -fprofile-generate alone (no notes file)" \
		"$(grep '"tu":"src/backend/exec.c"' log/compile.jsonl | tail -n 1)" '"added":\["-fprofile-generate"\]'
	PGOPT_LOGDIR=$TMP/prof/log PGOPT_POLICY=$TMP/prof/p.policy PGOPT_PROFILE="generate src/backend/**" \
		"$W" clang-15 -O2 -o progll main.ll.o src/backend/exec.ll.o src/port/g.ll.o 2>> err; s=$?
	is "clang generate: the instrumented link builds, silent" "$s/$(cat err)" "0/"
	mkdir -p raw && LLVM_PROFILE_FILE=$TMP/prof/raw/pgopt-%m.profraw ./progll
	ok "... the program writes one raw profile where LLVM_PROFILE_FILE says" \
		sh -c "ls raw/pgopt-*.profraw"
	"$LLVM/llvm-profdata" merge -o m.profdata raw/*.profraw
	PGOPT_LOGDIR=$TMP/prof/log PGOPT_POLICY=$TMP/prof/p.policy PGOPT_PROFILE="use=$TMP/prof/m.profdata src/backend/**" \
		"$W" clang-15 -O2 -c src/backend/exec.c -o exec.use.o 2> err; s=$?
	is "clang use=FILE: the optimized compile builds, silent" "$s/$(cat err)" "0/"
	like "... with -fprofile-use of that file" "$(readelf -p .GCC.command.line exec.use.o)" "-fprofile-use=$TMP/prof/m.profdata"
	PGOPT_POLICY=$TMP/prof/p.policy PGOPT_PROFILE="use=$TMP/prof/m.profdata src/backend/**" \
		"$W" clang-15 -O2 -c src/port/g.c -o g.use.o 2> err
	ok "... and the unit no glob names without it" sh -c "! readelf -p .GCC.command.line g.use.o | grep -q profile-use"
else
	skip "clang-15 and its llvm-profdata are not installed (make deps): no clang profile round trip" 8
fi
unset PGOPT_ROOT
export PGOPT_ROOT=$TMP
cd "$TMP" || exit 1

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
