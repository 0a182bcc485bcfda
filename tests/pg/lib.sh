# tests/pg/lib.sh - the shared fixture of every PostgreSQL end-to-end test.
#
# Source it from a tests/pg/NN-*.t script (it sources tests/lib/tap.sh when
# that has not been sourced yet):
#
#     . "$(dirname "$0")/lib.sh"
#     prefix=$(e2e_build base none)               # baseline, policy none
#     cand=$(e2e_build coscup "$E2E_CANDIDATE_POLICY")   # also BOLT-ready
#     builddir=$(e2e_builddir coscup)
#
# PostgreSQL is built at most once per NAME and shared by all suites: builds
# live in $PGOPT_E2E/NAME/{build,prefix} ($PGOPT_E2E defaults to
# $TOP/build/e2e), are made with `pgbuild build --no-bench`, and are marked
# done by $PGOPT_E2E/NAME/.done (which records the policy's content hash: a
# changed policy file rebuilds - incrementally - on the next call).  A lock
# per NAME makes parallel callers wait for the one build.  The standard
# builds are:
#     base     policy none                         (the baseline)
#     coscup   tests/pg/candidate.policy ($E2E_CANDIDATE_POLICY): the
#              flags of examples/coscup-2017.policy (-O2 -finline-functions,
#              LTO) plus bolt = ready (-fno-reorder-blocks-and-partition,
#              -Wl,--emit-relocs) and a hot list: the candidate of every
#              suite, what pgbuild bolt rewrites (80-bolt.t) and the lto
#              stage pgbuild optimize stacks BOLT on (81-optimize.t)
# Do not add private full builds to tests: CI has room for these two.
# Never run `make -B` (or `make -n -B`) in a shared build tree: it remakes
# the makefiles, which re-runs configure (config.status --recheck) under
# everyone else's feet.  Read the compile log instead.
#
# Functions:
#   e2e_src                    unpacked PostgreSQL source dir (fetched once)
#   e2e_build NAME POLICY|none [pgbuild build options...]
#                              build once, print the prefix
#   e2e_prefix NAME / e2e_builddir NAME / e2e_dir NAME   paths (no build)
#   e2e_compile_cmd NAME TU    the compile of TU (e.g. src/backend/utils/mmgr/aset.c)
#                              as make ran it in NAME's build, from the compile
#                              log: one shell line "cd DIR && gcc ARGS..." (the
#                              arguments make passed to pgoptcc; use instead of
#                              `make -n -B`)
#   e2e_heavy CMD...           run CMD under the machine-wide heavy-job lock
#                              (/tmp/pgopt-heavy.lock) unless an ancestor
#                              process already holds it (no self-deadlock
#                              when the whole suite runs under flock).  Lock
#                              order is NAME lock, then heavy lock: on a shared
#                              machine do not run a suite inside
#                              `flock /tmp/pgopt-heavy.lock` while other suites
#                              run (it inverts the order); e2e_heavy already
#                              takes the heavy lock for each heavy step.
#   e2e_check_server BUILDDIR  the pgrep -f pattern (an ERE) of the temporary
#                              server that make check (pg_regress) starts for
#                              BUILDDIR: in BUILDDIR itself, or (as root) in
#                              its test tree BUILDDIR/pgopt-check
#   e2e_segv_backend PATTERN MATCH PID
#                              while PID runs, wait for a server whose command
#                              line matches PATTERN (pgrep -f) to have a
#                              backend whose title matches MATCH (grep), kill
#                              that backend with SIGSEGV (a crash, as a
#                              miscompiled or BOLT-broken server has one) and
#                              print its pid; nothing when PID ended first
#   e2e_pg_user                the unprivileged user servers run as
#   e2e_server_start PREFIX [postgresql.conf lines...]
#                              initdb + start a throw-away server (unix socket
#                              in a private dir, no TCP); sets E2E_PGHOST,
#                              E2E_PGPORT, E2E_PGDATA; stopped at exit
#   e2e_psql PREFIX SQL        run SQL with PREFIX's psql against that server
#                              (-X -A -t -v ON_ERROR_STOP=1), print the result
#   e2e_server_stop            stop it now
#   e2e_extra NAME WHAT        the suites too long for CI's budget (as
#                              PostgreSQL's PG_TEST_EXTRA): unless NAME is a
#                              word of PGOPT_TEST_EXTRA, the whole file is a
#                              TAP skip naming WHAT it covers and how to run
#                              it; `make check-pg PGOPT_TEST_EXTRA=all` runs
#                              every one
#
# Environment: PGOPT_E2E (build root), PGOPT_E2E_SRC (a --src for pgbuild,
# default debian:postgresql-15), PGOPT_E2E_JOBS (make -j, default nproc),
# PGOPT_TEST_EXTRA (the long suites to run: words, or all).
if [ -z "${TAP_N+x}" ]; then
	. "$(cd "$(dirname "${BASH_SOURCE[0]}")/../lib" && pwd)/tap.sh"
