#!/bin/bash
# errfatal.sh BUILD: under the default MPI_ERRORS_ARE_FATAL a send to a
# rank that does not exist aborts the job: mpirun exits non-zero and the
# message names MPI_Send. Then the same for MPI_ERRORS_ABORT set on a
# communicator.
set -u
BUILD=$(cd "${1:?usage: $0 BUILD}" && pwd)
. "$(dirname "$0")/lib.sh"
need_build

out=$(mktemp "${TMPDIR:-/tmp}/gmpi-errfatal.XXXXXX")
trap 'rm -f "$out"' EXIT
t0=$(now)
"$BUILD/bin/mpirun" -n 2 --timeout 60 "$BUILD/tests/c/errfatal" >"$out" 2>&1 </dev/null
rc=$?
echo "--- output (exit status $rc after $(elapsed "$t0") s):"
cat "$out"
echo "---"
[ "$rc" -ne 0 ] || fail "the job exited 0; a fatal error must make it fail"
grep -q ' No Errors' "$out" && fail "the test printed No Errors"
grep -q 'MPI_Send' "$out" || fail "no message names MPI_Send"
grep -q 'was not fatal' "$out" && fail "MPI_Send returned to the caller"

# The same with MPI_ERRORS_ABORT set on a duplicate of the world: the bad
# MPI_Comm_split_type on it ends the job.
t0=$(now)
"$BUILD/bin/mpirun" -n 2 --timeout 60 "$BUILD/tests/c/errfatal" abort >"$out" 2>&1 </dev/null
rc=$?
echo "--- output of the MPI_ERRORS_ABORT run (exit status $rc after $(elapsed "$t0") s):"
cat "$out"
echo "---"
[ "$rc" -ne 0 ] || fail "MPI_ERRORS_ABORT: the job exited 0"
grep -q ' No Errors' "$out" && fail "MPI_ERRORS_ABORT: the test printed No Errors"
grep -q "MPI_Comm_split_type" "$out" || fail "MPI_ERRORS_ABORT: no message names MPI_Comm_split_type"
grep -q 'was not fatal' "$out" && fail "MPI_ERRORS_ABORT: MPI_Comm_split_type returned to the caller"
echo "PASS: errfatal"
