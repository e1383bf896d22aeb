#!/bin/bash
# topology.sh BUILD: the topology model without a network.
#  1. mpirun --grid examples/grid-4x2.toml --show-topology prints the
#     placement and the colors every rank will see, and runs nothing.
#  2. On one host, a topology given by hand (-env GMPI_SITE/GMPI_MACHINE/
#     GMPI_VMPI per program of an MPMD launch) reaches the MPICHX
#     attributes: tests/c/topoattr prints each rank's depth and colors,
#     which must be the expected ones, and the MPICH-G2 example
#     (tests/c/g2topo) must produce the expected communicators.
set -u
BUILD=$(cd "${1:?usage: $0 BUILD}" && pwd)
. "$(dirname "$0")/lib.sh"
need_build
SRC=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp "${TMPDIR:-/tmp}/gmpi-topology.XXXXXX")
trap 'rm -f "$out"' EXIT

# 1. --show-topology
"$BUILD/bin/mpirun" --grid "$SRC/examples/grid-4x2.toml" --show-topology /nonexistent/never-run >"$out" 2>&1
rc=$?
cat "$out"
[ $rc -eq 0 ] || fail "--show-topology exited $rc"
grep -q '^grid .*grid-4x2.toml: 4 site(s), 4 machine(s), 8 host(s), 8 rank(s)$' "$out" || fail "no summary line"
for s in 0 1 2 3; do
    grep -q "^site site$s (color $s at level 1)\$" "$out" || fail "site$s missing"
    for h in 0 1; do
        r=$((2 * s + h))
        grep -q "^    host s${s}h$h: rank(s) $r\$" "$out" || fail "host s${s}h$h is not rank $r"
        grep -Eq "^$r +s${s}h$h +site$s +site$s-cluster +3 +0 $s $s\$" "$out" || fail "rank $r: wrong colors"
    done
done
[ "$(grep -c 'latency 10ms, bandwidth 1MB/s$' "$out")" -eq 6 ] || fail "expected 6 site pairs at 10ms, 1MB/s"

# 2. A topology by hand on one host.
mpmd() { # PROGRAM: 6 ranks in 2 sites, 3 machines, 2 vendor MPI jobs
    local p=$1
    "$BUILD/bin/mpirun" --timeout 100 -x TOPOATTR_PRINT \
        -n 2 -env GMPI_SITE s0 -env GMPI_MACHINE m0 "$p" : \
        -n 1 -env GMPI_SITE s1 -env GMPI_MACHINE m1 -env GMPI_VMPI m1 "$p" : \
        -n 2 -env GMPI_SITE s0 -env GMPI_MACHINE m2 -env GMPI_VMPI m2 "$p" : \
        -n 1 -env GMPI_SITE s1 -env GMPI_MACHINE m1 -env GMPI_VMPI m1 "$p"
}
TOPOATTR_PRINT=1 mpmd "$BUILD/tests/c/topoattr" >"$out" 2>&1 </dev/null
rc=$?
cat "$out"
[ $rc -eq 0 ] && grep -q ' No Errors' "$out" || fail "topoattr with a topology by hand failed ($rc)"
want='topo 0 3 0 0 0
topo 1 3 0 0 0
topo 2 4 0 1 1 0
topo 3 4 0 0 2 1
topo 4 4 0 0 2 1
topo 5 4 0 1 1 0'
got=$(grep '^topo ' "$out" | sort)
[ "$got" = "$want" ] || fail "topoattr printed
$got
want
$want"
mpmd "$BUILD/tests/c/g2topo" >"$out" 2>&1 </dev/null
rc=$?
cat "$out"
[ $rc -eq 0 ] && grep -q ' No Errors' "$out" || fail "g2topo with a topology by hand failed ($rc)"
echo "PASS: topology"
