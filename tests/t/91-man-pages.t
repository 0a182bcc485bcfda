#!/bin/bash
# 91-man-pages.t - the man pages say what the programs say: every option
# `pgoptcc --help` prints is an entry of pgoptcc(1) and every option entry
# of pgoptcc(1) is in that help; the same for each command `pgbuild --help`
# lists, against its own page pgbuild-CMD.1 (pgbuild/man/), whose NAME is
# the command's summary; every command has a page and every page is a
# command; pgbuild(1)'s COMMANDS lists them in --help's groups and order,
# each with its --help summary.
# The lists are read from the binaries, so a new command or option without
# its man entry (or a man entry left behind) fails here, and so do the
# numeric ranges ("5 to 99") of a command's --help and of its page when
# they differ.  One list of exit
# codes, exitcodes.h's PGBUILD_EXIT_TABLE: pgbuild --help's, word for word
# in each command's --help that speaks of them, in every page's EXIT
# STATUS and in README.md's list; and one of pgoptcc's, PGOPT_EXIT_TABLE: pgoptcc --help's, the
# first line of each code in pgoptcc(1)'s EXIT STATUS and of its row in
# wrapper/README.md.  Every line of every --help (pgoptcc's, pgbuild's,
# each command's, each bundle verb's) fits 80 columns.  Every page renders
# without warnings and without a request shown as text; `make install`
# puts them where `man pgbuild-gate` finds them.  pgopt-policy(5)'s KEYS
# are the policy parser's keys.
. "$(dirname "$0")/../lib/tap.sh"
cd "$TMP" || exit 1
MAN_PGOPTCC=$TOP/wrapper/pgoptcc.1 MAN_PGBUILD=$TOP/pgbuild/pgbuild.1
MAN_POLICY=$TOP/wrapper/pgopt-policy.5

. "$TOP/tests/lib/help.sh"
# Options of the .TP entries of a man page ($1), in the .SS section named
# $2 (or the .SH section $3, or the whole page when both are empty).
man_opts() {
	perl -e 'my ($f, $ss, $sh) = @ARGV; open my $h, "<", $f or die "$f: $!";
		my ($in, $tp) = (!length($ss) && !length($sh), 0);
		while (<$h>) {
			if (/^\.S([SH])\s+"?(.*?)"?\s*$/) {
				$in = ($1 eq "S" && length($ss) && $2 eq $ss) ||
				      ($1 eq "H" && length($sh) && $2 eq $sh) ||
				      (!length($ss) && !length($sh));
				next;
			}
			if (/^\.TP/) { $tp = 1; next }
			next unless $tp; $tp = 0; next unless $in;
			s/\\f[BIRP]//g; s/\\-/-/g; s/\\&//g;
			print "$1\n" while /(--[a-z0-9][a-z0-9-]*|(?<![\w-])-[A-Za-z0-9](?![\w-]))/g;
		}' "$1" "${2:-}" "${3:-}" | sort -u
}
# The integer ranges "A to B" of a text on stdin (an option's bounds; not
# measured spreads such as "0.46 to 0.98"), one a line, sorted.
ranges() { grep -oE '(^|[^0-9.])[0-9]+ to [0-9]+(\.[0-9]+)?' | sed 's/^[^0-9]*//' | grep -v '\.' | sort -u; }
# Both ways: what $2 has and $3 lacks, and the reverse.
same_sets() { # title help-list man-list
	local missing extra
	missing=$(comm -23 "$2" "$3" | tr '\n' ' ')
	extra=$(comm -13 "$2" "$3" | tr '\n' ' ')
	is "$1: in --help but not in the man page" "$missing" ""
	is "$1: in the man page but not in --help" "$extra" ""
}

"$B/bin/pgoptcc" --help >pgoptcc.help 2>&1
help_opts <pgoptcc.help >help.pgoptcc
like "pgoptcc --help lists its options" "$(wc -l <help.pgoptcc)" '^[1-9][0-9]*$'
man_opts "$MAN_PGOPTCC" >man.pgoptcc
same_sets "pgoptcc(1)" help.pgoptcc man.pgoptcc
is "pgoptcc --pgopt-help is --help" "$("$B/bin/pgoptcc" --pgopt-help)" "$(cat pgoptcc.help)"

