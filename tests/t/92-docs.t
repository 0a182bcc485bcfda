#!/bin/bash
# 92-docs.t - the user documents (README.md, wrapper/, plugin/, pgbuild/,
# examples/README.md, examples/RESULTS.md, tests/RELIABILITY.md, tests/SECURITY.md) name only
# what exists: every option of a `pgbuild CMD ...` command line in them is
# an option of that command's --help (and CMD a command), every --pgopt-
# option is in pgoptcc --help, every PGOPT_/PGBUILD_ variable is one the code or the
# suites read, every repository path and suite number they cite exists,
# every `make TARGET` is a target, and none cites a file users do not have
# (DESIGN.md).  The lists are read from the binaries and the tree.
. "$(dirname "$0")/../lib/tap.sh"
cd "$TMP" || exit 1
DOCS="README.md wrapper/README.md plugin/README.md pgbuild/README.md examples/README.md examples/RESULTS.md tests/RELIABILITY.md tests/README.md tests/SECURITY.md"

. "$TOP/tests/lib/help.sh"
mkdir -p help
"$B/bin/pgbuild" --help | help_commands >commands
while read -r c; do "$B/bin/pgbuild" "$c" --help | help_opts >"help/$c"; done <commands
"$B/bin/pgoptcc" --help | help_opts >pgoptcc.opts
like "pgbuild lists its commands" "$(wc -l <commands)" '^[1-9][0-9]*$'

# pgbuild command lines: in code blocks (with \ continuations) and in `code`
(cd "$TOP" && perl tests/lib/doc-cmdlines.pl "$TMP/help" $DOCS) >bad-cmdlines
is "every pgbuild command line in the docs uses real commands and options" "$(cat bad-cmdlines)" ""

(cd "$TOP" && grep -onE -- '--pgopt-[a-z][a-z-]*' $DOCS) | while IFS=: read -r f l o; do
	grep -qx -- "$o" pgoptcc.opts || echo "$f:$l: $o is not in pgoptcc --help"
done >bad-pgopt
is "every --pgopt- option in the docs is pgoptcc's" "$(cat bad-pgopt)" ""

(cd "$TOP" && grep -onwE '(PGOPT|PGBUILD)_[A-Z][A-Z0-9_]*' $DOCS) | while IFS=: read -r f l v; do
	grep -rqw "$v" "$TOP/wrapper" "$TOP/pgbuild" "$TOP/tests" "$TOP/Makefile" \
		--include='*.c' --include='*.h' --include='*.t' --include='*.sh' --include='*.mk' \
		--include=Makefile 2>/dev/null ||
		grep -rqlw "$v" "$TOP/tests/bench" || echo "$f:$l: $v is read nowhere"
done >bad-vars
is "every PGOPT_/PGBUILD_ variable in the docs is read by the code or a suite" "$(cat bad-vars)" ""

# repository paths in `code` and suite numbers (tests/t/16, tests/pg/21)
(cd "$TOP" && grep -onE '`(\.ci|examples|pgbuild|plugin|tests|wrapper)/[^` ]*`' $DOCS |
	while IFS=: read -r f l p; do
		p=$(printf '%s' "${p//\`/}" | sed 's/<[^>]*>/*/g') # <harness>: any
		case $p in
		tests/t/[0-9][0-9]|tests/pg/[0-9][0-9]) compgen -G "$p-*.t" >/dev/null ;;
		*) compgen -G "${p%/}" >/dev/null || [ -e "${p%/}" ] ;;
		esac || echo "$f:$l: $p does not exist"
	done
	grep -onE 'tests/(t|pg)/[0-9][0-9]\b' $DOCS | while IFS=: read -r f l p; do
		compgen -G "$p-*.t" >/dev/null || echo "$f:$l: no suite $p"
	done) >bad-paths
is "every repository path and suite the docs cite exists" "$(cat bad-paths)" ""

(cd "$TOP" && grep -noE '`make [a-z][a-z-]*' $DOCS) | while IFS=: read -r f l m; do
	t=${m#\`make }
	env -u MAKEFLAGS -u MAKELEVEL make -C "$TOP" -n "$t" >/dev/null 2>&1 || echo "$f:$l: no make target $t"
done >bad-targets
is "every \`make TARGET\` in the docs is a target" "$(cat bad-targets)" ""

# relative links resolve from the document's own directory
(cd "$TOP" && for f in $DOCS; do
	grep -noE '\]\([^)#:]+(#[^)]*)?\)' "$f" | while IFS=: read -r l m; do
		t=${m#](}; t=${t%)}; t=${t%%#*}
		[ -e "$(dirname "$f")/$t" ] || echo "$f:$l: link to $t, which does not exist"
	done
done) >bad-links
is "every relative link in the docs resolves" "$(cat bad-links)" ""

is "no document cites DESIGN.md (users do not have it)" \
	"$(cd "$TOP" && grep -n 'DESIGN\.md' $DOCS)" ""

# README.md's table of verdicts is gate_verdicts (pgbuild/gate/verdict.c)
# as gate --help prints it: each headline, meaning and exit code
"$B/bin/pgbuild" gate --help | perl -ne 'next unless /^lower case\):/ ... /^\S/;
	if (/^  ([A-Z][A-Z ]+) \(exit (\d)\)$/) { push @v, [$1, $2, ""] }
	elsif (/^      (.*)$/ and @v) { my $t = $1; $v[-1][2] .= ($v[-1][2] eq "" ? "" : " ") . $t }
	END { print "$$_[0]|$$_[2]|$$_[1]\n" for @v }' >verdicts.help
perl -ne 'print "$1|$2|$3\n" if /^\| ([A-Z][A-Z ]+) \| (.*) \| (\d) \|$/' "$TOP/README.md" >verdicts.readme
is "README.md's verdict table has the gate's eight" "$(wc -l <verdicts.readme)" 8
is "README.md's verdict table is gate --help's (gate_verdicts), word for word" \
	"$(cat verdicts.readme)" "$(cat verdicts.help)"

done_testing