fi

PGOPT_E2E=${PGOPT_E2E:-$TOP/build/e2e}
E2E_CANDIDATE_POLICY=$TOP/tests/pg/candidate.policy
E2E_HEAVY_LOCK=${E2E_HEAVY_LOCK:-/tmp/pgopt-heavy.lock}
mkdir -p "$PGOPT_E2E"
# postgres must be able to reach the build trees (make check, servers)
chmod 755 "$PGOPT_E2E" 2>/dev/null || true

e2e_extra() {
	case " ${PGOPT_TEST_EXTRA:-} " in
	*" $1 "* | *" all "*) ;;
	*) skip_all "$2: a long suite, not in CI's budget (make check-pg PGOPT_TEST_EXTRA=$1)" ;;
	esac
}
e2e_dir() { echo "$PGOPT_E2E/$1"; }
e2e_prefix() { echo "$PGOPT_E2E/$1/prefix"; }
e2e_builddir() { echo "$PGOPT_E2E/$1/build"; }

e2e_pg_user() {
	if [ "$(id -u)" = 0 ]; then echo postgres; else id -un; fi
}

# the heavy lock: tests/lib/heavy.sh (heavy, heavy_held) on $E2E_HEAVY_LOCK
HEAVY_LOCK=$E2E_HEAVY_LOCK
. "$TOP/tests/lib/heavy.sh"
e2e_heavy() { heavy "$@"; }

e2e_check_server() { echo "postgres -D $1(/pgopt-check)?/src/test/regress/tmp_check/data"; }

