#!/bin/bash
# 57-gate-noise-floor.t - `pgbuild gate --noise`: a deterministic metric
# decided at max(repeat resolution, 3 x the baseline's layout SD), on real
# servers.  The baseline is a copy of Debian's PostgreSQL 15 install whose
# postgresql.conf.sample logs every statement (log_statement = all), so its
# server runs more instructions per transaction than the candidate, Debian's
# own install: a real gain, counted by callgrind (--metric instructions,
# select1 at a small N).  The floor is a pgopt-noise.json written by the
# test for the baseline's postgres (its real sha256; `pgbuild noise` relinks
# a build tree, which the fast tier does not have), its SD chosen so that
# 3 SDs are 1.5 times the gain measured:
#   - a floor of another postgres in the baseline prefix is not used: a
#     note on stderr, the repeat resolution (0.01%), "mismatch" in the
#     result, and the claim instructions>=1.001 passes;
#   - the baseline's own floor is found by default and the same gain, inside
#     3 SDs, does not pass the same claim: the result carries the
#     resolution 3 x SD and its source, in the JSON, the message, the JUnit
#     failure; the report reads the JSON back to the same verdict;
#   - --noise none: the repeat resolution again, and the claim passes;
#   - a named floor of another binary and a malformed one are errors (exit
#     2) naming the file and what was expected, before anything is measured.
# Runs under the machine-wide heavy lock.
. "$(dirname "$0")/../lib/tap.sh"
PG=/usr/lib/postgresql/15
[ -x $PG/bin/postgres ] || skip_all "Debian's postgresql-15 is not installed ($PG)"
[ -d /usr/share/postgresql/15 ] || skip_all "Debian's postgresql-15 has no /usr/share/postgresql/15"
command -v valgrind >/dev/null || skip_all "valgrind is not installed (make deps): instructions are counted by callgrind"
. "$(dirname "$0")/../lib/heavy.sh"
json() { # FILE PERL-EXPRESSION-ON-$d
	perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; my $d = decode_json(<$f>);
		my $r = eval $ARGV[1]; die $@ if $@; print defined $r ? $r : "undef"' "$1" "$2"
}
chmod 755 "$TMP"

# the baseline: Debian's install mirrored below $TMP/root (PostgreSQL finds
# its share directory relative to its binary), its sample configuration
# logging every statement
R=$TMP/root
mkdir -p $R/usr/lib/postgresql/15 $R/usr/share/postgresql
cp -a $PG/bin $R/usr/lib/postgresql/15/
ln -s $PG/lib $R/usr/lib/postgresql/15/lib
cp -a /usr/share/postgresql/15 $R/usr/share/postgresql/
echo "log_statement = 'all'" >>$R/usr/share/postgresql/15/postgresql.conf.sample
chmod -R a+rX $R
BASE=$R/usr/lib/postgresql/15
SHA=$(sha256sum $BASE/bin/postgres | cut -d' ' -f1)
OTHER=$(printf 'a%.0s' $(seq 64))

floor() { # FILE SHA SD_PCT: a pgbuild noise document of 5 variants
	printf '{"postgres_sha256":"%s","variants":[{},{},{},{},{}],"workloads":{"select1":{"instructions":{"mean":40000,"sd":1,"sd_pct":%s}}}}\n' \
		"$2" "$3" >"$1"
}
gate() { # NAME ARGS...: the gate of B against A on select1's instructions
	local n=$1; shift
	heavy "$B/bin/pgbuild" gate --baseline $BASE --candidate $PG --metric instructions -W select1 \
		--instr-statements 40 --gate 'select1.instructions>=1.001' --workdir "$TMP/w-$n" \
		--json "$TMP/$n.json" --junit "$TMP/$n.xml" "$@" >"$TMP/$n.out" 2>"$TMP/$n.err"
}
res() { json "$TMP/$1.json" '$d->{results}[0]{'"$2"'}'; }

# ---- a floor of another postgres in the baseline: not used ----
floor $BASE/pgopt-noise.json $OTHER 5
gate mismatch
rc=$?
is "a floor of another binary: the repeat resolution, the claim passes (exit 0)" "$rc" 0
[ $rc = 0 ] || diag "$(cat "$TMP/mismatch.out" "$TMP/mismatch.err")"
like "a note on stderr says why" "$(cat "$TMP/mismatch.err")" \
	"^pgbuild: note: no layout floor: $BASE/pgopt-noise.json was measured on another postgres \(sha256 aaaaaaaaaaaa\.\.\.\), not $BASE/bin/postgres \(sha256 ${SHA:0:12}\.\.\.\); the repeat resolution is used$"
is "json: the floor's state is mismatch" "$(json "$TMP/mismatch.json" '$d->{noise_floor}{state}')" mismatch
is "json: the result's resolution is the repeat one" "$(res mismatch resolution)" 0.0001
is "json: ... and says so" "$(res mismatch resolution_source)" "repeat 0.01%"
gain=$(json "$TMP/mismatch.json" '$d->{workloads}[0]{instructions}{speedup} - 1')
ok "the baseline's logging costs instructions: a gain above 0.11% ($gain)" \
	perl -e "exit !($gain > 0.0011)"

