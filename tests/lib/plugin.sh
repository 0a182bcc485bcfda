# tests/lib/plugin.sh - helpers for the plugin suites (tests/t/2x, tests/pg/2x).
# Source after tap.sh.
#
#   PLUGIN                    the built pgopt.so
#   plugin_flags TU           -fplugin=... -fplugin-arg-pgopt-tu=TU
#   plugin_sites OBJ          "FILE:LINE:COL CALLEE" per inlined site in OBJ's
#                             record (pgbuild inspect --sites), sorted, unique
#   oracle_check TITLE OBJ OPTINFO [IPADUMP]   TAP test: the record's sites
#                             and GCC's reported decisions match exactly
PLUGIN=$B/lib/pgoptcc/pgopt.so
PGBUILD=$B/bin/pgbuild

plugin_flags() { printf '%s\n' "-fplugin=$PLUGIN" "-fplugin-arg-pgopt-tu=$1"; }

# A call without a location (e.g. GCC's own call to a .part clone) is
# "?:0:0" on both sides.
plugin_sites() {
	"$PGBUILD" inspect --sites "$1" | cut -f3,4 | tr '\t' ' ' |
		sed -E 's/^[^ ]*:0:0 /?:0:0 /' | LC_ALL=C sort -u
}

# The exact oracle (tests/lib/plugin-oracle.pl): every inlined site in OBJ's
# record matches a decision GCC reports and every decision has a recorded
# site.  GCC's decisions: -fopt-info-inline-optimized plus, from the
# -fdump-ipa-inline file when given, the called-once inliner's decisions
# (which -fopt-info does not report).  ORACLE_STAGE (default ^compile$)
# picks the units of OBJ whose sites count (^ltrans$ at an LTO link).
oracle_check() { # title obj optinfo-file [ipa-inline-dump]
	local out rc
	"$PGBUILD" inspect --json "$2" > "$2.oracle.json" &&
		out=$(perl "$TOP/tests/lib/plugin-oracle.pl" "$2.oracle.json" \
			"${ORACLE_STAGE:-^compile\$}" "$3" ${4:+"$4"} 2>&1)
	rc=$?
	if [ "$rc" = 0 ]; then
		tap_result 0 "$1 ($(printf '%s\n' "$out" | head -n 1))"
	else
		tap_result 1 "$1"
		diag "$(printf '%s\n' "$out" | head -n 30)"
	fi
}
