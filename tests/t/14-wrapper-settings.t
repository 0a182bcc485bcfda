#!/bin/bash
# 14-wrapper-settings.t - the configure-time choice sticks: a real autoconf
# project (a top directory, src/, src/lib/) configured through pgoptcc, then
# built with plain `make`, which runs without configure's environment.
#  (a) the environment recipe (CC=pgoptcc PGOPT_POLICY=rel PGOPT_LOGDIR=rel
#      ./configure; make): every object has the policy's flags and the
#      plugin's record, relative paths work from the subdirectories, and
#      there is ONE log directory;
#  (b) the options-in-CC recipe, absolute and relative;
#  (c) precedence, git's and ccache's: CC's options (the command line, which
#      the make log shows) beat the environment at make time and
#      pgoptcc.conf; the environment beats pgoptcc.conf (PGOPT_POLICY=none
#      make is a plain build);
#  (d) a PGXS-style build in another directory: absolute CC options work, a
#      relative one is one clear line (exit 108);
#  (e) configure's conclusions (config.h) are plain gcc's with both recipes;
#  and pgoptcc.conf itself: what configure writes, rewrites, a hand-written
#  file, its errors, --pgopt-show-config, the compile log's origins; which
#  pgoptcc.conf is trusted (git's safe.directory bar: another user's file in
#  a sticky world-writable directory is refused, exit 108, and its compiler
#  never runs, unless the environment overrides all it says, when it is
#  ignored and logged; a file or directory others can write; the search
#  stops at a file-system boundary); the caller-only settings are never read from
#  pgoptcc.conf nor recorded by configure.
. "$(dirname "$0")/../lib/tap.sh"
W=$B/bin/pgoptcc
unset PGOPT_POLICY PGOPT_LOGDIR PGOPT_PREFIX PGOPT_ROOT PGOPT_CC PGOPT_PLUGIN PGOPT_FAILSAFE
unset PGOPT_PASSTHROUGH PGOPT_VERBOSE
command -v autoconf >/dev/null || skip_all "autoconf not installed (make deps)"
cd "$TMP" || exit 1
# pgoptcc reads the nearest pgoptcc.conf at or above its directory: none
# may be above the scratch directory, or this suite tests that one
like "no pgoptcc.conf above the scratch directory" "$("$W" --pgopt-show-config | grep '^# pgoptcc.conf:')" \
	"^# pgoptcc.conf: none at or above $TMP\$"

# --- the project ---
mkdir -p proj/src/lib && cd proj || exit 1
cat > configure.ac <<'AC'
AC_INIT([stick], [1.0])
AC_CONFIG_HEADERS([config.h])
AC_PROG_CC
AC_C_INLINE
AC_CHECK_SIZEOF([long])
AC_CHECK_FUNCS([strlcpy posix_fadvise])
AC_CHECK_HEADERS([sys/epoll.h nosuch.h])
AC_CONFIG_FILES([Makefile src/Makefile src/lib/Makefile])
AC_OUTPUT
AC
cat > Makefile.in <<'MK'
all:
	$(MAKE) -C src
clean:
	$(MAKE) -C src clean
MK
cat > src/Makefile.in <<'MK'
CC = @CC@
CFLAGS = @CFLAGS@
all: prog
prog: main.o lib/libl.a
	$(CC) $(CFLAGS) -o prog main.o lib/libl.a
lib/libl.a:
	$(MAKE) -C lib
main.o: main.c
	$(CC) $(CFLAGS) -c main.c -o main.o
clean:
	rm -f prog *.o
	$(MAKE) -C lib clean
MK
cat > src/lib/Makefile.in <<'MK'
CC = @CC@
CFLAGS = @CFLAGS@
libl.a: hot.o cold.o
	ar rcs libl.a hot.o cold.o
hot.o: hot.c
	$(CC) $(CFLAGS) -c hot.c -o hot.o
cold.o: cold.c
	$(CC) $(CFLAGS) -c cold.c -o cold.o
clean:
	rm -f *.o *.a
