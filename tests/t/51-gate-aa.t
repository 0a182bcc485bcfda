#!/bin/bash
# 51-gate-aa.t - pgbuild gate on real servers: Debian's PostgreSQL 15 as both
# baseline and candidate (A/A).
#   - A/A must not pass --min-speedup 1.05 (exit 1, not 0 and not 2);
#   - --json keeps every run's numbers and the bench documents;
#   - pgbench's letters mean there what they mean in bench (the one
#     parser): -S the select-only workload, -M the runs' protocol, -j
#     their client threads;
#   - --junit validates against the common JUnit schema (xmllint), one
#     testcase per threshold;
#   - --metric instructions: callgrind on single-user mode gives identical
#     counts for A and B, a passing and a failing threshold decide as such
#     (--noise none: at the repeat resolution, no layout floor);
#     --counter auto picks perf or falls back to callgrind and says which;
#   - a failed regression suite fails a gate whose thresholds all pass;
#   - pgbuild report --html renders in headless Chromium with no console
#     messages, and the screenshot shows the plots (their colours).
# Benchmarks run under the machine-wide heavy lock (short runs, few pairs).
# tap: alone (it times something: make check runs it by itself, tests/tests.mk)
. "$(dirname "$0")/../lib/tap.sh"
PG=/usr/lib/postgresql/15
[ -x $PG/bin/postgres ] || skip_all "Debian's postgresql-15 is not installed ($PG)"
. "$(dirname "$0")/../lib/heavy.sh"
pgb() { "$B/bin/pgbuild" "$@"; }
json() { # FILE PYTHON-EXPRESSION-ON-d  (perl: JSON::PP is core)
	perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; my $d = decode_json(<$f>);
		my $r = eval $ARGV[1]; die $@ if $@; print defined $r ? $r : "undef"' "$1" "$2"
}

# ---- A/A throughput gate ----
heavy "$B/bin/pgbuild" gate --baseline $PG --candidate $PG --pairs 9 --confidence 0.99 \
	--duration 2 --warmup 0.5 --min-speedup 1.05 --max-p99-regression 50 -S -M simple -j 1 \
	--json "$TMP/aa.json" --junit "$TMP/aa.xml" --quiet >"$TMP/aa.out" 2>"$TMP/aa.err"
rc=$?
is "A/A at --min-speedup 1.05 fails (exit 1)" "$rc" 1
[ $rc = 1 ] || diag "$(cat "$TMP/aa.out" "$TMP/aa.err")"
like "terminal summary names the verdict" "$(head -1 "$TMP/aa.out")" "^gate: NOT SHOWN FASTER"
like "terminal summary names the method" "$(cat "$TMP/aa.out")" "Hodges-Lehmann estimate with Wilcoxon signed-rank interval, 99%"
is "json: verdict" "$(json "$TMP/aa.json" '$d->{verdict}')" fail
# the verdict in words: the one the terminal printed, lower case
printed=$(head -1 "$TMP/aa.out" | sed -n 's/^gate: \([A-Z ]*\) - .*/\1/p' | tr 'A-Z' 'a-z')
is "json: verdict_word is the word printed" "$(json "$TMP/aa.json" '$d->{verdict_word}')" "${printed:-none printed}"
like "junit: a verdict_word property, the word printed" "$(cat "$TMP/aa.xml")" \
	"<property name=\"verdict_word\" value=\"${printed:-none printed}\"/>"
is "json: 18 runs kept (9 pairs)" "$(json "$TMP/aa.json" 'scalar @{$d->{workloads}[0]{runs}}')" 18
is "json: every run embeds its bench document" \
	"$(json "$TMP/aa.json" 'scalar grep { $_->{bench}{tool} eq "pgbuild bench" } @{$d->{workloads}[0]{runs}}')" 18
