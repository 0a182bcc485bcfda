#!/bin/bash
# 16-wrapper-clang.t - a compiler pgopt.so cannot load into.  The plugin
# loads only into the GCC it was built with; clang cannot load it at all
# (without this, CC="pgoptcc clang" failed every changed compile with an
# undefined C++ symbol from the plugin).  With the real clang: the policy's
# flags apply without the plugin, the record says "plugin":"skipped: ...",
# configure's probes are unchanged, and what needs the plugin (hot/cold
# lists) or GCC (lto = fat) is refused with one line, exit 105.  Then a GCC
# of another version.
. "$(dirname "$0")/../lib/tap.sh"
W=$B/bin/pgoptcc
unset PGOPT_POLICY PGOPT_LOGDIR PGOPT_PREFIX PGOPT_ROOT PGOPT_CC PGOPT_PLUGIN PGOPT_FAILSAFE
unset PGOPT_PASSTHROUGH PGOPT_VERBOSE
command -v clang >/dev/null || skip_all "clang not installed (make deps)"
export PGOPT_ROOT=$TMP PGOPT_LOGDIR=$TMP/log
cd "$TMP" || exit 1
log=$TMP/log/compile.jsonl
cat > hot.c <<'C'
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
printf '[global]\ncflags += -fno-plt\nlto = on\nbolt = ready\n[hot.c]\ncflags += -O3\n' > p.policy
printf '[global]\nhot = hot.txt\n' > hot.policy
echo 'hot.c:f' > hot.txt
printf '[global]\nlto = fat\n' > fat.policy

# --- clang: flags without the plugin ---
PGOPT_POLICY=$TMP/p.policy "$W" clang -O2 -c hot.c -o hot.o 2> err; s=$?
is "clang compile with a policy: exit 0, silent" "$s/$(cat err)" "0/"
rec=$(tail -n 1 "$log")
like "the record: plugin skipped, and why" "$rec" '"plugin":"skipped: [^"]*clang[^"]* is not GCC and cannot load pgopt.so, a GCC plugin"'
like "the policy's flags applied (-O3; lto = on is ThinLTO with clang)" "$rec" '"added":\["-fno-plt","-O3","-flto=thin"\]'
ok "no -fplugin reached clang" sh -c "! tail -n 1 '$log' | grep -q -- '-fplugin'"
like "the object is LLVM bitcode" "$(file hot.o)" "LLVM IR bitcode"
PGOPT_POLICY=$TMP/p.policy "$W" clang -O2 -c main.c -o main.o 2> err
PGOPT_POLICY=$TMP/p.policy "$W" clang -O2 -o prog main.o hot.o 2> err; s=$?
is "clang LTO link with the policy: exit 0, silent" "$s/$(cat err)" "0/"
ok "the program runs" ./prog
# the system linker reads no bitcode: lld, the one of clang's own LLVM
# (the ld.lld on PATH may be another LLVM's, which cannot read it)
lld=$(dirname "$(readlink -f "$(command -v clang)")")/ld.lld
like "the link: ThinLTO, --emit-relocs, clang's own lld, no gcc-only flag" "$(tail -n 1 "$log")" \
	"\"added\":\\[\"-fno-plt\",\"-flto=thin\",\"-Wl,--emit-relocs\",\"-fuse-ld=lld\",\"--ld-path=$lld\"\\]"
like "... linked by LLD" "$(readelf -p .comment prog)" "Linker: .*LLD"
like "the executable keeps relocations (bolt = ready)" "$(readelf -SW prog)" '\.rela\.text '
# without LTO the object is ELF and records its switches
printf '[global]\ncflags += -fno-plt\nbolt = ready\n[hot.c]\ncflags += -O3\n' > nolto.policy
PGOPT_POLICY=$TMP/nolto.policy "$W" clang -O2 -c hot.c -o hot2.o 2> err; s=$?
is "clang without LTO: exit 0, silent" "$s/$(cat err)" "0/"
like "the object records the policy's flags (.GCC.command.line)" "$(readelf -p .GCC.command.line hot2.o)" "-O3"
ok "bolt = ready with clang: no .cold part (clang does not split functions)" sh -c "! nm hot2.o | grep -q 'f\.cold'"
ok "... and -fno-reorder-blocks-and-partition (which clang rejects) was not passed" \
	sh -c "! readelf -p .GCC.command.line hot2.o | grep -q reorder-blocks"
# PGOPT_CC=clang and CC options work the same way
PGOPT_CC=clang PGOPT_POLICY=$TMP/nolto.policy "$W" -c main.c -o m2.o 2> err; s=$?
is "PGOPT_CC=clang: exit 0, silent" "$s/$(cat err)" "0/"
"$W" --pgopt-cc=clang --pgopt-policy=$TMP/nolto.policy -c main.c -o m3.o 2> err; s=$?
is "--pgopt-cc=clang: exit 0, silent" "$s/$(cat err)" "0/"

