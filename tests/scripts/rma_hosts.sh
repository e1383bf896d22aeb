#!/bin/bash
# rma_hosts.sh BUILD: one-sided communication between hosts. Grids whose
# hosts are all this computer (launcher local: ranks of different hosts
# talk over loopback TCP, so every window spans hosts): operations between
# ranks of different hosts travel as messages served by the target's
# receive path, those between ranks of one host go through that host's
# control segment (checked in the GMPI_DEBUG log of a run on 3 ranks, 2
# of one host; the same-host and cross-host origins of the atomicity,
# exclusive lock, fence and PSCW checks below meet at one target): rma_ops (every
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

# The path of each pair: on 3 ranks of 2 hosts (r0: ranks 0 and 1, r1:
# rank 2) every window has a segment of 2 processes on r0 and of 1 on r1.
log=$dir/paths.out
GMPI_DEBUG=1 "$BUILD/bin/mpirun" --timeout 120 --grid "$SRC/tests/grids/rma-3rank-local.toml" "$BUILD/tests/c/rma_passive" >"$log" 2>&1 </dev/null
rc=$?
echo "== paths (rma_passive, 3 ranks on 2 hosts, GMPI_DEBUG=1): exit $rc"
grep 'spans hosts' "$log" | sort | uniq -c
[ $rc -eq 0 ] && grep -q ' No Errors' "$log" || { cat "$log"; fail "paths run failed"; }
n2=$(grep -c "spans hosts: 2 of its 3 processes share this host's segment" "$log")
n1=$(grep -c "spans hosts: 1 of its 3 processes share this host's segment" "$log")
[ "$n2" -gt 0 ] && [ "$n1" -gt 0 ] && [ "$n2" -eq $((2 * n1)) ] ||
    fail "windows across hosts: expected each window logged by 2 ranks sharing r0's segment and 1 alone on r1 (got $n2 and $n1 lines)"

for g in rma-2rank-local.toml rma-3rank-local.toml rma-4rank-local.toml; do
    for p in rma_ops rma_accops rma_shared rma_err rma_passive; do
        run $p $g
    done
done
echo "PASS: rma_hosts"
