# tests/lib/help.sh - the options a --help text lists, for the suites that
# hold the man pages and the docs to the programs (t/91, t/92).
#
#   help_opts < HELP    one option per line, sorted: each --long and -X of
#                       the option column (lines indented 1-8 blanks that
#                       start with "-"; the column ends at two blanks)
help_opts() {
	perl -ne 'next unless /^ {1,8}-/; s/^\s+//; s/ {2,}.*//s;
		print "$1\n" while /(--[a-z0-9][a-z0-9-]*|(?<![\w-])-[A-Za-z0-9](?![\w-]))/g' | sort -u
}
#   help_commands < HELP  the commands `pgbuild --help` lists, one a line, in
#                       its order: the "  NAME  summary" lines of its groups
help_commands() {
	sed -n 's/^  \([a-z][a-z-]*\) \{1,\}[^ ].*/\1/p'
}
