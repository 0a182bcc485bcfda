#!/bin/bash
# 98-hardening-spellings.t - the hardening a policy may not weaken, in the
# spellings 96-vocabulary does not try.
#
# Real pgoptcc compiles with real gcc 12.  Each of these weakened the
# build's hardening without the caller's PGOPT_WEAKEN, and each is now
# refused (exit 101, file:line, the class and how to allow it), nothing
# compiled: -fcf-protection=check (no endbr64 at all, replacing =full),
# --param=stack-clash-protection-guard-size=30 (no probe in a 70000-byte
# frame), --param=ssp-buffer-size=64 (no canary for f()'s buf[16] under
# -fstack-protector),
# -D_FORTIFY_SOURCE=00 and =01 (the table's =0 and =1 with a leading zero:
# no __strcpy_chk), and cflags -= -O2 with no level added after it (glibc's
# checks need optimization).  Each control shows gcc does what the refusal
# prevents; allowed by the caller, the flag reaches gcc and the compile
# record names the class.  A removal the policy replaces (-= -O2, += -O3)
# or that leaves the command line's own level is no weakening.
. "$(dirname "$0")/../lib/tap.sh"
cd "$TMP" || exit 1
W=$B/bin/pgoptcc
unset CC CFLAGS CCACHE_DIR $(env | sed -n 's/^\(PGOPT_[A-Z_]*\)=.*/\1/p' | grep -vx PGOPT_KEEP_TMP)
export PGOPT_CACHE_DIR=$TMP/cache
mkdir -p log
rec() { jq -c --arg o "$1" 'select(.output == $o)' "$TMP/log/compile.jsonl" | tail -n 1; }

cat > h.c <<'C'
#include <string.h>
void use(char *);
int f(const char *s) { char buf[16]; strcpy(buf, s); use(buf); return buf[0]; }
int big(int n) { char b[70000]; use(b); return b[n]; }
void use(char *p) { (void)p; }
C

# the evidence: $1 the object, $2 what it must not have any more
shows() {
	case $2 in
	noendbr) ! objdump -d "$1" | grep -q endbr64 ;;
	noprobe) ! objdump -d --disassemble=big "$1" | grep -Eq 'or[q ].*\$0x0,.*\(%rsp\)' ;;
	nocanary) ! objdump -dr --disassemble=f "$1" | grep -q __stack_chk_fail ;;
	nochk) ! nm "$1" | grep -q __strcpy_chk ;;
	esac
}

# --- controls: the distribution's flags do what the weakenings undo, and
# gcc itself takes each weakening ---
gcc -O2 -fcf-protection=full -c h.c -o c1.o && gcc -O2 -fstack-clash-protection -c h.c -o c2.o &&
	gcc -O2 -fstack-protector -c h.c -o c3.o && gcc -O2 -D_FORTIFY_SOURCE=2 -c h.c -o c4.o
nok "control: -fcf-protection=full puts endbr64 there" shows c1.o noendbr
nok "control: -fstack-clash-protection probes big()'s frame" shows c2.o noprobe
nok "control: -fstack-protector guards buf[16]" shows c3.o nocanary
nok "control: -D_FORTIFY_SOURCE=2 calls __strcpy_chk" shows c4.o nochk
gcc -O2 -fcf-protection=full -fcf-protection=check -c h.c -o g1.o
ok "control: gcc -fcf-protection=full -fcf-protection=check: no endbr64" shows g1.o noendbr
gcc -O2 -fstack-clash-protection --param=stack-clash-protection-guard-size=30 -c h.c -o g2.o
ok "control: gcc ... guard-size=30: big() unprobed" shows g2.o noprobe
gcc -O2 -fstack-protector --param=ssp-buffer-size=64 -c h.c -o g3.o
ok "control: gcc -fstack-protector --param=ssp-buffer-size=64: no canary" shows g3.o nocanary
gcc -O2 -D_FORTIFY_SOURCE=2 -D_FORTIFY_SOURCE=00 -c h.c -o g4.o 2>/dev/null
ok "control: gcc ... -D_FORTIFY_SOURCE=00: no __strcpy_chk" shows g4.o nochk
gcc -D_FORTIFY_SOURCE=2 -c h.c -o g5.o 2>/dev/null
ok "control: gcc -D_FORTIFY_SOURCE=2 without -O2: no __strcpy_chk" shows g5.o nochk

