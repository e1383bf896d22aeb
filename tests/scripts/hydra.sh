#!/bin/bash
# hydra.sh BUILD PMI NPROCS PROGRAM [-pmi-port]
#
# Runs one C test the way tests/c/testlist cases run, but under MPICH's
# own launcher (Debian's mpiexec.hydra) instead of our mpirun: no gmpi
# process manager at all, our library found through LD_LIBRARY_PATH, the
# business cards, host names and the job secret exchanged through hydra's
# PMI key-value space. PMI is 1 or 2 (GMPI_PMI: hydra serves both on the
# same socket and follows the client's first line); -pmi-port makes hydra
# use its PMI_PORT model instead of an inherited PMI_FD. Passes when the
# job exits 0 and prints " No Errors".
set -u
BUILD=$(cd "${1:?usage: $0 BUILD PMI NPROCS PROGRAM [-pmi-port]}" && pwd)
pmi=${2:?} np=${3:?} prog=${4:?}
shift 4
. "$(dirname "$0")/lib.sh"
need_build
HYDRA=$(command -v mpiexec.hydra) || skip "mpiexec.hydra is missing (apt-get install mpich)"
case "$prog" in /*) ;; *) prog="$BUILD/tests/c/$prog" ;; esac
[ -x "$prog" ] || fail "$prog is missing"

out=$(mktemp "${TMPDIR:-/tmp}/gmpi-hydra.XXXXXX")
trap 'rm -f "$out"' EXIT
echo "+ GMPI_PMI=$pmi LD_LIBRARY_PATH=$BUILD/lib mpiexec.hydra $* -n $np $prog"
GMPI_PMI=$pmi LD_LIBRARY_PATH="$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    timeout -k 5 200 "$HYDRA" "$@" -n "$np" "$prog" >"$out" 2>&1 </dev/null
rc=$?
cat "$out"
[ "$rc" -eq 0 ] || fail "$(basename "$prog") under hydra (PMI-$pmi) with $np processes exited with status $rc"
grep -q ' No Errors' "$out" || fail "$(basename "$prog") under hydra (PMI-$pmi) did not print \" No Errors\""
exit 0
