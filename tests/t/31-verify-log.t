#!/bin/bash
# 31-verify-log.t - pgbuild verify --log DIR --builddir DIR: a build that
# pgbuild did not run (make with CC="pgoptcc --pgopt-policy=P
# --pgopt-logdir=DIR", as a package build does) verified from pgoptcc's
# compile log and the binaries in the build tree: every program and shared
# library its links made, against the policy its compiles record or
# another; the errors for a log that is missing, malformed or of another
# tree; records moved into a side file of the binary's build-id, read back
# with --debug-dir (verify and inspect).  Real gcc, pgoptcc and pgopt.so.
. "$(dirname "$0")/../lib/tap.sh"
P=$B/bin/pgbuild
export PGOPT_CACHE_DIR=$TMP/cache
unset PGOPT_POLICY PGOPT_LOGDIR PGOPT_PREFIX
cd "$TMP" || exit 1

# --- a small project: a program (with a static library) and a shared one ---
mkdir -p proj/src
printf 'int a(int x) { return x + 1; }\n' > proj/src/a.c
printf 'int b(int x) { return x * 2; }\n' > proj/src/b.c
printf 'int l(int x) { return x - 1; }\n' > proj/src/l.c
printf 'int a(int); int b(int); int l(int);\nint main(int c, char **v) { (void)v; return a(b(l(c) + 1)) == 3 ? 0 : 1; }\n' > proj/src/main.c
printf 'int s(int x) { return x ^ 1; }\n' > proj/src/s.c
cat > proj/Makefile <<'MK'
all: prog libs.so
src/%.o: src/%.c
	$(CC) -O2 -fPIC -c -o $@ $<
libl.a: src/l.o
	ar rcs $@ $^
prog: src/main.o src/a.o src/b.o libl.a
	$(CC) -O2 -o $@ src/main.o src/a.o src/b.o libl.a
libs.so: src/s.o
	$(CC) -shared -o $@ src/s.o
MK
printf '[global]\ncflags += -fno-plt\n[src/b.c]\ncflags += -O3\n' > p.policy
printf '[global]\ncflags += -fno-plt\n[src/b.c]\ncflags += -O1\n' > tampered.policy
cp p.policy built.policy
ok "the project builds through pgoptcc with a policy (make CC=...)" \
	make -C proj CC="$B/bin/pgoptcc --pgopt-policy=$TMP/built.policy --pgopt-logdir=$TMP/log"
ok "... and runs" ./proj/prog
ok "pgoptcc wrote its compile log there" test -s log/compile.jsonl

# --- the build verified from its log ---
"$P" verify --log log --builddir proj > v.out 2>&1
is "verify --log --builddir passes" "$?" 0
like "... prog: its 4 objects (the archive member too) against the policy the log records" \
	"$(cat v.out)" "verify: OK: 4 objects of prog checked against policy $TMP/built.policy: 4 with policy flags, 0 mismatches"
like "... libs.so: the shared library too" "$(cat v.out)" "verify: OK: 1 objects of libs.so checked"
like "... the last line over both" "$(tail -1 v.out)" \
	"^verify: OK: 2 binaries of $TMP/proj, 5 objects checked against policy $TMP/built.policy: 0 mismatches in 0 binaries$"
"$P" verify --log log --builddir proj --binary prog -v > v.out 2>&1
is "--binary prog: exit 0" "$?" 0
ok "... every object listed with -v" grep -q '^ok  *src/b.c$' v.out
nok "... and only prog" grep -q 'libs.so' v.out
# -q/--quiet (gate's spelling): a verified build prints nothing
"$P" verify --log log --builddir proj -q > v.out 2>&1
is "verify -q of a verified build: exit 0, nothing printed" "$?|$(cat v.out)" "0|"
"$P" verify --log log --builddir proj -q -v > v.out 2>&1
is "verify -q -v: refused" "$?|$(head -n 1 v.out)" "2|pgbuild: error: --quiet and --verbose exclude each other"

# --- a tampered policy: the flag is named ---
"$P" verify --log log --builddir proj --policy tampered.policy > v.out 2>&1
is "verify against a tampered policy exits 1" "$?" 1
like "... names the missing flag" "$(cat v.out)" 'MISSING +src/b.c: -O1'
like "... and the extra one" "$(cat v.out)" 'EXTRA +src/b.c: -O3'
like "... verdict" "$(tail -1 v.out)" '^verify: FAILED: 2 binaries.*1 mismatches in 1 binaries$'
"$P" verify --log log --builddir proj --policy tampered.policy --quiet > v.out 2>&1
is "verify --quiet of a mismatch: exit 1, the findings and the FAILED verdicts only" \
	"$?|$(sed 's/ .*//' v.out | tr '\n' ' ')" "1|MISSING EXTRA NOTAPPLIED verify: verify: "