MK
printf 'int hot(int);\nint cold(int);\nint main(void) { return hot(1) + cold(2) - 5; }\n' > src/main.c
printf 'int hot(int x) { return x * 2; }\n' > src/lib/hot.c
printf 'int cold(int x) { return x + 1; }\n' > src/lib/cold.c
printf '[global]\ncflags += -fno-plt\n[src/lib/hot.c]\ncflags += -fno-omit-frame-pointer\n' > p.policy
printf '[global]\ncflags += -fno-ident\n' > other.policy
autoconf 2>/dev/null && autoheader 2>/dev/null
ok "autoconf generated configure" test -x configure
./configure CC=gcc >/dev/null 2>&1 && cp config.h ../config.h.gcc
ok "plain gcc configure" test -s ../config.h.gcc
OBJS="src/main.o src/lib/hot.o src/lib/cold.o"
P=$TMP/proj

# switches of each object (empty when it has none)
switches() { readelf -p .GCC.command.line "$1" 2>/dev/null | tr '\n' ' '; }
# every object has flag $1
all_have() {
	local o
	for o in $OBJS; do
		case $(switches "$o") in *"$1"*) ;; *) echo "$o lacks $1" >&2; return 1 ;; esac
	done
}
# no object has a .GCC.command.line (nothing was changed)
none_changed() {
	local o
	for o in $OBJS; do
		[ -z "$(switches "$o")" ] || { echo "$o: $(switches "$o")" >&2; return 1; }
	done
}
# every object carries the plugin's record
all_recorded() {
	local o
	for o in $OBJS; do
		readelf -SW "$o" | grep -q '\.pgopt\.log' || { echo "$o has no .pgopt.log" >&2; return 1; }
	done
}
# log directories named $1 anywhere in the tree
logdirs() { find "$P" -type d -name "$1" | sort | tr '\n' ' '; }

# --- (a) the environment recipe, relative paths ---
rm -f config.h
CC=$W PGOPT_POLICY=p.policy PGOPT_LOGDIR=log ./configure > configure.out 2>&1
ok "(a) configure with CC=pgoptcc PGOPT_POLICY=p.policy PGOPT_LOGDIR=log" test -s config.h
ok "(e) env recipe: config.h identical to plain gcc's" cmp ../config.h.gcc config.h
ok "(a) configure wrote pgoptcc.conf at the top" test -f pgoptcc.conf
is "(a) pgoptcc.conf records the environment, paths absolute" "$(grep -v '^#' pgoptcc.conf)" \
	"policy = $P/p.policy
logdir = $P/log"
like "(a) pgoptcc.conf says what wrote it and the precedence" "$(head -n 12 pgoptcc.conf | tr '\n' ' ')" \
	"Written by pgoptcc .* while configure ran its probes.*Precedence, as git's and ccache's: --pgopt-KEY=VALUE options in CC, # then PGOPT_\* in the environment, then this file, then the defaults"
make -s >make.out 2>&1
ok "(a) plain make builds" test -x src/prog
ok "(a) the program runs" src/prog
ok "(a) every object has the policy's flags" all_have -fno-plt
like "(a) the section of src/lib/hot.c applied" "$(switches src/lib/hot.o)" "-fno-omit-frame-pointer"
ok "(a) every object carries the plugin's record" all_recorded
is "(a) one log directory, at the top" "$(logdirs log)" "$P/log "
log=$P/log/compile.jsonl
rec=$(grep '"tu":"src/lib/cold.c"' "$log" | tail -n 1)
like "(a) the record names pgoptcc.conf" "$rec" "\"config\":\"$P/pgoptcc.conf\""
like "(a) the record says policy and log came from pgoptcc.conf" "$rec" '"origins":\{"policy":"conf","logdir":"conf"\}'
like "(a) the record from src/lib names the policy" "$rec" "\"policy\":\"$P/p.policy\",\"changed\":true"
like "(a) the link got the global flags' record too" "$(grep '"kind":"link"' "$log" | tail -n 1)" '"tu":"src/prog"'
is "(a) make printed nothing of pgoptcc's" "$(grep -c pgoptcc make.out)" 0
is "(a) configure's probes were all unchanged" "$(grep '"reason":"conftest"' "$log" | grep -c '"changed":true')" 0

