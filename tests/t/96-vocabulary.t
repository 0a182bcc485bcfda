#!/bin/bash
# 96-vocabulary.t - flags from data go through one allow-list, and the
# build's hardening is weakened only when the caller says so.
#
# Real pgoptcc compiles and links with real gcc: a policy that weakens each
# hardening class (stack protector, CET, PIE, RELRO, BIND_NOW, FORTIFY,
# stack clash) is refused (exit 101, file:line, the class and how to allow
# it) and nothing is compiled; allowed by the caller (PGOPT_WEAKEN, or
# --pgopt-weaken= in CC) the compile gets the flag, the object or program
# shows it (no canary, no endbr64, EXEC, no GNU_RELRO, no BIND_NOW, no
# __strcpy_chk), and its compile record names the class.  Another class,
# PGOPT_UNCHECKED_FLAGS=1 or a pgoptcc.conf line do not allow it.  pgbuild
# build refuses a no-pie policy before building, and with --weaken pie
# builds a small PostgreSQL-shaped tree whose build record, compile records
# and verify name pie.  llvm-bolt's flags: --bolt-flags of bolt and
# optimize, and a bundle's manifest (made by `pgbuild bundle create --bolt`
# from a bolt record), that take a runtime library, write or read a file,
# or print are refused before llvm-bolt starts, naming the flag, and no
# file is made.  A misspelt option (added, removed, or its -fno- spelling)
# is refused naming the nearest one the vocabulary knows.
. "$(dirname "$0")/../lib/tap.sh"
cd "$TMP" || exit 1
W=$B/bin/pgoptcc P=$B/bin/pgbuild
unset CC CFLAGS CCACHE_DIR $(env | sed -n 's/^\(PGOPT_[A-Z_]*\)=.*/\1/p' | grep -vx PGOPT_KEEP_TMP)
export PGOPT_CACHE_DIR=$TMP/cache
# the last compile-log record of the output $1 (as written: relative)
rec() { jq -c --arg o "$1" 'select(.output == $o)' "$TMP/log/compile.jsonl" | tail -n 1; }

cat > h.c <<'C'
#include <string.h>
void use(char *);
int f(const char *s) { char buf[16]; strcpy(buf, s); use(buf); return buf[0]; }
void use(char *p) { (void)p; }
int main(int c, char **v) { (void)c; return f(v[0]) == 0; }
C

# --- every class: refused, then allowed; the flag reaches gcc ---
# class | policy line | flags of the command line (the distribution's)
# | compile (c) or link (l) | what shows the flag took effect
cases="stack-protector|cflags += -fno-stack-protector|-fstack-protector-strong|c|nocanary
stack-protector|cflags -= -fstack-protector-strong|-fstack-protector-strong|c|nocanary
cet|cflags += -fcf-protection=none|-fcf-protection=full|c|noendbr
cet|cflags -= -fcf-protection=full|-fcf-protection=full|c|noendbr
pie|cflags += -fno-pie|-fPIE|c|-
pie|ldflags += -no-pie|-pie|l|exec
relro|ldflags += -Wl,-z,norelro|-Wl,-z,relro|l|norelro
bind-now|ldflags += -Wl,-z,lazy|-Wl,-z,now|l|lazy
bind-now|ldflags -= -Wl,-z,now|-Wl,-z,now|l|lazy
fortify|cflags += -U_FORTIFY_SOURCE|-D_FORTIFY_SOURCE=2|c|nochk
fortify|cflags -= -D_FORTIFY_SOURCE=2|-D_FORTIFY_SOURCE=2|c|nochk
stack-clash|cflags += -fno-stack-clash-protection|-fstack-clash-protection|c|-"
gcc -O2 -c h.c -o h0.o || exit 1
mkdir -p log
n=0
while IFS='|' read -r class line given kind shows; do
	n=$((n + 1))
	key=${line%% *} op=${line#* } flag=${line##* }
	op=${op%% *}
	what=$([ "$op" = "+=" ] && echo add || echo remove)
	printf '# weakens %s\n[global]\n%s\n' "$class" "$line" > w$n.policy
	if [ "$kind" = c ]; then out=w$n.o; set -- -O2 $given -c h.c -o "$out"
	else out=w$n; set -- -O2 $given h0.o -o "$out"; fi
	PGOPT_POLICY=$TMP/w$n.policy PGOPT_LOGDIR=$TMP/log "$W" "$@" 2>err; s=$?
	like "$class ($line): refused, exit 101, file:line, the class, how to allow it" "$s/$(cat err)" \
		"^101/pgoptcc: error: $TMP/w$n.policy:3: cannot $what $flag: it weakens the build's hardening \\($class: .*\\); allow it with PGOPT_WEAKEN=$class in the environment \\(--pgopt-weaken=$class in CC, pgbuild --weaken $class\\)\$"
	nok "... nothing compiled" test -e "$out"
	PGOPT_WEAKEN=$class PGOPT_POLICY=$TMP/w$n.policy PGOPT_LOGDIR=$TMP/log "$W" "$@" 2>err
	is "... allowed by PGOPT_WEAKEN=$class: exit 0, silent" "$?/$(cat err)" "0/"
	r=$(rec "$out")
	is "... the record names the class" "$(printf '%s' "$r" | jq -c .weakened)" "[\"$class\"]"
	if [ "$op" = "+=" ]; then
		is "... the compiler got $flag" "$(printf '%s' "$r" | jq --arg f "$flag" '.argv_out | index($f) != null')" true
	else
		is "... $flag taken out of the compiler's command line" \
			"$(printf '%s' "$r" | jq --arg f "$flag" '[(.argv_in | index($f) != null), (.argv_out | index($f) == null)] | all')" true
	fi
	case $shows in
	nocanary) nok "... no stack canary in the object" sh -c "nm $out | grep -q __stack_chk_fail" ;;
	noendbr) nok "... no endbr64 in the object" sh -c "objdump -d $out | grep -q endbr64" ;;
	exec) like "... a position-dependent program (EXEC)" "$(readelf -h "$out" | grep Type:)" 'EXEC' ;;
	norelro) nok "... no GNU_RELRO segment" sh -c "readelf -lW $out | grep -q GNU_RELRO" ;;
	lazy) nok "... no BIND_NOW" sh -c "readelf -dW $out | grep -Eq 'BIND_NOW|FLAGS_1.*NOW'" ;;
	nochk) nok "... no __strcpy_chk (FORTIFY off)" sh -c "nm $out | grep -q __strcpy_chk" ;;
	esac
