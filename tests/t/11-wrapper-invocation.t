#!/bin/bash
# 11-wrapper-invocation.t - the three ways to call pgoptcc, the recursion
# guard, and each of the wrapper's own errors: one line, its own exit code;
# the per-run switches' boolean words, and --version (pgoptcc's own, the
# compiler's only where it is named or configure runs).  Under failsafe =
# passthrough a bad policy builds unchanged with one warning line a
# compile, none on a link or a configure probe.
. "$(dirname "$0")/../lib/tap.sh"
W=$B/bin/pgoptcc
export PGOPT_PLUGIN=off
cd "$TMP" || exit 1
printf 'int f(int x) { return x + 1; }\n' > a.c
printf '[global]\ncflags += -fno-plt\n' > p.policy
export PGOPT_ROOT=$TMP PGOPT_LOGDIR=$TMP/log
gcc12=$(command -v gcc-12 || command -v gcc)

# CC="pgoptcc gcc-12"
PGOPT_POLICY=$TMP/p.policy "$W" "$(basename "$gcc12")" -c a.c -o a1.o
ok "pgoptcc gcc-12 -c a.c works" test -s a1.o
like "log names gcc-12 as the compiler" "$(tail -n1 log/compile.jsonl)" "\"compiler\":\"[^\"]*$(basename "$gcc12")\""
like "policy applied" "$(readelf -p .GCC.command.line a1.o)" "-fno-plt"

# PGOPT_CC
PGOPT_CC=$gcc12 "$W" -c a.c -o a2.o
ok "PGOPT_CC=$gcc12 works" test -s a2.o

# masquerade: a symlink named gcc earlier on PATH
mkdir -p mask && ln -s "$W" mask/gcc && ln -s "$W" mask/cc
PATH=$TMP/mask:$PATH PGOPT_POLICY=$TMP/p.policy gcc -c a.c -o a3.o
ok "masquerade as gcc builds" test -s a3.o
like "masquerade: policy applied" "$(readelf -p .GCC.command.line a3.o)" "-fno-plt"
like "masquerade: real gcc found after skipping ourselves" "$(tail -n1 log/compile.jsonl)" '"compiler":"/usr/(local/)?bin/gcc"'
# two masquerade links in a row on PATH are both skipped
mkdir -p mask2 && ln -s "$TMP/mask/gcc" mask2/gcc
PATH=$TMP/mask2:$TMP/mask:$PATH gcc -c a.c -o a4.o
ok "chained masquerade links are skipped" test -s a4.o
# with Debian's ccache link directory on PATH, before or after ours: the
# search starts after our own directory, and the compiler gets that rest of
# PATH, so a ccache found there does not find pgoptcc again
if command -v ccache >/dev/null; then
	mkdir -p ccm && ln -s "$(command -v ccache)" ccm/gcc
	export CCACHE_DIR=$TMP/ccache
	PATH=$TMP/ccm:$TMP/mask:$PATH PGOPT_POLICY=$TMP/p.policy gcc -c a.c -o a5.o 2> err; s=$?
	is "ccache links, then masquerade: builds" "$s" 0
	is "ccache links, then masquerade: silent" "$(cat err)" ""
	like "ccache links, then masquerade: policy applied" "$(readelf -p .GCC.command.line a5.o)" "-fno-plt"
	like "ccache links, then masquerade: real gcc after ours" "$(tail -n1 log/compile.jsonl)" '"compiler":"/usr/(local/)?bin/gcc"'
	PATH=$TMP/mask:$TMP/ccm:$PATH PGOPT_POLICY=$TMP/p.policy gcc -c a.c -o a6.o 2> err; s=$?
	is "masquerade, then ccache links: builds" "$s" 0
	is "masquerade, then ccache links: silent" "$(cat err)" ""
	like "masquerade, then ccache links: policy applied" "$(readelf -p .GCC.command.line a6.o)" "-fno-plt"
	like "masquerade, then ccache links: ccache runs the compile" "$(tail -n1 log/compile.jsonl)" "\"compiler\":\"$TMP/ccm/gcc\""
	unset CCACHE_DIR
else
	skip "ccache is not installed: no ccache-with-masquerade cases" 8
fi

