#!/bin/bash
# 82-bench-faults.t - faults injected while pgbuild bench runs on its private
# cluster: a backend killed with SIGKILL, the postmaster killed, the server
# stopped (SIGSTOP) for longer than --statement-timeout, the cluster's disk
# (and so its log) full, an unwritable socket directory, Ctrl-C to the whole
# process group.  Each must give a clear error, a non-zero exit within
# seconds, no server process and no directory left, and --json FILE
# replaced (atomically) by a result marked invalid with the exit code and
# the error: every case pre-seeds FILE with a stale valid result.  A run
# cut short reports the time it ran (a postmaster killed 1-2 s into -T 30:
# elapsed_s well below 30, tps = transactions / elapsed_s), and a run in which
# no transaction completed (-T 0.0001) is invalid, exit 2.  A server that
# cannot start (a bad setting) gives its reason; a --set that would move the
# socket out of the private directory is refused before anything starts.
# (SIGSEGV of a backend: 42-bench-correctness.t; SIGINT/SIGTERM to pgbuild
# alone at every stage: 43-bench-signals.t.)
# tap: alone (it times something: make check runs it by itself, tests/tests.mk)
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/bench.sh"
P=$B/bin/pgbuild
cd "$TMP" || exit 1

leftover_dirs() { find "$TMPDIR" -maxdepth 1 -name 'pgbuild-*' | wc -l; }
stale='{"valid":true,"tps":1,"exit_code":0}'
# json_invalid TITLE FILE EXIT ERROR_REGEX: FILE replaced by an invalid result
json_invalid() {
	is "$1: JSON valid=false, exit_code $3" "$(json_get "$2" '$d->{valid} . "/" . $d->{exit_code}')" "0/$3"
	like "$1: JSON error" "$(json_get "$2" '$d->{error}')" "$4"
}

# start_bench NAME ARGS...: bench in its own process group (as from a
# shell); waits until the clients' backends run, sets bp, pm and procs.
start_bench() {
	local name=$1; shift
	echo "$stale" >"$TMP/$name.json"
	setsid "$P" bench --install "$PGPREFIX" -q --set fsync=off -c 2 --json "$TMP/$name.json" \
		"$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	bp=$!
	pm=
	for _ in $(seq 150); do
		sleep 0.2
		pm=$(pgrep -f "postgres -D $TMPDIR/pgbuild-" | head -1)
		[ -n "$pm" ] && [ "$(pgrep -P "$pm" -f 'postgres: postgres postgres' | wc -l)" -ge 2 ] && break
	done
	sleep 1
	procs="$pm $(pgrep -P "$pm" | tr '\n' ' ')"
	t0=$(date +%s)
}
# finish NAME WANT_RC MAX_SECONDS ERR_REGEX|interrupted [JSON_ERROR_REGEX]
finish() {
	local name=$1 want=$2 max=$3 re=$4 rc el
	wait "$bp"; rc=$?
	el=$(( $(date +%s) - t0 ))
	is "$name: exit $want" "$rc" "$want"
	ok "$name: exit within ${max}s of the fault (took ${el}s)" test "$el" -le "$max"
	if [ "$re" = interrupted ]; then
		like "$name: one line: what was stopped (the user pressed Ctrl-C)" "$(cat "$TMP/$name.err")" \
			"^pgbuild: interrupted by SIGINT: server stopped, $TMPDIR/pgbuild-[A-Za-z0-9]+ removed\$"
	else
		like "$name: clear error" "$(grep -v '^\(WARNING\|DETAIL\|HINT\|FATAL\):' "$TMP/$name.err" | head -n 3)" "$re"
	fi
	is "$name: no server process left" "$(pids_alive $procs)" 0
	is "$name: no cluster directory left" "$(leftover_dirs)" 0
	json_invalid "$name" "$TMP/$name.json" "$want" "${5:-.}"
}

# measured: elapsed_s NAME: far below the nominal -T 30, and the tps that
# of the time the run lasted (transactions / elapsed_s, to 0.1%)
measured() {
	local j=$TMP/$1.json
	like "$1: elapsed_s is the time it ran, not -T 30 ($(json_get "$j" '$d->{elapsed_s}') s)" \
		"$(json_get "$j" '$d->{elapsed_s} > 0 && $d->{elapsed_s} < 20 ? "yes" : "no"')" '^yes$'
	is "$1: tps = transactions / elapsed_s" \
		"$(json_get "$j" 'abs($d->{tps} * $d->{elapsed_s} - $d->{transactions}) <= 0.001 * $d->{transactions} + 1 ? "yes" : "no"')" yes
}

