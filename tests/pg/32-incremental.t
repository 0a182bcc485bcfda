#!/bin/bash
# 32-incremental.t - a policy change on 20 files rebuilds exactly those 20
# translation units and relinks, nothing else (proved from the compile log),
# in the baseline's build directory; then back to policy none, which again
# recompiles exactly those 20 (ccache hits) and leaves the baseline as it was.
# Nothing is installed (--no-install): the baseline's prefix is untouched.
. "$(dirname "$0")/lib.sh"
e2e_extra incremental "incremental rebuilds and an interrupted build on PostgreSQL (tests/t/30 covers them on a small tree; about 4 min)"
P=$B/bin/pgbuild

base=$(e2e_build base none)
bd=$(e2e_builddir base)
src=$(e2e_src)
LOG=$bd/pgopt-log/compile.jsonl
R=$bd/pgopt-build.json
json() { perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); for (split /\./, $ARGV[0]) {
	$j = ref $j eq "ARRAY" ? $j->[$_] : $j->{$_} } print ref $j eq "ARRAY" ? join("\n", @$j) : $j // "null"' "$1" < "$R"; }
tus_since() { tail -n +"$1" "$LOG" | perl -MJSON::PP -ne '$r = decode_json($_);
	print "$r->{tu}\n" if $r->{kind} eq "compile"' | sort; }

# 20 executor files, one policy section each
(cd "$src" && ls src/backend/executor/*.c | sort | head -20) > "$TMP/files"
is "picked 20 files" "$(wc -l < "$TMP/files")" 20
while read -r f; do printf '[%s]\ncflags += -O3\n' "$f"; done < "$TMP/files" > "$TMP/p20.policy"

rebuild() { # policy -> runs pgbuild build in the baseline's build dir
	e2e_heavy "$P" build --src "$src" --policy "$1" --prefix "$base" --builddir "$bd" \
		--no-install ${PGOPT_E2E_JOBS:+--jobs "$PGOPT_E2E_JOBS"} >"$TMP/build.log" 2>&1
}

# hold the base build's lock in this shell (a subshell would lose the TAP
# counter of the checks inside)
exec 9>"$(e2e_dir base)/.lock"
flock 9
{
	rm -f "$(e2e_dir base)/.done"    # an interrupted test must not leave a "done" base
	# settle first: whatever others did in the shared tree (a `make -B`
	# re-running configure regenerates pg_config_paths.h, ...) is rebuilt
	# now, not counted below
	ok "settle the baseline build directory" rebuild none
	first=$(( $(wc -l < "$LOG") + 1 ))
	ok "rebuild with the 20-file policy" rebuild "$TMP/p20.policy"
	is "pgbuild invalidated exactly the 20 files" "$(json incremental.invalidated_tus | sort)" "$(cat "$TMP/files")"
	is "the compile log shows exactly those 20 compiles" "$(tus_since "$first")" "$(cat "$TMP/files")"
	ok "they were compiled with -O3" sh -c "tail -n +$first '$LOG' | grep '\"kind\":\"compile\"' | grep -c '\"added\":\\[\"-O3\"\\]' | grep -qx 20"
	like "postgres was relinked" "$(tail -n +"$first" "$LOG" | grep '"kind":"link"' | grep -c '"output":"postgres"')" '^[1-9]'
	diag "rebuild: $(json wall_seconds) s vs full build $(perl -MJSON::PP -e 'local $/; print decode_json(<STDIN>)->{wall_seconds}' < "$base/pgopt-build.json") s"

	first=$(( $(wc -l < "$LOG") + 1 ))
	ok "back to policy none" rebuild none
	is "the same 20 files are rebuilt" "$(tus_since "$first")" "$(cat "$TMP/files")"
	first=$(( $(wc -l < "$LOG") + 1 ))
	ok "an unchanged policy rebuilds nothing" rebuild none
	is "... no compile at all" "$(tus_since "$first" | wc -l)" 0
	echo "none " > "$(e2e_dir base)/.done"
}
exec 9>&-
ok "the baseline still verifies" "$P" verify --install "$base"

# ---- an interrupted build resumes: Ctrl-C during make, then the next
# `pgbuild build` in that directory (with another policy) finishes it, and
# every object carries the new policy's flags (including those compiled
# before the interruption) ----
IB=$TMP/ib
interrupted() {
	local pid n=0
	mkdir -p "$IB"
	setsid "$P" build --src "$src" --policy none --prefix "$IB/prefix" --builddir "$IB/build" \
		--no-bench ${PGOPT_E2E_JOBS:+--jobs "$PGOPT_E2E_JOBS"} >"$IB/first.log" 2>&1 &
	pid=$!
	# wait for a few hundred compiles (ccache hits: the baseline was just built)
	while kill -0 "$pid" 2>/dev/null && [ "$n" -lt 300 ]; do
		sleep 0.5
		n=$(grep -c '"kind":"compile"' "$IB/build/pgopt-log/compile.jsonl" 2>/dev/null) || n=0
	done
	kill -INT -- "-$pid" 2>/dev/null
	wait "$pid"
	echo "$?" >"$IB/first.rc"
	echo "$n" >"$IB/first.n"
	# make and the compilers stop on the same SIGINT; give them time
	for _ in $(seq 1 30); do
		pgrep -s "$pid" >/dev/null || break
		sleep 1
	done
	ps -o pid=,args= -s "$pid" >"$IB/left" || true
	"$P" build --src "$src" --policy "$TMP/p20.policy" --prefix "$IB/prefix" --builddir "$IB/build" \
		--no-bench ${PGOPT_E2E_JOBS:+--jobs "$PGOPT_E2E_JOBS"} >"$IB/second.log" 2>&1
	echo "$?" >"$IB/second.rc"
}
e2e_heavy interrupted
like "the first build was interrupted during make ($(cat "$IB/first.n") compiles)" "$(cat "$IB/first.n")" '^[0-9]{3,}$'
like "... and did not finish (exit $(cat "$IB/first.rc"))" "$(cat "$IB/first.rc")" '^[1-9]'
is "... leaving no process behind" "$(cat "$IB/left")" ""
is "the next build in that directory finishes" "$(cat "$IB/second.rc")" 0 ||
	diag "$(tail -n 20 "$IB/second.log")"
ok "every object of its postgres carries its policy's flags" "$P" verify --install "$IB/prefix"
ok "... -O3 on the 20 files, also on those compiled before the interruption" sh -c \
	"'$P' inspect --json - '$IB/prefix/bin/postgres' | perl -MJSON::PP -e '
		local \$/; my \$j = decode_json(<STDIN>); my \$n = 0;
		for my \$u (@{\$j->{units}}) { \$n++ if grep { \$_ eq \"-O3\" } @{\$u->{flags} || []} }
		exit(\$n == 20 ? 0 : 1)'"
rm -rf "$IB"
done_testing