# each pair runs A once and B once, in the order the seed gives
# (gate_pair_b_first: splitmix64 of seed, pair, workload; here in perl)
seed=$(json "$TMP/aa.json" '$d->{pair_order_seed}')
like "json: the pair order's seed is recorded" "$seed" '^[0-9]+$'
is "json: each pair runs A once and B once, in the order the seed gives" \
	"$(json "$TMP/aa.json" 'use bigint; my $m = 0xFFFFFFFFFFFFFFFF;
		my $mix = sub { my $x = ($_[0] + 0x9e3779b97f4a7c15) & $m;
			$x = (($x ^ ($x >> 30)) * 0xbf58476d1ce4e5b9) & $m;
			$x = (($x ^ ($x >> 27)) * 0x94d049bb133111eb) & $m; $x ^ ($x >> 31) };
		my $want = join "", map { ($mix->($mix->($mix->($d->{pair_order_seed}) ^ $_) ^ 0) >> 63) ? "BA" : "AB" } 0 .. 8;
		my @r = @{$d->{workloads}[0]{runs}};
		my $got = join "", map { $_->{build} } @r; my $pairs = join "", map { $_->{pair} } @r;
		$pairs eq "001122334455667788" && $got eq $want ? "in order" : "$got (pairs $pairs) vs $want"')" "in order"
is "json: 9 valid pairs" "$(json "$TMP/aa.json" '$d->{workloads}[0]{valid_pairs}')" 9
is "-S -M simple -j 1: the select-only workload, its settings" \
	"$(json "$TMP/aa.json" 'join " ", scalar @{$d->{workloads}}, $d->{workloads}[0]{name}, $d->{settings}{protocol}, $d->{settings}{threads}')" \
	"1 select-only simple 1"
is "... every run's bench: simple protocol, one client thread" \
	"$(json "$TMP/aa.json" 'scalar grep { $_->{bench}{protocol} eq "simple" && $_->{bench}{threads} == 1 } @{$d->{workloads}[0]{runs}}')" 18
like "json: interval around the estimate" \
	"$(json "$TMP/aa.json" 'my $r = $d->{workloads}[0]{tps}{ratio}; $r->{ci_low} <= $r->{estimate} && $r->{estimate} <= $r->{ci_high} ? "ok" : "bad"')" '^ok$'
is "json: the speed threshold failed" "$(json "$TMP/aa.json" '$d->{results}[0]{status}')" fail
is "json: the p99 bound is not significantly broken" "$(json "$TMP/aa.json" '$d->{results}[1]{status}')" pass
ok "junit validates against the JUnit schema" xmllint --noout --schema "$TOP/tests/lib/junit.xsd" "$TMP/aa.xml"
is "junit: one testcase per threshold (+ regress, correctness)" "$(grep -c '<testcase ' "$TMP/aa.xml")" 4
like "junit: the missed threshold is a failure" "$(grep -A1 'name="tps&gt;=1.05"' "$TMP/aa.xml")" '<failure message="throughput B/A'

# ---- instructions (callgrind) ----
if ! command -v valgrind >/dev/null; then
	tap_result 1 "valgrind is installed (make deps)"
