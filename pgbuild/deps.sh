#!/bin/sh
# deps.sh - install the Debian packages pgoptcc needs (run by `make deps`).
#
# Idempotent and quiet when nothing is missing.  Adds a deb-src entry derived
# from the machine's own apt sources when none exists, so that PostgreSQL's
# source package can be fetched by `pgbuild build`.  Must run as root (or with
# sudo available) on Debian/Ubuntu.
set -eu

PKGS="gcc g++ make gcc-12-plugin-dev libelf-dev libpq-dev libcmocka-dev \
 perl ccache distcc dpkg-dev postgresql-15 postgresql-client-15 \
 libreadline-dev zlib1g-dev bison flex valgrind util-linux xz-utils \
 clang libclang-rt-14-dev chromium \
 meson ninja-build autoconf linux-perf libxml2-utils procps iproute2"

SUDO=
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
		echo "deps.sh: error: must run as root (or have sudo) to install: $PKGS" >&2
		exit 1
	fi
fi

missing=
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done

# deb-src: needed for `apt-get source postgresql-15`.
need_src=0
if ! grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	need_src=1
fi

if [ -z "$missing" ] && [ "$need_src" = 0 ]; then
	exit 0
fi

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

echo "deps.sh: installing:${missing:- (none; adding deb-src)}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
if [ -n "$missing" ]; then
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