# show-config from a subdirectory: each setting, value and origin
out=$(cd src/lib && "$W" --pgopt-show-config)
like "show-config names pgoptcc.conf" "$out" "^# pgoptcc.conf: $P/pgoptcc.conf"
like "show-config: policy from pgoptcc.conf, with its line" "$out" "\($P/pgoptcc.conf:[0-9]+\) policy = $P/p.policy"
like "show-config: defaults" "$out" "\(default\) cc = gcc"
out=$(cd src/lib && PGOPT_PREFIX=ccache "$W" --pgopt-show-config)
like "show-config: the environment, named" "$out" "\(environment PGOPT_PREFIX\) prefix = ccache"
like "show-config: the precedence, first" "$(sed -n 1p <<< "$out")" \
	"^# precedence: command line \(--pgopt-KEY=VALUE, in CC\) > environment \(PGOPT_KEY\) > pgoptcc.conf > default\$"
out=$(cd src/lib && PGOPT_POLICY=$P/other.policy "$W" --pgopt-policy=p.policy --pgopt-show-config)
like "show-config: the command line beats the environment and the file" "$out" "\(command line\) policy = $P/p.policy"
like "show-config: ... the file's other settings stay, with their line" "$out" "\($P/pgoptcc.conf:[0-9]+\) logdir = $P/log"
is "show-config: every setting listed once" "$(grep -c '^(' <<< "$out")" 12

# --- (c) precedence at make time ---
make -s clean >/dev/null 2>&1
PGOPT_POLICY=none make -s >make.out 2>&1
ok "(c) PGOPT_POLICY=none make builds" test -x src/prog
ok "(c) PGOPT_POLICY=none make: no object changed" none_changed
like "(c) ... logged as the environment's choice" "$(grep '"tu":"src/main.c"' "$log" | tail -n 1)" \
	'"policy":null,"changed":false.*"origins":\{"policy":"env","logdir":"conf"\}'
make -s clean >/dev/null 2>&1
PGOPT_POLICY=other.policy PGOPT_LOGDIR=log-make make -s >make.out 2>&1
ok "(c) the environment's policy at make wins" all_have -fno-ident
ok "(c) ... and replaces the configured one" sh -c "! readelf -p .GCC.command.line src/main.o | grep -q fno-plt"
is "(c) a relative PGOPT_LOGDIR at make: one directory, at the top" "$(logdirs log-make)" "$P/log-make "
like "(c) a relative PGOPT_POLICY at make: resolved at the top" \
	"$(grep '"tu":"src/lib/hot.c"' "$P/log-make/compile.jsonl" | tail -n 1)" "\"policy\":\"$P/other.policy\""

# a later configure rewrites pgoptcc.conf: a setting no longer given goes
make -s clean >/dev/null 2>&1
CC=$W PGOPT_LOGDIR=log2 ./configure > configure.out 2>&1
is "configure again: pgoptcc.conf has what this configure got" "$(grep -v '^#' pgoptcc.conf)" "logdir = $P/log2"
make -s >make.out 2>&1
ok "... make then builds without a policy" none_changed
ok "... and logs to the new directory" test -s "$P/log2/compile.jsonl"

# --- (b) options in CC ---
make -s clean >/dev/null 2>&1
rm -f config.h
./configure CC="$W --pgopt-policy=$P/p.policy --pgopt-logdir=$P/log-cc" > configure.out 2>&1
ok "(b) configure with CC=\"pgoptcc --pgopt-policy=ABS --pgopt-logdir=ABS\"" test -s config.h
ok "(e) options recipe: config.h identical to plain gcc's" cmp ../config.h.gcc config.h
like "(b) configure recorded the options in CC" "$(grep '^CC = ' src/Makefile)" "^CC = $W --pgopt-policy=$P/p.policy --pgopt-logdir=$P/log-cc\$"
is "(b) pgoptcc.conf holds no setting (the environment had none)" "$(grep -vc '^#' pgoptcc.conf)" 0
make -s >make.out 2>&1
ok "(b) every object has the policy's flags" all_have -fno-plt
ok "(b) every object carries the plugin's record" all_recorded
like "(b) the record: settings from CC's options" "$(grep '"tu":"src/lib/hot.c"' "$P/log-cc/compile.jsonl" | tail -n 1)" \
	'"origins":\{"policy":"cc","logdir":"cc"\}'
