#!/bin/bash
# 36-build-unmatched.t - a policy section that matches no translation unit
# is never silent (issue 42: "[src/core/hto.c] passes, the build comes out
# stock and verify says OK"): on a tiny PostgreSQL-shaped tree built by
# pgbuild build with the real gcc, pgoptcc and pgopt.so,
#  - pgbuild build warns at its end, naming each such section's file:line
#    and glob (and each pattern of a brace glob that matched nothing);
#  - pgbuild verify fails (exit 1) with an UNMATCHED line per section, and
#    a last line saying why, unless --allow-unmatched (then a warning);
#  - [global] never counts, and a policy whose sections all match is quiet;
#  - verify --log (any build through pgoptcc) checks the same.
. "$(dirname "$0")/../lib/tap.sh"
P=$B/bin/pgbuild
export PGOPT_CACHE_DIR=$TMP/cache
unset PGOPT_POLICY PGOPT_LOGDIR PGOPT_PREFIX
cd "$TMP" || exit 1

# --- a fake PostgreSQL: src/backend/{a,b}.c -> postgres, VPATH build ---
mkdir -p fakepg-99.1/src/backend fakepg-99.1/contrib
cat > fakepg-99.1/configure <<'CONF'
#!/bin/sh
PACKAGE_VERSION='99.1'
srcdir=$(cd "$(dirname "$0")" && pwd)
prefix=/usr/local CC=cc
for a; do
	case $a in
	--prefix=*) prefix=${a#--prefix=} ;;
	CC=*) CC=${a#CC=} ;;
	esac
done
echo "$*" > config.status
mkdir -p src/backend contrib
cat > GNUmakefile <<EOF
srcdir = $srcdir
CC = $CC
prefix = $prefix
OBJS = a.o b.o
all: src/backend/postgres
src/backend/%.o: \$(srcdir)/src/backend/%.c
	cd src/backend && \$(CC) -O2 -c -o \$*.o \$(srcdir)/src/backend/\$*.c
src/backend/postgres: \$(addprefix src/backend/,\$(OBJS))
	cd src/backend && \$(CC) -O2 -o postgres \$(OBJS)
install: all
	mkdir -p \$(prefix)/bin && cp src/backend/postgres \$(prefix)/bin/postgres
clean:
	rm -f src/backend/*.o src/backend/postgres
EOF
printf 'all:\ninstall:\n' > contrib/Makefile
CONF
chmod +x fakepg-99.1/configure
printf 'int a(int x) { return x + 1; }\n' > fakepg-99.1/src/backend/a.c
printf 'int a(int);\nint main(int c, char **v) { (void)v; return a(c) == 2 ? 0 : 1; }\n' > fakepg-99.1/src/backend/b.c
SRC=$TMP/fakepg-99.1
build() { "$P" build --src "$SRC" --prefix "$TMP/$1" --no-bench --jobs 2 --policy "$2"; }

# the issue's policy: a misspelt path, and a brace glob with one
# misspelt name
cat > miss.policy <<'P'
[global]
cflags += -fno-plt
[src/core/hto.c]
cflags += -O3
[src/backend/{a,bb}.c]
cflags += -O1
P
build out miss.policy > build.out 2> build.err; s=$?
is "build with a section that matches nothing: builds (exit 0)" "$s" 0
like "... warns at the end: the section's file:line and glob" "$(cat build.err)" \
	"pgbuild: warning: $TMP/miss.policy:3: section \[src/core/hto.c\] matched none of the 2 translation units compiled: a section that applies to nothing \(\`pgbuild verify\` fails on it\)"
like "... and the brace pattern that matched nothing" "$(cat build.err)" \
	"pgbuild: warning: $TMP/miss.policy:5: section \[src/backend/\{a,bb\}.c\]: its pattern src/backend/bb.c matched none of the 2 translation units compiled"
is "... two warnings, [global] not among them" "$(grep -c 'warning: .*matched none' build.err)" 2
like "... at the end, after the build's summary line" "$(tail -n 3 build.err | tr '\n' '|')" \
	"^pgbuild: built in [^|]*\|pgbuild: warning: [^|]*miss.policy:3: [^|]*\|pgbuild: warning: [^|]*miss.policy:5: [^|]*\|\$"

"$P" verify --install "$TMP/out" > verify.out 2>&1; s=$?
is "verify fails on it: exit 1" "$s" 1
like "... an UNMATCHED line naming the section's line" "$(cat verify.out)" \
	"UNMATCHED $TMP/miss.policy:3: section \[src/core/hto.c\] matched none of the 2 translation units compiled"
like "... and the brace pattern's" "$(cat verify.out)" \
	"UNMATCHED $TMP/miss.policy:5: section \[src/backend/\{a,bb\}.c\]: its pattern src/backend/bb.c matched none"
like "... the objects themselves carry what the policy assigns" "$(cat verify.out)" \
	"verify: flags as the policy says: 2 objects of postgres"
nok "... and no line says OK: one verdict, the last line's" grep -q "^verify: OK" verify.out
like "... the last line says why it failed" "$(tail -n 1 verify.out)" \
	"^verify: FAILED: 2 section globs of policy $TMP/miss.policy matched no translation unit of the build \(UNMATCHED above; --allow-unmatched if that is expected\)\$"
"$P" verify --install "$TMP/out" --allow-unmatched > verify.out 2> verify.err; s=$?
is "verify --allow-unmatched: exit 0" "$s" 0
like "... the sections still named, as warnings" "$(cat verify.err)" \
	"pgbuild: warning: $TMP/miss.policy:3: section \[src/core/hto.c\] matched none .* \(allowed: --allow-unmatched\)"
nok "... and no UNMATCHED line" grep -q UNMATCHED verify.out
like "--help names --allow-unmatched" "$("$P" verify --help)" "--allow-unmatched +a policy section"

# every section matches: nothing said, verify OK
printf '[global]\ncflags += -fno-plt\n[src/backend/a.c]\ncflags += -O1\n[src/backend/*.c]\ncflags += -fno-ident\n' > fine.policy
build fine fine.policy > build.out 2> build.err; s=$?
is "a policy whose sections all match: builds" "$s" 0
nok "... no warning about sections" grep -q 'matched none' build.err
"$P" verify --install "$TMP/fine" > verify.out 2>&1; s=$?
like "... verify: exit 0" "$s/$(tail -n 1 verify.out)" "^0/verify: OK: 2 objects"
# [global] alone never counts, even with nothing else
printf '[global]\ncflags += -fno-plt\n' > global.policy
"$P" verify --install "$TMP/fine" --policy global.policy > verify.out 2>&1
nok "[global]: never an unmatched section" grep -q UNMATCHED verify.out
# checking the build against a policy with a section it never compiled
"$P" verify --install "$TMP/fine" --policy miss.policy > verify.out 2>&1; s=$?
is "verify --policy with an unmatched section: exit 1" "$s" 1
like "... naming it" "$(cat verify.out)" "UNMATCHED $TMP/miss.policy:3: section \[src/core/hto.c\]"

# --- verify --log: any build through pgoptcc, the same check ---
mkdir -p pkg && cp fakepg-99.1/src/backend/a.c fakepg-99.1/src/backend/b.c pkg/
(cd pkg && for u in a b; do
	"$B/bin/pgoptcc" --pgopt-policy="$TMP/miss.policy" --pgopt-logdir="$TMP/pkglog" --pgopt-root="$TMP/pkg" -O2 -c $u.c -o $u.o
done && "$B/bin/pgoptcc" --pgopt-policy="$TMP/miss.policy" --pgopt-logdir="$TMP/pkglog" --pgopt-root="$TMP/pkg" -O2 -o prog a.o b.o && \
	"$B/bin/pgoptcc" --pgopt-policy="$TMP/miss.policy" --pgopt-logdir="$TMP/pkglog" --pgopt-root="$TMP/pkg" -O2 -o prog2 a.o b.o)
ok "(setup) a build through pgoptcc with the policy, two binaries" test -x pkg/prog -a -x pkg/prog2
"$P" verify --log "$TMP/pkglog" --builddir "$TMP/pkg" > verify.out 2>&1; s=$?
is "verify --log: exit 1 on the unmatched section" "$s" 1
like "... naming it against that build's units" "$(cat verify.out)" \
	"UNMATCHED $TMP/miss.policy:3: section \[src/core/hto.c\] matched none of the 2 translation units compiled"
is "... no line says OK: both binaries and their summary say flags as the policy says (one verdict: FAILED)" \
	"$(grep -c '^verify: flags as the policy says: ' verify.out)/$(grep -c '^verify: OK' verify.out)" "3/0" || diag "$(cat verify.out)"
done_testing