else
	heavy "$B/bin/pgbuild" gate --baseline $PG --candidate $PG --metric instructions --workload select1 \
		--instr-statements 20 --gate 'select1.instructions>=1,select1.instructions>=1.01' --noise none \
		--workdir "$TMP/iw" --json "$TMP/i.json" --junit "$TMP/i.xml" >"$TMP/i.out" 2>&1
	is "instructions: A/A meets >=1; the claim >=1.01 is undecided at the repeat resolution (exit 3)" "$?" 3
	is "instructions: measured" "$(json "$TMP/i.json" '$d->{workloads}[0]{instructions}{state}')" ok
	is "instructions: A and B agree within 0.01%" "$(json "$TMP/i.json" 'my $i = $d->{workloads}[0]{instructions}; abs($i->{a} / $i->{b} - 1) < 1e-4 ? "same" : "$i->{a} vs $i->{b}"')" same
	like "instructions: a plausible count per SELECT 1" "$(json "$TMP/i.json" 'int $d->{workloads}[0]{instructions}{a}')" '^[0-9]{4,6}$'
	is "instructions: >=1 passes" "$(json "$TMP/i.json" '$d->{results}[0]{status}')" pass
	is "instructions: >=1.01 undecided" "$(json "$TMP/i.json" '$d->{results}[1]{status}')" undecided
	like "instructions: ... a claim needs a layout floor" "$(json "$TMP/i.json" '$d->{results}[1]{message}')" \
		'undecided against 1.01: a claim needs a layout floor \(`pgbuild noise`, or --noise-variants in run/optimize\); the repeat resolution \(repeat 0.01% \(--noise none: no layout floor\)\) can only check a bound' 
	like "instructions are called a proxy" "$(cat "$TMP/i.out")" "a proxy"
	# --counter auto (the default): perf where hardware counters count, else callgrind, said so
	if perf stat -x, -e instructions:u -- true 2>&1 | grep -q '^[0-9]'; then counter=perf; else counter=callgrind; fi
	is "instructions: counted by $counter here" "$(json "$TMP/i.json" '$d->{instructions_counter}{counter}')" $counter
	if [ $counter = callgrind ]; then
		like "instructions: the fallback is said" "$(cat "$TMP/i.out")" \
			'gate: instructions counted by callgrind \((hardware counters do not work here|perf is not installed).*; counting with callgrind instead\)'
		like "instructions: ... and recorded" "$(json "$TMP/i.json" '$d->{instructions_counter}{choice}')" 'counting with callgrind instead'
	fi
	like "instructions: the counter is named per workload" "$(json "$TMP/i.json" '$d->{workloads}[0]{instructions}{note}')" "^(perf stat|callgrind), single-user mode"
	pgb report --gate-result "$TMP/i.json" --html "$TMP/i.html" >"$TMP/i.rep" 2>&1
	like "instructions: the report names the counter" "$(cat "$TMP/i.rep")" "instructions per transaction \(counted by (callgrind|perf stat, hardware counters);"
	like "instructions: so does the HTML" "$(cat "$TMP/i.html")" "Counted by (callgrind|perf stat \(hardware counters\)) on the server"
	ok "instructions junit validates" xmllint --noout --schema "$TOP/tests/lib/junit.xsd" "$TMP/i.xml"

	# a failed regression suite fails a gate whose thresholds pass
	heavy "$B/bin/pgbuild" gate --baseline $PG --candidate $PG --metric instructions --workload select1 \
		--instr-statements 20 --gate 'select1.instructions>=1' --workdir "$TMP/iw" --noise none \
		--regress-result failed --json "$TMP/r.json" >"$TMP/r.out" 2>&1
	is "failed regression suite: gate fails (exit 1)" "$?" 1
	is "failed regression suite: the threshold itself passed" "$(json "$TMP/r.json" '$d->{results}[0]{status}')" pass
	like "failed regression suite: named as the reason" "$(json "$TMP/r.json" '$d->{reason}')" "regression suite"

	# the suite's own document (`pgbuild regress --json`): its counts in
	# the verdict, its failure failing the gate
	printf '{"builddir":"/b","mode":"check","ok":false,"tests":217,"failed":3}\n' >"$TMP/reg.json"
	heavy "$B/bin/pgbuild" gate --baseline $PG --candidate $PG --metric instructions --workload select1 \
		--instr-statements 20 --gate 'select1.instructions>=1' --workdir "$TMP/iw" \
		--regress-result "$TMP/reg.json" --json "$TMP/r2.json" >"$TMP/r2.out" 2>&1
	is "--regress-result FILE: a failed suite fails the gate (exit 1)" "$?" 1
	like "--regress-result FILE: the counts in the report" "$(cat "$TMP/r2.out")" \
		"regression suite check: 214/217 tests passed"
	# every test passed, but the server's log showed a crash: the suite
	# failed, and the note says why (not only "217/217")
	printf '{"builddir":"/b","mode":"check","ok":false,"tests":217,"failed":0,"server_problems":"server process (PID 42) was terminated by signal 11"}\n' >"$TMP/reg-crash.json"
	heavy "$B/bin/pgbuild" gate --baseline $PG --candidate $PG --metric instructions --workload select1 \
		--instr-statements 20 --gate 'select1.instructions>=1' --workdir "$TMP/iw" \
		--regress-result "$TMP/reg-crash.json" --json "$TMP/r4.json" >"$TMP/r4.out" 2>&1
	is "a crash with every test passed: the gate fails (exit 1)" "$?" 1
	like "... the note names the crash" "$(json "$TMP/r4.json" '$d->{regress}{note}')" \
		"^regression suite check: 217/217 tests passed; the server's log: server process \\(PID 42\\) was terminated by signal 11$"
	printf 'not json\n' >"$TMP/reg-bad.json"
	"$B/bin/pgbuild" gate --baseline $PG --candidate $PG --metric instructions --workload select1 \
		--gate 'select1.instructions>=1' --regress-result "$TMP/reg-bad.json" >"$TMP/r3.out" 2>&1
	is "--regress-result FILE that is no regress document: exit 2" "$?" 2
	like "... naming it" "$(cat "$TMP/r3.out")" "reg-bad.json"
