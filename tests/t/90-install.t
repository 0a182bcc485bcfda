#!/bin/bash
# 90-install.t - what a packager does: build into a separate O= directory
# with Debian's hardening flags (dpkg-buildflags) and a Debian layout
# (PREFIX=/usr, LIBDIR=/usr/lib/<multiarch>), then `make install DESTDIR=...`.
# Checks that CPPFLAGS, CFLAGS, CXXFLAGS and LDFLAGS reach every compile and
# link (make -n) and the binaries (BIND_NOW, RELRO, fortified and
# stack-protected calls), with warnings still errors and none printed; that
# the installed pgoptcc loads its plugin from LIBDIR (directly and through
# the masquerade links; wrapper/README.md's table names each), pgbuild finds pgoptcc and tune's default candidate
# list in DATADIR, the man pages are in MANDIR and render without warnings,
# and that all of it still works after the staged tree is moved.
. "$(dirname "$0")/../lib/tap.sh"
command -v dpkg-buildflags >/dev/null || skip_all "dpkg-buildflags missing (dpkg-dev; make deps)"
cd "$TMP" || exit 1

multiarch=$(gcc -print-multiarch)
[ -n "$multiarch" ] || multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
O=$TMP/o ROOT=$TMP/root LIB=/usr/lib/$multiarch
# hardening=+all: LDFLAGS gets -Wl,-z,now (bindnow) besides relro
eval "$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --export=sh)"
export CFLAGS CPPFLAGS CXXFLAGS LDFLAGS
like "dpkg-buildflags: CPPFLAGS has _FORTIFY_SOURCE" "$CPPFLAGS" '-D_FORTIFY_SOURCE='
like "dpkg-buildflags: LDFLAGS has -z now" "$LDFLAGS" '-z,now'
VARS=(O="$O" PREFIX=/usr LIBDIR="$LIB")
# the suites run under make check: this is a make of its own
mk() { env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -C "$TOP" "${VARS[@]}" "$@"; }

mk -j2 install DESTDIR="$ROOT" >make.out 2>&1; s=$?
is "make install DESTDIR PREFIX=/usr LIBDIR=$LIB with the flags from the environment" "$s" 0
[ "$s" = 0 ] || tail -n 20 make.out | diag "$(cat)"
is "no compiler warning (warnings are errors, and none printed)" \
	"$(grep -c 'warning:' make.out)" 0
like "warnings stay errors by default (WERROR)" "$(grep -m1 ' -c -o ' make.out)" ' -Werror '

