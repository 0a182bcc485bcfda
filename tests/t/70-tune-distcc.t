#!/bin/bash
# 70-tune-distcc.t - builds through pgoptcc spread over a compile farm with
# PGOPT_PREFIX=distcc: a real distccd on 127.0.0.1 (started here, stopped at
# the end) compiles a small C project; the objects are byte-identical to a
# local build, with and without a policy, and the daemon's log proves every
# compile ran there.  distccd refuses -fplugin (it calls it insecure), so
# compiles that load pgopt.so need `plugin = off` to be distributed: with
# the plugin on, distcc falls back to a local compile (same object), or
# fails with DISTCC_FALLBACK=0.
. "$(dirname "$0")/../lib/tap.sh"

command -v distcc >/dev/null && command -v distccd >/dev/null || skip_all "distcc not installed"
command -v ss >/dev/null || skip_all "ss not installed"

PORT=
for p in $(seq 13632 13700); do
	ss -ltnH 2>/dev/null | grep -q ":$p " || { PORT=$p; break; }
done
[ -n "$PORT" ] || skip_all "no free port"

DC=$TMP/distccd
mkdir -p "$DC"
chmod 777 "$DC"                 # distccd drops root for nobody
: >"$DC/distccd.log"
chmod 666 "$DC/distccd.log"
distccd --daemon --allow 127.0.0.1 --listen 127.0.0.1 --port "$PORT" --no-detach \
	--log-file "$DC/distccd.log" --log-level info &
DPID=$!
trap 'kill $DPID 2>/dev/null; wait $DPID 2>/dev/null; tap_cleanup' EXIT
for _ in $(seq 50); do
	grep -q "listening on 127.0.0.1:$PORT" "$DC/distccd.log" && break
	sleep 0.1
done
like "distccd listens on 127.0.0.1:$PORT" "$(cat "$DC/distccd.log")" "listening on 127.0.0.1:$PORT"

# the client's state (backoff after a refused job) stays private
export DISTCC_DIR=$TMP/distcc-client
mkdir -p "$DISTCC_DIR"
unset PGOPT_PREFIX PGOPT_POLICY PGOPT_LOGDIR DISTCC_HOSTS

# a small project: four translation units and a main
P=$TMP/proj
mkdir -p "$P"
cat >"$P/util.h" <<'EOF'
int sum_squares(int n);
unsigned hash(const char *s);
double mean(const double *v, int n);
long fib(int n);
EOF
cat >"$P/squares.c" <<'EOF'
#include "util.h"
static int sq(int x) { return x * x; }
int sum_squares(int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(i); return s; }
EOF
cat >"$P/hash.c" <<'EOF'
#include "util.h"
unsigned hash(const char *s) { unsigned h = 2166136261u; while (*s) { h ^= (unsigned char)*s++; h *= 16777619u; } return h; }
EOF
cat >"$P/mean.c" <<'EOF'
#include "util.h"
double mean(const double *v, int n) { double s = 0; for (int i = 0; i < n; i++) s += v[i]; return n ? s / n : 0; }
EOF
cat >"$P/main.c" <<'EOF'
#include <stdio.h>
#include "util.h"
long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(void) { double v[] = { 1, 2, 3, 4 };
	printf("%d %u %.2f %ld\n", sum_squares(10), hash("pgopt"), mean(v, 4), fib(20)); return 0; }
EOF
FILES="squares hash mean main"