done <<<"$cases"
# the controls: the distribution's flags alone do what the weakenings undo
gcc -O2 -fstack-protector-strong -c h.c -o c1.o && gcc -O2 -fcf-protection=full -c h.c -o c2.o &&
	gcc -O2 -D_FORTIFY_SOURCE=2 -c h.c -o c3.o && gcc -O2 -pie -Wl,-z,relro -Wl,-z,now h0.o -o c4
ok "control: -fstack-protector-strong puts a canary there" sh -c 'nm c1.o | grep -q __stack_chk_fail'
ok "control: -fcf-protection=full puts endbr64 there" sh -c 'objdump -d c2.o | grep -q endbr64'
ok "control: -D_FORTIFY_SOURCE=2 calls __strcpy_chk" sh -c 'nm c3.o | grep -q __strcpy_chk'
ok "control: -pie -z relro -z now: DYN, GNU_RELRO, BIND_NOW" sh -c \
	'readelf -h c4 | grep -q DYN && readelf -lW c4 | grep -q GNU_RELRO && readelf -dW c4 | grep -Eq "BIND_NOW|FLAGS_1.*NOW"'

# --- the caller's channel, and nothing else ---
printf '[global]\ncflags += -fno-pie\nldflags += -no-pie\n' > np.policy
PGOPT_LOGDIR=$TMP/log "$W" --pgopt-policy=$TMP/np.policy --pgopt-weaken=pie gcc -O2 -c h.c -o cc.o 2>err
is "--pgopt-weaken=pie in CC allows it" "$?/$(cat err)" "0/"
like "... recorded, and where it came from" "$(rec cc.o)" '"weakened":\["pie"\].*"origins":\{.*"weaken":"cc"'
PGOPT_WEAKEN=relro,bind-now PGOPT_POLICY=$TMP/np.policy "$W" -O2 -c h.c -o x1.o 2>err
like "another class allowed: still refused" "$?/$(cat err)" '^101/.*cannot add -fno-pie: it weakens'
PGOPT_UNCHECKED_FLAGS=1 PGOPT_POLICY=$TMP/np.policy "$W" -O2 -c h.c -o x2.o 2>err
like "PGOPT_UNCHECKED_FLAGS=1 does not allow it" "$?/$(cat err)" '^101/.*cannot add -fno-pie: it weakens'
PGOPT_WEAKEN=pei PGOPT_POLICY=$TMP/np.policy "$W" -O2 -c h.c -o x3.o 2>err
like "PGOPT_WEAKEN with an unknown class: exit 100, the nearest one" "$?/$(cat err)" \
	'^100/pgoptcc: error: PGOPT_WEAKEN=pei: unknown hardening class "pei": expected .*\(did you mean "pie"\?\)$'