# recursion: only pgoptcc on PATH under that name
PATH=$TMP/mask "$TMP/mask/gcc" -c a.c -o x.o 2> err; s=$?
is "no real gcc on PATH: exit 103" "$s" 103
like "no real gcc on PATH: one-line error" "$(cat err)" "^pgoptcc: error: every \"gcc\" on PATH is pgoptcc itself"
is "error is one line" "$(wc -l < err)" 1
PGOPT_CC=$TMP/mask/gcc "$W" -c a.c 2> err; s=$?
is "PGOPT_CC pointing at pgoptcc: exit 103" "$s" 103
PGOPT_RECURSION=1 "$W" -c a.c 2> err; s=$?
is "nested call: exit 103" "$s" 103
like "nested call: says recursion" "$(cat err)" "^pgoptcc: error: recursion"

# missing compiler / prefix
PGOPT_CC=no-such-cc-xyz "$W" -c a.c 2> err; s=$?
is "missing compiler: exit 102" "$s" 102
like "missing compiler: names it" "$(cat err)" 'cannot find the real compiler "no-such-cc-xyz" on PATH'
PGOPT_PREFIX=no-such-prefix "$W" -c a.c 2> err; s=$?
is "missing prefix: exit 102" "$s" 102

# policy errors name file:line and what was expected
printf '[global]\ncflags += -O3\ncflags -= -fwrapv\n' > bad.policy
PGOPT_POLICY=$TMP/bad.policy "$W" -c a.c 2> err; s=$?
is "bad policy: exit 101" "$s" 101
is "bad policy: file:line message" "$(cat err)" "pgoptcc: error: $TMP/bad.policy:3: cannot remove -fwrapv: PostgreSQL requires it"
PGOPT_POLICY=$TMP/nonexistent.policy "$W" -c a.c 2> err; s=$?
is "missing policy: exit 101" "$s" 101
like "missing policy: says why" "$(cat err)" "nonexistent.policy: cannot read policy: No such file or directory"
PGOPT_FAILSAFE=passthrough PGOPT_POLICY=$TMP/bad.policy "$W" -c a.c -o fs.o 2> err; s=$?
is "failsafe: bad policy still builds" "$s" 0
gcc -c a.c -o plain.o
ok "failsafe: object is plain gcc's" cmp plain.o fs.o
like "failsafe: logged" "$(tail -n1 log/compile.jsonl)" '"failsafe":"policy invalid"'
# ... and not silently: one warning line a compile, naming the policy and
# why (the build is a stock one), on stderr only
is "failsafe: an invalid policy is one warning line on the compile" "$(cat err)" \
	"pgoptcc: warning: policy $TMP/bad.policy unusable ($TMP/bad.policy:3: cannot remove -fwrapv: PostgreSQL requires it); compiled with the caller's flags (failsafe passthrough)"
PGOPT_FAILSAFE=passthrough PGOPT_POLICY=$TMP/nonexistent.policy "$W" -c a.c -o fs2.o >out 2>err; s=$?
like "failsafe: an unreadable policy: builds, the warning says why" "$s/$(cat err)" \
	"^0/pgoptcc: warning: policy $TMP/nonexistent.policy unusable \(.*nonexistent.policy: cannot read policy: No such file or directory\); compiled with the caller's flags \(failsafe passthrough\)\$"
is "failsafe: ... one line, nothing on stdout" "$(wc -l <err)/$(wc -c <out)" "1/0"
ok "failsafe: ... plain gcc's object" cmp plain.o fs2.o
PGOPT_FAILSAFE=passthrough PGOPT_POLICY=$TMP/bad.policy "$W" -shared fs.o -o fs.so 2>err; s=$?
is "failsafe: a link is quiet (its compiles said it)" "$s/$(cat err)" "0/"
like "failsafe: ... and logged" "$(tail -n1 log/compile.jsonl)" '"kind":"link".*"failsafe":"policy invalid"'
# a configure probe (conftest.c beside confdefs.h) is never told: its
# compile and link print nothing, as without the policy
mkdir -p fsprobe && printf 'int main(void) { return 0; }\n' > fsprobe/conftest.c && echo '/* confdefs.h */' > fsprobe/confdefs.h
(cd fsprobe && PGOPT_FAILSAFE=passthrough PGOPT_POLICY=$TMP/bad.policy "$W" -c conftest.c &&
	PGOPT_FAILSAFE=passthrough PGOPT_POLICY=$TMP/bad.policy "$W" conftest.c -o conftest) 2> err; s=$?