like "... the last the FAILED one" "$(tail -1 v.out)" '^verify: FAILED: 2 binaries.*1 mismatches in 1 binaries$'
cp tampered.policy built.policy
"$P" verify --log log --builddir proj > v.out 2>&1
is "the policy file the log names changed since the build: exit 2" "$?" 2
like "... refused: its sha256 is not the one the log records" "$(cat v.out)" \
	'pgbuild: error: the policy log/compile.jsonl names, .*/built.policy, is not the file the build read \(its sha256 is not the recorded one\): give --policy FILE\|none'
"$P" verify --log log --builddir proj --policy built.policy > v.out 2>&1
is "... checked against it with --policy: exit 1" "$?" 1
like "... the flag named" "$(cat v.out)" 'MISSING +src/b.c: -O1'
cp p.policy built.policy
"$P" verify --log log --builddir proj --policy none > v.out 2>&1
is "against policy none: exit 1" "$?" 1
like "... the policy's flags are extra" "$(cat v.out)" 'EXTRA +src/a.c: the policy assigns no flags'

# --- errors: exit 2, one clear sentence ---
err() { "$P" verify "$@" > e.out 2>&1; echo "$?"; }
is "--log of a missing directory: exit 2" "$(err --log nolog --builddir proj)" 2
like "... says so" "$(cat e.out)" '^pgbuild: error: .*--log "nolog": No such file or directory'
mkdir empty
is "--log of a directory without a compile log: exit 2" "$(err --log empty --builddir proj)" 2
like "... names what it needs" "$(cat e.out)" '--log "empty" has no readable compile.jsonl .*--pgopt-logdir=DIR or PGOPT_LOGDIR'
mkdir bad
{ head -n 1 log/compile.jsonl; echo 'this is not JSON'; tail -n +2 log/compile.jsonl; } > bad/compile.jsonl
is "a malformed line in the log: exit 2" "$(err --log bad --builddir proj)" 2
like "... names the file and line" "$(cat e.out)" "bad/compile.jsonl:2: not a pgoptcc compile-log record"
mkdir cut
cat log/compile.jsonl > cut/compile.jsonl
printf '{"kind":"compile","cwd":' >> cut/compile.jsonl
is "a half last line (a build killed mid-write) is no error" "$(err --log cut --builddir proj)" 0
printf '{"time":"x"}\n' > bad/compile.jsonl
is "a JSON line that is no record: exit 2" "$(err --log bad --builddir proj)" 2
like "... named" "$(cat e.out)" "bad/compile.jsonl:1: not a pgoptcc compile-log record"
mkdir other
is "--builddir of another tree: exit 2" "$(err --log log --builddir other)" 2
like "... says the log records no compile there" "$(cat e.out)" \
	"records no successful compile in --builddir $TMP/other .*is it this build's log"
is "--log without --builddir: a usage error" "$(err --log log)" 2
like "... says what is missing" "$(cat e.out)" '--log needs --builddir'
is "--install and --log together: a usage error" "$(err --log log --builddir proj --install proj)" 2
is "--binary that no link made: exit 2" "$(err --log log --builddir proj --binary src/a.o)" 2
like "... named" "$(cat e.out)" "records no link of --binary $TMP/proj/src/a.o"
is "--install without a build record: exit 2" "$(err --install proj)" 2
like "... points at --log" "$(cat e.out)" 'no pgopt-build.json.*--log DIR --builddir DIR'
# two policies in one log: --policy must choose
cp -r log two
(cd proj && "$B/bin/pgoptcc" --pgopt-policy=none --pgopt-logdir="$TMP/two" -O2 -fPIC -c -o src/x.o src/a.c)
is "a log with compiles under two policies: exit 2" "$(err --log two --builddir proj)" 2
like "... lists them" "$(cat e.out)" "under 2 policies \($TMP/built.policy, none\): give --policy"
is "... --policy chooses" "$(err --log two --builddir proj --policy p.policy)" 0

