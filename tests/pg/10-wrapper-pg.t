#!/bin/bash
# 10-wrapper-pg.t - PostgreSQL 15 through pgoptcc, end to end:
#  - configure with plain gcc and with CC=pgoptcc + the two example
#    policies that could change what a probe concludes (-march in the
#    environment, LTO objects as an option in CC; tests/t/13 runs every
#    example policy on a small autoconf project) gives the same
#    pg_config.h (but CONFIGURE_ARGS) and Makefile.global (but CC, and
#    CPP, which autoconf sets to "$CC -E");
#  - in the shared coscup build, every backend object carries the policy's
#    flags (.GCC.command.line) and every compile has exactly one complete
#    log record.
# PostgreSQL's regression suite on the same build runs in tests/pg/3x.
. "$(dirname "$0")/lib.sh"
W=$B/bin/pgoptcc
POL=$TOP/examples/coscup-2017.policy
src=$(e2e_src) || { tap_result 1 "PostgreSQL source"; done_testing; }
ok "PostgreSQL source at $src" test -x "$src/configure"

# --- configure twice in the same directory: plain gcc, then pgoptcc ---
cfg=$TMP/cfg
conf() { rm -rf "$cfg" && mkdir -p "$cfg" && (cd "$cfg" && "$src/configure" "$@" \
	--prefix=/tmp/pgopt-never-installed --without-icu >configure.out 2>&1); }
e2e_heavy conf CC=gcc AR=gcc-ar RANLIB=gcc-ranlib
ok "configure with plain gcc" test -f "$cfg/src/include/pg_config.h"
grep -v '^#define CONFIGURE_ARGS' "$cfg/src/include/pg_config.h" > "$TMP/pg_config.h.gcc"
# CC differs by definition; CPP is autoconf's "$CC -E", so it follows CC
grep -Ev '^(CC|CPP) = ' "$cfg/src/Makefile.global" > "$TMP/Makefile.global.gcc"
# LTO (coscup, given as an option in CC below) and -march=native (in the
# environment): configure must reach exactly the same conclusions (each
# PostgreSQL configure is ~45 s: the cheaper policies are covered by
# tests/t/13 on a small autoconf project)
for pol in "$TOP"/examples/march-native.policy; do
	pn=$(basename "$pol")
	rm -rf "$TMP/cfglog"
	PGOPT_POLICY=$pol PGOPT_LOGDIR=$TMP/cfglog e2e_heavy conf CC="$W" AR=gcc-ar RANLIB=gcc-ranlib
	ok "configure with CC=pgoptcc and $pn" test -f "$cfg/src/include/pg_config.h"
	grep -v '^#define CONFIGURE_ARGS' "$cfg/src/include/pg_config.h" > "$TMP/pg_config.h.w"
	grep -Ev '^(CC|CPP) = ' "$cfg/src/Makefile.global" > "$TMP/Makefile.global.w"
	ok "$pn: pg_config.h identical but CONFIGURE_ARGS" diff -u "$TMP/pg_config.h.gcc" "$TMP/pg_config.h.w"
	ok "$pn: Makefile.global identical but CC (and CPP = \$CC -E)" diff -u "$TMP/Makefile.global.gcc" "$TMP/Makefile.global.w"
	like "$pn: CONFIGURE_ARGS records CC=pgoptcc" "$(grep '^#define CONFIGURE_ARGS' "$cfg/src/include/pg_config.h")" "CC=$W"
	is "$pn: no configure probe was changed" "$(grep -c '"changed":true' "$TMP/cfglog/compile.jsonl")" 0
	like "$pn: configure probes went through pgoptcc" "$(grep -c '"reason":"conftest"' "$TMP/cfglog/compile.jsonl")" "^[0-9]{3,}$"
