#!/bin/bash
# 70-tune.t - an end-to-end `pgbuild tune` over a small candidate set (2
# flags) on a small scope (the B-tree search files), in the shared baseline's
# build directory (so each step recompiles only those files, ccache helping),
# with the regression suite and the callgrind instructions gate at every
# step.  Checks: the search stops at --max-builds and resumes from its state
# without redoing anything, every step is in the report and the JSON, the
# best policy is a valid policy of the scope, the best is judged on the
# held-out workload (mixed, the default), the shared baseline is left as
# it was.  About 6 minutes on 2 cores.
. "$(dirname "$0")/lib.sh"
e2e_extra tune "pgbuild tune end to end (2 candidates, the regression suite and a callgrind gate at each step, about 6 min)"
P=$B/bin/pgbuild

command -v valgrind >/dev/null || skip_all "valgrind not installed (--metric instructions)"
base=$(e2e_build base none)
bd=$(e2e_builddir base)
src=$(e2e_src)
W=$TMP/tune
mkdir -p "$W"
chmod 755 "$TMP" "$W"
printf -- '-O3\n-fno-plt\n-ffast-math   # refused: never tried\n' >"$TMP/cands"
SCOPE='src/backend/access/nbtree/{nbtsearch,nbtutils,nbtcompare}.c'
json() { perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); for (split /\./, $ARGV[0]) {
	$j = ref $j eq "ARRAY" ? $j->[$_] : $j->{$_} } print ref $j eq "ARRAY" ? join(" ", @$j) : $j // "null"' "$1" < "$2"; }
# the shared base has no layout floor, without which tune refuses to decide
# instructions (tests/t/72); this suite checks the search, not the floor:
# it gives one written here for the base's postgres (0.05% SD over 5
# variants: a resolution of about 0.33%), in a file of its own, never the
# base's pgopt-noise.json
printf '{"postgres_sha256":"%s","variants":[{},{},{},{},{}],"workloads":{"select-only":{"instructions":{"mean":40000,"sd":1,"sd_pct":0.05}},"mixed":{"instructions":{"mean":90000,"sd":1,"sd_pct":0.05}}}}\n' \
	"$(sha256sum "$base/bin/postgres" | cut -d' ' -f1)" >"$TMP/floor.json"
tune() {
	e2e_heavy "$P" tune --src "$src" --builddir "$bd" --baseline "$base" --workdir "$W" \
		--scope "$SCOPE" --candidates "$TMP/cands" --json "$W/tune.json" --noise "$TMP/floor.json" \
		${PGOPT_E2E_JOBS:+--jobs "$PGOPT_E2E_JOBS"} "$@"
}
LOG=$bd/pgopt-log/compile.jsonl

