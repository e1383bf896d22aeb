#!/bin/bash
# runtest.sh MPIRUN NPROCS TIMELIMIT PROGRAM [VAR=VALUE ...]
#
# Runs one C test the way ctest cases from tests/c/testlist do: PROGRAM
# under MPIRUN with NPROCS processes, the given variables set in the
# environment (and forwarded with -x). Passes when the job exits 0 and its
# output contains " No Errors".
set -u
if [ $# -lt 4 ]; then
    echo "usage: $0 MPIRUN NPROCS TIMELIMIT PROGRAM [VAR=VALUE ...]" >&2
    exit 2
fi
mpirun=$1 np=$2 limit=$3 prog=$4
shift 4
fwd=()
for kv in "$@"; do
    export "${kv?}"
    fwd+=(-x "${kv%%=*}")
done

out=$(mktemp "${TMPDIR:-/tmp}/gmpi-runtest.XXXXXX")
trap 'rm -f "$out"' EXIT
echo "+ $mpirun -n $np --timeout $limit ${fwd[*]} $prog"
"$mpirun" -n "$np" --timeout "$limit" "${fwd[@]}" "$prog" >"$out" 2>&1 </dev/null
rc=$?
cat "$out"
if [ "$rc" -ne 0 ]; then
    echo "runtest: FAIL: $(basename "$prog") with $np processes exited with status $rc"
    exit 1
fi
if ! grep -q ' No Errors' "$out"; then
    echo "runtest: FAIL: $(basename "$prog") with $np processes did not print \" No Errors\""
    exit 1
fi
exit 0