done
# the settings as options in CC (wrapper/README.md's recipe), coscup's LTO
# policy: the same conclusions, and CC recorded with its options for make
# and PGXS
rm -rf "$TMP/cfglog"
e2e_heavy conf CC="$W --pgopt-policy=$POL --pgopt-logdir=$TMP/cfglog" AR=gcc-ar RANLIB=gcc-ranlib
ok "configure with CC=\"pgoptcc --pgopt-policy=... --pgopt-logdir=...\"" test -f "$cfg/src/include/pg_config.h"
grep -v '^#define CONFIGURE_ARGS' "$cfg/src/include/pg_config.h" > "$TMP/pg_config.h.w"
grep -Ev '^(CC|CPP) = ' "$cfg/src/Makefile.global" > "$TMP/Makefile.global.w"
ok "options in CC: pg_config.h identical but CONFIGURE_ARGS" diff -u "$TMP/pg_config.h.gcc" "$TMP/pg_config.h.w"
ok "options in CC: Makefile.global identical but CC (and CPP)" diff -u "$TMP/Makefile.global.gcc" "$TMP/Makefile.global.w"
like "options in CC: Makefile.global records them" "$(grep '^CC = ' "$cfg/src/Makefile.global")" \
	"^CC = $W --pgopt-policy=$POL --pgopt-logdir=$TMP/cfglog\$"
is "options in CC: no configure probe was changed" "$(grep -c '"changed":true' "$TMP/cfglog/compile.jsonl")" 0
like "options in CC: configure probes went through pgoptcc" "$(grep -c '"reason":"conftest"' "$TMP/cfglog/compile.jsonl")" "^[0-9]{3,}$"
ok "options in CC: configure left pgoptcc.conf (no setting in it)" sh -c "! grep -qv '^#' '$cfg/pgoptcc.conf'"
rm -rf "$cfg"

# --- the shared coscup build ---
prefix=$(e2e_build coscup "$E2E_CANDIDATE_POLICY") || { tap_result 1 "coscup build"; done_testing; }
bd=$(e2e_builddir coscup)
ok "coscup build installed postgres" test -x "$prefix/bin/postgres"
log=$bd/pgopt-log/compile.jsonl
ok "compile log exists" test -s "$log"
ok "every record is one complete JSON object" perl -MJSON::PP -ne \
	'eval { decode_json($_); 1 } or die "line $.: $_"' "$log"

# every object of the backend (objfiles.txt lists what goes into postgres)
objs=$(cd "$bd/src/backend" && cat $(find . -name objfiles.txt) | tr ' ' '\n' | grep '\.o$' | sort -u)
nobj=$(echo "$objs" | wc -l)
like "backend objects found ($nobj)" "$nobj" "^[0-9]{3,}$"
missing=0 bad=0
for o in $objs; do
	o=${o#$bd/}
	sw=$(readelf -p .GCC.command.line "$bd/$o" 2>/dev/null) || { missing=$((missing + 1)); continue; }
	case $sw in *-finline-functions*-flto*|*-flto*-finline-functions*) ;; *) bad=$((bad + 1)); echo "# $o: $sw" | head -c 300 >&2 ;; esac
done
is "every backend object has a .GCC.command.line" "$missing" 0
is "every backend object carries -finline-functions and -flto" "$bad" 0

# exactly one record per compile: the set of outputs logged equals the set
# of objects compiled from C sources, and none is logged twice
perl -MJSON::PP -ne '$r = decode_json($_); next unless $r->{kind} eq "compile";
	print "$r->{cwd}/$r->{output}\n"' "$log" | sort > "$TMP/logged"
is "no object logged twice" "$(uniq -d "$TMP/logged" | wc -l)" 0
# (objects PostgreSQL symlinks from elsewhere, like isolation's pg_regress.o, are not compiles)
(cd "$bd" && find . -type f -name '*.o' -newer "$bd/config.status" | sed "s|^\\.|$bd|") | sort > "$TMP/built"
ok "every compiled object has its record" sh -c "comm -13 '$TMP/logged' '$TMP/built' | grep -q . && exit 1 || exit 0"
is "every compile record succeeded" "$(perl -MJSON::PP -ne '$r=decode_json($_); print "x\n" if $r->{kind} eq "compile" && $r->{exit} != 0' "$log" | wc -l)" 0
changed=$(grep -c '"kind":"compile".*"changed":true' "$log")
like "compiles changed by the policy ($changed)" "$changed" "^[0-9]{3,}$"
like "links got -flto (LTO across objects)" "$(grep '"tu":"src/backend/postgres"' "$log" | tail -n1)" '"-flto=auto"'
done_testing
