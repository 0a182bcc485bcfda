#!/bin/bash
# 60-profile-pg.t - pgbuild profile on the project's own baseline build
# (the shared e2e build "base"): a perf cpu-clock profile of select-only
# ranks the known hot functions near the top and attributes them to the
# right translation units (from the build's objects); the emitted policy
# parses, names real files of the source tree, and - replayed through
# pgoptcc on the real compile of the hottest file - passes the hot list to
# the plugin, whose marks land in .text.hot (checked with pgbuild inspect).
# No PostgreSQL build of its own.
. "$(dirname "$0")/lib.sh"
P=$B/bin/pgbuild
unset PGOPT_POLICY PGOPT_LOGDIR PGOPT_PREFIX

if ! command -v perf >/dev/null ||
	! perf record -q -e cpu-clock -o "$TMP/probe.data" -- true 2>/dev/null; then
	skip_all "perf cpu-clock sampling does not work here (the gcov path is tests/pg/61)"
fi
base=$(e2e_build base none) || { ok "baseline build" false; done_testing; }
src=$(e2e_src)
cd "$TMP" || exit 1

out=$(e2e_heavy "$P" profile --install "$base" --workload select-only --clients 2 --duration 10 \
	--top 30 --json prof.json --emit-hotlist hot.txt --emit-policy hot.policy -q 2>err.txt)
s=$?
is "profile of select-only on the baseline: exit 0" "$s" 0
[ $s = 0 ] || diag "$(tail -20 err.txt)"
diag "$(printf '%s\n' "$out" | head -22)"

# function table: rank share cum function file
ftab=$(printf '%s\n' "$out" | awk '/^rank/{n++; next} n==1 && NF>=5 {print $4, $5}')
known=0
for f in hash_search_with_hash_value _bt_compare AllocSetAlloc SearchCatCache1 LWLockAcquire \
	LWLockRelease GetSnapshotData palloc hash_bytes PostgresMain heap_hot_search_buffer \
	ExecInterpExpr _bt_checkkeys ReadBuffer_common PinBuffer; do
	printf '%s\n' "$ftab" | awk '{print $1}' | grep -qx "$f" && known=$((known + 1))
done
ok "at least 4 of the known hot functions are in the top 30 ($known)" test $known -ge 4
like "most of the server's time is attributed to files" "$(printf '%s\n' "$out" | head -3)" \
	'of that attributed to [0-9]+ files'
att=$(sed -nE 's/.*"server":([0-9.e+]+),"attributed":([0-9.e+]+).*/\2 \1/p' prof.json | head -1)
ok "at least 70% of the server's samples have a file ($att)" \
	awk -v a="$att" 'BEGIN { split(a, x, " "); exit !(x[2] > 0 && x[1] / x[2] >= 0.7) }'
for pair in "hash_search_with_hash_value src/backend/utils/hash/dynahash.c" \
	"_bt_compare src/backend/access/nbtree/nbtsearch.c"; do
	set -- $pair
	got=$(printf '%s\n' "$ftab" | awk -v f="$1" '$1 == f {print $2; exit}')
	if [ -n "$got" ]; then
		is "$1 is attributed to $2" "$got" "$2"
	else
		skip "$1 is not in this run's top 30: its attribution cannot be checked"
	fi
done

# the policy: parses (pgoptcc) and names real files
files=$(sed -nE 's/^\[(src\/[^]]*)\]$/\1/p' hot.policy)
n=$(printf '%s\n' "$files" | grep -c .)
ok "the policy names hot files ($n)" test "$n" -ge 2
missing=0
for f in $files; do [ -f "$src/$f" ] || { missing=1; diag "not in the tree: $f"; }; done
is "every file the policy names exists in the source tree" "$missing" 0
like "the policy carries the hot list" "$(cat hot.policy)" $'\nhot = hot.txt\n'
ok "the hot list is not empty" test -s hot.txt

# replay the real compile of the hottest files through pgoptcc with the
# policy, the hottest first, until one has a function the plugin marked:
# what the profile ranks first depends on the machine's load (lwlock.c under
# load), and a file's listed functions may all be inlined into their callers
replay() { # TU: compile it as make did, into $TMP/hot.o; 0 when it compiled
	local rec
	rec=$(grep -F "\"tu\":\"$1\"" "$(e2e_builddir base)/pgopt-log/compile.jsonl" | grep '"kind":"compile"' | tail -1)
	[ -n "$rec" ] || { diag "the baseline's compile log has no $1"; return 1; }
	rm -rf log && mkdir -p log
	perl -MJSON::PP -e 'my $r = decode_json($ARGV[0]); my @a = @{$r->{argv_in}};
		for (my $i = 0; $i < @a; $i++) { $a[$i + 1] = $ARGV[1] if $a[$i] eq "-o" }
		print join("\0", $r->{cwd}, @a)' "$rec" "$TMP/hot.o" > argv.bin
	mapfile -d '' -t argv < argv.bin
	(cd "${argv[0]}" && PGOPT_POLICY=$TMP/hot.policy PGOPT_LOGDIR=$TMP/log PGOPT_PREFIX= \
		"$B/bin/pgoptcc" "${argv[@]:1}") 2>cc.err
}
hot= marked=0 compiled=0 tried=
for f in $(printf '%s\n' "$files" | head -3); do
	tried="$tried $f"
	replay "$f" || { diag "$f: $(tail -3 cc.err)"; continue; }
	grep -q '"added":\["-O3","-finline-functions"\]' log/compile.jsonl || { diag "$f: not the policy's flags"; continue; }
	compiled=$((compiled + 1))
	marked=$("$P" inspect --json - hot.o | grep -o '"marked":"hot"' | wc -l)
	[ "$marked" -ge 1 ] && { hot=$f; break; }
	diag "$f: the plugin marked none of its functions hot (the listed ones inlined?)"
done
is "pgoptcc compiles the hottest files with the generated policy and its flags:$tried" \
	"$compiled" "$(printf '%s\n' $tried | grep -c .)"
ok "the plugin marked hot functions of one of them (${hot:-none}: $marked)" test -n "$hot"
hotfn=$("$P" inspect --json - hot.o | perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>);
	for my $u (@{$j->{units}}) { for my $f (@{$u->{functions}}) {
		if (($f->{marked} // "") eq "hot") { print $f->{name}, "\n"; exit } } }')
like "... and it is on the hot list" "$(cat hot.txt)" "(^|$(printf '\n'))${hotfn}($(printf '\n')|$)"
like "pgbuild inspect: $hotfn is in .text.hot" \
	"$("$P" inspect --json - --function "$hotfn" hot.o)" '"elf_section":".text.hot'
done_testing