# --- a backend killed with SIGKILL: the server restarts, clients abort ---
start_bench k9 -T 30
kill -KILL "$(pgrep -P "$pm" -f 'postgres: postgres postgres' | head -1)"
finish k9 2 10 'client [0-9] aborted' 'client|check'
like "k9: server log check names the signal" \
	"$(json_get "$TMP/k9.json" '$d->{invariants}{server_log}{detail}')" 'terminated by signal 9'
measured k9

# --- the postmaster killed: its backends exit, clients abort ---
start_bench pm -T 30
kill -KILL "$pm"
finish pm 2 10 'client [0-9] aborted'
measured pm
is "pm: no server CPU figure from a dead server" "$(json_get "$TMP/pm.json" '$d->{server_cpu}')" null
like "pm: ... and the reason" "$(json_get "$TMP/pm.json" '$d->{server_cpu_note}')" "postmaster was gone"
like "pm: the summary's duration is the time it ran" "$(grep '^duration:' "$TMP/pm.out")" '^duration: ([0-9]|1[0-9])\.[0-9]{3} s$'

# --- the server stopped longer than --statement-timeout ---
start_bench stop -T 30 --statement-timeout 2
kill -STOP $procs
( sleep 60; kill -CONT $procs 2>/dev/null ) & cont=$!
finish stop 2 15 'no answer from the server within 2 s'
is "stop: the check says why" "$(json_get "$TMP/stop.json" '$d->{invariants}{server_answers}{ok}')" 0
measured stop
kill "$cont" 2>/dev/null

# --- Ctrl-C: SIGINT to the whole foreground process group ---
start_bench ctrlc -T 30
kill -INT -- "-$bp"
finish ctrlc 130 10 interrupted '^interrupted by SIGINT$'

# --- the cluster's disk full (the server log lives there too) ---
if [ "$(id -u)" = 0 ] && mkdir -p "$TMP/tpl" "$TMP/full" &&
   "$P" bench --install "$PGPREFIX" -q -W tpcb -t 1 --set fsync=off --datadir-template "$TMP/tpl" >/dev/null 2>&1 &&
   mount -t tmpfs -o size=$(( $(du -sm "$TMP/tpl" | cut -f1) + 10 ))m tmpfs "$TMP/full"; then
	chmod 755 "$TMP/full"
	# room for the copied data directory but not for one more WAL segment
	TMPDIR=$TMP/full start_bench full -W tpcb -T 60 --datadir-template "$TMP/tpl"
	TMPDIR=$TMP/full finish full 2 40 'No space left on device|client [0-9] aborted'
	like "full: server log check quotes the PANIC" \
		"$(json_get "$TMP/full.json" '$d->{invariants}{server_log}{detail}')" 'No space left on device'
	umount "$TMP/full"
	# initdb on a full disk
	mount -t tmpfs -o size=256k tmpfs "$TMP/full" && chmod 755 "$TMP/full"
	echo "$stale" >"$TMP/tiny.json"
	TMPDIR=$TMP/full "$P" bench --install "$PGPREFIX" -q -T 2 --json "$TMP/tiny.json" 2> tiny.err; s=$?
	is "tiny disk: exit 2" "$s" 2
	like "tiny disk: says initdb failed" "$(head -n1 tiny.err)" '^pgbuild: error: initdb failed'
	is "tiny disk: nothing left" "$(ls -A "$TMP/full")" ""
	json_invalid "tiny disk" "$TMP/tiny.json" 2 '^initdb failed'
	umount "$TMP/full"
	# the --json result on a full disk: an error, not a truncated file, and
	# no old result left to pass for this run's
	mount -t tmpfs -o size=4k tmpfs "$TMP/full" && echo "$stale" >"$TMP/full/r.json" &&
		head -c 4096 /dev/zero > "$TMP/full/fill" 2>/dev/null
	"$P" bench --install "$PGPREFIX" -q -t 5 --json "$TMP/full/r.json" > /dev/null 2> jfull.err; s=$?
	is "full disk for --json: exit 2" "$s" 2
	like "full disk for --json: says so" "$(cat jfull.err)" "cannot write $TMP/full/r.json: No space left on device \(the old $TMP/full/r.json was removed\)"
	is "full disk for --json: no stale result, no temporary file" "$(ls "$TMP/full" | grep -c json)" 0
	umount "$TMP/full"
else
	ok "# SKIP full-disk cases need root and tmpfs" true
fi

# --- no socket directory can be made: read-only parent ---
if [ "$(id -u)" = 0 ] && mkdir -p "$TMP/ro" && mount -t tmpfs -o ro,size=64k tmpfs "$TMP/ro"; then
	echo "$stale" >"$TMP/ro.json"
	TMPDIR=$TMP/ro timeout 30 "$P" bench --install "$PGPREFIX" -q -T 2 --json "$TMP/ro.json" 2> ro.err; s=$?
	is "read-only socket parent: exit 2" "$s" 2
	like "read-only socket parent: one clear line" "$(cat ro.err)" "^pgbuild: error: cannot create a directory in $TMP/ro: Read-only file system$"
	json_invalid "read-only socket parent" "$TMP/ro.json" 2 "^cannot create a directory in $TMP/ro: Read-only file system\$"
	umount "$TMP/ro"
