# tests/lib/bench.sh - helpers for the bench suites (tests/t/4*.t): a
# PostgreSQL server the test starts itself, for --connect (like
# PostgreSQL::Test::Cluster: private socket directory, no TCP, fsync off).
#
#   PGBIN                 Debian's PostgreSQL 15 binaries (skip_all without)
#   as_server CMD...      run CMD as the server user when we are root
#   srv_start DIR         initdb + start in DIR (socket in DIR); sets SRV
#   srv_stop DIR          immediate shutdown
#   srv_psql SQL          psql -Atq against SRV
PGPREFIX=${PGOPT_TEST_PGPREFIX:-/usr/lib/postgresql/15}
PGBIN=$PGPREFIX/bin
[ -x "$PGBIN/initdb" ] && [ -x "$PGBIN/postgres" ] || skip_all "no PostgreSQL in $PGPREFIX"
SRV_USER=${PGBUILD_SERVER_USER:-postgres}
# the private clusters of pgbuild bench go under $TMP, so we can look for leftovers
export TMPDIR=$TMP

as_server() {
	if [ "$(id -u)" = 0 ]; then runuser -u "$SRV_USER" -- "$@"; else "$@"; fi
}

srv_start() {
	mkdir -p "$1"
	[ "$(id -u)" = 0 ] && chown "$SRV_USER" "$1"
	chmod 700 "$1"
	as_server "$PGBIN/initdb" -D "$1/data" -U postgres -A trust -N >"$1/initdb.log" 2>&1 || return 1
	as_server "$PGBIN/pg_ctl" -D "$1/data" -l "$1/server.log" -w -o \
		"-c listen_addresses='' -c unix_socket_directories=$1 -c port=5433 -c fsync=off -c autovacuum=off" \
		start >/dev/null || return 1
	SRV="host=$1 port=5433 user=postgres dbname=postgres"
}

srv_stop() {
	as_server "$PGBIN/pg_ctl" -D "$1/data" -m immediate -w stop >/dev/null 2>&1
}

srv_psql() {
	"$PGBIN/psql" -X -Atq -d "$SRV" -c "$1"
}

# JSON access with perl's core JSON::PP: json_get FILE EXPR, where EXPR is a
# Perl expression on $d, e.g. json_get r.json '$d->{latency_ms}{p99}'.
# Booleans print as 1/0, null as "null".
json_get() {
	perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die "$ARGV[0]: $!";
		my $d = decode_json(<$f>); my $v = eval $ARGV[1]; die $@ if $@;
		print defined $v ? (ref $v eq "JSON::PP::Boolean" ? ($v ? 1 : 0) : $v) : "null", "\n"' "$1" "$2"
}

# pids_alive PID...: how many of these processes still live (zombies
# reparented to a non-reaping pid 1 in containers do not count).
pids_alive() {
	local p s
	for p in "$@"; do
		s=$(ps -o stat= -p "$p" 2>/dev/null)
		[ -n "$s" ] && [ "${s#Z}" = "$s" ] && echo "$p"
	done | wc -l
}
