#!/bin/bash
# abi_openmpi_debian.sh BUILD: Debian binaries built against Open MPI run
# unmodified on gmpi's Open MPI front (build/openmpi/lib/libmpi.so.40 first
# on the loader path, our mpirun):
#   - python3-mpi4py: imports, reports gmpi as the library, and passes
#     tests/python/mpi4py_basic.py at 1, 2 and 4 ranks;
#   - netpipe-openmpi: NPopenmpi with its integrity check up to 1 MiB and
#     its timed run up to 256 KiB (its whole default range, 1 byte to
#     8 MiB+3, takes minutes on a loaded machine: run it by hand with
#     NP_FULL=1).
# A missing package skips its part; both missing skips the test.
set -u
BUILD=$(cd "${1:?usage: $0 BUILD}" && pwd)
. "$(dirname "$0")/lib.sh"
need_build
LIB=$BUILD/openmpi/lib
[ -e "$LIB/libmpi.so.40" ] || fail "$LIB/libmpi.so.40 is missing (build first)"
PYTEST=$(cd "$(dirname "$0")/../python" && pwd)/mpi4py_basic.py
# Debian's python3-mpi4py belongs to Debian's python, not to whatever python3 is first on PATH.
PY=/usr/bin/python3

dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-ompi-debian.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir" || fail "cd $dir"
export LD_LIBRARY_PATH="$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
ran=0

# mpirun_ok NP TIMEOUT CMD...: runs a job; fails on a non-zero exit.
mpirun_ok() {
    local np=$1 limit=$2
    shift 2
    "$BUILD/bin/mpirun" -n "$np" --timeout "$limit" -x LD_LIBRARY_PATH "$@" </dev/null
}

MPI4PY=$($PY -c 'import mpi4py, os; print(os.path.dirname(mpi4py.__file__))' 2>/dev/null)
if [ -n "$MPI4PY" ]; then
    so=$(ls "$MPI4PY"/MPI.*.so | head -1)
    ldd "$so" | grep -qE "libmpi\.so\.40 => $LIB/libmpi\.so\.40" ||
        fail "ldd does not resolve mpi4py's libmpi.so.40 to $LIB"
    ver=$($PY -c 'from mpi4py import MPI; print(MPI.Get_library_version().splitlines()[0])' 2>&1) ||
        fail "import mpi4py as a singleton: $ver"
    echo "mpi4py singleton: MPI.Get_library_version() = $ver"
    case "$ver" in *gmpi*) ;; *) fail "mpi4py does not report gmpi: $ver" ;; esac
    for np in 1 2 4; do
        t0=$(now)
        out=$(mpirun_ok "$np" 240 "$PY" "$PYTEST" 2>&1)
        rc=$?
        echo "$out" | excerpt 20
        [ $rc -eq 0 ] || fail "mpi4py_basic.py at $np ranks exited $rc"
        grep -q ' No Errors' <<<"$out" || fail "mpi4py_basic.py at $np ranks printed no ' No Errors'"
        echo "ok   mpi4py_basic.py -n $np ($(elapsed "$t0") s)"
    done
    ran=$((ran + 1))
else
    echo "note: python3-mpi4py is not installed; its part is skipped"
fi

NP=/usr/bin/NPopenmpi
if [ -x "$NP" ]; then
    ldd "$NP" | grep -qE "libmpi\.so\.40 => $LIB/libmpi\.so\.40" ||
        fail "ldd does not resolve NPopenmpi's libmpi.so.40 to $LIB"
    mpirun_ok 2 200 "$NP" -i -n 5 -u 1048576 >int.out 2>&1
    rc=$?
    tail -n 3 int.out
    [ $rc -eq 0 ] || fail "NPopenmpi -i exited $rc"
    grep -q 'Integrity check passed' int.out || fail "NPopenmpi: no integrity check passed"
    grep -qi 'Integrity check failed' int.out && fail "NPopenmpi: integrity check failed"
    upper=(-u 262144) want=262141 # NetPIPE measures N-3, N, N+3 around each size
    [ "${NP_FULL:-0}" = 1 ] && upper=() want=8388608
    mpirun_ok 2 400 "$NP" "${upper[@]}" -o full.out >full.log 2>&1
    rc=$?
    tail -n 3 full.log
    [ $rc -eq 0 ] || fail "NPopenmpi ${upper[*]} exited $rc"
    last=$(awk 'END { print $1 }' full.out)
    echo "NPopenmpi: largest size measured: $last bytes ($(wc -l <full.out) sizes)"
    [ "${last:-0}" -ge $want ] 2>/dev/null || fail "NPopenmpi stopped at ${last:-nothing} bytes (want $want)"
    [ "${NP_FULL:-0}" = 1 ] && cp full.out "${TMPDIR:-/tmp}/NPopenmpi-full.out"
    ran=$((ran + 1))
else
    echo "note: netpipe-openmpi is not installed; its part is skipped"
fi

[ $ran -gt 0 ] || skip "neither python3-mpi4py nor netpipe-openmpi is installed"
echo "PASS: Open MPI-built Debian binaries on the Open MPI front"