# ---- the baseline's own floor, found by default: the gain is inside 3 SDs ----
sd_pct=$(perl -e "printf '%.6f', 100 * $gain / 2")
floor $BASE/pgopt-noise.json $SHA $sd_pct
gate own
rc=$?
is "the same gain inside 3 layout SDs does not pass the claim (exit 1)" "$rc" 1
[ $rc = 1 ] || diag "$(cat "$TMP/own.out" "$TMP/own.err")"
is "json: the floor is used" "$(json "$TMP/own.json" '$d->{noise_floor}{state}')" used
is "json: the result's resolution is 3 x SD" \
	"$(json "$TMP/own.json" 'abs($d->{results}[0]{resolution} - 3 * '"$sd_pct"' / 100) < 1e-12 ? "3 x SD" : $d->{results}[0]{resolution}')" "3 x SD"
sd_shown=$(perl -e "printf '%.3f', $sd_pct")
is "json: its source names the rule, the SD, the variants and the file" "$(res own resolution_source)" \
	"layout floor: 3 x SD $sd_shown% over 5 variants, $BASE/pgopt-noise.json"
is "json: the workload's instructions carry it, and the repeat one" \
	"$(json "$TMP/own.json" 'my $i = $d->{workloads}[0]{instructions}; "$i->{resolution_source} / $i->{repeat_resolution}"')" \
	"layout floor: 3 x SD $sd_shown% over 5 variants, $BASE/pgopt-noise.json / 0.0001"
like "the message gives the resolution and its source" "$(res own message)" \
	"lower end [0-9.]+ < 1.001 \(a claim passes when its lower end reaches it, at the [0-9.]+% resolution: layout floor: 3 x SD $sd_shown% over 5 variants"
is "terminal: which floor decided" "$(grep 'resolution of instructions and cycles' "$TMP/own.out")" \
	"  resolution of instructions and cycles: layout floor $BASE/pgopt-noise.json (5 variants of $BASE/bin/postgres)"
like "junit: the failure says it" "$(grep -A1 '<failure' "$TMP/own.xml")" "resolution: layout floor: 3 x SD"
res3=$(perl -e "printf '%.2f', 3 * $sd_pct")
like "terminal: the instructions line gives what its A/B is decided at" "$(cat "$TMP/own.out")" \
	"A/B decided at \\+-$res3%: layout floor: 3 x SD $sd_shown% over 5 variants, $BASE/pgopt-noise.json"
"$B/bin/pgbuild" report --gate "$TMP/own.json" >"$TMP/report.out" 2>&1
like "report: reads it back to the same verdict, at the same resolution" "$(cat "$TMP/report.out")" \
	"FAIL +select1.instructions>=1.001 .*at the [0-9.]+% resolution: layout floor: 3 x SD $sd_shown%"

# ---- --noise none: the repeat resolution, the claim passes ----
gate none --noise none
rc=$?
is "--noise none: the same gain passes the claim (exit 0)" "$rc" 0
[ $rc = 0 ] || diag "$(cat "$TMP/none.out" "$TMP/none.err")"
like "terminal: --noise none says so" "$(cat "$TMP/none.out")" \
	"resolution of instructions and cycles: no layout floor \(--noise none\): the repeat resolution is used"
is "json: the floor's state is none" "$(json "$TMP/none.json" '$d->{noise_floor}{state}')" none
is "json: the repeat resolution" "$(res none resolution)" 0.0001
like "terminal: ... decided at the repeat one" "$(cat "$TMP/none.out")" "A/B decided at \\+-0\\.01%: repeat 0\\.01%"
is "json: ... and says so" "$(res none resolution_source)" "repeat 0.01%"

# ---- named floors that cannot be used: errors before measuring ----
floor "$TMP/other.json" $OTHER 1
"$B/bin/pgbuild" gate --baseline $BASE --candidate $PG --metric instructions -W select1 \
	--noise "$TMP/other.json" >"$TMP/named.out" 2>&1
is "a named floor of another binary: exit 2" "$?" 2
like "... naming the file and both binaries" "$(cat "$TMP/named.out")" \
	"^pgbuild: error: --noise $TMP/other.json: $TMP/other.json was measured on another postgres \(sha256 aaaaaaaaaaaa\.\.\.\), not $BASE/bin/postgres"
printf '{"postgres_sha256":"%s","variants":[{},{}],"workloads":{"select1":{"instructions":{"sd":1}}}}\n' $SHA >"$TMP/bad.json"
"$B/bin/pgbuild" gate --baseline $BASE --candidate $PG --metric instructions -W select1 \
	--workdir "$TMP/w-bad" --noise "$TMP/bad.json" >"$TMP/bad.out" 2>&1
is "a malformed floor: exit 2" "$?" 2
like "... naming the file and what was expected" "$(cat "$TMP/bad.out")" \
	"^pgbuild: error: $TMP/bad.json: workloads.select1.instructions: expected an object with \"sd_pct\", a number >= 0"
ok "nothing was measured" test ! -e "$TMP/w-bad"
done_testing
