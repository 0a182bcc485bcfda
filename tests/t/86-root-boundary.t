#!/bin/bash
# 86-root-boundary.t - the privilege boundary between pgbuild (root) and the
# server user it runs PostgreSQL's server side as.  Everything that runs as
# the server user here is hostile on purpose: a make check rule, an initdb
# of the install under test.  It plants symbolic links at every path root
# reads or writes next (its logs, the build's logs, regression.diffs, the
# servers' logs, server.log, the single-user runs' files) pointing into a
# root-only directory, and edits the Makefiles root runs next.  Asserted:
# nothing appears or changes in the root-only directory, nothing changes
# owner, no content of it reaches pgbuild's output, root never runs what
# the server user wrote, and a build tree an earlier pgbuild handed over
# is refused with a sentence.  Installcheck (regress --install): the suite
# may write in src/test/regress of its test tree and nowhere else there.  A caller's --workdir is never chmodded.
# Nothing of root's environment but the fixed list (serveruser.h) reaches
# the server user's processes (make check, the server and what it runs:
# COPY ... TO PROGRAM), and no descriptor of root's but 0-2: the suite
# runs with a marker token, SSH_AUTH_SOCK, LD_LIBRARY_PATH, PGPASSWORD in
# its environment and fd 7 open on a root-only file.
# tap: alone (it times something: make check runs it by itself, tests/tests.mk)
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/heavy.sh"
P=$B/bin/pgbuild
[ "$(id -u)" = 0 ] || skip_all "needs root: the boundary is between root and the server user"
SRV_USER=${PGBUILD_SERVER_USER:-postgres}
id "$SRV_USER" >/dev/null 2>&1 || skip_all "no server user $SRV_USER"
PGREAL=${PGOPT_TEST_PGPREFIX:-/usr/lib/postgresql/15}
export PGOPT_CACHE_DIR=$TMP/cache
unset PGOPT_POLICY PGOPT_LOGDIR PGOPT_PREFIX
export TMPDIR=$TMP
cd "$TMP" || exit 1

# --- the root-only directory every planted link points into ---
R=$TMP/rootonly
mkdir -m 700 "$R"
printf 'original content\n' > "$R/victim"
printf 'server process (PID 1) was terminated by signal 11: the secret 42\n' > "$R/secret"
chmod 600 "$R/victim" "$R/secret"
snapshot() { # names, owners, modes, sizes and checksums of everything in $R
	(cd "$R" && find . -printf '%p %U:%G %m %s\n' | sort &&
	 find . -type f -size -1M -exec sha256sum {} + | sort)
}
# root's: a CI token and friends, and a descriptor on a root-only file
export PGOPT_SECRET_TOKEN=tok-$$ SSH_AUTH_SOCK=$R/agent LD_LIBRARY_PATH=$R/lib PGPASSWORD=pw-$$
export LANG=C.UTF-8 TZ=UTC
exec 7<"$R/secret"
before=$(snapshot)
# the server user's view ($2: a file with its env and the readlinks of its
# descriptors): none of root's, nothing open on the root-only directory
has_line() { printf '%s\n' "$1" | grep -qxF -- "$2"; }
server_view() { # title file
	local v home
	v=$(cat "$2" 2>/dev/null)
	home=$(getent passwd "$SRV_USER" | cut -d: -f6)
	ok "$1: the server user's environment has the fixed PATH" \
		has_line "$v" "PATH=/usr/local/bin:/usr/bin:/bin"
	ok "$1: ... its own HOME, and the caller's LANG and TZ" eval \
		'has_line "$v" "HOME=$home" && has_line "$v" LANG=C.UTF-8 && has_line "$v" TZ=UTC'
	is "$1: ... none of root's token, SSH_AUTH_SOCK, LD_LIBRARY_PATH, PGPASSWORD" \
		"$(printf '%s\n' "$v" | grep -E 'tok-|SSH_AUTH_SOCK|LD_LIBRARY_PATH|PGPASSWORD')" ""
	is "$1: ... no descriptor of root's on the root-only directory" \
		"$(printf '%s\n' "$v" | grep -F "$R")" ""
}
unchanged() { # title: the root-only directory is as it was
	local now
	now=$(snapshot)
	is "$1: nothing appeared, changed or changed owner in the root-only directory" "$now" "$before"
	[ "$now" = "$before" ] || { printf 'original content\n' > "$R/victim"; before=$(snapshot); }
}

