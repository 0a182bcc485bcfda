#!/bin/bash
# 24-inspect.t - pgbuild inspect as a command: objects, archives,
# executables; --json is one valid document in the documented shape;
# corrupt, truncated or non-ELF input is one clear error line and exit 2;
# options are checked.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/plugin.sh"
cd "$TMP" || exit 1
[ -f "$PLUGIN" ] || skip_all "plugin not built"

cat > one.c <<'C'
static int sq(int x) { return x * x; }
int one(int x) { return sq(x) + 1; }
int ext(int);
int calls_ext(int x) { return ext(x) + ext(x + 1); }
C
cat > two.c <<'C'
int two(int x) { return x * 2; }
int main(void) { return 0; }
int ext(int x) { return x; }
C
gcc -O2 -frecord-gcc-switches -c one.c $(plugin_flags src/one.c)
gcc -O2 -frecord-gcc-switches -c two.c $(plugin_flags src/two.c)
gcc -O2 -c two.c -o noplug.o
ar rcs lib.a one.o two.o
gcc -o prog one.o two.o

json_ok() { perl -MJSON::PP -e 'local $/; decode_json(<STDIN>); 1' ; }
out=$("$PGBUILD" inspect one.o); rc=$?
is "object: exit 0" "$rc" "0"
like "object: unit header" "$out" "^== one.o: src/one.c \(compile, gcc"
like "object: recorded command line" "$out" "flags: .*-O2"
like "object: function row" "$out" "one +[0-9]+ +[0-9]+ +1 +0 +.text"
like "object: refusal column" "$out" "calls_ext .* function body not available \(2\)"
like "object: summary line" "$out" "1 units, 2 functions, 1 inlined call sites"
# -q/--quiet (gate's spelling): the records only, no totals line
quiet=$("$PGBUILD" inspect -q one.o 2>&1); rc=$?
is "inspect -q: exit 0, the text without its totals line" "$rc|$quiet" "0|$(printf '%s\n' "$out" | sed '$d')"

out=$("$PGBUILD" inspect lib.a)
like "archive: each member" "$out" "lib.a\(one.o\): src/one.c"
like "archive: second member" "$out" "lib.a\(two.o\): src/two.c"
like "executable: both units" "$("$PGBUILD" inspect --units prog)" "src/one.c .*"$'\n'"src/two.c "

"$PGBUILD" inspect --json - one.o lib.a prog > all.json
ok "--json over several files is valid JSON" json_ok < all.json
j=$(cat all.json)
like "--json shape: units with tu, flags, functions" "$j" '^\{"units":\[\{"file":"one.o","tu":"src/one.c",.*"flags":\[.*"functions":\[\{"name":"one","size":[0-9]+'
like "--json: inlined and not_inlined" "$j" '"inlined":\[\{"callee":"sq".*"not_inlined":\[\{"callee":"ext","reason":"function body not available","count":2'
like "--json: section and attributes" "$j" '"attributes":\[\],"frequency":"normal","section":".text"'
like "--json: files with command lines" "$j" '"files":\[\{"file":"one.o","archive":false,"objects":1,"command_lines":\["GNU C'
like "--json: archive members named" "$j" '"file":"lib.a","tu":"src/two.c","object":"two.o"'
is "--json: units counted" "$(perl -MJSON::PP -e 'local $/; print scalar @{decode_json(<STDIN>)->{units}}' < all.json)" "5"

# an object compiled without the plugin
out=$("$PGBUILD" inspect noplug.o 2>err.txt); rc=$?
is "no record: exit 1 (nothing to show is no success)" "$rc" "1"
like "no record: one sentence on stderr" "$(cat err.txt)" "^pgbuild: error: noplug.o: no pgopt record \(.pgopt.log\): was it compiled through pgoptcc with the plugin\?$"
"$PGBUILD" inspect --require noplug.o >/dev/null 2>&1; rc=$?
is "no record with --require: exit 1" "$rc" "1"
for mode in --units --sites "--json -"; do
	"$PGBUILD" inspect $mode noplug.o >/dev/null 2>err.txt; rc=$?
	is "no record $mode: exit 1" "$rc" "1"
	like "no record $mode: says so" "$(cat err.txt)" "noplug.o: no pgopt record"
done
"$PGBUILD" inspect one.o noplug.o >/dev/null 2>err.txt; rc=$?
is "one file of two without a record: exit 1" "$rc" "1"
"$PGBUILD" inspect --function nosuch prog >out.txt 2>err.txt; rc=$?
is "--function nosuch: exit 1" "$rc" "1"
like "--function nosuch: one sentence" "$(cat err.txt)" '^pgbuild: error: no function "nosuch" in the records of prog$'
"$PGBUILD" inspect --sites --function nosuch prog >/dev/null 2>&1; rc=$?
is "--sites --function nosuch: exit 1" "$rc" "1"
"$PGBUILD" inspect --tu src/nosuch.c prog >/dev/null 2>err.txt; rc=$?
is "--tu nosuch: exit 1" "$rc" "1"
like "--tu nosuch: says so" "$(cat err.txt)" 'no translation unit "src/nosuch.c"'
"$PGBUILD" inspect --function one prog >/dev/null 2>&1; rc=$?
is "--function that exists: exit 0" "$rc" "0"
like "no record --json: symbols and sections" "$("$PGBUILD" inspect --json - noplug.o 2>/dev/null)" '"tu":null,"object":null,"flags":\[\],"functions":\[\{"name":"two","size":[0-9]+,"section":".text"'

