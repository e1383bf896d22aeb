#!/bin/bash
# abort.sh BUILD: rank 1 of 3 calls MPI_Abort(MPI_COMM_WORLD, 7) while
# the others block in MPI_Recv. The job must end within 10 s with a
# non-zero status (7 expected) and a message naming rank 1.
set -u
BUILD=$(cd "${1:?usage: $0 BUILD}" && pwd)
. "$(dirname "$0")/lib.sh"
need_build

out=$(mktemp "${TMPDIR:-/tmp}/gmpi-abort.XXXXXX")
trap 'rm -f "$out"' EXIT
t0=$(now)
"$BUILD/bin/mpirun" -n 3 --timeout 60 "$BUILD/tests/c/abort" >"$out" 2>&1 </dev/null &
pid=$!
if ! wait_exit "$pid" 10; then
    kill -TERM "$pid" 2>/dev/null
    sleep 1
    kill -KILL "$pid" 2>/dev/null
    cat "$out"
    fail "mpirun still running 10 s after the start; MPI_Abort must end the job"
fi
wait "$pid"
rc=$?
secs=$(elapsed "$t0")
echo "--- output (exit status $rc after $secs s):"
cat "$out"
echo "---"
[ "$rc" -ne 0 ] || fail "the job exited 0 after MPI_Abort"
[ "$rc" -eq 7 ] || echo "note: exit status $rc; 7 (the MPI_Abort code) is expected"
grep -qiE 'rank[ =:#]*1([^0-9]|$)' "$out" || fail "no message names rank 1"
grep -q 'received a message that was never sent' "$out" && fail "a blocked rank returned"
echo "PASS: abort"