is "failsafe: a configure probe's compile and link print nothing" "$s/$(cat err)" "0/"
# (in a directory of its own: a probe leaves pgoptcc.conf behind, which
# would give the bad policy to every later compile here)
mkdir -p probe && cp a.c probe/conftest.c && echo '/* confdefs.h */' > probe/confdefs.h
(cd probe && PGOPT_POLICY=$TMP/bad.policy "$W" -c conftest.c) 2> err; s=$?
is "bad policy never breaks a configure probe's result" "$(grep -c pgoptcc err)" 0
like "a configure probe records its environment's policy in pgoptcc.conf" "$(cat probe/pgoptcc.conf)" "^policy = $TMP/bad.policy\$"
# a conftest.c compiled where no configure runs (no confdefs.h) records nothing
mkdir -p noconf && cp a.c noconf/conftest.c
(cd noconf && PGOPT_POLICY=$TMP/p.policy "$W" -c conftest.c) 2> err; s=$?
is "conftest.c outside a configure run: plain gcc's result" "$s/$(cat err)" "0/"
ok "... and no pgoptcc.conf" test ! -e noconf/pgoptcc.conf

# log directory that cannot be written: fail closed
mkdir ro && touch ro/compile.jsonl && chmod 444 ro/compile.jsonl
if [ "$(id -u)" = 0 ]; then
	# root ignores permissions: use a path below a regular file instead
	LOGBAD=$TMP/a.c/log
else
	LOGBAD=$TMP/ro
fi
PGOPT_LOGDIR=$LOGBAD "$W" -c a.c -o l.o 2> err; s=$?
is "unwritable log: exit 104" "$s" 104
like "unwritable log: names it" "$(cat err)" "^pgoptcc: error: cannot (create log directory|open compile log)"
PGOPT_FAILSAFE=passthrough PGOPT_LOGDIR=$LOGBAD "$W" -c a.c -o l.o 2> err; s=$?
is "unwritable log + failsafe: builds" "$s" 0
# failsafe means "build unchanged": without a log, no policy either
PGOPT_FAILSAFE=passthrough PGOPT_LOGDIR=$LOGBAD PGOPT_POLICY=$TMP/p.policy "$W" -c a.c -o lp.o 2> err; s=$?
is "unwritable log + failsafe + policy: builds" "$s" 0
is "unwritable log + failsafe + policy: one line says why, after the compile" "$(cat err)" \
	"pgoptcc: warning: no compile log (cannot create log directory $LOGBAD: Not a directory); compiled with the caller's flags (failsafe passthrough)"
ok "unwritable log + failsafe + policy: plain gcc's object" cmp plain.o lp.o
PGOPT_VERBOSE=1 PGOPT_FAILSAFE=passthrough PGOPT_LOGDIR=$LOGBAD PGOPT_POLICY=$TMP/p.policy "$W" -c a.c -o lp.o 2> err; s=$?
like "unwritable log + failsafe + PGOPT_VERBOSE=1: says so" "$(cat err)" "^pgoptcc: building unchanged \(failsafe = passthrough\): "

# plugin missing: fail closed (the policy changes the compile)
PGOPT_PLUGIN=$TMP/nonexistent.so PGOPT_POLICY=$TMP/p.policy "$W" -c a.c 2> err; s=$?
is "missing plugin: exit 105" "$s" 105
like "missing plugin: one line naming it" "$(cat err)" "^pgoptcc: error: cannot load the plugin $TMP/nonexistent.so"
PGOPT_FAILSAFE=passthrough PGOPT_PLUGIN=$TMP/nonexistent.so PGOPT_POLICY=$TMP/p.policy "$W" -c a.c -o fsp.o 2> err; s=$?
is "missing plugin + failsafe: builds" "$s" 0
ok "missing plugin + failsafe: built unchanged (plain gcc's object)" cmp plain.o fsp.o
like "missing plugin + failsafe: logged unchanged" "$(tail -n1 log/compile.jsonl)" '"changed":false.*"failsafe":"plugin missing"'
PGOPT_PLUGIN=$TMP/nonexistent.so "$W" -c a.c -o np.o 2> err; s=$?
is "missing plugin without policy: not needed" "$s" 0

