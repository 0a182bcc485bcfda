#!/bin/bash
# 81-wrapper-hostile.t - inputs built to make pgoptcc hang or crash: each is
# refused (or handed to gcc unchanged) within seconds, never a signal.  Files
# pgoptcc reads (the policy, its hot/cold lists, @files, the compile log) that
# are FIFOs, devices or over 16 MiB are refused with a sentence; each case
# runs under a timeout and a 1 GB address-space limit, so a pgoptcc that
# reads /dev/zero fails the test instead of the machine.
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

# --- unbounded inputs: devices, FIFOs, huge files ---
# run CMD under a 20 s timeout and a 1 GB address-space limit
bounded() { ( ulimit -v 1000000; exec timeout 20 "$@" ); }
mkfifo fifo
printf '[global]\nhot = /dev/zero\n' > zero.policy
printf '[global]\n\ncold = fifo\n' > fifo.policy
truncate -s 17M big.txt
printf '[global]\nhot = big.txt\n' > big.policy
for c in "zero:2:the hot list /dev/zero: it is a character device, expected a regular file" \
	"fifo:3:the cold list $TMP/fifo: it is a FIFO, expected a regular file" \
	"big:2:the hot list $TMP/big.txt: it is larger than 16 MiB, the limit for a policy, list or script"; do
	p=${c%%:*}; rest=${c#*:}; line=${rest%%:*}; what=${rest#*:}
	PGOPT_POLICY=$TMP/$p.policy bounded "$W" -c a.c -o l.o 2> err; s=$?
	is "$p list in a build: exit 101 at once (no hang, no memory blow-up)" "$s" 101
	is "$p list in a build: one line naming file:line and why" "$(cat err)" \
		"pgoptcc: error: $TMP/$p.policy:$line: cannot read $what"
	bounded "$W" --pgopt-check-policy $p.policy > /dev/null 2> err; s=$?
	is "$p list in check-policy: exit 101" "$s" 101
done
for p in /dev/zero "$TMP/fifo"; do
	bounded "$W" --pgopt-check-policy "$p" > /dev/null 2> err; s=$?
	is "check-policy $p: exit 101 at once" "$s" 101
	like "check-policy $p: refused by kind" "$(cat err)" "^pgoptcc: error: $p: cannot read policy: it is a (character device|FIFO), expected a regular file\$"
	PGOPT_POLICY=$p bounded "$W" -c a.c -o l.o 2> err; s=$?
	is "PGOPT_POLICY=$p: exit 101 at once" "$s" 101
done
# the plugin reads the lists itself in cc1: a FIFO or a device there is
# refused at once too (gcc's error, status 1), never read
PLUGIN=$B/lib/pgoptcc/pgopt.so
for l in "$TMP/fifo" /dev/zero; do
	bounded gcc -c a.c -o pl.o -fplugin="$PLUGIN" -fplugin-arg-pgopt-hot="$l" 2> err; s=$?
	is "plugin with hot=$l: gcc fails at once (1)" "$s" 1
	like "plugin with hot=$l: says what it expected" "$(cat err)" "pgopt: .*-fplugin-arg-pgopt-hot=$l.*: expected a regular file"
done
# the compile log: a FIFO there blocked every compile's open; a link was
# followed (as root: appended to wherever it points)
mkdir -p flog slog
mkfifo flog/compile.jsonl
echo keep > target
ln -s "$TMP/target" slog/compile.jsonl
PGOPT_LOGDIR=$TMP/flog bounded "$W" -c a.c -o l.o 2> err; s=$?
is "compile.jsonl a FIFO: exit 104 at once" "$s" 104
like "... saying so" "$(cat err)" "cannot open compile log $TMP/flog/compile.jsonl: it is a FIFO, expected a regular file"
PGOPT_LOGDIR=$TMP/slog bounded "$W" -c a.c -o l.o 2> err; s=$?
is "compile.jsonl a symbolic link: exit 104" "$s" 104
like "... saying so" "$(cat err)" "cannot open compile log $TMP/slog/compile.jsonl: it is a symbolic link, expected a regular file"
is "... the link's target untouched" "$(cat target)" keep
# an @file that is a FIFO or a device: the command goes to gcc unchanged
# (too hard), pgoptcc itself neither blocks nor reads without end
PGOPT_POLICY=$TMP/o3.policy bounded "$W" -c a.c -o rz.o @/dev/zero 2> err; s=$?
ok "@/dev/zero: no hang (timeout 20 s) and no memory blow-up in pgoptcc" test "$s" != 124 -a "$s" != 106
like "@/dev/zero: logged as too_hard" "$(tail -n1 log/compile.jsonl)" '"reason":"too_hard"'

# a policy written to take over the terminal: its tokens in an error or the
# failsafe warning come out with every control byte but newline and tab as
# '?' (no title set, no line overwritten or hidden, no colour)
printf '[*]\ncflags += "-fx\r\033]0;PWNED\007\033[2J\033[8mhidden\177"\n' >esc.policy
PGOPT_POLICY=$TMP/esc.policy bounded "$W" -c a.c -o e.o 2> err; s=$?
is "a policy with terminal controls: exit 101" "$s" 101
is "... no control byte reaches stderr" "$(tr -d '\n\t' <err | LC_ALL=C tr -d '[:print:]' | wc -c)" 0
like "... each written as ?" "$(cat err)" 'cannot add -fx\?\?\]0;PWNED\?\?\[2J\?\[8mhidden\?'
PGOPT_FAILSAFE=passthrough PGOPT_POLICY=$TMP/esc.policy bounded "$W" -c a.c -o e.o 2> err; s=$?
is "... under failsafe: builds, and the warning is as clean" \
	"$s/$(tr -d '\n\t' <err | LC_ALL=C tr -d '[:print:]' | wc -c)" "0/0"

done_testing
