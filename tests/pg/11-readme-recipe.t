#!/bin/bash
# 11-readme-recipe.t - the recipe of wrapper/README.md, run verbatim in a
# fresh copy of the PostgreSQL source: the code block after the
# "<!-- recipe: ..." marker is extracted from the README (so the doc and
# this test cannot drift) and run with bash -e, with pgoptcc first on PATH
# and HOME in a scratch directory (the recipe installs into $HOME/pg-opt).
# Then: the policy's objects have its flags and the plugin's record, every
# other object is unchanged, there is one log directory, the install's
# pg_config --cc carries the settings, and an extension built with PGXS
# from another directory gets them (a relative option there is one clear
# error).
# Cost: one in-tree PostgreSQL build (the recipe uses ccache: a rerun in the
# same place hits the cache; the tree is at $PGOPT_E2E/readme).
. "$(dirname "$0")/lib.sh"
e2e_extra recipe "wrapper/README.md's recipe run verbatim (one in-tree PostgreSQL build of its own, about 5 min)"
W=$B/bin/pgoptcc
t0=$(date +%s)
command -v ccache >/dev/null || skip_all "the recipe runs ccache, which is not installed (make deps)"
src=$(e2e_src) || { tap_result 1 "PostgreSQL source"; done_testing; }

recipe=$(awk '/^<!-- recipe: /{m=1; next} m && /^```sh$/{b=1; next} b && /^```$/{exit} b' \
	"$TOP/wrapper/README.md")
ok "wrapper/README.md has the recipe block" test -n "$recipe"
like "the recipe puts the settings into CC" "$recipe" 'CC="pgoptcc --pgopt-policy=\$PWD/'

dir=$PGOPT_E2E/readme
rm -rf "$dir"
mkdir -p "$dir/home"
chmod 755 "$dir"
cp -a "$src" "$dir/postgresql" || { tap_result 1 "copy the source"; done_testing; }
pg=$dir/postgresql
ok "a fresh, unconfigured copy of the source" test ! -e "$pg/config.status"
printf '%s\n' "$recipe" > "$dir/recipe.sh"
# the user's environment: pgoptcc on PATH, no PGOPT_* set; ccache keeps its
# objects where pgbuild's builds keep theirs
cache=${PGOPT_CACHE_DIR:-$([ "$(id -u)" = 0 ] && echo /var/cache/pgoptcc || echo "$HOME/.cache/pgoptcc")}
run_recipe() (
	date +%s > "$dir/started"
	cd "$pg" && env -u PGOPT_POLICY -u PGOPT_LOGDIR -u PGOPT_PREFIX -u PGOPT_ROOT -u PGOPT_CC \
		-u PGOPT_PLUGIN -u PGOPT_FAILSAFE -u PGOPT_PASSTHROUGH -u PGOPT_VERBOSE \
		HOME="$dir/home" PATH="$B/bin:$PATH" CCACHE_DIR="${CCACHE_DIR:-$cache/ccache}" \
		bash -e "$dir/recipe.sh"
)
t1=$(date +%s)
e2e_heavy run_recipe > "$dir/recipe.log" 2>&1; s=$?
is "the recipe runs to the end (log $dir/recipe.log)" "$s" 0
[ "$s" = 0 ] || { tail -n 20 "$dir/recipe.log" | diag "$(cat)"; done_testing; }
diag "the recipe took $(( $(date +%s) - $(cat "$dir/started") )) s (after $(( $(cat "$dir/started") - t1 )) s waiting for the heavy lock)"

ok "configure left pgoptcc.conf at the top of the tree" test -f "$pg/pgoptcc.conf"
like "the policy the recipe wrote" "$(cat "$pg/my.policy")" '^\[src/backend/utils/mmgr/\*\.c\]'

