#!/bin/bash
# 97-docs-figures.t - README.md stays a user guide whose numbers have one
# source: every figure it quotes (a decimal number with x or %, 1.19x,
# 2.8%, or a ratio of three or more decimals, 1.0291) appears in
# examples/RESULTS.md, where each figure has its date and command; it is at
# most 220 lines; and every `pgbuild CMD --opt` and `pgoptcc --pgopt-opt`
# it spells is one the command's --help lists.  Then the same checks on a
# deliberately broken copy of README.md must fail, each naming what broke.
# And every `pgbuild ...` command line of the ```sh blocks of examples/*.md
# (the commands that reproduce RESULTS.md's figures) parses with today's
# pgbuild: each is run with its inputs missing (tests/lib/doc-cmdlines.pl
# --run: no install, source, compiler or network to do work with), and none
# may end in a usage error (a refused option or spelling, or --pairs below
# what the gate's family of tests needs); a broken copy with such lines
# must report each of them.
. "$(dirname "$0")/../lib/tap.sh"
. "$TOP/tests/lib/help.sh"
cd "$TMP" || exit 1

mkdir -p help
"$B/bin/pgbuild" --help | help_commands >commands
while read -r c; do "$B/bin/pgbuild" "$c" --help | help_opts >"help/$c"; done <commands
"$B/bin/pgoptcc" --help | help_opts >pgoptcc.opts
like "pgbuild lists its commands" "$(wc -l <commands)" '^[1-9][0-9]*$'

# figures README (arg 1) quotes that RESULTS (arg 2) does not have
missing_figures() {
	perl -e '
		my ($readme, $results) = @ARGV;
		open my $r, "<", $results or die "$results: $!\n"; my $res = do { local $/; <$r> };
		open my $h, "<", $readme or die "$readme: $!\n"; my $ln = 0;
		while (my $l = <$h>) {
			$ln++;
			my %seen;
			while ($l =~ /(?<![\w.])(\d+\.\d+[x%]|\d\.\d{3,})(?![\w.]*\d)/g) {
				my $f = $1; next if $seen{$f}++;
				print "$readme:$ln: $f is not in examples/RESULTS.md\n"
					unless $res =~ /(?<![\d.])\Q$f\E(?![\d])/;
			}
		}' "$1" "$2"
}
# options of pgoptcc (--pgopt-*) in README (arg 1) that pgoptcc --help lacks
bad_pgopt() {
	grep -onE -- '--pgopt-[a-z][a-z-]*' "$1" | while IFS=: read -r l o; do
		grep -qx -- "$o" pgoptcc.opts || echo "$1:$l: $o is not in pgoptcc --help"
	done
}
# every problem of README (arg 1) against RESULTS (arg 2), one a line
check_readme() {
	local n
	n=$(wc -l <"$1")
	[ "$n" -le 220 ] || echo "$1: $n lines (at most 220)"
	missing_figures "$1" "$2"
	perl "$TOP/tests/lib/doc-cmdlines.pl" help "$1"
	bad_pgopt "$1"
}

cp "$TOP/README.md" README.md
cp "$TOP/examples/RESULTS.md" RESULTS.md
like "README.md quotes figures (the check has something to check)" \
	"$(perl -ne 'print "$1\n" while /(?<![\w.])(\d+\.\d+[x%]|\d\.\d{3,})/g' README.md | wc -l)" '^[1-9][0-9]*$'
like "README.md names pgbuild command lines" "$(grep -c 'pgbuild [a-z]' README.md)" '^[1-9][0-9]*$'
is "README.md: at most 220 lines, every figure in examples/RESULTS.md, every option real" \
	"$(check_readme README.md RESULTS.md)" ""