# --- what cannot work without the plugin, or without GCC ---
PGOPT_POLICY=$TMP/hot.policy "$W" clang -c hot.c -o h.o 2> err; s=$?
is "a hot list with clang: exit 105" "$s" 105
is "... one line: the policy line and why" "$(cat err)" \
	"pgoptcc: error: $TMP/hot.policy:2: the hot list needs the plugin pgopt.so, which cannot run here: $(command -v clang) ($(clang --version | head -n 1)) is not GCC and cannot load pgopt.so, a GCC plugin"
ok "... and nothing was compiled" test ! -e h.o
PGOPT_POLICY=$TMP/fat.policy "$W" clang -c hot.c -o h.o 2> err; s=$?
is "lto = fat with clang: exit 105" "$s" 105
like "... one line saying why" "$(cat err)" "^pgoptcc: error: $TMP/fat.policy:2: lto = fat needs GCC, and .*clang.* is not: it would make slim objects \(write lto = on or slim\)\$"
"$W" clang -c hot.c -o h.o 2> err; s=$?
is "clang without a policy: plain clang" "$s/$(cat err)" "0/"

# --- configure's probes with clang: plain clang's conclusions ---
if command -v autoconf >/dev/null; then
	mkdir -p ac && cd ac || exit 1
	printf 'AC_INIT([c], [1])\nAC_CONFIG_HEADERS([config.h])\nAC_PROG_CC\nAC_C_INLINE\nAC_CHECK_SIZEOF([long])\nAC_CHECK_FUNCS([strlcpy])\nAC_OUTPUT\n' > configure.ac
	autoconf 2>/dev/null && autoheader 2>/dev/null
	./configure CC=clang >/dev/null 2>&1 && cp config.h ../config.h.clang
	rm -f config.h
	./configure CC="$W --pgopt-policy=$TMP/p.policy clang" >/dev/null 2>&1
	ok "configure with CC=\"pgoptcc --pgopt-policy=... clang\": config.h as plain clang's" cmp ../config.h.clang config.h
	cd "$TMP" || exit 1
else
	skip "autoconf is not installed: no configure run with clang" 1
fi

# --- gcc, the one the plugin was built with: loaded as before ---
PGOPT_POLICY=$TMP/nolto.policy "$W" -c hot.c -o g.o 2> err; s=$?
is "gcc: exit 0, silent" "$s/$(cat err)" "0/"
like "gcc: the plugin is loaded, and logged" "$(tail -n 1 "$log")" '"plugin":"/[^"]*/pgopt\.so"'

# --- a GCC of another version ---
other=
for v in 9 10 11 13 14; do
	command -v "gcc-$v" >/dev/null && { other=$(command -v "gcc-$v"); break; }
done
if [ -n "$other" ]; then
	what="$other (a real second GCC)"
else
	# No second GCC is installed: a script in front of this gcc that
	# answers -dumpfullversion with another version, as gcc-13 would.
	mkdir -p bin
	printf '#!/bin/sh\n[ "$1" = -dumpfullversion ] && { echo 99.1.0; exit 0; }\nexec gcc "$@"\n' > bin/gcc-99
	chmod +x bin/gcc-99
	other=$TMP/bin/gcc-99
	what="gcc-99 (a script reporting version 99.1.0 in front of gcc: no second GCC installed)"
fi
PGOPT_CC=$other PGOPT_POLICY=$TMP/nolto.policy "$W" -c hot.c -o o.o 2> err; s=$?
is "$what: exit 0, silent" "$s/$(cat err)" "0/"
like "$what: the default plugin is skipped, and why" "$(tail -n 1 "$log")" \
	'"plugin":"skipped: [^"]* is GCC [0-9.]+, and pgopt.so loads only into the GCC it was built with, [0-9.]+"'
like "$what: the policy's flags applied" "$(readelf -p .GCC.command.line o.o)" "-O3"
# a plugin the user names may be one built for that GCC: it is loaded (a
# mismatch is then gcc's own one-line error, tests/t/20)
PGOPT_PLUGIN=$B/lib/pgoptcc/pgopt.so PGOPT_CC=$other PGOPT_POLICY=$TMP/nolto.policy "$W" -c hot.c -o o.o 2> err
like "$what with PGOPT_PLUGIN named: the plugin is loaded" "$(tail -n 1 "$log")" '"plugin":"/[^"]*/pgopt\.so"'
PGOPT_CC=$other PGOPT_POLICY=$TMP/hot.policy "$W" -c hot.c -o o.o 2> err; s=$?
like "$what with a hot list: exit 105, one line" "$s/$(cat err)" "^105/pgoptcc: error: $TMP/hot.policy:2: the hot list needs the plugin pgopt.so, which cannot run here: "
done_testing
