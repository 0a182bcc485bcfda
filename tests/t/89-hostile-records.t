#!/bin/bash
# 89-hostile-records.t - compile logs and build records are data, never
# commands.  A package's log and record are verified later, by someone
# else, often root: what they say may have been written by anyone.
#  - a compile log whose records name a compiler (the "compiler" field, a
#    compiler word or a --pgopt-cc= option leading argv_in) that would
#    leave a marker: verify --log replays with the caller's compiler
#    (PGOPT_CC, default gcc on the caller's PATH), says the log names
#    another, and the marker never appears;
#  - a build record whose environment carries LD_PRELOAD (a library whose
#    constructor leaves a marker), PATH (a directory whose `true` and `gcc`
#    leave markers), PGOPT_CC (the same compiler): verify --install loads
#    and runs none of them, and warns naming each key;
#  - a compile log or build record naming another file as the build's
#    policy (a root-only file whose line the policy parser would quote
#    back): verify refuses it unread as a policy (its sha256 is not the
#    one the log records, or the text the record holds), and a log whose
#    records carry no policy_sha256 needs the caller's --policy;
#  - as root: a log directory owned by nobody, or writable by others, is
#    refused by verify --log, report --log, bundle check --log and pgoptcc
#    (PGOPT_LOGDIR) with the rule and sentence of --workdir, naming its
#    owner and mode; functions/ or records/ replaced by a link to a
#    root-only directory is never written through.
. "$(dirname "$0")/../lib/tap.sh"
P=$B/bin/pgbuild
W=$B/bin/pgoptcc
export PGOPT_CACHE_DIR=$TMP/cache
unset PGOPT_POLICY PGOPT_LOGDIR PGOPT_PREFIX PGOPT_ROOT PGOPT_CC PGOPT_PLUGIN PGOPT_FAILSAFE
cd "$TMP" || exit 1