# --- a fake PostgreSQL whose make check runs as the server user and plants ---
mkdir -p fakepg-99.1/src/backend
cat > fakepg-99.1/configure <<'CONF'
#!/bin/sh
PACKAGE_VERSION='99.1'
srcdir=$(cd "$(dirname "$0")" && pwd)
prefix=/usr/local CC=cc
for a; do
	case $a in
	--prefix=*) prefix=${a#--prefix=} ;;
	CC=*) CC=${a#CC=} ;;
	esac
done
echo "$*" > config.status
mkdir -p src/backend src/test/regress contrib
cat > GNUmakefile <<EOF
srcdir = $srcdir
CC = $CC
prefix = $prefix
all: src/backend/postgres
src/backend/a.o: \$(srcdir)/src/backend/a.c
	cd src/backend && \$(CC) -O2 -c -o a.o \$(srcdir)/src/backend/a.c
src/backend/postgres: src/backend/a.o
	cd src/backend && \$(CC) -O2 -o postgres a.o
install: all
	mkdir -p \$(prefix)/bin && cp src/backend/postgres \$(prefix)/bin/postgres
check:
	sh \$(srcdir)/plant.sh "$PWD"
installcheck:
	sh \$(srcdir)/plant-ic.sh "$PWD" "" "\$(bindir)"
EOF
printf 'all:\ninstall:\n' > contrib/Makefile
CONF
chmod +x fakepg-99.1/configure
printf 'int main(void) { return 0; }\n' > fakepg-99.1/src/backend/a.c
cat > fakepg-99.1/plant.sh <<'PLANT'
#!/bin/sh
# make check, as the server user: links where root writes or reads next,
# in the build tree ($1) and where make runs; Makefile edits root would run
B=$1 R=$(cat "$(dirname "$0")/plant-into")
# what it got of root's: its environment and descriptors, in its output
{ env | sort; for f in /proc/$$/fd/*; do echo "fd ${f##*/} $(readlink "$f")"; done; } > view.txt
sed 's/^/VIEW /' view.txt
for d in "$B" "$PWD"; do
	for f in pgopt-make.log pgopt-configure.log pgopt-install.log pgopt-regress-core.log \
		 pgopt-build.json pgopt-regress.lock; do
		rm -f "$d/$f" 2>/dev/null
		ln -s "$R/victim" "$d/$f" 2>/dev/null
	done
	printf 'all: pwned\npwned:\n\ttouch %s/pwned\n' "$R" >> "$d/GNUmakefile" 2>/dev/null
	{ cp "$d/GNUmakefile" "$d/GNUmakefile.new" &&
	  printf 'all: pwned\npwned:\n\ttouch %s/pwned\n' "$R" >> "$d/GNUmakefile.new" &&
	  mv -f "$d/GNUmakefile.new" "$d/GNUmakefile"; } 2>/dev/null
done
mkdir -p src/test/regress/log 2>/dev/null
ln -sf "$R/secret" src/test/regress/regression.diffs
ln -sf "$R/secret" src/test/regress/log/postmaster.log
echo "test fake_check                   ... FAILED           1 ms"
echo "The differences that caused some tests to fail can be viewed in the file \"$PWD/src/test/regress/regression.diffs\"."
echo " 1 of 1 tests failed. "
exit 1
PLANT
cat > fakepg-99.1/plant-ic.sh <<'PLANT'
#!/bin/sh
# make installcheck, as the server user: it may write where the suites write
# (src/test/regress), nowhere else in the test tree
B=$1 R=$(cat "$(dirname "$0")/plant-into")
echo "installcheck bindir=$3"
mkdir -p src/test/regress/results && echo ok > src/test/regress/results/fake.out &&
	echo "wrote src/test/regress/results/fake.out"
for f in x src/x src/backend/x src/test/x contrib/x; do
	if ( echo planted > "$f" ) 2>/dev/null || ln -s "$R/victim" "$f.lnk" 2>/dev/null; then
		echo "PLANTED $f"
	fi
done
echo "test fake_installcheck            ... ok           1 ms"
echo " All 1 tests passed. "
PLANT
SRC=$TMP/fakepg-99.1
echo "$R" > "$SRC/plant-into"   # make check gets no variable of ours
BD=$TMP/fake.build
build() { "$P" build --src "$SRC" --prefix "$TMP/fake" --builddir "$BD" --policy none --no-bench --jobs 2; }

ok "the fake PostgreSQL builds" build
gm=$(sha256sum < "$BD/GNUmakefile")
timeout 300 "$P" regress --builddir "$BD" >regress.out 2>&1
is "regress: the planted suite fails (exit 1)" "$?" 1
sed -n 's/^VIEW //p' "$BD/pgopt-regress-core.log" > view-regress.txt
server_view "regress (make check)" view-regress.txt
like "regress: its make ran in a test tree of hard links" "$(cat regress.out)" \
	"test tree $BD/pgopt-check: [0-9]+ hard links"
like "regress: ... and says where" "$(cat regress.out)" "running as user $SRV_USER.*the suites run in $BD/pgopt-check"
unchanged "regress"
nok "regress: no content of the root-only file reached its output" grep -q 'secret 42' regress.out
nok "regress: the crash line of the planted server log was not taken for the server's" \
	grep -q '^server: ' regress.out
is "regress: the build tree has no entry of the server user's" "$(find "$BD" ! -user root -print -quit)" ""
is "regress: the test tree is gone" "$(ls -d "$BD/pgopt-check" 2>/dev/null)" ""
is "regress: the build's Makefile is unchanged" "$(sha256sum < "$BD/GNUmakefile")" "$gm"
ok "regress: root's log of the suite is a regular file in the build tree" test -f "$BD/pgopt-regress-core.log" -a ! -L "$BD/pgopt-regress-core.log"
is "regress: the build tree holds no link the server user planted" "$(find "$BD" -type l -lname "$R/*" | head -1)" ""

# installcheck: only the directories the suites write in are the server
# user's; the rest of the test tree stays root's (make gets the install's
# bindir)
if [ -x "$PGREAL/bin/postgres" ] && [ -x "$PGREAL/bin/initdb" ]; then
	timeout 300 "$P" regress --builddir "$BD" --install "$PGREAL" >ic.out 2>&1
	is "installcheck: the fake suite passes (exit 0)" "$?" 0
	like "installcheck: the test tree hands over only src/test/regress" "$(cat ic.out)" \
		"its directories root's but where the suites write \(src/test/regress: [0-9]+ entries, their directories owned by $SRV_USER\)"
	like "installcheck: make gets the install's bindir" "$(cat ic.out)" \
		"make installcheck bindir=$PGREAL/bin"
	like "installcheck: the suite wrote its results" "$(cat "$BD/pgopt-regress-core.log")" \
		"wrote src/test/regress/results/fake.out"
	is "installcheck: nothing planted outside src/test/regress" \
		"$(grep '^PLANTED' "$BD/pgopt-regress-core.log")" ""
	like "installcheck: the suite saw the install's bindir" "$(cat "$BD/pgopt-regress-core.log")" \
		"installcheck bindir=$PGREAL/bin"
	unchanged "installcheck"
	is "installcheck: the build tree has no entry of the server user's" \
		"$(find "$BD" ! -user root -print -quit)" ""
	is "installcheck: the test tree is gone" "$(ls -d "$BD/pgopt-check" 2>/dev/null)" ""
else
	skip "no PostgreSQL install at $PGREAL for installcheck's server" 9
fi

# root builds in that tree again: it must run its own Makefile, not the
# server user's, and write its logs, not through links
ok "build: root builds the tree again" build
is "build: nothing the server user wrote ran as root" "$(ls "$R/pwned" 2>/dev/null)" ""
unchanged "build after regress"

# --- a build tree an earlier pgbuild handed to the server user ---
chown -R "$SRV_USER": "$BD"
runuser -u "$SRV_USER" -- sh -c "printf 'all: pwned\npwned:\n\ttouch $R/pwned\n' >> '$BD/GNUmakefile'"
build >handed.out 2>&1
is "handed-over tree: build refuses (exit 2)" "$?" 2
like "handed-over tree: one sentence with the path, the owner and the fix" "$(cat handed.out)" \
	"refusing to run make in $BD: it belongs to $SRV_USER \\(uid [0-9]+\\).*chown -R 0: $BD"
"$P" regress --builddir "$BD" >handed2.out 2>&1
is "handed-over tree: regress refuses too (exit 2)" "$?" 2
like "... with the same sentence" "$(cat handed2.out)" "refusing to run make in $BD"
is "handed-over tree: nothing of it ran" "$(ls "$R/pwned" 2>/dev/null)" ""
unchanged "handed-over tree"
rm -rf "$BD"

# --- an install whose initdb (run as the server user) plants links ---
if [ -x "$PGREAL/bin/postgres" ] && [ -x "$PGREAL/bin/initdb" ]; then
	FP=$TMP/hostile
	mkdir -p "$FP/bin"
	ln -s "$PGREAL/bin/postgres" "$FP/bin/postgres"
	cat > "$FP/bin/initdb" <<EOF
#!/bin/sh
# the install's initdb, as the server user: links where root goes next
prev= d=
for a; do [ "\$prev" = -D ] && d=\$a; prev=\$a; done
top=\$(dirname "\$d")
PLANT_TARGET=\$(cat "$FP/plant-target")
rm -f "\$top/server.log" 2>/dev/null
ln -s "\$PLANT_TARGET" "\$top/server.log" 2>/dev/null
for f in prepare.log load.sql out template.tmp prepare-template-none.log load-template-none.sql; do
	rm -rf "\$top/\$f" 2>/dev/null
	ln -s "\$PLANT_TARGET-\$f" "\$top/\$f" 2>/dev/null
done
exec "$PGREAL/bin/initdb" "\$@"
EOF
	chmod 755 "$FP/bin/initdb"
	for target in "$R/newfile" "$R/secret"; do
		echo "$target" > "$FP/plant-target"
		heavy timeout 300 "$P" bench --install "$FP" -q --set fsync=off -W select1 -c 1 -T 1 \
			--datadir-template "$TMP/tmpl-${target##*/}" --json "$TMP/b.json" >bench.out 2>&1
		is "bench, server.log planted as ${target##*/}: runs (exit 0)" "$?" 0
		unchanged "bench (${target##*/})"
		nok "bench (${target##*/}): no content of the root-only file in its output" \
			grep -q 'secret 42' bench.out
	done
	is "bench: no cluster directory left" "$(ls -d "$TMP"/pgbuild-* 2>/dev/null)" ""

	# the server and what its superuser runs (COPY ... TO PROGRAM): its
	# environment, and the descriptors of the backend and the postmaster
	mkdir -m 700 "$TMP/seen" && chown "$SRV_USER" "$TMP/seen"
	cat > view.sql <<SQL