"$B/bin/pgbuild" --help >pgbuild.help 2>&1
help_commands <pgbuild.help >cmds.help
like "pgbuild --help lists commands" "$(wc -l <cmds.help)" '^[1-9][0-9]*$'
# one page per command, one command per page
(cd "$TOP/pgbuild/man" && ls pgbuild-*.1) | sed 's/^pgbuild-\(.*\)\.1$/\1/' | sort >cmds.pages
sort cmds.help >cmds.sorted
same_sets "pgbuild-CMD.1 pages" cmds.sorted cmds.pages
# pgbuild(1)'s COMMANDS: what --help lists, in its groups and its order
sed -n '/^\.SH COMMANDS/,/^\.SH /s/^\.BR pgbuild\\-\([a-z-]*\) (1)$/\1/p' "$MAN_PGBUILD" >cmds.man
is "pgbuild(1) COMMANDS lists the commands in pgbuild --help's order" \
	"$(tr '\n' ' ' <cmds.man)" "$(tr '\n' ' ' <cmds.help)"
is "pgbuild(1) COMMANDS has pgbuild --help's groups" \
	"$(sed -n '/^\.SH COMMANDS/,/^\.SH /s/^\.SS "\(.*\)"$/\1/p' "$MAN_PGBUILD" | tr '[:upper:]' '[:lower:]')" \
	"$(sed -n 's/^\([a-z][^:]*\):$/\1/p' pgbuild.help | grep -v '^usage' | tr '[:upper:]' '[:lower:]')"
while read -r c; do
	page=$TOP/pgbuild/man/pgbuild-$c.1
	[ -f "$page" ] || continue      # said above
	"$B/bin/pgbuild" "$c" --help >"h.$c" 2>&1
	help_opts <"h.$c" >"help.$c"
	man_opts "$page" >"man.$c"
	like "pgbuild $c --help lists options" "$(wc -l <"help.$c")" '^[1-9][0-9]*$'
	same_sets "pgbuild-$c(1)" "help.$c" "man.$c"
	# the ranges ("5 to 99") either says: the same set (an option's bounds
	# changed in one and not the other: noise --variants' help said 2 to 99)
	tr -s ' \n' '  ' <"h.$c" | ranges >"help-ranges.$c"
	sed 's/\\-/-/g; s/\\f[BIRP]//g; s/\\(en/-/g' "$page" | tr -s ' \n' '  ' | ranges >"man-ranges.$c"
	same_sets "pgbuild-$c(1) ranges" "help-ranges.$c" "man-ranges.$c"
	# --json takes "-" (the standard output) in every command that has it
	# (cli.h, CLI_OUT_JSON): the help and the page say so
	if grep -q -- '--json' "help.$c"; then
		like "pgbuild $c --help: --json FILE|-" "$(grep -E '^ +--json' "h.$c")" '^ +--json FILE\|- '
		like "pgbuild-$c(1): --json FILE|-, - the standard output" \
			"$(sed -n '/^\\fB\\-\\-json\\fR/,/^\.TP/p' "$page" | tr '\n' ' ')" \
			'^\\fB\\-\\-json\\fR \\fIFILE\\fR\|\\fB\\-\\fR .*standard output'
	fi
	summary=$(sed -n "s/^  $c  *//p" pgbuild.help)
	is "pgbuild-$c(1) NAME is its --help summary" \
		"$(sed -n '/^\.SH NAME/{n;p;}' "$page" | sed 's/\\-/-/g')" "pgbuild-$c - $summary"
	is "pgbuild(1) COMMANDS: $c's line is its --help summary" \
		"$(sed -n "/^\.BR pgbuild\\\\-$c (1)\$/{n;p;}" "$MAN_PGBUILD" | sed 's/\\-/-/g')" "$summary"
done <cmds.help
# every line of every --help fits 80 columns, as git's, ccache's and
# pgbench's do: pgoptcc's, pgbuild's, each command's and each bundle verb's
# (usage synopses wrap under the command, descriptions under their column)
wide() { awk 'length > 80 { print length ": " $0 }' "$1"; }
for v in create show check bolt; do
	"$B/bin/pgbuild" bundle "$v" --help >"h.bundle-$v" 2>&1