fi

# ---- HTML report in headless Chromium ----
pgb report --gate-result "$TMP/aa.json" --html "$TMP/report.html" --json "$TMP/report.json" >"$TMP/rep.out" 2>&1
is "report exits 0 on a failed gate" "$?" 0
is "report json: verdict_word is the word printed" "$(json "$TMP/report.json" '$d->{verdict_word}')" \
	"$(sed -n 's/^gate: \([A-Z ]*\) - .*/\1/p' "$TMP/rep.out" | head -1 | tr 'A-Z' 'a-z')"
like "report: terminal summary" "$(cat "$TMP/rep.out")" "select-only +9/9"
is "report: five SVG plots (the thresholds', then four of the runs)" \
	"$(grep -o '<svg ' "$TMP/report.html" | wc -l)" 5
like "report: the first thing is the verdict in words" \
	"$(grep -o 'class="verdict [a-z]*">[A-Z ]*<' "$TMP/report.html" | head -1)" \
	'>(FASTER|NOT SLOWER|NOT SHOWN SLOWER|NOT SHOWN FASTER|SLOWER|FAILED|UNDECIDED|COULD NOT MEASURE)<'
like "report: one finding per workload, before any table" \
	"$(sed -n '/<ul class="findings">/,/<\/ul>/p' "$TMP/report.html" | grep -c '<li>select-only: tps ')" '^1$'
ok "report: no PASS banner (PASS is not a finding)" bash -c "! grep -q '>PASS<' '$TMP/report.html'"
ok "report: no script, no external resource" bash -c "! grep -Eiq '<script|https?://[a-z]|src=' '$TMP/report.html'"
if ! command -v chromium >/dev/null; then
	tap_result 1 "chromium is installed (make deps)"
else
	prof=$(mktemp -d "$TMP/chr.XXXXXX")
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$prof" --enable-logging=stderr --v=0 --window-size=1200,1400 \
		--screenshot="$TMP/report.png" "file://$TMP/report.html" >"$TMP/chr.out" 2>&1
	is "chromium rendered the report" "$?" 0
	is "no console messages" "$(grep -c 'CONSOLE' "$TMP/chr.out")" 0
	ok "screenshot written" test -s "$TMP/report.png"
	read -r _ w _ h _ nonwhite _ blue _ orange < <(perl "$TOP/tests/lib/png-colors.pl" "$TMP/report.png" '#1f77b4' '#e6550d')
	is "screenshot size" "${w}x$h" 1200x1400
	# the layout, measured by the browser: a copy of the page with a
	# script that puts the page's width and where the first screen ends
	# into its title (the report itself allows no script)
	sed -e '/Content-Security-Policy/d' -e 's|</body>|<script>var u=document.querySelector("ul.findings"),f=document.querySelector("svg.forest");document.title="W="+document.documentElement.scrollWidth+" F="+Math.round(u.getBoundingClientRect().bottom)+" P="+Math.round(f.getBoundingClientRect().bottom);</script></body>|' \
		"$TMP/report.html" >"$TMP/probe.html"
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$prof" --window-size=1280,800 --dump-dom "file://$TMP/probe.html" \
		>"$TMP/probe.dom" 2>/dev/null
	probe=$(sed -n 's|.*<title>\(W=[0-9]* F=[0-9]* P=[0-9]*\)</title>.*|\1|p' "$TMP/probe.dom")
	like "the browser measured the page ($probe)" "$probe" '^W=[0-9]+ F=[0-9]+ P=[0-9]+$'
	pw=${probe#W=}; pw=${pw%% *}; pf=${probe#* F=}; pf=${pf%% *}; pp=${probe##* P=}
	ok "the page fits a 1280 px window (${pw:-?} px wide)" test "${pw:-9999}" -le 1280
	ok "the findings are on the first screen (they end at ${pf:-?} px of 800)" test "${pf:-9999}" -le 800
	ok "so is the thresholds' plot (it ends at ${pp:-?} px)" test "${pp:-9999}" -le 800
	ok "screenshot is not blank ($nonwhite non-white pixels)" test "${nonwhite:-0}" -gt 20000
	ok "A's plot colour is on screen ($blue px)" test "${blue:-0}" -gt 200
	ok "B's plot colour is on screen ($orange px)" test "${orange:-0}" -gt 200
fi
done_testing
