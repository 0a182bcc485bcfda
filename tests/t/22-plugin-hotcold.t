#!/bin/bash
# 22-plugin-hotcold.t - hot/cold lists: the plugin marks the listed
# functions, GCC places them in .text.hot / .text.unlikely (checked in the
# ELF symbol table with libelf, through pgbuild inspect), and the record
# says the plugin did it.  Also at an LTO link.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/plugin.sh"
cd "$TMP" || exit 1
[ -f "$PLUGIN" ] || skip_all "plugin not built"

cat > hc.c <<'C'
int g;
__attribute__((noinline)) int work(int *p, int n) { int s = 0; for (int i = 0; i < n; i++) s += p[i] * g; return s; }
__attribute__((noinline)) int report(const char *s) { while (*s) g += *s++; return g; }
int plain(int x) { return x + g; }
__attribute__((cold)) int already_cold(int x) { return x - g; }
static int local_hot(int x) { return x * g + 1; }
int (*keep)(int) = local_hot;
C
printf '# hot functions\nwork\n  local_hot  \nalready_cold\nnot_here\n' > hot.txt
printf 'report\n\n' > cold.txt

gcc -O2 -c hc.c -o hc.o $(plugin_flags hc.c) \
	-fplugin-arg-pgopt-hot=$TMP/hot.txt -fplugin-arg-pgopt-cold=$TMP/cold.txt 2>err.txt
ok "compiles with hot and cold lists" test -s hc.o
is "silent (no attribute conflict warnings either)" "$(cat err.txt)" ""

elf_section() { # obj function -> section from the ELF symbol table
	"$PGBUILD" inspect --json - --function "$2" "$1" |
		sed -nE 's/.*"elf_section":"([^"]*)".*/\1/p'
}
is "hot list: work in .text.hot (ELF)" "$(elf_section hc.o work)" ".text.hot"
is "hot list: static local_hot in .text.hot (ELF)" "$(elf_section hc.o local_hot)" ".text.hot"
is "cold list: report in .text.unlikely (ELF)" "$(elf_section hc.o report)" ".text.unlikely"
is "unlisted: plain stays in .text (ELF)" "$(elf_section hc.o plain)" ".text"
is "declared cold wins over the hot list" "$(elf_section hc.o already_cold)" ".text.unlikely"
j=$("$PGBUILD" inspect --json - --function work hc.o)
like "record: work marked hot by the plugin" "$j" '"marked":"hot"'
like "record: work has the hot attribute" "$j" '"attributes":\["hot","noinline"\]'
like "record: section .text.hot" "$j" '"section":".text.hot"'
like "record: report marked cold" "$("$PGBUILD" inspect --json - --function report hc.o)" '"marked":"cold".*"section":".text.unlikely"'
nok "record: plain not marked" sh -c "\"$PGBUILD\" inspect --json - --function plain hc.o | grep -q '\"marked\":'"
like "unit counts marked functions" "$("$PGBUILD" inspect --json - hc.o)" '"marked_hot":2,"marked_cold":1'
like "text section sizes (libelf)" "$(readelf -SW hc.o | grep -c 'text.hot\|text.unlikely')" "^[2-9]"

# verbose explains the conflict
gcc -O2 -c hc.c -o v.o $(plugin_flags hc.c) -fplugin-arg-pgopt-hot=$TMP/hot.txt \
	-fplugin-arg-pgopt-verbose 2>err.txt
like "verbose: names what it marked" "$(cat err.txt)" "pgopt: marked .work. hot"
like "verbose: explains a conflict" "$(cat err.txt)" "already_cold. is declared cold; not marking it hot"

# LTO: the compile marks the declaration, the link keeps it hot
gcc -O2 -flto -c hc.c -o lhc.o $(plugin_flags hc.c) -fplugin-arg-pgopt-hot=$TMP/hot.txt \
	-fplugin-arg-pgopt-cold=$TMP/cold.txt
cat > main.c <<'C'
int work(int *p, int n); int report(const char *s); int plain(int);
int main(int argc, char **argv) { int a[4] = {argc, 2, 3, 4}; return work(a, 4) + report(argv[0]) + plain(argc); }
C
gcc -O2 -flto -c main.c -o lmain.o $(plugin_flags main.c)
gcc -O2 -flto lhc.o lmain.o -o lprog $(plugin_flags lprog) \
	-fplugin-arg-pgopt-hot=$TMP/hot.txt -fplugin-arg-pgopt-cold=$TMP/cold.txt
ok "LTO program links" test -x lprog
like "LTO: link-time record puts work in .text.hot" "$("$PGBUILD" inspect --json - --tu lprog --function work lprog)" '"section":".text.hot"'
like "LTO: link-time record puts report in .text.unlikely" "$("$PGBUILD" inspect --json - --tu lprog --function report lprog)" '"section":".text.unlikely"'
done_testing
