#!/bin/bash
# 94-layers.t - the includes follow the layer order pgbuild/README.md
# draws ("**Layers.**"): tests/lib/layers.pl computes the include graph
# between the directories of wrapper/ and pgbuild/ from the sources and
# names every include (file:line) that goes up, sideways between peers, or
# from pgbuild into pgoptcc's own modules; every directory with sources
# must be in the diagram, and pgbuild.mk's layout comment names each
# directory of pgbuild/.  There is no exception list.  The checker is
# shown to fail on a copy of the tree with one planted include of each
# kind.
. "$(dirname "$0")/../lib/tap.sh"
cd "$TMP" || exit 1
L=$TOP/tests/lib/layers.pl

perl "$L" "$TOP" >out 2>&1; s=$?
is "the tree follows the layer order (exit $s)" "$s" 0
[ -s out ] && diag "$(cat out)"
is "nothing is named" "$(cat out)" ""

# pgbuild.mk's layout comment names every directory of pgbuild/
missing=
for d in "$TOP"/pgbuild/*/; do
	d=${d%/}; d=${d##*/}
	sed -n '/^# Layout:/,/^#$/p' "$TOP/pgbuild/pgbuild.mk" | grep -q "[ (]$d/" || missing="$missing $d/"
done
is "pgbuild.mk's layout comment names every directory" "${missing# }" ""

# a copy with one include of each kind that breaks the order
mkdir tree
(cd "$TOP" && tar -cf - Makefile wrapper pgbuild tests/tests.mk tests/fuzz/fuzz.mk plugin/plugin.mk) | tar -xf - -C tree
plant() { printf '#include "%s"\n' "$2" >>"tree/$1"; echo "$1:$(wc -l <"tree/$1")"; }
up=$(plant pgbuild/metric/single.c pgbuild/gate/gate.h)
peer=$(plant pgbuild/elf/elfrec.c pgbuild/cluster/cluster.h)
into=$(plant pgbuild/build/build.c wrapper/compiler.h)
back=$(plant wrapper/tu.c pgbuild/pgbuild.h)
flat=$(plant wrapper/common/json.c strbuf.h)
none=$(plant pgbuild/gate/expr.c pgbuild/gate/no-such.h)
mkdir tree/pgbuild/newdir && echo 'int x;' >tree/pgbuild/newdir/x.c
perl "$L" tree >out 2>&1; s=$?
is "a planted include fails the check (exit $s)" "$s" 1
like "an upward include is named" "$(cat out)" \
	"^$up: pgbuild/metric includes pgbuild/gate \(pgbuild/gate/gate.h\): goes up$"
like "an include between peers is named" "$(cat out)" \
	"^$peer: pgbuild/elf includes pgbuild/cluster \(pgbuild/cluster/cluster.h\): goes sideways \(peers\)$"
like "pgbuild reaching into pgoptcc's modules is named" "$(cat out)" \
	"^$into: pgbuild/build includes wrapper \(wrapper/compiler.h\): reaches into wrapper/ above pgbuild's base$"
like "pgoptcc including pgbuild's base is named" "$(cat out)" \
	"^$back: wrapper includes pgbuild \(pgbuild/pgbuild.h\): goes sideways \(peers\)$"
like "an include without its directory is named" "$(cat out)" \
	"^$flat: \"strbuf.h\" must name its directory from the top of the tree$"
like "an include of no file is named" "$(cat out)" \
	"^$none: \"pgbuild/gate/no-such.h\" names no file of the tree$"
like "a directory missing from the diagram is named" "$(cat out)" \
	"^pgbuild/newdir/x.c: directory pgbuild/newdir is not in pgbuild/README.md's layer diagram$"
is "nothing else is named" "$(wc -l <out)" 7

# an engine README.md calls a library, spawned as a program: named
rm -rf tree && mkdir tree
(cd "$TOP" && tar -cf - Makefile wrapper pgbuild tests/tests.mk tests/fuzz/fuzz.mk plugin/plugin.mk) | tar -xf - -C tree
printf 'static void f(struct strvec *a)\n{\n\tstrvec_pushl(a, pgbuild_self(),\n\t\t     "regress", NULL);\n}\n' >>tree/pgbuild/profile/pgo.c
n=$(($(wc -l <tree/pgbuild/profile/pgo.c) - 1))
printf 'static void g(struct strvec *a)\n{\n\tstrvec_pushl(a, pgbuild_self(), "regress", NULL);\n}\n' >>tree/pgbuild/cmd/regress.c
perl "$L" tree >out 2>&1; s=$?
is "a spawned pgbuild regress fails the check (exit $s)" "$s" 1
is "... named with its line, the one in cmd/ not" "$(cat out)" \
	"pgbuild/profile/pgo.c:$n: spawns \`pgbuild regress\`, which is called as a library (regress_run_child, stage_run_fn)"
perl -0pi -e 's{Called as a library, never spawned:}{Called as a library:}' tree/pgbuild/README.md
perl "$L" tree >out 2>&1; s=$?
like "no such list in README.md: named (exit $s)" "$s|$(cat out)" '^1\|pgbuild/README.md: no "Called as a library, never spawned:" list$'

# the order is the README's: with report drawn below gate, report's
# includes of gate go up
rm -rf tree && mkdir tree
(cd "$TOP" && tar -cf - Makefile wrapper pgbuild tests/tests.mk tests/fuzz/fuzz.mk plugin/plugin.mk) | tar -xf - -C tree
perl -0pi -e 's{^(pgbuild/gate\s[^\n]*\n)(pgbuild/report\s[^\n]*\n)}{$2$1}m' tree/pgbuild/README.md
perl "$L" tree >out 2>&1; s=$?
is "report below gate in the diagram fails the check (exit $s)" "$s" 1
like "report's include of gate is named" "$(cat out)" \
	'^pgbuild/report/report.h:[0-9]+: pgbuild/report includes pgbuild/gate \(pgbuild/gate/gate.h\): goes up$'
rm -f tree/pgbuild/README.md
perl "$L" tree >out 2>&1; s=$?
is "no diagram: exit 2" "$s" 2
done_testing
