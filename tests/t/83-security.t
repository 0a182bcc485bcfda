#!/bin/bash
# 83-security.t - the temporary cluster listens on a unix socket in a 0700
# directory and on no TCP port, holds no descriptor of ours and (as root)
# none of root's environment; logs are never world-writable, whatever the
# umask; flags from a policy and from @files never pass through a shell; a
# policy cannot make the compiler run planted code or write what it should
# not (-B, -fplugin=, -E: refused at load, the planted programs never run).
# (Odd file names and -D values on the command line: 10-wrapper-compile.t.)
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/bench.sh"
P=$B/bin/pgbuild
W=$B/bin/pgoptcc
cd "$TMP" || exit 1

# --- the private cluster: 0700 socket directory, no TCP; as root, none of
# root's environment and no descriptor of ours but 0-2 in the server ---
printf 'root only\n' > fd7.secret
chmod 600 fd7.secret
PGOPT_SECRET_TOKEN=tok-$$ "$P" bench --install "$PGPREFIX" -q --set fsync=off -W select1 -c 1 -T 6 \
	>/dev/null 2>bench.err 7<fd7.secret &
bp=$!
pm=
for _ in $(seq 100); do
	sleep 0.2
	pm=$(pgrep -f "postgres -D $TMPDIR/pgbuild-" | head -1)
	[ -n "$pm" ] && [ -n "$(pgrep -P "$pm" -f 'postgres: postgres postgres')" ] && break
done
dir=$(ls -d "$TMPDIR"/pgbuild-* | head -1)
is "cluster directory is 0700" "$(stat -c %a "$dir")" 700
is "cluster directory belongs to the server user" "$(stat -c %U "$dir")" "$([ "$(id -u)" = 0 ] && echo "$SRV_USER" || id -un)"
sock=$(ss -xlpn 2>/dev/null | grep "pid=$pm," | awk '{print $5}')
like "the server's unix socket is in that directory" "$sock" "^$dir/\\.s\\.PGSQL\\.[0-9]+\$"
is "the server listens on no TCP port" "$(ss -ltnpH 2>/dev/null | grep -c "pid=$pm,")" 0
is "the server listens on no UDP port" "$(ss -lunpH 2>/dev/null | grep -c "pid=$pm,")" 0
like "listen_addresses is empty" "$(tr '\0' ' ' < /proc/$pm/cmdline)" "listen_addresses="
is "the server holds no descriptor of ours (fd 7 on a root-only file)" \
	"$(for f in /proc/"$pm"/fd/*; do readlink "$f"; done | grep -c fd7.secret)" 0
if [ "$(id -u)" = 0 ]; then
	is "the server (as $SRV_USER) has none of root's environment" \
		"$(tr '\0' '\n' < /proc/"$pm"/environ | grep -c PGOPT_SECRET_TOKEN)" 0
else
	skip "not root: the server runs as ourselves, with our environment"
fi
wait $bp
is "bench ran fine" "$?" 0

# --- log files are not world-writable, even with umask 000 ---
printf 'int f(int x) { return x * 2; }\n' > a.c
printf '[global]\ncflags += -O3\n' > p.policy
( umask 000; PGOPT_PLUGIN= PGOPT_POLICY=$TMP/p.policy PGOPT_LOGDIR=$TMP/log/sub "$W" -c a.c -o a.o )
ok "umask 000: compiled" test -s a.o
ok "umask 000: a function sidecar was written" test -s log/sub/functions/a.c.jsonl
is "umask 000: nothing in the log tree is world-writable" \
	"$(find log -perm -o+w -printf '%m %p\n')" ""