# relative options: resolved against the directory of pgoptcc.conf
make -s clean >/dev/null 2>&1
./configure CC="$W --pgopt-policy=p.policy --pgopt-logdir=log-rel" > configure.out 2>&1
make -s >make.out 2>&1
ok "(b) relative options in CC work from the subdirectories" all_have -fno-plt
is "(b) relative --pgopt-logdir: one directory, at the top" "$(logdirs log-rel)" "$P/log-rel "
# the compiler after the options, and the own options after settings
make -s clean >/dev/null 2>&1
make -s CC="$W --pgopt-policy=other.policy --pgopt-logdir=log-gcc gcc" >make.out 2>&1
ok "(b) CC=\"pgoptcc --pgopt-policy=... gcc\": options, then the compiler" all_have -fno-ident
like "(b) ... the compiler named after the options runs" "$(grep '"tu":"src/main.c"' "$P/log-gcc/compile.jsonl" | tail -n 1)" '"compiler":"/usr/(local/)?bin/gcc"' 
like "(b) own options after settings: --pgopt-show-config" \
	"$(cd src && "$W" --pgopt-policy=p.policy --pgopt-show-config)" "\(command line\) policy = $P/p.policy"
like "(b) own options after settings: --pgopt-version" "$("$W" --pgopt-logdir=/x --pgopt-version)" "^pgoptcc "
# CC's options beat configure's environment (command line > pgoptcc.conf):
# the policy the make log shows on every compile line is the one used
# (issue 42: the make log showed one policy while another was used)
make -s clean >/dev/null 2>&1
PGOPT_POLICY=other.policy PGOPT_PREFIX= ./configure CC="$W --pgopt-policy=p.policy --pgopt-logdir=log-both" > configure.out 2>&1
is "(c) (setup) pgoptcc.conf records configure's environment" "$(grep -v '^#' pgoptcc.conf)" "policy = $P/other.policy
prefix ="
make >make.out 2>&1
ok "(c) CC's options beat pgoptcc.conf" all_have -fno-plt
ok "(c) ... the file's policy is not used" sh -c "! readelf -p .GCC.command.line src/main.o | grep -q fno-ident"
like "(c) ... the make log shows the policy that was used" "$(grep -- '-c main.c' make.out)" "--pgopt-policy=p.policy"
like "(c) ... logged: policy and log from CC, prefix from pgoptcc.conf" \
	"$(grep '"tu":"src/main.c"' "$P/log-both/compile.jsonl" | tail -n 1)" '"origins":\{"policy":"cc","logdir":"cc","prefix":"conf"\}'
# ... and the environment at make time too (command line > environment)
make -s clean >/dev/null 2>&1
PGOPT_POLICY=other.policy PGOPT_LOGDIR=log-env make -s >make.out 2>&1
ok "(c) CC's options beat the environment at make" all_have -fno-plt
like "(c) ... logged as the command line's" \
	"$(grep '"tu":"src/main.c"' "$P/log-both/compile.jsonl" | tail -n 1)" '"origins":\{"policy":"cc","logdir":"cc","prefix":"conf"\}'
ok "(c) ... and the environment's log directory is not used" test ! -e "$P/log-env"
# ... while the environment still beats the file (environment > pgoptcc.conf)
make -s clean >/dev/null 2>&1
make -s CC="$W --pgopt-logdir=log-env2" >make.out 2>&1
ok "(c) no policy in CC: pgoptcc.conf's" all_have -fno-ident
make -s clean >/dev/null 2>&1
PGOPT_POLICY=p.policy make -s CC="$W --pgopt-logdir=log-env2" >make.out 2>&1
ok "(c) the environment beats pgoptcc.conf" all_have -fno-plt
like "(c) ... logged as the environment's" \
	"$(grep '"tu":"src/main.c"' "$P/log-env2/compile.jsonl" | tail -n 1)" '"origins":\{"policy":"env","logdir":"cc","prefix":"conf"\}'

# masquerade (configure records plain gcc): the policy given to configure
# reaches make, which needs only the PATH
make -s clean >/dev/null 2>&1
PATH=$B/lib/pgoptcc/masq:$PATH PGOPT_POLICY=$P/p.policy PGOPT_LOGDIR=$P/log-masq ./configure CC=gcc > configure.out 2>&1
like "masquerade: configure recorded CC = gcc" "$(grep '^CC = ' src/Makefile)" "^CC = gcc\$"
PATH=$B/lib/pgoptcc/masq:$PATH make -s >make.out 2>&1
ok "masquerade: make with only the PATH gets the configured policy" all_have -fno-plt
like "masquerade: ... from pgoptcc.conf" "$(grep '"tu":"src/main.c"' "$P/log-masq/compile.jsonl" | tail -n 1)" '"origins":\{"policy":"conf","logdir":"conf"\}'