done
for f in pgoptcc.help pgbuild.help h.*; do
	case $f in
	pgoptcc.help) what="pgoptcc --help" ;;
	pgbuild.help) what="pgbuild --help" ;;
	*) what="pgbuild $(echo "${f#h.}" | tr - ' ') --help" ;;
	esac
	is "$what: every line fits 80 columns" "$(wide "$f")" ""
done
# the page's own options are pgbuild's
man_opts "$MAN_PGBUILD" "" OPTIONS >man.global
like "pgbuild(1) OPTIONS has --version and --help" "$(tr '\n' ' ' <man.global)" '--help.*--version'
while read -r o; do
	ok "pgbuild $o (from pgbuild(1) OPTIONS) works" "$B/bin/pgbuild" "$o"
done <man.global

# one list of exit codes: the rows of exitcodes.h's PGBUILD_EXIT_TABLE
# ("N meaning", one a line) are what pgbuild --help prints, word for word
# in every command's --help that speaks of exit codes, and (rendered) in
# the EXIT STATUS of every page
perl -ne 'print "$1 $2\n" if /^\s*X\(PGBUILD_EXIT_\w+,\s*(\d+),\s*"([^"]*)"\)/' \
	"$TOP/wrapper/common/exitcodes.h" >exit.items
is "exitcodes.h's PGBUILD_EXIT_TABLE has the codes 0 to 3" "$(cut -d' ' -f1 exit.items | tr '\n' ' ')" "0 1 2 3 "
{ echo "Exit codes:"; sed 's/^\([0-9]*\) /  \1  /' exit.items; } >exit.table
sed -n '/^Exit codes:/,/^$/p' pgbuild.help | sed '/^$/d' >exit.help
is "pgbuild --help's exit codes are exitcodes.h's table" "$(cat exit.help)" "$(cat exit.table)"
while read -r c; do
	grep -qi 'exit' "h.$c" || continue
	is "pgbuild $c --help quotes exitcodes.h's table word for word" \
		"$(grep -A$(($(wc -l <exit.table) - 1)) '^Exit codes:' "h.$c")" "$(cat exit.table)"
done <cmds.help
for f in "$MAN_PGBUILD" "$TOP"/pgbuild/man/pgbuild-*.1; do
	status=$(MANWIDTH=200 man -l "$f" 2>/dev/null | sed -n '/^EXIT STATUS/,/^[A-Z]/p' | tr -s ' \n' '  ')
	while read -r item; do
		case "$status" in
		*" $item "*) ;;
		*) is "${f##*/} EXIT STATUS has \"$item\" (exitcodes.h)" "$status" "... $item ..."; continue 2 ;;
		esac
	done <exit.items
	tap_result 0 "${f##*/}: EXIT STATUS is exitcodes.h's table"
done
# ... and README.md's list quotes each row as `N` meaning
readme=$(tr -s ' \n' '  ' <"$TOP/README.md")
while read -r n item; do
	case "$readme" in
	*"\`$n\` $item"*) tap_result 0 "README.md's exit codes have \`$n\` $item (exitcodes.h)" ;;
	*) tap_result 1 "README.md's exit codes have \`$n\` $item (exitcodes.h)" ;;
	esac
done <exit.items

# ... and pgoptcc's own: the rows of exitcodes.h's PGOPT_EXIT_TABLE are
# the lines pgoptcc --help prints after "Exit codes", each the start of its
# entry in pgoptcc(1)'s EXIT STATUS (word for word, then more), and of its
# row of wrapper/README.md's table
perl -ne 'print "$1 $2\n" if /^\s*X\(PGOPT_EXIT_\w+,\s*(\d+),\s*"([^"]*)"\)/' \
	"$TOP/wrapper/common/exitcodes.h" >pexit.items
is "exitcodes.h's PGOPT_EXIT_TABLE has the codes 100 to 108" "$(cut -d' ' -f1 pexit.items | tr '\n' ' ')" \
	"100 101 102 103 104 105 106 107 108 "
sed 's/^\([0-9]*\) /  \1  /' pexit.items >pexit.table
sed -n '/^Exit codes/,/^$/p' pgoptcc.help | grep -E '^  [0-9]+  ' >pexit.help
is "pgoptcc --help's exit codes are exitcodes.h's table" "$(cat pexit.help)" "$(cat pexit.table)"
is "pgoptcc --help's exit codes fit 80 columns" "$(awk 'length > 80' pexit.help)" ""
if command -v man >/dev/null 2>&1; then
	# each entry: the code, its meaning, then the end of the entry or more
	MANWIDTH=200 man -l "$MAN_PGOPTCC" 2>/dev/null | sed -n '/^EXIT STATUS/,/^[A-Z]/p' |
		perl -ne 'if (/^ {7}(\d{3}) +(\S.*?)\s*$/) { print "$1 $2\n" }' >pexit.man
	is "pgoptcc(1) EXIT STATUS: each code's first line is exitcodes.h's meaning" \
		"$(cat pexit.man)" "$(cat pexit.items)"
else
	skip "man is not installed (man-db; make deps): pgoptcc(1)'s EXIT STATUS not rendered"
