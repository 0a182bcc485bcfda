#!/bin/bash
# 91-man-pages.t - the man pages say what the programs say: every option
# `pgoptcc --help` prints is an entry of pgoptcc(1) and every option entry
# of pgoptcc(1) is in that help; the same for each command `pgbuild --help`
# lists, against its section of pgbuild(1); every command has a section and
# every section is a command.  The lists are read from the binaries, so a
# new command or option without its man entry (or a man entry left behind)
# fails here.  Also: both pages render without warnings.
. "$(dirname "$0")/../lib/tap.sh"
cd "$TMP" || exit 1
MAN_PGOPTCC=$TOP/wrapper/pgoptcc.1 MAN_PGBUILD=$TOP/pgbuild/pgbuild.1

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
sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p' pgbuild.help | sort -u >cmds.help
like "pgbuild --help lists commands" "$(wc -l <cmds.help)" '^[1-9][0-9]*$'
sed -n 's/^\.SS "pgbuild \([a-z-]*\)".*/\1/p' "$MAN_PGBUILD" | sort -u >cmds.man
same_sets "pgbuild(1) commands" cmds.help cmds.man
while read -r c; do
	"$B/bin/pgbuild" "$c" --help >"h.$c" 2>&1
	help_opts <"h.$c" >"help.$c"
	man_opts "$MAN_PGBUILD" "pgbuild $c" >"man.$c"
	like "pgbuild $c --help lists options" "$(wc -l <"help.$c")" '^[1-9][0-9]*$'
	same_sets "pgbuild(1) $c" "help.$c" "man.$c"
done <cmds.help
# the page's own options are pgbuild's
man_opts "$MAN_PGBUILD" "" OPTIONS >man.global
like "pgbuild(1) OPTIONS has --version and --help" "$(tr '\n' ' ' <man.global)" '--help.*--version'
while read -r o; do
	ok "pgbuild $o (from pgbuild(1) OPTIONS) works" "$B/bin/pgbuild" "$o"
done <man.global

for f in "$MAN_PGOPTCC" "$MAN_PGBUILD"; do
	if command -v man >/dev/null; then
		is "man --warnings -l ${f#"$TOP/"}: no warning" "$(man --warnings -l "$f" 2>&1 >/dev/null)" ""
	else
		skip "man is not installed (man-db; make deps): ${f#"$TOP/"} not rendered"
	fi
done

done_testing