# hold the base build's lock in this shell (a subshell would lose the TAP
# counter of the checks inside)
exec 9>"$(e2e_dir base)/.lock"
flock 9
{
	rm -f "$(e2e_dir base)/.done"    # an interrupted test must not leave a "done" base
	first=$(( $(wc -l < "$LOG") + 1 ))

	# 1. a budget of one build: the start set only, then stop (exit 1)
	tune --max-builds 1 >"$TMP/out1" 2>"$TMP/err1"
	is "stopped by the budget: exit 1" "$?" 1
	like "the report says why" "$(cat "$TMP/out1")" 'stop: max-builds reached'
	like "the unsafe candidate was refused" "$(cat "$TMP/err1")" 'refused candidate "-ffast-math"'
	is "one evaluation in the state" "$(grep -c '"kind":"eval"' "$W/state.jsonl")" 1
	# the budget stop keeps the start set as the best so far, so it is
	# judged held out (the default, mixed): against stock on a workload
	# the search never measured, at that workload's resolution
	like "the best so far is the start set" "$(cat "$TMP/out1")" '^best: -O3 -fno-plt$'
	like "it was judged held out on mixed" "$(cat "$TMP/out1")" \
		'^held out mixed: [01]\.[0-9]{4} \[[01]\.[0-9]{4}, [01]\.[0-9]{4}\].* \(instructions, never measured by the search\): (faster|not significant|slower|undecided)$'
	is "the JSON names it" "$(json held_out.0.workload "$W/tune.json")" mixed
	like "... with its verdict" "$(json held_out.0.verdict "$W/tune.json")" '^(faster|not significant|slower|undecided)$'
	v=$(json held_out.0.verdict "$W/tune.json")
	is "... the held-out workloads together: that one's" "$(json held_out_verdict "$W/tune.json")" "$v"
	like "... said in the report" "$(cat "$TMP/out1")" "^held out, all together: $v\$"
	if [ "$v" = slower ]; then
		like "slower held out: said not a policy to ship" "$(cat "$TMP/err1")" 'slower than stock on held-out mixed .*not a policy to ship'
	else
		nok "not slower held out: no such error" grep -q 'slower than stock on held-out' "$TMP/err1"
	fi
	ok "its gate's JSON is kept with the best set" \
		test -s "$W/sets/$(json best.id "$W/tune.json")/held-out-mixed.json"
	like "the search's own figure is said to be in-sample" "$(cat "$TMP/out1")" '^vs stock: .*in-sample: the search trained on it\)$'
	diag "$(grep -E '^(vs stock|held out)' "$TMP/out1")"
	is "the start set was compiled on the scope only" \
		"$(tail -n +"$first" "$LOG" | perl -MJSON::PP -ne '$r = decode_json($_); print "$r->{tu}\n" if $r->{kind} eq "compile"' | sort -u | tr '\n' ' ')" \
		"src/backend/access/nbtree/nbtcompare.c src/backend/access/nbtree/nbtsearch.c src/backend/access/nbtree/nbtutils.c "

	# 2. resume with a budget: nothing redone
	tune --max-builds 6 >"$TMP/out2" 2>"$TMP/err2"
	rc=$?
	ok "resumed tune converged (exit $rc)" test "$rc" = 0
	like "it resumed from the state" "$(cat "$TMP/err2")" 'resuming from .*1 evaluations recorded'
	like "the start step came from the state" "$(grep -E '^1 +start' "$TMP/out2")" 'from state'
	diag "$(cat "$TMP/out2")"
	is "the start set was not rebuilt" "$(grep -c 'build -O3 -fno-plt ' "$TMP/err2")" 0
	builds=$(json builds "$W/tune.json")
	ok "at most 4 builds for 2 flags (got $builds)" test "$builds" -le 4
	ok "every step has a verdict" sh -c "perl -MJSON::PP -e 'local \$/; \$j = decode_json(<STDIN>);
		exit !(@{\$j->{steps}} >= 3 && !grep { !\$_->{verdict} } @{\$j->{steps}})' < '$W/tune.json'"
	ok "the best policy exists" test -s "$W/best.policy"
	ok "pgoptcc accepts it" "$B/bin/pgoptcc" --pgopt-check-policy "$W/best.policy"
	nok "it never holds the refused flag" grep -q fast-math "$W/best.policy"
	best=$(json best.flags "$W/tune.json")
	if [ -n "$best" ]; then
		like "the final step measured the best against stock" "$(grep -E ' final ' "$TMP/out2")" 'ok +[01]\.[0-9]{4}'
		ok "the best policy is a policy of the scope" grep -qF "[$SCOPE]" "$W/best.policy"
		like "the best was judged held out on mixed" "$(cat "$TMP/out2")" \
			'^held out mixed: [01]\.[0-9]{4} .*: (faster|not significant|slower|undecided)$'
	else
		like "no flag paid off: the report says stock" "$(cat "$TMP/out2")" 'best: stock'
		is "nothing to judge held out" "$(json held_out "$W/tune.json")" ""
	fi
	diag "best: ${best:-stock}; vs stock $(json best.vs_stock "$W/tune.json"); builds $builds; wall $(json wall_seconds "$W/tune.json") s"

	# 3. a third run answers everything from the state
	tune --max-builds 6 >"$TMP/out3" 2>"$TMP/err3"
	is "rerun: exit 0" "$?" 0
	is "rerun: no new evaluation" "$(json new_evaluations "$W/tune.json")" 0

	# 4. no --baseline and no --noise: tune builds stock in the same build
	# directory and measures its floor (pgbuild noise, 5 relinked
	# variants) before the first gate; the search then decides at it
	W2=$TMP/tune-bare
	mkdir -p "$W2"
	chmod 755 "$W2"
	e2e_heavy "$P" tune --src "$src" --builddir "$bd" --workdir "$W2" --scope "$SCOPE" \
		--candidates "$TMP/cands" --held-out none --max-builds 1 --json "$W2/tune.json" \
		${PGOPT_E2E_JOBS:+--jobs "$PGOPT_E2E_JOBS"} >"$TMP/out4" 2>"$TMP/err4"
	is "bare tune: stopped by the budget after its first evaluation (exit 1)" "$?" 1
	like "... stock built first, then its floor measured" "$(grep -E '^tune: (build|stock)' "$TMP/err4" | head -2 | tr '\n' '|')" \
		'^tune: build stock \(.*\|tune: stock.s layout floor: pgbuild noise '
	is "... the floor: 5 variants of stock's postgres" \
		"$(json variants "$W2/stock-noise.json" | wc -w)|$(json postgres_sha256 "$W2/stock-noise.json")" \
		"5|$(sha256sum "$W2/sets/stock/prefix/bin/postgres" | cut -d' ' -f1)"
	like "... the search decided at its resolution (the gate's rule on it)" \
		"$(json resolution_source "$W2/tune.json")" "^layout floor: 1.96 x sqrt\(a\^2 \+ b\^2\), a = 95% bound of SD .* \($W2/stock-noise.json\), b = a stand-in"
	ok "... a resolution above the repeat one" perl -e 'exit !($ARGV[0] > 0.0001)' "$(json resolution "$W2/tune.json")"
	diag "bare tune: resolution $(json resolution "$W2/tune.json"); $(grep -E '^tune: resolution' "$TMP/err4")"

	# 5. the shared baseline's build directory back to policy none.  pgbuild
	# build deletes the objects a policy change invalidates, and PostgreSQL's
	# `.SECONDARY:` keeps make from rebuilding missing objects: put old stubs
	# in their place (as tune does) and build again, so make recompiles them.
	restore() {
		e2e_heavy "$P" build --src "$src" --policy none --prefix "$base" --builddir "$bd" \
			--no-install ${PGOPT_E2E_JOBS:+--jobs "$PGOPT_E2E_JOBS"} >>"$TMP/restore.log" 2>&1
	}
	stub_missing() {
		perl -MJSON::PP -ne '$r = eval { decode_json($_) } or next;
			next unless $r->{kind} eq "compile" && !$r->{exit} && $r->{output};
			$o = $r->{output} =~ m{^/} ? $r->{output} : "$r->{cwd}/$r->{output}";
			next if -e $o || $seen{$o}++;
			open(my $f, ">", $o) and close($f) and utime(1, 1, $o) and print "$o\n"' "$LOG"
	}
	restore && stub_missing >"$TMP/stubbed" && restore
	ok "baseline build directory restored" test $? = 0
	diag "restore: $(wc -l < "$TMP/stubbed") invalidated objects were missing and rebuilt"
	is "no object is missing" "$(stub_missing | wc -l)" 0
	echo "none " > "$(e2e_dir base)/.done"
}
exec 9>&-
ok "the baseline still verifies" "$P" verify --install "$base"
done_testing
