#!/bin/bash
# 40-bench-pg.t - pgbuild bench on the PostgreSQL 15 this project built (the
# shared "base" build): every built-in workload runs on a private cluster of
# that install and passes its checks; the environment carries the install's
# pg_config --cflags; a data directory template is made once and reused;
# and the bench suites t/41, t/42 and t/43 (workloads, correctness checks,
# signals) pass against that install too (tests/lib/bench.sh takes its
# PostgreSQL from PGOPT_TEST_PGPREFIX).
. "$(dirname "$0")/lib.sh"
e2e_extra bench-pg "the bench suites t/41, t/42, t/43 against this project's own PostgreSQL build (they run against Debian's PostgreSQL 15 in the fast suites, and pg/50 and pg/51 bench the project's builds; about 2 min)"
P=$B/bin/pgbuild
# a failed build fails the suite: it is a result of this project, not a missing tool
prefix=$(e2e_build base none) || { tap_result 1 "the base build (tests/pg/lib.sh e2e_build)"; done_testing; }
export TMPDIR=$TMP

for wl in select-only tpcb select1 point-select tpcc-lite; do
	ok "$wl on the project's build" e2e_heavy "$P" bench --install "$prefix" -q \
		--set fsync=off -W "$wl" -c 2 -T 2 --datadir-template "$TMP/tmpl" \
		--json "$TMP/$wl.json"
	like "$wl: valid with transactions" \
		"$(perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0]; my $d = decode_json(<$f>);
			print $d->{valid} ? "valid" : "invalid", " ", $d->{transactions}' "$TMP/$wl.json")" \
		'^valid [1-9]'
done
like "pg_config --cflags of the install reported" \
	"$(perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0]; print decode_json(<$f>)->{environment}{pg_config_cflags}' "$TMP/tpcb.json")" \
	'-fno-strict-aliasing'
ok "second select-only run reuses the template" e2e_heavy "$P" bench --install "$prefix" -q \
	--set fsync=off -W select-only -t 100 --datadir-template "$TMP/tmpl" --json "$TMP/again.json"
like "template used" "$(perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0]; print decode_json(<$f>)->{environment}{dataset}' "$TMP/again.json")" \
	'from template'

# the bench suites, each a whole TAP file, on this install (under the heavy
# lock like every step here; their scratch directories go under $TMP)
for suite in 41-bench-workloads 42-bench-correctness 43-bench-signals; do
	tap_file "tests/t/$suite.t passes on the project's build" e2e_heavy \
		env PGOPT_TEST_PGPREFIX="$prefix" PGOPT_BUILD="$B" bash "$TOP/tests/t/$suite.t"
done
is "no cluster directory left behind" "$(ls "$TMP" | grep -c pgbuild-)" 0
done_testing
