# tests/lib/plugin.sh - helpers for the plugin suites (tests/t/2x, tests/pg/2x).
# Source after tap.sh.
#
#   PLUGIN                    the built pgopt.so
#   pg_plugin_flags TU        -fplugin=... -fplugin-arg-pgopt-tu=TU
#   plugin_sites OBJ          "FILE:LINE:COL CALLEE" per inlined site in OBJ's
#                             record (pgbuild inspect --sites), sorted, unique
#   optinfo_sites FILE        the same set from -fopt-info-inline-optimized=FILE
#   oracle_check TITLE OBJ OPTINFO   TAP test: both sets are equal (and non-empty)
PLUGIN=$B/lib/pgoptcc/pgopt.so
PGBUILD=$B/bin/pgbuild

plugin_flags() { printf '%s\n' "-fplugin=$PLUGIN" "-fplugin-arg-pgopt-tu=$1"; }

# A call without a location (e.g. GCC's own call to a .part clone) is
# "?:0:0" on both sides.
plugin_sites() {
	"$PGBUILD" inspect --sites "$1" | cut -f3,4 | tr '\t' ' ' |
		sed -E 's/^[^ ]*:0:0 /?:0:0 /' | LC_ALL=C sort -u
}

# "b.c:25:34: optimized:  Inlined once/19 into only/20 which ..." and
# "a.c:2:33: optimized:  Inlining sq/0 into add3/1." -> "b.c:25:34 once"
optinfo_sites() {
	sed -nE -e 's/^(.+:[0-9]+:[0-9]+): optimized: +Inlin(ing|ed) (.+)\/[0-9]+ into .*/\1 \3/p' \
		-e 's/^optimized: +Inlin(ing|ed) (.+)\/[0-9]+ into .*/?:0:0 \2/p' "$1" |
		LC_ALL=C sort -u
}

oracle_check() { # title obj optinfo-file
	local got want
	got=$(plugin_sites "$2")
	want=$(optinfo_sites "$3")
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		tap_result 0 "$1 ($(printf '%s\n' "$want" | wc -l) sites)"
	else
		tap_result 1 "$1"
		diag "plugin sites vs -fopt-info (< plugin only, > gcc only):"
		diff <(printf '%s\n' "$got") <(printf '%s\n' "$want") | grep '^[<>]' | head -n 20 | diag "$(cat)"
	fi
}

# GCC's -fopt-info does not report the "functions called once" inliner (it
# only writes its decisions to the IPA dump file), so at -O1 or with
# -fno-inline-small-functions the plugin legitimately records more.  Then:
# every -fopt-info site must be recorded, and every extra site's callee must
# appear in GCC's own -fdump-ipa-inline file as "Inlining CALLEE/N size".
oracle_check_dump() { # title obj optinfo-file ipa-inline-dump
	local got want extra missing bad=
	got=$(plugin_sites "$2")
	want=$(optinfo_sites "$3")
	missing=$(LC_ALL=C comm -13 <(printf '%s\n' "$got") <(printf '%s\n' "$want"))
	extra=$(LC_ALL=C comm -23 <(printf '%s\n' "$got") <(printf '%s\n' "$want"))
	while read -r _ callee; do
		[ -n "$callee" ] || continue
		grep -q "^Inlining ${callee}/[0-9]* size" "$4" || bad="$bad $callee"
	done <<< "$extra"
	if [ -n "$got" ] && [ -z "$missing" ] && [ -z "$bad" ]; then
		tap_result 0 "$1 ($(printf '%s\n' "$want" | grep -c .) reported, $(printf '%s\n' "$extra" | grep -c .) more confirmed by the IPA dump)"
	else
		tap_result 1 "$1"
		diag "missing from the plugin:" "$missing" "extra sites not in GCC's dump:$bad"
	fi
}
