#!/bin/bash
# 23-plugin-wrapper.t - the plugin loaded by pgoptcc: a small policy names
# the TU, rules, added/removed flags and a hot list in the record; the
# record survives a ccache hit (the plugin does not run then); PGOPT_LOGDIR
# gets the sidecar; an LTO policy records the link-time decisions.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/plugin.sh"
W=$B/bin/pgoptcc
cd "$TMP" || exit 1
[ -f "$PLUGIN" ] || skip_all "plugin not built"
unset PGOPT_PLUGIN PGOPT_PASSTHROUGH PGOPT_VERBOSE PGOPT_LOGDIR PGOPT_PREFIX

mkdir -p proj/src/backend/utils/mmgr proj/src/common && touch proj/configure
cat > proj/src/backend/utils/mmgr/aset.c <<'C'
static int chunk(int n) { return (n + 15) & ~15; }
int aset_alloc(int n) { int s = 0; for (int i = 0; i < n; i++) s += chunk(i); return s; }
int aset_free(int n) { return chunk(n) - n; }
C
cat > proj/src/common/util.c <<'C'
int util_twice(int x) { return x + x; }
int util_main_helper(int x) { return x * 9 + 2; }
C
cat > proj/src/main.c <<'C'
int aset_alloc(int); int util_twice(int); int util_main_helper(int);
int main(int argc, char **argv) { (void)argv; return (aset_alloc(argc) + util_twice(argc) + util_main_helper(argc)) & 1; }
C
echo aset_alloc > hot.txt
cat > p.policy <<'P'
[global]
cflags -= -g
hot = hot.txt
[src/backend/utils/mmgr/*.c]
cflags += -O3
P
export PGOPT_POLICY=$TMP/p.policy
cd proj
"$W" -O2 -g -c src/backend/utils/mmgr/aset.c -o aset.o 2>err.txt
ok "compile through pgoptcc with the plugin" test -s aset.o
is "silent" "$(cat err.txt)" ""
j=$("$PGBUILD" inspect --json - aset.o)
like "record: TU relative to the source root" "$j" '"tu":"src/backend/utils/mmgr/aset.c"'
like "record: the matching rules (file:line)" "$j" "\"rules\":\\[\"$TMP/p.policy:1\",\"$TMP/p.policy:4\"\\]"
like "record: flags added" "$j" '"added":\["-O3"\]'
like "record: flags removed" "$j" '"removed":\["-g"\]'
like "record: the function runs at -O3" "$j" '"name":"aset_alloc".*"O":"-O3"'
j=$("$PGBUILD" inspect --json - --function aset_alloc aset.o)
like "record: hot list applied" "$j" '"marked":"hot"'
like "hot function in .text.hot (ELF symbol)" "$j" '"elf_section":".text.hot"'
like "human table lists the functions" "$("$PGBUILD" inspect aset.o)" "aset_alloc +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +.text.hot"

# a hot list alone loads the plugin into a compile no cflags section matches
echo util_twice > $TMP/hot2.txt
printf '[global]\nhot = hot2.txt\n[src/backend/**]\ncflags += -O3\n' > $TMP/hotonly.policy
PGOPT_POLICY=$TMP/hotonly.policy PGOPT_LOGDIR=$TMP/hlog "$W" -O2 -c src/common/util.c -o util.o 2>err.txt
ok "hot list only: compiles" test -s util.o
is "hot list only: silent" "$(cat err.txt)" ""
like "hot list only: listed function in .text.hot" \
	"$("$PGBUILD" inspect --json - --function util_twice util.o)" '"elf_section":".text.hot"'
like "hot list only: unlisted function stays in .text" \
	"$("$PGBUILD" inspect --json - --function util_main_helper util.o)" '"elf_section":".text"'
like "hot list only: the compile counts as changed" "$(tail -n 1 $TMP/hlog/compile.jsonl)" \
	'"changed":true,.*"argv_out":\[.*"-frecord-gcc-switches","-fplugin='
ok "hot list only: -frecord-gcc-switches" readelf -p .GCC.command.line util.o

# --- ccache: a hit restores the object, record included ---
if command -v ccache >/dev/null; then
	export CCACHE_DIR=$TMP/ccache CCACHE_NOHASHDIR=1 CCACHE_BASEDIR=$TMP
	PGOPT_PREFIX=ccache "$W" -O2 -g -c src/backend/utils/mmgr/aset.c -o c1.o
	first=$("$PGBUILD" inspect --json - c1.o)
	ccache -z >/dev/null
	rm -f c1.o
	PGOPT_PREFIX=ccache "$W" -O2 -g -c src/backend/utils/mmgr/aset.c -o c1.o
	stats=$(ccache --print-stats)
	like "ccache: second compile is a cache hit" "$(printf '%s\n' "$stats" | grep -E '^(direct|preprocessed)_cache_hit' | awk '{s+=$2} END {print s}')" "^[1-9]"
	is "ccache hit: inspect shows the full record" "$("$PGBUILD" inspect --json - c1.o)" "$first"
	like "ccache hit: record has the functions" "$("$PGBUILD" inspect --units c1.o)" "src/backend/utils/mmgr/aset.c +compile +2 fn"
	# the lists' contents are on the command line (as a digest): a list
	# edited in place is a cache miss, not a stale object
	echo util_twice > $TMP/hot3.txt
	printf '[global]\nhot = hot3.txt\n' > $TMP/lists.policy
	PGOPT_POLICY=$TMP/lists.policy PGOPT_PREFIX=ccache PGOPT_LOGDIR=$TMP/llog "$W" -O2 -c src/common/util.c -o l1.o
	like "list digest: on the command line" "$(tail -n 1 $TMP/llog/compile.jsonl)" \
		"\"-fplugin-arg-pgopt-list-digest=$(printf 'hot %s\n' "$(stat -c %s $TMP/hot3.txt)" | cat - $TMP/hot3.txt | sha256sum | cut -c1-64)\""
	like "list digest: listed function hot" "$("$PGBUILD" inspect --json - --function util_twice l1.o)" '"elf_section":".text.hot"'
	ccache -z >/dev/null
	echo util_main_helper > $TMP/hot3.txt
	PGOPT_POLICY=$TMP/lists.policy PGOPT_PREFIX=ccache "$W" -O2 -c src/common/util.c -o l1.o
	stats=$(ccache --print-stats)
	is "edited list: not a cache hit" "$(printf '%s\n' "$stats" | grep -E '^(direct|preprocessed)_cache_hit' | awk '{s+=$2} END {print s+0}')" 0
	is "edited list: a cache miss" "$(printf '%s\n' "$stats" | awk '$1=="cache_miss"{print $2}')" 1
	like "edited list: the function left .text.hot" "$("$PGBUILD" inspect --json - --function util_twice l1.o)" '"elf_section":".text"'
	like "edited list: the newly listed one is in .text.hot" "$("$PGBUILD" inspect --json - --function util_main_helper l1.o)" '"elf_section":".text.hot"'
	unset CCACHE_DIR CCACHE_NOHASHDIR CCACHE_BASEDIR
else
	skip "ccache is not installed: no cache-hit or list-digest cases" 9
fi

# --- sidecar ---
PGOPT_LOGDIR=$TMP/log "$W" -O2 -g -c src/backend/utils/mmgr/aset.c -o s.o
ok "PGOPT_LOGDIR: sidecar functions/<tu>.jsonl" test -s $TMP/log/functions/src/backend/utils/mmgr/aset.c.jsonl
objcopy --dump-section .pgopt.log=$TMP/sec.txt s.o $TMP/junk.o
ok "sidecar equals the object's record" cmp $TMP/sec.txt $TMP/log/functions/src/backend/utils/mmgr/aset.c.jsonl

# --- LTO policy: link-time decisions recorded ---
cat > $TMP/lto.policy <<'P'
[global]
lto = on
P
export PGOPT_POLICY=$TMP/lto.policy
for f in src/backend/utils/mmgr/aset.c src/common/util.c src/main.c; do
	"$W" -O2 -c "$f" -o "${f%.c}.o" || echo "compile $f failed"
done
"$W" -O2 -o prog src/backend/utils/mmgr/aset.o src/common/util.o src/main.o 2>err.txt
ok "LTO link through pgoptcc" test -x prog
is "LTO link silent" "$(cat err.txt)" ""
units=$("$PGBUILD" inspect --units prog)
for tu in src/backend/utils/mmgr/aset.c src/common/util.c src/main.c; do
	like "LTO binary lists $tu" "$units" "^$tu +compile-lto"
done
like "LTO binary has the link-time unit" "$units" "^prog +ltrans"
sites=$("$PGBUILD" inspect --sites --tu prog prog)
like "cross-file inline at link: util_twice into main" "$sites" $'main\tsrc/main.c:2:[0-9]+\tutil_twice\tlto'
like "cross-file inline at link: aset_alloc into main" "$sites" $'main\tsrc/main.c:2:[0-9]+\taset_alloc\tlto'
like "summary counts cross-file sites" "$units" "cross-file [1-9]"
done_testing
