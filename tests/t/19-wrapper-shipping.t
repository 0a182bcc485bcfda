#!/bin/bash
# 19-wrapper-shipping.t - shipping mode: the masquerade.  A small real
# autoconf project is configured and built with pgoptcc's masquerade
# directory first on PATH and no CC at all (as Debian's debian/rules does:
# configure finds gcc on PATH), with the policy in the environment.  Its
# generated makefiles record the plain compiler (CC = gcc) while its objects
# carry the policy's flags (.GCC.command.line).  Then pgoptcc is removed
# (the install and its masquerade directory are deleted, PATH is plain) and
# the tree is rebuilt, and an "extension" is built against the installed
# makefile fragment (PGXS's Makefile.global in PostgreSQL), with the
# recorded CC: both work, with plain gcc's flags.
. "$(dirname "$0")/../lib/tap.sh"
command -v autoconf >/dev/null || skip_all "autoconf is not installed"
cd "$TMP" || exit 1
export PGOPT_PLUGIN=off           # the plugin has its own suites
make -s -C "$TOP" install PREFIX="$TMP/pgoptcc" O="$B" >/dev/null 2>&1 ||
	{ echo "Bail out! make install of pgoptcc failed"; exit 1; }
MASQ=$TMP/pgoptcc/lib/pgoptcc/masq
PLAIN_PATH=$PATH

mkdir -p proj/src
cat > proj/configure.ac <<'AC'
AC_INIT([ship], [1.0])
AC_CONFIG_SRCDIR([src/lib.c])
AC_PROG_CC
AC_PROG_CXX
AC_CONFIG_FILES([Makefile Makefile.global])
AC_OUTPUT
AC
cat > proj/Makefile.global.in <<'MK'
# what an extension build includes (PostgreSQL's lib/pgxs/src/Makefile.global)
CC = @CC@
CFLAGS = @CFLAGS@
CXX = @CXX@
MK
cat > proj/Makefile.in <<'MK'
prefix = @prefix@
include Makefile.global
all: prog cxxprog
prog: src/lib.o src/main.o
	$(CC) $(CFLAGS) -o $@ src/lib.o src/main.o
cxxprog: src/lib.o src/cxx.o
	$(CXX) -o $@ src/lib.o src/cxx.o
src/cxx.o: src/cxx.cc
	$(CXX) -c -o $@ $<
src/%.o: src/%.c
	$(CC) $(CFLAGS) -c -o $@ $<
install: prog
	mkdir -p $(prefix)/bin $(prefix)/lib
	cp prog $(prefix)/bin/ && cp Makefile.global $(prefix)/lib/
clean:
	rm -f prog cxxprog src/*.o
MK
printf 'int lib_twice(int x) { return 2 * x; }\n' > proj/src/lib.c
printf 'int lib_twice(int);\nint main(void) { return lib_twice(2) == 4 ? 0 : 1; }\n' > proj/src/main.c
printf 'extern "C" int lib_twice(int);\nint main() { return lib_twice(3) == 6 ? 0 : 1; }\n' > proj/src/cxx.cc
(cd proj && autoconf) || { echo "Bail out! autoconf failed"; exit 1; }
cat > ship.policy <<'P'
[src/lib.c]
cflags += -O3 -fno-plt
P
o3() { readelf -p .GCC.command.line "$1" 2>/dev/null | grep -Ec -- ' -O3 .*-fno-plt( |$)'; }

# --- the package build: masquerade first on PATH, no CC ---
(cd proj && export PATH=$MASQ:$PLAIN_PATH PGOPT_POLICY=$TMP/ship.policy PGOPT_LOGDIR=$TMP/log &&
	./configure --prefix="$TMP/inst" >configure.out 2>&1)
is "configure through the masquerade: exit 0" "$?" 0
like "configure found gcc (the masquerade link)" "$(cat proj/configure.out)" "checking for gcc\.\.\. gcc"
is "the generated makefile records the plain compiler" "$(grep '^CC =' proj/Makefile.global)" "CC = gcc"
is "config.status records it too" "$(grep -c "S\[\"CC\"\]=\"gcc\"" proj/config.status)" 1
is "... and the plain C++ compiler (the masquerade's g++)" "$(grep '^CXX =' proj/Makefile.global)" "CXX = g++"
(cd proj && PATH=$MASQ:$PLAIN_PATH make >make.out 2>&1 && PATH=$MASQ:$PLAIN_PATH make install >>make.out 2>&1)
is "make and make install with only PATH set: exit 0" "$?" 0
is "lib.o carries the policy's flags" "$(o3 proj/src/lib.o)" 1
is "main.o does not" "$(o3 proj/src/main.o)" 0
like "every compile went through pgoptcc (logged)" \
	"$(jq -r 'select(.kind == "compile") | .tu' log/compile.jsonl | sort | tr '\n' ' ')" '^src/lib.c src/main.c $'
like "pgoptcc ran the real gcc" "$(jq -r 'select(.kind == "compile") | .compiler' log/compile.jsonl | sort -u)" '^/usr/(local/)?bin/gcc$'
# C++ (PostgreSQL's llvmjit): compiles pass through unchanged, links by g++
# go through pgoptcc (records = side takes the C units' records out there)
is "the C++ compile went through pgoptcc, unchanged" \
	"$(jq -r 'select(.output == "src/cxx.o") | "\(.kind) \(.reason) \(.changed) \(.compiler)"' log/compile.jsonl)" \
	"passthrough other_language false $(command -v g++)"
is "the g++ link went through pgoptcc as a link" \
	"$(jq -r 'select(.tu == "cxxprog") | "\(.kind) \(.compiler)"' log/compile.jsonl)" "link $(command -v g++)"
ok "the C++ program runs" proj/cxxprog

# --- a machine without pgoptcc ---
rm -rf "$TMP/pgoptcc"
export PATH=$PLAIN_PATH
nok "the masquerade directory is gone" test -e "$MASQ"
(cd proj && make clean >/dev/null && make >remake.out 2>&1 && ./prog)
is "rebuild with the recorded CC, without pgoptcc: builds and runs" "$?" 0
is "... with plain gcc's flags" "$(o3 proj/src/lib.o)" 0
mkdir ext && printf 'int ext(void) { return 1; }\n' > ext/ext.c
cat > ext/Makefile <<MK
include $TMP/inst/lib/Makefile.global
ext.o: ext.c
	\$(CC) \$(CFLAGS) -c -o \$@ \$<
MK
ok "an extension built against the installed Makefile.global works" make -C ext
like "... with plain gcc" "$(make -B -C ext 2>&1 | grep -v '^make')" '^gcc .*-c -o ext\.o ext\.c$'
done_testing
