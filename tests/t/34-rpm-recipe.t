#!/bin/bash
# 34-rpm-recipe.t - the packager's recipe for an RPM spec, in a real
# rpmbuild: the spec lines wrapper/README.md gives (taken from it, so the
# documented recipe is the tested one), with the masquerade of a make
# install of pgoptcc, build a small autoconf project (a program, a module,
# a static library) into an RPM and its -debuginfo RPM.  The package's
# installed makefile fragment records plain gcc, every compile went
# through pgoptcc with the policy; rpm's find-debuginfo moves the records
# out of the shipped binaries into their .debug files, from which
# `pgbuild inspect --debug-dir` reads the policy's flags.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ship-project.sh"
for t in rpmbuild rpm2archive autoconf eu-strip; do
	command -v $t >/dev/null || skip_all "$t is not installed (make deps)"
done
cd "$TMP" || exit 1
make -s -C "$TOP" install PREFIX="$TMP/pgoptcc" O="$B" >/dev/null 2>&1 ||
	{ echo "Bail out! make install of pgoptcc failed"; exit 1; }
MASQ=$TMP/pgoptcc/lib/pgoptcc/masq
PGB=$B/bin/pgbuild
unset CC CFLAGS CCACHE_DIR $(env | sed -n 's/^\(PGOPT_[A-Z_]*\)=.*/\1/p' | grep -vx PGOPT_KEEP_TMP)

# the recipe, as wrapper/README.md has it
recipe=$(awk '/^\*\*In an RPM spec\.\*\*/ {f = 1} f && /^```spec$/ {c = 1; next} c && /^```$/ {exit} c' \
	"$TOP/wrapper/README.md")
like "wrapper/README.md has the spec recipe" "$recipe" '%configure CC=gcc'

s=pgopt-ship-1.0
mkdir -p src
ship_project "src/$s" && (cd src && tar czf "$TMP/$s.tar.gz" "$s") ||
	{ echo "Bail out! could not make the source tarball"; exit 1; }
printf '[global]\ncflags += -fno-plt\n[src/lib.c]\ncflags += -O3\n' > pgopt.policy
{
	echo '%global _enable_debug_packages 1'
	printf '%s\n' "$recipe" | sed "s|^%global pgopt_masq .*|%global pgopt_masq $MASQ|" |
		awk '/^%build$/ {print "%description\nA program, a module and a static library built through pgoptcc.\n\n%debug_package\n\n%prep\n%setup -q\n"} {print}'
	printf '\n%%files\n%%{_bindir}/ship\n%%{_prefix}/lib/pgopt-ship\n'
} > body.spec
{
	printf 'Name: pgopt-ship\nVersion: 1.0\nRelease: 1\nSummary: pgoptcc packaging test\nLicense: MIT\n'
	printf 'Source0: %s.tar.gz\nSource1: pgopt.policy\n' "$s"
	sed -n '/^%global pgopt_masq/p' body.spec
	sed '/^%global pgopt_masq/d' body.spec
} > pgopt-ship.spec
rpmbuild -bb --define "_topdir $TMP/top" --define "_sourcedir $TMP" pgopt-ship.spec > build.log 2>&1
is "rpmbuild with the recipe: exit 0" "$?" 0 || diag "$(tail -20 build.log)"
rpm=$TMP/top/RPMS/x86_64/pgopt-ship-1.0-1.x86_64.rpm
dbg=$TMP/top/RPMS/x86_64/pgopt-ship-debuginfo-1.0-1.x86_64.rpm
is "the package and its -debuginfo package are built" "$(test -f "$rpm" && test -f "$dbg" && echo yes)" yes
log=$TMP/top/BUILD/pgopt-log/compile.jsonl
like "every compile went through pgoptcc with the policy (logged)" \
	"$(jq -r 'select(.kind == "compile" and .policy != null) | .tu' "$log" 2>/dev/null | sort | tr '\n' ' ')" \
	'^src/lib.c src/main.c src/mod.c $'
mkdir root debug && (cd root && rpm2archive - < "$rpm" | tar xzf -) &&
	(cd debug && rpm2archive - < "$dbg" | tar xzf -)
is "the installed makefile fragment records plain gcc" \
	"$(grep '^CC =' root/usr/lib/pgopt-ship/Makefile.global)" "CC = gcc"
is "the shipped program runs" "$(root/usr/bin/ship && echo yes)" yes
nrec=0
for f in usr/bin/ship usr/lib/pgopt-ship/ship.so; do
	readelf -SW "root/$f" | grep -qE '\.pgopt\.log|\.GCC\.command\.line' && nrec=$((nrec + 1))
done
is "find-debuginfo took the records out of the shipped program and module" "$nrec" 0
nok "without --debug-dir, inspect finds no records in the shipped program" \
	"$PGB" inspect --units root/usr/bin/ship
is "inspect --debug-dir reads them from the -debuginfo package's .debug file: src/lib.c with the policy's flags" \
	"$("$PGB" inspect --json - --debug-dir debug/usr/lib/debug root/usr/bin/ship 2>/dev/null |
		jq -r '.units[] | select(.tu == "src/lib.c") | .flags | map(select(. == "-O3" or . == "-fno-plt")) | sort | join(" ")')" \
	"-O3 -fno-plt"
like "... and the module's (mode 755: rpm strips only executable files)" "$("$PGB" inspect --units --debug-dir debug/usr/lib/debug \
	root/usr/lib/pgopt-ship/ship.so 2>&1)" '^src/mod\.c '
# a debug file of another build at the program's place
id=$(readelf -nW root/usr/bin/ship | sed -n 's/.*Build ID: *//p')
mid=$(readelf -nW root/usr/lib/pgopt-ship/ship.so | sed -n 's/.*Build ID: *//p')
mkdir -p wrong/.build-id/${id:0:2}
cp -L "debug/usr/lib/debug/.build-id/${mid:0:2}/${mid:2}.debug" "wrong/.build-id/${id:0:2}/${id:2}.debug"
out=$("$PGB" inspect --units --debug-dir wrong root/usr/bin/ship 2>&1)
is "a debug file of another build-id at its place: exit 2" "$?" 2
like "... naming both build-ids" "$out" "its debug file .* is of build-id $mid, not $id"
done_testing
