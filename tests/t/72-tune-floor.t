#!/bin/bash
# 72-tune-floor.t - `pgbuild tune` decides a deterministic metric
# (instructions, the cycles estimate) at the layout floor the gate uses
# (noise/floor.h's rule), never at the repeat resolution unasked: with a
# --baseline that has no floor of the --train workload it refuses to run
# before its first build, naming what gives one (its floor, --noise FILE,
# `pgbuild noise`, or no --baseline), and --noise none is refused alike;
# so no change inside the layout spread (a 0.5% gain against a repeat
# resolution of 0.01%) can be accepted.  The old tune went on at the
# repeat resolution (here: it starts building, cut off after 20 s, and the
# checks fail).  Without --baseline and --noise tune builds stock itself
# and measures its floor right after (tests/pg/70 runs it): --dry-run says
# so, and a run goes on to build stock (of a source whose configure fails
# here).  --dry-run says the resolution a
# run would decide at: a floor's (Debian's PostgreSQL 15 as the baseline, a
# floor of its postgres written here), stock's to be measured, or none with
# the reason.  Seconds: nothing is built.
. "$(dirname "$0")/../lib/tap.sh"
P=$B/bin/pgbuild
PG=/usr/lib/postgresql/15
[ -x $PG/bin/postgres ] || skip_all "Debian's PostgreSQL 15 is not installed at $PG"
chmod 755 "$TMP"

printf -- '-O3\n-fno-plt\n' >"$TMP/cands"
# tune NAME ARGS...: a tune that must stop before building anything; in its
# own process group, killed whole after 20 s (124) if it does not (the old
# tune starts building)
tune() {
	local n=$1 pid i; shift
	setsid "$P" tune --candidates "$TMP/cands" --workdir "$TMP/w-$n" "$@" \
		>"$TMP/$n.out" 2>"$TMP/$n.err" &
	pid=$!
	for ((i = 0; i < 200; i++)); do
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 $pid 2>/dev/null; then
		kill -KILL -- -$pid 2>/dev/null
		{ wait $pid; } 2>/dev/null
		return 124
	fi
	wait $pid
}

# ---- no floor: refused, for each deterministic metric ----
for m in instructions cycles; do
	tune "none-$m" --baseline $PG --metric $m
	is "--metric $m, no floor in the baseline: exit 2" "$?" 2
	like "... refused: there is none, and why" "$(cat "$TMP/none-$m.err")" \
		"^pgbuild: error: --metric $m: no layout floor: no $PG/pgopt-noise.json; \`pgbuild noise --install $PG\` measures one; "
	like "... never the repeat resolution unasked: names the floor's file, --noise FILE and no --baseline, never --noise none" \
		"$(cat "$TMP/none-$m.err")" \
		"; tune never decides select-only at the repeat resolution \([0-9.]+%, inside every layout spread measured\) unasked: give its floor \($PG/pgopt-noise.json, or --noise FILE\), or no --baseline: tune measures stock's floor after building it\$"
	ok "... before anything is made" test ! -e "$TMP/w-none-$m"
done
like "the repeat resolution it would have decided at is named (instructions)" \
	"$(cat "$TMP/none-instructions.err")" 'at the repeat resolution \(0.01%,'
# a floor of the baseline's postgres without the --train workload
SHA=$(sha256sum $PG/bin/postgres | cut -d' ' -f1)
floor() { # FILE WORKLOAD SD_PCT: a pgbuild noise document of $PG's postgres, 5 variants
	printf '{"postgres_sha256":"%s","variants":[{},{},{},{},{}],"workloads":{"%s":{"instructions":{"mean":40000,"sd":1,"sd_pct":%s},"cycles":{"mean":90000,"sd":1,"sd_pct":%s}}}}\n' \
		"$SHA" "$2" "$3" "$3" >"$1"
}
floor "$TMP/tpcb-floor.json" tpcb 0.1
tune other --baseline $PG --noise "$TMP/tpcb-floor.json"
is "a floor without the --train workload: exit 2" "$?" 2
like "... refused: the floor has no select-only" "$(cat "$TMP/other.err")" \
	"^pgbuild: error: --metric instructions: no layout floor: .*select-only.*\`pgbuild noise --install $PG -W select-only\` measures one"
