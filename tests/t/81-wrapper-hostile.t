#!/bin/bash
# 81-wrapper-hostile.t - inputs built to make pgoptcc hang or crash: each is
# refused (or handed to gcc unchanged) within seconds, never a signal.
. "$(dirname "$0")/../lib/tap.sh"
W=$B/bin/pgoptcc
cd "$TMP" || exit 1
export PGOPT_LOGDIR=$TMP/log
unset PGOPT_POLICY PGOPT_PREFIX PGOPT_PASSTHROUGH PGOPT_FAILSAFE
printf 'int f(void) { return 1; }\n' > a.c

# @files that name the next one twice: 2^24 reads without a file-count
# limit.  gcc itself stops after 2000 @files; pgoptcc must hand the command
# to gcc unchanged (reason too_hard) instead of expanding for hours.
for i in $(seq 1 24); do printf '@r%d @r%d\n' $((i + 1)) $((i + 1)) > r$i; done
printf -- '-O2\n' > r25
timeout 20 "$W" -c a.c -o dbl.o @r1 2> err; s=$?
ok "doubling @files: no hang (timeout 20 s)" test "$s" != 124
is "doubling @files: gcc's own exit status" "$s" 1
like "doubling @files: gcc's own message" "$(cat err)" "too many @-files"
like "doubling @files: logged as too_hard" "$(tail -n1 log/compile.jsonl)" '"reason":"too_hard"'

# an @file that cannot be read has no exit code of pgoptcc's own: like gcc,
# it is kept as a literal argument, and gcc reports it exactly as without us
printf '[global]\ncflags += -O3\n' > o3.policy
gcc @no-such-rsp -c a.c -o rsp.o 2> gcc.err; gs=$?
PGOPT_POLICY=$TMP/o3.policy "$W" @no-such-rsp -c a.c -o rsp.o 2> err; s=$?
is "unreadable @file: gcc's exit status" "$s" "$gs"
is "unreadable @file: gcc's stderr, no pgoptcc line" "$(cat err)" "$(cat gcc.err)"

# a policy glob of 100,000 nested or chained braces: the brace expansion
# recursed once per '{' (stack overflow after minutes); now a policy error
perl -e 'print "[", "{" x 100000, "}" x 100000, "]\ncflags += -O3\n"' > nest.policy
perl -e 'print "[", "{}" x 200000, "]\ncflags += -O3\n"' > chain.policy
for p in nest chain; do
	timeout 20 "$W" --pgopt-check-policy $p.policy > /dev/null 2> err; s=$?
	is "$p braces: policy error 101, no signal" "$s" 101
	like "$p braces: names file:line" "$(head -c 200 err)" "^pgoptcc: error: $TMP/$p.policy:1: bad glob"
	# the message (which quotes the glob) is cut at 4 KB: still one whole line
	is "$p braces: error is one line" "$(wc -l < err)" 1
	like "$p braces: cut with ..." "$(tail -c 5 err)" '[.][.][.]$'
done
# ten two-way alternatives and then many empty ones: 1024 expansions, each
# copied through every later brace (seconds per compile, found by fuzzing)
perl -e 'print "[", "{a,b}" x 10, "{}" x 200, "]\ncflags += -O3\n"' > wide.policy
timeout 20 "$W" --pgopt-check-policy wide.policy > /dev/null 2> err; s=$?
is "many brace groups: policy error 101" "$s" 101
like "many brace groups: says the limit" "$(cat err)" "wide.policy:1: bad glob .*expected at most 32 '\{' in a glob"
printf '[src/{a,b}/**/[!x]*.c]\ncflags += -O3\n' > fine.policy
ok "ordinary globs still parse" "$W" --pgopt-check-policy fine.policy

done_testing
