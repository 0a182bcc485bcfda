#!/bin/bash
# 30-build-fake.t - pgbuild build, verify and source on a tiny source tree
# shaped like PostgreSQL's (configure + out-of-tree make + install): real
# gcc, real pgoptcc and pgopt.so, seconds instead of minutes.  Covers the
# build record, the compile log, incremental rebuilds after a policy change
# (exactly the changed objects are recompiled), verify against the policy
# and against a tampered one, and tarball sources.
# tap: alone (it times something: make check runs it by itself, tests/tests.mk)
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/heavy.sh"
P=$B/bin/pgbuild
export PGOPT_CACHE_DIR=$TMP/cache
unset PGOPT_POLICY PGOPT_LOGDIR PGOPT_PREFIX
cd "$TMP" || exit 1

# --- a fake PostgreSQL: src/backend/{a,b,c}.c -> postgres, VPATH build ---
mkdir -p fakepg-99.1/src/backend fakepg-99.1/contrib
cat > fakepg-99.1/configure <<'CONF'
#!/bin/sh
# fake configure: writes config.status and a GNUmakefile for a VPATH build
PACKAGE_VERSION='99.1'
srcdir=$(cd "$(dirname "$0")" && pwd)
prefix=/usr/local CC=cc AR=ar
for a; do
	case $a in
	--prefix=*) prefix=${a#--prefix=} ;;
	CC=*) CC=${a#CC=} ;;
	AR=*) AR=${a#AR=} ;;
	esac
done
# a configure probe, like autoconf's: must stay untouched by the policy
printf 'int main(void) { return 0; }\n' > conftest.c
"$CC" -O2 -o conftest conftest.c || exit 1
rm -f conftest conftest.c
echo "$*" > config.status
mkdir -p src/backend contrib
cat > GNUmakefile <<EOF
srcdir = $srcdir
CC = $CC
prefix = $prefix
OBJS = a.o b.o c.o
all: src/backend/postgres
	@[ -z "\$\$FAKEPG_SLEEP" ] || exec sleep \$\$FAKEPG_SLEEP
src/backend/%.o: \$(srcdir)/src/backend/%.c
	cd src/backend && \$(CC) -O2 -c -o \$*.o \$(srcdir)/src/backend/\$*.c
src/backend/postgres: \$(addprefix src/backend/,\$(OBJS))
	cd src/backend && \$(CC) -O2 -o postgres \$(OBJS)
install: all
	mkdir -p \$(prefix)/bin && cp src/backend/postgres \$(prefix)/bin/postgres
	@[ -z "\$\$FAKEPG_REAL" ] || for f in "\$\$FAKEPG_REAL"/bin/*; do ln -sf "\$\$f" \$(prefix)/bin/; done
check:
	@echo "test fake_check                   ... ok           1 ms"
	@echo "======================"
	@echo " All 1 tests passed. "
	@echo "======================"
clean:
	rm -f src/backend/*.o src/backend/postgres
EOF
printf 'all:\ninstall:\n' > contrib/Makefile
CONF
chmod +x fakepg-99.1/configure
printf 'int a(int x) { return x + 1; }\n' > fakepg-99.1/src/backend/a.c
printf 'int b(int x) { return x * 2; }\n' > fakepg-99.1/src/backend/b.c
# c.c: a cold function and a function GCC splits into chk + chk.cold
cat > fakepg-99.1/src/backend/c.c <<'C'
#include <stdio.h>
#include <stdlib.h>
int a(int); int b(int);
__attribute__((cold, noinline)) void fail(int x) { fprintf(stderr, "bad %d\n", x); exit(2); }
__attribute__((noinline)) int chk(int x)
{
	if (x > 1000) {
		fail(x);
		x = x * 3 + a(x);
	}
	return x + 1;
}
int main(int c, char **v) { (void)v; return a(b(chk(c) - 1)) == 3 ? 0 : 1; }
C
SRC=$TMP/fakepg-99.1

printf '[global]\ncflags += -fno-plt\n' > p1.policy
printf '[global]\ncflags += -fno-plt\n[src/backend/b.c]\ncflags += -O3\n' > p2.policy
printf '[global]\ncflags += -fno-plt\n[src/backend/b.c]\ncflags += -O1\n' > tampered.policy

build() { "$P" build --src "$SRC" --prefix "$TMP/out" --no-bench --jobs 2 "$@"; }
json() { perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); my @k = split /\./, $ARGV[0];
	for (@k) { $j = ref $j eq "ARRAY" ? $j->[$_] : $j->{$_} } print ref $j eq "ARRAY" ? join(",", @$j) : $j // "null"' "$1"; }
compiles_since() { # first_line -> compile records of src/backend from that line on
	tail -n +"$1" out.build/pgopt-log/compile.jsonl | grep -c '"kind":"compile"'; }

ok "build with policy p1" build --policy p1.policy
R=$TMP/out/pgopt-build.json
ok "installed postgres runs" "$TMP/out/bin/postgres"
is "record: source version" "$(json source.version < "$R")" "99.1"
is "record: policy path" "$(json policy.path < "$R")" "$TMP/p1.policy"
like "record: policy content" "$(json policy.content < "$R")" 'cflags \+= -fno-plt'
like "record: policy sha256" "$(json policy.sha256 < "$R")" '^[0-9a-f]{64}$'
like "record: gcc version" "$(json compiler.version < "$R")" 'gcc'
like "record: configure args carry CC=pgoptcc" "$(json configure_args < "$R")" "CC=$B/bin/pgoptcc"
like "record: configure args carry the LTO-aware archiver" "$(json configure_args < "$R")" 'AR=.*gcc-ar'
like "record: phase times" "$(json phases.make < "$R")" '^[0-9.]+$'
like "record: text size of postgres" "$(json postgres.text_size < "$R")" '^[1-9][0-9]*$'
is "record: 3 compiles this build" "$(json log.compiles < "$R")" 3
is "record: a fresh build" "$(json incremental.fresh < "$R")" 1
ok "the configure probe was passed through untouched" \
	grep -q '"kind":"passthrough","reason":"conftest"' out.build/pgopt-log/compile.jsonl
ok "compiles were logged with the policy's flags" \
	grep -q '"tu":"src/backend/b.c".*"added":\["-fno-plt"\]' out.build/pgopt-log/compile.jsonl

ok "verify passes against the build's policy" "$P" verify --install "$TMP/out"
like "verify says OK" "$("$P" verify --install "$TMP/out" 2>&1 | tail -1)" '^verify: OK: 3 objects'

ok "rebuild with the same policy" build --policy p1.policy
is "same policy: nothing recompiled" "$(json log.compiles < "$R")" 0

first=$(( $(wc -l < out.build/pgopt-log/compile.jsonl) + 1 ))
ok "rebuild after a policy change on one file" build --policy p2.policy
is "only the changed file was invalidated" "$(json incremental.invalidated_tus < "$R")" "src/backend/b.c"
is "only the changed file was recompiled (compile log)" "$(compiles_since "$first")" 1
ok "the recompile got -O3" sh -c "tail -n +$first out.build/pgopt-log/compile.jsonl | grep -q '\"tu\":\"src/backend/b.c\".*\"added\":\\[\"-fno-plt\",\"-O3\"\\]'"
is "postgres relinked once" "$(tail -n +"$first" out.build/pgopt-log/compile.jsonl | grep -c '"kind":"link"')" 1
ok "verify passes against p2" "$P" verify --install "$TMP/out"
"$P" verify --install "$TMP/out" --policy tampered.policy > verify.out 2>&1
is "verify against a tampered expectation exits 1" "$?" 1
like "verify names the missing flag" "$(cat verify.out)" 'MISSING +src/backend/b.c: -O1'
like "verify names the extra flag" "$(cat verify.out)" 'EXTRA +src/backend/b.c: -O3'
"$P" verify --install "$TMP/out" --policy none > verify.out 2>&1
is "verify against policy none exits 1" "$?" 1

first=$(( $(wc -l < out.build/pgopt-log/compile.jsonl) + 1 ))
ok "back to the baseline (policy none)" build --policy none
is "policy none: all three objects change" "$(compiles_since "$first")" 3
ok "verify of the baseline passes" "$P" verify --install "$TMP/out"
like "the baseline record has no policy" "$(json policy.path < "$R")" '^null$'
ok "other configure arguments" build --policy none --configure-args "--with-x --enable-cassert"
is "... reconfigure" "$(json incremental.reconfigured < "$R")" 1
is "... and rebuild everything (no header dependencies without --enable-depend)" "$(json log.compiles < "$R")" 3
like "... with the arguments recorded" "$(json configure_args < "$R")" '--enable-cassert'
ok "--enable-cassert as a build option" build --policy none --enable-cassert --configure-args --with-x
is "... the same configure as through --configure-args: no reconfigure" "$(json incremental.reconfigured < "$R")" 0
is "... recorded as enable_cassert" "$(json enable_cassert < "$R")" 1
is "... passed to configure once" "$(json configure_args < "$R" | tr , '\n' | grep -c -- '^--enable-cassert$')" 1
like "... config.status has it" "$(cat out.build/config.status)" '--enable-cassert'
ok "without it" build --policy none --configure-args --with-x
is "... reconfigures" "$(json incremental.reconfigured < "$R")" 1
is "... recorded as no cassert" "$(json enable_cassert < "$R")" 0
nok "... config.status does not have it" grep -q -- --enable-cassert out.build/config.status
like "--help names --enable-cassert" "$("$P" build --help)" '--enable-cassert +assertion-enabled build'

# --- a link-only policy change relinks without recompiling ---
lk() { "$P" build --src "$SRC" --prefix "$TMP/lk" --no-bench --jobs 2 "$@"; }
LR=$TMP/lk/pgopt-build.json
printf '[global]\nldflags += -Wl,--build-id=md5\n' > ld.policy
ok "link-only: baseline build" lk --policy none
first=$(( $(wc -l < lk.build/pgopt-log/compile.jsonl) + 1 ))
ok "link-only: rebuild with an ldflags-only policy" lk --policy ld.policy
is "link-only: no object recompiled" "$(json log.compiles < "$LR")" 0
is "link-only: postgres relinked (compile log)" \
	"$(tail -n +"$first" lk.build/pgopt-log/compile.jsonl | grep -c '"kind":"link".*"output":"postgres"')" 1
is "link-only: the record names the relinked output" "$(json incremental.relinked_outputs < "$LR")" "src/backend/postgres"
like "link-only: the installed postgres has the new link flag (md5 build id)" \
	"$(readelf -n "$TMP/lk/bin/postgres")" 'Build ID: [0-9a-f]{32}$'
ok "link-only: same policy again" lk --policy ld.policy
is "link-only: nothing relinked" "$(json log.links < "$LR")" 0

# --- a hot/cold list is part of the policy ---
printf 'a\n' > hot.list
printf '[global]\ncflags += -fno-plt\nhot = hot.list\n' > hot.policy
ok "hot list: build" lk --policy hot.policy
sha1=$(json policy.sha256 < "$LR")
is "hot list: the record holds the list's path" "$(json policy.files.0.path < "$LR")" "$TMP/hot.list"
is "hot list: ... and its content" "$(json policy.files.0.content < "$LR")" "a"
nok "hot list: the policy hash covers the list" test "$sha1" = "$(sha256sum < hot.policy | cut -c1-64)"
# verify --baseline: hot and unlikely code per function (ld merges the
# sections into .text: by section name a linked binary always shows 0)
symsize() { readelf -sW "$1" | awk -v n="$2" '$8 == n { print $3 }'; }
out=$("$P" verify --install "$TMP/lk" --baseline "$TMP/out" | grep '^size: .text.hot')
is "verify --baseline: .text.hot per function (a is listed hot)" \
	"$(printf '%s' "$out" | sed -E 's/^size: .text.hot ([0-9]+) -> ([0-9]+) bytes.*/\1 \2/')" \
	"0 $(symsize "$TMP/lk/bin/postgres" a)"
is "verify --baseline: .text.unlikely: the cold function and the split chk.cold part" \
	"$(printf '%s' "$out" | sed -E 's/.*\.text\.unlikely ([0-9]+) -> ([0-9]+) bytes.*/\1 \2/')" \
	"$(symsize "$TMP/out/bin/postgres" chk.cold) $(( $(symsize "$TMP/lk/bin/postgres" chk.cold) + $(symsize "$TMP/lk/bin/postgres" fail) ))"
like "verify --baseline: counts functions and split parts" "$out" 'hot 0 -> 1 functions, unlikely 1 -> 2 of which 1 -> 1 split .cold parts'
ok "hot list: same policy and list again" lk --policy hot.policy
is "hot list: unchanged: the dry run is skipped" "$(json incremental.checked_objects < "$LR")" 0
printf 'a\nb\n' > hot.list
ok "hot list: rebuild after a list edit" lk --policy hot.policy
nok "hot list: the policy hash changed" test "$(json policy.sha256 < "$LR")" = "$sha1"
is "hot list: the build was not taken as unchanged (dry run of 3 objects)" \
	"$(json incremental.checked_objects < "$LR")" 3
is "hot list: the record holds the new list" "$(json policy.files.0.content < "$LR")" $'a\nb'
is "hot list: every object the list applies to is recompiled (pgoptcc passes the list's digest)" \
	"$(json incremental.invalidated < "$LR")" 3
like "hot list: b is now hot (verify --baseline)" \
	"$("$P" verify --install "$TMP/lk" --baseline "$TMP/out" | grep '^size: .text.hot')" 'hot 0 -> 2 functions'

# --- a record in the binary that no object on the link line accounts for ---
cp -r "$TMP/lk" "$TMP/lkx"
objcopy -O binary --only-section=.pgopt.log "$TMP/lkx/bin/postgres" rec.bin
printf '{"kind":"unit","tu":"src/backend/zzz.c","stage":"compile","added":[],"removed":[]}\n' >> rec.bin
objcopy --update-section .pgopt.log=rec.bin "$TMP/lkx/bin/postgres"
"$P" verify --install "$TMP/lkx" > verify.out 2>&1
is "verify: a record of a unit not on the link line exits 1" "$?" 1
like "... and is named EXTRA" "$(cat verify.out)" '^EXTRA +src/backend/zzz.c: recorded in postgres, but no object on its link line'
ok "... while the untouched install verifies" "$P" verify --install "$TMP/lk"

# --- progress: on a terminal one line rewritten in place; in a log (CI)
# plain lines every 10% or 30 s; both count translation units ---
FAKEPG_SLEEP=2 script -qec "'$P' build --src '$SRC' --prefix '$TMP/tty' --policy none --no-bench --jobs 2" \
	/dev/null > tty.out 2>&1
like "terminal: the progress line is rewritten in place" "$(cat -v tty.out)" '\^M\^\[\[K\[make\] [0-3]/3 translation units \([0-9]+%\), [0-9]+s, ETA'
like "terminal: the phase ends with the count of compiled translation units" \
	"$(cat -v tty.out)" 'pgbuild: make done in [0-9]+s \(3 translation units compiled\)'
FAKEPG_SLEEP=2 "$P" build --src "$SRC" --prefix "$TMP/ntty" --policy none --no-bench --jobs 2 \
	> ntty.out 2> ntty.err
like "log: a plain progress line" "$(cat ntty.err)" '^pgbuild: make: 3/3 translation units compiled \(100%\), [0-9]+s, ETA'
nok "log: no terminal control characters" grep -q $'\r' ntty.err
like "log: the phase's count agrees" "$(cat ntty.err)" 'pgbuild: make done in [0-9]+s \(3 translation units compiled\)'

# --- an empty policy file is a baseline too: unchanged, still logged ---
: > empty.policy
ok "empty policy: build" "$P" build --src "$SRC" --prefix "$TMP/emp" --policy empty.policy --no-bench --jobs 2
ER=$TMP/emp/pgopt-build.json
is "empty policy: 3 compiles logged" "$(json log.compiles < "$ER")" 3
is "empty policy: 1 link logged" "$(json log.links < "$ER")" 1
is "empty policy: no compile or link changed" \
	"$(grep -E '"kind":"(compile|link)"' emp.build/pgopt-log/compile.jsonl | grep -vc '"changed":false')" 0
is "empty policy: nothing added" "$(grep '"kind":"compile"' emp.build/pgopt-log/compile.jsonl | grep -vc '"added":\[\]')" 0
for o in a b c; do
	ok "empty policy: $o.o is the policy-none object byte for byte" \
		cmp emp.build/src/backend/$o.o ntty.build/src/backend/$o.o
done
ok "empty policy: verify passes" "$P" verify --install "$TMP/emp"

# --- LTO: the objects' own sections are gone, the plugin records remain ---
ok "LTO build (coscup policy) into a second prefix" \
	"$P" build --src "$SRC" --prefix "$TMP/lto" --no-bench --policy "$TOP/examples/coscup-2017.policy"
is "record: LTO on" "$(json policy.lto < "$TMP/lto/pgopt-build.json")" on
ok "the LTO postgres runs" "$TMP/lto/bin/postgres"
out=$("$P" verify --install "$TMP/lto" 2>&1)
is "verify passes on the LTO build" "$?" 0
like "... from the records, including the link-time one" "$out" 'verify: OK: 3 objects.*3 with policy flags.*[1-9][0-9]* link-time \(LTO\) records'
"$P" verify --install "$TMP/lto" --policy p1.policy > verify.out 2>&1
is "verify of the LTO build against another policy exits 1" "$?" 1
ok "verify --baseline prints a size diff" sh -c "'$P' verify --install '$TMP/lto' --baseline '$TMP/out' | grep -q '^size: text'"

# --- clang-15: ThinLTO by its own lld, no plugin: verify reads the command lines ---
if command -v clang-15 >/dev/null && [ -x "$(dirname "$(readlink -f "$(command -v clang-15)")")/ld.lld" ]; then
	printf '[global]\ncflags += -O2 -fno-plt\nlto = on\nbolt = ready\n' > clang.policy
	ok "clang-15 LTO build (PGOPT_CC) into a third prefix" \
		env PGOPT_CC=clang-15 "$P" build --src "$SRC" --prefix "$TMP/cl" --no-bench --policy clang.policy
	like "record: the compiler, and llvm-ar as the archiver" "$(cat "$TMP/cl/pgopt-build.json")" \
		'"cc":"clang-15","version":"[^"]*clang version 15[^"]*","ar":"/[^"]*/llvm-ar"'
	ok "the clang postgres runs" "$TMP/cl/bin/postgres"
	like "... linked by LLD" "$(readelf -p .comment "$TMP/cl/bin/postgres")" 'Linker: .*LLD 15'
	# the replay asks the caller's compiler, never the one the record names
	out=$("$P" verify --install "$TMP/cl" 2>&1)
	like "verify without PGOPT_CC: the record's compiler is compared, not run" "$out" \
		'warning: the build record .*/cl/pgopt-build.json names the compiler clang-15, replaying with /[^ ]*gcc'
	out=$(PGOPT_CC=clang-15 "$P" verify --install "$TMP/cl" 2>&1); s=$?
	is "verify with PGOPT_CC=clang-15 passes on the clang build" "$s" 0
	[ $s = 0 ] || diag "$out"
	like "... against the command lines the binary records, saying no plugin ran" "$out" \
		'verify: no pgopt.so ran \(a compiler it cannot load into\): 3 objects checked against the command lines postgres records instead; no per-function records'
	printf '[global]\ncflags += -O3\n' > o3.policy
	PGOPT_CC=clang-15 "$P" verify --install "$TMP/cl" --policy o3.policy > verify.out 2>&1
	is "verify of the clang build against another policy exits 1" "$?" 1
	like "... naming a flag its command line lacks" "$(cat verify.out)" '^NOTAPPLIED src/backend/b\.c: -O3 \(absent from its recorded command line\)'
else
	skip "clang-15 and its lld are not installed (make deps): no clang build" 9
fi

# --- argument errors ---
"$P" build --prefix "$TMP/x" >err.out 2>&1
is "build without --policy exits 2" "$?" 2
like "... and names --policy" "$(cat err.out)" 'error: --policy is required'
"$P" build --policy none --prefix "$TMP/x" --jobs 0 >err.out 2>&1
is "--jobs 0 exits 2" "$?" 2
like "... and names the option and value" "$(cat err.out)" 'invalid value "0" for --jobs'
"$P" build --policy none --prefix "$TMP/x" --gate 'tps>=1.05' >err.out 2>&1
is "--gate without --baseline exits 2" "$?" 2
printf '[global]\ncflags -= -fwrapv\n' > bad.policy
"$P" build --src "$SRC" --policy bad.policy --prefix "$TMP/x" >err.out 2>&1
is "a policy removing a required flag exits 2" "$?" 2
like "... naming the policy" "$(cat err.out)" 'bad.policy'
"$P" build --src /nonexistent --policy none --prefix "$TMP/x" >err.out 2>&1
is "a missing source exits 2" "$?" 2
like "... naming it" "$(cat err.out)" '"/nonexistent"'
"$P" regress >err.out 2>&1
is "regress without --builddir exits 2" "$?" 2
"$P" regress --builddir "$TMP" >err.out 2>&1
is "regress on a non-build directory exits 2" "$?" 2
like "... saying why" "$(cat err.out)" 'no config.status'
# killed while its make runs: the whole tree of make goes (pg_regress would
# otherwise leave its temporary server running); a make whose test forks a
# process that outlives its parent stands for it here
mkdir slowtree
touch slowtree/config.status
printf 'check:\n\tsh -c "sleep 3011 & sleep 3012; wait"\n' > slowtree/GNUmakefile
chmod 755 "$TMP"
"$P" regress --builddir "$TMP/slowtree" >err.out 2>&1 &
rp=$!
for _ in $(seq 100); do pgrep -f '^sleep 301[12]$' >/dev/null && break; sleep 0.1; done
is "regress: its make's test is running" "$(pgrep -f '^sleep 301[12]$' | wc -l)" 2
kill -TERM $rp
wait $rp
is "regress killed with SIGTERM dies of it (143)" "$?" 143
for _ in $(seq 50); do pgrep -f '^sleep 301[12]$' >/dev/null || break; sleep 0.1; done
is "... and nothing it started is left" "$(pgrep -f '^sleep 301[12]$' | wc -l)" 0
# -q/--quiet (gate's spelling): the summary on stdout and errors only, no
# "regress: ..." progress lines (the test tree, the user, each make)
mkdir fasttree
touch fasttree/config.status
printf 'check:\n\t@echo "test tablespace                   ... ok          318 ms"\n\t@echo " All 1 tests passed. "\n' \
	> fasttree/GNUmakefile
"$P" regress --builddir "$TMP/fasttree" >reg.out 2>reg.err
is "regress: passes, its summary on stdout" "$?|$(tail -n 1 reg.out)" "0|regress: PASSED (1 tests$( [ "$(id -u)" = 0 ] && echo ", run as user ${PGBUILD_SERVER_USER:-postgres}"))"
like "... with progress lines on stderr" "$(cat reg.err)" '^regress: core: make check'
cp reg.out reg.loud
"$P" regress --builddir "$TMP/fasttree" --quiet >reg.out 2>reg.err
is "regress --quiet: the same summary, and nothing on stderr" "$?|$(cat reg.out)|$(cat reg.err)" "0|$(cat reg.loud)|"
"$P" regress --builddir "$TMP/fasttree" -q -v >reg.out 2>reg.err
is "regress -q -v: refused" "$?|$(head -n 1 reg.err)" "2|pgbuild: error: --quiet and --verbose exclude each other"
"$P" verify --install "$TMP" >err.out 2>&1
is "verify on a prefix without a build record exits 2" "$?" 2

# --- sources ---
mkdir notpg
"$P" source --src notpg >err.out 2>&1
is "a directory without configure is refused" "$?" 2
like "... with a reason" "$(cat err.out)" 'not a PostgreSQL source tree'
cp -r fakepg-99.1 inplace && touch inplace/config.status
"$P" source --src inplace >err.out 2>&1
is "a source tree configured in place is refused" "$?" 2
like "... with a reason" "$(cat err.out)" 'configured in place'
tar czf fakepg-99.1.tar.gz fakepg-99.1
out=$("$P" source --src fakepg-99.1.tar.gz --json - 2>/dev/null)
like "a tarball is unpacked into the cache" "$out" "\"dir\":\"$TMP/cache/tarball/fakepg-99.1-[0-9a-f]+/fakepg-99.1\""
like "... and its version read" "$out" '"version":"99.1"'
ok "... once: the second call reuses it" sh -c "'$P' source --src fakepg-99.1.tar.gz 2>&1 | grep -v unpacking | grep -q fakepg-99.1"
"$P" source --src debian:pgoptcc-no-such-package >err.out 2>&1
is "an unknown Debian source package exits 2" "$?" 2
like "... saying apt lists no version" "$(cat err.out)" 'lists no versions'

# ---- after install, the smoke benchmark runs by itself (a real server:
# this fake install links Debian's PostgreSQL binaries in, FAKEPG_REAL) ----
PGREAL=${PGOPT_TEST_PGPREFIX:-/usr/lib/postgresql/15}
if [ -x "$PGREAL/bin/postgres" ] && [ -x "$PGREAL/bin/initdb" ]; then
	chmod 755 "$TMP"
	export TMPDIR=$TMP
	BR=$TMP/bench/out/pgopt-build.json
	FAKEPG_REAL=$PGREAL heavy "$P" build --src "$SRC" --prefix "$TMP/bench/out" --builddir "$TMP/bench/build" \
		--policy none --jobs 2 > bench.out 2> bench.err
	is "build with the smoke benchmark: exit 0" "$?" 0
	for w in select-only tpcb; do
		is "record: bench $w exit 0" "$(json bench.$w.exit < "$BR")" 0
		is "record: bench $w result is valid" "$(json bench.$w.result.valid < "$BR")" 1
		like "record: bench $w measured transactions" "$(json bench.$w.result.tps < "$BR")" '^[0-9.]+$'
	done
	like "record: bench phase timed" "$(json phases.bench < "$BR")" '^[0-9.]+$'
	like "the build says it ran the benchmark" "$(cat bench.err)" 'smoke benchmark select-only'
	# a gated build: a threshold no build can meet fails the build (exit 1)
	FAKEPG_REAL=$PGREAL heavy "$P" build --src "$SRC" --prefix "$TMP/bench/cand" --builddir "$TMP/bench/cbuild" \
		--policy p1.policy --jobs 2 --no-bench --baseline "$TMP/bench/out" --gate 'select1>=100' \
		--gate-args '--pairs 6 --duration 1 --warmup 0' > gate.out 2> gate.err
	is "gated build missing its threshold exits 1" "$?" 1
	like "... the gate names the threshold it missed" "$(cat gate.err gate.out)" 'select1.*FAIL|FAIL.*select1'
	is "... recorded: the gate's exit" "$(json gate.exit < "$TMP/bench/cand/pgopt-build.json")" 1
	is "... recorded: the expression" "$(json gate.expr < "$TMP/bench/cand/pgopt-build.json")" 'select1>=100'
	unset TMPDIR
else
	skip "no PostgreSQL in $PGREAL: smoke benchmark and gated build not tested" 13
fi

# ---- SIGTERM to pgbuild alone (a CI timeout, `kill PID`) stops make and
# its jobs too, and pgbuild dies of it ----
FAKEPG_SLEEP=317 "$P" build --src "$SRC" --prefix "$TMP/sig/out" --builddir "$TMP/sig/build" \
	--policy none --no-bench --jobs 2 >sig.log 2>&1 &
pid=$!
for _ in $(seq 1 150); do pgrep -f '^sleep 317$' >/dev/null && break; sleep 0.2; done
ok "the build's make is running its job" pgrep -f '^sleep 317$'
kill -TERM "$pid"
wait "$pid"
is "pgbuild died of SIGTERM (exit 143)" "$?" 143
for _ in $(seq 1 50); do pgrep -f '^sleep 317$' >/dev/null || break; sleep 0.2; done
nok "... and no job of its make is left running" pgrep -f '^sleep 317$'

# ---- --bundle: a profile-guided build without training.  Train: the
# instrumented build (pgoptcc's profile mode from the environment, as
# pgbuild pgo runs it) and one run of its postgres; pack its profiles;
# build from the bundle in another build tree ----
PGOPT_PROFILE=generate "$P" build --src "$SRC" --prefix "$TMP/tr" --builddir "$TMP/tr.build" \
	--policy p1.policy --no-bench --jobs 2 >tr.log 2>&1
is "the instrumented build: exit 0" "$?" 0 || diag "$(tail -5 tr.log)"
"$TMP/tr/bin/postgres" 2>/dev/null
ok "its run wrote the profile of c.c beside its object" test -f "$TMP/tr.build/src/backend/c.gcda"
"$P" bundle create --builddir "$TMP/tr.build" --policy p1.policy --out "$TMP/B" -q >bc.log 2>&1
is "bundle create: exit 0" "$?" 0 || diag "$(cat bc.log)"
"$P" build --src "$SRC" --prefix "$TMP/bo" --builddir "$TMP/bo.build" --policy p1.policy \
	--no-bench --jobs 2 --bundle "$TMP/B" >bo.log 2>&1
is "build --bundle: exit 0" "$?" 0 || diag "$(tail -5 bo.log)"
is "... every unit's profile used (bundle check: 100%)" \
	"$(json percent < "$TMP/bo.build/pgopt-bundle-check.json")" 100
is "... the record keeps PGOPT_BUNDLE (verify replays with it)" \
	"$(json environment.PGOPT_BUNDLE < "$TMP/bo/pgopt-build.json")" "$TMP/B"
ok "... c.c was compiled with the bundle's profile" \
	grep -q '"tu":"src/backend/c.c".*"bundle":{[^}]*"profile":' "$TMP/bo.build/pgopt-log/compile.jsonl"
ok "... verify passes (the profile flags expected)" "$P" verify --install "$TMP/bo"
ok "... and the profile-guided postgres runs" "$TMP/bo/bin/postgres"
# a source changed since the training: GCC refuses chk's profile
cp -r "$SRC" "$TMP/fakepg-changed"
sed -i 's/return x + 1;/return x + (x > 7 ? 2 : 1);/' "$TMP/fakepg-changed/src/backend/c.c"
"$P" build --src "$TMP/fakepg-changed" --prefix "$TMP/bo2" --builddir "$TMP/bo2.build" \
	--policy p1.policy --no-bench --jobs 2 --bundle "$TMP/B" --min-applies 99.9 >bo2.out 2>bo2.err
is "build --bundle of a changed source below --min-applies: exit 1" "$?" 1
like "... says so, with the check's document" "$(cat bo2.err)" \
	"less than --min-applies 99.9% of the bundle's profile \\($TMP/bo2.build/pgopt-bundle-check.json\\): not installed"
ok "... and installed nothing" test ! -e "$TMP/bo2/bin/postgres"
"$P" build --src "$SRC" --prefix "$TMP/bo3" --policy p1.policy --bundle "$TMP/nothere" >bo3.out 2>&1
is "--bundle of no bundle: exit 2" "$?" 2
like "... before anything is built" "$(cat bo3.out)" "$TMP/nothere is no profile bundle"
ok "... nothing was" test ! -e "$TMP/bo3.build"
done_testing
