#!/bin/bash
# 33-deb-recipe.t - the packager's recipe for debian/rules, in a real
# dpkg-buildpackage: a small Debian source package (an autoconf project
# with a program, a loadable module and a static library, compiled and
# linked in separate steps as PostgreSQL and PGXS do; debhelper 13, dh) includes the installed examples/pgoptcc-deb.mk after setting
# PGOPT_MASQ, with its policy in debian/pgopt.policy, and nothing else.
# The binary package records plain gcc (its Makefile.global), holds none of
# pgoptcc's records, names no build directory, and its static library has
# code; the -dbgsym package holds each binary's side file next to its
# .debug file, which `pgbuild inspect --debug-dir` reads with the policy's
# flags (LTO on: the link-time records too); `pgbuild verify --log --builddir` checks the build; a second build
# in a longer directory gives byte-identical .debs (diffoscope's summary
# when not).  tests/bench/deb-package does the same with Debian's
# postgresql-15 (about 45 min).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ship-project.sh"
for t in dpkg-buildpackage dh autoconf; do
	command -v $t >/dev/null || skip_all "$t is not installed (make deps)"
done
cd "$TMP" || exit 1
make -s -C "$TOP" install PREFIX="$TMP/pgoptcc" O="$B" >/dev/null 2>&1 ||
	{ echo "Bail out! make install of pgoptcc failed"; exit 1; }
MASQ=$TMP/pgoptcc/lib/pgoptcc/masq
FRAG=$TMP/pgoptcc/share/pgoptcc/examples/pgoptcc-deb.mk
PGB=$B/bin/pgbuild
is "make install ships the debian/rules fragment" "$(test -f "$FRAG" && echo yes)" yes
unset CC CFLAGS CCACHE_DIR $(env | sed -n 's/^\(PGOPT_[A-Z_]*\)=.*/\1/p' | grep -vx PGOPT_KEEP_TMP)

# the source package, unpacked in DIR/pgopt-ship
make_source() {
	local s=$1/pgopt-ship
	ship_project "$s" && mkdir -p "$s/debian/source" || return 1
	cat > "$s/debian/changelog" <<'CL'
pgopt-ship (1.0) unstable; urgency=medium

  * A package built through pgoptcc's debian/rules fragment.

 -- pgoptcc tests <tests@example.org>  Thu, 03 Dec 2026 12:00:00 +0000
CL
	cat > "$s/debian/control" <<'CT'
Source: pgopt-ship
Section: misc
Priority: optional
Maintainer: pgoptcc tests <tests@example.org>
Build-Depends: debhelper-compat (= 13)
Standards-Version: 4.6.2
Rules-Requires-Root: no

Package: pgopt-ship
Architecture: any
Depends: ${shlibs:Depends}, ${misc:Depends}
Description: pgoptcc's packaging test
 A program, a loadable module and a static library built through pgoptcc.
CT
	echo '3.0 (native)' > "$s/debian/source/format"
	printf '#!/usr/bin/make -f\nPGOPT_MASQ := %s\ninclude %s\n%%:\n\tdh $@\n' "$MASQ" "$FRAG" > "$s/debian/rules"
	chmod +x "$s/debian/rules"
	printf '[global]\ncflags += -fno-plt\nlto = on\n[src/lib.c]\ncflags += -O3\n' > "$s/debian/pgopt.policy"
}
build() { # DIR: dpkg-buildpackage -b in DIR/pgopt-ship, output in DIR/build.log
	(cd "$1/pgopt-ship" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -b -uc -us) > "$1/build.log" 2>&1
}

A=$TMP/a
make_source "$A" || { echo "Bail out! could not make the source package"; exit 1; }
out=$(cd "$A/pgopt-ship" && make -f debian/rules PGOPT_MASQ=/nonexistent clean 2>&1)
is "the fragment without a masquerade: make fails" "$?" 2
like "... naming the path it wanted and the setting" "$out" \
	'pgoptcc-deb\.mk: no masquerade compiler /nonexistent/gcc \(set PGOPT_MASQ'
