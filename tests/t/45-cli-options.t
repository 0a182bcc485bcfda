#!/bin/bash
# 45-cli-options.t - one vocabulary for every pgbuild command, and every
# option error before any work: one table of command lines, their exit
# code and their message (after pgbench's t/002_pgbench_no_server.pl).
# Nothing here needs PostgreSQL or builds anything: every row is refused
# (or answered) before the first build or benchmark.  An unknown,
# ambiguous or misused option is one "pgbuild: error:" naming the command
# and the nearest option (cli_getopt; getopt prints nothing of its own), in
# every command.  pgbuild --help groups the commands by task.  Then: usage
# errors end with the one hint; `pgbuild help CMD` is CMD --help for every
# command; long pipelines (run, tune, pgo) started as root in a 0700
# directory refuse at once, naming the directory, and leave nothing behind.
# Numbers are decimal everywhere (0x10, inf, nan refused; 1e3 where an
# integer is meant); every --set of a setting that opens the private cluster,
# loads code or moves the server's files is refused with its reason, for
# every command that takes --set (the list is pgbuild/README.md's); every
# command that measures or builds checks each output path it was given
# before it starts (a --json into a missing directory: exit 2 at once,
# nothing measured, no server, no cluster directory).
. "$(dirname "$0")/../lib/tap.sh"
P=$B/bin/pgbuild
PG=/usr/lib/postgresql/15
cd "$TMP" || exit 1
touch empty.policy
printf -- '-O3\n' > cands
mkdir -p src && touch src/configure
printf '[global]\nbolt = off\n' > bolt-off.policy
printf '[global]\nlto = yes\n' > lto-yes.policy
mkdir -p notours && touch notours/file
GATE="gate --baseline $PG --candidate $PG"
printf "fsync = off\n  listen_addresses = '*'\n" > listen.conf
# a NUL byte: the old check stopped there, the server reads past it
printf "fsync = off # \0\n\nshared_preload_libraries = 'x'\n" > nul.conf
printf "fsync = off\nwork_mem = 4MB 8MB\n" > unreadable.conf
printf "fsync = off\nINCLUDE 'other.conf'\n" > include.conf
touch nodir.keep
printf '{"postgres_sha256":"%064d","variants":[{},{}],"workloads":{}}\n' 0 >other-floor.json
# a command that got past its checks would make its cluster here
mkdir -p tmpdir && export TMPDIR=$TMP/tmpdir

# command line | exit | stderr (extended regex)
while IFS='|' read -r args want re; do
	[ -z "$args" ] && continue
	# shellcheck disable=SC2086
	eval "set -- $args"
	"$P" "$@" >out 2>err
	rc=$?
	is "exit $want: $args" "$rc" "$want"
	like "message: $args" "$(cat err)" "$re"
