#!/bin/bash
# hdf5.sh BUILD: a parallel-HDF5 program (tests/hdf5/phdf5.c: collective
# and independent hyperslab writes, chunked and extendible datasets,
# attributes, everything read back and checked) built against Debian's
# libhdf5-mpich-dev with Debian's mpicc.mpich, so both it and libhdf5
# load MPICH's libmpich.so.12, runs unmodified on our library (BUILD/lib
# first on the loader path) under our mpirun at 1, 2 and 4 ranks. The
# same program built by our mpicc runs at 2 ranks, and the MPICH-built one
# with collective buffering forced on (GOGC=1) and off. Every run must exit 0
# and print " No Errors". Skips when the package is missing.
set -u
BUILD=$(cd "${1:?usage: $0 BUILD}" && pwd)
. "$(dirname "$0")/lib.sh"
need_build
SRC=$(cd "$(dirname "$0")/../hdf5" && pwd)/phdf5.c
INC=/usr/include/hdf5/mpich
HLIB=/usr/lib/x86_64-linux-gnu/hdf5/mpich
[ -e "$INC/hdf5.h" ] && [ -e "$HLIB/libhdf5.so" ] ||
    skip "parallel HDF5 for MPICH is missing (apt-get install libhdf5-mpich-dev)"
MPICC_MPICH=$(command -v mpicc.mpich) || skip "mpicc.mpich is missing (apt-get install libmpich-dev)"
LIB="$BUILD/lib"

dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-hdf5.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir" || fail "cd $dir"

# h5pcc's flags for the MPICH flavour.
"$MPICC_MPICH" -O1 -I"$INC" -o phdf5.mpich "$SRC" -L"$HLIB" -Wl,-rpath,"$HLIB" -lhdf5 ||
    fail "mpicc.mpich could not build $SRC"
"$BUILD/bin/mpicc" -O1 -I"$INC" -o phdf5.gmpi "$SRC" -L"$HLIB" -Wl,-rpath,"$HLIB" -lhdf5 ||
    fail "our mpicc could not build $SRC"

LD_LIBRARY_PATH="$LIB" ldd phdf5.mpich >ldd.out
grep -qE "libmpich\.so\.12 => $LIB/libmpich\.so\.12" ldd.out ||
    { cat ldd.out; fail "ldd does not resolve libmpich.so.12 (phdf5 and libhdf5) to $LIB"; }
export LD_LIBRARY_PATH="$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# run NP PROGRAM [HINTS]: HINTS (GMPI_IO_HINTS) replace the defaults.
run() {
    local np=$1 prog=$2 hints=${3:-} out="$2.$1.out" t0 rc
    t0=$(now)
    GMPI_IO_HINTS=$hints "$BUILD/bin/mpirun" -n "$np" --timeout 120 -x GMPI_IO_HINTS -x GOGC \
        "./$prog" "$dir/data.$prog.$np.h5" >"$out" 2>&1 </dev/null
    rc=$?
    echo "$prog at $np ranks${hints:+ with $hints}: exit $rc, $(elapsed "$t0") s"
    if [ "$rc" -ne 0 ] || ! grep -q '^ No Errors' "$out"; then
        excerpt 30 <"$out"
        fail "$prog at $np ranks${hints:+ with $hints} (expected exit 0 and \" No Errors\")"
    fi
    [ ! -e "$dir/data.$prog.$np.h5" ] || fail "$prog at $np ranks left its file (MPI_File_delete)"
}

for np in 1 2 4; do
    run $np phdf5.mpich
done
run 2 phdf5.gmpi
# Two-phase collective buffering for every collective access (small
# rounds, two aggregators; the garbage collector running all the time),
# and none.
GOGC=1 run 4 phdf5.mpich romio_cb_write=enable,romio_cb_read=enable,cb_buffer_size=4096,cb_nodes=2
run 2 phdf5.mpich romio_cb_write=disable,romio_cb_read=disable,romio_ds_write=disable
echo "PASS: hdf5"
