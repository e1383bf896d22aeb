#!/bin/bash
# netpipe.sh BUILD: Debian's NetPIPE (NPmpich2, linked against MPICH's
# libmpich.so.12) runs unmodified on our library. Checks that the loader
# takes libmpich.so.12 from BUILD/lib (ldd, LD_DEBUG in the ranks and
# /proc/PID/maps of a running rank), then runs a short bandwidth sweep, an
# integrity check and NetPIPE's full default range (1 byte to 8 MiB+3,
# about a minute); each must exit 0 and print its results.
set -u
BUILD=$(cd "${1:?usage: $0 BUILD}" && pwd)
. "$(dirname "$0")/lib.sh"
need_build
NP=/usr/bin/NPmpich2
[ -x "$NP" ] || skip "$NP is missing (apt-get install netpipe-mpich2)"
LIB="$BUILD/lib"
REAL=$(readlink -f "$LIB/libmpi.so")
MPICH_RE='/usr/lib/x86_64-linux-gnu/libmpich'

dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-netpipe.XXXXXX")
mpirun_pid=
cleanup() {
    [ -n "$mpirun_pid" ] && kill -KILL "$mpirun_pid" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
cd "$dir" || fail "cd $dir"

# 1. The loader resolves MPICH's soname to our library.
echo "+ LD_LIBRARY_PATH=$LIB ldd $NP"
LD_LIBRARY_PATH="$LIB" ldd "$NP" | tee ldd.out
grep -qE "libmpich\.so\.12 => $LIB/libmpich\.so\.12" ldd.out ||
    fail "ldd does not resolve libmpich.so.12 to $LIB"
grep -q "$MPICH_RE" ldd.out && fail "ldd still pulls in MPICH's own library"

# 2. A short sweep with a fixed repeat count; LD_DEBUG records, in each
# rank, which files the loader initialized.
export LD_LIBRARY_PATH="$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "+ mpirun -n 2 $NP -n 20 -u 1048576   (LD_LIBRARY_PATH=$LD_LIBRARY_PATH)"
LD_DEBUG=files LD_DEBUG_OUTPUT="$dir/ld" \
    "$BUILD/bin/mpirun" -n 2 --timeout 200 "$NP" -n 20 -u 1048576 >run.out 2>&1 </dev/null &
mpirun_pid=$!
# While it runs, look at the maps of a rank if we catch one.
mapped=
while kill -0 "$mpirun_pid" 2>/dev/null; do
    for p in $(pgrep -x NPmpich2); do
        grep -q "^$dir\$" <(readlink "/proc/$p/cwd" 2>/dev/null) || continue
        if [ -r "/proc/$p/maps" ] && grep -q 'libmpi\|libmpich' "/proc/$p/maps" 2>/dev/null; then
            grep -E 'libmpi|libmpich' "/proc/$p/maps" | awk '{print $6}' | sort -u >"maps.$p"
            mapped=$p
        fi
    done
    [ -n "$mapped" ] && break
    sleep 0.02
done
wait "$mpirun_pid"
rc=$?
mpirun_pid=
cat run.out
[ "$rc" -eq 0 ] || fail "NPmpich2 sweep exited $rc"
grep -qE 'bytes +[0-9]+ times -->' run.out || fail "NPmpich2 printed no results"
[ -s np.out ] || fail "NPmpich2 wrote no np.out"

if [ -n "$mapped" ]; then
    echo "libraries mapped by rank pid $mapped:"
    cat "maps.$mapped"
    grep -qx "$REAL" "maps.$mapped" || fail "rank $mapped does not map $REAL"
    grep -q "$MPICH_RE" "maps.$mapped" && fail "rank $mapped maps MPICH's library"
else
    echo "note: the run ended before /proc/PID/maps of a rank could be read"
fi
inits=$(grep -l "calling init: $LIB/libmpi" ld.* 2>/dev/null | wc -l)
echo "processes that initialized a library from $LIB: $inits"
[ "$inits" -ge 2 ] || fail "LD_DEBUG shows fewer than 2 processes loading $LIB/libmpi*"
if grep -l "calling init: $MPICH_RE" ld.* 2>/dev/null; then
    fail "a process loaded MPICH's own library"
fi

# 3. Integrity: NetPIPE checks the data it receives.
echo "+ mpirun -n 2 $NP -i -n 5 -u 1048576"
"$BUILD/bin/mpirun" -n 2 --timeout 200 "$NP" -i -n 5 -u 1048576 >int.out 2>&1 </dev/null
rc=$?
cat int.out
[ "$rc" -eq 0 ] || fail "NPmpich2 -i exited $rc"
grep -q 'Integrity check passed' int.out || fail "no integrity check passed"
grep -qi 'Integrity check failed' int.out && fail "integrity check failed"
# 4. The full default range, as a user would run it.
echo "+ mpirun -n 2 $NP -o full.out"
"$BUILD/bin/mpirun" -n 2 --timeout 400 "$NP" -o full.out >full.log 2>&1 </dev/null
rc=$?
tail -3 full.log
[ "$rc" -eq 0 ] || fail "NPmpich2 over its default range exited $rc"
last=$(awk 'END { print $1 }' full.out)
echo "largest size measured: $last bytes ($(wc -l <full.out) sizes)"
[ "${last:-0}" -ge 8388608 ] 2>/dev/null || fail "NPmpich2 stopped at ${last:-nothing} bytes, before its 8 MiB default end"
echo "PASS: netpipe"