done <<ROWS
|2|usage: pgbuild COMMAND
--frob|2|^pgbuild: error: unknown option "--frob" for pgbuild
--hepl|2|^pgbuild: error: unknown option "--hepl" for pgbuild \(did you mean "--help"\?\)
-x|2|^pgbuild: error: unknown option "-x" for pgbuild \(its own options: --help, --version\)
$GATE --jsn g.json|2|^pgbuild: error: unknown option "--jsn" for pgbuild gate \(did you mean "--json"\?\)
$GATE --jsn=g.json|2|^pgbuild: error: unknown option "--jsn=g.json" for pgbuild gate \(did you mean "--json"\?\)
run --polcy empty.policy|2|^pgbuild: error: unknown option "--polcy" for pgbuild run \(did you mean "--policy"\?\)
build --prefx $TMP/x|2|^pgbuild: error: unknown option "--prefx" for pgbuild build \(did you mean "--prefix"\?\)
optimize --worklaod select-only|2|^pgbuild: error: unknown option "--worklaod" for pgbuild optimize \(did you mean "--workload"\?\)
tune --candidtes cands|2|^pgbuild: error: unknown option "--candidtes" for pgbuild tune \(did you mean "--candidates"\?\)
bench --install $PG --clinets 2|2|^pgbuild: error: unknown option "--clinets" for pgbuild bench \(did you mean "--clients"\?\)
regress --zzzz|2|^pgbuild: error: unknown option "--zzzz" for pgbuild regress$
bench -h localhost -S|2|^pgbuild: error: -h HOST is pgbench's host: bench starts a server of its own \(--install DIR\), or runs against yours with --connect 'host=HOST port=PORT user=USER dbname=DB' \(help: --help\)$
bench --install $PG -p 5432|2|^pgbuild: error: -p PORT is pgbench's port: give it in --connect
bench --install $PG -U me|2|^pgbuild: error: -U USER is pgbench's user: give it in --connect
bench --install $PG --random-seed 3|2|^pgbuild: error: --random-seed is --seed N here
noise --install $PG --random-seed 3|2|^pgbuild: error: unknown option "--random-seed" for pgbuild noise$
bench --prefix $PG|2|^pgbuild: error: --prefix names where a command installs; the installed PostgreSQL to use is --install DIR$
bench --prefix=$PG -t 1|2|^pgbuild: error: --prefix names where a command installs; the installed PostgreSQL to use is --install DIR$
verify --prefix $PG|2|^pgbuild: error: --prefix names where a command installs; the installed PostgreSQL to use is --install DIR$
noise --prefix $PG|2|^pgbuild: error: --prefix names where a command installs; the installed PostgreSQL to use is --install DIR$
profile --prefix $PG|2|^pgbuild: error: --prefix names where a command installs; the installed PostgreSQL to use is --install DIR$
regress --builddir $TMP --prefix $PG|2|^pgbuild: error: --prefix names where a command installs; the installed PostgreSQL to use is --install DIR$
bolt --prefix $PG --out o|2|^pgbuild: error: --out is now --prefix DIR, where a command installs \(and the installed PostgreSQL it reads is --install DIR\)$
bolt --out o --install $PG|2|^pgbuild: error: --out is now --prefix DIR, where a command installs
sensitivity --low-prefix $PG|2|^pgbuild: error: --low-prefix names an installed PostgreSQL, which is --low-install DIR \(a prefix is where a command installs\)$
sensitivity --high-prefix $PG|2|^pgbuild: error: --high-prefix names an installed PostgreSQL, which is --high-install DIR
pgo --prefix $TMP/p -W select-only|2|^pgbuild: error: -W \(--workload\) names the workloads a command judges a build on; this command's workloads are what it trains or searches on: --train LIST$
pgo --prefix $TMP/p --workload=select-only|2|^pgbuild: error: --workload \(-W\) names the workloads a command judges a build on; this command's workloads are what it trains or searches on: --train LIST$
bolt --install $PG --prefix o -W select-only|2|^pgbuild: error: -W \(--workload\) names the workloads a command judges a build on; this command's workloads are what it trains or searches on: --train LIST$
bolt --install $PG --prefix o --workload select-only|2|^pgbuild: error: --workload \(-W\) names the workloads a command judges a build on
tune --candidates cands --workdir w -W select-only --train tpcb|2|^pgbuild: error: -W \(--workload\) names the workloads a command judges a build on; this command's workloads are what it trains or searches on: --train LIST$
tune --candidates cands --workdir w --workload select-only|2|^pgbuild: error: --workload \(-W\) names the workloads a command judges a build on
tune --candidates cands --workdir w --time-budget 2|2|^pgbuild: error: --time-budget H is now --max-time TIME \(90s, 10m, 2h\)$
tune --candidates cands --workdir w --max-time 2h --time-budget 1|2|^pgbuild: error: --time-budget H is now --max-time TIME
build --install $PG|2|^pgbuild: error: unknown option "--install" for pgbuild build$
report --gate 'select-only>=1.0'|2|^pgbuild: error: --gate is a threshold expression \(gate, build, run, pgo, deb\); the gate's result file is --gate-result FILE$
report --gate=none.json|2|^pgbuild: error: --gate is a threshold expression .*; the gate's result file is --gate-result FILE$
explain --gate none.json|2|^pgbuild: error: --gate is a threshold expression .*; the gate's result file is --gate-result FILE$
report --gate-result 'select-only>=1.0'|2|^pgbuild: error: --gate-result: cannot read select-only>=1.0: No such file
explain --gate-result none.json|2|^pgbuild: error: --gate-result: cannot read none.json: No such file
report --inspect none|2|^pgbuild: error: --inspect is now --inspect-candidate FILE \(B's, as --inspect-baseline FILE is A's\)$
report --inspect-candidate none|2|^pgbuild: error: none: No such file or directory$
gate --prefix $PG|2|^pgbuild: error: --prefix names where a command installs; the installs compared are --baseline DIR and --candidate DIR$
gate --install $PG|2|^pgbuild: error: --install names one installed PostgreSQL; the installs compared are --baseline DIR and --candidate DIR$
explain --prefix $PG|2|the installs compared are --baseline DIR and --candidate DIR$
explain --install $PG|2|the installs compared are --baseline DIR and --candidate DIR$
report --prefix $PG|2|the installs compared are --baseline DIR and --candidate DIR$
report --install=$PG|2|the installs compared are --baseline DIR and --candidate DIR$
run --prefix $TMP/x|2|^pgbuild: error: --prefix: where run installs the candidate is --candidate-prefix DIR \(the baseline is --baseline DIR\)$
bundle create --out $TMP/nob --bundle $TMP/nosuchb --bolt $TMP/x|2|^pgbuild: error: create: --bolt is where llvm-bolt is \(bundle bolt\); the pgbuild bolt output to take the profile of is --bolt-install DIR$
bundle create --out $TMP/nob --bundle $TMP/nosuchb --bolt-install $TMP/x|2|^pgbuild: error: $TMP/nosuchb is no profile bundle
bundle create --out $TMP/nob --bundle $TMP/nosuchb|2|^pgbuild: error: create --bundle: add --bolt-install or --bolt-profile
bundle show $TMP/nosuchb --bolt-install $TMP/x|2|^pgbuild: error: show: --out, .*--bolt-install, --bolt-profile and --force go with create$
run --no|2|^pgbuild: error: ambiguous option "--no" for pgbuild run \(could be --noise, .*--no-verify, --no-regress\)
source --jso /no/such/x.json|2|^pgbuild: error: --json "/no/such/x.json": directory /no/such does not exist$
$GATE --json|2|^pgbuild: error: option "--json" needs a value$
build -j|2|^pgbuild: error: option "-j" \(--jobs\) needs a value$
$GATE --quiet=yes|2|^pgbuild: error: option "--quiet=yes" takes no value$
$GATE -Z|2|^pgbuild: error: unknown option "-Z" for pgbuild gate$
$GATE -qZ|2|^pgbuild: error: unknown option "-Z" for pgbuild gate$
benc|2|unknown command "benc" \(did you mean "bench"\?\)
help nosuch|2|unknown command "nosuch"
help bench extra|2|unexpected argument "extra"
bench --install $PG -c 2 -j 2 --threads 1|2|-j 2 and --threads 1 say different things: give one
bench --install $PG --jobs 0|2|invalid value "0" for --jobs: expected an integer from 1 to 1000
bench --install $PG -W select-only,tpcb|2|bench runs one workload; several are compared by pgbuild gate or run
bench --install $PG -W selct-only|2|unknown workload "selct-only" \(did you mean "select-only"\?\)
bench --install $PG -M prepard|2|invalid value "prepard" for --protocol: expected simple, extended or prepared \(did you mean "prepared"\?\)
bench --install $PG --threads 0|2|invalid value "0" for --threads
bench --install $PG -c 0|2|invalid value "0" for --clients: expected an integer from 1 to 10000
$GATE -W select-onyl|2|unknown workload "select-onyl" \(did you mean "select-only"\?\)
$GATE -W select-only -W ,|2|invalid value "," for --workload
$GATE --metric instruction|2|invalid value "instruction" for --metric: expected tps, instructions or cycles \(did you mean "instructions"\?\)
$GATE --metric tps,cycels|2|invalid value "tps,cycels" for --metric: item "cycels" is not tps, instructions or cycles \(did you mean "cycles"\?\)
$GATE --metric ''|2|invalid value "" for --metric
$GATE --gate 'select-only.cycles>=1.05'|2|threshold "select-only.cycles>=1.05" needs --metric cycles \(alone or in a list: --metric tps,cycles\)
$GATE --metric tps,instructions --gate 'cycles>=1.05'|2|threshold "cycles>=1.05" needs --metric cycles
$GATE --metric cycles --gate 'point-select.cycles>=1.05'|2|threshold "point-select.cycles>=1.05": workload "point-select" has no single-user script, which the cycles metric runs \(select-only, tpcb, select1, mixed, agg-join, bulk-index, json-text, plpgsql, select-only-s10, tpcb-s10\)
$GATE --metric cycles -W tpcc-lite --gate 'cycles>=1'|2|threshold "cycles>=1" applies to workload "tpcc-lite", which has no single-user script
$GATE --metric cycles -W tpcc-lite|2|threshold "cycles>=1" applies to workload "tpcc-lite"
$GATE --metric cycles --gate 'select-only.cycles<=1.05'|2|cycles is a speed ratio, bound it from below with >=
$GATE --metric cycles --gate 'select-only.cycle>=1.05'|2|unknown metric "cycle" \(tps, instructions, cycles, cpu,
$GATE --metric cycles --gate 'select-only.cycles>=105%'|2|105% is ambiguous
$GATE --metric cycles --gate 'tpcb>=1'|2|threshold "tpcb>=1" needs --metric tps \(alone or in a list: --metric tps,instructions\)
$GATE --metric instructions --gate 'cpu>=1.02'|2|threshold "cpu>=1.02" needs --metric tps \(alone or in a list: --metric tps,instructions\)
$GATE --gate 'select-only.server-cpu<=1.02'|2|server CPU is a speed ratio, bound it from below with >=
$GATE --cpus 0-x|2|invalid value "0-x" for --cpus: expected a list like 0-1,3
bench --install $PG --cpus 2-1|2|invalid value "2-1" for --cpus: expected a list like 0-1,3
bench --install $PG --cpus ''|2|invalid value "" for --cpus: expected a list like 0-1,3
bench --install $TMP/nowhere --cpus 0,1023|2|^pgbuild: error: invalid value "0,1023" for --cpus: no CPU 1023 here: the CPUs pgbuild may use are [0-9][-0-9,]*$
$GATE --cpus 1023|2|^pgbuild: error: invalid value "1023" for --cpus: no CPU 1023 here: the CPUs pgbuild may use are [0-9][-0-9,]*$
run --policy empty.policy --workdir w --src $TMP/nosrc --cpus 0,1023|2|^pgbuild: error: invalid value "0,1023" for --cpus: no CPU 1023 here
optimize -W select-only --src $TMP/nosrc --workdir w --cpus 1023|2|^pgbuild: error: invalid value "1023" for --cpus: no CPU 1023 here
$GATE --counter callgrin|2|invalid value "callgrin" for --counter: expected auto, perf or callgrind \(did you mean "callgrind"\?\)
$GATE -c 0|2|invalid value "0" for --clients: expected an integer from 1 to 10000
$GATE -T 0|2|invalid value "0" for --duration: expected a number of seconds > 0
$GATE -s 0|2|invalid value "0" for --scale: expected an integer from 1 to 100000
$GATE --pairs 3|2|--pairs 3: a 95% interval needs at least 6 pairs
$GATE -S -b tpcb-like --pairs 6|2|^pgbuild: error: --pairs 6: 2 tests \(the thresholds x the workloads they apply to\) need at least 7 pairs
$GATE -N -b si --pairs 5|2|^pgbuild: error: --pairs 5: a 95% interval needs at least 6 pairs$
$GATE -b si@2|2|^pgbuild: error: -b/-f NAME@W: a weight makes a mix of scripts, which pgbuild bench runs; the gate measures each workload on its own \(-W a,b\)$
$GATE -b tpcc|2|^pgbuild: error: unknown workload "tpcc" \(did you mean "tpcb"\?\)
$GATE -f $TMP/nosuch.sql|2|^pgbuild: error: cannot read script "$TMP/nosuch.sql"
$GATE -M binary|2|^pgbuild: error: invalid value "binary" for --protocol: expected simple, extended or prepared$
$GATE -j 0|2|^pgbuild: error: invalid value "0" for --jobs: expected an integer from 1 to 1000$
$GATE -c 2 -j 3 --threads 2|2|^pgbuild: error: -j 3 and --threads 2 say different things: give one$
$GATE -c 2 --threads 3|2|^pgbuild: error: --threads 3 is more than --clients 2$
$GATE --set =on|2|invalid value "=on" for --set: expected NAME=VALUE
$GATE --gate 'select-only>=105%'|2|105% is ambiguous: as the ratio 1.05 write \+5% or 1.05; as 105% more write \+105% or 2.05
$GATE --gate 'selectonly>=1.05'|2|threshold "selectonly>=1.05": unknown workload "selectonly" \(did you mean "select-only"\?\)
$GATE --gate 'tpcb>=1' --gate 'p99<=110%'|2|110% is ambiguous
run --policy empty.policy --workdir w --gate 'selectonly>=1.05'|2|unknown workload "selectonly" \(did you mean "select-only"\?\)
run --policy empty.policy --workdir w --gate 'select-only>=105%'|2|105% is ambiguous
run --policy empty.policy --workdir w --gate 'tpcb>=1' --gate 'p99<=+10%' --gate 'instructions>=1.01'|2|threshold "instructions>=1.01" needs --metric instructions \(alone or in a list: --metric tps,instructions\)
run --policy empty.policy --workdir w --metric instruction|2|did you mean "instructions"
run --policy empty.policy --workdir w --gate 'select-only.cycles>=1.05'|2|threshold "select-only.cycles>=1.05" needs --metric cycles
run --policy empty.policy --workdir w --metric tps,cycles --gate 'point-select.cycles>=1.05'|2|workload "point-select" has no single-user script
run --policy empty.policy --workdir w --metric cycles,tps --gate 'tpcb.cycles>=1' --pairs 3|2|--pairs 3: a 95% interval needs at least 6 pairs
run --policy empty.policy --workdir w --metric cycles --pairs 3 --gate 'cycles>=2,instructions>=1'|2|threshold "instructions>=1" needs --metric instructions \(alone or in a list: --metric tps,instructions\)
run --policy empty.policy --workdir w --pairs 3|2|--pairs 3: a 95% interval needs at least 6 pairs
run --policy empty.policy --workdir w --budget 10m|2|--budget needs --pairs auto
run --policy empty.policy --workdir w --pairs auto --budget 0.5s|2|invalid value "0.5s" for --budget: at least 1 second, e.g. 90s, 10m or 1h
run --policy empty.policy --workdir w --pairs auto --budget 10x|2|invalid value "10x" for --budget
run --policy empty.policy --workdir w --pairs auto --metric cycles|2|--pairs auto needs --metric tps \(alone or in a list\)
run --policy empty.policy --workdir w -W nosuch|2|unknown workload "nosuch"
run --policy empty.policy --workdir w -T 0|2|invalid value "0" for --duration
run --policy empty.policy --workdir w -c 0|2|invalid value "0" for --clients
run --policy empty.policy --workdir w -j 0|2|invalid value "0" for --jobs: expected an integer from 1 to 1024
run --policy empty.policy --workdir w --src $TMP/nosrc|2|--src "$TMP/nosrc": No such file or directory
run --policy empty.policy --workdir w --src $TMP|2|--src "$TMP": not a PostgreSQL source tree \(no configure\)
run --policy empty.policy --workdir w --baseline $TMP|2|--baseline $TMP: no bin/postgres
run --policy nosuch.policy --workdir $TMP/new-run --html $TMP/new-run/r.html|2|^pgbuild: error: --policy "nosuch.policy": No such file
run --policy nosuch.policy --workdir $TMP/new-run --html $TMP/new-run/sub/r.html|2|^pgbuild: error: --html "$TMP/new-run/sub/r.html": directory $TMP/new-run/sub does not exist
run --policy empty.policy --workdir w --metric tps,cycles --noise other-floor.json|2|^pgbuild: error: --noise other-floor.json needs --baseline: a floor is of one postgres, and the baseline is built by this run \(leave --noise out: run measures the baseline's floor\)
run --policy empty.policy --workdir w --metric tps,cycles --noise-variants 4|2|invalid value "4" for --noise-variants: expected an integer from 5 to 99
run --policy empty.policy --workdir w --metric tps,cycles --baseline $PG --noise other-floor.json|2|^pgbuild: error: --noise other-floor.json: other-floor.json was measured on another postgres \(sha256 000000000000\.\.\.\), not $PG/bin/postgres
run --policy empty.policy --workdir w --metric tps,cycles --baseline $PG --noise nosuch.json|2|^pgbuild: error: .*nosuch.json
tune --candidates cands --workdir w --weaken pie,relr0|2|invalid value "pie,relr0" for --weaken: unknown hardening class "relr0": expected a comma-separated list of stack-protector, cet, pie, relro, bind-now, fortify or stack-clash \(did you mean "relro"\?\)
run --policy none --weaken all|2|invalid value "all" for --weaken: unknown hardening class "all"
pgo --prefix o --weaken nopie|2|invalid value "nopie" for --weaken: unknown hardening class "nopie": .*\(did you mean "pie"\?\)
tune --candidates cands --workdir w --max-time 0.5s|2|^pgbuild: error: invalid value "0.5s" for --max-time: at least 1 second, e.g. 90s, 10m or 1h$
tune --candidates cands --workdir w --max-time 2x|2|^pgbuild: error: invalid value "2x" for --max-time
tune --candidates cands --workdir w --max-time 2h --src $TMP/nosrc|2|^pgbuild: error: --src "$TMP/nosrc": No such file or directory
tune --candidates cands --workdir w --metric instruction|2|invalid value "instruction" for --metric: expected instructions, tps or cycles \(did you mean "instructions"\?\)
tune --candidates cands --workdir w --metric cycles --train tpcc-lite|2|--metric cycles supports select-only, tpcb, select1, mixed, agg-join, bulk-index, json-text, plpgsql, select-only-s10, tpcb-s10, not "tpcc-lite"
tune --candidates cands --workdir w --train select-only,tpcb|2|^pgbuild: error: --train "select-only,tpcb": tune searches flags for one workload$
tune --candidates cands --workdir w --train selectonly|2|unknown workload "selectonly" \(did you mean "select-only"\?\)
tune --candidates cands --workdir w --held-out select-only|2|--held-out select-only: "select-only" is the workload the search trains on \(--train\)
tune --candidates cands --workdir w --train tpcb --held-out mixd|2|unknown workload "mixd" \(did you mean "mixed"\?\)
tune --candidates cands --workdir w --metric cycles --held-out mixed,tpcc-lite|2|--held-out mixed,tpcc-lite: --metric cycles supports select-only, tpcb, select1, mixed, agg-join, bulk-index, json-text, plpgsql, select-only-s10, tpcb-s10, not "tpcc-lite"
tune --candidates cands --workdir w --metric tps --pairs 3|2|--pairs 3: a 95% interval needs at least 6 pairs
tune --candidates cands --workdir w --metric tps --budget 10m|2|^pgbuild: error: --budget is the sequential gate's \(--pairs auto\); the search's time limit is --max-time$
tune --candidates cands --workdir w --metric tps --pairs auto --budget 0.5s|2|invalid value "0.5s" for --budget: at least 1 second, e.g. 90s, 10m or 1h
tune --candidates cands --workdir w --pairs auto|2|--pairs auto needs --metric tps
tune --candidates cands --workdir w -c 0|2|invalid value "0" for --clients
tune --candidates cands --workdir w --src $TMP/nosrc|2|--src "$TMP/nosrc"
pgo --prefix $TMP/p --train nosuch|2|unknown workload "nosuch"
pgo --prefix $TMP/p --train selectonly|2|did you mean "select-only"
pgo --prefix $TMP/p --baseline $PG --gate 'selectonly>=1'|2|did you mean "select-only"
pgo --prefix $TMP/p --baseline $TMP --gate 'select-only>=1'|2|--baseline $TMP: no bin/postgres
pgo --prefix $TMP/p --policy $TMP/nosuch.policy|2|--policy "$TMP/nosuch.policy": No such file or directory
pgo --prefix $TMP/p -j 0|2|invalid value "0" for --jobs
pgo --prefix $TMP/p --pairs 0|2|^pgbuild: error: invalid value "0" for --pairs: expected an integer from 6 to 1000, or auto$
pgo --prefix $TMP/p --baseline $PG --gate 'select-only>=1' --pairs 3|2|^pgbuild: error: --pairs 3: a 95% interval needs at least 6 pairs$
pgo --prefix $TMP/p --baseline $PG --gate 'select-only>=1,tpcb>=1,mixed>=1' --pairs 6|2|^pgbuild: error: --pairs 6: 3 tests \(the thresholds x the workloads they apply to\) need at least 7 pairs
pgo --prefix $TMP/p --baseline $PG --gate 'select-only>=1' --budget 10m|2|^pgbuild: error: --budget needs --pairs auto$
pgo --prefix $TMP/p --baseline $PG --gate 'select-only>=1' --pairs auto --budget 0.5s|2|invalid value "0.5s" for --budget: at least 1 second
pgo --prefix $TMP/p --pairs 9|2|^pgbuild: error: --pairs, --budget, --gate-duration and --gate-clients are the gate's: add --baseline PREFIX --gate EXPR$
pgo --prefix $TMP/p --baseline $PG --gate 'select-only>=1' --gate-duration 0|2|^pgbuild: error: invalid value "0" for --gate-duration: expected a number of seconds > 0
pgo --prefix $TMP/p --baseline $PG --gate 'select-only>=1' --gate-clients 0|2|^pgbuild: error: invalid value "0" for --gate-clients: expected an integer from 1 to 10000$
profile --install $PG --method perff|2|invalid value "perff" for --method: expected auto, perf or gcov \(did you mean "perf"\?\)
profile --install $PG -W tpbc|2|unknown workload "tpbc" \(did you mean "tpcb"\?\)
profile --install $PG --set fsync|2|invalid value "fsync" for --set: expected NAME=VALUE
sensitivity --metric tsp|2|did you mean "tps"
sensitivity -T 0|2|invalid value "0" for --duration
sensitivity -W a,b|2|unknown workload "a"
sensitivity --workdir w --low-install $TMP/nosuch --high-install $PG|2|^pgbuild: error: --low-install $TMP/nosuch: no bin/postgres: not an installed PostgreSQL$
sensitivity --workdir w --high-install $TMP/nosuch|2|^pgbuild: error: --high-install $TMP/nosuch: no bin/postgres: not an installed PostgreSQL$
sensitivity --workdir w --low-install $PG --high-install $PG --baseline $TMP/nosuch|2|^pgbuild: error: --baseline $TMP/nosuch: no bin/postgres
sensitivity --workdir w --src $TMP/nosrc|2|^pgbuild: error: --src "$TMP/nosrc": No such file or directory$
build --policy none --prefix $TMP/x -j 0|2|invalid value "0" for --jobs: expected an integer from 1 to 1024
build --policy lto-yes.policy --src src --prefix $TMP/x|2|^pgbuild: error: $TMP/lto-yes.policy:2: expected lto = on, off, fat or slim, got "yes"$
bolt|2|--install is required \(the BOLT-ready install\)
bolt --install $PG|2|--prefix is required
bolt --install $PG --prefix o --train selectonly|2|did you mean "select-only"
bolt --install $PG --prefix o --train nosuch|2|unknown workload "nosuch"
bolt --install $PG --prefix o -T 0|2|invalid value "0" for --duration: expected a number of seconds > 0
bolt --install $PG --prefix o -c 0|2|invalid value "0" for --clients: expected an integer from 1 to 10000
bolt --install $PG --prefix o -s 0|2|invalid value "0" for --scale
bolt --install $PG --prefix o -j 0|2|invalid value "0" for --jobs
bolt --install $PG --prefix o --set fsync|2|invalid value "fsync" for --set: expected NAME=VALUE
bolt --install $PG --prefix o --profile p.fdata --retrain|2|--profile and --retrain exclude each other
bolt --install $PG --prefix o --bolt-flags reorder|2|--bolt-flags: "reorder" is not an option: every word is one of llvm-bolt's options \(-name or -name=value\)
bolt --install $PG --prefix o --bolt-flags -o|2|--bolt-flags: "-o" is not a layout flag
bolt --install $PG --prefix o --bolt-flags --instrumentation-file=x|2|--bolt-flags: "--instrumentation-file=x" is not a layout flag
bolt --install $PG --prefix o --bolt-flags -print-cfg|2|--bolt-flags: "-print-cfg" is not a layout flag: it prints or writes files
bolt --install $PG --prefix o --bolt-flags -help-hidden|2|--bolt-flags: "-help-hidden" is not a layout flag
bolt --install $PG --prefix o --contrib --no-regress|2|--contrib and --no-regress exclude each other
bolt --install $PG --prefix o extra|2|unexpected argument "extra"
bolt --install $TMP --prefix o|2|--install $TMP: no bin/postgres
bolt --install $PG --prefix $PG|2|is --install itself: BOLT's output goes into a new prefix, never in place
optimize --train nosuch --workdir w|2|unknown workload "nosuch"
optimize --train selectonly --workdir w|2|did you mean "select-only"
optimize --train select-only -W tpcc-lite --workdir w|2|workload "tpcc-lite", which has no single-user script for the cycles metric \(select-only, tpcb, select1, mixed, agg-join, bulk-index, json-text, plpgsql, select-only-s10, tpcb-s10\)
optimize --train mixed -W mixed --baseline $TMP --workdir w|2|warning: every -W workload is one --train trains on or one this tool's defaults were chosen on: the stages are judged in-sample \(add one that is not, e.g. -W agg-join\)
optimize --train select-only,tpcb -W select-only --baseline $TMP --workdir w|2|warning: every -W workload is one --train trains on
optimize --train plpgsql -W plpgsql,select-only --baseline $TMP --workdir w|2|warning: every -W workload is one --train trains on or one this tool's defaults were chosen on
optimize --baseline $TMP --workdir w|2|^pgbuild: error: --baseline $TMP: no bin/postgres
optimize -W nosuch --workdir w|2|unknown workload "nosuch"
optimize -W selectonly --workdir w|2|did you mean "select-only"
optimize -W select-only --stages lto,blot --workdir w|2|invalid stage "blot" in --stages: expected stock, lto, pgo, tuned, clang, clang-pgo or bolt
optimize -W select-only --stages clang --clang gcc --workdir w|2|--clang gcc is no clang \(its --version does not say clang; the clang stages need one: apt-get install clang-15 lld-15 llvm-15\)
optimize -W select-only --clang clang-15 --stages lto --workdir w|2|--clang names the compiler of the clang stages: add --stages ...,clang,clang-pgo
optimize -W select-only --stages lto --bolt-flags -reorder-functions=none --workdir w|2|--bolt-flags are the bolt stage's: add --stages ...,bolt
optimize -W select-only --stages lto --bolt /usr/lib/llvm-19/bin --workdir w|2|--bolt is where the bolt stage's llvm-bolt is: add --stages ...,bolt
optimize -W select-only --stages lto,bolt --bolt $TMP --workdir w|2|pgbuild: error: BOLT is not installed: no llvm-bolt in $TMP \(--bolt\); install BOLT 15
optimize -W select-only --bolt-flags -data=x --workdir w|2|--bolt-flags: "-data=x" is not a layout flag: pgbuild gives the input, output, profile and instrumentation itself
optimize -W select-only --stages bolt --workdir w|2|--stages bolt needs a stage to stack on: BOLT rewrites a BOLT-ready build \(lto, pgo, tuned, clang or clang-pgo\), never stock
optimize -W select-only --stages , --workdir w|2|invalid value "," for --stages: expected a comma-separated list
optimize -W select-only --pairs 3 --workdir w|2|--pairs 3: 2 tests \(the thresholds x the workloads they apply to\) need at least 7 pairs
optimize -W select-only --budget 10m --workdir w|2|--budget needs --pairs auto
optimize -W select-only --pairs auto --budget 0.5s --workdir w|2|invalid value "0.5s" for --budget: at least 1 second, e.g. 90s, 10m or 1h
optimize -W select-only -T 0 --workdir w|2|invalid value "0" for --duration
optimize -W select-only -c 0 --workdir w|2|invalid value "0" for --clients
optimize -W select-only -j 0 --workdir w|2|invalid value "0" for --jobs
optimize -W select-only --cpus x --workdir w|2|invalid value "x" for --cpus
optimize -W select-only --policy nosuch.policy --workdir w|2|--policy "nosuch.policy": No such file
optimize -W select-only --policy none --src $TMP/nosrc --workdir w|2|^pgbuild: error: --src "$TMP/nosrc": No such file or directory$
optimize -W select-only --policy bolt-off.policy --workdir w|2|--policy "bolt-off.policy": its \[global\] says "bolt = off": every stage BOLT may stack on is built with "bolt = ready"
optimize -W select-only,mixed --noise other-floor.json --workdir w|2|^pgbuild: error: --noise other-floor.json needs --baseline: a floor is of one postgres, and stock is built by this run \(leave --noise out: optimize measures stock's floor\)
optimize -W select-only,mixed --noise-variants 4 --workdir w|2|invalid value "4" for --noise-variants: expected an integer from 5 to 99
optimize -W select-only,mixed --baseline $PG --noise other-floor.json --workdir w|2|^pgbuild: error: --noise other-floor.json: other-floor.json was measured on another postgres \(sha256 000000000000\.\.\.\), not $PG/bin/postgres
optimize -W select-only --baseline $TMP --workdir w|2|--baseline $TMP: no bin/postgres
optimize -W select-only --tune-state nosuchdir --workdir w|2|--tune-state "nosuchdir/best.policy": No such file
optimize -W select-only --src $TMP/nosrc --workdir w|2|--src "$TMP/nosrc": No such file
optimize -W select-only --src $TMP/src --prefix notours --workdir w|2|--prefix "notours": exists and is not an earlier pgbuild optimize output \(no pgopt-optimize.json\); remove it or add --force
optimize -W select-only extra|2|unexpected argument "extra"
report --optimize bolt-off.policy|2|--optimize "bolt-off.policy": line 1
report --optimize x --gate-result y|2|--optimize takes no other input and no --json
regress --builddir $TMP -j 0|2|invalid value "0" for --jobs
source -s x|2|^pgbuild: error: unknown option "-s" for pgbuild source$
source -j|2|^pgbuild: error: unknown option "-j" for pgbuild source$
verify --install $TMP --top -1|2|invalid value "-1" for --top
inspect|2|no FILE given
report|2|nothing to report: give --gate-result
bench --install $PG -T 0x10|2|invalid value "0x10" for --duration: expected a decimal number of seconds > 0
bench --install $PG -T inf|2|invalid value "inf" for --duration: expected a decimal number of seconds > 0
bench --install $PG --time 0x10|2|invalid value "0x10" for --duration: expected a decimal number of seconds > 0
bench --install $PG -c 0x10|2|invalid value "0x10" for --clients: expected a decimal integer from 1 to 10000
bench --install $PG -c ' 2'|2|invalid value " 2" for --clients: expected a decimal integer
bench --install $PG -t 1e3|2|invalid value "1e3" for --transactions: expected an integer from 1 to
bench --install $PG --seed 0x10|2|invalid value "0x10" for --seed: expected a decimal integer
bench --install $PG --warmup nan|2|invalid value "nan" for --warmup: expected a decimal number of seconds >= 0
bench --install $PG --statement-timeout 0x1p3|2|invalid value "0x1p3" for --statement-timeout: expected a decimal number
$GATE --pairs 0x10|2|invalid value "0x10" for --pairs: expected a decimal integer from 6 to 1000, or auto$
$GATE --pairs 1e1|2|invalid value "1e1" for --pairs: expected an integer from 6 to 1000, or auto$
$GATE --pairs 0|2|^pgbuild: error: invalid value "0" for --pairs: expected an integer from 6 to 1000, or auto$
$GATE --pairs=six|2|^pgbuild: error: invalid value "six" for --pairs: expected an integer from 6 to 1000, or auto$
run --policy empty.policy --workdir w --pairs 0|2|^pgbuild: error: invalid value "0" for --pairs: expected an integer from 6 to 1000, or auto$
optimize -W select-only --pairs six --workdir w|2|^pgbuild: error: invalid value "six" for --pairs: expected an integer from 6 to 1000, or auto$
tune --candidates cands --workdir w --pairs 0|2|^pgbuild: error: invalid value "0" for --pairs: expected an integer from 6 to 1000, or auto$
deb --workdir w --policy empty.policy --pairs 0|2|^pgbuild: error: invalid value "0" for --pairs: expected an integer from 6 to 1000, or auto$
deb --pairs auto|2|^pgbuild: error: --workdir DIR is required$
sensitivity --pairs 0|2|^pgbuild: error: invalid value "0" for --pairs: expected an integer from 6 to 1000$
sensitivity --pairs auto|2|^pgbuild: error: invalid value "auto" for --pairs: expected an integer from 6 to 1000$
$GATE --min-speedup 0x1.1|2|invalid value "0x1.1" for --min-speedup: expected a decimal number >= 0.01
$GATE --max-p99-regression inf%|2|invalid value "inf" for --max-p99-regression: expected a decimal number >= 0
$GATE --confidence nan|2|invalid value "nan" for --confidence: expected a decimal number >= 0.5
$GATE --gate 'tps>=0x1.1'|2|invalid value "tps>=0x1.1" for --gate: item 1 "tps>=0x1.1": value "0x1.1": expected a decimal number \(no hex, inf or nan\)
$GATE --gate 'select-only>=inf'|2|value "inf": expected a ratio like 1.05
$GATE --instr-statements 1e3|2|invalid value "1e3" for --instr-statements: expected an integer
$GATE --cpus ' 1'|2|invalid value " 1" for --cpus: expected a list like 0-1,3
$GATE --cpus 0-1,|2|invalid value "0-1," for --cpus
run --policy empty.policy --workdir w --pairs 0x10|2|invalid value "0x10" for --pairs: expected a decimal integer
run --policy empty.policy --workdir w --gate 'tps>=0x1'|2|expected a decimal number
tune --candidates cands --workdir w --tolerance 0x1|2|invalid value "0x1" for --tolerance: expected a decimal number from 0 to 50
tune --candidates cands --workdir w --max-builds 1e2|2|invalid value "1e2" for --max-builds: expected an integer
profile --install $PG --coverage 0x10|2|--coverage: expected a percentage in \(0, 100\], got "0x10"
profile --install $PG --top 0x10|2|invalid value "0x10" for --top: expected a decimal integer
optimize -W select-only --workdir w -T 1e999|2|invalid value "1e999" for --duration
verify --install $TMP --top 0x10|2|invalid value "0x10" for --top: expected a decimal integer
bench --install $PG --set listen_addresses=127.0.0.1|2|^pgbuild: error: invalid value "listen_addresses=127.0.0.1" for --set: listen_addresses opens the cluster to other users \(a private cluster takes connections only on its own socket, in a 0700 directory\)$
bench --install $PG --set port=5999|2|invalid value "port=5999" for --set: port opens the cluster to other users
bench --install $PG --set 'Listen-Addresses=*'|2|invalid value "Listen-Addresses=\*" for --set: listen_addresses opens the cluster
bench --install $PG --set 'bad name=1'|2|invalid value "bad name=1" for --set: expected NAME=VALUE, NAME made of letters
$GATE --set unix_socket_directories=/tmp|2|unix_socket_directories opens the cluster to other users
$GATE --set shared_preload_libraries=pg_stat_statements|2|^pgbuild: error: invalid value "shared_preload_libraries=pg_stat_statements" for --set: shared_preload_libraries loads code into the server$
profile --install $PG --set ssl=on|2|invalid value "ssl=on" for --set: ssl opens the cluster to other users
bolt --install $PG --prefix o --set data_directory=/tmp|2|^pgbuild: error: invalid value "data_directory=/tmp" for --set: data_directory moves the server's files out of its private directory$
bolt --install $PG --prefix o --set archive_command=/bin/true|2|archive_command runs commands as the server user
build --policy none --prefix $TMP/x --baseline $PG --gate 'tps>=1' --gate-args '--pairs 6 --set listen_addresses=*'|2|invalid value "listen_addresses=\*" for --set: listen_addresses opens the cluster
build --policy none --prefix $TMP/x --src $TMP/nosrc --baseline $PG --gate 'tps>=1' --gate-args '--pairs 3'|2|^pgbuild: error: --pairs 3: a 95% interval needs at least 6 pairs$
build --policy none --prefix $TMP/x --src $TMP/nosrc --baseline $PG --gate 'tps>=1' --gate-args '--pairs 3'|2|^Try "pgbuild gate --help" for more information\.$
build --policy none --prefix $TMP/x --src $TMP/nosrc --baseline $PG --gate 'tps>=1' --gate-args '--pairs 6 -W select-only,tpcb'|2|^pgbuild: error: --pairs 6: 2 tests \(the thresholds x the workloads they apply to\) need at least 7 pairs
build --policy none --prefix $TMP/x --src $TMP/nosrc --baseline $PG --gate 'tps>=1' --gate-args '--pairs 0'|2|^pgbuild: error: invalid value "0" for --pairs: expected an integer from 6 to 1000, or auto
build --policy none --prefix $TMP/x --src $TMP/nosrc --baseline $PG --gate 'tps>=1' --gate-args '--duratoin 5'|2|^pgbuild: error: unknown option "--duratoin" for pgbuild gate \(did you mean "--duration"\?\)
build --policy none --prefix $TMP/x --src $TMP/nosrc --baseline $PG --gate 'tps>=1' --gate-args '--budget 10m'|2|^pgbuild: error: --budget needs --pairs auto
build --policy none --prefix $TMP/x --src $TMP/nosrc --baseline $PG --gate 'tps>=1' --gate-args '--regress-result passed'|2|^pgbuild: error: --require-regress and --regress-result exclude each other
regress --builddir $TMP --temp-config listen.conf|2|^pgbuild: error: --temp-config "listen.conf", line 2: listen_addresses opens the cluster to other users
regress --builddir $TMP --temp-config nul.conf|2|^pgbuild: error: --temp-config "nul.conf", line 1: a NUL byte \(the server reads NAME = VALUE, one a line, and would not start\)$
regress --builddir $TMP --temp-config unreadable.conf|2|^pgbuild: error: --temp-config "unreadable.conf", line 2: work_mem: "8MB" after its value
regress --builddir $TMP --temp-config include.conf|2|^pgbuild: error: --temp-config "include.conf", line 2: include reads settings from another file$
regress --builddir $TMP --temp-config nosuch.conf|2|--temp-config: cannot read nosuch.conf: No such file or directory
bench --install $PG -t 1 --json $TMP/nodir/r.json|2|^pgbuild: error: --json "$TMP/nodir/r.json": directory $TMP/nodir does not exist$
bench --install $PG -t 1 --json $TMP|2|--json "$TMP": is a directory, expected a file name
bench --install $PG -t 1 --datadir-template $TMP/nodir.keep|2|--datadir-template "$TMP/nodir.keep": exists and is not a directory
noise|2|^pgbuild: error: --install is required \(the build's installed PostgreSQL\)$
noise --install $PG --variants 4|2|invalid value "4" for --variants: expected an integer from 5 to 99
noise --install $PG --seed -1|2|invalid value "-1" for --seed
noise --install $PG -W tpcc-lite|2|-W tpcc-lite: no single-user script \(expected select-only, tpcb, select1, mixed, agg-join, bulk-index, json-text, plpgsql, select-only-s10, tpcb-s10\)
noise --install $PG --metric tps|2|--metric tps: the noise floor is of the deterministic metrics \(expected instructions, cycles or instructions,cycles\)$
noise --install $PG --metric both|2|^pgbuild: error: invalid value "both" for --metric: "both" is spelled tps,instructions$
noise --install $PG --json $TMP/nodir/n.json|2|--json "$TMP/nodir/n.json": directory $TMP/nodir does not exist
noise --install $PG|2|records no builddir: give --builddir DIR
$GATE --json $TMP/nodir/g.json|2|^pgbuild: error: --json "$TMP/nodir/g.json": directory $TMP/nodir does not exist$
$GATE --junit $TMP/nodir/g.xml|2|--junit "$TMP/nodir/g.xml": directory $TMP/nodir does not exist
$GATE --json g.out --junit ./g.out|2|--junit "./g.out": the same file as --json "g.out"
$GATE --workdir $TMP/nodir.keep/w|2|--workdir "$TMP/nodir.keep/w": .*Not a directory
run --policy empty.policy --workdir w --html $TMP/nodir/r.html|2|--html "$TMP/nodir/r.html": directory $TMP/nodir does not exist
run --policy empty.policy --workdir $TMP/nodir.keep/w|2|--workdir "$TMP/nodir.keep/w": .*Not a directory
regress --builddir $TMP --json $TMP/nodir/r.json|2|--json "$TMP/nodir/r.json": directory $TMP/nodir does not exist
build --policy none --prefix $TMP/nodir.keep/p|2|--prefix "$TMP/nodir.keep/p": .*Not a directory
build --policy none --prefix $TMP/x --builddir $TMP/nodir.keep/b|2|--builddir "$TMP/nodir.keep/b": .*Not a directory
profile --install $PG --json $TMP/nodir/p.json|2|--json "$TMP/nodir/p.json": directory $TMP/nodir does not exist
profile --install $PG --emit-policy $TMP/nodir/p.policy|2|--emit-policy "$TMP/nodir/p.policy": directory $TMP/nodir does not exist
pgo --prefix $TMP/nodir.keep/p --train select-only|2|--prefix "$TMP/nodir.keep/p": .*Not a directory
tune --candidates cands --workdir w --json $TMP/nodir/t.json|2|--json "$TMP/nodir/t.json": directory $TMP/nodir does not exist
explain --baseline $TMP --candidate $TMP -W select-only --json $TMP/nodir/e.json|2|--json "$TMP/nodir/e.json": directory $TMP/nodir does not exist
explain --baseline $TMP --candidate $TMP -W select-only --html $TMP/nodir/e.html|2|--html "$TMP/nodir/e.html": directory $TMP/nodir does not exist
tune --candidates cands --workdir w --out $TMP/nodir/best.policy|2|--out "$TMP/nodir/best.policy": directory $TMP/nodir does not exist
sensitivity --workdir w --json $TMP/nodir/s.json|2|--json "$TMP/nodir/s.json": directory $TMP/nodir does not exist
bolt --install $PG --prefix o --json $TMP/nodir/b.json|2|--json "$TMP/nodir/b.json": directory $TMP/nodir does not exist
bolt --install $PG --prefix $TMP/nodir.keep/o|2|--prefix "$TMP/nodir.keep/o": .*Not a directory
optimize -W select-only --workdir w --html $TMP/nodir/o.html|2|--html "$TMP/nodir/o.html": directory $TMP/nodir does not exist
optimize -W select-only --workdir w --json $TMP/nodir/o.json|2|--json "$TMP/nodir/o.json": directory $TMP/nodir does not exist
report --gate-result x --html $TMP/nodir/r.html|2|--html "$TMP/nodir/r.html": directory $TMP/nodir does not exist
report --gate-result x --json $TMP|2|--json "$TMP": is a directory
ROWS
# sensitivity checks its options before it starts a gate (which refused
# --pairs 4 itself, its error printed twice, after the work directory)
"$P" sensitivity --workdir w --low-install "$PG" --high-install "$PG" --pairs 4 >out 2>err
is "sensitivity --pairs 4: refused at once, one error" "$?|$(cat err)" \
	"2|pgbuild: error: --pairs 4: a 95% interval needs at least 6 pairs
Try \"pgbuild sensitivity --help\" for more information."
ok "no work directory was made by any refused run, tune, optimize or sensitivity" test ! -e w
ok "no prefix was made by a refused pgo" test ! -e p
ok "no output or work directory was made by a refused bolt" test ! -e o -a ! -e o.bolt
is "no command got as far as a cluster or a server" "$(ls -A tmpdir)$(pgrep -f "postgres -D $TMP/" | wc -l)" 0
ok "a refused gate wrote no JSON" test ! -e g.out -a ! -e "$TMP/nodir"

# every setting pgbuild/README.md lists as refused is refused, with a
# reason, by every command that takes --set (and the table is not empty)
names=$(sed -n '/^| refused `--set` |/,/^$/p' "$TOP/pgbuild/README.md" | grep '^| `' | cut -d'|' -f2 |
	grep -o '`[a-z_*]*`' | tr -d '`' | sed 's/_\*$/_x/')
like "pgbuild/README.md lists the refused settings" "$(echo $names)" "listen_addresses .*port .*shared_preload_libraries .*data_directory"
for name in $names; do
	for c in "bench --install $PG" "$GATE" "profile --install $PG" "bolt --install $PG --prefix o"; do
		# shellcheck disable=SC2086
		"$P" $c --set "$name=x" >out 2>err
		rc=$?
		[ "$rc" = 2 ] && grep -Eq "for --set: $name (opens the cluster to other users|loads code into the server|runs commands as the server user|moves the server's files|reads settings from another file)" err ||
			{ is "--set $name=x refused by ${c%% *}" "$rc $(cat err)" "2 ..."; continue 2; }
	done
	tap_result 0 "--set $name=x is refused with its reason by bench, gate, profile and bolt"
done

# PGOPTIONS reaches every server pgbuild starts (libpq sends it): each
# command that starts one refuses a refused setting in it, before its work
# (each command line would fail at its next check if this one let it by)
for c in "bench --install $TMP" "gate --baseline $TMP --candidate $TMP" \
	"run --policy empty.policy --workdir w --src $TMP/nosrc" "regress --builddir $TMP/nosuch" \
	"build --policy none --prefix $TMP/x --src $TMP/nosrc" "profile --install $TMP" \
	"pgo --prefix $TMP/p --src $TMP/nosrc" "tune --candidates cands --workdir w --src $TMP/nosrc" \
	"sensitivity --workdir w --src $TMP/nosrc" "bolt --install $TMP --prefix o" \
	"optimize -W select-only --workdir w --src $TMP/nosrc"; do
	# shellcheck disable=SC2086
	PGOPTIONS="-c work_mem=4MB -c session_preload_libraries=x" "$P" $c >out 2>err
	is "PGOPTIONS session_preload_libraries: ${c%% *} exits 2" "$?" 2
	is "... ${c%% *} says why, in one line" "$(cat err)" \
		'pgbuild: error: PGOPTIONS="-c work_mem=4MB -c session_preload_libraries=x": session_preload_libraries loads code into the server (libpq sends PGOPTIONS with every connection to the servers pgbuild starts); unset it'
done
ok "... and nothing was made" test ! -e w -a ! -e p -a ! -e o -a ! -e x
# ... read as the backend reads it: grouped switches, --NAME=VALUE in
# either spelling, the switches that set a refused setting, and what the
# backend could not read (here -B takes "c" as its argument)
while IFS='|' read -r opts name; do
	PGOPTIONS=$opts "$P" bench --install "$TMP" >out 2>err
	rc=$?
	if [ -n "$name" ]; then
		is "PGOPTIONS=\"$opts\": refused (exit 2) as $name" "$rc $(cat err)" \
			"2 pgbuild: error: PGOPTIONS=\"$opts\": $name $(case $name in
				*preload_libraries) echo 'loads code into the server' ;;
				*) echo 'opens the cluster to other users (a private cluster takes connections only on its own socket, in a 0700 directory)' ;;
				esac) (libpq sends PGOPTIONS with every connection to the servers pgbuild starts); unset it"
	else
		like "PGOPTIONS=\"$opts\": refused (exit 2), the server could not read it" "$rc $(cat err)" \
			"^2 pgbuild: error: PGOPTIONS=\".*\": .*: the server would refuse every connection"
	fi
done <<'OPTS'
-Fc shared_preload_libraries=x|shared_preload_libraries
-Fcshared_preload_libraries=x|shared_preload_libraries
--shared_preload_libraries=x|shared_preload_libraries
--shared-preload-libraries=x|shared_preload_libraries
-F-session-preload-libraries=x|session_preload_libraries
-c work_mem=1MB -Fi|listen_addresses
-p 5999|port
-Bc shared_preload_libraries=x|
-c shared_preload_libraries|
OPTS
PGOPTIONS='-c work_mem=4MB -Fc application_name=a\ b' "$P" bench --install "$TMP" >out 2>err
like "PGOPTIONS with grouped switches and an escaped blank: accepted (the prefix fails next)" \
	"$(cat err)" 'no bin/postgres: not an installed PostgreSQL'
# deb starts the suite's server itself (a library call since 2026-12-07): checked before any build
PGOPTIONS="-c session_preload_libraries=x" "$P" deb --policy empty.policy --workdir debw --no-compare >out 2>err
is "deb: PGOPTIONS loading code refused before anything is made: exit 2" "$?/$(test -e debw && echo made)" "2/"
like "... naming the setting" "$(cat err)" 'PGOPTIONS=.*session_preload_libraries loads code into the server'
PGOPTIONS="-c session_preload_libraries=x" "$P" bench --connect "host=$TMP/nosock" -t 1 >out 2>err
like "--connect: the server and its PGOPTIONS are the user's" "$(cat err)" 'cannot connect to "host='

# a read-only file system: the probe file, not access(2), finds it
if [ "$(id -u)" = 0 ] && mkdir -p ro && mount -t tmpfs -o ro,size=64k tmpfs ro; then
	"$P" bench --install "$PG" -t 1 --json ro/r.json >out 2>err
	is "--json on a read-only file system: exit 2" "$?" 2
	is "... one line naming the option, the path and why" "$(cat err)" \
		'pgbuild: error: --json "ro/r.json": cannot create a file in ro: Read-only file system'
	"$P" build --policy none --prefix ro/p >out 2>err
	like "--prefix on a read-only file system: refused" "$?: $(cat err)" '^2: pgbuild: error: --prefix "ro/p": cannot create a file in ro: Read-only file system$'
	umount ro
	# root may write a 0555 directory (access(2) says so too): it passes
	mkdir -p r555 && chmod 555 r555
	"$P" bench --install "$PG" --connect x --json r555/r.json >out 2>err
	like "as root a 0555 directory takes the file: the check passes on to the next one" "$(cat err)" '--install and --connect cannot be used together'
	is "... and leaves no probe file" "$(ls -A r555)" ""
else
	skip "a read-only tmpfs needs root" 4
fi

# no usable clang: the default stages skip the clang ones, saying why at
# once (before any build); asked for with --stages, it is an error.  The
# clang-15 first on PATH here is a real compiler that is no clang (gcc).
mkdir -p noclang && ln -sf "$(command -v gcc)" noclang/clang-15
PATH=$TMP/noclang:$PATH "$P" optimize -W select-only --workdir w --baseline "$TMP" >out 2>err
is "no clang, default stages: exit 2 (from the --baseline check after it)" "$?" 2
like "... the clang stages will be skipped, said at once" "$(cat err)" "warning: the clang stages will be skipped: clang-15 is no clang \\(its --version does not say clang"
like "... before the later check fails" "$(cat err)" "error: --baseline $TMP: no bin/postgres"
PATH=$TMP/noclang:$PATH "$P" optimize -W select-only --stages lto,clang --workdir w --baseline "$TMP" >out 2>err
is "no clang, --stages clang: exit 2" "$?" 2
like "... an error, not a skip" "$(cat err)" "error: --clang clang-15 is no clang"
nok "... no skip warning" grep -q "will be skipped" err
"$P" optimize -W select-only --workdir w --baseline "$TMP" >out 2>err
if command -v clang-15 >/dev/null && command -v ld.lld-15 >/dev/null; then
	nok "clang-15 installed: nothing skipped" grep -q "will be skipped" err
else
	skip "clang-15 and lld-15 are not installed (make deps installs them)" 1
fi

# every usage error ends with the one hint, naming the command; an
# unknown option is one pgbuild: error naming the command (getopt prints
# nothing of its own)
for c in bench bolt build bundle deb explain gate inspect noise optimize pgo profile regress report run sensitivity source tune verify; do
	"$P" $c --no-such-option >out 2>err
	is "$c: unknown option exits 2" "$?" 2
	is "$c: unknown option: one error naming the command, then the hint" "$(cat err)" \
		"pgbuild: error: unknown option \"--no-such-option\" for pgbuild $c
Try \"pgbuild $c --help\" for more information."
	is "$c: the hint is the last line" "$(tail -n 1 err)" "Try \"pgbuild $c --help\" for more information."
	"$P" help $c >help.out 2>&1
	is "help $c: exit 0" "$?" 0
	"$P" $c --help >help2.out 2>&1
	ok "help $c is $c --help" cmp -s help.out help2.out
	like "help $c: its usage" "$(head -n 1 help.out)" "^usage: pgbuild $c"
done
for v in --version -V; do
	like "pgbuild $v" "$("$P" $v)" '^pgbuild \(pgoptcc\) [0-9]+\.[0-9]+\.[0-9]+$'
done
like "pgbuild help lists the commands" "$("$P" help)" "  tune +search compiler flags"
# grouped by task, as git help groups its commands: the workflows first
. "$TOP/tests/lib/help.sh"
"$P" --help >groups.out
is "pgbuild --help: the workflows, then measure and inspect, then plumbing" \
	"$(sed -n 's/^\([a-z][^:]*\):$/\1/p' groups.out | grep -v '^usage' | sed 's/ .*//' | tr '\n' ' ')" \
	"build, measure plumbing "
is "... the workflows' commands first, in their order" "$(help_commands <groups.out | head -n 8 | tr '\n' ' ')" \
	"build run gate optimize deb pgo bolt bundle "
is "... then what measures and inspects" "$(help_commands <groups.out | sed -n 9,15p | tr '\n' ' ')" \
	"bench noise explain report inspect verify regress "
is "... every command once (those of no group with the plumbing)" \
	"$(help_commands <groups.out | sort | uniq -d)$(help_commands <groups.out | wc -l)" \
	"$(grep -h '^PGBUILD_COMMAND(' "$TOP"/pgbuild/cmd/*.c | wc -l)"
is "pgbuild --help and help agree" "$("$P" --help)" "$("$P" help)"

# the shared options mean the same in every command that has them
for c in gate optimize profile run sensitivity; do
	like "$c --help: -W is a list" "$("$P" $c --help)" "-W, --workload LIST .*comma-separated and repeatable"
done
# ... and what is measured: the commands that measure nothing with it
# (their workloads are training ones, --train) have no -W in their help
for c in bolt pgo tune; do
	is "$c --help: no -W, --train is its training set" \
		"$("$P" $c --help | grep -E -- '-W[ ,]|--workload')" ""
done
for c in bolt build optimize pgo regress run sensitivity tune; do
	like "$c --help: -j is make's jobs" "$("$P" $c --help)" "-j, --jobs N"
done
like "bench --help: --threads, not -j" "$("$P" bench --help)" "      --threads N  "
# an installed PostgreSQL a command reads is --install in every command
# that reads one, --prefix only ever where a command installs; refused
# above in its old input role, with the one to write
for c in bench verify noise profile regress bolt; do
	like "$c --help: --install, an installed PostgreSQL" "$("$P" $c --help)" \
		$'\n  --install (DIR|IN) +an installed PostgreSQL'
	"$P" $c --install "$TMP" --no-such-option >out 2>err
	is "... $c --install DIR: accepted (the next option is the error)" "$?/$(head -n 1 err)" \
		"2/pgbuild: error: unknown option \"--no-such-option\" for pgbuild $c"
done
for c in bench verify noise profile regress sensitivity; do
	nok "$c --help: no --prefix (it installs nothing)" sh -c "'$P' $c --help | grep -q -- '--prefix\\|--out '"
done
for c in build pgo optimize bolt; do
	like "$c --help: --prefix is where it installs" "$("$P" $c --help)" $'\n  --prefix OUT +(install|where)'
done
like "sensitivity --help: --low-install and --high-install" "$("$P" sensitivity --help)" \
	'--low-install DIR --high-install DIR'

# report with nothing to show: exit 2 and a sentence, never "A 0"
mkdir -p emptylog && touch emptylog/compile.jsonl
"$P" report --log emptylog >out 2>err
is "report on an empty compile log: exit 2" "$?" 2
like "... says there is nothing" "$(cat err)" 'nothing to report: the compile log records no compile'
echo '{"units":[],"files":[]}' > none.json
"$P" report --inspect-baseline none.json --inspect-candidate none.json >out 2>err
is "report of two builds without functions: exit 2" "$?" 2
like "... says so" "$(cat err)" 'nothing to report: no function symbols'
printf 'int one(int x) { return x + 1; }\n' > one.c
gcc -O2 -c one.c
"$P" report --inspect-baseline one.o >out 2>err
is "report of one build only: exit 0" "$?" 0
like "... nothing to compare, said in words" "$(cat out)" 'functions: A 1; B has none .*nothing to compare'
nok "... and no \"A 0\" or \"B 0\"" grep -Eq '(A|B) 0[,;]' out

# --json FILE writes FILE in every command, inspect and source too (they
# print their text without it); "-" is the standard output.  A FILE that
# looks like an option (an older `inspect --json --units ...`) or is an
# object (an older `inspect --json a.o b.o`) is refused, nothing written.
. "$TOP/tests/lib/plugin.sh"
printf 'static int sq(int x) { return x * x; }\nint jone(int x) { return sq(x) + 1; }\n' > jone.c
if gcc -O2 -c jone.c $(plugin_flags src/jone.c) 2>err; then
	"$P" inspect --json - jone.o >out 2>err
	is "inspect --json -: exit 0, nothing on stderr" "$?/$(cat err)" "0/"
	like "... the document on stdout" "$(cat out)" '^\{"units":\[\{"file":"jone.o","tu":"src/jone.c",.*"functions":\[.*"name":"jone"'
	"$P" inspect --json ij.json jone.o >out 2>err
	is "inspect --json FILE: exit 0, prints nothing" "$?/$(cat out)$(cat err)" "0/"
	is "... FILE holds the same document" "$(cat ij.json)" "$("$P" inspect --json - jone.o)"
	cp jone.o jtwo.o
	"$P" inspect --json jone.o jtwo.o >out 2>err
	like "inspect --json OBJECT OBJECT (the old spelling): refused, exit 2" "$?/$(head -n 1 err)" \
		'^2/pgbuild: error: --json "jone.o": an object or archive, not the file the document replaces \(--json - prints it\)$'
	ok "... the object left as it was" cmp -s jone.o jtwo.o
	"$P" inspect --json --units jone.o >out 2>err
	is "inspect --json --units: refused, exit 2, no file made" "$?/$(cat err)/$(ls -- --units 2>/dev/null)" \
		'2/pgbuild: error: --json "--units": an option where a file name was expected (./--units for one of that name)/'
else
	skip "the plugin does not load: $(head -n 1 err)" 8
fi
mkdir -p srcv && printf "#!/bin/sh\nPACKAGE_VERSION='15.9'\n" > srcv/configure
"$P" source --src srcv --json sj.json >out 2>err
is "source --json FILE: exit 0, prints nothing" "$?/$(cat out)$(cat err)" "0/"
is "... FILE holds the tree and its version" "$(cat sj.json)" \
	"{\"spec\":\"srcv\",\"dir\":\"$TMP/srcv\",\"version\":\"15.9\",\"pkg_version\":null}"
is "source --json -: the same on stdout" "$("$P" source --src srcv --json -)" "$(cat sj.json)"
is "source without --json: the directory" "$("$P" source --src srcv)" "$TMP/srcv"
"$P" report --inspect-baseline jone.o --json - >out 2>err
is "report --json -: exit 0" "$?" 0
ok "... stdout is one JSON document" perl -MJSON::PP -e 'local $/; decode_json(<STDIN>); 1' <out
like "... the terminal summary went to stderr" "$(cat err)" 'functions: A '
"$P" report --inspect-baseline jone.o --html - >out 2>err
is "report --html -: refused (- is --json's), exit 2" "$?/$(cat err)" \
	'2/pgbuild: error: --html "-": the standard output is an output of --json only: expected a file name (./- for one named -)'
ok "... no file named -" test ! -e ./-

# as root: a 0700 directory (what mktemp -d makes) is refused before any build
if [ "$(id -u)" != 0 ] || ! id postgres >/dev/null 2>&1; then
	skip "needs root and the postgres user (the server user)" 9
else
	priv=$(mktemp -d)      # 0700, root's
	"$P" run --policy empty.policy --src "$TMP/src" --workdir "$priv/run" >out 2>err
	is "run in a 0700 directory: exit 2" "$?" 2
	like "... naming the directory and the fix" "$(cat err)" "directory $priv/run is out of the server user's reach: the server user postgres \(pgbuild runs as root\) cannot enter $priv \(mode 0700, owner root\): make it searchable by postgres \(chmod o\+x $priv\)"
	ok "... before anything was made" test ! -e "$priv/run"
	(cd "$priv" && "$P" tune --candidates "$TMP/cands" --src "$TMP/src") >out 2>err
	is "tune in a 0700 directory: exit 2" "$?" 2
	like "... naming it" "$(cat err)" "directory $priv/pgbuild-tune is out of the server user's reach"
	ok "... before anything was made" test ! -e "$priv/pgbuild-tune"
	"$P" pgo --prefix "$priv/pgo" --src "$TMP/src" >out 2>err
	is "pgo in a 0700 directory: exit 2" "$?" 2
	like "... naming it" "$(cat err)" "directory $priv/pgo is out of the server user's reach"
	TMPDIR=$priv "$P" run --policy empty.policy --src "$TMP/src" --workdir "$TMP/w2" >out 2>err
	like "a TMPDIR the server user cannot enter is named too" "$(cat err)" "TMPDIR $priv is out of the server user's reach"
	rm -rf "$priv"
fi
# optimize's BOLT is there before the first build, wherever it comes from
# ($PGBUILD_BOLT here): asked for, a missing one is an error; only in the
# default stages, bolt is skipped, said (the review: it failed hours later)
PGBUILD_BOLT=$TMP/nobolt "$P" optimize -W select-only --stages lto,bolt --workdir "$TMP/wb" >out 2>err
is "optimize --stages lto,bolt, \$PGBUILD_BOLT without llvm-bolt: exit 2, nothing made" \
	"$?|$(ls "$TMP/wb" 2>/dev/null | wc -l)" "2|0"
like "... naming the directory and where it came from" "$(cat err)" \
	"pgbuild: error: BOLT is not installed: no llvm-bolt in $TMP/nobolt \(\\\$PGBUILD_BOLT\)"
PGBUILD_BOLT=$TMP/nobolt "$P" optimize -W select-only --src "$TMP/nosrc" --workdir "$TMP/wb" >out 2>err
like "the default stages: bolt skipped at once, said" "$(cat err)" \
	"pgbuild: warning: the bolt stage will be skipped: no llvm-bolt in $TMP/nobolt \(\\\$PGBUILD_BOLT"
done_testing
