#!/bin/bash
# 33-regress-prefix.t - pgbuild regress --install (installcheck) on an install
# pgbuild did not make: a copy of the baseline's prefix in another place,
# whose psql logs that it ran.  The suites must run the prefix's own clients
# (not the build's configured bindir, nor a psql on PATH), and as root only
# the directories the suites write in (src/test/regress) belong to the
# server user while they run: the rest of the test tree stays root's and
# the build tree is never handed over.
. "$(dirname "$0")/lib.sh"
P=$B/bin/pgbuild

base=$(e2e_build base none)
bd=$(e2e_builddir base)
ok "baseline built and installed" test -x "$base/bin/postgres"

# the install elsewhere: its psql a script that says which psql ran and,
# as the server user, what of the test tree outside src/test/regress is
# not root's (nothing may be)
pfx=$TMP/pfx
cp -a "$base" "$pfx"
mv "$pfx/bin/psql" "$pfx/bin/psql.real"
: >"$TMP/psql.log"
chmod 666 "$TMP/psql.log"
cat >"$pfx/bin/psql" <<SH
#!/bin/sh
echo "ran \$0" >>"$TMP/psql.log"
if [ -d "$bd/pgopt-check" ]; then
	n=\$(find "$bd/pgopt-check" -path "$bd/pgopt-check/src/test/regress" -prune -o ! -user root -print 2>/dev/null | wc -l)
	echo "foreign \$n" >>"$TMP/psql.log"
fi
exec "\$(dirname "\$0")/psql.real" "\$@"
SH
chmod 755 "$pfx/bin/psql"
# a psql on PATH that must not run either
mkdir -p "$TMP/path"
printf '#!/bin/sh\necho "ran PATH psql" >>"%s"\nexit 1\n' "$TMP/psql.log" >"$TMP/path/psql"
chmod 755 "$TMP/path/psql"

out=$(PATH=$TMP/path:$PATH e2e_heavy "$P" regress --builddir "$bd" --install "$pfx" \
	--tests "test_setup boolean" 2>&1)
is "installcheck of a subset against the copied prefix exits 0" "$?" 0
like "... 2 tests passed" "$out" 'core: 2 tests, 2 passed, 0 failed'
like "... it names the clients it runs" "$out" "with its clients \($pfx/bin/psql\)"
ok "the prefix's psql ran" grep -q "^ran $pfx/bin/psql\$" "$TMP/psql.log"
is "... and no other psql (PATH's, the build's bindir)" \
	"$(grep '^ran ' "$TMP/psql.log" | grep -cv "^ran $pfx/bin/psql\$")" 0
if [ "$(id -u)" = 0 ]; then
	like "as root: only the directories the suites write in are the server user's" "$out" \
		"test tree $bd/pgopt-check: [0-9]+ hard links and directories of the build tree \([0-9.]+ s\), its directories root's but where the suites write \(src/test/regress: [0-9]+ entries, their directories owned by postgres\)"
	is "... while they ran, nothing else of the test tree was another user's" \
		"$(grep '^foreign ' "$TMP/psql.log" | sort -u | tr '\n' ' ')" "foreign 0 "
	is "... the build tree has no entry of another user" \
		"$(find "$bd" ! -user root -print -quit)" ""
	is "... and the test tree is gone" "$(ls -d "$bd/pgopt-check" 2>/dev/null)" ""
else
	skip "not root: the suites run as the caller in the build tree, nothing is handed over" 4
fi
like "verdict" "$(printf '%s\n' "$out" | tail -1)" '^regress: PASSED'
[ "$TAP_FAILED" = 0 ] || diag "$out"
done_testing
