# tests/lib/tap.sh - a small TAP library for the bash suites (run by prove).
#
# Source it, then:
#   ok  "title" CMD...          CMD exits 0
#   nok "title" CMD...          CMD exits non-zero (test_must_fail)
#   is  "title" GOT WANT        string equality, shows both on failure
#   like "title" GOT REGEX      extended-regex match
#   skip "reason" [N]           N (default 1) checks that cannot run here:
#                               "ok N # SKIP reason", counted by prove as skipped
#   skip_all "reason"           skip the whole file
#   tap_file "title" FILE...    run a whole TAP file: ok when it passes, a
#                               skip (with its reason) when it skipped everything
#   done_testing                print the plan, exit non-zero on failure
#
# Every file gets a private scratch directory $TMP, removed at exit unless
# PGOPT_KEEP_TMP=1.  $B is the build tree (make sets PGOPT_BUILD), with
# $B/bin/pgoptcc and $B/bin/pgbuild.
set -u
TAP_N=0
TAP_FAILED=0
B=${PGOPT_BUILD:-$(cd "$(dirname "$0")/../.." && pwd)/build}
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/pgopt-test.XXXXXX")
chmod 755 "$TMP"
tap_cleanup() { [ "${PGOPT_KEEP_TMP:-0}" = 1 ] || rm -rf "$TMP"; }
trap tap_cleanup EXIT

tap_result() { # status title
	TAP_N=$((TAP_N + 1))
	if [ "$1" = 0 ]; then
		echo "ok $TAP_N - $2"
	else
		echo "not ok $TAP_N - $2"
		TAP_FAILED=$((TAP_FAILED + 1))
	fi
}
diag() { printf '%s\n' "$@" | sed 's/^/# /' >&2; }
ok() { local t=$1; shift; "$@" >"$TMP/.out" 2>&1; local s=$?
	tap_result $s "$t"; [ $s = 0 ] || { diag "command failed ($s): $*"; tail -n 30 "$TMP/.out" | diag "$(cat)"; }; return $s; }
nok() { local t=$1; shift; "$@" >"$TMP/.out" 2>&1; local s=$?
	if [ $s != 0 ]; then tap_result 0 "$t"; return 0; fi
	tap_result 1 "$t"; diag "command unexpectedly succeeded: $*"; return 1; }
is() { if [ "$2" = "$3" ]; then tap_result 0 "$1"; else tap_result 1 "$1"
	diag "got:  '$2'" "want: '$3'"; fi; }
like() { if printf '%s' "$2" | grep -Eq -- "$3"; then tap_result 0 "$1"; else tap_result 1 "$1"
	diag "got:  '$2'" "want match: /$3/"; fi; }
skip() { local i n=${2:-1}; for ((i = 0; i < n; i++)); do
	TAP_N=$((TAP_N + 1)); echo "ok $TAP_N # SKIP $1"; done; }
skip_all() { echo "1..0 # SKIP $1"; exit 0; }
tap_file() { local t=$1 s plan inner; shift; "$@" >"$TMP/.tapfile" 2>&1; s=$?
	plan=$(grep -E '^1\.\.[0-9]+' "$TMP/.tapfile" | tail -n 1)
	case "$s:$plan" in
	"0:1..0 # SKIP"*) skip "$t: ${plan#1..0 # SKIP }" ;;
	0:1..0*) skip "$t: the suite ran no test" ;;
	0:1..*) tap_result 0 "$t" ;;
	*) tap_result 1 "$t"; diag "exit $s: $*"
		grep -E '^not ok|^# ' "$TMP/.tapfile" | tail -n 30 | diag "$(cat)" ;;
	esac
	inner=$(grep -E '^ok [0-9]+ # SKIP' "$TMP/.tapfile")
	[ -z "$inner" ] || diag "$t skipped inside:" "$inner"
	return 0; }
done_testing() { echo "1..$TAP_N"; [ $TAP_FAILED = 0 ]; exit $?; }