# filters
like "--function" "$("$PGBUILD" inspect --sites --function one prog)" $'^src/one.c\tone\tone.c:2:[0-9]+\tsq\tearly$'
is "--tu" "$("$PGBUILD" inspect --units --tu src/two.c prog | grep -c src/)" "1"

# corrupt input: one error line, exit 2, never a crash
printf 'not an object at all\n' > text.o
head -c 300 one.o > trunc.o
cp one.o bad.o; printf '\377\377\377\377\377\377\377\377' | dd of=bad.o bs=1 seek=40 conv=notrunc 2>/dev/null
head -c 2000 lib.a > trunc.a
for f in text.o trunc.o bad.o trunc.a missing.o; do
	"$PGBUILD" inspect "$f" >out.txt 2>err.txt; rc=$?
	is "$f: exit 2" "$rc" "2"
	is "$f: one error line" "$(wc -l < err.txt)" "1"
	like "$f: names the file" "$(cat err.txt)" "^pgbuild: error: $f"
done
like "truncated: says so" "$("$PGBUILD" inspect trunc.o 2>&1)" "truncated"
# a damaged record line
cat > badrec.c <<'C'
__asm__(".pushsection .pgopt.log,\"\",@progbits\n.ascii \"{\\\"kind\\\":\\\"unit\\\"}\\n{\\\"kind\\\":\\\"fn\\\",\\\"name\\\":\\n\"\n.popsection");
int f(void) { return 1; }
C
gcc -c badrec.c
"$PGBUILD" inspect badrec.o >/dev/null 2>err.txt; rc=$?
is "damaged record: exit 2" "$rc" "2"
like "damaged record: line named" "$(cat err.txt)" "badrec.o: .pgopt.log line 2:"

# two static functions of one name (tuplesort.c and tuplestore.c both have
# a copytup_heap): each record gets its own file's symbol, by the STT_FILE
# symbol in front of it
mkdir -p st/one st/two
cat > st/one/dup.c <<'C'
static int __attribute__((noinline)) dupfn(int *p, int n)
{ int s = 0; for (int i = 0; i < n; i++) s += p[i] * i ^ (s >> 3);
  for (int i = 0; i < n; i++) s -= p[i] / (i + 1); return s; }
int use1(int *p, int n) { return dupfn(p, n) + 1; }
C
cat > st/two/dup2.c <<'C'
static int __attribute__((noinline)) dupfn(int *p, int n) { return p[n]; }
int use1(int *, int);
int main(int c, char **v) { int a[8] = { 0 }; (void)v; return use1(a, c) + dupfn(a, c); }
C
gcc -O2 -c st/one/dup.c -o st1.o $(plugin_flags src/one/dup.c)
gcc -O2 -c st/two/dup2.c -o st2.o $(plugin_flags src/two/dup2.c)
gcc -o stprog st1.o st2.o
sz1=$(readelf -sW st1.o | awk '$8 == "dupfn" { print $3 }')
sz2=$(readelf -sW st2.o | awk '$8 == "dupfn" { print $3 }')
ok "statics: two sizes differ" test "$sz1" != "$sz2"
size_of() { "$PGBUILD" inspect --json - stprog | perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>);
	for my $u (@{$j->{units}}) { next unless ($u->{tu} // "") eq $ARGV[0];
		for (@{$u->{functions}}) { print $_->{size} // "null" if $_->{name} eq "dupfn" } }' "$1"; }
is "statics: dup.c's dupfn has its own size in the executable" "$(size_of src/one/dup.c)" "$sz1"
is "statics: dup2.c's dupfn has its own size in the executable" "$(size_of src/two/dup2.c)" "$sz2"
like "statics: human output too" "$("$PGBUILD" inspect --tu src/two/dup2.c stprog)" "dupfn +$sz2 "

# a shared library (a contrib module is one): its records and its symbols;
# stripped, the exported functions still get their sizes from .dynsym
gcc -O2 -fPIC -shared -o libone.so one.c $(plugin_flags src/one.c)
out=$("$PGBUILD" inspect libone.so); rc=$?
is "shared library: exit 0" "$rc" "0"
like "shared library: unit header" "$out" "^== libone.so: src/one.c \(compile, gcc"
like "shared library: function row with its size" "$out" "one +$(readelf -sW libone.so | awk '$8 == "one" { print $3; exit }') +[0-9]+ +1 +0 +.text"
"$PGBUILD" inspect --json - libone.so > so.json
ok "shared library --json: valid" json_ok < so.json
like "shared library --json: the unit and its functions" "$(cat so.json)" '"file":"libone.so","tu":"src/one.c",.*"functions":\[\{"name":"one","size":[1-9][0-9]*'
strip libone.so -o libone-stripped.so
nok "stripped: no .symtab left" sh -c "readelf -SW libone-stripped.so | grep -q '\.symtab'"
like "stripped: the record survives, sizes from .dynsym" "$("$PGBUILD" inspect --json - libone-stripped.so)" '"tu":"src/one.c",.*"functions":\[\{"name":"one","size":[1-9][0-9]*'

# usage
nok "no file: error" "$PGBUILD" inspect
like "--help" "$("$PGBUILD" inspect --help)" "usage: pgbuild inspect"
"$PGBUILD" inspect --bogus one.o >/dev/null 2>err.txt; rc=$?
is "unknown option: exit 2" "$rc" "2"
"$PGBUILD" inspect --json - --sites one.o >/dev/null 2>err.txt; rc=$?
is "conflicting modes: exit 2" "$rc" "2"
done_testing
