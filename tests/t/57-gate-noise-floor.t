#!/bin/bash
# 57-gate-noise-floor.t - `pgbuild gate --noise`: a deterministic metric
# decided at the resolution of a comparison of two builds (noise/floor.h:
# max(repeat, 1.96 x sqrt(a^2 + b^2)), a and b the 95% chi-square upper
# bounds of the baseline's and the candidate's layout SDs, the candidate's
# own floor or its stand-in), applied as a relative error, on real
# servers.  The baseline is a copy of Debian's PostgreSQL 15 install whose
# postgresql.conf.sample logs every statement (log_statement = all), so
# its server runs more instructions per transaction than the candidate, a
# copy of Debian's own install: a real gain, counted by callgrind (--metric
# instructions, select1 at a small N).  The floors are pgopt-noise.json
# files written by the test for each prefix's postgres (its real sha256;
# `pgbuild noise` relinks a build tree, which the fast tier does not have):
#   - no floor of the baseline (one of another postgres in its prefix): the
#     threshold is undecided (exit 3), with the reason and the command that
#     measures one, a note on stderr before anything runs, "mismatch" and a
#     null resolution in the JSON, and the report reads it back undecided;
#   - --noise none: the repeat resolution (0.01%), said, and the claim
#     instructions>=1.001 is undecided (exit 3) however large the gain: a
#     claim needs a layout floor, the repeat resolution only checks a
#     bound (instructions>=1 passes there);
#   - both builds' own floors, tiny: the repeat resolution again, passes,
#     the source naming both files;
#   - the baseline's floor with an SD of half the gain: the gain is inside
#     the rule's resolution, the claim fails; the JSON's resolution is the
#     rule's, to the digit; the message, the JUnit failure and the report;
#   - the candidate without a floor: its side is the stand-in (for
#     instructions an LTO build's SD), said in the source;
#   - a named floor of another binary, over too few variants, and a
#     malformed one are errors (exit 2) naming the file and what was
#     expected, before anything is measured.
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

# Debian's install mirrored below DIR (PostgreSQL finds its share directory
# relative to its binary)
mirror() { # DIR
	mkdir -p $1/usr/lib/postgresql/15 $1/usr/share/postgresql
	cp -a $PG/bin $1/usr/lib/postgresql/15/
	ln -s $PG/lib $1/usr/lib/postgresql/15/lib
	cp -a /usr/share/postgresql/15 $1/usr/share/postgresql/
}
# the baseline logs every statement; the candidate is Debian's as it is
mirror $TMP/root
echo "log_statement = 'all'" >>$TMP/root/usr/share/postgresql/15/postgresql.conf.sample
mirror $TMP/croot
chmod -R a+rX $TMP/root $TMP/croot
BASE=$TMP/root/usr/lib/postgresql/15
CAND=$TMP/croot/usr/lib/postgresql/15
SHA=$(sha256sum $BASE/bin/postgres | cut -d' ' -f1)
OTHER=$(printf 'a%.0s' $(seq 64))

