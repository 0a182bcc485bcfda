#!/bin/bash
# 89-bundle-trust.t - a profile bundle is a stranger's: what it can do to a
# build is change optimization decisions and layout, nothing else
# (pgbuild/bundle/bundle.h, tests/SECURITY.md "Bundles").  A real bundle
# is made from a small trained project (as tests/t/35), then copied and
# edited by another user (nobody) into hostile bundles:
#   (a) a member replaced by a link to a file only root can read, and a
#       directory replaced by a link to a directory only root can read;
#   (b) a member whose bytes differ from the manifest's sha256;
#   (c) a file the manifest does not list (a planted profile, a profile
#       taken off the list);
#   (d) a member that is a FIFO;
#   (e) a manifest listing a path with ".." or an absolute path, or naming
#       a file outside the bundle as its policy or BOLT profile;
#   (f) a policy (hashes made to match) whose hot list is the root-only
#       file, or whose flags would load a plugin.
# Each is refused, naming the file, by pgoptcc during a compile (exit 100,
# before anything is copied: no .gcda beside the object, the root-only
# bytes nowhere in the build tree or its log), by `bundle check`, `bundle
# bolt` (the binary untouched), `bundle show`, and by the option checks of
# `build --bundle` and `tune --bundle`, and by the Debian fragment before
# configure (examples/pgoptcc-deb.mk).  The untouched bundle still works,
# its verification stamp lets later compiles skip the whole check, and a
# profile changed after the stamp is still refused by the compile that
# reads it.  `bundle bolt` without --log writes BOLT's log in a new private
# directory: a link planted at the old predictable name in TMPDIR is not
# followed.
. "$(dirname "$0")/../lib/tap.sh"
cd "$TMP" || exit 1
PGOPTCC=$B/bin/pgoptcc PGB=$B/bin/pgbuild
unset CC CFLAGS CCACHE_DIR $(env | sed -n 's/^\(PGOPT_[A-Z_]*\)=.*/\1/p' | grep -vx PGOPT_KEEP_TMP)
LLVM=${PGBUILD_BOLT:-/usr/lib/llvm-15/bin}
oneline() { { "$@" 2>&1; echo "exit $?"; } | tr '\n' ' ' | sed 's/ $//'; }
[ "$(id -u)" = 0 ] || skip_all "needs root: another user (nobody) makes the hostile bundles, root applies them"
id nobody >/dev/null 2>&1 || skip_all "no user nobody to play the bundle's maker"
as_nobody() { runuser -u nobody -- "$@"; }

project() {
	mkdir -p "$1/src" || return 1
	cat > "$1/src/hot.c" <<'C'
int hot_step(int x) { int s = 0; for (int i = 0; i < x; i++) s += (i * 7) % 13; return s; }
int hot_branch(int x) { if (x % 3) return x * 2; return x - 1; }
C
	cat > "$1/src/main.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
int hot_step(int x);
int hot_branch(int x);
int main(int argc, char **argv)
{
	long t = 0;
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	for (int i = 0; i < n; i++)
		t += hot_step(i % 50) + hot_branch(i);
	printf("%ld\n", t);
	return 0;
}
C
}
build() { # DIR [VAR=VALUE...] ; CFLAGS from $CF
	local d=$1; shift
	(cd "$d/src" && env PGOPT_ROOT="$d" PGOPT_LOGDIR="$d/log" "$@" "$PGOPTCC" $CF -c hot.c -o hot.o &&
		env PGOPT_ROOT="$d" PGOPT_LOGDIR="$d/log" "$@" "$PGOPTCC" $CF -c main.c -o main.o &&
		env PGOPT_ROOT="$d" PGOPT_LOGDIR="$d/log" "$@" "$PGOPTCC" $CF hot.o main.o -o prog)
}
CF="-O2 -g"
printf '[global]\nbolt = ready\n' > use.policy