fi
while read -r code meaning; do
	row=$(grep "^| $code | " "$TOP/wrapper/README.md")
	case "$row" in
	"| $code | $meaning |"* | "| $code | $meaning. "*) tap_result 0 "wrapper/README.md's row $code starts with exitcodes.h's meaning" ;;
	*) is "wrapper/README.md's row $code starts with exitcodes.h's meaning" "$row" "| $code | $meaning ..." ;;
	esac
done <pexit.items

# one list of verdicts: gate_verdicts (pgbuild/gate/verdict.c) as gate
# --help prints it ("  HEADLINE (exit N)", then the meaning wrapped) is,
# joined a verdict a line, what pgbuild-gate(1)'s VERDICTS says (rendered)
verdicts() { # --help text on stdin: "HEADLINE|N|meaning" a line
	perl -ne 'next unless /^lower case\):/ ... /^\S/;
		if (/^  ([A-Z][A-Z ]+) \(exit (\d)\)$/) { push @v, "$1|$2|" }
		elsif (/^      (.*)$/ and @v) { my $t = $1; $v[-1] .= ($v[-1] =~ /\|$/ ? "" : " ") . $t }
		END { print "$_\n" for @v }'
}
verdicts <h.gate >verdicts.help
is "gate --help lists eight verdicts" "$(wc -l <verdicts.help)" 8
if command -v man >/dev/null 2>&1; then
	MANWIDTH=2000 man -l "$TOP/pgbuild/man/pgbuild-gate.1" 2>/dev/null |
		sed -n '/^VERDICTS/,/^EXIT STATUS/p' | perl -ne '
		if (/^ {7}([A-Z]+(?: [A-Z]+)*)(?: +(\S.*))?$/) { push @v, [$1, $2 // ""] }
		elsif (/^ {14}(\S.*)$/ and @v) { my $t = $1; $v[-1][1] .= ($v[-1][1] eq "" ? "" : " ") . $t }
		END { for (@v) { my ($h, $t) = @$_; $t =~ s/ \(exit (\d)\)$//; print "$h|$1|$t\n" } }' >verdicts.man
	is "pgbuild-gate(1) VERDICTS is gate --help's list (gate_verdicts)" "$(cat verdicts.man)" "$(cat verdicts.help)"
else
	skip "man is not installed (man-db; make deps): pgbuild-gate(1)'s VERDICTS not rendered"
fi

# installed, man finds them: make install into a staging root
if make -s -C "$TOP" O="$B" DESTDIR="$TMP/root" install >install.out 2>&1; then
	mandir=$(find "$TMP/root" -type d -name man1 | head -n 1)
	for c in gate run optimize; do
		like "installed: man -w pgbuild-$c" "$(MANPATH=${mandir%/man1} man -w "pgbuild-$c" 2>&1)" \
			"/man1/pgbuild-$c\\.1"
	done
	like "installed: man -w pgopt-policy (section 5)" \
		"$(MANPATH=${mandir%/man1} man -w pgopt-policy 2>&1)" "/man5/pgopt-policy\\.5"
	is "every page is installed" "$(ls "$mandir" | grep -c '^pgbuild-.*\.1$')" "$(wc -l <cmds.help)"
else
	is "make install DESTDIR=... works" "$(cat install.out)" ""
fi

# pgopt-policy(5): its KEYS are the parser's keys (wrapper/policy/policy.c)
perl -ne 'next unless /^\s*"cflags", "ldflags"/; print "$_\n" for /"([a-z]+)"/g' "$TOP/wrapper/policy/policy.c" |
	sort >keys.code
sed -n '/^\.SH KEYS/,/^\.SH /{/^\.TP/{n;s/^\.B //p;}}' "$MAN_POLICY" | sort >keys.man
like "policy.c's key table is read" "$(wc -l <keys.code)" '^[1-9][0-9]*$'
same_sets "pgopt-policy(5) KEYS" keys.code keys.man

for f in "$MAN_PGOPTCC" "$MAN_PGBUILD" "$MAN_POLICY" "$TOP"/pgbuild/man/*.1; do
	if command -v man >/dev/null; then
		is "man --warnings -l ${f#"$TOP/"}: no warning" \
			"$(MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null)" ""
		# a request glued to the text before it shows as text ("nothing
		# to report.TP 3")
		is "${f#"$TOP/"}: no request rendered as text" \
			"$(MANWIDTH=80 man -l "$f" 2>/dev/null | grep -E '\.(TP|PP|SH|SS|B|BR|RS|RE|nf|fi)( |$)')" ""
	else
		skip "man is not installed (man-db; make deps): ${f#"$TOP/"} not rendered"
	fi
done

done_testing
