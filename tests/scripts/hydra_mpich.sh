#!/bin/bash
# hydra_mpich.sh BUILD: programs compiled and linked by MPICH's own
# compiler wrapper (mpicc.mpich, so they ask for libmpich.so.12) run
# unmodified under MPICH's launcher (mpiexec.hydra) on our library, with
# PMI-1 and with PMI-2, over PMI_FD and PMI_PORT; checks that the library
# in use is ours (MPI_Get_library_version) and that the tests pass.
set -u
BUILD=$(cd "${1:?usage: $0 BUILD}" && pwd)
. "$(dirname "$0")/lib.sh"
need_build
HYDRA=$(command -v mpiexec.hydra) || skip "mpiexec.hydra is missing (apt-get install mpich)"
command -v mpicc.mpich >/dev/null || skip "mpicc.mpich is missing (apt-get install libmpich-dev)"
SRC=$(cd "$(dirname "$0")/../c" && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-hydra-mpich.XXXXXX")
trap 'rm -rf "$dir"' EXIT
for t in hello ring; do
    mpicc.mpich -O1 -I"$SRC" -o "$dir/$t" "$SRC/$t.c" "$SRC/mtest.c" -lm || fail "mpicc.mpich $t.c"
done
readelf -d "$dir/ring" | grep -q 'libmpich\.so\.12' || fail "ring is not linked against libmpich.so.12"
export LD_LIBRARY_PATH="$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# hello in every combination; ring (point-to-point up to 4 MiB) in two.
for pmi in 1 2; do
    for mode in "" -pmi-port; do
        tests=hello
        [ "$pmi$mode" = 1 ] || [ "$pmi$mode" = 2-pmi-port ] && tests="hello ring"
        for t in $tests; do
            echo "+ GMPI_PMI=$pmi mpiexec.hydra $mode -n 4 $t"
            GMPI_PMI=$pmi timeout -k 5 120 "$HYDRA" $mode -n 4 "$dir/$t" >"$dir/out" 2>&1 </dev/null
            rc=$?
            cat "$dir/out"
            [ $rc -eq 0 ] || fail "MPICH-built $t under hydra $mode (PMI-$pmi) exited with $rc"
            grep -q ' No Errors' "$dir/out" || fail "MPICH-built $t under hydra $mode (PMI-$pmi): no \" No Errors\""
            if [ $t = hello ]; then
                grep -q '^Library: gmpi' "$dir/out" || fail "MPICH-built hello under hydra did not load gmpi"
                [ "$(grep -c '^Hello from rank .* of 4' "$dir/out")" -eq 4 ] || fail "hello: not 4 ranks of 4"
            fi
        done
    done
done
echo "ok: MPICH-built hello and ring under hydra, PMI-1 and PMI-2, PMI_FD and PMI_PORT"