COPY (SELECT 1) TO PROGRAM 'exec >$TMP/seen/view.txt 2>&1; env | sort; for p in \$PPID \$(cut -d" " -f4 /proc/\$PPID/stat); do for f in /proc/\$p/fd/*; do echo "fd \$p \$(readlink \$f)"; done; done';
SQL
	heavy timeout 300 "$P" bench --install "$PGREAL" -q -W sql -f view.sql -c 1 -t 1 >view.out 2>&1
	is "bench, a script that shows the server's view: runs (exit 0)" "$?" 0
	like "... the view shows the postmaster's descriptors" "$(cat "$TMP/seen/view.txt")" \
		"fd [0-9]+ .*/server.log"
	server_view "bench (the server)" "$TMP/seen/view.txt"
	is "bench: the template is the server user's" "$(stat -c %U "$TMP"/tmpl-*/*/ | sort -u)" "$SRV_USER"

	# gate's single-user runs: the base directory stays root's, only its
	# template/ and out/ are the server user's
	if command -v valgrind >/dev/null; then
		# valgrind (as the server user) makes its temporary files in TMPDIR
		echo "$R/gate" > "$FP/plant-target"
		TMPDIR=/tmp heavy timeout 600 "$P" gate --baseline "$FP" --candidate "$FP" --metric instructions \
			--counter callgrind -W select1 --instr-statements 20 --gate 'select1.instructions>=1' --noise none \
			--workdir "$TMP/gw" --json "$TMP/g.json" >gate.out 2>&1
		is "gate (instructions) with a planting initdb: passes (exit 0)" "$?" 0
		unchanged "gate"
		base=$(ls -d "$TMP"/gw/instr_*)
		is "gate: the single-user base directory is root's" "$(stat -c %U "$base")" root
		is "gate: ... its template and out/ the server user's" \
			"$(stat -c %U "$base/template-none" "$base/out" | sort -u)" "$SRV_USER"
		is "gate: ... its logs and scripts root's regular files" \
			"$(find "$base" -maxdepth 1 \( -name '*.log' -o -name '*.sql' \) ! \( -type f -user root \) | head -1)" ""
	else
		skip "valgrind is not installed: gate's single-user runs not tested" 5
	fi
