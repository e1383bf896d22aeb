#!/bin/bash
# rma_hosts.sh BUILD: one-sided communication between hosts. Grids whose
# hosts are all this computer (launcher local: ranks of different hosts
# talk over loopback TCP, so every window spans hosts and its operations
# travel as messages served by the target's receive path): rma_ops (every
# flavor x sync mode x operation x datatype class; allocate_shared over
# the world must fail with MPI_ERR_RMA_SHARED), rma_accops (every
# predefined op, ordering, atomicity, large and derived transfers),
# rma_shared (shared windows per host, then passive target over the
# world), rma_err and rma_passive (a target computing without MPI calls
# during the origins' epochs) at 2 ranks on 2 hosts, 3 ranks on 2 hosts
# (one pair of the same host) and 4 ranks on 3 hosts.
set -u
BUILD=$(cd "${1:?usage: $0 BUILD}" && pwd)
. "$(dirname "$0")/lib.sh"
need_build
SRC=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-rmahosts.XXXXXX")
trap 'rm -rf "$dir"' EXIT

run() { # PROGRAM GRID
    local prog=$1 grid=$SRC/tests/grids/$2 name="$1-${2%-local.toml}"
    "$BUILD/bin/mpirun" --timeout 120 --grid "$grid" "$BUILD/tests/c/$prog" >"$dir/$name.out" 2>&1 </dev/null
    local rc=$?
    echo "== $name: exit $rc"
    cat "$dir/$name.out"
    [ $rc -eq 0 ] && grep -q ' No Errors' "$dir/$name.out" || fail "$name failed"
}

for g in rma-2rank-local.toml rma-3rank-local.toml rma-4rank-local.toml; do
    for p in rma_ops rma_accops rma_shared rma_err rma_passive; do
        run $p $g
    done
done
echo "PASS: rma_hosts"
