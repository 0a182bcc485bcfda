#!/bin/bash
# 13-wrapper-probes.t - configure and meson probes come out unchanged:
# a real autoconf configure gives a byte-identical config.h with plain gcc
# and with CC=pgoptcc under every example policy, and under failsafe =
# passthrough with a policy it cannot use (no warning in configure's
# output or config.log; the compiles after it warn); meson setup works
# with CC=pgoptcc, its probes are passed through and the real compiles
# are not.
. "$(dirname "$0")/../lib/tap.sh"
W=$B/bin/pgoptcc
export PGOPT_PLUGIN=off
cd "$TMP" || exit 1
command -v autoconf >/dev/null || skip_all "autoconf not installed (make deps)"
mkdir ac && cd ac || exit 1
cat > configure.ac <<'AC'
AC_INIT([probe], [1.0])
AC_CONFIG_HEADERS([config.h])
AC_PROG_CC
AC_C_BIGENDIAN
AC_C_INLINE
AC_CHECK_SIZEOF([long])
AC_CHECK_FUNCS([strlcpy memset_s posix_fadvise])
AC_CHECK_HEADERS([sys/epoll.h nosuch.h])
AC_CHECK_LIB([m], [cos])
AC_MSG_CHECKING([whether $CC supports -fexcess-precision=standard])
save=$CFLAGS; CFLAGS="$CFLAGS -Werror -fexcess-precision=standard"
AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
  [AC_DEFINE([HAVE_EXCESS], 1, [flag]) AC_MSG_RESULT(yes)], [AC_MSG_RESULT(no)])
CFLAGS=$save
AC_RUN_IFELSE([AC_LANG_PROGRAM([], [return sizeof(void *) != 8;])],
  [AC_DEFINE([PTR64], 1, [8-byte pointers])], [], [])
AC_OUTPUT
AC
autoconf 2>/dev/null && autoheader 2>/dev/null
ok "autoconf generated configure" test -x configure
./configure CC=gcc >/dev/null 2>&1 && cp config.h ../config.h.gcc
ok "plain gcc configure" test -s ../config.h.gcc
for pol in "$TOP"/examples/*.policy; do
	name=$(basename "$pol")
	rm -f config.h config.log
	PGOPT_POLICY=$pol PGOPT_LOGDIR=$TMP/log-$name ./configure CC="$W" >/dev/null 2>&1
	ok "$name: config.h identical to plain gcc's" cmp ../config.h.gcc config.h
	n=$(grep -c '"changed":true' "$TMP/log-$name/compile.jsonl")
	is "$name: no probe was changed" "$n" 0
	probes=$(grep -c '"reason":"conftest"' "$TMP/log-$name/compile.jsonl")
	like "$name: probes were seen and passed through ($probes)" "$probes" "^[1-9][0-9]*$"
done
# failsafe = passthrough with a policy it cannot use: configure's results
# are plain gcc's and nothing of pgoptcc's reaches its output or
# config.log; the build's compiles after it (settings from the pgoptcc.conf
# the probes wrote) each say in one warning line that the policy was not used
printf '[global]\ncflags += -fomit-frame-pointr\n' > "$TMP/typo.policy"
rm -f config.h config.log pgoptcc.conf
PGOPT_FAILSAFE=passthrough PGOPT_POLICY=$TMP/typo.policy PGOPT_LOGDIR=$TMP/log-fs ./configure CC="$W" >configure.out 2>&1
ok "failsafe, unusable policy: config.h identical to plain gcc's" cmp ../config.h.gcc config.h
is "failsafe, unusable policy: no pgoptcc warning in configure's output or config.log" \
	"$(cat configure.out config.log | grep -c 'pgoptcc: warning')" 0
like "failsafe, unusable policy: the probes were logged as such" \
	"$(grep -c '"reason":"conftest"' "$TMP/log-fs/compile.jsonl")" "^[1-9][0-9]*$"
printf 'int main(void) { return 0; }\n' > main.c
"$W" -c main.c -o main.o 2>err; s=$?
is "failsafe, unusable policy: make's compile after configure warns, one line" "$s/$(cat err)" \
	"0/pgoptcc: warning: policy $TMP/typo.policy unusable ($TMP/typo.policy:2: cannot add -fomit-frame-pointr: it is not an optimization option the vocabulary knows (did you mean -fomit-frame-pointer?)); compiled with the caller's flags (failsafe passthrough)"
cd "$TMP" || exit 1

# --- meson ---
if ! command -v meson >/dev/null || ! command -v ninja >/dev/null; then
	skip "meson/ninja not installed (make deps): meson probes not tested" 8
	done_testing
fi
mkdir -p ms/src && cd ms || exit 1
cat > meson.build <<'MB'
project('probe', 'c')
cc = meson.get_compiler('c')
conf = configuration_data()
conf.set('HAVE_STRLCPY', cc.has_function('strlcpy'))
conf.set('HAVE_EPOLL', cc.has_header('sys/epoll.h'))
conf.set('SIZEOF_LONG', cc.sizeof('long'))
conf.set('HAVE_FEXCESS', cc.has_argument('-fexcess-precision=standard'))
configure_file(output: 'config.h', configuration: conf)
executable('prog', 'src/main.c', 'src/hot.c')
MB
printf 'int hot(int);\nint main(void) { return hot(0); }\n' > src/main.c
printf 'int hot(int x) { return x; }\n' > src/hot.c
printf '[src/hot.c]\ncflags += -fno-plt\n' > p.policy
CC=gcc meson setup b-gcc >/dev/null 2>&1
ok "meson setup with gcc" test -f b-gcc/config.h
CC="$W" PGOPT_ROOT=$TMP/ms PGOPT_POLICY=$TMP/ms/p.policy PGOPT_LOGDIR=$TMP/mlog meson setup b-w > setup.out 2>&1
ok "meson setup with CC=pgoptcc" test -f b-w/config.h
ok "meson config.h identical" cmp b-gcc/config.h b-w/config.h
like "meson saw gcc through pgoptcc" "$(grep -i 'C compiler for the host' setup.out)" "gcc"
is "meson probes never changed" "$(grep -c '"changed":true' "$TMP/mlog/compile.jsonl")" 0
like "meson probes classified" "$(grep -cE '"reason":"(meson_probe|query|no_input|preprocess)"' "$TMP/mlog/compile.jsonl")" "^[1-9]"
PGOPT_ROOT=$TMP/ms PGOPT_POLICY=$TMP/ms/p.policy PGOPT_LOGDIR=$TMP/mlog ninja -C b-w >/dev/null 2>&1
ok "ninja build through pgoptcc" test -x b-w/prog
like "the project's own compile got the policy" "$(grep '"tu":"src/hot.c"' "$TMP/mlog/compile.jsonl")" '"changed":true'
done_testing