# the policy's objects: -O3, and the plugin's record
mm=$(ls "$pg"/src/backend/utils/mmgr/*.o)
nmm=$(echo "$mm" | wc -l)
bad=0
for o in $mm; do
	case $(readelf -p .GCC.command.line "$o" 2>/dev/null) in *-O3*) ;; *) bad=$((bad + 1)); diag "$o: no -O3" ;; esac
	readelf -SW "$o" | grep -q '\.pgopt\.log' || { bad=$((bad + 1)); diag "$o: no plugin record"; }
done
like "the policy's objects ($nmm in src/backend/utils/mmgr)" "$nmm" "^[5-9]$|^[1-9][0-9]$"
is "each has -O3 (.GCC.command.line) and the plugin's record (.pgopt.log)" "$bad" 0
# every other backend object: as plain gcc makes it (nothing recorded)
others=$(cd "$pg/src/backend" && cat $(find . -name objfiles.txt) | tr ' ' '\n' | grep '\.o$' |
	grep -v '/utils/mmgr/' | sort -u)
nothers=$(echo "$others" | wc -l)
changed=0
for o in $others; do
	o=${o#$pg/}
	readelf -SW "$pg/$o" 2>/dev/null | grep -q '\.GCC\.command\.line' && changed=$((changed + 1))
done
like "the other backend objects ($nothers)" "$nothers" "^[0-9]{3,}$"
is "none of them was changed" "$changed" 0

log=$pg/pgopt-log/compile.jsonl
ok "the compile log is where the recipe said" test -s "$log"
is "one log directory in the whole tree" "$(find "$pg" -type d -name pgopt-log | tr '\n' ' ')" "$pg/pgopt-log "
rec=$(grep '"tu":"src/backend/utils/mmgr/aset.c"' "$log" | grep '"kind":"compile"' | tail -n 1)
like "aset.c's record: changed, the policy's rule" "$rec" "\"policy\":\"$pg/my.policy\",\"changed\":true,\"rules\":\\[\"$pg/my.policy:2\"\\],\"added\":\\[\"-O3\"\\]"
like "aset.c's record: settings from CC, pgoptcc.conf named" "$rec" \
	"\"config\":\"$pg/pgoptcc.conf\",\"origins\":\\{\"policy\":\"cc\",\"logdir\":\"cc\",\"prefix\":\"cc\"\\}"
like "aset.c went through ccache" "$rec" '"prefix":\["[^"]*/ccache"\]'
is "no compile failed" "$(grep -c '"kind":"compile".*"exit":[1-9]' "$log")" 0

# the install
inst=$dir/home/pg-opt
ok "make install put postgres under \$HOME/pg-opt" test -x "$inst/bin/postgres"
like "pg_config --cc carries the settings" "$("$inst/bin/pg_config" --cc)" \
	"^pgoptcc --pgopt-policy=$pg/my.policy --pgopt-logdir=$pg/pgopt-log --pgopt-prefix=ccache\$"

# an extension built with PGXS, in another directory
ext=$dir/ext
mkdir -p "$ext"
cat > "$ext/ext.c" <<'C'
#include "postgres.h"
#include "fmgr.h"
PG_MODULE_MAGIC;
PG_FUNCTION_INFO_V1(ext_add);
Datum ext_add(PG_FUNCTION_ARGS) { PG_RETURN_INT32(PG_GETARG_INT32(0) + 1); }
C
printf 'MODULES = ext\nPG_CONFIG = pg_config\nPGXS := $(shell $(PG_CONFIG) --pgxs)\ninclude $(PGXS)\n' > "$ext/Makefile"
(cd "$ext" && PATH="$B/bin:$PATH" CCACHE_DIR="${CCACHE_DIR:-$cache/ccache}" \
	make PG_CONFIG="$inst/bin/pg_config") > "$ext/make.log" 2>&1; s=$?
is "PGXS: the extension builds with the installed pg_config" "$s" 0
ok "PGXS: ext.so made" test -f "$ext/ext.so"
rec=$(grep "\"cwd\":\"$ext\"" "$log" | grep '"kind":"compile"' | tail -n 1)
like "PGXS: the compile went through pgoptcc with the recipe's policy and log" "$rec" \
	"\"policy\":\"$pg/my.policy\".*\"origins\":\\{\"policy\":\"cc\",\"logdir\":\"cc\",\"prefix\":\"cc\"\\}"
like "PGXS: no pgoptcc.conf there: CC's options alone" "$rec" '"config":null'
(cd "$ext" && rm -f ext.o ext.so && PATH="$B/bin:$PATH" \
	make PG_CONFIG="$inst/bin/pg_config" CC="pgoptcc --pgopt-policy=my.policy") > "$ext/make2.log" 2>&1; s=$?
ok "PGXS with a relative --pgopt-policy: the build fails" test "$s" != 0
like "... with pgoptcc's one line saying to give an absolute path" "$(grep '^pgoptcc: error' "$ext/make2.log")" \
	"^pgoptcc: error: --pgopt-policy=my.policy: a relative path, and no pgoptcc.conf at or above $ext says what it is relative to .*give an absolute path"

diag "11-readme-recipe took $(( $(date +%s) - t0 )) s"
# the tree is only for looking into after a failure
[ "$TAP_FAILED" = 0 ] && rm -rf "$dir"
done_testing