# --- policy flags and @file contents reach gcc as argv words, no shell ---
# (-D is no optimization option: a policy may hold one only when the caller
# sets PGOPT_UNCHECKED_FLAGS=1, which is how this check gets one through)
printf '#define STR(x) #x\n#define XSTR(x) STR(x)\n_Static_assert(sizeof(XSTR(Q)) == sizeof("a b;$(touch PWNED)`touch PWNED2`"), "Q");\nint g;\n' > q.c
cat > q.policy <<'POL'
[global]
cflags += "-DQ=a b;$(touch PWNED)`touch PWNED2`" '-DR=x;y'
POL
PGOPT_PLUGIN= PGOPT_POLICY=$TMP/q.policy "$W" -c q.c -o q.o 2> q.err; s=$?
is "a -D in a policy: refused (101) without the caller's switch" "$s" 101
export PGOPT_UNCHECKED_FLAGS=1
PGOPT_PLUGIN= PGOPT_POLICY=$TMP/q.policy "$W" -c q.c -o q.o 2> q.err
ok "policy flag with spaces, \$() and backquotes arrives as one word" test -s q.o
printf '%s\n' "'-DQ=a b;\$(touch PWNED)\`touch PWNED2\`'" '-c q.c -o rsp.o' > q.rsp
PGOPT_PLUGIN= PGOPT_POLICY=$TMP/p.policy "$W" @q.rsp 2> rsp.err
ok "@file word with spaces and \$() arrives as one word" test -s rsp.o
PGOPT_PLUGIN= PGOPT_PREFIX="env" PGOPT_POLICY=$TMP/q.policy "$W" -c q.c -o qp.o 2> qp.err
ok "with a PGOPT_PREFIX too" test -s qp.o
is "no command substitution ran" "$(ls PWNED* 2>/dev/null)" ""
unset PGOPT_UNCHECKED_FLAGS

# --- a policy cannot run planted code or write what it should not ---
# a planted assembler (-B) and a planted plugin (-fplugin=): refused at
# load, neither ever runs (as root they ran)
mkdir -p planted
printf '#!/bin/sh\ntouch %s/RAN-AS\nexec as "$@"\n' "$TMP" > planted/as
chmod 755 planted/as
gcc -shared -fPIC -o planted/evil.so -x c - <<'C'
#include <stdio.h>
int plugin_is_GPL_compatible;
__attribute__((constructor)) static void ran(void) { FILE *f = fopen("RAN-PLUGIN", "w"); if (f) fclose(f); }
int plugin_init(void *a, void *b) { (void)a; (void)b; return 0; }
C
printf '[global]\ncflags += -B%s/planted/\n' "$TMP" > b.policy
PGOPT_POLICY=$TMP/b.policy "$W" -c a.c -o b.o 2> err; s=$?
is "-B in a policy: exit 101" "$s" 101
like "... loads code, says why" "$(cat err)" "b.policy:2: cannot add -B$TMP/planted/: it loads code"
ok "... the planted assembler never ran" test ! -e RAN-AS
ok "... no object" test ! -e b.o
if [ -s planted/evil.so ]; then
	printf '[global]\ncflags += -fplugin=%s/planted/evil.so\n' "$TMP" > pl.policy
	PGOPT_POLICY=$TMP/pl.policy "$W" -c a.c -o pl.o 2> err; s=$?
	is "-fplugin= in a policy: exit 101" "$s" 101
	like "... a GCC plugin, says why" "$(cat err)" "pl.policy:2: cannot add -fplugin=$TMP/planted/evil.so: it loads code \(a GCC plugin\)"
	ok "... the planted plugin never ran" test ! -e RAN-PLUGIN
else
	# gcc builds shared objects on every machine this runs on: a failure
	tap_result 1 "build the planted plugin (gcc -shared failed)"
fi
# -E put C source into a .o and exited 0
printf '[global]\ncflags += -E\n' > e.policy
PGOPT_POLICY=$TMP/e.policy "$W" -c a.c -o e.o 2> err; s=$?
is "-E in a policy: exit 101, no object of preprocessed source" "$s" 101
ok "... no e.o" test ! -e e.o
done_testing