# --- records in side files (the debug-file convention) ---
# the records of prog moved out of it into DBG/.build-id/XX/REST.pgopt, as
# a packager's strip step would (objcopy); verify and inspect read them with
# --debug-dir, and only from the side file of the same build-id
build_id() { readelf -n "$1" | sed -n 's/.*Build ID: //p'; }
split_records() { # ELF DBG
	local id
	id=$(build_id "$1")
	mkdir -p "$2/.build-id/${id:0:2}" &&
	objcopy --only-section=.pgopt.log --only-section=.GCC.command.line \
		--only-section=.note.gnu.build-id "$1" "$2/.build-id/${id:0:2}/${id:2}.pgopt" 2>/dev/null &&
	objcopy --remove-section=.pgopt.log --remove-section=.GCC.command.line "$1"
}
if command -v objcopy >/dev/null && [ -n "$(build_id proj/prog)" ]; then
	DBG=$TMP/dbg
	ok "prog's records moved into a side file" split_records proj/prog "$DBG"
	nok "... prog holds none now" sh -c "readelf -S proj/prog | grep -q pgopt.log"
	ok "... and still runs" ./proj/prog
	is "verify without --debug-dir: prog holds no record, exit 1" \
		"$(err --log log --builddir proj --binary prog)" 1
	like "... NORECORD" "$(cat e.out)" 'NORECORD +src/b.c'
	is "verify --debug-dir: the side file's records, exit 0" \
		"$(err --log log --builddir proj --binary prog --debug-dir "$DBG")" 0
	like "... verdict" "$(tail -1 e.out)" '^verify: OK: 4 objects of prog checked.*0 mismatches'
	"$P" inspect --units proj/prog > i.out 2>&1
	is "inspect without --debug-dir: no record, exit 1" "$?" 1
	"$P" inspect --units --debug-dir "$DBG" proj/prog > i.out 2>&1
	is "inspect --debug-dir: exit 0" "$?" 0
	like "... shows its units" "$(cat i.out)" 'src/b.c +compile'
	# a side file of another binary at prog's place is refused
	cp proj/libs.so s.so && mkdir -p other-dbg && split_records s.so other-dbg
	id=$(build_id proj/prog)
	mv -f other-dbg/.build-id/*/*.pgopt "$DBG/.build-id/${id:0:2}/${id:2}.pgopt"
	"$P" inspect --units --debug-dir "$DBG" proj/prog > i.out 2>&1
	is "a side file of another build-id: exit 2" "$?" 2
	like "... named, with both ids" "$(cat i.out)" "side file .*${id:2}.pgopt is of build-id [0-9a-f]+, not $id"
else
	skip "no objcopy or no GNU build-id in the linked program" 12
fi

# --- records = side: pgoptcc moves them at link ---
rm -rf proj2 && cp -r proj proj2 && rm -f proj2/src/*.o proj2/prog proj2/libs.so proj2/libl.a
if command -v objcopy >/dev/null; then
	CC2="$B/bin/pgoptcc --pgopt-policy=$TMP/p.policy --pgopt-logdir=$TMP/log2 --pgopt-records=side"
	ok "records = side: the project builds" make -C proj2 CC="$CC2"
	ok "... and runs" ./proj2/prog
	nok "... prog holds no records" sh -c "readelf -S proj2/prog | grep -Eq 'pgopt.log|GCC.command.line'"
	nok "... nor libs.so" sh -c "readelf -S proj2/libs.so | grep -Eq 'pgopt.log|GCC.command.line'"
	id=$(build_id proj2/prog)
	ok "... its side file is named by its build-id" test -s "log2/records/.build-id/${id:0:2}/${id:2}.pgopt"
	is "... one side file per linked binary" "$(find log2/records -name '*.pgopt' | wc -l)" 2
	ok "... the objects keep theirs (only links move them)" sh -c "readelf -S proj2/src/b.o | grep -q pgopt.log"
	is "verify --debug-dir LOGDIR/records: exit 0" \
		"$(err --log log2 --builddir proj2 --policy p.policy --debug-dir log2/records)" 0
	like "... both binaries" "$(tail -1 e.out)" '^verify: OK: 2 binaries.*5 objects checked'
	# objcopy failing: the link fails, its output is removed so make links again
	mkdir -p fakebin
	printf '#!/bin/sh\necho "objcopy: broken" >&2\nexit 1\n' > fakebin/objcopy
	chmod 755 fakebin/objcopy
	rm -f proj2/prog
	PATH=$TMP/fakebin:$PATH make -C proj2 CC="$CC2" prog > mk.out 2>&1
	ok "objcopy failing: the link fails" test "$?" -ne 0
	like "... pgoptcc says why (exit 104)" "$(cat mk.out)" \
		'pgoptcc: error: records = side: objcopy failed copying the records of prog to .*/log2/records/\.build-id/.*\.pgopt \(exit 1\): objcopy: broken \(removed prog, so that make links it again\)$'
	ok "... and removed the output" test ! -e proj2/prog
	is "... no temporary directory is left in LOGDIR/records" "$(find log2/records -name '.tmp-*')" ""
else
	skip "no objcopy" 13
fi
done_testing
