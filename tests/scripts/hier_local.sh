#!/bin/bash
# hier_local.sh BUILD: coll/hier on uneven grids whose hosts are all this
# computer (launcher local: the ranks talk over loopback TCP, the two
# ranks of one host through shared memory), so the topology levels are
# the emulated grid's without the emulator's cost. tests/c/hiercoll runs
# every collective in every form on reordered communicators:
#   3 sites (3+2+1 ranks): each level's component forced in turn (shm with
#   every operation inside the host of two ranks; no shm: tuned with
#   other algorithms inside the sites; only hier and basic); with the
#   associativity assertion (GMPI_ASSOCIATIVE=1); and the flat components
#   alone (GMPI_COLL=^hier), which must not give the canonical fold of a
#   non-commutative operator: the check that the test sees hier at work;
#   2 sites (3+2 ranks): asserted, every vector split; 3 sites again with
#   odd segments, a direct part and without the small operations' fan-out.
set -u
BUILD=$(cd "${1:?usage: $0 BUILD}" && pwd)
. "$(dirname "$0")/lib.sh"
need_build
SRC=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-hier.XXXXXX")
trap 'rm -rf "$dir"' EXIT

run() { # NAME GRID [VAR=VAL...]: hiercoll under GRID with the variables
    local name=$1 grid=$SRC/tests/grids/$2
    shift 2
    local xs=()
    for v in "$@"; do xs+=(-x "${v%%=*}"); done
    env "$@" "$BUILD/bin/mpirun" --timeout 200 "${xs[@]}" --grid "$grid" "$BUILD/tests/c/hiercoll" \
        >"$dir/$name.out" 2>&1 </dev/null
    local rc=$?
    echo "== $name: exit $rc"
    cat "$dir/$name.out"
    [ $rc -eq 0 ] && grep -q ' No Errors' "$dir/$name.out" || fail "$name: hiercoll failed"
}

G3=hier-3site-local.toml G2=hier-2site-local.toml
run default3 $G3 GMPI_COLL_SHM_OPS=all
run tuned3 $G3 GMPI_COLL=^shm GMPI_COLL_TUNED_BCAST_ALGORITHM=scatter_allgather \
    GMPI_COLL_TUNED_ALLREDUCE_ALGORITHM=recursive_doubling GMPI_COLL_TUNED_REDUCE_ALGORITHM=rabenseifner
run basic3 $G3 GMPI_COLL=hier,basic
run assoc3 $G3 GMPI_ASSOCIATIVE=1
run assoc2 $G2 GMPI_ASSOCIATIVE=1 GMPI_HIER_SPLIT_MIN=64
# Many odd segments (pipelined relay and reduce-scatter, element
# boundaries), a direct part, no fan-out (coordinators' all-pairs paths).
run seg3 $G3 GMPI_HIER_SEGMENT=301 GMPI_HIER_DIRECT=5000 GMPI_HIER_FANOUT=0

# hier must be in force: the flat components do not fold op3 canonically.
env GMPI_COLL=^hier "$BUILD/bin/mpirun" --timeout 200 -x GMPI_COLL --grid "$SRC/tests/grids/$G3" \
    "$BUILD/tests/c/hiercoll" >"$dir/flatcheck.out" 2>&1 </dev/null
grep -q 'op3' "$dir/flatcheck.out" || fail "the flat components gave the canonical fold too: the test cannot tell hier is in force"
echo "PASS: hier_local"