mkdir -p conf && printf 'policy = %s\nweaken = pie\n' "$TMP/np.policy" > conf/pgoptcc.conf
(cd conf && "$W" -O2 -c ../h.c -o x4.o) 2>err
like "weaken in pgoptcc.conf: refused (caller only), exit 108" "$?/$(cat err)" \
	'^108/.*pgoptcc.conf:2: weaken cannot be set in pgoptcc.conf: only whoever runs the build can set it'
PGOPT_WEAKEN=pie PGOPT_POLICY=$TMP/np.policy PGOPT_LOGDIR=$TMP/log "$W" -O2 -fPIC -c h.c -o pic.o 2>err
like "a compile the policy does not weaken (PIC keeps its PIC): \"weakened\":[]" "$(rec pic.o)" '"weakened":\[\]'
"$W" --pgopt-check-policy np.policy >/dev/null 2>err
like "--pgopt-check-policy: refused without the caller's consent" "$?/$(cat err)" '^101/.*np.policy:2: cannot add -fno-pie: it weakens'
PGOPT_WEAKEN=pie "$W" --pgopt-check-policy np.policy >o.txt 2>err
like "... with it: the policy's weakened classes" "$?/$(cat o.txt)" '^0/.*"weakened":\["pie"\]'
like "... and a warning per flag" "$(cat err)" \
	"^pgoptcc: warning: $TMP/np.policy:2: cflags \\+= -fno-pie weakens the build's hardening \\(pie: .*\\): used because the caller allowed weakening pie \\(weaken: pgbuild --weaken, --pgopt-weaken or PGOPT_WEAKEN\\)"

