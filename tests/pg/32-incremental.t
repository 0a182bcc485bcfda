#!/bin/bash
# 32-incremental.t - a policy change on 20 files rebuilds exactly those 20
# translation units and relinks, nothing else (proved from the compile log),
# in the baseline's build directory; then back to policy none, which again
# recompiles exactly those 20 (ccache hits) and leaves the baseline as it was.
# Nothing is installed (--no-install): the baseline's prefix is untouched.
. "$(dirname "$0")/lib.sh"
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

(
	flock 9
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
) 9>"$(e2e_dir base)/.lock"
ok "the baseline still verifies" "$P" verify --prefix "$base"
done_testing