# --- (d) a PGXS-style build: another directory, CC as configure recorded it ---
mkdir -p "$TMP/ext" && cd "$TMP/ext" || exit 1
printf 'int ext(int x) { return x - 1; }\n' > ext.c
printf 'ext.o: ext.c\n\t$(CC) -c ext.c -o ext.o\n' > Makefile
make -s CC="$W --pgopt-policy=$P/p.policy --pgopt-logdir=$TMP/ext-log" > make.out 2>&1
like "(d) absolute options in CC: the extension gets the policy" "$(switches ext.o)" "-fno-plt"
ok "(d) ... and logs where CC says" test -s "$TMP/ext-log/compile.jsonl"
rm -f ext.o
make -s CC="$W --pgopt-policy=p.policy" > make.out 2>&1; s=$?
ok "(d) a relative option with no pgoptcc.conf above: the build fails" test "$s" != 0
ok "(d) ... and builds nothing" test ! -e ext.o
"$W" --pgopt-policy=p.policy -c ext.c 2> err; s=$?
is "(d) a relative option with no pgoptcc.conf above: exit 108" "$s" 108
is "(d) ... one line saying to give an absolute path" "$(cat err)" \
	"pgoptcc: error: --pgopt-policy=p.policy: a relative path, and no pgoptcc.conf at or above $TMP/ext says what it is relative to (configure writes one at the top of the build tree): give an absolute path, e.g. --pgopt-policy=\$PWD/p.policy in CC when configuring"
# a relative environment value with no pgoptcc.conf: the working directory
cp "$P/p.policy" .
PGOPT_POLICY=p.policy "$W" -c ext.c -o ext2.o
like "a relative PGOPT_POLICY with no pgoptcc.conf: the working directory's" "$(switches ext2.o)" "-fno-plt"

# --- pgoptcc.conf by hand, and its errors ---
mkdir -p "$TMP/hand/sub" && cd "$TMP/hand" || exit 1
cp "$TMP/proj/src/lib/hot.c" sub/
printf '\xef\xbb\xbf# by hand\npolicy = ../proj/p.policy\n\nlogdir=hand-log\n' > pgoptcc.conf
(cd sub && "$W" -c hot.c -o hot.o)
like "a hand-written pgoptcc.conf: relative paths from its directory" "$(switches sub/hot.o)" "-fno-plt"
ok "... the log where it says" test -s "$TMP/hand/hand-log/compile.jsonl"
printf 'policy = /x\npolcy = /y\n' > pgoptcc.conf
(cd sub && "$W" -c hot.c -o hot.o) 2> err; s=$?
is "a bad key in pgoptcc.conf: exit 108" "$s" 108
is "... one line: path:line, the keys, a suggestion" "$(cat err)" \
	"pgoptcc: error: $TMP/hand/pgoptcc.conf:2: unknown key \"polcy\" (expected one of policy, logdir, prefix, root, cc, plugin, failsafe, records): did you mean \"policy\"?"
printf 'failsafe = yes\n' > pgoptcc.conf
(cd sub && "$W" -c hot.c -o hot.o) 2> err; s=$?
is "failsafe = yes in pgoptcc.conf: exit 108" "$s/$(cat err)" \
	"108/pgoptcc: error: $TMP/hand/pgoptcc.conf:1: failsafe = yes: expected failsafe = passthrough, or no such line"
printf 'policy = /nonexistent.policy\n' > pgoptcc.conf
(cd sub && "$W" -c hot.c -o hot.o) 2> err; s=$?
is "a policy in pgoptcc.conf that is gone: exit 101, never a silent plain build" "$s" 101
like "... naming it" "$(cat err)" "^pgoptcc: error: /nonexistent.policy: cannot read policy"
# a configure probe that cannot write pgoptcc.conf fails configure's first probe
rm -f pgoptcc.conf && mkdir pgoptcc.conf && cp sub/hot.c conftest.c && echo '/* confdefs.h */' > confdefs.h
PGOPT_POLICY=$P/p.policy "$W" -c conftest.c -o conftest.o 2> err; s=$?
is "a probe that cannot write pgoptcc.conf: exit 108" "$s" 108
is "... one line" "$(wc -l < err)" 1
is "... naming the file and why" "$(cat err)" "pgoptcc: error: cannot write $TMP/hand/pgoptcc.conf (configure's settings for make): Is a directory"
# a directory there is no pgoptcc.conf either: refused, not skipped
(cd sub && "$W" -c hot.c -o hot.o) 2> err; s=$?
is "a directory named pgoptcc.conf: exit 108, one line" "$s/$(cat err)" \
	"108/pgoptcc: error: cannot read $TMP/hand/pgoptcc.conf: it is a directory, expected a regular file"