# build DIR [env...]: compile every file through pgoptcc (in the project
# directory, as make would: with -frecord-gcc-switches ccache hashes the whole
# command line, output name included), move the objects to DIR, link DIR/prog
build() {
	local out=$1
	shift
	mkdir -p "$out"
	for f in $FILES; do
		(cd "$P" && env "$@" "$B/bin/pgoptcc" gcc -O2 -Wall -c "$f.c" -o "$f.o" &&
			mv "$f.o" "$out/$f.o") || return 1
	done
	gcc -o "$out/prog" "$out"/*.o
}
same_objects() { # dirA dirB
	for f in $FILES; do cmp -s "$1/$f.o" "$2/$f.o" || { echo "differs: $f.o"; return 1; }; done
}
remote_ok() { grep -c "COMPILE_OK" "$DC/distccd.log"; }
DIST="PGOPT_PREFIX=distcc DISTCC_HOSTS=127.0.0.1:$PORT DISTCC_FALLBACK=0"

# 1. no policy
ok "local build, no policy" build "$TMP/local0"
before=$(remote_ok)
ok "distcc build, no policy (no fallback allowed)" build "$TMP/dist0" $DIST PGOPT_LOGDIR="$TMP/log0"
is "distccd compiled all 4 files" "$(( $(remote_ok) - before ))" 4
ok "same objects as the local build" same_objects "$TMP/local0" "$TMP/dist0"
is "the program works" "$("$TMP/dist0/prog")" "$("$TMP/local0/prog")"
like "pgoptcc's log records distcc as the prefix" "$(head -1 "$TMP/log0/compile.jsonl")" '"prefix":\["[^"]*distcc"\]'

# 2. a policy (plugin off: distributable)
printf '[global]\ncflags += -O3 -fno-plt\nplugin = off\n' >"$TMP/o3.policy"
ok "local build, -O3 policy" build "$TMP/local1" PGOPT_POLICY="$TMP/o3.policy"
before=$(remote_ok)
ok "distcc build, -O3 policy" build "$TMP/dist1" $DIST PGOPT_POLICY="$TMP/o3.policy"
is "distccd compiled all 4 files" "$(( $(remote_ok) - before ))" 4
ok "same objects as the local build" same_objects "$TMP/local1" "$TMP/dist1"
like "the policy's flags reached the remote compile" \
	"$(readelf -p .GCC.command.line "$TMP/dist1/hash.o")" '-O3.*-fno-plt'
nok "... and they differ from the no-policy objects" same_objects "$TMP/local0" "$TMP/dist1"
like "the daemon log names the compiles" "$(grep COMPILE_OK "$DC/distccd.log" | tail -1)" 'gcc (squares|hash|mean|main)\.c'

# 3. the plugin on: distccd refuses -fplugin
printf '[global]\ncflags += -O3\n' >"$TMP/plugin.policy"
ok "local build, plugin on" build "$TMP/local2" PGOPT_POLICY="$TMP/plugin.policy"
nok "distcc without fallback fails: distccd refuses -fplugin" \
	build "$TMP/dist2x" $DIST PGOPT_POLICY="$TMP/plugin.policy"
like "the daemon says why" "$(cat "$DC/distccd.log")" '-fplugin= .* insecure'
ok "with distcc's fallback the compile runs locally" \
	build "$TMP/dist2" PGOPT_PREFIX=distcc DISTCC_HOSTS=127.0.0.1:$PORT PGOPT_POLICY="$TMP/plugin.policy"
ok "... and gives the same objects (plugin records included)" same_objects "$TMP/local2" "$TMP/dist2"
ok "... which carry the plugin's section" sh -c "readelf -S '$TMP/dist2/hash.o' | grep -q pgopt"

# 4. ccache in front of distcc (CCACHE_PREFIX), as pgbuild builds do
if command -v ccache >/dev/null; then
	export CCACHE_DIR=$TMP/ccache
	# a fresh client state: the refused plugin job put the host in backoff
	export DISTCC_DIR=$TMP/distcc-client2
	mkdir -p "$DISTCC_DIR"
	before=$(remote_ok)
	ok "ccache + distcc build" build "$TMP/dist3" PGOPT_PREFIX=ccache CCACHE_PREFIX=distcc \
		DISTCC_HOSTS=127.0.0.1:$PORT DISTCC_FALLBACK=0 PGOPT_POLICY="$TMP/o3.policy"
	is "cache misses went to distccd" "$(( $(remote_ok) - before ))" 4
	ok "same objects" same_objects "$TMP/local1" "$TMP/dist3"
	before=$(remote_ok)
	ok "rebuild" build "$TMP/dist4" PGOPT_PREFIX=ccache CCACHE_PREFIX=distcc \
		DISTCC_HOSTS=127.0.0.1:$PORT DISTCC_FALLBACK=0 PGOPT_POLICY="$TMP/o3.policy"
	is "cache hits never reach distccd" "$(( $(remote_ok) - before ))" 0
else
	skip "ccache is not installed: no ccache-in-front-of-distcc cases" 5
fi

# 5. pgbuild tune emits distributable policies under distcc
printf -- '-O3\n-fno-plt\n' >"$TMP/cands"
out=$(PGOPT_PREFIX=distcc "$B/bin/pgbuild" tune --dry-run --candidates "$TMP/cands" \
	--scope 'src/backend/utils/*.c' 2>&1)
like "tune: plugin = off when PGOPT_PREFIX runs distcc" "$out" 'plugin = off'
out=$("$B/bin/pgbuild" tune --dry-run --candidates "$TMP/cands" --scope 'src/backend/utils/*.c' 2>&1)
nok "... and not otherwise" grep -q 'plugin = off' <<<"$out"

kill $DPID
wait $DPID 2>/dev/null
ok "distccd stopped" sh -c "! kill -0 $DPID 2>/dev/null"
done_testing