else
	ok "# SKIP read-only tmpfs needs root" true
fi
# a socket directory of our choosing would leave the private directory:
# refused before anything is made (it used to reach the server)
mkdir -p "$TMP/nosock" && chmod 755 "$TMP/nosock"
echo "$stale" >"$TMP/nosock.json"
timeout 60 "$P" bench --install "$PGPREFIX" -q -T 2 --set "unix_socket_directories=$TMP/nosock" \
	--json "$TMP/nosock.json" 2> nosock.err; s=$?
is "--set unix_socket_directories: exit 2" "$s" 2
like "--set unix_socket_directories: refused with the reason" "$(head -n 1 nosock.err)" \
	"^pgbuild: error: invalid value \"unix_socket_directories=$TMP/nosock\" for --set: unix_socket_directories opens the cluster to other users"
is "--set unix_socket_directories: nothing made, nothing started" "$(leftover_dirs)$(ls -A "$TMP/nosock")" 0
# a server that cannot start (a bad value): its reason, an invalid result
echo "$stale" >"$TMP/badset.json"
timeout 60 "$P" bench --install "$PGPREFIX" -q -T 2 --set shared_buffers=lots \
	--json "$TMP/badset.json" 2> badset.err; s=$?
is "a server that cannot start: exit 2" "$s" 2
like "a server that cannot start: the server's reason" "$(cat badset.err)" 'invalid value for parameter "shared_buffers": "lots"'
is "a server that cannot start: nothing left" "$(leftover_dirs)" 0
json_invalid "a server that cannot start" "$TMP/badset.json" 2 "exited during start-up"

# --- no transaction completed: -T 0.0001 ends before the first one ---
echo "$stale" >"$TMP/short.json"
timeout 60 "$P" bench --install "$PGPREFIX" -q --set fsync=off -W select1 -T 0.0001 \
	--json "$TMP/short.json" >short.out 2>short.err; s=$?
is "-T 0.0001: exit 2 (nothing was measured)" "$s" 2
like "-T 0.0001: result INVALID" "$(tr '\n' ' ' <short.out)" 'transactions: 0, .*result: INVALID'
like "-T 0.0001: one clear error" "$(cat short.err)" '^pgbuild: error: no transaction completed in the timed run \(0.0001 s\): nothing was measured$'
json_invalid "-T 0.0001" "$TMP/short.json" 2 '^no transaction completed in the timed run'
is "-T 0.0001: JSON transactions 0" "$(json_get "$TMP/short.json" '$d->{transactions}')" 0
is "-T 0.0001: nothing left" "$(leftover_dirs)" 0

# --- as root, a TMPDIR the server user cannot enter (root's 0700): one
# clear error up front naming it and what is needed, not initdb's EACCES ---
if [ "$(id -u)" = 0 ] && id "$SRV_USER" >/dev/null 2>&1; then
	mkdir -p "$TMP/priv" && chmod 700 "$TMP/priv"
	echo "$stale" >"$TMP/priv.json"
	TMPDIR=$TMP/priv timeout 60 "$P" bench --install "$PGPREFIX" -q -T 2 --json "$TMP/priv.json" 2> priv.err; s=$?
	is "0700 TMPDIR: exit 2" "$s" 2
	like "0700 TMPDIR: one line naming TMPDIR, the user and the fix" "$(cat priv.err)" \
		"^pgbuild: error: TMPDIR=$TMP/priv: the server user $SRV_USER \(pgbuild runs as root\) cannot enter $TMP/priv \(mode 0700, owner root\): make it searchable by $SRV_USER \(chmod o\+x $TMP/priv\) or set TMPDIR to a directory $SRV_USER can reach\$"
	is "0700 TMPDIR: nothing made in it" "$(ls -A "$TMP/priv")" ""
	json_invalid "0700 TMPDIR" "$TMP/priv.json" 2 "^TMPDIR=$TMP/priv: the server user"
	# a directory deeper down: the one it cannot enter is named
	mkdir -p "$TMP/priv/sub" && chmod 755 "$TMP/priv/sub"
	TMPDIR=$TMP/priv/sub timeout 60 "$P" bench --install "$PGPREFIX" -q -T 2 2> priv2.err; s=$?
	like "0700 parent of TMPDIR: names the parent" "$s $(cat priv2.err)" \
		"^2 pgbuild: error: TMPDIR=$TMP/priv/sub: the server user $SRV_USER \(pgbuild runs as root\) cannot enter $TMP/priv \("
else
	ok "# SKIP the server-user check needs root and user $SRV_USER" true
fi

done_testing