rmdir pgoptcc.conf
# an option the table does not know, a setting without a value
"$W" --pgopt-polcy=x -c sub/hot.c 2> err; s=$?
is "an unknown --pgopt- option: exit 100" "$s" 100
like "... with a suggestion" "$(cat err)" "did you mean --pgopt-policy=\?\$"
"$W" --pgopt-logdir -c sub/hot.c 2> err; s=$?
is "--pgopt-logdir without =DIR: exit 100, one line" "$s/$(cat err)" \
	"100/pgoptcc: error: --pgopt-logdir: expected --pgopt-logdir=VALUE (directory of compile.jsonl and the plugin's records; empty: no log)"
"$W" --pgopt-failsafe=yes -c sub/hot.c 2> err; s=$?
is "--pgopt-failsafe=yes: exit 100" "$s/$(cat err)" "100/pgoptcc: error: --pgopt-failsafe=yes: expected --pgopt-failsafe=passthrough"

# --- a key twice, the caller-only settings ---
printf 'policy = /a.policy\nlogdir = /l\npolicy = /b.policy\n' > pgoptcc.conf
(cd sub && "$W" -c hot.c -o hot.o) 2> err; s=$?
is "a key twice in pgoptcc.conf: exit 108, both lines named" "$s/$(cat err)" \
	"108/pgoptcc: error: $TMP/hand/pgoptcc.conf:3: expected policy once (line 1 sets it already)"
printf 'unchecked-flags = 1\n' > pgoptcc.conf
(cd sub && "$W" -c hot.c -o hot.o) 2> err; s=$?
is "unchecked-flags in pgoptcc.conf: exit 108, only the caller may" "$s/$(cat err)" \
	"108/pgoptcc: error: $TMP/hand/pgoptcc.conf:1: unchecked-flags cannot be set in pgoptcc.conf: only whoever runs the build can set it (PGOPT_UNCHECKED_FLAGS in the environment, or --pgopt-unchecked-flags=VALUE)"
printf 'profile = generate\n' > pgoptcc.conf
(cd sub && "$W" -c hot.c -o hot.o) 2> err; s=$?
is "profile in pgoptcc.conf: exit 108" "$s" 108
# a configure probe records neither (make must be given them again)
rm -f pgoptcc.conf
PGOPT_UNCHECKED_FLAGS=1 PGOPT_PROFILE=generate PGOPT_LOGDIR=$TMP/hand/plog "$W" -c conftest.c -o conftest.o 2> err; s=$?
is "a probe with the caller-only settings: builds" "$s/$(cat err)" "0/"
is "... pgoptcc.conf records the logdir alone" "$(grep -v '^#' pgoptcc.conf)" "logdir = $TMP/hand/plog"
like "show-config lists them, from the environment" "$(cd sub && PGOPT_UNCHECKED_FLAGS=1 "$W" --pgopt-show-config)" \
	"\(environment PGOPT_UNCHECKED_FLAGS\) unchecked-flags = true"
# unchecked-flags is a boolean: git's words, any case; a wrong one an error
for v in yes On TRUE 1; do
	like "PGOPT_UNCHECKED_FLAGS=$v: true" "$(cd sub && PGOPT_UNCHECKED_FLAGS=$v "$W" --pgopt-show-config)" \
		"\(environment PGOPT_UNCHECKED_FLAGS\) unchecked-flags = true"
done
for v in no off False 0 ''; do
	like "PGOPT_UNCHECKED_FLAGS='$v': false" "$(cd sub && PGOPT_UNCHECKED_FLAGS=$v "$W" --pgopt-show-config)" \
		"\(environment PGOPT_UNCHECKED_FLAGS\) unchecked-flags = false"