# tps needs none: its interval is measured (the refusal is the floor's
# alone: --dry-run shows the run would go on)
"$P" tune --candidates "$TMP/cands" --metric tps --dry-run >"$TMP/tps.out" 2>"$TMP/tps.err"
is "--metric tps: no floor needed (dry run exit 0)" "$?" 0
nok "... and no resolution line" grep -q '^resolution:' "$TMP/tps.out"

# ---- --dry-run: the resolution a run decides at, or why it would stop ----
"$P" tune --candidates "$TMP/cands" --dry-run --json "$TMP/dry.json" >"$TMP/dry.out" 2>"$TMP/dry.err"
is "dry run without --baseline and --noise: exit 0" "$?" 0
nok "... a run would not stop: tune measures stock's floor" grep -q 'a run would stop' "$TMP/dry.err"
like "... the plan says the floor is measured after stock's build, on the --train and held-out workloads" \
	"$(cat "$TMP/dry.out")" \
	"^resolution: stock's layout floor, measured after stock's build \(\`pgbuild noise\` on it, -W select-only,mixed: WORKDIR/stock-noise.json\), by the gate's rule\$"
is "... the JSON plan: no resolution yet, and where it will come from" \
	"$(perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>); print defined $d->{resolution} ? "a number" : "null", "|", $d->{resolution_source} =~ /^stock.s layout floor, measured after/ ? "measured" : $d->{resolution_source}' <"$TMP/dry.json")" "null|measured"
# a run gets past the floor to stock's build: here of a source whose
# configure fails at once (no PostgreSQL is built, nothing fetched)
mkdir -p "$TMP/nosrc"
printf '#!/bin/sh\necho "not PostgreSQL: this configure fails" >&2\nexit 1\n' >"$TMP/nosrc/configure"
chmod 755 "$TMP/nosrc/configure"
tune nobase --metric instructions --held-out none --src "$TMP/nosrc"
is "no --baseline: a run is not refused for a floor; stock's build fails here (exit 2)" "$?" 2
like "... its first step was stock's build" "$(cat "$TMP/nobase.err")" '^tune: build stock \('
like "... and it stopped there, saying so" "$(cat "$TMP/nobase.err")" '^pgbuild: error: stock cannot be built: pgbuild build exited'
nok "... never for want of a floor" grep -q 'layout floor' "$TMP/nobase.err"
"$P" tune --candidates "$TMP/cands" --dry-run --noise none >"$TMP/dry-none.out" 2>"$TMP/dry-none.err"
is "--noise none: a dry run still shows the plan (exit 0)" "$?" 0
# the repeat resolution is no statistic, and every flag tune keeps or adds
# is a claim (of a loss without it, of a gain with it): refused as without
# a floor (a flag kept on layout noise was the best set, exit 0)
like "... and says a run would stop, and why" "$(cat "$TMP/dry-none.err")" \
	'^pgbuild: note: a run would stop here: --metric instructions --noise none: the repeat resolution \(0.01%\) is no statistic, inside every layout spread measured; each flag tune keeps or adds claims a gain or a loss it cannot show there: give a layout floor .*, or neither --baseline nor --noise: tune measures stock.s floor after building it$'
like "... no resolution in the plan" "$(cat "$TMP/dry-none.out")" '^resolution: none: --metric instructions --noise none'
mkdir -p "$TMP/wn"
"$P" tune --candidates "$TMP/cands" --workdir "$TMP/wn" --baseline $PG --noise none >"$TMP/none.out" 2>"$TMP/none.err"
is "--noise none: a run is refused before its first build (exit 2)" "$?|$(ls "$TMP/wn" | wc -l)" "2|0"
like "... saying why" "$(cat "$TMP/none.err")" '^pgbuild: error: --metric instructions --noise none: the repeat resolution'
# the gate's rule on this floor: 1.96 x sqrt(2) x 2.3723557 x 0.1% = 0.658%
floor "$TMP/floor.json" select-only 0.1
"$P" tune --candidates "$TMP/cands" --dry-run --baseline $PG --noise "$TMP/floor.json" \
	>"$TMP/dry-floor.out" 2>&1
is "--noise FILE of the baseline's postgres: exit 0" "$?" 0
like "... the floor's resolution, by the gate's rule (the candidate's side a stand-in)" \
	"$(cat "$TMP/dry-floor.out")" \
	"^resolution: 0.66% \(layout floor: 1.96 x sqrt\(a\^2 \+ b\^2\), a = 95% bound of SD 0.1% over 5 variants = 0.2372% \($TMP/floor.json\), b = a stand-in"
done_testing
