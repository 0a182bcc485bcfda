#!/bin/bash
# 37-deb-archive.t - `pgbuild deb` against the archive: what a package build
# links is compared with the archive's package of the same name and
# version, and a build on a machine that would build something else is
# refused before it starts.
#   - A small Debian source package (a program and a loadable module that
#     calls cos(), linked with -lm as $(MODLIBS)) is built once as "the
#     archive's" .deb.  pgbuild deb builds the same source --archive DIR:
#     compare passes (exit 0, both ELF files).  Then a source whose
#     module is linked without its library (MODLIBS empty: the llvmjit.so
#     that lost libLLVM): compare fails (exit 1) naming the module, the
#     library it lost and the symbol it leaves undefined; compare.json
#     says so; without the comparison (--no-compare) the same build passes,
#     which is what `pgbuild verify` alone said of the issue's package.
#   - A source package whose Build-Depends name clang, on a machine that
#     has another clang-N on PATH (make deps installs clang-15 beside the
#     default clang-14): refused (exit 2) before dpkg-buildpackage runs,
#     naming the file and its package and the fix (--chroot); its log says
#     so.
#   - The modules stage on a package that ships a PostgreSQL server (a copy
#     of this machine's /usr/lib/postgresql/15 and its share directory,
#     with a module compiled through pgoptcc): every module loads and
#     every extension is created with JIT forced (exit 0); with a JIT
#     provider that leaves an LLVM symbol undefined (the issue's
#     llvmjit.so) it fails (exit 1) naming the module, the symbol, JIT
#     unavailable and the extensions whose scripts JIT compiles.
#   - The gate stage of that package: its baseline is the archive's build
#     of the same package and version (the same source built by
#     dpkg-buildpackage, --archive), extracted by compare, never the
#     installed server; run with --noise none (no layout floor: it cannot
#     be relinked), said on its step line, its cycles bound "not shown
#     slower"; with --no-compare and the package not installed the stage
#     is refused (exit 2), naming the package, its version and the fix.
#   - pgbuild regress --set: refused without --install, and a setting
#     every pgbuild server refuses is refused here too.
# The chroot build (--chroot, mmdebstrap, minutes and the network) and the
# suite with JIT forced on Debian's package are tests/bench/deb-package's.
. "$(dirname "$0")/../lib/tap.sh"
for t in dpkg-buildpackage dh jq; do
	command -v $t >/dev/null || skip_all "$t is not installed (make deps)"
done
PGB=$B/bin/pgbuild
cd "$TMP" || exit 1
unset CC CFLAGS LDFLAGS CCACHE_DIR $(env | sed -n 's/^\(PGOPT_[A-Z_]*\)=.*/\1/p' | grep -vx PGOPT_KEEP_TMP)

