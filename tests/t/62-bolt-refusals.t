#!/bin/bash
# 62-bolt-refusals.t - what `pgbuild bolt` refuses before any work, on real
# binaries (no PostgreSQL build needed): a gcc -O2 executable without
# relocations, one with relocations but a .cold fragment, Debian's own
# postgres, a binary BOLT already rewrote; no llvm-bolt where it is looked
# for (names the package and `make deps`); a rewrite BOLT itself refuses
# (its own error line); -plt=hot on a binary linked without -z now; an OUT
# that is not a bolt output, IN == OUT.
# Each refusal makes nothing.
. "$(dirname "$0")/../lib/tap.sh"
P=$B/bin/pgbuild
BOLT=/usr/lib/llvm-15/bin
cd "$TMP" || exit 1

# fake installs: bin/postgres is a small real executable
mkprefix() { # DIR CFLAGS...
	local d=$1
	shift
	mkdir -p "$d/bin"
	gcc "$@" -o "$d/bin/postgres" prog.c || return 1
}
cat > prog.c <<'EOF'
#include <stdio.h>
__attribute__((cold, noinline)) void report(int x) { fprintf(stderr, "negative %d\n", x); }
__attribute__((noinline)) int work(int x) {
	if (x < 0) { report(x); report(x + 1); x = -x; }
	return x * 3 + 1;
}
int main(int argc, char **argv) { (void)argv; printf("%d\n", work(argc - 2)); return 0; }
EOF
mkprefix stock -O2
mkprefix cold -O2 -Wl,--emit-relocs
mkprefix ready -O2 -fno-reorder-blocks-and-partition -Wl,--emit-relocs
ok "the stock binary has no .rela.text" sh -c '! readelf -S stock/bin/postgres | grep -q "\.rela\.text"'
ok "the relinked one has a .cold fragment" sh -c 'nm cold/bin/postgres | grep -q "work\.cold"'

# a binary without relocations: refused naming the policy line
"$P" bolt --install stock --prefix o1 --bolt "$BOLT" >out 2>err
is "no relocations: exit 2" "$?" 2
like "... names the missing relocations" "$(cat err)" "stock/bin/postgres is not BOLT-ready: it has no code relocations \(\.rela\.text, from -Wl,--emit-relocs\)"
like "... and the policy line" "$(cat err)" 'build it with a policy that has "bolt = ready" in \[global\]'
ok "... and makes nothing" test ! -e o1 -a ! -e o1.bolt
"$P" bolt --install cold --prefix o1 --bolt "$BOLT" >out 2>err
is "a .cold fragment: exit 2" "$?" 2
like "... names it and the policy line" "$(cat err)" 'gcc split 1 functions into \.cold fragments \(-freorder-blocks-and-partition\); build it with a policy that has "bolt = ready"'
if [ -x /usr/lib/postgresql/15/bin/postgres ]; then
	"$P" bolt --install /usr/lib/postgresql/15 --prefix o1 --bolt "$BOLT" >out 2>err
	is "Debian's postgres: exit 2" "$?" 2
	like "... not BOLT-ready, naming the policy line" "$(cat err)" 'is not BOLT-ready: .*"bolt = ready" in \[global\]'
else
	skip "Debian's postgresql-15 is not installed (make deps)" 2
fi

# no BOLT where it is looked for: names the package and make deps
for how in "--bolt $TMP/nowhere" "env:PGBUILD_BOLT=$TMP/nowhere"; do
	case $how in
	env:*) env "${how#env:}" "$P" bolt --install ready --prefix o1 >out 2>err ;;
	*) "$P" bolt --install ready --prefix o1 $how >out 2>err ;;
	esac
	is "no llvm-bolt ($how): exit 2" "$?" 2
	like "... says how to install BOLT" "$(cat err)" "BOLT is not installed: no llvm-bolt in $TMP/nowhere .*Debian's bolt-15 package \(apt-get install bolt-15, or \`make deps\`"
done

# IN == OUT, OUT inside IN, an OUT that is not a bolt output
"$P" bolt --install ready --prefix ready/ >out 2>err
is "IN == OUT: exit 2" "$?" 2
like "... never in place" "$(cat err)" "is --install itself: BOLT's output goes into a new prefix, never in place"
"$P" bolt --install ready --prefix ready/sub >out 2>err
like "OUT inside IN: refused" "$(cat err)" "is inside --install"
if [ ! -x "$BOLT/llvm-bolt" ]; then
	skip "BOLT 15 is not installed (Debian's bolt-15: make deps)" 19
	done_testing