# --- refused without the caller, allowed with it ---
# class | policy line | the command line's flags | what shows it took effect
cases="cet|cflags += -fcf-protection=check|-fcf-protection=full|noendbr
stack-clash|cflags += --param=stack-clash-protection-guard-size=30|-fstack-clash-protection|noprobe
stack-clash|cflags += --param=stack-clash-protection-probe-interval=16|-fstack-clash-protection|-
stack-protector|cflags += --param=ssp-buffer-size=64|-fstack-protector|nocanary"
n=0
while IFS='|' read -r class line given evidence; do
	n=$((n + 1))
	flag=${line##* }
	printf '[global]\n%s\n' "$line" > w$n.policy
	PGOPT_POLICY=$TMP/w$n.policy PGOPT_LOGDIR=$TMP/log "$W" -O2 $given -c h.c -o w$n.o 2>err; s=$?
	like "$class ($line): refused, exit 101, file:line, the class, how to allow it" "$s/$(cat err)" \
		"^101/pgoptcc: error: $TMP/w$n.policy:2: cannot add $flag: it weakens the build's hardening \\($class: .*\\); allow it with PGOPT_WEAKEN=$class in the environment"
	nok "... nothing compiled" test -e w$n.o
	PGOPT_WEAKEN=$class PGOPT_POLICY=$TMP/w$n.policy PGOPT_LOGDIR=$TMP/log "$W" -O2 $given -c h.c -o w$n.o 2>err
	is "... allowed by PGOPT_WEAKEN=$class: exit 0, silent" "$?/$(cat err)" "0/"
	is "... the record names the class" "$(rec w$n.o | jq -c .weakened)" "[\"$class\"]"
	[ "$evidence" = - ] || ok "... and it took effect ($evidence)" shows w$n.o "$evidence"
done <<<"$cases"

# --- integers with a leading zero: not the table's spelling, refused ---
for v in 00 01; do
	printf '[global]\ncflags += -D_FORTIFY_SOURCE=%s\n' $v > z$v.policy
	PGOPT_WEAKEN=stack-protector PGOPT_POLICY=$TMP/z$v.policy "$W" -O2 -D_FORTIFY_SOURCE=2 -c h.c -o z$v.o 2>err
	like "-D_FORTIFY_SOURCE=$v: refused (no leading zero), exit 101" "$?/$(cat err)" \
		"^101/pgoptcc: error: $TMP/z$v.policy:2: cannot add -D_FORTIFY_SOURCE=$v: its value is not one the vocabulary allows \\(expected -D_FORTIFY_SOURCE=N, N a decimal integer from 0 to 3\\)\$"
	nok "... nothing compiled" test -e z$v.o
done
printf '[global]\ncflags += --param=max-unroll-times=08\n' > z8.policy
PGOPT_POLICY=$TMP/z8.policy "$W" -O2 -c h.c -o z8.o 2>err
like "--param=max-unroll-times=08: refused too (every integer of the vocabulary)" "$?/$(cat err)" \
	'^101/.*cannot add --param=max-unroll-times=08: its value is not one'

# --- removing the optimization level ---
printf '[global]\ncflags -= -O2\n' > o.policy
PGOPT_POLICY=$TMP/o.policy PGOPT_LOGDIR=$TMP/log "$W" -O2 -D_FORTIFY_SOURCE=2 -c h.c -o o1.o 2>err
like "cflags -= -O2 leaving no level: refused, exit 101, file:line, fortify, how to allow it" "$?/$(cat err)" \
	"^101/pgoptcc: error: $TMP/o.policy:2: cannot remove -O2 from h.c: the compile is left without optimization, which turns _FORTIFY_SOURCE off \\(it weakens the build's hardening: fortify: .*\\); add the level it should have after it \\(cflags \\+= -O3\\), or allow it with PGOPT_WEAKEN=fortify"
nok "... nothing compiled" test -e o1.o
PGOPT_WEAKEN=fortify PGOPT_POLICY=$TMP/o.policy PGOPT_LOGDIR=$TMP/log "$W" -O2 -D_FORTIFY_SOURCE=2 -c h.c -o o1.o 2>err
is "... allowed by PGOPT_WEAKEN=fortify: exit 0" "$?/$(cat err)" "0/"
is "... the record names fortify" "$(rec o1.o | jq -c .weakened)" '["fortify"]'
ok "... and FORTIFY is off (no __strcpy_chk)" shows o1.o nochk
printf '[global]\ncflags -= -O2\ncflags += -O3\n' > o3.policy
PGOPT_POLICY=$TMP/o3.policy PGOPT_LOGDIR=$TMP/log "$W" -O2 -D_FORTIFY_SOURCE=2 -c h.c -o o3.o 2>err
is "cflags -= -O2 then += -O3: no weakening, exit 0" "$?/$(cat err)" "0/"
is "... the record names none" "$(rec o3.o | jq -c '.weakened // []')" '[]'
nok "... FORTIFY on (__strcpy_chk)" shows o3.o nochk
printf '[global]\ncflags += -O3\n[h.c]\ncflags -= -O3\n' > o4.policy
PGOPT_POLICY=$TMP/o4.policy "$W" -O2 -D_FORTIFY_SOURCE=2 -c h.c -o o4.o 2>err
is "a section taking back another's -O3 (the command line's -O2 stays): exit 0" "$?/$(cat err)" "0/"
PGOPT_POLICY=$TMP/o.policy "$W" -O2 -O1 -c h.c -o o5.o 2>err
is "cflags -= -O2 where -O1 stays: exit 0" "$?/$(cat err)" "0/"
PGOPT_POLICY=$TMP/o.policy "$W" -c h.c -o o6.o 2>err
is "cflags -= -O2 on a compile that never optimized: no weakening, exit 0" "$?/$(cat err)" "0/"

done_testing
