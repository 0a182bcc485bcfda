#!/bin/bash
# 85-wrapper-faults.t - wrapper faults beyond those of 11-wrapper-invocation.t
# (missing compiler 102, recursion 103, bad/missing policy 101, unwritable
# log 104, missing plugin 105, PGOPT_FAILSAFE=passthrough): a plugin built
# for another GCC or not a plugin at all (gcc's own error; under failsafe the
# compile is retried unchanged), a policy that is a directory, the log and
# the plugin's sidecars on a full filesystem (the object of a compile whose
# record cannot be written is removed, so that make compiles it again).
# Each is one line per tool and a documented exit status; no half-written
# log record.
. "$(dirname "$0")/../lib/tap.sh"
W=$B/bin/pgoptcc
cd "$TMP" || exit 1
unset PGOPT_POLICY PGOPT_PREFIX PGOPT_PASSTHROUGH PGOPT_FAILSAFE PGOPT_LOGDIR
printf 'int f(void) { return 1; }\n' > a.c
printf '[global]\ncflags += -O3\n' > p.policy
export PGOPT_POLICY=$TMP/p.policy

# a plugin built for another GCC (the test build pgopt-fakever.so, under the
# real plugin's name so that its arguments match)
mkdir -p other && cp "$B/tests/pgopt-fakever.so" other/pgopt.so
PGOPT_PLUGIN=$TMP/other/pgopt.so "$W" -c a.c -o x.o 2> err; s=$?
is "plugin for another GCC: gcc's exit status 1" "$s" 1
is "plugin for another GCC: one line" "$(wc -l < err)" 1
like "plugin for another GCC: says both versions and what to do" "$(cat err)" \
	"built for GCC 11.1.0 but this is GCC $(gcc -dumpfullversion); rebuild pgoptcc"
PGOPT_PLUGIN=off "$W" -c a.c -o x.o 2> err; s=$?
is "PGOPT_PLUGIN=off builds with the policy regardless" "$s" 0

# ... under failsafe: the compile is retried unchanged, which is plain gcc's
gcc -c a.c -o plain.o
PGOPT_FAILSAFE=passthrough PGOPT_LOGDIR=$TMP/fvlog PGOPT_PLUGIN=$TMP/other/pgopt.so "$W" -c a.c -o fv.o 2> err; s=$?
is "plugin for another GCC + failsafe: builds" "$s" 0
# not silently stock: one line after the compile says why (issue 42)
like "plugin for another GCC + failsafe: one warning line, after the compile" "$(cat err)" \
	"^pgoptcc: warning: the plugin .*/other/pgopt.so failed to load; compiled with the caller's flags \(failsafe passthrough\)\$"
ok "plugin for another GCC + failsafe: plain gcc's object" cmp plain.o fv.o
like "plugin for another GCC + failsafe: logged unchanged" "$(tail -n 1 fvlog/compile.jsonl)" \
	'"changed":false.*"argv_out":\["-c","a.c","-o","fv.o"\].*"failsafe":"plugin failed to load"'
PGOPT_VERBOSE=1 PGOPT_FAILSAFE=passthrough PGOPT_PLUGIN=$TMP/other/pgopt.so "$W" -c a.c -o fv.o 2> err; s=$?
like "plugin for another GCC + failsafe + PGOPT_VERBOSE=1: says so" "$(cat err)" \
	"pgoptcc: building unchanged \(failsafe = passthrough\): the plugin .*/other/pgopt.so failed to load"
ok "plugin for another GCC + failsafe, no log: plain gcc's object" cmp plain.o fv.o
# a real compile error comes out as plain gcc's, with or without a
# plugin that loads
printf 'int f(void) { return x; }\n' > bad.c
gcc -c bad.c -o bad.o 2> gcc.err; gs=$?
PGOPT_FAILSAFE=passthrough PGOPT_PLUGIN=$TMP/other/pgopt.so "$W" -c bad.c -o bad.o 2> err; s=$?
is "compile error + bad plugin + failsafe: gcc's exit status" "$s" "$gs"
is "compile error + bad plugin + failsafe: gcc's stderr" "$(cat err)" "$(cat gcc.err)"
PGOPT_FAILSAFE=passthrough PGOPT_LOGDIR=$TMP/fvlog PGOPT_PLUGIN= "$W" -c bad.c -o bad.o 2> err; s=$?
is "compile error + working plugin + failsafe: gcc's exit status" "$s" "$gs"
is "compile error + working plugin + failsafe: gcc's stderr" "$(cat err)" "$(cat gcc.err)"
like "compile error + working plugin + failsafe: not retried" "$(tail -n 1 fvlog/compile.jsonl)" \
	'"changed":true.*"exit":1,'

# not a shared object at all
mkdir -p junk && printf 'not an ELF file' > junk/pgopt.so
PGOPT_PLUGIN=$TMP/junk/pgopt.so "$W" -c a.c -o x.o 2> err; s=$?
is "junk plugin: exit 1" "$s" 1
is "junk plugin: one line" "$(wc -l < err)" 1
like "junk plugin: gcc says it cannot load it" "$(cat err)" "cannot load plugin $TMP/junk/pgopt.so"