fi
"$P" bolt --install ready --prefix stock >out 2>err
is "OUT is another install: exit 2" "$?" 2
like "... not the output of pgbuild bolt, --force named" "$(cat err)" "--prefix $TMP/stock exists and is not the output of pgbuild bolt .*--force"
mkdir -p junk && touch junk/file
"$P" bolt --install ready --prefix junk --force >out 2>err
like "OUT is neither: refused even with --force" "$(cat err)" "is neither an installed PostgreSQL nor the output of pgbuild bolt"
ok "... and left alone" test -f junk/file

# a binary BOLT already rewrote: named as such
"$BOLT/llvm-bolt" ready/bin/postgres -o bolted.bin >bolt.log 2>&1
mkdir -p bolted/bin && cp bolted.bin bolted/bin/postgres
"$P" bolt --install bolted --prefix o1 >out 2>err
is "a BOLT output as input: exit 2" "$?" 2
like "... says so" "$(cat err)" "was already rewritten by BOLT \(it has \.note\.bolt_info\): give the prefix it was made from"

# a rewrite BOLT refuses: its own error line, no OUT
echo 'not a profile' > bad.fdata
"$P" bolt --install ready --prefix o2 --profile bad.fdata --no-regress >out 2>err
is "a profile BOLT refuses: exit 2" "$?" 2
like "... with BOLT's own error line" "$(cat err)" "llvm-bolt refused to rewrite $TMP/ready/bin/postgres \(exit 1\): BOLT-ERROR: 'cannot pre-process profile': Input/output error"
like "... a given profile without manifest is said to be unchecked" "$(cat err)" "bad.fdata has no manifest .* is not checked"
ok "... and no OUT" test ! -e o2
# a stale manifest next to a given profile: refused before BOLT runs
printf '{"input_sha256":"%064d","workloads":"select-only,tpcb","duration":5,"clients":2,"scale":1}\n' 0 > bad.fdata.json
"$P" bolt --install ready --prefix o2 --profile bad.fdata --no-regress >out 2>err
like "a stale --profile is refused naming the change" "$(cat err)" "--profile $TMP/bad.fdata is stale: the input binary changed \(sha256 [0-9a-f]{12}\.\.\. now, 000000000000\.\.\. when trained\)"
# -plt=hot on a binary linked without -z now: BOLT would refuse it only
# after training; pgbuild refuses first, naming the policy line.  Linked
# with -z now, the same flags rewrite (BOLT's own profile, trained here)
"$P" bolt --install ready --prefix o3 --profile bad.fdata --no-regress \
	--bolt-flags "-reorder-blocks=ext-tsp -plt=hot" >out 2>err
is "-plt=hot without -z now: exit 2" "$?" 2
like "... names the flag, -z now and the policy line" "$(cat err)" "ready/bin/postgres is not ready for llvm-bolt's -plt=hot: that rewrite needs a binary linked with -z now .*\"ldflags \+= -Wl,-z,now\" to the policy's \[global\]"
ok "... before BOLT ran (no OUT, no BOLT error)" sh -c '! grep -q BOLT-ERROR err && test ! -e o3'
mkprefix now -O2 -fno-reorder-blocks-and-partition -Wl,--emit-relocs -Wl,-z,now
"$BOLT/llvm-bolt" now/bin/postgres -instrument -instrumentation-file="$TMP/now.fdata" \
	-o now.instr >bolt.log 2>&1 && ./now.instr >/dev/null
"$P" bolt --install now --prefix o3 --profile now.fdata --no-regress \
	--bolt-flags "-reorder-blocks=ext-tsp -plt=hot" >out 2>err
is "linked with -z now: -plt=hot rewrites (exit 0)" "$?" 0
like "... BOLT rewrote the PLT calls" "$(cat o3.bolt/logs/optimize.log)" "BOLT-INFO: [1-9][0-9]* PLT calls in the binary were optimized"
ok "... and the rewrite runs" sh -c 'test "$(o3/bin/postgres)" = "$(now/bin/postgres)"'

# as root: an OUT the server user cannot reach is refused before any step
if [ "$(id -u)" != 0 ] || ! id postgres >/dev/null 2>&1; then
	skip "needs root and the postgres user (the server user)" 2
else
	priv=$(mktemp -d)      # 0700, root's
	echo 'not a profile' > p2.fdata
	"$P" bolt --install ready --prefix "$priv/out" --profile p2.fdata --no-regress >out 2>err
	like "OUT in a 0700 directory: refused naming it" "$(cat err)" "directory $priv/out.bolt is out of the server user's reach"
	ok "... before anything was made" test ! -e "$priv/out" -a ! -e "$priv/out.bolt"
	rm -rf "$priv"
fi
done_testing