# wrapper/README.md's table of installed files names every file in
# LIBDIR/pgoptcc (the masquerade links by their names) and every section
table=$(sed -n '/^| file | installed as |/,/^$/p' "$TOP/wrapper/README.md")
(cd "$ROOT$LIB/pgoptcc" && find . -mindepth 1 ! -type d | sed 's|^\./||') | while read -r f; do
	case "$f" in
	masq/*) n=${f#masq/}; case "$table" in *"masq/{"*"$n"[,}]*) ;; *) echo "$f" ;; esac ;;
	*) case "$table" in *"LIBDIR/pgoptcc/$f"*) ;; *) echo "$f" ;; esac ;;
	esac
done >unlisted
ls "$ROOT/usr/share/man" | sed 's|^|MANDIR/|' | while read -r m; do
	case "$table" in *"$m/"*) ;; *) echo "$m" ;; esac
done >>unlisted
is "wrapper/README.md's table lists every installed library file and man section" "$(cat unlisted)" ""

# every compile and link of the install targets gets the user's flags
mk -n -B install DESTDIR="$ROOT" >trace.out 2>&1
grep -E '^(gcc|g\+\+|cc|c\+\+) ' trace.out >cmds.out
like "make -n shows compiles" "$(wc -l <cmds.out)" '^[1-9][0-9]+$'
is "CPPFLAGS (-D_FORTIFY_SOURCE) on every C and C++ command" \
	"$(grep -vc -- '-D_FORTIFY_SOURCE=' cmds.out)" 0
is "CFLAGS (-fstack-protector-strong) on every C and C++ command" \
	"$(grep -vc -- '-fstack-protector-strong' cmds.out)" 0
is "LDFLAGS (-Wl,-z,now) on every link (programs and plugin)" \
	"$(grep -E -- ' -o [^ ]*(/bin/[a-z]+|\.so) ' cmds.out | grep -vc -- '-Wl,-z,now')" 0
like "the plugin is built with CXXFLAGS" "$(grep -E '^(g\+\+|c\+\+) .*pgopt\.so' cmds.out)" \
	'-Werror=format-security'

PG=$ROOT/usr/bin/pgoptcc PB=$ROOT/usr/bin/pgbuild PLUG=$ROOT$LIB/pgoptcc/pgopt.so
for f in "$PG" "$PB" "$PLUG"; do
	n=${f#"$ROOT"}
	like "$n: BIND_NOW (LDFLAGS)" "$(readelf -d "$f" 2>&1)" 'BIND_NOW|FLAGS_1.*NOW'
	like "$n: RELRO (LDFLAGS)" "$(readelf -lW "$f" 2>&1)" 'GNU_RELRO'
	like "$n: stack protector (CFLAGS)" "$(readelf --dyn-syms -W "$f" 2>&1)" '__stack_chk_fail'
done
like "pgoptcc: fortified libc calls (CPPFLAGS)" "$(readelf --dyn-syms -W "$PG")" '__[a-z]+_chk'
like "pgbuild: fortified libc calls (CPPFLAGS)" "$(readelf --dyn-syms -W "$PB")" '__[a-z]+_chk'
# the control: the same gcc without the flags makes neither
if gcc -dM -E - </dev/null | grep -q _FORTIFY_SOURCE; then
	skip "gcc defines _FORTIFY_SOURCE by itself: no control build"
else
	nok "control: the default build ($B/bin/pgoptcc) has no fortified call" \
		sh -c "readelf --dyn-syms -W '$B/bin/pgoptcc' | grep -q '__[a-z]*_chk'"
fi

# the layout
for f in usr/bin/pgoptcc usr/bin/pgbuild "${LIB#/}/pgoptcc/pgopt.so" \
	usr/share/pgoptcc/tune-candidates.txt usr/share/pgoptcc/examples/coscup-2017.policy \
	usr/share/man/man1/pgoptcc.1 usr/share/man/man1/pgbuild.1; do
	ok "installed $f" test -f "$ROOT/$f"
done
nok "nothing in PREFIX/lib/pgoptcc (LIBDIR is $LIB)" test -e "$ROOT/usr/lib/pgoptcc"
is "masquerade link points at BINDIR/pgoptcc" \
	"$(readlink -f "$ROOT$LIB/pgoptcc/masq/gcc")" "$(readlink -f "$PG")"
like "masquerade link is relative" "$(readlink "$ROOT$LIB/pgoptcc/masq/gcc")" '^\.\./'

# the installed programs find their files: run them from a tree at $1
check_tree() { # root label
	local r=$1 t=$2 lib=$1$LIB/pgoptcc
	like "$t: pgoptcc's default plugin is LIBDIR's" \
		"$(cd "$TMP" && env -u PGOPT_PLUGIN "$r/usr/bin/pgoptcc" --pgopt-show-config)" \
		"\(default\) plugin = $lib/pgopt.so"
	printf 'int f(int x) { return x * 3; }\n' >"$TMP/a.c"
	printf '[global]\ncflags += -O1\n' >"$TMP/p.policy"
	(cd "$TMP" && env -u PGOPT_PLUGIN PGOPT_POLICY="$TMP/p.policy" PGOPT_ROOT="$TMP" \
		"$r/usr/bin/pgoptcc" -c a.c -o a.o) 2>"$TMP/err"
	like "$t: pgoptcc loaded the plugin (the object carries .pgopt.log)" \
		"$(readelf -SW "$TMP/a.o" 2>&1; cat "$TMP/err")" '\.pgopt\.log'
	rm -f "$TMP/a.o"
	(cd "$TMP" && PATH=$lib/masq:$PATH env -u PGOPT_PLUGIN PGOPT_POLICY="$TMP/p.policy" \
		PGOPT_ROOT="$TMP" gcc -c a.c -o a.o) 2>"$TMP/err"
	like "$t: masquerade gcc from LIBDIR/pgoptcc/masq loads the plugin" \
		"$(readelf -SW "$TMP/a.o" 2>&1; cat "$TMP/err")" '\.pgopt\.log'
	mkdir -p "$TMP/tune-$t" && (cd "$TMP/tune-$t" && "$r/usr/bin/pgbuild" tune --dry-run --metric tps) \
		>"$TMP/tune.out" 2>&1
	like "$t: tune's default candidates come from DATADIR/pgoptcc" "$(head -n1 "$TMP/tune.out")" \
		"^candidates \([0-9]+, from $r/usr/share/pgoptcc/tune-candidates.txt\):"
	printf '[global]\ncflags += -ffast-math\n' >"$TMP/bad.policy"
	(cd "$TMP/tune-$t" && "$r/usr/bin/pgbuild" run --policy "$TMP/bad.policy") \
		>"$TMP/run.out" 2>&1
	like "$t: pgbuild checks the policy with pgoptcc's own library before any work" \
		"$(cat "$TMP/run.out")" "^pgbuild: error: $TMP/bad.policy:2: cannot add -ffast-math"
}
check_tree "$ROOT" staged
mv "$ROOT" "$TMP/moved"
check_tree "$TMP/moved" moved

# the man pages render without warnings
command -v man >/dev/null && command -v groff >/dev/null ||
	{ skip "man or groff is not installed (man-db, groff-base; make deps): pages not rendered" 6; done_testing; }
for p in pgoptcc pgbuild; do
	f=$TMP/moved/usr/share/man/man1/$p.1
	is "man --warnings -l $p.1: no warning" "$(man --warnings -l "$f" 2>&1 >/dev/null)" ""
	is "groff -ww -man $p.1: no warning" "$(groff -ww -z -man "$f" 2>&1)" ""
	like "man $p finds the installed page in MANDIR" \
		"$(MANPATH=$TMP/moved/usr/share/man MANWIDTH=80 man -P cat "$p" 2>&1 | head -n 5)" \
		"^ +$p +- "
done

done_testing