# ---- the real bundle: trained, with a BOLT profile when llvm-bolt is here
T=$TMP/train && project "$T"
build "$T" PGOPT_POLICY="$TMP/use.policy" PGOPT_PROFILE=generate && "$T/src/prog" 100000 >/dev/null
is "the training build and run: exit 0" "$?" 0
BOLTARGS=()
if [ -x "$LLVM/llvm-bolt" ]; then
	BO=$TMP/boltbuild && project "$BO"
	"$PGB" bundle create --builddir "$T" --log "$T/log" --policy use.policy --out "$TMP/B0" >/dev/null &&
		build "$BO" PGOPT_POLICY="$TMP/B0/pgopt.policy" PGOPT_BUNDLE="$TMP/B0" 2>/dev/null &&
		"$LLVM/llvm-bolt" "$BO/src/prog" -instrument -instrument-calls=0 \
			-instrumentation-file="$TMP/prog.fdata" -o "$TMP/prog.inst" >/dev/null 2>&1 &&
		"$TMP/prog.inst" 100000 >/dev/null
	is "a BOLT profile of the bundle-built program" "$?" 0
	BOLTARGS=(--bolt-profile "$TMP/prog.fdata")
else
	skip "llvm-bolt is not installed in $LLVM: the bundle has no BOLT profile"
fi
"$PGB" bundle create --builddir "$T" --log "$T/log" --policy use.policy "${BOLTARGS[@]}" --out "$TMP/B" >/dev/null
is "bundle create: exit 0" "$?" 0
M=$TMP/B/pgopt-bundle.json
is "its manifest lists every file it holds" \
	"$(cd "$TMP/B" && find . -type f ! -name pgopt-bundle.json | sed 's|^\./||' | sort | tr '\n' ' ')" \
	"$(jq -r '.files | keys[]' "$M" | sort | tr '\n' ' ')"

# a file only root can read, and a directory of such files
mkdir -m 700 "$TMP/rootonly" && mkdir -p "$TMP/rootonly/gcda/src"
SECRET="ROOT-ONLY-$RANDOM$RANDOM"
printf '%s\n' "$SECRET" > "$TMP/rootonly/secret"
printf '%s\n' "$SECRET" > "$TMP/rootonly/gcda/src/hot.gcda"
cp "$TMP/rootonly/secret" "$TMP/rootonly/gcda/src/main.gcda"
chmod 600 "$TMP/rootonly/secret" "$TMP/rootonly/gcda/src/"*.gcda
nok "nobody cannot read it" as_nobody cat "$TMP/rootonly/secret"

