#!/bin/bash
# 32-reproducible.t - two builds of one project through pgoptcc in two
# directories of different lengths, with the compile's own path map
# (-ffile-prefix-map=DIR=., as Debian's dpkg-buildflags passes), give
# byte-identical objects, binaries and records = side files; without the
# map they differ.  Real gcc, pgoptcc and pgopt.so.
. "$(dirname "$0")/../lib/tap.sh"
export PGOPT_CACHE_DIR=$TMP/cache
unset PGOPT_POLICY PGOPT_LOGDIR PGOPT_PREFIX PGOPT_RECORDS
cd "$TMP" || exit 1
command -v objcopy >/dev/null || { skip "no objcopy" 1; done_testing; exit 0; }
mkproj() { # DIR
	mkdir -p "$1/src"
	printf 'static int h(int x) { return x + 1; }\nint a(int x) { return h(x) * 3; }\n' > "$1/src/a.c"
	printf 'int a(int);\nint main(int c, char **v) { (void)v; return a(c) == 6 ? 0 : 1; }\n' > "$1/src/main.c"
	cat > "$1/Makefile" <<'MK'
all: prog
src/%.o: src/%.c
	$(CC) $(CFLAGS) -c -o $@ $<
prog: src/main.o src/a.o
	$(CC) -O2 -o $@ src/main.o src/a.o
MK
}
printf '[global]\ncflags += -fno-plt\n[src/a.c]\ncflags += -O3\n' > p.policy
build() { # DIR MAP(0|1)
	local d=$TMP/$1 map=
	mkproj "$d"
	[ "$2" = 1 ] && map="-ffile-prefix-map=$d=."
	make -s -C "$d" CFLAGS="-O2 -g $map" \
		CC="$B/bin/pgoptcc --pgopt-policy=$TMP/p.policy --pgopt-logdir=$d/log --pgopt-records=side" >/dev/null
}
ok "mapped: built in a short directory" build a 1
ok "mapped: built in a longer one" build build-in-a-longer-directory 1
L=build-in-a-longer-directory
for f in src/a.o src/main.o prog; do
	ok "mapped: $f byte-identical" cmp a/$f $L/$f
done
ok "... and the program runs" ./a/prog
ok "... the plugin's record is in the object" sh -c "readelf -S a/src/a.o | grep -q pgopt.log"
nok "... no .GCC.command.line (cc1 records its argv unmapped)" sh -c "readelf -S a/src/a.o | grep -q GCC.command.line"
nok "... the object names no build path" grep -q "$TMP/a/" a/src/a.o
sa=$(cd a/log/records && find . -name '*.pgopt' | sort)
sb=$(cd $L/log/records && find . -name '*.pgopt' | sort)
is "records = side: one side file each, the same name" "$sa" "$sb"
ok "... byte-identical" cmp "a/log/records/$sa" "$L/log/records/$sb"
"$B/bin/pgbuild" inspect --units --debug-dir a/log/records a/prog > i.out 2>&1
is "inspect --debug-dir reads the mapped records" "$?" 0
like "... its units" "$(cat i.out)" 'src/a.c +compile'
"$B/bin/pgbuild" verify --log a/log --builddir a --debug-dir a/log/records > v.out 2>&1
is "verify --log --debug-dir passes on the mapped build" "$?" 0
ok "unmapped: built in a short directory" build u 0
ok "unmapped: built in a longer one" build unmapped-in-a-longer-directory 0
nok "unmapped: the objects differ" cmp -s u/src/a.o unmapped-in-a-longer-directory/src/a.o
done_testing