# an installed tree can be moved: pgoptcc finds its plugin and masquerade
# links relative to its own executable
make -s -C "$TOP" install PREFIX="$TMP/inst" O="$B" >/dev/null 2>&1
mv "$TMP/inst" "$TMP/moved"
ok "installed tree has the masquerade links" test -L "$TMP/moved/lib/pgoptcc/masq/gcc"
PATH=$TMP/moved/lib/pgoptcc/masq:$PATH PGOPT_PLUGIN= PGOPT_POLICY=$TMP/p.policy gcc -c a.c -o mv.o 2> err; s=$?
is "moved install: masquerade gcc with the plugin builds" "$s" 0
like "moved install: plugin loaded from the moved tree" "$(tail -n1 log/compile.jsonl)" "-fplugin=$TMP/moved/lib/pgoptcc/pgopt.so"

# the per-run switches are booleans, read as git reads them (yes/no,
# true/false, on/off, 1/0, any case, empty = no): each word works, and any
# other value is an error naming the variable and the words (issue 42:
# PGOPT_VERBOSE=yes failed every compile with exit 100)
for v in yes YES on On true TRUE 1; do
	PGOPT_PASSTHROUGH=$v PGOPT_POLICY=$TMP/p.policy "$W" -c a.c -o env.o 2> err; s=$?
	is "PGOPT_PASSTHROUGH=$v: on, plain gcc's object, silent" "$s/$(cat err)/$(cmp -s plain.o env.o && echo same)" "0//same"
done
for v in no NO off false False 0 ''; do
	PGOPT_PASSTHROUGH=$v PGOPT_POLICY=$TMP/p.policy "$W" -c a.c -o env.o 2> err; s=$?
	like "PGOPT_PASSTHROUGH='$v': off, the policy applies" "$s/$(cat err)/$(readelf -p .GCC.command.line env.o 2>&1 | tr '\n' ' ')" "^0//.*-fno-plt"
done
for v in yes Yes on true 1; do
	PGOPT_VERBOSE=$v PGOPT_POLICY=$TMP/p.policy "$W" -c a.c -o env.o 2> err; s=$?
	like "PGOPT_VERBOSE=$v: says what was decided" "$s/$(cat err)" "^0/pgoptcc: compile \(c_compile\) a.c: policy applied"
done
for v in no OFF false 0 ''; do
	PGOPT_VERBOSE=$v PGOPT_POLICY=$TMP/p.policy "$W" -c a.c -o env.o 2> err; s=$?
	is "PGOPT_VERBOSE='$v': silent" "$s/$(cat err)" "0/"