# the source package in DIR/pgopt-link, its module linked with MODLIBS
# (make's default), Build-Depends BD
make_source() { # DIR MODLIBS BUILD-DEPENDS
	local s=$1/pgopt-link
	mkdir -p "$s/src" "$s/debian/source" || return 1
	printf '#include <math.h>\ndouble mod_cos(double x) { return cos(x); }\nint mod_api(void) { return 1; }\n' > "$s/src/mod.c"
	printf 'int main(void) { return 0; }\n' > "$s/src/main.c"
	cat > "$s/Makefile" <<MK
MODLIBS ?= $2
all: link link.so
link: src/main.o
	\$(CC) \$(CFLAGS) \$(LDFLAGS) -o \$@ src/main.o
link.so: src/mod.o
	\$(CC) \$(CFLAGS) -shared \$(LDFLAGS) -o \$@ src/mod.o \$(MODLIBS)
src/%.o: src/%.c
	\$(CC) \$(CPPFLAGS) \$(CFLAGS) -fPIC -c -o \$@ \$<
install: all
	install -d \$(DESTDIR)/usr/bin \$(DESTDIR)/usr/lib/pgopt-link
	install -m 755 link \$(DESTDIR)/usr/bin/
	install -m 644 link.so \$(DESTDIR)/usr/lib/pgopt-link/
clean:
	rm -f link link.so src/*.o
MK
	cat > "$s/debian/changelog" <<'CL'
pgopt-link (1.0) unstable; urgency=medium

  * A package whose module links a library.

 -- pgoptcc tests <tests@example.org>  Thu, 03 Dec 2026 12:00:00 +0000
CL
	cat > "$s/debian/control" <<CT
Source: pgopt-link
Section: misc
Priority: optional
Maintainer: pgoptcc tests <tests@example.org>
Build-Depends: $3
Standards-Version: 4.6.2
Rules-Requires-Root: no

Package: pgopt-link
Architecture: any
Depends: \${shlibs:Depends}, \${misc:Depends}
Description: pgoptcc's archive comparison test
 A program and a module that needs libm.
CT
	echo '3.0 (native)' > "$s/debian/source/format"
	printf '#!/usr/bin/make -f\n%%:\n\tdh $@\n' > "$s/debian/rules"
	chmod +x "$s/debian/rules"
	(cd "$1" && dpkg-source -b pgopt-link > /dev/null 2>&1)
}
printf '[global]\ncflags += -O2\n' > "$TMP/p.policy"
deb() { # WORKDIR DSC ARGS...: pgbuild deb, its output in WORKDIR.out, its exit code
	local w=$1 dsc=$2
	shift 2
	"$PGB" deb --dsc "$dsc" --policy "$TMP/p.policy" --workdir "$w" --builddir . \
		--no-regress --no-gate "$@" > "$w.out" 2>&1
}

# "the archive's" package: the source built by dpkg-buildpackage itself
A=$TMP/a
make_source "$A" -lm "debhelper-compat (= 13)" &&
	(cd "$A/pgopt-link" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -b -uc -us) > "$A/build.log" 2>&1
is "the archive's package is built" "$?" 0 || diag "$(tail -20 "$A/build.log")"
mkdir -p "$TMP/archive" && mv "$A"/pgopt-link_1.0_*.deb "$TMP/archive/"
like "... its module needs libm" "$(dpkg-deb -x "$TMP"/archive/*.deb "$TMP/ax" &&
	readelf -dW "$TMP/ax/usr/lib/pgopt-link/link.so" | grep NEEDED)" 'libm\.so\.6'

# the same source through pgbuild deb: links as the archive's
S=$TMP/same
make_source "$S" -lm "debhelper-compat (= 13)"
deb "$TMP/ws" "$S/pgopt-link_1.0.dsc" --archive "$TMP/archive"
is "the same source: pgbuild deb --archive exits 0" "$?" 0 || diag "$(tail -20 "$TMP/ws.out")"
like "... compare: both ELF files link as the archive's" "$(cat "$TMP/ws.out")" \
	'\[4/8\] compare +done .*compare: OK: 2 ELF files of 1 package link as the archive.s'
is "... compare.json: no failure, the sizes against the archive's" \
	"$(jq -r '"\(.failures) \(.packages[0].package) \(.packages[0].archive_version)"' "$TMP/ws/compare.json")" \
	"0 pgopt-link 1.0"

# the module built without its library
L=$TMP/lost
make_source "$L" "" "debhelper-compat (= 13)"
deb "$TMP/wl" "$L/pgopt-link_1.0.dsc" --archive "$TMP/archive"
is "a module that lost a needed library: pgbuild deb exits 1" "$?" 1 || diag "$(tail -20 "$TMP/wl.out")"
like "... compare names the module and the library it lost" "$(cat "$TMP/wl.out")" \
	'FAIL usr/lib/pgopt-link/link\.so \(pgopt-link\): does not need what the archive.s needs: libm\.so\.6'
like "... and the symbol it leaves undefined" "$(cat "$TMP/wl.out")" \
	'FAIL usr/lib/pgopt-link/link\.so \(pgopt-link\): leaves undefined what no library it needs defines \(the archive.s does not\): cos'
like "... the stage fails" "$(cat "$TMP/wl.out")" \
	'\[4/8\] compare +FAILED .*compare: FAILED: 1 of 2 ELF files differ from the archive.s in what they link \(first: usr/lib/pgopt-link/link\.so'
is "... compare.json lists both failures of the module" \
	"$(jq -r '[.findings[] | select(.fails) | "\(.path):\(.kind):\(.items | join(","))"] | join(" ")' "$TMP/wl/compare.json")" \
	"usr/lib/pgopt-link/link.so:lost_needed:libm.so.6 usr/lib/pgopt-link/link.so:unresolved:cos"
like "... verify alone passed it" "$(cat "$TMP/wl.out")" '\[3/8\] verify +done'
deb "$TMP/wl" "$L/pgopt-link_1.0.dsc" --no-compare
is "... --no-compare: the same build passes" "$?" 0 || diag "$(tail -20 "$TMP/wl.out")"
# a source of six empty binary packages, pgopt-a ... pgopt-t: the names a
# hostile archive's .debs take (only the archive's packages of our names
# and version are read)
M=$TMP/multi
mkdir -p "$M/pgopt-multi/debian/source" &&
	printf 'int main(void) { return 0; }\n' > "$M/pgopt-multi/x.c" &&
	printf 'all: x\nx: x.o\n\t$(CC) $(CFLAGS) $(LDFLAGS) -o x x.o\nx.o: x.c\n\t$(CC) $(CPPFLAGS) $(CFLAGS) -c -o x.o x.c\ninstall:\nclean:\n\trm -f x x.o\n' > "$M/pgopt-multi/Makefile" &&
	printf 'pgopt-multi (1.0) unstable; urgency=medium\n\n  * Six packages.\n\n -- pgoptcc tests <tests@example.org>  Thu, 03 Dec 2026 12:00:00 +0000\n' > "$M/pgopt-multi/debian/changelog" &&
	{ printf 'Source: pgopt-multi\nMaintainer: pgoptcc tests <tests@example.org>\nBuild-Depends: debhelper-compat (= 13)\nStandards-Version: 4.6.2\nRules-Requires-Root: no\n'
	  for x in a c h k s t; do printf '\nPackage: pgopt-%s\nArchitecture: any\nDescription: empty\n empty\n' $x; done; } > "$M/pgopt-multi/debian/control" &&
	echo '3.0 (native)' > "$M/pgopt-multi/debian/source/format" &&
	printf '#!/usr/bin/make -f\n%%:\n\tdh $@\n' > "$M/pgopt-multi/debian/rules" && chmod +x "$M/pgopt-multi/debian/rules" &&
	(cd "$M" && dpkg-source -b pgopt-multi > /dev/null 2>&1)
is "a source of six packages is made" "$?" 0
# a hostile archive: its .debs are data.  One package leaves a symbolic
# link to a directory outside; another's member goes through it (a
# hand-made data.tar without the directory: tar guards only one archive's
# own links); a third ships a set-uid program owned by another user
H=$TMP/hostile
mkdir -p "$H/a/DEBIAN" "$H/a/usr/share" "$H/c/usr/share/link" "$H/s/DEBIAN" "$H/s/usr/bin" \
	"$TMP/victim" "$H/arch" && chmod 755 "$H/a" "$H/s" &&
	ln -s "$TMP/victim" "$H/a/usr/share/link" &&
	printf 'Package: pgopt-a\nVersion: 1.0\nArchitecture: all\nMaintainer: t <t@example.org>\nDescription: a link\n' > "$H/a/DEBIAN/control" &&
	dpkg-deb --root-owner-group -b "$H/a" "$H/arch/pgopt-a_1.0_all.deb" > /dev/null &&
	echo owned > "$H/c/usr/share/link/owned" &&
	printf '2.0\n' > "$H/debian-binary" &&
	printf 'Package: pgopt-c\nVersion: 1.0\nArchitecture: all\nMaintainer: t <t@example.org>\nDescription: through it\n' > "$H/control" &&
	tar -C "$H" -czf "$H/control.tar.gz" ./control &&
	tar -C "$H/c" -czf "$H/data.tar.gz" --no-recursion ./usr/share/link/owned &&
	(cd "$H" && ar rc arch/pgopt-c_1.0_all.deb debian-binary control.tar.gz data.tar.gz) &&
	cp /bin/true "$H/s/usr/bin/su-x" && chown nobody "$H/s/usr/bin/su-x" && chmod 4755 "$H/s/usr/bin/su-x" &&
	printf 'Package: pgopt-s\nVersion: 1.0\nArchitecture: all\nMaintainer: t <t@example.org>\nDescription: set-uid\n' > "$H/s/DEBIAN/control" &&
	dpkg-deb -b "$H/s" "$H/arch/pgopt-s_1.0_all.deb" > /dev/null
is "a hostile archive is made" "$?" 0
deb "$TMP/wh" "$M/pgopt-multi_1.0.dsc" --archive "$H/arch"
is "... a member through another package's link: compare cannot run (exit 2)" "$?" 2 || diag "$(tail -20 "$TMP/wh.out")"
like "... naming the package, the member and the link" "$(cat "$TMP/wh.out")" \
	"pgopt-c_1.0_all\.deb: its directory usr/share/link is no directory in $TMP/wh/archive/root, which another package made: refused"
is "... nothing was written through it" "$(ls -A "$TMP/victim")" ""
rm "$H/arch/pgopt-c_1.0_all.deb"
# a hard link whose target goes through that link (its target member
# deleted from the archive, so only the link entry is left): it would
# link a file outside into the tree, which is then made root's
mkdir -p "$H/h/usr/share/link" && echo secret > "$H/h/usr/share/link/secret" &&
	ln "$H/h/usr/share/link/secret" "$H/h/usr/hl" &&
	echo secret > "$TMP/victim/secret" && chown nobody "$TMP/victim/secret" &&
	tar -C "$H/h" -cf "$H/data.tar" --no-recursion ./usr/share/link/secret ./usr/hl &&
	tar --delete -f "$H/data.tar" ./usr/share/link/secret && gzip -f "$H/data.tar" &&
	sed -i 's/pgopt-c/pgopt-h/' "$H/control" && tar -C "$H" -czf "$H/control.tar.gz" ./control &&
	(cd "$H" && ar rc arch/pgopt-h_1.0_all.deb debian-binary control.tar.gz data.tar.gz)
is "... a hard link through it is made" "$?" 0
deb "$TMP/wh" "$M/pgopt-multi_1.0.dsc" --archive "$H/arch"
like "... refused too: extracted alone, its target is nowhere" "$(cat "$TMP/wh.out")" \
	"dpkg-deb -x $TMP/wh/archive/pgopt-h_1.0_all\.deb failed: .*usr/hl.*"
is "... and nothing of the archive is left behind" "$(ls "$TMP/wh/archive" | grep -c root)" 0
is "... the file outside is still its owner's" "$(stat -c '%U %h' "$TMP/victim/secret")" "nobody 1"
rm "$H/arch/pgopt-h_1.0_all.deb" "$TMP/victim/secret"
# a chain: another package's own new link to the first one's (b -> link),
# then a member through it
mkdir -p "$H/x/usr/share" "$H/y/usr/share/b" && ln -s link "$H/x/usr/share/b" &&
	echo evil > "$H/y/usr/share/b/evil" &&
	tar -C "$H/x" -cf "$H/data.tar" --no-recursion ./usr/share/b &&
	tar -C "$H/y" -rf "$H/data.tar" --no-recursion ./usr/share/b/evil && gzip -f "$H/data.tar" &&
	sed -i 's/pgopt-h/pgopt-k/' "$H/control" && tar -C "$H" -czf "$H/control.tar.gz" ./control &&
	(cd "$H" && ar rc arch/pgopt-k_1.0_all.deb debian-binary control.tar.gz data.tar.gz)
is "... a chain of links is made" "$?" 0
deb "$TMP/wh" "$M/pgopt-multi_1.0.dsc" --archive "$H/arch"
is "... refused (exit 2)" "$?" 2
is "... nothing was written through it" "$(ls -A "$TMP/victim")" ""
rm "$H/arch/pgopt-k_1.0_all.deb"
# two packages that ship the same path (the second could replace the
# first's postgres): refused, as dpkg refuses it
mkdir -p "$H/d/DEBIAN" "$H/d/usr/bin" && chmod 755 "$H/d" && cp /bin/false "$H/d/usr/bin/su-x" &&
	printf 'Package: pgopt-t\nVersion: 1.0\nArchitecture: all\nMaintainer: t <t@example.org>\nDescription: the same path\n' > "$H/d/DEBIAN/control" &&
	dpkg-deb --root-owner-group -b "$H/d" "$H/arch/pgopt-t_1.0_all.deb" > /dev/null
deb "$TMP/wh" "$M/pgopt-multi_1.0.dsc" --archive "$H/arch"
like "... a path two packages ship: refused, naming it" "$(cat "$TMP/wh.out")" \
	"pgopt-t_1.0_all\.deb: ships usr/bin/su-x, which another package in $TMP/wh/archive/root ships too: refused"
rm "$H/arch/pgopt-t_1.0_all.deb"
deb "$TMP/wh" "$M/pgopt-multi_1.0.dsc" --archive "$H/arch"
like "... without them, compare runs" "$(cat "$TMP/wh.out")" '\[4/8\] compare'
is "... the set-uid program of another user extracted as root's, without its set-uid bit" \
	"$(stat -c '%U %A' "$TMP/wh/archive/root/usr/bin/su-x")" "root -rwxr-xr-x"
cp "$H/arch/pgopt-a_1.0_all.deb" "$H/arch/pgopt-a-again.deb"
deb "$TMP/wh2" "$M/pgopt-multi_1.0.dsc" --archive "$H/arch"
like "... two .debs of one package and version: refused, naming both" "$(cat "$TMP/wh2.out")" \
	"compare: the archive has two \.debs of pgopt-a 1\.0: $TMP/wh2/archive/pgopt-a-again\.deb and $TMP/wh2/archive/pgopt-a_1\.0_all\.deb"
rm "$H/arch/pgopt-a-again.deb"
is "... the archive's .debs were copied into the work directory, not read where they lie" \
	"$(cd "$TMP/wh/archive" && ls *.deb | tr '\n' ' ')" "pgopt-a_1.0_all.deb pgopt-s_1.0_all.deb "

nok "--no-compare and --archive exclude each other" "$PGB" deb --dsc "$L/pgopt-link_1.0.dsc" \
	--policy "$TMP/p.policy" --workdir "$TMP/wx" --no-compare --archive "$TMP/archive"
like "... saying so" "$(cat "$TMP/.out")" 'no-compare and --archive exclude each other'
nok "--archive of a missing directory fails" "$PGB" deb --dsc "$L/pgopt-link_1.0.dsc" \
	--policy "$TMP/p.policy" --workdir "$TMP/wx" --archive "$TMP/none" --no-gate
like "... naming it" "$(cat "$TMP/.out")" "archive $TMP/none: No such file or directory"

# a machine that would build something else: Build-Depends clang, another
# clang-N on PATH
other=
for c in /usr/bin/clang-[0-9]*; do
	[ -x "$c" ] || continue
	[ "$(readlink -f "$c")" = "$(readlink -f /usr/bin/clang 2>/dev/null)" ] && continue
	other=$c
	break
done
if command -v clang >/dev/null && [ -n "$other" ]; then
	pkg=$(dpkg-query -S "$other" 2>/dev/null | sed 's/:.*//')
	C=$TMP/clang
	make_source "$C" -lm "debhelper-compat (= 13), clang"
	deb "$TMP/wc" "$C/pgopt-link_1.0.dsc" --no-compare
	is "Build-Depends clang, $other on PATH: pgbuild deb exits 2" "$?" 2 || diag "$(tail -20 "$TMP/wc.out")"
	like "... refused before the build, naming the file and its package" "$(cat "$TMP/wc.out")" \
		"error: this machine has programs the build of pgopt-link would find that its Build-Depends do not provide \(the archive.s build has none of them\): .*$other \($pkg\)"
	like "... and the fix" "$(cat "$TMP/wc.out")" \
		"build in a clean chroot \(--chroot: mmdebstrap, as Debian.s build daemons do\), or remove them \(apt-get remove .*$pkg"
	is "... dpkg-buildpackage never ran: no .deb" "$(ls "$TMP/wc"/*.deb 2>/dev/null | wc -l)" 0
	like "... the build log says why" "$(cat "$TMP/wc/logs/build.log")" 'the build was refused before it started'
	# the same package without clang in its Build-Depends: clang-N does not matter
	like "... without clang in the Build-Depends the build runs" "$(cat "$TMP/ws.out")" '\[2/8\] build +done'
else
	skip "no clang, or no second clang-N on PATH (make deps installs clang-15)" 5
fi

# the modules stage: a package that ships a PostgreSQL server (the
# archive's install of this machine, copied, with a module of its own
# compiled through pgoptcc); once as it is, once with a JIT provider that
# lost its library (its llvmjit.so leaves an LLVM symbol undefined)
PGDIR=/usr/lib/postgresql/15 PGSHARE=/usr/share/postgresql/15
SPY=$(mktemp /tmp/pgopt-t37-spy.XXXXXX)
make_server() { # DIR BROKEN(0|1|2: pg_config a spy, 3: it names the system's modules): the source package in DIR/pgopt-server, its .dsc
	local s=$1/pgopt-server
	mkdir -p "$s/src" "$s/debian/source" || return 1
	if [ "$2" = 3 ]; then
		printf '#!/bin/sh\necho %s/lib\n' "$PGDIR" > "$s/src/pg_config.sh"
	else
		printf '#!/bin/sh\nid -u >> %s\nexec "$(dirname "$0")/pg_config.real" "$@"\n' "$SPY" > "$s/src/pg_config.sh"
	fi
	printf 'extern void _ZN4llvm9ErrorList2IDE(void);\nvoid _PG_jit_provider_init(void *cb) { (void)cb; _ZN4llvm9ErrorList2IDE(); }\n' > "$s/src/jit.c"
	cat > "$s/Makefile" <<MK
all: llvmjit.so
llvmjit.so: src/jit.o
	\$(CC) \$(CFLAGS) -shared -o \$@ src/jit.o
src/%.o: src/%.c
	\$(CC) \$(CFLAGS) -fPIC -c -o \$@ \$<
install: all
	mkdir -p \$(DESTDIR)/usr/lib/postgresql \$(DESTDIR)/usr/share/postgresql
	cp -a $PGDIR \$(DESTDIR)/usr/lib/postgresql/
	cp -a $PGSHARE \$(DESTDIR)/usr/share/postgresql/
	if [ $2 = 1 ]; then install -m 644 llvmjit.so \$(DESTDIR)/usr/lib/postgresql/15/lib/llvmjit.so; fi
	if [ $2 -ge 2 ]; then mv \$(DESTDIR)/usr/lib/postgresql/15/bin/pg_config \$(DESTDIR)/usr/lib/postgresql/15/bin/pg_config.real; install -m 755 src/pg_config.sh \$(DESTDIR)/usr/lib/postgresql/15/bin/pg_config; fi
clean:
	rm -f llvmjit.so src/*.o
MK
	printf 'pgopt-server (1.0) unstable; urgency=medium\n\n  * A server.\n\n -- pgoptcc tests <tests@example.org>  Thu, 03 Dec 2026 12:00:00 +0000\n' > "$s/debian/changelog"
	printf 'Source: pgopt-server\nMaintainer: pgoptcc tests <tests@example.org>\nBuild-Depends: dpkg-dev\n\nPackage: pgopt-server\nArchitecture: any\nDescription: a PostgreSQL server\n a copy of the installed one\n' > "$s/debian/control"
	echo '3.0 (native)' > "$s/debian/source/format"
	# no dh: a plain build, the copied install packed as it is (gzip -1)
	printf '#!/usr/bin/make -f\nbuild build-arch build-indep:\n\t$(MAKE)\nclean:\n\t$(MAKE) clean\n\trm -rf debian/tmp debian/files\nbinary binary-arch: build\n\t$(MAKE) install DESTDIR=$(CURDIR)/debian/tmp\n\tmkdir -p debian/tmp/DEBIAN\n\tdpkg-gencontrol -ppgopt-server\n\tdpkg-deb -Zgzip -z1 --build debian/tmp ..\nbinary-indep:\n.PHONY: build build-arch build-indep clean binary binary-arch binary-indep\n' > "$s/debian/rules"
	chmod +x "$s/debian/rules"
	(cd "$1" && dpkg-source -b pgopt-server > /dev/null 2>&1)
}
if [ -x "$PGDIR/bin/postgres" ] && [ -f "$PGDIR/lib/llvmjit.so" ] && id postgres > /dev/null 2>&1; then
	G=$TMP/good
	make_server "$G" 0
	"$PGB" deb --dsc "$G/pgopt-server_1.0.dsc" --policy "$TMP/p.policy" --workdir "$TMP/wg" \
		--builddir . --no-compare --no-regress --no-gate > "$TMP/wg.out" 2>&1
	is "a package with a PostgreSQL server: pgbuild deb exits 0" "$?" 0 || diag "$(tail -20 "$TMP/wg.out")"
	like "... every module loaded, every extension created, JIT compiled a query" "$(cat "$TMP/wg.out")" \
		'\[6/8\] modules +done .*modules: OK: [0-9]+ modules loaded, [0-9]+ extensions created \(CASCADE\), JIT forced on every query: a test query JIT-compiled [1-9][0-9]* functions'
	like "... the package's own server and files, not the system's" "$(cat "$TMP/wg/logs/modules.log")" \
		"modules: [0-9]+ modules in $TMP/wg/root/usr/lib/postgresql/15/lib, [0-9]+ extensions in $TMP/wg/root/usr/share/postgresql/15/extension"
	# the gate's baseline: the archive's build of the same package and
	# version (here the same source built by dpkg-buildpackage), never
	# whatever is installed; without a layout floor (an archive's binary
	# cannot be relinked): --noise none, and a bound is no more than
	# "not shown slower"
	mkdir -p "$TMP/garchive" &&
		(cd "$G/pgopt-server" && dpkg-buildpackage -b -uc -us) > "$TMP/garchive.log" 2>&1 &&
		mv "$G"/pgopt-server_1.0_*.deb "$TMP/garchive/"
	is "... the archive's build of it is made" "$?" 0 || diag "$(tail -20 "$TMP/garchive.log")"
	"$PGB" deb --dsc "$G/pgopt-server_1.0.dsc" --policy "$TMP/p.policy" --workdir "$TMP/wg" \
		--builddir . --no-regress --archive "$TMP/garchive" --gate 'cycles>=1.00' \
		--metric cycles -W select-only > "$TMP/wg.out" 2>&1
	is "... with the gate against the archive's: exit 0" "$?" 0 || diag "$(tail -20 "$TMP/wg.out")"
	like "... the baseline is the archive's package of the same version" "$(cat "$TMP/wg.out")" \
		"gate: the baseline is the archive's pgopt-server 1.0 \($TMP/garchive, extracted by compare\)"
	like "... the gate runs at the repeat resolution, saying so" "$(cat "$TMP/wg.out")" \
		"\[7/8\] gate +pgbuild gate --baseline $TMP/wg/archive/root/usr/lib/postgresql/15 --gate 'cycles>=1.00' --noise none"
	is "... its JSON: decided at the repeat resolution, not shown slower" \
		"$(jq -r '"\(.verdict_word) \(.results[0].status) \(.results[0].family)"' "$TMP/wg/gate.json")" \
		"not shown slower pass 0"
	"$PGB" deb --dsc "$G/pgopt-server_1.0.dsc" --policy "$TMP/p.policy" --workdir "$TMP/wg" \
		--builddir . --no-regress --no-compare --gate 'cycles>=1.00' --metric cycles \
		-W select-only > "$TMP/wg2.out" 2>&1
	is "... without the archive's (--no-compare) and not installed: refused (exit 2)" "$?" 2
	like "... before the build, naming the package, the version and the fix" "$(cat "$TMP/wg2.out")" \
		"error: --no-compare: the gate's baseline would be the installed pgopt-server 1.0 \(the archive's is downloaded by compare\), but pgopt-server is not installed: drop --no-compare, give --baseline PREFIX, or --no-gate"
	is "... no stage ran" "$(grep -c '\[1/8\]' "$TMP/wg2.out")" 0
	# the archive's package changed (the same version repacked: other
	# bytes): the gate runs again, not the verdict against the old one
	mkdir -p "$TMP/garchive2/x" && dpkg-deb -R "$TMP"/garchive/pgopt-server_1.0_*.deb "$TMP/garchive2/x" &&
		dpkg-deb -Zxz -b "$TMP/garchive2/x" "$TMP/garchive2/pgopt-server_1.0_amd64.deb" > /dev/null &&
		rm -rf "$TMP/garchive2/x"
	"$PGB" deb --dsc "$G/pgopt-server_1.0.dsc" --policy "$TMP/p.policy" --workdir "$TMP/wg" \
		--builddir . --no-regress --archive "$TMP/garchive2" --gate 'cycles>=1.00' \
		--metric cycles -W select-only > "$TMP/wg3.out" 2>&1
	is "... another archive's package of the same version: exit 0" "$?" 0 || diag "$(tail -20 "$TMP/wg3.out")"
	like "... its gate runs again (its .deb's sha256 in the stage's key)" "$(cat "$TMP/wg3.out")" \
		"\[7/8\] gate +done"
	# the package's pg_config (the modules stage asks it where the modules
	# are) runs as the server user, never as root
	: > "$SPY" && chmod 666 "$SPY"
	Y=$TMP/spy
	make_server "$Y" 2
	"$PGB" deb --dsc "$Y/pgopt-server_1.0.dsc" --policy "$TMP/p.policy" --workdir "$TMP/wy" \
		--builddir . --no-compare --no-regress --no-gate > "$TMP/wy.out" 2>&1
	is "a package whose pg_config says who runs it: pgbuild deb exits 0" "$?" 0 || diag "$(tail -20 "$TMP/wy.out")"
	is "... it ran as the server user (postgres), never as root" "$(sort -u "$SPY")" "$(id -u postgres)"
	rm -f "$SPY"
	# a pg_config that names another install's modules: refused, not
	# an OK about files that are not the package's
	make_server "$TMP/elsewhere" 3
	"$PGB" deb --dsc "$TMP/elsewhere/pgopt-server_1.0.dsc" --policy "$TMP/p.policy" \
		--workdir "$TMP/we" --builddir . --no-compare --no-regress --no-gate > "$TMP/we.out" 2>&1
	is "a package whose pg_config names the system's modules: modules cannot run (exit 2)" "$?" 2
	like "... saying so" "$(cat "$TMP/we.out")" \
		"pg_config says $PGDIR/lib, outside the package's tree $TMP/we/root"
	Z=$TMP/broken
	make_server "$Z" 1
	"$PGB" deb --dsc "$Z/pgopt-server_1.0.dsc" --policy "$TMP/p.policy" --workdir "$TMP/wz" \
		--builddir . --no-compare --no-regress --no-gate > "$TMP/wz.out" 2>&1
	is "a JIT provider that lost its library: pgbuild deb exits 1" "$?" 1 || diag "$(tail -20 "$TMP/wz.out")"
	like "... LOAD of it fails, naming the module and the symbol" "$(cat "$TMP/wz.out")" \
		'FAIL llvmjit\.so does not load: could not load library .*llvmjit\.so": .*undefined symbol: _ZN4llvm9ErrorList2IDE'
	like "... and JIT is not available" "$(cat "$TMP/wz.out")" 'FAIL JIT: pg_jit_available\(\) is an error: could not load library'
	like "... every extension with code fails to be created: JIT compiles its script" "$(cat "$TMP/wz.out")" \
		'FAIL CREATE EXTENSION cube: could not load library .*llvmjit\.so'
	like "... the stage fails" "$(cat "$TMP/wz.out")" '\[6/8\] modules +FAILED .*modules: FAILED: [0-9]+ problems'
else
	skip "no $PGDIR with llvmjit.so, or no postgres user (make deps installs postgresql-15)" 21
fi

# regress --set: installcheck's server only, and the settings every
# pgbuild server refuses
mkdir -p "$TMP/bd"
nok "regress --set without --install is refused" "$PGB" regress --builddir "$TMP/bd" --set jit=on
like "... saying what takes settings there" "$(cat "$TMP/.out")" "--set configures installcheck's server \(--install\)"
nok "regress --set listen_addresses is refused" "$PGB" regress --builddir "$TMP/bd" \
	--install /usr/lib/postgresql/15 --set 'listen_addresses=*'
like "... with the reason" "$(cat "$TMP/.out")" 'listen_addresses opens the cluster to other users'
rm -f "$SPY"
done_testing