else
	skip "no PostgreSQL in $PGREAL: the cluster and gate cases need one" 16
fi

# --- gate --workdir ~ : the caller's directory is never chmodded ---
export HOME=$TMP/home
mkdir -m 700 "$HOME"
"$P" gate --baseline "$PGREAL" --candidate "$PGREAL" -W select1 --pairs 6 -T 1 --workdir ~ \
	>home.out 2>&1
is "gate --workdir ~ (0700): refused (exit 2)" "$?" 2
like "... naming the directory, its mode and owner, and the fix" "$(cat home.out)" \
	"--workdir $HOME.*cannot enter $HOME \\(mode 0700, owner root\\).*chmod o\\+x $HOME"
is "... its mode and owner unchanged" "$(stat -c '%a %U' "$HOME")" "700 root"
mkdir -m 777 "$TMP/open"
"$P" gate --baseline "$PGREAL" --candidate "$PGREAL" -W select1 --pairs 6 -T 1 --workdir "$TMP/open" \
	>open.out 2>&1
is "gate --workdir a directory anyone can write: refused (exit 2)" "$?" 2
like "... saying so" "$(cat open.out)" "another user can change what is in it \\(mode 0777, owner root\\)"
is "... its mode unchanged" "$(stat -c %a "$TMP/open")" 777
done_testing