done
for kv in PGOPT_PASSTHROUGH=maybe PGOPT_PASSTHROUGH=2 PGOPT_PASSTHROUGH=y PGOPT_VERBOSE=verbose "PGOPT_VERBOSE= yes"; do
	name=${kv%%=*} value=${kv#*=}
	env "$kv" PGOPT_POLICY=$TMP/p.policy "$W" -c a.c -o env.o 2> err; s=$?
	is "$kv: exit 100, one line naming the variable, the value and the words" "$s/$(cat err)" \
		"100/pgoptcc: error: $name=$value: expected a boolean: yes, no, true, false, on, off, 1 or 0 (empty is no)"
done
# PGOPT_FAILSAFE is no boolean: its one mode, passthrough, or empty
for kv in PGOPT_FAILSAFE=bogus PGOPT_FAILSAFE=1; do
	name=${kv%%=*} value=${kv#*=}
	env "$kv" PGOPT_POLICY=$TMP/p.policy "$W" -c a.c -o env.o 2> err; s=$?
	is "$kv: exit 100" "$s" 100
	is "$kv: one line naming the variable, the value and what is expected" "$(cat err)" \
		"pgoptcc: error: $name=$value: expected $name=passthrough, or unset"
done
PGOPT_PASSTHROUGH= PGOPT_VERBOSE= PGOPT_FAILSAFE= "$W" -c a.c -o env.o 2> err; s=$?
is "empty switches are unset" "$s/$(cat err)" "0/"
PGOPT_PASSTHROUGH=1 PGOPT_POLICY=$TMP/p.policy "$W" -c a.c -o env.o; s=$?
ok "PGOPT_PASSTHROUGH=1: plain gcc's object" cmp plain.o env.o

# --version: pgoptcc's own (issue 42: it printed gcc's banner), never the
# compiler's - but the compiler's where the compiler is named, when
# masquerading, and for the build systems that identify the compiler by it:
# while configure runs (PostgreSQL's puts the first line of `$CC --version`
# in PG_VERSION_STR) and when meson asks (tests/t/13 runs the real one)
out=$("$W" --version 2> err); s=$?
is "--version: exit 0, silent" "$s/$(cat err)" "0/"
is "--version: pgoptcc's version first" "$(sed -n 1p <<< "$out")" "pgoptcc 0.1.0"
is "--version: the plugin and the GCC it was built for (PGOPT_PLUGIN=off here)" "$(sed -n 2p <<< "$out")" "plugin: off (PGOPT_PLUGIN)"
is "--version: the real compiler it would call" "$(sed -n 3p <<< "$out")" \
	"compiler: $(command -v gcc), GCC $(gcc -dumpfullversion): the plugin loads into it"
nok "--version: never gcc's banner" grep -q 'Free Software Foundation' <<< "$out"
out=$(PGOPT_PLUGIN= "$W" --version)
is "--version: the default plugin, and the GCC it was built for" "$(sed -n 2p <<< "$out")" \
	"plugin: $B/lib/pgoptcc/pgopt.so, built for GCC $(gcc -dumpfullversion)"
is "--pgopt-version: the same" "$(PGOPT_PLUGIN= "$W" --pgopt-version)" "$out"
is "--pgopt-version after settings: the settings' compiler" \
	"$("$W" --pgopt-cc="$gcc12" --pgopt-version | sed -n 3p)" \
	"compiler: $gcc12, GCC $(gcc -dumpfullversion): the plugin loads into it"
if command -v clang >/dev/null; then
	like "--version: a compiler that is not GCC, said so" "$(PGOPT_CC=clang "$W" --version | sed -n 3p)" \
		"^compiler: $(command -v clang), not GCC \(.*clang version .*\): the plugin cannot load into it\$"
else
	skip "clang is not installed: no --version with a compiler that is not GCC"
fi
is "pgoptcc gcc --version: the compiler's own" "$("$W" gcc --version)" "$(gcc --version)"
is "masquerading: gcc --version is gcc's" "$(PATH=$TMP/mask:$PATH gcc --version)" "$(gcc --version)"
mkdir -p cfg && echo '/* confdefs.h */' > cfg/confdefs.h
is "while configure runs (confdefs.h here): \$CC --version is the compiler's" \
	"$(cd cfg && "$W" --version)" "$(gcc --version)"
is "... so PostgreSQL's cc_string stays gcc's" "$(cd cfg && "$W" --version | sed q)" "$(gcc --version | sed q)"
mkdir -p fakemeson && printf '#!/bin/sh\n"$@"\n' > fakemeson/meson && chmod +x fakemeson/meson
is "meson asking (its child): \$CC --version is the compiler's (meson identifies it so)" \
	"$(fakemeson/meson "$W" --version)" "$(gcc --version)"

# own options
"$W" --pgopt-bogus 2> err; s=$?
is "unknown own option: exit 100" "$s" 100
"$W" --pgopt-check-policy 2> err; s=$?
is "own option with wrong arguments: exit 100" "$s/$(cat err)" "100/pgoptcc: error: usage: pgoptcc --pgopt-check-policy FILE"
like "--pgopt-check-policy prints JSON" "$("$W" --pgopt-check-policy p.policy)" '"ops":\["cflags \+= -fno-plt"\]'
"$W" --pgopt-check-policy bad.policy 2> err; s=$?
is "--pgopt-check-policy on a bad policy: 101" "$s" 101
mkdir -p r/src/x && touch r/configure
is "--pgopt-tu names the TU from the configure root" "$(cd r/src/x && PGOPT_ROOT= "$W" --pgopt-tu ../x/./y.c)" "src/x/y.c"
done_testing
