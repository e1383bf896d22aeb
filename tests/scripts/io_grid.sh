#!/bin/bash
# io_grid.sh BUILD: MPI-IO on a grid whose sites do not share a file
# system. The grid file gives site a's machine a directory (filesystems)
# that site b's machine does not list; tests/c/file_grid writes a 3-D
# array collectively from both sites into a file there and reads it back
# from both sites (aggregators only on site a); site b's independent
# access, size, sync and shared pointer go through proxies on site a. First on loopback (launcher
# local: site b's processes are told they do not see the directory),
# then, as root, on the emulated grid (--emulate), where site b's hosts
# really do not see it (an empty tmpfs over it in their mount
# namespaces), where tests/c/file_access (every data access function)
# runs with its files there too. Without root the emulated part is
# skipped with a message.
set -u
BUILD=$(cd "${1:?usage: $0 BUILD}" && pwd)
. "$(dirname "$0")/lib.sh"
need_build
dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-iogrid.XXXXXX")
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/scratch"
touch "$dir/scratch/marker"

cat >"$dir/grid.toml" <<GRID
[wan]
latency = "1ms"
bandwidth = "100MB/s"
[[site]]
name = "a"
  [[site.machine]]
  name = "a-cluster"
  hosts = ["a0", "a1"]
  filesystems = ["$dir/scratch"]
[[site]]
name = "b"
  [[site.machine]]
  name = "b-cluster"
  hosts = ["b0", "b1"]
GRID

"$BUILD/bin/mpirun" --grid "$dir/grid.toml" --show-topology >"$dir/topo.out" 2>&1 || {
    cat "$dir/topo.out"
    fail "--show-topology"
}
cat "$dir/topo.out"
grep -q "machine a-cluster (launcher local, file systems $dir/scratch)" "$dir/topo.out" ||
    fail "--show-topology does not list a-cluster's file system"
grep -q "  $dir/scratch: seen by a-cluster; not by b-cluster" "$dir/topo.out" ||
    fail "--show-topology does not say who sees $dir/scratch"

run() { # NAME MPIRUN-ARGS...
    local name=$1
    shift
    "$BUILD/bin/mpirun" --timeout 200 --grid "$dir/grid.toml" "$@" "$BUILD/tests/c/file_grid" "$dir/scratch" \
        >"$dir/$name.out" 2>&1 </dev/null
    local rc=$?
    cat "$dir/$name.out"
    [ $rc -eq 0 ] && grep -q ' No Errors' "$dir/$name.out" || fail "$name: exit $rc"
    grep -q '^2 of 4 ranks do not see' "$dir/$name.out" || fail "$name: site b's ranks were not told they do not see the directory"
    [ -z "$(ls -A "$dir/scratch" | grep -v '^marker$')" ] || fail "$name: left in the directory: $(ls -A "$dir/scratch")"
}

# A parallel-HDF5 program (tests/hdf5/phdf5.c, our mpicc, Debian's
# libhdf5-mpich-dev): its metadata I/O is independent, so site b's ranks
# go through their proxies. Skipped when the package is missing.
INC=/usr/include/hdf5/mpich
HLIB=/usr/lib/x86_64-linux-gnu/hdf5/mpich
h5=
if [ -e "$INC/hdf5.h" ] && [ -e "$HLIB/libhdf5.so" ]; then
    "$BUILD/bin/mpicc" -O1 -I"$INC" -o "$dir/phdf5" "$(dirname "$0")/../hdf5/phdf5.c" -L"$HLIB" -Wl,-rpath,"$HLIB" -lhdf5 ||
        fail "our mpicc could not build phdf5.c"
    h5=$dir/phdf5
else
    echo "SKIP (HDF5 part): libhdf5-mpich-dev is missing"
fi
runh5() { # NAME MPIRUN-ARGS...
    local name=$1
    shift
    [ -n "$h5" ] || return 0
    LD_LIBRARY_PATH="$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$BUILD/bin/mpirun" --timeout 200 \
        --grid "$dir/grid.toml" "$@" "$h5" "$dir/scratch/data.h5" >"$dir/$name.h5.out" 2>&1 </dev/null
    local rc=$?
    tail -5 "$dir/$name.h5.out"
    [ $rc -eq 0 ] && grep -q '^ No Errors' "$dir/$name.h5.out" || fail "$name: phdf5 on the grid: exit $rc"
    [ ! -e "$dir/scratch/data.h5" ] || fail "$name: phdf5 left its file"
}

run local
runh5 local
if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP (emulated part): --emulate needs root; the loopback part passed"
    echo "PASS: io_grid (loopback only)"
    exit 0
fi
before=$(ns_entries)
FILE_GRID_HIDDEN=1 run emulate --emulate -x FILE_GRID_HIDDEN
runh5 emulate --emulate
# Every data access function (tests/c/file_access: all views, blocking,
# nonblocking, split, ordered, shared pointers, partial reads at the end)
# with its files in the directory site b does not see.
TMPDIR=$dir/scratch "$BUILD/bin/mpirun" --timeout 200 --grid "$dir/grid.toml" --emulate -x TMPDIR \
    "$BUILD/tests/c/file_access" >"$dir/access.out" 2>&1 </dev/null
rc=$?
tail -5 "$dir/access.out"
[ $rc -eq 0 ] && grep -q ' No Errors' "$dir/access.out" || fail "file_access on the emulated grid: exit $rc"
# Our namespaces are gone with our mpirun (others' jobs may run meanwhile).
left=$(ns_leaked "$before")
[ -z "$left" ] || fail "emulated hosts left behind: $left"
mount | grep -q "gmpi-unseen" && fail "a hiding tmpfs is mounted in the root namespace"
echo "PASS: io_grid"
