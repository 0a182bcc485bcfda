# tests/lib/heavy.sh - the machine-wide heavy-job lock for the test suites.
#
# Source it, then:
#   heavy CMD...   run CMD (a program or a shell function) holding the lock,
#                  unless it is held already: PGOPT_HEAVY_HELD=1 says a caller
#                  holds it, or this process or an ancestor does (a whole
#                  suite run as `flock /tmp/pgopt-heavy.lock make check`).
#                  CMD sees PGOPT_HEAVY_HELD=1 either way it takes it.
#   heavy_held     exit 0 when the lock is held already (as above).
#
# The lock is $HEAVY_LOCK (default: $E2E_HEAVY_LOCK, else
# /tmp/pgopt-heavy.lock); the rules are those of tests/pg/lib.sh's e2e_heavy.
HEAVY_LOCK=${HEAVY_LOCK:-${E2E_HEAVY_LOCK:-/tmp/pgopt-heavy.lock}}

heavy_held() {
	local ino holders pid h
	[ "${PGOPT_HEAVY_HELD:-0}" = 1 ] && return 0
	[ -e "$HEAVY_LOCK" ] || return 1
	ino=$(stat -c %i "$HEAVY_LOCK" 2>/dev/null) || return 1
	# flock holders of that inode (not the "->" lines of waiters)
	holders=$(awk -v ino="$ino" '$2 == "FLOCK" && $0 !~ /->/ {
		split($6, f, ":"); if (f[3] == ino) print $5 }' /proc/locks)
	[ -n "$holders" ] || return 1
	pid=$$
	while [ -n "$pid" ] && [ "$pid" -gt 1 ]; do
		for h in $holders; do [ "$h" = "$pid" ] && return 0; done
		pid=$(awk '{ print $4 }' "/proc/$pid/stat" 2>/dev/null)
	done
	return 1
}

heavy() {
	if heavy_held; then
		"$@"
	else
		# flock in a subshell (not `flock FILE CMD`): CMD may be a function
		(
			flock 8 || exit
			export PGOPT_HEAVY_HELD=1
			"$@"
		) 8>"$HEAVY_LOCK"
	fi
}
