#!/bin/bash
# grid_emulate.sh BUILD: MPI programs on the emulated 2-site x 2-host grid
# of examples/grid-2x2.toml (mpirun --emulate: network namespaces, 10 ms
# and 1 MB/s between the sites). The topology attributes must match the
# grid file, the MPICH-G2 example must give the expected communicators,
# and point-to-point and collective tests must pass over TCP. Needs root;
# skipped while the library cannot talk between hosts (no tcp device).
set -u
BUILD=$(cd "${1:?usage: $0 BUILD}" && pwd)
. "$(dirname "$0")/lib.sh"
need_build
[ "$(id -u)" -eq 0 ] || skip "--emulate needs root"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
GRID=$SRC/examples/grid-2x2.toml
dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-emu.XXXXXX")
trap 'rm -rf "$dir"' EXIT

run() { # NAME PROGRAM...
    local name=$1
    shift
    TOPOATTR_PRINT=1 "$BUILD/bin/mpirun" --timeout 250 -x TOPOATTR_PRINT --grid "$GRID" --emulate "$@" \
        >"$dir/$name.out" 2>&1 </dev/null
    local rc=$?
    cat "$dir/$name.out"
    if grep -q 'needs the tcp device' "$dir/$name.out"; then
        skip "ranks on different hosts cannot talk yet (no tcp device)"
    fi
    [ $rc -eq 0 ] && grep -q ' No Errors' "$dir/$name.out" || fail "$name on the emulated grid: exit $rc"
}

run topoattr "$BUILD/tests/c/topoattr"
got=$(grep '^topo ' "$dir/topoattr.out" | sort)
want='topo 0 3 0 0 0
topo 1 3 0 0 0
topo 2 3 0 1 1
topo 3 3 0 1 1'
[ "$got" = "$want" ] || fail "topology attributes
$got
want
$want"
run g2topo "$BUILD/tests/c/g2topo"
run ring "$BUILD/tests/c/ring"
run collectives "$BUILD/tests/c/collectives"

# A site's router stops mid-job: site1 is cut off 6 s after the grid
# starts while the ranks loop over barriers and ring exchanges. The job
# must end on its own within a bounded time (tcp timeout 5 s), saying which
# host was lost, and leave nothing running in the emulated hosts.
before=$(ns_entries)
start=$(date +%s)
GMPI_EMU_SITE_DOWN=site1@6s GMPI_TCP_TIMEOUT=5 "$BUILD/bin/mpirun" --timeout 120 -x GMPI_TCP_TIMEOUT \
    --grid "$GRID" --emulate "$BUILD/tests/c/barrierloop" 60 >"$dir/sitedown.out" 2>&1 </dev/null
rc=$?
took=$(( $(date +%s) - start ))
cat "$dir/sitedown.out"
[ $rc -ne 0 ] || fail "site cut off: the job exited 0"
[ $rc -ne 124 ] || fail "site cut off: the job hung until mpirun's timeout"
grep -q 'lost host "s' "$dir/sitedown.out" || fail "site cut off: no message naming the lost host"
echo "site cut off: job ended after ${took}s with exit $rc"
# Ours only (other jobs may emulate grids meanwhile): namespaces that
# appeared during the run and whose emulator (gmpi-PID-...) has ended.
left=$(ns_leaked "$before")
[ -z "$left" ] || fail "site cut off: emulated hosts left behind: $left"
pgrep -f "$BUILD/tests/c/barrierloop" >/dev/null && fail "site cut off: ranks left running"
echo "PASS: grid_emulate"
