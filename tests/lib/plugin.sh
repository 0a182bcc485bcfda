# tests/lib/plugin.sh - helpers for the plugin suites (tests/t/2x, tests/pg/2x).
# Source after tap.sh.
#
#   PLUGIN                    the built pgopt.so
#   plugin_flags TU           -fplugin=... -fplugin-arg-pgopt-tu=TU
#   plugin_sites OBJ          "FILE:LINE:COL CALLEE" per inlined site in OBJ's
#                             record (pgbuild inspect --sites), sorted, unique
#   oracle_check TITLE OBJ OPTINFO [IPADUMP]   TAP test: the record's sites
#                             and GCC's reported decisions match exactly
#   same_code A B             exit 0 when objects (or executables) A and B
#                             have the same code and data: the same .text*,
#                             .rodata*, .data*, .bss*, .tdata*, .tbss*,
#                             .init_array, .fini_array sections (names,
#                             sizes, bytes), the same symbols (nm) and the
#                             same relocations of those sections; else
#                             prints the first difference on stderr
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
	"$PGBUILD" inspect --json - "$2" > "$2.oracle.json" &&
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

# The code and data sections of an ELF file: "NAME TYPE SIZE" lines.
code_sections() {
	readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] //p' |
		awk '$1 ~ /^\.(text|rodata|data|bss|tdata|tbss|init_array|fini_array)([.$]|$)/ { print $1, $2, $5 }'
}

# The relocations applying to those sections, without file offsets.
code_relocs() {
	readelf -rW "$1" | awk '
		/^Relocation section/ { keep = ($3 ~ /^\x27\.rela?\.(text|rodata|data|tdata|init_array|fini_array)/); print (keep ? $3 : ""); next }
		keep && NF { print }'
}

same_code() { # a b
	local a=$1 b=$2 s name type size
	s=$(diff <(code_sections "$a") <(code_sections "$b")) ||
		{ echo "sections differ: $s" | head -n 5 >&2; return 1; }
	while read -r name type size; do
		[ "$type" = NOBITS ] && continue
		objcopy -O binary --only-section="$name" "$a" "$a.sec" 2>/dev/null &&
			objcopy -O binary --only-section="$name" "$b" "$b.sec" 2>/dev/null ||
			{ echo "objcopy failed on $name" >&2; return 1; }
		cmp -s "$a.sec" "$b.sec" || { echo "section $name differs ($size bytes)" >&2; rm -f "$a.sec" "$b.sec"; return 1; }
	done < <(code_sections "$a")
	rm -f "$a.sec" "$b.sec"
	s=$(diff <(nm "$a" 2>/dev/null) <(nm "$b" 2>/dev/null)) ||
		{ echo "symbols differ: $s" | head -n 5 >&2; return 1; }
	s=$(diff <(code_relocs "$a") <(code_relocs "$b")) ||
		{ echo "relocations differ: $s" | head -n 5 >&2; return 1; }
	return 0
}