done
like "--pgopt-unchecked-flags=off beats PGOPT_UNCHECKED_FLAGS=yes" \
	"$(cd sub && PGOPT_UNCHECKED_FLAGS=yes "$W" --pgopt-unchecked-flags=off --pgopt-show-config)" \
	"\(command line\) unchecked-flags = false"
PGOPT_UNCHECKED_FLAGS=maybe "$W" -c sub/hot.c -o hot.o 2> err; s=$?
is "PGOPT_UNCHECKED_FLAGS=maybe: exit 100, the variable and the words" "$s/$(cat err)" \
	"100/pgoptcc: error: PGOPT_UNCHECKED_FLAGS=maybe: expected a boolean: yes, no, true, false, on, off, 1 or 0 (empty is no)"
"$W" --pgopt-unchecked-flags=2 -c sub/hot.c -o hot.o 2> err; s=$?
is "--pgopt-unchecked-flags=2: exit 100, the option and the words" "$s/$(cat err)" \
	"100/pgoptcc: error: --pgopt-unchecked-flags=2: expected a boolean: yes, no, true, false, on, off, 1 or 0 (empty is no)"
rm -f pgoptcc.conf conftest.c confdefs.h conftest.o

# --- which pgoptcc.conf is trusted ---
mkdir -p "$TMP/trust/sub" && cd "$TMP/trust" || exit 1
cp "$TMP/proj/src/lib/hot.c" sub/
printf 'policy = %s\n' "$P/p.policy" > pgoptcc.conf
chmod 0644 pgoptcc.conf
(cd sub && "$W" -c hot.c -o hot.o) 2> err; s=$?
is "our own pgoptcc.conf, 0644: used" "$s/$(cat err)" "0/"
like "... its policy applied" "$(switches sub/hot.o)" "-fno-plt"
chmod 0666 pgoptcc.conf
(cd sub && "$W" -c hot.c -o hot.o) 2> err; s=$?
is "a pgoptcc.conf others can write: exit 108, never a silent plain build" "$s" 108
like "... one line: the file, its owner and mode, the fix" "$(cat err)" \
	"^pgoptcc: error: refusing $TMP/trust/pgoptcc.conf: it is owned by [^ ]+ \(uid $(id -u)\) with mode 0666, writable by others \(another user could choose the compiler\): chmod go-w $TMP/trust/pgoptcc.conf\$"
is "... one line" "$(wc -l < err)" 1
chmod 0644 pgoptcc.conf
chmod 0777 .
(cd sub && "$W" -c hot.c -o hot.o) 2> err; s=$?
is "in a directory others can write, not sticky: exit 108" "$s" 108
like "... naming the directory and the fix" "$(cat err)" \
	"refusing $TMP/trust/pgoptcc.conf: its directory $TMP/trust is owned by .* with mode 0777, writable by others and not sticky \(another user could replace the file\): chmod go-w $TMP/trust\$"
chmod 0755 .
ln -sf "$TMP/trust/pgoptcc.conf" sub/pgoptcc.conf
(cd sub && "$W" -c hot.c -o hot.o) 2> err; s=$?
is "a pgoptcc.conf that is a symbolic link: exit 108" "$s/$(cat err)" \
	"108/pgoptcc: error: refusing $TMP/trust/sub/pgoptcc.conf: it is a symbolic link, expected a regular file (pgoptcc reads only a file it can check: replace the link by a copy)"
rm -f sub/pgoptcc.conf
mkfifo sub/pgoptcc.conf
(cd sub && timeout 20 "$W" -c hot.c -o hot.o) 2> err; s=$?
is "a FIFO: exit 108 at once" "$s/$(cat err)" \
	"108/pgoptcc: error: cannot read $TMP/trust/sub/pgoptcc.conf: it is a FIFO, expected a regular file"
rm -f sub/pgoptcc.conf

