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
# when not).  With a profile bundle in debian/pgopt-bundle (trained on a
# pgoptcc build of the same source): the fragment checks after the build
# that all of its PGO weight was used, rewrites the installed program with
# its BOLT profile (trained on the first such package's program) before
# dh_strip, whose -dbgsym package then holds the .debug and side file
# under BOLT's build-id; a changed source fails the package build in the
# check, naming the function GCC refused.  `pgbuild deb` does the recipe
# and the checks in one command from the plain package's .dsc (regress and
# the gate, PostgreSQL's, and the comparison with the archive, which has no
# such package, left out here: tests/t/37 shows those).  tests/bench/deb-package
# does the same with Debian's postgresql-15 (about 45 min).
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
is "... src/lib.c with the policy's flags" "$("$PGB" inspect --json - --debug-dir "$A/dbg/usr/lib/debug" \
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

# ---- pgbuild deb: the recipe and the checks in one command, from a .dsc
# of the plain source package (debian/rules with no line of pgoptcc's)
P=$TMP/p
make_source "$P" && rm "$P/pgopt-ship/debian/pgopt.policy" &&
	printf '#!/usr/bin/make -f\n%%:\n\tdh $@\n' > "$P/pgopt-ship/debian/rules" &&
	(cd "$P" && dpkg-source -b pgopt-ship > /dev/null 2>&1)
printf '[global]\ncflags += -fno-plt\nlto = on\n' > "$TMP/deb.policy"
out=$("$PGB" deb --dsc "$P/pgopt-ship_1.0.dsc" --policy "$TMP/deb.policy" --workdir "$TMP/dw" \
	--builddir . --no-compare --no-regress --no-gate 2>&1)
is "pgbuild deb --no-compare --no-regress --no-gate: exit 0" "$?" 0 || diag "$out"
like "... its stages: unpacked, built, verified" "$(printf '%s\n' "$out" | grep -E '^\[[1-8]/8\]' | tr '\n' ' ')" \
	'\[1/8\] source +done .*\[2/8\] build +done .*\[3/8\] verify +done .*verify: OK: 2 binaries.*0 mismatches'
like "... the recipe is in the unpacked debian/rules" "$(cat "$TMP/dw/src/debian/rules")" \
	'^include .*/pgoptcc/examples/pgoptcc-deb\.mk$'
is "... the package built and extracted, recording plain gcc" \
	"$(grep '^CC =' "$TMP/dw/root/usr/lib/pgopt-ship/Makefile.global")" "CC = gcc"
is "... every compile got the policy" \
	"$(jq -r 'select(.kind == "compile") | .added | index("-fno-plt") != null' "$TMP/dw/src/debian/pgopt-log/compile.jsonl" | sort -u)" true
like "... the report names the units' flags" "$out" 'src/lib\.c +\+ -fno-plt -flto=auto'
out=$("$PGB" deb --dsc "$P/pgopt-ship_1.0.dsc" --policy "$TMP/deb.policy" --workdir "$TMP/dw" \
	--builddir . --no-compare --no-regress --no-gate 2>&1)
like "run again: every finished stage is skipped" "$out" '\[2/8\] build .*finished in an earlier run \(exit 0\), skipped'
printf '[global]\ncflags += -O3\nlto = maybe\n' > "$TMP/bad.policy"
out=$("$PGB" deb --dsc "$P/pgopt-ship_1.0.dsc" --policy "$TMP/bad.policy" --workdir "$TMP/dw3" \
	--builddir . --no-compare --no-regress --no-gate 2>&1; echo "exit $?")
like "a policy pgoptcc refuses: pgbuild deb exits 2" "$out" 'exit 2$'
like "... before the build, naming the policy's line" "$out" \
	'bad\.policy:3: expected lto = on, off, fat or slim, got "maybe"'
ok "... nothing was built" test ! -e "$TMP/dw3/src"
nok "pgbuild deb without a policy or a bundle fails" "$PGB" deb --workdir "$TMP/dw2"
like "... saying so" "$(cat "$TMP/.out")" 'expected --policy FILE or --bundle DIR'
nok "pgbuild deb of a missing .dsc fails" "$PGB" deb --dsc "$TMP/none.dsc" --policy "$TMP/deb.policy" --workdir "$TMP/dw2" --no-gate
like "... naming it" "$(cat "$TMP/.out")" 'dsc "?.*/none\.dsc"?: No such file'

# ---- a profile bundle, as a build farm gets it: trained outside the
# package build (the same source built through pgoptcc's profile mode and
# run), packed, put in debian/pgopt-bundle (no debian/pgopt.policy: the
# bundle's policy is used)
R=$TMP/train
ship_project "$R"
printf '[global]\nbolt = ready\n[src/lib.c]\ncflags += -O3\n' > "$TMP/train.policy"
printf '[global]\nlto = on\nbolt = ready\n[src/lib.c]\ncflags += -O3\n' > "$TMP/use.policy"
(cd "$R" && export PGOPT_POLICY="$TMP/train.policy" PGOPT_PROFILE=generate PGOPT_LOGDIR="$R/log" &&
	./configure CC="$B/bin/pgoptcc" && make && ./ship) > "$R/train.log" 2>&1