# a broken copy: a figure RESULTS.md lacks, a wrong option of a command, an
# option pgoptcc does not have, and 30 lines too many
{
	cat README.md
	echo 'The best build is 3.1416x faster, and 97.531% smaller (ratio 1.23456).'
	echo '```sh'
	echo 'pgbuild gate --baseline A --candidate B --no-such-option 3 \'
	echo '    --pairs 6'
	echo '```'
	echo 'Build with `CC="pgoptcc --pgopt-no-such-setting=1"`.'
	for i in $(seq 1 30); do echo; done
} >broken.md
check_readme broken.md RESULTS.md >broken.out
like "the broken copy: too long" "$(cat broken.out)" "broken.md: 2[0-9][0-9] lines \(at most 220\)"
like "the broken copy: a figure with x missing from RESULTS.md" "$(cat broken.out)" "3\.1416x is not in examples/RESULTS.md"
like "the broken copy: a figure with % missing" "$(cat broken.out)" "97\.531% is not in examples/RESULTS.md"
like "the broken copy: a bare ratio missing" "$(cat broken.out)" "1\.23456 is not in examples/RESULTS.md"
like "the broken copy: an option pgbuild gate does not take" "$(cat broken.out)" "pgbuild gate: no option --no-such-option"
like "the broken copy: a --pgopt- option pgoptcc does not take" "$(cat broken.out)" "--pgopt-no-such-setting is not in pgoptcc --help"
is "the broken copy: nothing else" "$(grep -vcE 'lines \(at most|3\.1416x|97\.531%|1\.23456|no-such-option|no-such-setting' broken.out)" 0

# a figure that RESULTS.md has only as part of a longer number is missing
printf 'tps 1.04x\n' >short.md
printf 'tps 1.048x\n' >results-long.md
like "a figure found only inside a longer one is missing" "$(check_readme short.md results-long.md)" "1\.04x is not in"

# the command lines of the user docs' sh blocks, run with today's pgbuild
for docs in "examples/*.md" "README.md pgbuild/README.md wrapper/README.md"; do
	rm -rf run && mkdir -p run
	(cd "$TOP" && perl tests/lib/doc-cmdlines.pl --run "$B/bin/pgbuild" "$TMP/run" $docs) >ran
	like "$docs: the sh blocks hold pgbuild command lines (the check has something to check)" \
		"$(tail -n 1 ran)" '^ran [1-9][0-9]*$'
	is "$docs: every pgbuild command line of their sh blocks parses with today's pgbuild" \
		"$(sed '$d' ran)" ""
done

# a broken copy: spellings and pair counts of before 2026-12-07, beside
# lines that parse and a line outside an sh block, which is not run
cat >old.md <<'EOF'
```sh
pgbuild gate --baseline STOCK --candidate OUT -W select-only,tpcb --pairs 6 -T 3
pgbuild optimize --train regress -W select-only,tpcb,mixed --pairs 6 -T 3 --workdir W
pgbuild pgo --prefix OUT -W select-only,tpcb
pgbuild tune --train select-only --time-budget 2h
pgbuild report --gate g.json
pgbuild gate --baseline STOCK --candidate OUT --frob
pgbuild gate --baseline STOCK --candidate OUT -W select-only,tpcb --pairs 7 -T 3 # parses
pgbuild report --gate-result g.json   # parses: g.json is only missing
```

```
pgbuild gate --baseline STOCK --candidate OUT --not-run-here
```
EOF
mkdir -p run-old
perl "$TOP/tests/lib/doc-cmdlines.pl" --run "$B/bin/pgbuild" "$TMP/run-old" old.md >old.out
like "the broken copy: a two-workload gate at 6 pairs (the family needs 7)" "$(cat old.out)" \
	'old\.md:2: pgbuild gate: pgbuild: error: --pairs 6: 2 tests .* need at least 7 pairs'
like "the broken copy: optimize at 6 pairs on three workloads" "$(cat old.out)" \
	'old\.md:3: pgbuild optimize: pgbuild: error: --pairs 6: 6 tests .* need at least 8 pairs'
like "the broken copy: pgo's training workloads spelled -W" "$(cat old.out)" 'old\.md:4: pgbuild pgo: .*--train'
like "the broken copy: tune's --time-budget" "$(cat old.out)" 'old\.md:5: pgbuild tune: .*--time-budget'
like "the broken copy: report --gate" "$(cat old.out)" 'old\.md:6: pgbuild report: .*--gate'
like "the broken copy: an option gate does not have" "$(cat old.out)" 'old\.md:7: pgbuild gate: .*--frob'
is "the broken copy: nothing else" "$(grep -vcE '^old\.md:[2-7]: ' old.out)" 1
is "the broken copy: its eight sh lines run, the plain block's not" "$(tail -n 1 old.out)" "ran 8"

done_testing
