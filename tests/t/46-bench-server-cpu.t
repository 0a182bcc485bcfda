#!/bin/bash
# 46-bench-server-cpu.t - server CPU per transaction of `pgbuild bench` on a
# real private cluster (Debian's PostgreSQL 15):
#   - present in the summary and the JSON, positive, and plausible: below
#     the wall time per transaction times the number of server processes
#     (no process can use more than the wall time), and above 1 us (a
#     transaction costs the server far more);
#   - counted over the timed run only: with a warm-up, still positive;
#   - --cpus 0-1 pins the client threads and the server to different CPUs
#     (checked on the live server's processes through /proc), and says so;
#     --cpus 0 says they could not be separated.
# Runs under the machine-wide heavy lock.
# tap: alone (it times something: make check runs it by itself, tests/tests.mk)
. "$(dirname "$0")/../lib/tap.sh"
PG=/usr/lib/postgresql/15
[ -x $PG/bin/postgres ] || skip_all "Debian's postgresql-15 is not installed ($PG)"
. "$(dirname "$0")/../lib/heavy.sh"
json() { # FILE PERL-EXPRESSION-ON-$d
	perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; my $d = decode_json(<$f>);
		my $r = eval $ARGV[1]; die $@ if $@; print defined $r ? $r : "undef"' "$1" "$2"
}
chmod 755 "$TMP"

for w in select-only tpcb; do
	heavy "$B/bin/pgbuild" bench --install $PG -W $w -c 2 -T 2 --json "$TMP/$w.json" >"$TMP/$w.out" 2>&1
	is "$w: bench ran" "$?" 0
	like "$w: the summary shows server CPU per transaction" "$(cat "$TMP/$w.out")" \
		'^server CPU: [0-9.]+ us per transaction \([0-9.]+ s user\+system, postmaster and [0-9]+ other processes\)'
	is "$w: json: positive" "$(json "$TMP/$w.json" '$d->{server_cpu}{us_per_tx} > 0 ? "yes" : "no"')" yes
	is "$w: json: below wall time per transaction x server processes" \
		"$(json "$TMP/$w.json" 'my $c = $d->{server_cpu}; my $wall = $d->{elapsed_s} * 1e6 / $d->{transactions}; $c->{us_per_tx} < $wall * $c->{processes} ? "yes" : "$c->{us_per_tx} >= $wall x $c->{processes}"')" yes
	is "$w: json: above 1 us" "$(json "$TMP/$w.json" '$d->{server_cpu}{us_per_tx} > 1 ? "yes" : "no"')" yes
	is "$w: json: total = per transaction x transactions" \
		"$(json "$TMP/$w.json" 'my $c = $d->{server_cpu}; abs($c->{us_per_tx} * $d->{transactions} / 1e6 - $c->{s}) < 1e-6 ? "yes" : "no"')" yes
	like "$w: json: the method" "$(json "$TMP/$w.json" '$d->{server_cpu}{method}')" 'postmaster and its children'
	like "$w: json: postmaster + backends + auxiliary processes" "$(json "$TMP/$w.json" '$d->{server_cpu}{processes}')" '^([4-9]|[1-9][0-9])$'
done

heavy "$B/bin/pgbuild" bench --install $PG -W select-only -c 2 -T 1 --warmup 1 --json "$TMP/warm.json" >"$TMP/warm.out" 2>&1
is "with a warm-up: bench ran" "$?" 0
is "with a warm-up: server CPU per transaction positive" "$(json "$TMP/warm.json" '$d->{server_cpu}{us_per_tx} > 0 ? "yes" : "no"')" yes

# --cpus: the live server's processes are pinned (read from /proc while it runs)
pinned_run() { # CPUS OUT: bench in the background, the server's allowed CPUs
	local cpus=$1 out=$2 pid pm="" i
	mkdir -p "$TMP/tmpd" && chmod 755 "$TMP/tmpd"
	TMPDIR=$TMP/tmpd "$B/bin/pgbuild" bench --install $PG -W select-only -c 2 -T 4 --cpus "$cpus" \
		--json "$out.json" >"$out.out" 2>&1 &
	pid=$!
	# the postmaster once the clients' backends exist (5 auxiliary processes,
	# the control connection and 2 clients): pinning is done by then
	for i in $(seq 1 150); do
		for p in $(pgrep -f -- "-D $TMP/tmpd/"); do
			[ "$(cat "/proc/$p/comm" 2>/dev/null)" = postgres ] || continue
			[ "$(pgrep -P "$p" | wc -l)" -ge 8 ] && pm=$p
		done
		[ -n "$pm" ] && break
		sleep 0.1
	done
	[ -n "$pm" ] && for p in $pm $(pgrep -P "$pm"); do
		awk '/Cpus_allowed_list/ { print $2 }' "/proc/$p/status" 2>/dev/null
	done | sort -u >"$out.server"
	awk '/Cpus_allowed_list/ { print $2 }' "/proc/$pid/status" >"$out.client" 2>/dev/null
	wait $pid
}
if [ "$(nproc)" -ge 2 ]; then
	heavy pinned_run 0-1 "$TMP/pin"
	like "--cpus 0-1: says where each runs" "$(cat "$TMP/pin.out")" '^pinning: client threads on CPU 1, server on CPU 0$'
	is "--cpus 0-1: json environment.pinning" "$(json "$TMP/pin.json" '$d->{environment}{pinning}')" "client threads on CPU 1, server on CPU 0"
	is "--cpus 0-1: every server process is on CPU 0" "$(cat "$TMP/pin.server")" 0
	is "--cpus 0-1: the client is on CPU 1" "$(cat "$TMP/pin.client")" 1
	is "--cpus 0-1: server CPU still measured" "$(json "$TMP/pin.json" '$d->{server_cpu}{us_per_tx} > 0 ? "yes" : "no"')" yes
else
	skip "one CPU: client and server cannot be pinned apart" 5
fi
heavy "$B/bin/pgbuild" bench --install $PG -W select1 -c 1 -T 1 --cpus 0 --json "$TMP/one.json" >"$TMP/one.out" 2>&1
is "--cpus 0: bench ran" "$?" 0
like "--cpus 0: says they could not be separated" "$(cat "$TMP/one.out")" '^pinning: client and server share CPU 0: --cpus gives one CPU, so they could not be separated'
done_testing