# ---- hostile bundles, made by nobody from a copy of the real one
mkdir -m 755 "$TMP/hostile" && chown nobody "$TMP/hostile"
sha() { sha256sum "$1" | cut -c1-64; }
# rewrite H's manifest with jq as nobody (FILTER, then jq's args)
edit_manifest() { # H FILTER [ARGS...]
	local h=$1 f=$2; shift 2
	as_nobody sh -c 'jq "$@" < "$0/pgopt-bundle.json" > "$0/m.new" && mv "$0/m.new" "$0/pgopt-bundle.json"' \
		"$h" "$f" "$@"
}
hostile() { # NAME: make $TMP/hostile/NAME, a copy of B edited as nobody
	local h=$TMP/hostile/$1
	as_nobody cp -r "$TMP/B" "$h" || return 1
	case $1 in
	link-file) as_nobody ln -sf "$TMP/rootonly/secret" "$h/gcda/src/hot.gcda" ;;
	link-dir) as_nobody sh -c 'rm -rf "$1/gcda" && ln -s "$2/gcda" "$1/gcda"' - "$h" "$TMP/rootonly" ;;
	changed) as_nobody sh -c 'printf x >> "$1/gcda/src/hot.gcda"' - "$h" ;;
	extra) as_nobody cp "$h/gcda/src/hot.gcda" "$h/gcda/src/planted.gcda" ;;
	unlisted) edit_manifest "$h" 'del(.files["gcda/src/hot.gcda"])' ;;
	fifo) as_nobody sh -c 'rm "$1/gcda/src/hot.gcda" && mkfifo "$1/gcda/src/hot.gcda"' - "$h" ;;
	dotdot) edit_manifest "$h" '.files["../rootonly/secret"] = $h' --arg h "$(sha "$TMP/rootonly/secret")" ;;
	absolute) edit_manifest "$h" '.files[$p] = $h' --arg p "$TMP/rootonly/secret" \
			--arg h "$(sha "$TMP/rootonly/secret")" ;;
	policy-list) # hot = the root-only file, the policy's hash made to match
		as_nobody sh -c 'printf "[global]\nbolt = ready\nhot = %s\n" "$2" > "$1/pgopt.policy"' - "$h" \
			"$TMP/rootonly/secret"
		edit_manifest "$h" '.files["pgopt.policy"] = $h' --arg h "$(sha "$h/pgopt.policy")" ;;
	policy-plugin) # flags that would load code, the hash made to match
		as_nobody sh -c 'printf "[global]\ncflags += -fplugin=%s/evil.so\n" "$2" > "$1/pgopt.policy"' - "$h" "$h"
		edit_manifest "$h" '.files["pgopt.policy"] = $h' --arg h "$(sha "$h/pgopt.policy")" ;;
	esac
}
# NAME  what the refusal says (an extended regex)
cases=(
	"link-file|hostile/link-file/gcda/src/hot\.gcda is a symbolic link"
	"link-dir|hostile/link-dir/gcda is a symbolic link"
	"changed|hostile/changed/gcda/src/hot\.gcda: its sha256 is [0-9a-f]{64}, the manifest says [0-9a-f]{64}"
	"extra|hostile/extra/gcda/src/planted\.gcda is not listed in the manifest"
	"unlisted|hostile/unlisted/gcda/src/hot\.gcda is not listed in the manifest"
	"fifo|hostile/fifo/gcda/src/hot\.gcda is a FIFO"
	"dotdot|files: \"\.\./rootonly/secret\" is no path inside the bundle"
	"absolute|files: \"$TMP/rootonly/secret\" is no path inside the bundle"
	"policy-list|pgopt\.policy: hot = $TMP/rootonly/secret: a bundle's policy names lists among the bundle's files only"
)
for c in "${cases[@]}"; do
	name=${c%%|*} want=${c#*|} H=$TMP/hostile/$name
	hostile "$name" || { is "$name: made by nobody" "failed" "made"; continue; }
	# pgoptcc: the compile fails before anything is copied
	A=$TMP/apply-$name && project "$A" && mkdir -p "$A/log"
	out=$(cd "$A/src" && oneline env PGOPT_ROOT="$A" PGOPT_LOGDIR="$A/log" PGOPT_POLICY="$TMP/use.policy" \
		PGOPT_BUNDLE="$H" "$PGOPTCC" -O2 -c hot.c -o hot.o)
	like "$name: pgoptcc refuses the compile, exit 100, naming the file" "$out" "refused: .*$want.* exit 100$"
	is "$name: ... nothing copied, nothing compiled" \
		"$(ls "$A/src" | tr '\n' ' ')" "hot.c main.c "
	nok "$name: ... the root-only bytes nowhere under the build tree" grep -rq "$SECRET" "$A"
	like "$name: bundle check refuses, exit 2" "$(oneline "$PGB" bundle check "$H" --log "$T/log")" \
		"$want.* exit 2$"
	like "$name: bundle show refuses, exit 2" "$(oneline "$PGB" bundle show "$H")" "$want.* exit 2$"
	cp "$T/src/prog" "$TMP/prog.$name"
	like "$name: bundle bolt refuses, exit 2" "$(oneline "$PGB" bundle bolt "$H" "$TMP/prog.$name")" \
		"$want.* exit 2$"
	ok "$name: ... the binary untouched" cmp -s "$T/src/prog" "$TMP/prog.$name"
	# (--src names nothing: were the bundle let through, they would stop there)
	like "$name: build --bundle refuses before building" \
		"$(oneline timeout 120 "$PGB" build --policy none --prefix "$TMP/never-$name" --bundle "$H" \
			--src "$TMP/no-source")" "$want.* exit 2$"
	like "$name: tune --bundle refuses before building" \
		"$(oneline timeout 120 "$PGB" tune --bundle "$H" --workdir "$TMP/tune-$name" --src "$TMP/no-source")" \
		"$want.* exit 2$"
	like "$name: bundle create --bundle refuses it as a base" \
		"$(oneline "$PGB" bundle create --bundle "$H" --bolt-profile "$TMP/use.policy" --out "$TMP/derived-$name")" \
		"$want.* exit 2$"
	is "$name: ... none of them made anything" \
		"$(ls -d "$TMP"/never-$name "$TMP"/tune-$name "$TMP"/derived-$name* 2>/dev/null)" ""
done

# the manifest naming files outside the bundle: pgbuild's uses refuse
H=$TMP/hostile/policy-path && hostile policy-path && edit_manifest "$H" '.policy = "/etc/shadow"'
like "a manifest whose policy is outside the bundle: show refuses" "$(oneline "$PGB" bundle show "$H")" \
	'policy names "/etc/shadow", which is not one of the files it lists.* exit 2$'
H=$TMP/hostile/bolt-path && hostile bolt-path && \
	edit_manifest "$H" '.bolt = {profile: $p, optimize_flags: null}' --arg p "../../rootonly/secret"
cp "$T/src/prog" "$TMP/prog.bolt-path"
like "a manifest whose BOLT profile is outside the bundle: bolt refuses" \
	"$(oneline "$PGB" bundle bolt "$H" "$TMP/prog.bolt-path")" \
	'bolt\.profile names "\.\./\.\./rootonly/secret", which is not one of the files it lists.* exit 2$'
ok "... the binary untouched" cmp -s "$T/src/prog" "$TMP/prog.bolt-path"

# a bundle's policy is a policy: flags that would load code are refused
hostile policy-plugin
A=$TMP/apply-plugin && project "$A"
like "a bundle's policy that loads a plugin: the compile is refused (exit 101)" \
	"$(cd "$A/src" && oneline env PGOPT_ROOT="$A" PGOPT_LOGDIR="$A/log" \
		PGOPT_POLICY="$TMP/hostile/policy-plugin/pgopt.policy" PGOPT_BUNDLE="$TMP/hostile/policy-plugin" \
		"$PGOPTCC" -O2 -c hot.c -o hot.o)" '-fplugin=.*exit 101$'
is "... nothing compiled" "$(ls "$A/src" | tr '\n' ' ')" "hot.c main.c "

# the Debian fragment checks the bundle before configure (its first compile)
mkdir -p "$TMP/masq" && ln -sf "$PGOPTCC" "$TMP/masq/gcc"
frag() { make -s -f "$TOP/examples/pgoptcc-deb.mk" PGOPT_MASQ="$TMP/masq" PGOPT_PGBUILD="$PGB" \
	PGOPT_LOGDIR="$TMP/fraglog" "$@" execute_before_dh_auto_configure; }
like "examples/pgoptcc-deb.mk: a refused bundle fails before configure, naming the file" \
	"$(oneline frag PGOPT_BUNDLE="$TMP/hostile/link-dir")" 'hostile/link-dir/gcda is a symbolic link.*exit 2$'
like "... an untouched one passes, saying what it holds" "$(oneline frag PGOPT_BUNDLE="$TMP/B")" \
	'PGO: 2 units, .* exit 0$'

# ---- the untouched bundle works; the stamp; a change after the stamp
G=$TMP/good && project "$G"
build "$G" PGOPT_POLICY="$TMP/B/pgopt.policy" PGOPT_BUNDLE="$TMP/B" 2>"$TMP/good.err"
is "the untouched bundle: the build works, GCC quiet" "$?:$(cat "$TMP/good.err")" "0:"
is "... both units compiled with their profile" \
	"$(jq -r 'select(.bundle) | .bundle.profile' "$G/log/compile.jsonl" | sort | tr '\n' ' ')" \
	"gcda/src/hot.gcda gcda/src/main.gcda "
cmp -s "$G/src/hot.gcda" "$TMP/B/gcda/src/hot.gcda"
is "... the profile beside the object is the bundle's" "$?" 0
stamp=$(ls "$G"/log/bundle-verified/* 2>/dev/null)
like "... the first compile left a verification stamp (0700 directory, the caller's)" \
	"$(stat -c '%a %U' "$G/log/bundle-verified") $(head -1 "$stamp" 2>/dev/null)" "^700 root pgoptcc-bundle-stamp 1 "
is "... listing every file with its sha256" "$(tail -n +2 "$stamp" | sort)" \
	"$(jq -r '.files | to_entries[] | .value + "  " + .key' "$M" | sort)"
ok "bundle check of that build: exit 0" "$PGB" bundle check "$TMP/B" --log "$G/log"
# the bundle is nobody's and changes after the stamp: the compile that
# reads the changed profile refuses it, with the stamp
W=$TMP/hostile/late && as_nobody cp -r "$TMP/B" "$W"
L=$TMP/late && project "$L"
build "$L" PGOPT_POLICY="$TMP/B/pgopt.policy" PGOPT_BUNDLE="$W" 2>/dev/null
is "a bundle of nobody's: the build works while it is intact" "$?" 0
as_nobody sh -c 'printf x >> "$1/gcda/src/hot.gcda"' - "$W"
rm -f "$L/src/hot.gcda" "$L/src/hot.o"
like "changed after the stamp: the next compile reading it refuses" \
	"$(cd "$L/src" && oneline env PGOPT_ROOT="$L" PGOPT_LOGDIR="$L/log" PGOPT_POLICY="$TMP/B/pgopt.policy" \
		PGOPT_BUNDLE="$W" "$PGOPTCC" -O2 -c hot.c -o hot.o)" \
	'late/gcda/src/hot\.gcda: its sha256 is .* exit 100$'
is "... and copies nothing" "$(ls "$L/src" | grep -c '^hot\.')" 1

# ---- bundle bolt's log: a new private directory, no predictable name
if [ ! -x "$LLVM/llvm-bolt" ]; then
	skip "llvm-bolt is not installed in $LLVM: bundle bolt's log not run" 4
	done_testing
fi
SH=$TMP/shared && mkdir -m 1777 "$SH"
printf 'keep\n' > "$TMP/victim"
cp "$BO/src/prog" "$TMP/prog.copy"
# the old name was TMPDIR/pgbuild-bundle-bolt-BINARY-PID.log: plant it for
# the PID pgbuild gets (exec keeps the shell's)
out=$(TMPDIR=$SH bash -c 'runuser -u nobody -- ln -s "$1" "$2/pgbuild-bundle-bolt-prog.copy-$$.log" &&
	exec "$3" bundle bolt "$4" "$5"' - "$TMP/victim" "$SH" "$PGB" "$TMP/B" "$TMP/prog.copy" 2>&1)
is "bundle bolt without --log: exit 0" "$?" 0 || diag "$out"
is "... the link planted at the old name was not followed" "$(cat "$TMP/victim")" "keep"
log=$(printf '%s\n' "$out" | sed -n "s/.*BOLT's log: \(.*\))$/\1/p")
like "... its log is in a new directory of its own" "$log" "^$SH/pgbuild-bundle-bolt-[A-Za-z0-9]{6}/bolt-prog\.copy\.log$"
is "... 0700, root's, holding the log alone (the profile's copy removed)" \
	"$(stat -c '%a %U' "$(dirname "$log")") $(ls "$(dirname "$log")")" "700 root bolt-prog.copy.log"
done_testing
