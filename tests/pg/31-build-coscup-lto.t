#!/bin/bash
# 31-build-coscup-lto.t - the candidate: tests/pg/candidate.policy, the
# flags of examples/coscup-2017.policy (-O2 -finline-functions, LTO across
# objects) plus bolt = ready and a hot list, from the same source.  The hot
# list reached the plugin through LTO: its functions are marked hot and in
# .text.hot in the installed postgres.
# Every link ran with -flto, and the link-time records are in postgres, in
# psql and in a contrib module.
# pgbuild verify proves every object of postgres carries exactly the
# policy's flags (from pgopt.so's records, which survive LTO) and fails on a
# tampered expectation; contrib modules load into the LTO postgres
# (pg_stat_statements preloaded and working); the contrib regression suites
# pass (its core suite runs in 51-run, through pgbuild run).
. "$(dirname "$0")/lib.sh"
P=$B/bin/pgbuild
POLICY=$E2E_CANDIDATE_POLICY

cand=$(e2e_build coscup "$POLICY")
ok "candidate built and installed" test -x "$cand/bin/postgres"
R=$cand/pgopt-build.json
json() { perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); for (split /\./, $ARGV[0]) {
	$j = ref $j eq "ARRAY" ? $j->[$_] : $j->{$_} } print $j // "null"' "$1" < "$R"; }
is "record: the policy" "$(json policy.path)" "$POLICY"
is "record: LTO on (slim, as candidate.policy asks)" "$(json policy.lto)" slim
ok "objects were compiled with -flto" \
	grep -q '"argv_out":\[[^]]*"-flto' "$(e2e_builddir coscup)/pgopt-log/compile.jsonl"
# every link (postgres, libraries, client programs, contrib modules) ran
# with -flto: the latest link of each output in the compile log
links=$(perl -MJSON::PP -ne '
	my $r = eval { decode_json($_) } or next;
	next unless ($r->{kind} // "") eq "link" && $r->{output} && ($r->{exit} // 1) == 0;
	my $o = $r->{output} =~ m{^/} ? $r->{output} : "$r->{cwd}/$r->{output}";
	$lto{$o} = (grep { /^-flto(=|$)/ } @{$r->{argv_out}}) ? 1 : 0;
	END { my @no = sort grep { !$lto{$_} } keys %lto;
		print scalar(keys %lto), " ", scalar(@no), (@no ? " e.g. $no[0]" : ""), "\n" }' \
	"$(e2e_builddir coscup)/pgopt-log/compile.jsonl")
like "the compile log has many links" "$links" '^[0-9]{2,} '
like "... and every one of them ran with -flto" "$links" '^[0-9]+ 0$'
diag "links (total, without -flto): $links"

# link-time records (pgopt.so in the LTO link) in a client program and in a
# contrib module, not only in postgres
ltrans_units() { "$P" inspect --json - "$1" | perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>);
	print scalar grep { ($_->{stage} // "") =~ /^(ltrans|wpa|lto)$/ } @{$j->{units}}'; }
like "inspect: bin/psql holds link-time (LTO) records" "$(ltrans_units "$cand/bin/psql")" '^[1-9][0-9]*$'
so=$(find "$cand/lib" -name hstore.so | head -1)
ok "contrib's hstore.so is installed" test -n "$so"
like "inspect: hstore.so holds link-time (LTO) records" "$(ltrans_units "$so")" '^[1-9][0-9]*$'

out=$("$P" verify --install "$cand" 2>&1)
is "verify passes on the candidate" "$?" 0
like "verify checked the objects of postgres" "$out" 'verify: OK: [0-9]{3,} objects of postgres'
like "verify saw the link-time records" "$out" '[1-9][0-9]* link-time \(LTO\) records'
diag "$(printf '%s\n' "$out" | tail -1)"

# (its hot list made absolute: the copy lives in another directory)
sed -e 's/-finline-functions/-finline-small-functions/' -e "s|^hot = |hot = $(dirname "$POLICY")/|" "$POLICY" > "$TMP/tampered.policy"
out=$("$P" verify --install "$cand" --policy "$TMP/tampered.policy" 2>&1)
is "verify fails on a tampered expectation" "$?" 1
like "... naming the flag the binary lacks" "$out" 'MISSING +src/backend/[^ ]+: -finline-small-functions'
like "... and the flag it has extra" "$out" 'EXTRA +src/backend/[^ ]+: -finline-functions'
out=$("$P" verify --install "$cand" --policy none 2>&1)
is "verify against policy none fails too" "$?" 1

# the hot list (tests/pg/candidate-hot.txt) in the LTO binary
for f in hash_search_with_hash_value AllocSetAlloc; do
	j=$("$P" inspect --json - --function "$f" "$cand/bin/postgres" 2>&1)
	like "hot list: $f marked hot by the plugin" "$j" '"marked":"hot"'
	like "... and GCC placed it in .text.hot" "$j" '"section":".text.hot'
done
nok "... a function not in the list is not marked" sh -c \
	"'$P' inspect --json - --function _bt_compare '$cand/bin/postgres' | grep -q '\"marked\":'"

base=$(e2e_build base none)
out=$("$P" verify --install "$cand" --baseline "$base" 2>&1)
is "verify --baseline passes" "$?" 0
like "size diff: total text" "$out" 'size: text [0-9]+ -> [0-9]+ bytes'
like "size diff: top growth" "$out" 'size: top growth:'
diag "$(printf '%s\n' "$out" | grep '^size: text')"

# contrib in the LTO build: a preloaded module and a plain one
ok "server of the LTO build starts with pg_stat_statements preloaded" \
	e2e_server_start "$cand" "shared_preload_libraries = 'pg_stat_statements'"
ok "CREATE EXTENSION pg_stat_statements" e2e_psql "$cand" "CREATE EXTENSION pg_stat_statements"
e2e_psql "$cand" "SELECT 42" >/dev/null
is "pg_stat_statements records statements" \
	"$(e2e_psql "$cand" "SELECT count(*) > 0 FROM pg_stat_statements WHERE query = 'SELECT \$1'")" t
ok "CREATE EXTENSION hstore" e2e_psql "$cand" "CREATE EXTENSION hstore"
is "hstore works" "$(e2e_psql "$cand" "SELECT 'a=>1,b=>2'::hstore -> 'b'")" 2
e2e_server_stop

out=$(e2e_heavy "$P" regress --builddir "$(e2e_builddir coscup)" --contrib --no-core 2>&1)
is "contrib regression suites pass on the LTO candidate" "$?" 0
is "the core suite was not run" "$(printf '%s\n' "$out" | grep -c '^core: [0-9]')" 0
like "summary: all contrib tests passed" "$out" 'contrib: ([0-9]{2,}) tests, \1 passed, 0 failed \([0-9]+ suites\)'
diag "$(printf '%s\n' "$out" | grep -E '^(core|regress):')"
done_testing