# --- the allow-list: an option it does not know, a value a row does not take ---
for l in 'cflags += -fcall-graph|it is not an optimization option the vocabulary knows' \
	 'cflags += -flto=bogus|its value is not one the vocabulary allows \(expected -flto=auto, jobserver, thin, full or N\)' \
	 'cflags += -fvisibility=hidden|it is not an optimization option the vocabulary knows' \
	 'cflags += --param=no-such-param=1|its value is not one the vocabulary allows'; do
	printf '[global]\n%s\n' "${l%%|*}" > u.policy
	PGOPT_POLICY=$TMP/u.policy "$W" -O2 -c h.c -o u.o 2>err; s=$?
	flag=${l%%|*}; flag=${flag##* }
	like "refused: $flag (${l#*|})" "$s/$(cat err)" "^101/pgoptcc: error: $TMP/u.policy:2: cannot add $flag: ${l#*|}"
done
# a misspelt option: the nearest one the vocabulary knows, for += and -=,
# a -fno- spelling and in --pgopt-check-policy alike
for l in 'cflags += -fomit-frame-pointr|add|-fomit-frame-pointer' \
	 'cflags -= -fomit-frame-pointr|remove|-fomit-frame-pointer' \
	 'cflags += -fno-omit-frame-pointr|add|-fno-omit-frame-pointer' \
	 'cflags -= -fno-omit-frame-pointr|remove|-fno-omit-frame-pointer'; do
	IFS='|' read -r line verb near <<<"$l"
	printf '[global]\n%s\n' "$line" > u.policy
	flag=${line##* }
	want="pgoptcc: error: $TMP/u.policy:2: cannot $verb $flag: it is not an optimization option the vocabulary knows (did you mean $near?)"
	PGOPT_POLICY=$TMP/u.policy "$W" -O2 -c h.c -o u.o 2>err; s=$?
	is "misspelt: $line names $near" "$s/$(cat err)" "101/$want"
	"$W" --pgopt-check-policy u.policy >/dev/null 2>err; s=$?
	is "misspelt: --pgopt-check-policy on $line names $near" "$s/$(cat err)" "101/$want"
done

# --- pgbuild: refused before the build; with --weaken the build records it ---
mkdir -p fakepg/src/backend
cat > fakepg/configure <<'CONF'
#!/bin/sh
# a fake PostgreSQL (tests/t/30-build-fake.t's, smaller): one program
PACKAGE_VERSION='99.1'
srcdir=$(cd "$(dirname "$0")" && pwd)
prefix=/usr/local CC=cc
for a; do
	case $a in --prefix=*) prefix=${a#--prefix=} ;; CC=*) CC=${a#CC=} ;; esac
done
echo "$*" > config.status
mkdir -p src/backend contrib
printf 'all:\ninstall:\n' > contrib/Makefile
cat > GNUmakefile <<EOF
srcdir = $srcdir
CC = $CC
prefix = $prefix
all: src/backend/postgres
src/backend/%.o: \$(srcdir)/src/backend/%.c
	cd src/backend && \$(CC) -O2 -c -o \$*.o \$(srcdir)/src/backend/\$*.c
src/backend/postgres: src/backend/a.o src/backend/b.o
	cd src/backend && \$(CC) -O2 -o postgres a.o b.o
install: all
	mkdir -p \$(prefix)/bin && cp src/backend/postgres \$(prefix)/bin/postgres
clean:
	rm -f src/backend/*.o src/backend/postgres
EOF
CONF
chmod +x fakepg/configure
printf 'int a(int x) { return x + 1; }\n' > fakepg/src/backend/a.c
printf 'int a(int);\nint main(int c, char **v) { (void)v; return a(c) == 2 ? 0 : 1; }\n' > fakepg/src/backend/b.c
pb() { "$P" build --src "$TMP/fakepg" --no-bench --no-contrib --jobs 2 "$@"; }
pb --policy "$TOP/examples/no-pie.policy" --prefix "$TMP/pg" >o.txt 2>err
like "pgbuild build with examples/no-pie.policy: refused, exit 2, how to allow it" "$?/$(cat err)" \
	"^2/pgbuild: error: $TOP/examples/no-pie.policy:[0-9]+: cannot add -fno-pie: it weakens the build's hardening \\(pie: .*pgbuild --weaken pie\\)"
nok "... before anything was built" test -e "$TMP/pg.build/src/backend/a.o"
pb --policy "$TOP/examples/no-pie.policy" --prefix "$TMP/pg" --weaken bogus >o.txt 2>err
like "--weaken with an unknown class: exit 2" "$?/$(cat err)" '^2/pgbuild: error: invalid value "bogus" for --weaken: unknown hardening class "bogus"'
ok "pgbuild build --weaken pie: builds" pb --policy "$TOP/examples/no-pie.policy" --prefix "$TMP/pg" --weaken pie
R=$TMP/pg/pgopt-build.json
is "the build record: policy.weakened" "$(jq -c .policy.weakened "$R")" '["pie"]'
is "... and the builds' PGOPT_WEAKEN" "$(jq -r .environment.PGOPT_WEAKEN "$R")" 'pie'
L=$TMP/pg.build/pgopt-log/compile.jsonl
is "every compile and link record of the build names pie" \
	"$(jq -c 'select(.kind == "compile" or .kind == "link") | .weakened' "$L" | sort -u)" '["pie"]'
like "postgres is position-dependent" "$(readelf -h "$TMP/pg/bin/postgres" | grep Type:)" 'EXEC'
"$P" verify --install "$TMP/pg" >o.txt 2>&1
like "verify: passes and names the weakened class" "$?/$(cat o.txt)" \
	"^0/verify: the policy weakens the build's hardening, as its caller allowed \\(PGOPT_WEAKEN\\): pie"
"$P" verify --log "$TMP/pg.build/pgopt-log" --builddir "$TMP/pg.build" --binary src/backend/postgres >o.txt 2>&1
like "verify --log: the same, from the compile records" "$?/$(cat o.txt)" \
	"^0/verify: the policy weakens the build's hardening, as its caller allowed \\(PGOPT_WEAKEN\\): pie"
"$P" run --policy "$TOP/examples/no-pie.policy" --src "$TMP/fakepg" --workdir "$TMP/rw" >o.txt 2>err
like "pgbuild run with a no-pie policy, no --weaken: refused before its first build" "$?/$(cat err)" \
	'^2/.*no-pie.policy:[0-9]+: cannot add -fno-pie: it weakens'
nok "... nothing built" test -d "$TMP/rw/candidate"

# --- llvm-bolt's flags: refused before llvm-bolt runs, nothing written ---
mkdir -p "$TMP/pfx/bin"
bolt_words="-runtime-instrumentation-lib=$TMP/evil.a|it loads code
-o|pgbuild gives the input, output, profile and instrumentation itself
-generate-function-order=$TMP/gen.txt|it prints or writes files
-function-order=/root/secret|it names a path
-asm-dump=$TMP/asm|it prints or writes files
-asm-dump|it prints or writes files
-print-cfg|it prints or writes files
-print-only=main|it prints or writes files
-funcs-file=/etc/shadow|it names a path
-v=1|it prints or writes files
-output-y|it is none of llvm-bolt's layout and optimization options"
while IFS='|' read -r word why; do
	"$P" bolt --install "$TMP/pfx" --prefix "$TMP/bo" --workdir "$TMP/bw" \
		--bolt-flags "-reorder-blocks=ext-tsp $word" >o.txt 2>err
	like "bolt --bolt-flags $word: refused, exit 2, naming it" "$?/$(head -n 1 err)" \
		"^2/pgbuild: error: --bolt-flags: \"$(printf '%s' "$word" | sed 's/[.[]/\\&/g')\" is not a layout flag: $why"
	"$P" optimize -W select-only --stages lto,bolt --workdir "$TMP/ow" --bolt-flags "$word" >o.txt 2>err
	like "optimize --bolt-flags $word: refused, exit 2" "$?/$(head -n 1 err)" "^2/pgbuild: error: --bolt-flags: \".*\" is not a layout flag"
done <<<"$bolt_words"
nok "... no output, work directory, function order or assembly written" \
	sh -c "ls -d '$TMP/bo' '$TMP/bw' '$TMP/ow' '$TMP/gen.txt' '$TMP/asm' 2>/dev/null | grep -q ."
ok "pgbuild's default flags and the docs' pass (the refusal comes later, on the prefix)" \
	sh -c "! '$P' bolt --install '$TMP/pfx' --prefix '$TMP/bo' --bolt-flags '-reorder-blocks=ext-tsp -reorder-functions=hfsort+ -split-functions -split-all-cold -split-eh -icf=1 -use-gnu-stack -dyno-stats -plt=hot -hugify -peepholes=all' 2>&1 | grep -q 'is not a layout flag'"

# a bundle's manifest: made by `bundle create --bolt-install DIR` from a bolt
# record carrying the flags, then `bundle bolt` refuses them
T=$TMP/train && mkdir -p "$T/src"
printf 'int hot(int x) { int s = 0; for (int i = 0; i < x; i++) s += i %% 7; return s; }\n' > "$T/src/hot.c"
printf '#include <stdio.h>\nint hot(int);\nint main(void) { printf("%%d\\n", hot(100000)); return 0; }\n' > "$T/src/main.c"
printf '[global]\nbolt = ready\n' > use.policy
(cd "$T/src" && for f in hot main; do
	PGOPT_ROOT=$T PGOPT_LOGDIR=$T/log PGOPT_POLICY=$TMP/use.policy PGOPT_PROFILE=generate "$W" -O2 -c $f.c -o $f.o || exit 1
done && PGOPT_ROOT=$T PGOPT_LOGDIR=$T/log PGOPT_POLICY=$TMP/use.policy PGOPT_PROFILE=generate "$W" -O2 hot.o main.o -o prog &&
	./prog >/dev/null)
ok "a trained project for a bundle" test -s "$T/src/hot.gcda"
cp "$T/src/prog" prog.orig
mkdir -p boltout && printf 'not a real profile\n' > prog.fdata
n=0
while IFS='|' read -r word why; do
	n=$((n + 1))
	jq -n --arg p "$TMP/prog.fdata" --arg f "-reorder-blocks=ext-tsp $word" \
		'{bolt: {profile: {path: $p}, optimize_flags: $f}}' > boltout/pgopt-build.json
	"$P" bundle create --builddir "$T" --log "$T/log" --policy use.policy --bolt-install "$TMP/boltout" \
		--out "$TMP/B$n" >o.txt 2>err || { diag "$(cat err)"; }
	cp prog.orig prog$n
	"$P" bundle bolt "$TMP/B$n" "$TMP/prog$n" --log "$TMP/blog$n" >o.txt 2>err
	like "bundle manifest with $word: refused, exit 2, naming the manifest and the flag" "$?/$(head -n 1 err)" \
		"^2/pgbuild: error: $TMP/B$n/pgopt-bundle.json: bolt.optimize_flags: \"$(printf '%s' "$word" | sed 's/[.[]/\\&/g')\" is not a layout flag: $why"
	ok "... the program left as it was" cmp -s prog.orig "prog$n"
done <<<"$(printf '%s\n' "$bolt_words" | sed -n '1p;3p;4p;5p')"
nok "... nothing written: no rewrite, log, function order or assembly" \
	sh -c "ls -d '$TMP'/prog*.pgopt-bolt-* '$TMP'/blog* '$TMP/gen.txt' '$TMP/asm' 2>/dev/null | grep -q ."
done_testing
