#!/bin/bash
# scalapack.sh BUILD [FLAVOUR]: ScaLAPACK's own testers from Debian's
# scalapack-mpi-test run unmodified on our library under our mpirun, with
# the input files the package ships, at 1, 2 and 4 ranks. Each run must
# exit 0, reach "END OF TESTS", print at least the expected number of
# PASSED cases and report no failed case. xdsep's input needs 4 processes
# (its grids go up to 4), so it runs only at 4 ranks; so does xsllt (10-30 s).
#   FLAVOUR=mpich (default)  the testers built against MPICH (they load
#                            libmpich.so.12): our build/lib.
#   FLAVOUR=openmpi          the same testers built against Open MPI
#                            (libscalapack-openmpi loads libmpi.so.40): our
#                            Open MPI front, build/openmpi/lib.
set -u
BUILD=$(cd "${1:?usage: $0 BUILD [mpich|openmpi]}" && pwd)
FLAVOUR=${2:-mpich}
. "$(dirname "$0")/lib.sh"
need_build
case "$FLAVOUR" in
mpich) SONAME=libmpich.so.12 LIB="$BUILD/lib" ;;
openmpi) SONAME=libmpi.so.40 LIB="$BUILD/openmpi/lib" ;;
*) fail "unknown flavour $FLAVOUR (mpich or openmpi)" ;;
esac
TESTERS=/usr/lib/x86_64-linux-gnu/scalapack/$FLAVOUR-tests
[ -x "$TESTERS/xdlu" ] || skip "$TESTERS is missing (apt-get install scalapack-mpi-test)"
[ -e "$LIB/$SONAME" ] || fail "$LIB/$SONAME is missing (build first)"

dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-scalapack.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cp "$TESTERS"/*.dat "$dir"/ || fail "cannot copy the input files"
cd "$dir" || fail "cd $dir"

LD_LIBRARY_PATH="$LIB" ldd "$TESTERS/xdlu" | grep -qF "$SONAME => $LIB/$SONAME" ||
    fail "ldd does not resolve xdlu's $SONAME to $LIB"
export LD_LIBRARY_PATH="$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# run NP TESTER MIN_PASSED
run() {
    local np=$1 t=$2 min=$3 out="$2.$1.out" t0 rc passed
    t0=$(now)
    "$BUILD/bin/mpirun" -n "$np" --timeout 300 "$TESTERS/$t" >"$out" 2>&1 </dev/null
    rc=$?
    passed=$(grep -c 'PASSED' "$out")
    echo "$FLAVOUR $t at $np ranks: exit $rc, $passed cases passed, $(elapsed "$t0") s"
    if [ "$rc" -ne 0 ] || ! grep -q 'END OF TESTS' "$out" || [ "$passed" -lt "$min" ] ||
        grep -qE 'FAILED|[1-9][0-9]* tests completed and failed' "$out"; then
        excerpt 30 <"$out"
        fail "$FLAVOUR $t at $np ranks (expected exit 0, END OF TESTS, >= $min PASSED and no failure)"
    fi
}

# Case counts as MPICH runs them with these input files (the Open MPI
# testers read the same files).
for np in 1 2; do
    run $np xdlu 61
    run $np xdqr 89
    run $np xdllt 109
    run $np xzlu 61
    run $np xdinv 81
done
run 4 xdlu 241
run 4 xdqr 353
run 4 xdllt 433
run 4 xzlu 241
run 4 xdinv 321
run 4 xdsep 313
# xsllt reads PSPORFS's uninitialized EST: it passes only if the stack
# below our calls holds what MPICH's or Open MPI's would (capi/altstack.h).
run 4 xsllt 433
echo "PASS: scalapack ($FLAVOUR testers)"