build "$A"
is "dpkg-buildpackage through the fragment: exit 0" "$?" 0 || diag "$(tail -20 "$A/build.log")"
deb=$A/pgopt-ship_1.0_amd64.deb dbgsym=$A/pgopt-ship-dbgsym_1.0_amd64.deb
is "the package and its -dbgsym package are built" "$(test -f "$deb" && test -f "$dbgsym" && echo yes)" yes
like "the fragment added two side files to the -dbgsym package" "$(cat "$A/build.log")" \
	'pgoptcc-deb.mk: 2 record side files added to -dbgsym packages'
like "every compile went through pgoptcc with the policy (logged)" \
	"$(jq -r 'select(.kind == "compile") | .tu' "$A/pgopt-ship/debian/pgopt-log/compile.jsonl" | sort | tr '\n' ' ')" \
	'^src/lib.c src/main.c src/mod.c $'
dpkg-deb -x "$deb" "$A/root" && dpkg-deb -x "$dbgsym" "$A/dbg"
is "the installed Makefile.global records plain gcc" \
	"$(grep '^CC =' "$A/root/usr/lib/pgopt-ship/Makefile.global")" "CC = gcc"
nrec=0
for f in usr/bin/ship usr/lib/pgopt-ship/ship.so; do
	readelf -SW "$A/root/$f" | grep -qE '\.pgopt\.log|\.GCC\.command\.line' && nrec=$((nrec + 1))
done
is "the shipped program and module hold no records" "$nrec" 0
nside=0
for f in usr/bin/ship usr/lib/pgopt-ship/ship.so; do
	id=$(readelf -nW "$A/root/$f" | sed -n 's/.*Build ID: *//p')
	[ -f "$A/dbg/usr/lib/debug/.build-id/${id:0:2}/${id:2}.pgopt" ] &&
		[ -f "$A/dbg/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" ] && nside=$((nside + 1))
done
is "each one's side file is in the -dbgsym package, next to its .debug file" "$nside" 2
is "no shipped file names the build directory" "$(grep -rlF "$A" "$A/root" "$A/dbg" | wc -l)" 0
like "the static library keeps its code" "$(nm --defined-only "$A/root/usr/lib/pgopt-ship/libship.a")" ' T lib_twice$'
out=$("$PGB" inspect --units --debug-dir "$A/dbg/usr/lib/debug" "$A/root/usr/bin/ship" 2>&1)
like "inspect --debug-dir reads the shipped program's records: both its units" \
	"$(printf '%s\n' "$out" | awk '/^src/ {print $1}' | sort | tr '\n' ' ')" '^src/lib\.c src/main\.c $'
is "... src/lib.c with the policy's flags" "$("$PGB" inspect --json --debug-dir "$A/dbg/usr/lib/debug" \
	"$A/root/usr/bin/ship" | jq -r '.units[] | select(.tu == "src/lib.c") | .flags | map(select(. == "-O3" or . == "-fno-plt")) | sort | join(" ")')" "-O3 -fno-plt"
nok "without --debug-dir, inspect finds no records in the shipped program" \
	"$PGB" inspect --units "$A/root/usr/bin/ship"
(cd "$A/pgopt-ship" && "$PGB" verify --log debian/pgopt-log --builddir . \
	--debug-dir debian/pgopt-log/records) > "$A/verify.out" 2>&1
is "verify --log --builddir checks the package build (the program links its library with -L. -lship): exit 0" "$?" 0 || diag "$(cat "$A/verify.out")"
like "... both binaries" "$(cat "$A/verify.out")" 'ship\.so' 

# the same source in a longer directory: the same bytes
L=$TMP/a-much-longer-directory-for-the-second-build
make_source "$L" && build "$L"
is "the second build: exit 0" "$?" 0 || diag "$(tail -20 "$L/build.log")"
nsame=0
for f in pgopt-ship_1.0_amd64.deb pgopt-ship-dbgsym_1.0_amd64.deb; do
	if cmp -s "$A/$f" "$L/$f"; then
		nsame=$((nsame + 1))
	elif command -v diffoscope >/dev/null; then
		diag "$f differs:" "$(diffoscope --no-progress --text - "$A/$f" "$L/$f" 2>&1 | head -40)"
	fi
done
is "the package and its -dbgsym package are byte-identical to the first build's" "$nsame" 2
done_testing