is "the training build ran" "$?:$(cd "$R/src" && ls *.gcda | tr '\n' ' ')" "0:lib.gcda main.gcda " || diag "$(tail -20 "$R/train.log")"
with_bundle() { # DIR [BOLT-PROFILE]: the source package with the bundle
	make_source "$1" && rm "$1/pgopt-ship/debian/pgopt.policy" &&
	sed -i "2i PGOPT_BOLT_BINARIES := debian/pgopt-ship/usr/bin/ship\nPGOPT_PGBUILD := $PGB" "$1/pgopt-ship/debian/rules" &&
	"$PGB" bundle create --builddir "$R" --log "$R/log" --policy "$TMP/use.policy" \
		--out "$1/pgopt-ship/debian/pgopt-bundle" ${2:+--bolt-profile "$2"} >/dev/null
}
C=$TMP/c
with_bundle "$C" && build "$C"
is "dpkg-buildpackage with the bundle (PGO): exit 0" "$?" 0 || diag "$(tail -30 "$C/build.log")"
like "the fragment checked the bundle after the build: all of its weight used" "$(cat "$C/build.log")" \
	'bundle check: .* applied 100\.0% of the PGO profile.s weight \(threshold 90%\): pass'
is "the compiles of the profiled units used it (logged)" \
	"$(jq -r 'select(.bundle) | .tu' "$C/pgopt-ship/debian/pgopt-log/compile.jsonl" | sort | tr '\n' ' ')" \
	"src/lib.c src/main.c "
# BOLT, trained on the program this package build made (what its next
# build makes again, byte for byte), added to the bundle
LLVM=${PGBUILD_BOLT:-/usr/lib/llvm-15/bin}
if [ -x "$LLVM/llvm-bolt" ]; then
	"$LLVM/llvm-bolt" "$C/pgopt-ship/ship" -instrument -instrument-calls=0 \
		-instrumentation-file="$TMP/ship.fdata" -o "$TMP/ship.inst" > "$TMP/inst.log" 2>&1 &&
		"$TMP/ship.inst"
	is "BOLT trained on the package build's program" "$?:$(test -s "$TMP/ship.fdata" && echo yes)" "0:yes" ||
		diag "$(tail -5 "$TMP/inst.log")"
	D=$TMP/d
	with_bundle "$D" "$TMP/ship.fdata" && build "$D"
	is "dpkg-buildpackage with the bundle (PGO and BOLT): exit 0" "$?" 0 || diag "$(tail -30 "$D/build.log")"
	like "the fragment rewrote the installed program with the BOLT profile: all of it applies" "$(cat "$D/build.log")" \
		'bundle bolt: debian/pgopt-ship/usr/bin/ship: 100\.0% of the profile.s samples apply'
	dpkg-deb -x "$D/pgopt-ship_1.0_amd64.deb" "$D/root" && dpkg-deb -x "$D/pgopt-ship-dbgsym_1.0_amd64.deb" "$D/dbg"
	is "the shipped program is BOLT's and runs" \
		"$(readelf -SW "$D/root/usr/bin/ship" | grep -c note.bolt_info):$("$D/root/usr/bin/ship"; echo $?)" "1:0"
	id=$(readelf -nW "$D/root/usr/bin/ship" | sed -n 's/.*Build ID: *//p')
	is "its .debug and side file are in the -dbgsym package under BOLT's build-id" \
		"$(cd "$D/dbg/usr/lib/debug/.build-id/${id:0:2}" && ls "${id:2}".* | tr '\n' ' ')" "${id:2}.debug ${id:2}.pgopt "
	like "inspect --debug-dir reads the rewritten program's records" \
		"$("$PGB" inspect --units --debug-dir "$D/dbg/usr/lib/debug" "$D/root/usr/bin/ship" 2>&1)" 'src/lib\.c'
	like "its debug information survived the rewrite" "$(readelf -SW "$D/dbg/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" 2>/dev/null)" '\.debug_info'
else
	skip "llvm-bolt is not installed in $LLVM (bolt-15; make deps): the BOLT part of the bundle not run" 6
fi
# the source changed since the training: GCC refuses the changed function
# and the fragment fails the build below the threshold
E=$TMP/e
with_bundle "$E" && sed -i 's/return 2 \* x;/return x > 100 ? x : 2 * x;/' "$E/pgopt-ship/src/lib.c" && build "$E"
code=$?
like "a changed source: dpkg-buildpackage fails" "$code" '^[1-9]'
like "... in the fragment's check, naming the function GCC refused" "$(cat "$E/build.log")" \
	'src/lib\.c: GCC refused lib_twice'
like "... and the share below the threshold" "$(cat "$E/build.log")" \
	'error: the build used [0-9.]+% of the bundle.s PGO profile, below the 90%'
done_testing
