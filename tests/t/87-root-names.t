#!/bin/bash
# 87-root-names.t - the paths root names beside what the caller gave, and
# the directories the server user runs from, as another local user
# (nobody) would attack them: a link planted at the interrupt document's
# temporary name next to --json (its pid is predictable), an explain
# --workdir anyone can write or only root can enter, a --datadir-template
# directory anyone can write, a sticky --workdir (as /tmp) in which nobody
# made the names the commands use.  Each must be refused or never written
# through, and no mode of the caller's directory may change.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/bench.sh"
P=$B/bin/pgbuild
[ "$(id -u)" = 0 ] || skip_all "needs root: the boundary is between root and other users"
id nobody >/dev/null 2>&1 || skip_all "no user nobody"

# a root-only file the attacker wants overwritten
mkdir -p "$TMP/secret" && chmod 700 "$TMP/secret"
echo "root's" >"$TMP/secret/file" && chmod 600 "$TMP/secret/file"
# a sticky directory anyone can write, as /tmp is
mkdir -p "$TMP/shared" && chmod 1777 "$TMP/shared"

# 1. bench's interrupt document: nobody links FILE.sig.PID to the secret
"$P" bench --install "$PGPREFIX" -q --set fsync=off -W select-only -c 2 -T 30 \
	--json "$TMP/shared/r.json" >"$TMP/out" 2>"$TMP/err" &
pid=$!
runuser -u nobody -- ln -s "$TMP/secret/file" "$TMP/shared/r.json.sig.$pid"
for _ in $(seq 300); do
	pgrep -P "$pid" >/dev/null && [ -n "$(pgrep -f "postgres: postgres postgres" -P "$(pgrep -P "$pid" -f 'postgres -D' | head -n 1)" 2>/dev/null)" ] && break
	sleep 0.1
done
kill -INT "$pid"
wait "$pid"
is "bench interrupted: exit 130" "$?" 130
is "the planted link's target is untouched" "$(cat "$TMP/secret/file")" "root's"
is "--json is the interrupted document" \
	"$(perl -MJSON::PP -0ne 'print JSON::PP->new->decode($_)->{error}' "$TMP/shared/r.json" 2>/dev/null)" \
	"interrupted by SIGINT"

# 2. explain --workdir: one anyone can write is refused, a 0700 one is
# refused (the server user cannot enter it) and keeps its mode
mkdir -p "$TMP/open" && chmod 777 "$TMP/open"
"$P" explain --baseline "$PGPREFIX" --candidate "$PGPREFIX" -W select-only \
	--workdir "$TMP/open" >"$TMP/out" 2>"$TMP/err"
is "explain --workdir 0777: exit 2" "$?" 2
like "explain --workdir 0777: says why" "$(cat "$TMP/err")" "another user can change what is in it"
is "explain --workdir 0777: mode kept" "$(stat -c %a "$TMP/open")" 777
mkdir -p "$TMP/private" && chmod 700 "$TMP/private"
"$P" explain --baseline "$PGPREFIX" --candidate "$PGPREFIX" -W select-only \
	--workdir "$TMP/private" >"$TMP/out" 2>"$TMP/err"
is "explain --workdir 0700: exit 2" "$?" 2
is "explain --workdir 0700: mode kept (never chmodded)" "$(stat -c %a "$TMP/private")" 700

# 3. --datadir-template: a directory anyone can write is refused before a
# cluster is made (a template planted there would be the server's
# postgresql.conf); so is a template below a trusted one that nobody owns
"$P" bench --install "$PGPREFIX" -q -W select-only -c 1 -T 1 \
	--datadir-template "$TMP/shared" >"$TMP/out" 2>"$TMP/err"
is "--datadir-template 1777: exit 2" "$?" 2
like "--datadir-template 1777: says why" "$(cat "$TMP/err")" "another user could change what the server runs"
mkdir -p "$TMP/tmpl" && chmod 755 "$TMP/tmpl"
"$P" bench --install "$PGPREFIX" -q -W select-only -c 1 -T 1 --datadir-template "$TMP/tmpl" \
	>"$TMP/out" 2>"$TMP/err"
is "a template directory of root's: bench runs" "$?" 0
t=$(find "$TMP/tmpl" -mindepth 1 -maxdepth 1 -type d | head -n 1)
ok "the template was saved" test -n "$t"
chown -R nobody "$t"
"$P" bench --install "$PGPREFIX" -q -W select-only -c 1 -T 1 --datadir-template "$TMP/tmpl" \
	>"$TMP/out" 2>"$TMP/err"
isnt_zero=$?
ok "a template nobody owns is refused" test "$isnt_zero" != 0
like "a template nobody owns: says why" "$(cat "$TMP/err")" "another user could change what the server runs"

# 4. a sticky --workdir anyone can write, as /tmp is: the commands make
# fixed names there (logs/, run-state.json, sets/ID), so nobody could make
# them first; it is refused before anything is made or written there
runuser -u nobody -- mkdir "$TMP/shared/logs"
runuser -u nobody -- ln -s "$TMP/secret/file" "$TMP/shared/logs/baseline.log"
runuser -u nobody -- ln -s "$TMP/secret/file" "$TMP/shared/run-state.json"
before=$(ls -A "$TMP/shared" | sort | tr '\n' ' ')
"$P" gate --baseline "$PGPREFIX" --candidate "$PGPREFIX" --metric instructions -W select1 \
	--workdir "$TMP/shared" >"$TMP/out" 2>"$TMP/err"
is "gate --workdir 1777: exit 2" "$?" 2
like "gate --workdir 1777: says why" "$(cat "$TMP/err")" 'another user can change what is in it \(mode 1777'
"$P" explain --baseline "$PGPREFIX" --candidate "$PGPREFIX" -W select-only \
	--workdir "$TMP/shared" >"$TMP/out" 2>"$TMP/err"
is "explain --workdir 1777: exit 2" "$?" 2
is "the planted links' target is untouched" "$(cat "$TMP/secret/file")" "root's"
is "nothing was made in the sticky directory" "$(ls -A "$TMP/shared" | sort | tr '\n' ' ')" "$before"
is "its mode is kept" "$(stat -c %a "$TMP/shared")" 1777
done_testing