if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null && id nobody >/dev/null 2>&1; then
	# the issue's case: nobody writes pgoptcc.conf into a sticky
	# world-writable directory; root compiles in a subdirectory of it
	mkdir -p "$TMP/ww" && chmod 1777 "$TMP/ww" && mkdir -p "$TMP/ww/sub" && cd "$TMP/ww" || exit 1
	cp "$TMP/proj/src/lib/hot.c" sub/
	runuser -u nobody -- sh -c "printf '#!/bin/sh\ntouch $TMP/ww/PWNED\nexec gcc \"\\\$@\"\n' > $TMP/ww/evil-cc && chmod 755 $TMP/ww/evil-cc &&
		printf 'cc = $TMP/ww/evil-cc\n' > $TMP/ww/pgoptcc.conf && chmod 644 $TMP/ww/pgoptcc.conf"
	is "(setup) nobody's pgoptcc.conf" "$(stat -c %U pgoptcc.conf)" nobody
	(cd sub && "$W" -c hot.c -o hot.o) 2> err; s=$?
	is "root under nobody's pgoptcc.conf: exit 108" "$s" 108
	is "... one line naming the file, its owner and the fix" "$(cat err)" \
		"pgoptcc: error: refusing $TMP/ww/pgoptcc.conf: it is owned by nobody (uid $(id -u nobody)) with mode 0644, expected a file of root (another user's pgoptcc.conf would choose the compiler): remove it, or chown it if you trust it"
	ok "... nobody's compiler never ran" test ! -e PWNED
	ok "... and nothing was built" test ! -e sub/hot.o
	# ignored only where it makes no difference: the environment gives
	# everything it sets (what pgbuild does for a tree it handed to the
	# server user), so none of its values is used
	(cd sub && PGOPT_CC=gcc PGOPT_LOGDIR=$TMP/ww/log "$W" -c hot.c -o hot.o) 2> err; s=$?
	is "... with PGOPT_CC given: ignored, the compile builds, silent" "$s/$(cat err)" "0/"
	ok "... nobody's compiler still never ran" test ! -e PWNED
	like "... the record says it was ignored" "$(tail -n 1 log/compile.jsonl)" \
		"\"compiler\":\"/usr/(local/)?bin/gcc\".*\"config\":null,\"config_ignored\":\"$TMP/ww/pgoptcc.conf\""
	like "... and show-config says why" "$(cd sub && PGOPT_CC=gcc "$W" --pgopt-show-config | grep '^# pgoptcc.conf:')" \
		"^# pgoptcc.conf: none used; $TMP/ww/pgoptcc.conf cannot be trusted and is ignored"
	(cd sub && PGOPT_POLICY=$P/p.policy "$W" -c hot.c -o hot.o) 2> err; s=$?
	is "... a setting of the environment that does not cover it: still refused" "$s" 108
	# a directory of nobody's holding root's file: nobody could replace it
	rm -f pgoptcc.conf evil-cc
	mkdir -p nb && chown nobody nb && mkdir -p nb/sub && cp sub/hot.c nb/sub/
	printf 'policy = %s\n' "$P/p.policy" > nb/pgoptcc.conf
	(cd nb/sub && "$W" -c hot.c -o hot.o) 2> err; s=$?
	is "root's file in nobody's directory: exit 108" "$s" 108
	like "... naming the directory's owner" "$(cat err)" "its directory $TMP/ww/nb is owned by nobody .* expected a directory of root"
	# the search stops at a file-system boundary: a pgoptcc.conf above a
	# mount point is not the one of the tree below it
	cd "$TMP/trust" || exit 1
	if mkdir -p mnt && mount -t tmpfs -o size=1m tmpfs mnt; then
		mkdir -p mnt/sub && cp sub/hot.c mnt/sub/
		out=$(cd mnt/sub && "$W" --pgopt-show-config | grep '^# pgoptcc.conf:')
		is "below a mount point: the pgoptcc.conf above it is not used" "$out" "# pgoptcc.conf: none at or above $TMP/trust/mnt/sub"
		(cd mnt/sub && "$W" -c hot.c -o hot.o)
		is "... the compile is plain gcc's" "$(switches mnt/sub/hot.o)" ""
		printf 'policy = %s\n' "$P/p.policy" > mnt/pgoptcc.conf
		out=$(cd mnt/sub && "$W" --pgopt-show-config | grep '^# pgoptcc.conf:')
		is "... one at the mount's top is used" "$out" "# pgoptcc.conf: $TMP/trust/mnt/pgoptcc.conf"
		umount mnt
	else
		skip "cannot mount a tmpfs here" 3
	fi
else
	skip "another user's pgoptcc.conf and file-system boundaries need root, runuser and user nobody" 15
fi
done_testing