# a policy path that is a directory
mkdir -p pdir
PGOPT_POLICY=$TMP/pdir "$W" -c a.c -o x.o 2> err; s=$?
is "policy is a directory: exit 101" "$s" 101
is "policy is a directory: one line" "$(cat err)" "pgoptcc: error: $TMP/pdir: cannot read policy: it is a directory, expected a regular file"

# failsafe builds on without the plugin, but cannot invent a compiler
PGOPT_FAILSAFE=passthrough PGOPT_PLUGIN=$TMP/none.so PGOPT_LOGDIR=$TMP/fslog "$W" -c a.c -o fs.o 2> err; s=$?
is "failsafe + missing plugin: builds" "$s" 0
is "failsafe + missing plugin: one warning line, after the compile" "$(cat err)" \
	"pgoptcc: warning: cannot load the plugin $TMP/none.so: No such file or directory; compiled with the caller's flags (failsafe passthrough)"
PGOPT_FAILSAFE=passthrough PGOPT_PLUGIN=$TMP/none.so "$W" -c bad.c -o fs.o 2> err; s=$?
is "failsafe + missing plugin + a compile error: exactly gcc's status and stderr" \
	"$s/$(cat err)" "$gs/$(cat gcc.err)"
like "failsafe + missing plugin: logged as such" "$(tail -n 1 fslog/compile.jsonl)" '"failsafe":"plugin missing"'
PGOPT_FAILSAFE=passthrough PGOPT_CC=no-such-cc-xyz "$W" -c a.c 2> err; s=$?
is "failsafe + missing compiler: still 102" "$s" 102

# the log directory on a full filesystem (root: a tiny tmpfs)
if [ "$(id -u)" = 0 ] && mkdir -p full && mount -t tmpfs -o size=16k tmpfs full; then
	mkdir -p full/log
	PGOPT_PLUGIN=off PGOPT_LOGDIR=$TMP/full/log "$W" -c a.c -o l.o 2> err; s=$?
	is "log filesystem with room: logged" "$s" 0
	head -c 65536 /dev/zero > full/fill 2>/dev/null
	# a new log file needs a new page: there is none left
	ok "the first compile made l.o" test -s l.o
	PGOPT_PLUGIN=off PGOPT_LOGDIR=$TMP/full/log2 "$W" -c a.c -o l.o 2> err; s=$?
	is "full log filesystem: exit 104" "$s" 104
	is "full log filesystem: one line, naming the object it removed" "$(cat err)" \
		"pgoptcc: error: cannot write the compile log $TMP/full/log2/compile.jsonl: No space left on device (removed l.o, so that make builds it again)"
	is "full log filesystem: no half record left" "$(stat -c %s full/log2/compile.jsonl)" 0
	ok "full log filesystem: the object without a record is gone" test ! -e l.o
	# make: the failed compile leaves nothing make takes as up to date;
	# with room again, the next make compiles it (and logs it)
	printf 'all: m.o\nm.o: a.c\n\t$(CC) -c a.c -o m.o\n' > Makefile
	make -s CC="$W" PGOPT_PLUGIN=off PGOPT_LOGDIR=$TMP/full/log2 > make.out 2>&1; s=$?
	ok "full log filesystem: make fails" test "$s" != 0
	ok "... and leaves no m.o" test ! -e m.o
	rm -f full/fill
	make -s CC="$W" PGOPT_PLUGIN=off PGOPT_LOGDIR=$TMP/full/log2 > make.out 2>&1; s=$?
	is "room again: the second make succeeds" "$s" 0
	ok "... it compiled m.o" test -s m.o
	like "... and logged it" "$(tail -n 1 full/log2/compile.jsonl)" '"output":"m.o"'
	# only what this compile made is removed: an object it did not write
	# (a compile that fails before gcc writes) stays
	head -c 65536 /dev/zero > full/fill 2>/dev/null
	cp m.o keep.o
	PGOPT_PLUGIN=off PGOPT_LOGDIR=$TMP/full/log4 "$W" -c no-such.c -o keep.o 2> err; s=$?
	is "a failed compile with a full log: 104" "$s" 104
	ok "... keep.o, which it did not write, is still there" cmp m.o keep.o
	# a new log whose first record finds no room (log2's has a page now)
	PGOPT_FAILSAFE=passthrough PGOPT_PLUGIN=off PGOPT_LOGDIR=$TMP/full/log5 "$W" -c a.c -o l.o 2> err; s=$?
	is "full log filesystem + failsafe: builds" "$s" 0
	like "full log filesystem + failsafe: one warning line says the unit has no record" "$(cat err)" \
		"^pgoptcc: warning: cannot write the compile log .*: No space left on device; a.c built without its record \(failsafe passthrough\)\$"
	# the plugin's sidecar cannot be written either: one line from each tool
	PGOPT_PLUGIN= PGOPT_LOGDIR=$TMP/full/log3 "$W" -c a.c -o l.o 2> err; s=$?
	is "full sidecar filesystem: fails (104)" "$s" 104
	like "full sidecar filesystem: the plugin's line has no source quote" "$(head -n 1 err)" \
		"^cc1: error: pgopt: cannot write .*functions/a.c.jsonl.*: No space left on device$"
	is "full sidecar filesystem: two lines in all" "$(wc -l < err)" 2
	umount full
else
	ok "# SKIP full-filesystem cases need root and tmpfs" true
fi
done_testing