e2e_segv_backend() {
	local pattern=$1 match=$2 pid=$3 pm c
	for _ in $(seq 1 6000); do
		pm=$(pgrep -o -f "$pattern")
		if [ -n "$pm" ]; then
			for c in $(pgrep -P "$pm"); do
				if tr '\0' ' ' 2>/dev/null <"/proc/$c/cmdline" | grep -q -- "$match" &&
				   kill -SEGV "$c" 2>/dev/null; then
					echo "$c"
					return 0
				fi
			done
		fi
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

e2e_src() {
	local f="$PGOPT_E2E/src.path"
	(
		flock 9
		if [ ! -s "$f" ] || [ ! -x "$(cat "$f")/configure" ]; then
			"$B/bin/pgbuild" source --src "${PGOPT_E2E_SRC:-debian:postgresql-15}" \
				>"$f.tmp" && mv "$f.tmp" "$f"
		fi
	) 9>"$PGOPT_E2E/src.lock" >&2 || return 1
	cat "$f"
}

# e2e_build NAME POLICY|none [extra pgbuild build options]
e2e_build() {
	local name=$1 policy=$2
	shift 2
	local dir="$PGOPT_E2E/$name" hash src
	if [ "$policy" = none ]; then
		hash=none
	else
		[ -f "$policy" ] || { echo "e2e_build: no policy file $policy" >&2; return 2; }
		policy=$(cd "$(dirname "$policy")" && pwd)/$(basename "$policy")
		hash=$(sha256sum <"$policy" | cut -c1-64)
	fi
	mkdir -p "$dir"
	chmod 755 "$dir"
	src=$(e2e_src) || return 2
	(
		flock 9
		if [ -f "$dir/.done" ] && [ "$(cat "$dir/.done")" = "$hash $*" ] &&
			[ -x "$dir/prefix/bin/postgres" ]; then
			exit 0
		fi
		rm -f "$dir/.done"
		echo "# e2e_build $name: pgbuild build --policy $policy (log: $dir/build.log)" >&2
		if e2e_heavy "$B/bin/pgbuild" build --src "$src" --policy "$policy" \
			--prefix "$dir/prefix" --builddir "$dir/build" --no-bench \
			${PGOPT_E2E_JOBS:+--jobs "$PGOPT_E2E_JOBS"} "$@" >"$dir/build.log" 2>&1; then
			echo "$hash $*" >"$dir/.done"
		else
			echo "e2e_build $name failed; last lines of $dir/build.log:" >&2
			tail -n 30 "$dir/build.log" >&2
			exit 2
		fi
	) 9>"$dir/.lock" || return 2
	echo "$dir/prefix"
}

# e2e_compile_cmd NAME TU: the last successful compile of TU in NAME's build
e2e_compile_cmd() {
	local log
	log=$(e2e_builddir "$1")/pgopt-log/compile.jsonl
	[ -f "$log" ] || { echo "e2e_compile_cmd: no compile log $log" >&2; return 2; }
	perl -MJSON::PP -ne '
		BEGIN { $tu = shift @ARGV }
		my $r = eval { decode_json($_) } or next;
		next unless $r->{kind} eq "compile" && defined $r->{tu} && $r->{tu} eq $tu && $r->{exit} == 0;
		$last = $r;
		END {
			exit 1 unless $last;
			my $q = sub { my $s = shift; return $s if $s =~ m{^[A-Za-z0-9_=,./:+@%-]+$};
				$s =~ s/\x27/\x27\\\x27\x27/g; "\x27$s\x27" };
			print "cd ", $q->($last->{cwd}), " && gcc ", join(" ", map { $q->($_) } @{$last->{argv_in}}), "\n";
		}' "$2" "$log"
}

# ---- throw-away servers ----
E2E_PGDATA=
E2E_PGHOST=
E2E_PGPORT=
E2E_SERVER_PREFIX=

e2e_as_pg_user() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

e2e_free_port() {
	local p
	for p in $(seq 25432 25532); do
		if ! ss -ltnH 2>/dev/null | grep -q ":$p "; then
			# unix sockets are per directory, but the port also names
			# the lock file /tmp/.s.PGSQL.N.lock; avoid ports in use
			[ -e "/tmp/.s.PGSQL.$p.lock" ] || { echo "$p"; return 0; }
		fi
	done
	echo 25432
}

e2e_server_start() {
	local prefix=$1
	shift
	local base
	base=$(mktemp -d "${TMPDIR:-/tmp}/pgopt-e2e-srv.XXXXXX")
	chmod 755 "$base"
	E2E_PGDATA=$base/data
	E2E_PGHOST=$base/sock
	E2E_PGPORT=$(e2e_free_port)
	E2E_SERVER_PREFIX=$prefix
	mkdir -p "$E2E_PGHOST"
	[ "$(id -u)" = 0 ] && chown postgres: "$base" "$E2E_PGHOST"
	e2e_as_pg_user "$prefix/bin/initdb" -D "$E2E_PGDATA" -A trust -U postgres \
		--no-sync -E UTF8 --locale=C >"$base/initdb.log" 2>&1 || {
		cat "$base/initdb.log" >&2
		return 1
	}
	{
		echo "listen_addresses = ''"
		echo "unix_socket_directories = '$E2E_PGHOST'"
		echo "port = $E2E_PGPORT"
		echo "fsync = off"
		for l in "$@"; do echo "$l"; done
	} | e2e_as_pg_user tee -a "$E2E_PGDATA/postgresql.conf" >/dev/null
	e2e_as_pg_user "$prefix/bin/pg_ctl" -D "$E2E_PGDATA" -l "$base/server.log" \
		-w -t 60 start >/dev/null || {
		cat "$base/server.log" >&2
		return 1
	}
	trap 'e2e_server_stop; tap_cleanup' EXIT
}

e2e_server_stop() {
	[ -n "$E2E_PGDATA" ] || return 0
	e2e_as_pg_user "$E2E_SERVER_PREFIX/bin/pg_ctl" -D "$E2E_PGDATA" -m immediate \
		-w stop >/dev/null 2>&1
	rm -rf "$(dirname "$E2E_PGDATA")"
	E2E_PGDATA=
}

e2e_psql() {
	local prefix=$1 sql=$2
	e2e_as_pg_user "$prefix/bin/psql" -X -A -t -q -v ON_ERROR_STOP=1 \
		-h "$E2E_PGHOST" -p "$E2E_PGPORT" -U postgres -d postgres -c "$sql"
}