floor() { # FILE SHA SD_PCT [VARIANTS]: a pgbuild noise document
	local v='{}' i
	for ((i = 1; i < ${4:-5}; i++)); do v="$v,{}"; done
	printf '{"postgres_sha256":"%s","variants":[%s],"workloads":{"select1":{"instructions":{"mean":40000,"sd":1,"sd_pct":%s}}}}\n' \
		"$2" "$v" "$3" >"$1"
}
gate() { # NAME ARGS...: the gate of B against A on select1's instructions
	local n=$1; shift
	heavy "$B/bin/pgbuild" gate --baseline $BASE --candidate $CAND --metric instructions -W select1 \
		--instr-statements 40 --gate 'select1.instructions>=1.001' --workdir "$TMP/w-$n" \
		--json "$TMP/$n.json" --junit "$TMP/$n.xml" "$@" >"$TMP/$n.out" 2>"$TMP/$n.err"
}
res() { json "$TMP/$1.json" '$d->{results}[0]{'"$2"'}'; }
# the rule (noise/floor.h) in perl: 1.96 x sqrt(a^2 + b^2), the 95% bound 2.37236 x SD over 5
rule() { perl -e 'my ($a, $b) = @ARGV; my $k = 2.3723557; my $r = 1.959964 * sqrt(($k*$a)**2 + ($k*$b)**2);
	printf "%.10f", $r > 0.0001 ? $r : 0.0001' "$1" "$2"; }

# ---- no floor of the baseline (one of another postgres): undecided ----
floor $BASE/pgopt-noise.json $OTHER 5
gate mismatch
rc=$?
is "no floor of the baseline: the threshold is undecided (exit 3)" "$rc" 3
[ $rc = 3 ] || diag "$(cat "$TMP/mismatch.out" "$TMP/mismatch.err")"
like "a note on stderr says why, before anything runs" "$(head -1 "$TMP/mismatch.err")" \
	"^pgbuild: note: no layout floor: $BASE/pgopt-noise.json was measured on another postgres \(sha256 aaaaaaaaaaaa\.\.\.\), not $BASE/bin/postgres \(sha256 ${SHA:0:12}\.\.\.\); \`pgbuild noise --install $BASE\` measures one \(--noise none: the repeat resolution decides\): thresholds on instructions or the cycles estimate without one are undecided \(exit 3\)$"
is "json: the floor's state is mismatch" "$(json "$TMP/mismatch.json" '$d->{noise_floor}{state}')" mismatch
is "json: verdict undecided" "$(json "$TMP/mismatch.json" '$d->{verdict}')" undecided
is "json: the result undecided" "$(res mismatch status)" undecided
is "json: no resolution" "$(res mismatch resolution)" undef
like "json: the reason names the command that measures one" "$(json "$TMP/mismatch.json" '$d->{reason}')" \
	"^undecided: select1.instructions>=1.001 on select1: no layout floor: .*\`pgbuild noise --install $BASE\` measures one"
like "junit: a skipped case" "$(grep -A1 'name="select1.instructions&gt;=1.001"' "$TMP/mismatch.xml")" '<skipped message="'
like "terminal: the instructions line says they were not decided, and why" "$(cat "$TMP/mismatch.out")" \
	"A/B not decided -: no layout floor: $BASE/pgopt-noise.json was measured on another postgres"
"$B/bin/pgbuild" report --gate-result "$TMP/mismatch.json" >"$TMP/report-m.out" 2>&1
like "report: reads it back undecided" "$(head -1 "$TMP/report-m.out")" '^gate: UNDECIDED - '
gain=$(json "$TMP/mismatch.json" '$d->{workloads}[0]{instructions}{speedup} - 1')
ok "the baseline's logging costs instructions: a gain above 1% ($gain)" \
	perl -e "exit !($gain > 0.01)"

# ---- --noise none: the repeat resolution, said; the claim is undecided ----
gate none --noise none
rc=$?
is "--noise none: the same gain leaves the claim undecided (exit 3)" "$rc" 3
[ $rc = 3 ] || diag "$(cat "$TMP/none.out" "$TMP/none.err")"
is "json: the claim is undecided" "$(res none status)" undecided
like "json: ... a claim needs a layout floor, the repeat resolution only checks a bound" "$(res none message)" \
	'undecided against 1.001: a claim needs a layout floor \(`pgbuild noise`, or --noise-variants in run/optimize\); the repeat resolution \(repeat 0.01% \(--noise none: no layout floor\)\) can only check a bound'
is "json: no interval decided a claim" "$(res none ci_low) $(res none ci_high)" "undef undef"
like "terminal: --noise none says so" "$(cat "$TMP/none.out")" \
	"resolution of instructions and cycles: no layout floor \(--noise none\): the repeat resolution decides"
is "json: the floor's state is none" "$(json "$TMP/none.json" '$d->{noise_floor}{state}')" none
is "json: the repeat resolution" "$(res none resolution)" 0.0001
is "json: ... and says why" "$(res none resolution_source)" "repeat 0.01% (--noise none: no layout floor)"
# the bound at --noise none: decided, passes, on the relative interval
heavy "$B/bin/pgbuild" gate --baseline $BASE --candidate $CAND --metric instructions -W select1 \
	--instr-statements 40 --gate 'select1.instructions>=1' --workdir "$TMP/w-nb" \
	--json "$TMP/nb.json" --noise none >"$TMP/nb.out" 2>"$TMP/nb.err"
rc=$?
is "--noise none: the bound instructions>=1 is decided there and passes (exit 0)" "$rc" 0
[ $rc = 0 ] || diag "$(cat "$TMP/nb.out" "$TMP/nb.err")"
is "json: the interval is relative: observed x (1 -+ 0.01%)" \
	"$(json "$TMP/nb.json" 'my $r = $d->{results}[0]; abs($r->{ci_low} - $r->{observed} * 0.9999) < 1e-12 && abs($r->{ci_high} - $r->{observed} * 1.0001) < 1e-12 ? "relative" : "$r->{ci_low} $r->{ci_high}"')" relative

# ---- both builds' own floors, tiny: the repeat resolution decides ----
floor $BASE/pgopt-noise.json $SHA 0.000001
floor $CAND/pgopt-noise.json $SHA 0.000001
gate both
rc=$?
is "both floors tiny: the claim passes at the repeat resolution (exit 0)" "$rc" 0
[ $rc = 0 ] || diag "$(cat "$TMP/both.out" "$TMP/both.err")"
is "json: the floor is used" "$(json "$TMP/both.json" '$d->{noise_floor}{state}')" used
is "json: the repeat resolution" "$(res both resolution)" 0.0001
like "json: the source names both floors" "$(res both resolution_source)" \
	"^repeat 0.01% \(above the layout floor: 1.96 x sqrt\(a\^2 \+ b\^2\), a = 95% bound of SD 1e-06% over 5 variants = [0-9.e-]+% \($BASE/pgopt-noise.json\), b = 95% bound of SD 1e-06% over 5 variants = [0-9.e-]+% \($CAND/pgopt-noise.json\)\)$"
is "terminal: which floors decided" "$(grep 'resolution of instructions and cycles' "$TMP/both.out")" \
	"  resolution of instructions and cycles: layout floor $BASE/pgopt-noise.json (5 variants of $BASE/bin/postgres); the candidate's: $CAND/pgopt-noise.json (5 variants)"

# ---- the baseline's floor at half the gain: inside the resolution ----
sd_pct=$(perl -e "printf '%.6f', 100 * $gain / 2")
floor $BASE/pgopt-noise.json $SHA $sd_pct
gate own
rc=$?
is "the gain inside the resolution does not pass the claim (exit 1)" "$rc" 1
[ $rc = 1 ] || diag "$(cat "$TMP/own.out" "$TMP/own.err")"
want=$(rule $(perl -e "print $sd_pct / 100") 0.00000001)
is "json: the result's resolution is the rule's" \
	"$(json "$TMP/own.json" 'abs($d->{results}[0]{resolution} / '"$want"' - 1) < 1e-7 ? "the rule" : $d->{results}[0]{resolution}')" "the rule"
is "json: the interval is relative" \
	"$(json "$TMP/own.json" 'my $r = $d->{results}[0]; abs($r->{ci_low} - $r->{observed} * (1 - $r->{resolution})) < 1e-12 ? "relative" : "subtracted"')" relative
sd_shown=$(perl -e "printf '%.4g', $sd_pct")
like "json: its source names the rule, the SDs, the variants and the files" "$(res own resolution_source)" \
	"^layout floor: 1.96 x sqrt\(a\^2 \+ b\^2\), a = 95% bound of SD $sd_shown% over 5 variants = [0-9.]+% \($BASE/pgopt-noise.json\), b = 95% bound of SD 1e-06% over 5 variants"
is "json: the workload's instructions carry it, and the repeat one" \
	"$(json "$TMP/own.json" 'my $i = $d->{workloads}[0]{instructions}; ($i->{resolution_source} eq $d->{results}[0]{resolution_source} ? "same" : "differs") . " / $i->{repeat_resolution}"')" \
	"same / 0.0001"
like "the message gives the resolution and its source" "$(res own message)" \
	"lower end [0-9.]+ < 1.001 \(a claim passes when its lower end reaches it, at the [0-9.]+% resolution, relative: layout floor: 1.96 x sqrt"
like "junit: the failure says it" "$(grep -A1 '<failure' "$TMP/own.xml")" "resolution, relative: layout floor: 1.96 x sqrt"
"$B/bin/pgbuild" report --gate-result "$TMP/own.json" >"$TMP/report.out" 2>&1
like "report: reads it back to the same verdict, at the same resolution" "$(cat "$TMP/report.out")" \
	"FAIL +select1.instructions>=1.001 .*resolution, relative: layout floor: 1.96 x sqrt"

# ---- the candidate without a floor: the stand-in ----
rm -f $CAND/pgopt-noise.json
floor $BASE/pgopt-noise.json $SHA 0.000001
gate standin
rc=$?
like "no floor of the candidate: decided at the stand-in (exit 0 or 1, not 3: $rc)" "$rc" '^[01]$'
like "json: the candidate's side is an LTO build's instruction SD" "$(res standin resolution_source)" \
	"b = a stand-in, an LTO build's 95% bound of SD 0.0333% over 5 variants = 0.079% \(the candidate has no floor of its own\)$"
is "json: ... 1.96 x its bound: 0.155%" \
	"$(json "$TMP/standin.json" 'sprintf "%.3f", 100 * $d->{results}[0]{resolution}')" 0.155
like "the note says the candidate's side is a stand-in" "$(json "$TMP/standin.json" '$d->{noise_floor}{note}')" \
	"; the candidate's side: a stand-in \(no $CAND/pgopt-noise.json\)$"

# ---- named floors that cannot be used: errors before measuring ----
floor "$TMP/other.json" $OTHER 1
"$B/bin/pgbuild" gate --baseline $BASE --candidate $CAND --metric instructions -W select1 \
	--noise "$TMP/other.json" >"$TMP/named.out" 2>&1
is "a named floor of another binary: exit 2" "$?" 2
like "... naming the file and both binaries" "$(cat "$TMP/named.out")" \
	"^pgbuild: error: --noise $TMP/other.json: $TMP/other.json was measured on another postgres \(sha256 aaaaaaaaaaaa\.\.\.\), not $BASE/bin/postgres"
floor "$TMP/few.json" $SHA 1 2
"$B/bin/pgbuild" gate --baseline $BASE --candidate $CAND --metric instructions -W select1 \
	--workdir "$TMP/w-few" --noise "$TMP/few.json" >"$TMP/few.out" 2>&1
is "a named floor over 2 variants: exit 2" "$?" 2
like "... saying the minimum and why" "$(cat "$TMP/few.out")" \
	"^pgbuild: error: --noise $TMP/few.json: $TMP/few.json is over 2 variants; a floor needs at least 5 \(the 95% bound of an SD over 2 is 15.9 times it\)"
ok "nothing was measured" test ! -e "$TMP/w-few"
printf '{"postgres_sha256":"%s","variants":[{},{},{},{},{}],"workloads":{"select1":{"instructions":{"sd":1}}}}\n' $SHA >"$TMP/bad.json"
"$B/bin/pgbuild" gate --baseline $BASE --candidate $CAND --metric instructions -W select1 \
	--workdir "$TMP/w-bad" --noise "$TMP/bad.json" >"$TMP/bad.out" 2>&1
is "a malformed floor: exit 2" "$?" 2
like "... naming the file and what was expected" "$(cat "$TMP/bad.out")" \
	"^pgbuild: error: $TMP/bad.json: workloads.select1.instructions: expected an object with \"sd_pct\", a number >= 0"
ok "nothing was measured" test ! -e "$TMP/w-bad"
done_testing
