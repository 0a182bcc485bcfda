#!/bin/bash
# 12-wrapper-log.t - the compile log under make -j: one complete JSON record
# per invocation, never torn; links logged; the ccache prefix hashes the
# injected flags and a second build is all cache hits, still logged.
. "$(dirname "$0")/../lib/tap.sh"
W=$B/bin/pgoptcc
export PGOPT_PLUGIN=off
cd "$TMP" || exit 1
mkdir -p proj/src && touch proj/configure
N=120
for i in $(seq 1 $N); do
	printf 'int f%d(int x) { return x * %d; }\n' "$i" "$i" > proj/src/f$i.c
done
printf 'int main(void) { return 0; }\n' > proj/src/main.c
cat > proj/Makefile <<'M'
SRCS := $(wildcard src/*.c)
OBJS := $(SRCS:.c=.o)
prog: $(OBJS)
	$(CC) $(CFLAGS) -o $@ $^
%.o: %.c
	$(CC) $(CFLAGS) -c -o $@ $<
clean:
	rm -f $(OBJS) prog
M
printf '[global]\ncflags += -fno-plt\n[src/f1*.c]\ncflags += -O3\n' > p.policy
export PGOPT_POLICY=$TMP/p.policy PGOPT_LOGDIR=$TMP/log
make -s -C proj -j16 CC="$W" CFLAGS="-O2 -g" >/dev/null 2>make.err
ok "parallel build through pgoptcc" test -x proj/prog
json_ok() { perl -MJSON::PP -ne 'eval { decode_json($_); 1 } or do { print "bad line $.: $_"; exit 1 }' "$1"; }
ok "every log line is valid JSON" json_ok log/compile.jsonl
is "one record per compile + one for the link" "$(wc -l < log/compile.jsonl)" "$((N + 2))"
is "each TU logged exactly once" \
	"$(perl -MJSON::PP -ne '$r=decode_json($_); print "$r->{tu}\n" if $r->{kind} eq "compile"' log/compile.jsonl | sort | uniq -d | wc -l)" 0
rec=$(grep '"tu":"src/f12.c"' log/compile.jsonl)
like "record: kind and reason" "$rec" '"kind":"compile","reason":"c_compile"'
like "record: rules with file:line" "$rec" "\"rules\":\\[\"$TMP/p.policy:1\",\"$TMP/p.policy:3\"\\]"
like "record: added flags" "$rec" '"added":\["-fno-plt","-O3"\]'
like "record: argv before and after" "$rec" '"argv_in":\["-O2","-g","-c","-o","src/f12.o","src/f12.c"\],"argv_out":\[.*"-O3","-frecord-gcc-switches"\]'
like "record: exit, time, output size" "$rec" '"exit":0,"ms":[0-9.]+,"output":"src/f12.o","output_size":[0-9]+'
like "link record" "$(grep '"kind":"link"' log/compile.jsonl)" '"reason":"link_executable","tu":"prog"'
perm=$(stat -c %a log/compile.jsonl)
is "log file not world-writable" "$perm" 644

# passthrough records name the unit and the output too, when known
printf 'int main(void) { return 0; }\n' > proj/conftest.c
(cd proj && "$W" -O2 -c conftest.c -o conftest.o)
rec=$(tail -n 1 log/compile.jsonl)
like "passthrough record: conftest with its tu" "$rec" '"kind":"passthrough","reason":"conftest","tu":"conftest.c"'
like "passthrough record: output and its size" "$rec" "\"output\":\"conftest.o\",\"output_size\":$(stat -c %s proj/conftest.o)[,}]"
(cd proj/src && PGOPT_PASSTHROUGH=1 "$W" -O2 -c f7.c)
rec=$(tail -n 1 log/compile.jsonl)
like "PGOPT_PASSTHROUGH=1 record: tu and gcc's default output" "$rec" \
	"\"reason\":\"passthrough_env\",\"tu\":\"src/f7.c\".*\"output\":\"f7.o\",\"output_size\":$(stat -c %s proj/src/f7.o)[,}]"
(cd proj && "$W" -E conftest.c > /dev/null)
rec=$(tail -n 1 log/compile.jsonl)
like "preprocess to stdout: tu known" "$rec" '"reason":"preprocess","tu":"conftest.c"'
nok "preprocess to stdout: no output" grep -q '"output"' <<< "$rec"
(cd proj && "$W" gcc --version > /dev/null)
rec=$(tail -n 1 log/compile.jsonl)
like "query: tu null, no output" "$rec" '"reason":"query","tu":null'
nok "query: no output" grep -q '"output"' <<< "$rec"

# --- ccache as prefix ---
if ! command -v ccache >/dev/null; then
	skip "ccache not installed (make deps): ccache as PGOPT_PREFIX not tested" 5
	done_testing
fi
export CCACHE_DIR=$TMP/ccache CCACHE_NOHASHDIR=1 CCACHE_BASEDIR=$TMP
rm -rf log
make -s -C proj clean
PGOPT_PREFIX=ccache make -s -C proj -j8 CC="$W" CFLAGS="-O2" >/dev/null 2>&1
ccache -z >/dev/null
make -s -C proj clean
PGOPT_PREFIX=ccache make -s -C proj -j8 CC="$W" CFLAGS="-O2" >/dev/null 2>&1
stats=$(ccache --print-stats)
hits=$(echo "$stats" | awk '$1=="direct_cache_hit"{print $2}')
miss=$(echo "$stats" | awk '$1=="cache_miss"{print $2}')
is "second build: every compile a cache hit" "$hits" "$((N + 1))"
is "second build: no cache miss" "$miss" 0
is "second build still logged" "$(grep -c '"kind":"compile"' log/compile.jsonl)" "$((2 * (N + 1)))"
like "prefix recorded" "$(tail -n 2 log/compile.jsonl | head -n1)" '"prefix":\["[^"]*ccache"\]'
# a policy change is a different hash: misses for the changed files only
printf '[global]\ncflags += -fno-plt\n[src/f1*.c]\ncflags += -O1\n' > p.policy
ccache -z >/dev/null
make -s -C proj clean
PGOPT_PREFIX=ccache make -s -C proj -j8 CC="$W" CFLAGS="-O2" >/dev/null 2>&1
miss=$(ccache --print-stats | awk '$1=="cache_miss"{print $2}')
changed=$(ls proj/src | grep -c '^f1.*\.c$')
is "policy change on k files: exactly k cache misses" "$miss" "$changed"
done_testing
