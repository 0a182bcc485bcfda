#!/bin/bash
# 88-readers.t - every file another party may have written is read through
# the one bounded reader (wrapper/common/safefs.h: sfs_read,
# sfs_open_input), and every tree walked by the one walker (sfs_walk_tree):
# tests/lib/readers.pl finds no other call that opens or reads a file in
# wrapper/, pgbuild/ or plugin/, nor an nftw or fts_open in wrapper/ or
# pgbuild/, and names each one planted in a copy of the tree; then the commands that read such files are given a
# FIFO, a device, a symbolic link and a file over its kind's limit, and each
# refuses at once (exit 2) naming the file and the reason, without reading
# it (a FIFO with no writer, /dev/zero: before the reader, these hung or
# grew without bound).
. "$(dirname "$0")/../lib/tap.sh"
cd "$TMP" || exit 1
R=$TOP/tests/lib/readers.pl
PGBUILD=$B/bin/pgbuild

perl "$R" "$TOP" >out 2>&1; s=$?
is "no reader outside the bounded one (exit $s)" "$s" 0
[ -s out ] && diag "$(cat out)"

# a copy of the tree with one reader of each kind planted
mkdir tree
(cd "$TOP" && tar -cf - wrapper pgbuild plugin) | tar -xf - -C tree
plant() { printf '%s\n' "$2" >>"tree/$1"; echo "$1:$(wc -l <"tree/$1")"; }
fo=$(plant pgbuild/report/report.c 'static void p1(void) { FILE *f = fopen("x", "r"); (void)f; }')
op=$(plant pgbuild/gate/expr.c 'static int p2(void) { return open("x", O_RDONLY | O_CLOEXEC); }')
oa=$(plant wrapper/tu.c 'static int p3(int d) { return openat(d, "x", O_RDWR); }')
gl=$(plant pgbuild/tune/output.c 'static int p4(struct strbuf *s, FILE *f) { return strbuf_getline(s, f); }')
fr=$(plant pgbuild/bench/dataset.c 'static size_t p5(char *b, FILE *f) { return fread(b, 1, 1, f); }')
# ... and a second tree walker of each kind (only sfs_walk_tree walks a tree)
nw=$(plant pgbuild/build/build.c 'static int p8(const char *d) { return nftw(d, NULL, 16, FTW_PHYS); }')
ft=$(plant wrapper/common/dir.c 'static void *p9(char **d) { return fts_open(d, FTS_PHYSICAL, NULL); }')
# ... and calls that are no readers
plant pgbuild/report/svg.c 'static int p6(void) { return open("x", O_WRONLY | O_CREAT, 0644); }' >/dev/null
plant pgbuild/report/html.c 'static void p7(void) { FILE *f = fopen("x", "w"); (void)f; }' >/dev/null
plant pgbuild/gate/junit.c '/* fopen("x", "r") in a comment */' >/dev/null
plant pgbuild/gate/junit.c '/* nftw(dir, visit, 16, FTW_PHYS) in a comment */' >/dev/null
perl "$R" tree >out 2>&1; s=$?
is "a planted reader fails the check (exit $s)" "$s" 1
like "fopen for reading is named" "$(cat out)" "^$fo: fopen\(\"x\", \"r\"\)$"
like "open O_RDONLY is named" "$(cat out)" "^$op: open\(\"x\", O_RDONLY \| O_CLOEXEC\)$"
like "openat O_RDWR is named" "$(cat out)" "^$oa: openat\(d, \"x\", O_RDWR\)$"
like "strbuf_getline is named" "$(cat out)" "^$gl: strbuf_getline\(s, f\)$"
like "fread is named" "$(cat out)" "^$fr: fread\(b, 1, 1, f\)$"
walker='walk trees with the one walker, sfs_walk_tree \(wrapper/common/safefs.h\), bounded by SFS_MAX_DEPTH'
like "nftw is named, with the one walker" "$(cat out)" "^$nw: nftw\(d, NULL, 16, FTW_PHYS\): $walker\$"
like "fts_open is named, with the one walker" "$(cat out)" "^$ft: fts_open\(d, FTS_PHYSICAL, NULL\): $walker\$"
is "nothing else is named (writes, comments)" "$(wc -l <out)" 7

# ---- the commands, given what no reader may read ----
mkfifo fifo
mkdir logfifo logzero loglink
mkfifo logfifo/compile.jsonl
ln -s /dev/zero logzero/compile.jsonl
echo '{}' >real.json
ln -s "$TMP/real.json" link.json
ln -s "$TMP/real.json" loglink/compile.jsonl
truncate -s 65M big.json
mkdir bd
# each must refuse within a few seconds; a reader that blocked or read
# without bound would be stopped by timeout (exit 124)
refuses() { # title want-regex cmd...
	local t=$1 want=$2 s
	shift 2
	timeout 20 "$@" >cmd.out 2>&1; s=$?
	is "$t: exit 2 (got $s)" "$s" 2
	like "$t: names the file and why" "$(cat cmd.out)" "$want"
}
refuses "report --gate-result FIFO" "cannot read fifo: it is a FIFO, expected a regular file" \
	"$PGBUILD" report --gate-result fifo
refuses "report --gate-result /dev/zero" "cannot read /dev/zero: it is a character device" \
	"$PGBUILD" report --gate-result /dev/zero
refuses "report --gate-result a link" "cannot read link.json: it is a symbolic link \(refused\)" \
	"$PGBUILD" report --gate-result link.json
refuses "report --gate-result over 64 MiB" "cannot read big.json: it is larger than 64 MiB, the limit for a JSON result" \
	"$PGBUILD" report --gate-result big.json
refuses "report --inspect-candidate FIFO" "fifo: it is a FIFO" \
	"$PGBUILD" report --inspect-candidate fifo
refuses "report --log with a FIFO compile log" "cannot read logfifo/compile.jsonl: it is a FIFO" \
	"$PGBUILD" report --log logfifo
refuses "report --log with a link to /dev/zero" "cannot read logzero/compile.jsonl: it is a symbolic link" \
	"$PGBUILD" report --log logzero
refuses "verify --log with a FIFO compile log" "cannot read logfifo/compile.jsonl: it is a FIFO" \
	"$PGBUILD" verify --log logfifo --builddir bd
refuses "verify --log with a linked compile log" "cannot read loglink/compile.jsonl: it is a symbolic link" \
	"$PGBUILD" verify --log loglink --builddir bd
refuses "gate --noise FIFO" "cannot read fifo: it is a FIFO" \
	"$PGBUILD" gate --noise fifo --metric instructions --workload select-only \
	--baseline /usr/lib/postgresql/15 --candidate /usr/lib/postgresql/15
refuses "explain --gate-result /dev/zero" "cannot read /dev/zero: it is a character device" \
	"$PGBUILD" explain --gate-result /dev/zero
refuses "report --optimize FIFO" "cannot read fifo: it is a FIFO" \
	"$PGBUILD" report --optimize fifo

done_testing
