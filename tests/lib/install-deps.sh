#!/bin/sh
# tests/lib/install-deps.sh - install the Debian packages the project needs
# to build, test and demo (what `make deps` runs; it can run on its own).
#
#   tests/lib/install-deps.sh            the list below
#   tests/lib/install-deps.sh PKG...     these packages instead
#
# Idempotent and quiet when nothing is missing: it asks dpkg which of the
# packages are installed and whether apt has a deb-src entry, and exits 0
# without touching anything when both are so.  Otherwise, as root (or
# through sudo), it adds a deb-src entry derived from the machine's own apt
# sources when there is none (so that `pgbuild build` can fetch
# PostgreSQL's source package), then runs apt-get update and installs what
# is missing.  Not root and no sudo: an error naming the packages, exit 1.
set -eu

# The packages: the compilers, the plugin's headers, libelf, libpq and
# cmocka (building); ccache and distcc (the wrapper's and tune's suites);
# dpkg-dev and xz-utils (pgbuild source unpacks Debian's source package);
# postgresql-15 and its client (the server user, the suites' servers);
# readline, zlib, bison, flex (building PostgreSQL); valgrind (the
# instructions and cycles metrics); clang and its sanitizer runtime (the
# clang suite, fuzzing) and lld (its ThinLTO links); clang-15, lld-15 and
# llvm-15 (the LLVM stack of pgbuild pgo and optimize: ThinLTO, clang's
# instrumented PGO with llvm-profdata, the same LLVM as bolt-15); chromium (renders the HTML report, tests/t/51);
# meson, ninja-build, autoconf (the wrapper's build-system probes);
# linux-perf (profiles); libxml2-utils (xmllint checks JUnit); util-linux,
# procps, iproute2 (tools the suites call); bolt-15 (BOLT 15: llvm-bolt,
# merge-fdata, perf2bolt under /usr/lib/llvm-15); man-db, groff-base (the
# man pages' checks: man --warnings, groff -ww); debhelper (tests/t/33
# builds a Debian package through the debian/rules fragment); rpm,
# elfutils and cpio (tests/t/34 builds an RPM with rpmbuild, whose
# find-debuginfo runs eu-strip and cpio); jq (the suites read JSON logs
# with it).
PKGS="gcc g++ make gcc-12-plugin-dev libelf-dev libpq-dev libcmocka-dev
	perl ccache distcc dpkg-dev postgresql-15 postgresql-client-15
	libreadline-dev zlib1g-dev bison flex valgrind util-linux xz-utils
	clang libclang-rt-14-dev lld clang-15 lld-15 llvm-15 chromium
	meson ninja-build autoconf linux-perf libxml2-utils procps iproute2
	bolt-15 man-db groff-base debhelper rpm elfutils cpio jq"
[ $# -eq 0 ] || PKGS="$*"
ME=${0##*/}
[ -z "${MAKELEVEL:-}" ] || ME="make deps"

SUDO=
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO=sudo
	else
		echo "$ME: error: must run as root (or have sudo) to install:" $PKGS >&2
		exit 1
	fi
fi

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
need_src=0
grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/ ||
	need_src=1
if [ -z "$missing" ] && [ "$need_src" = 0 ]; then
	exit 0
fi

# deb-src entries next to the deb ones: a copy of each deb822 .sources file
# with "Types: deb-src", and the deb lines of sources.list as deb-src lines
if [ "$need_src" = 1 ]; then
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		case "$f" in *pgoptcc*) continue;; esac
		grep -q '^Types: deb$' "$f" || continue
		sed 's/^Types: deb$/Types: deb-src/' "$f" |
			$SUDO tee "/etc/apt/sources.list.d/pgoptcc-src-$(basename "$f")" >/dev/null
	done
	if [ -f /etc/apt/sources.list ] && grep -qE '^deb ' /etc/apt/sources.list; then
		sed -n 's/^deb /deb-src /p' /etc/apt/sources.list |
			$SUDO tee /etc/apt/sources.list.d/pgoptcc-src.list >/dev/null
	fi
fi

echo "$ME: installing:${missing:- (none; adding deb-src)}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
if [ -n "$missing" ]; then
	$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