# --- what an attacker leaves: programs and a library that leave markers ---
M=$TMP/markers
mkdir -p "$M" evilbin
printf '#!/bin/sh\ntouch %s/evil-cc\nexec gcc "$@"\n' "$M" > evil-cc
printf '#!/bin/sh\ntouch %s/path-true\nexit 0\n' "$M" > evilbin/true
printf '#!/bin/sh\ntouch %s/path-gcc\nexec /usr/bin/gcc "$@"\n' "$M" > evilbin/gcc
chmod 755 evil-cc evilbin/true evilbin/gcc
cat > evil.c <<EOF
#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void planted(void)
{
	int fd = open("$M/preload", O_WRONLY | O_CREAT, 0644);
	if (fd >= 0)
		close(fd);
}
EOF
ok "(setup) a preload library whose constructor leaves a marker" gcc -shared -fPIC -o evil.so evil.c
LD_PRELOAD=$TMP/evil.so /bin/true
ok "(setup) ... it works: loading it leaves the marker" test -e "$M/preload"
rm -f "$M"/*
no_markers() { # title
	is "$1: no marker left (nothing the file named ran or was loaded)" "$(ls "$M")" ""
	rm -f "$M"/*
}

# --- a build through pgoptcc, laid out as pgbuild build leaves one ---
BD=$TMP/bt
mkdir -p "$BD/src/backend"
printf 'int a(int x) { return x + 1; }\n' > "$BD/src/backend/a.c"
printf 'int a(int);\nint main(int c, char **v) { (void)v; return a(c) == 2 ? 0 : 1; }\n' > "$BD/src/backend/main.c"
printf '[global]\ncflags += -fno-plt\n[a.c]\ncflags += -O3\n' > p.policy
CC1="$W --pgopt-policy=$TMP/p.policy --pgopt-logdir=$BD/pgopt-log"
ok "(setup) the build through pgoptcc" sh -c "cd '$BD/src/backend' && $CC1 -O2 -c -o a.o a.c &&
	$CC1 -O2 -c -o main.o main.c && $CC1 -O2 -o postgres main.o a.o"
mkdir -p pfx/bin && cp "$BD/src/backend/postgres" pfx/bin/postgres
record() { # ENVIRONMENT-JSON: pfx/pgopt-build.json naming the build, the policy (with
	# the text it held, as pgbuild build records it) and it
	printf '{"builddir":"%s","policy":{"path":"%s/p.policy","content":%s},"environment":%s}\n' \
		"$BD" "$TMP" "$(jq -Rs . p.policy)" "$1" > pfx/pgopt-build.json
}
record '{"PGOPT_POLICY":"'"$TMP"'/p.policy","PGOPT_LOGDIR":"'"$BD"'/pgopt-log"}'
"$P" verify --install pfx > v.out 2>&1
is "(setup) verify --install of the honest record: exit 0" "$?" 0 || diag "$(cat v.out)"
no_markers "the honest record"

# --- a compile log naming another compiler ---
forge() { # DIR PERL: DIR/compile.jsonl, the build's log with every record changed by PERL ($r)
	mkdir -p "$1"
	perl -MJSON::PP -ne 'BEGIN { $j = JSON::PP->new->canonical } my $r = $j->decode($_); '"$2"'; print $j->encode($r), "\n"' \
		"$BD/pgopt-log/compile.jsonl" > "$1/compile.jsonl"
}
forge word '$r->{compiler} = "'"$TMP"'/evil-cc"; unshift @{$r->{argv_in}}, "'"$TMP"'/evil-cc"'
"$P" verify --log word --builddir "$BD" > v.out 2>&1
no_markers "verify --log of a log whose compiles name $TMP/evil-cc (a compiler word)"
like "... says the log names another compiler than the one it replays with" "$(cat v.out)" \
	"warning: the compile log word/compile.jsonl names the compiler $TMP/evil-cc \\(2 compiles\\), replaying with /[^ ]*gcc[^ ]* \\(the caller's: PGOPT_CC, default gcc\\)"
forge opt 'unshift @{$r->{argv_in}}, "--pgopt-cc='"$TMP"'/evil-cc"'
"$P" verify --log opt --builddir "$BD" > v.out 2>&1
no_markers "verify --log of a log whose compiles lead with --pgopt-cc=$TMP/evil-cc"
PATH=$TMP/evilbin:$PATH "$P" verify --log "$BD/pgopt-log" --builddir "$BD" > v.out 2>&1
ok "the caller's own PATH chooses the compiler: its gcc runs (PATH is the caller's to give)" \
	test -e "$M/path-gcc"
rm -f "$M"/*

# --- a build record carrying LD_PRELOAD, PATH and PGOPT_CC ---
record '{"PGOPT_POLICY":"'"$TMP"'/p.policy","LD_PRELOAD":"'"$TMP"'/evil.so","PATH":"'"$TMP"'/evilbin:/usr/bin:/bin","PGOPT_CC":"'"$TMP"'/evil-cc","BASH_ENV":"'"$TMP"'/evil.sh"}'
"$P" verify --install pfx > v.out 2>&1
is "verify --install of a record carrying LD_PRELOAD, PATH, PGOPT_CC: verified (exit 0)" "$?" 0
no_markers "verify --install of that record"
for k in LD_PRELOAD PATH BASH_ENV; do
	like "... warns naming $k" "$(cat v.out)" \
		"warning: pfx/pgopt-build.json: environment \"$k\" ignored: a build record may only carry"
done
like "... and says the record's compiler is not the one replayed with" "$(cat v.out)" \
	"warning: the build record pfx/pgopt-build.json names the compiler $TMP/evil-cc, replaying with /[^ ]*gcc"
record '{"PGOPT_PROFILE":"$(touch '"$M"'/shell) use"}'
"$P" verify --install pfx > v.out 2>&1
no_markers "a record whose PGOPT_PROFILE holds shell syntax"
like "... refused as a value, named" "$(cat v.out)" \
	'warning: pfx/pgopt-build.json: environment "PGOPT_PROFILE" ignored: '

# --- a log or record naming another file as its policy: never parsed ---
# (a root-only file with a line the policy parser would quote back)
printf '[client]\nhots = s3cr3t-XYZZY\n' > secret.conf && chmod 600 secret.conf
forge pol '$r->{policy} = "'"$TMP"'/secret.conf" if $r->{policy}'
"$P" verify --log pol --builddir "$BD" > v.out 2>&1
is "verify --log of a log naming $TMP/secret.conf as its policy: exit 2" "$?" 2
like "... refused: not the file the build read" "$(cat v.out)" \
	"pgbuild: error: the policy pol/compile.jsonl names, $TMP/secret.conf, is not the file the build read \\(its sha256 is not the recorded one\\): give --policy FILE\\|none"
nok "... none of its text shown" grep -q XYZZY v.out
forge nosha 'delete $r->{policy_sha256}'
"$P" verify --log nosha --builddir "$BD" > v.out 2>&1
like "a log naming its policy without policy_sha256: refused, exit 2" "$?/$(cat v.out)" \
	"^2/pgbuild: error: nosha/compile.jsonl names the policy $TMP/p.policy without the sha256 of its text"
"$P" verify --log nosha --builddir "$BD" --policy "$TMP/p.policy" > v.out 2>&1
is "... the caller's --policy: verified (exit 0)" "$?" 0
printf '{"builddir":"%s","policy":{"path":"%s/secret.conf","content":%s},"environment":{}}\n' \
	"$BD" "$TMP" "$(jq -Rs . p.policy)" > pfx/pgopt-build.json
"$P" verify --install pfx > v.out 2>&1
is "verify --install of a record naming $TMP/secret.conf with another text: exit 2" "$?" 2
like "... refused: not the file the build read" "$(cat v.out)" \
	"the policy pfx/pgopt-build.json names, $TMP/secret.conf, is not the file the build read"
nok "... none of its text shown" grep -q XYZZY v.out

# --- root: the log directory's owner and mode, its side directories ---
if [ "$(id -u)" != 0 ] || ! id nobody >/dev/null 2>&1; then
	skip "needs root and the user nobody: the log directory's owner is checked as root" 18
	done_testing
fi
R=$TMP/rootonly
mkdir -m 700 "$R"
printf 'secret\n' > "$R/file"
snap() { (cd "$R" && find . -printf '%p %U %m %s\n' | sort); }
before=$(snap)

cp -r "$BD/pgopt-log" nlog && chown -R nobody nlog
"$P" verify --log "$TMP/nlog" --builddir "$BD" > v.out 2>&1
is "verify --log of a directory nobody owns: exit 2" "$?" 2
like "... refused with --workdir's sentence, naming owner and mode" "$(cat v.out)" \
	"pgbuild: error: --log $TMP/nlog: another user can change what is in it \\(mode 0755, owner nobody\\): pgbuild runs as root and reads the build's compile log from it; give a directory only root can write \\(chown root $TMP/nlog; chmod go-w $TMP/nlog\\)"
cp -r "$BD/pgopt-log" wlog && chmod 777 wlog
"$P" verify --log "$TMP/wlog" --builddir "$BD" > v.out 2>&1
is "verify --log of root's directory anyone can write: exit 2" "$?" 2
like "... named with its mode" "$(cat v.out)" "--log $TMP/wlog: another user can change what is in it \\(mode 0777, owner root\\)"
"$P" report --log "$TMP/nlog" > v.out 2>&1
is "report --log of nobody's directory: exit 2" "$?" 2
like "... the same sentence" "$(cat v.out)" "--log $TMP/nlog: another user can change what is in it \\(mode 0755, owner nobody\\)"
mkdir -p bdl && printf '{}\n' > bdl/manifest.json
"$P" bundle check bdl --log "$TMP/nlog" > v.out 2>&1
is "bundle check --log of nobody's directory: exit 2" "$?" 2
like "... the same sentence" "$(cat v.out)" "--log $TMP/nlog: another user can change what is in it \\(mode 0755, owner nobody\\)"
(cd "$BD/src/backend" && PGOPT_LOGDIR=$TMP/nlog "$W" -O2 -c -o x.o a.c) > v.out 2>&1
is "pgoptcc as root with PGOPT_LOGDIR nobody owns: fails (exit 104)" "$?" 104
like "... the same sentence" "$(cat v.out)" \
	"pgoptcc: error: the log directory $TMP/nlog: another user can change what is in it \\(mode 0755, owner nobody\\): pgoptcc runs as root and writes the compile log there; give a directory only root can write"
ok "... and wrote nothing there" test "$(stat -c %s nlog/compile.jsonl)" = "$(stat -c %s "$BD/pgopt-log/compile.jsonl")"

# functions/ (the plugin's records) and records/ (records = side) as links
mkdir -p llog && ln -s "$R" llog/functions
(cd "$BD/src/backend" && PGOPT_LOGDIR=$TMP/llog PGOPT_POLICY=$TMP/p.policy PGOPT_ROOT=$BD "$W" -O2 -c -o x.o a.c) > v.out 2>&1
ok "pgoptcc: LOGDIR/functions a link to a root-only directory: the compile fails" test "$(cat v.out)" != "" -a ! -e "$BD/src/backend/x.o"
like "... naming it" "$(cat v.out)" "$TMP/llog/functions.*symbolic link"
is "... nothing written through it" "$(snap)" "$before"
rm -f llog/functions && mkdir llog/functions && ln -s "$R" llog/functions/src
(cd "$BD/src/backend" && PGOPT_LOGDIR=$TMP/llog PGOPT_POLICY=$TMP/p.policy PGOPT_ROOT=$BD "$W" -O2 -c -o x.o a.c) > v.out 2>&1
is "the plugin: a link below functions/ (its unit's directory) is never followed" "$(snap)" "$before"
rm -rf llog && mkdir -p llog && ln -s "$R" llog/records
(cd "$BD/src/backend" && PGOPT_LOGDIR=$TMP/llog PGOPT_POLICY=$TMP/p.policy PGOPT_ROOT=$BD PGOPT_RECORDS=side \
	"$W" -O2 -o x main.o a.o) > v.out 2>&1
nok "records = side: LOGDIR/records a link: the link fails" test -e "$BD/src/backend/x"
like "... naming it" "$(cat v.out)" "records.*symbolic link"
is "... nothing written through it" "$(snap)" "$before"
done_testing
