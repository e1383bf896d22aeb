#!/bin/bash
# grid_vmpi.sh BUILD: vMPI, a grid machine whose ranks talk through a
# vendor MPI. First the refusals (no root needed): a vendor library that
# cannot be loaded, that is no MPI (unknown ABI) or a missing launcher
# stop mpirun before anything starts, naming the machine and the path.
# Then, on the emulated 2-site grid of examples/grid-vmpi.toml (root):
# Debian's Open MPI as site 0's vendor MPI (topology attributes with depth
# 4 for its ranks, the MPICH-G2 example, ring, p2p_semantics, bigmsg,
# bigwild (rendezvous bodies received straight into posted vendor
# receives), cancel and mprobe (rendezvous bodies sent with the RTS:
# a cancelled one is drained, a probed one waits in the vendor),
# collectives, hiercoll with the vendor-collective handoff),
# and the same grid with Debian's MPICH as the vendor (ring, bigmsg,
# bigwild, cancel, hiercoll;
# grid_local runs MPICH as a vendor on one host).
set -u
BUILD=$(cd "${1:?usage: $0 BUILD}" && pwd)
. "$(dirname "$0")/lib.sh"
need_build
SRC=$(cd "$(dirname "$0")/../.." && pwd)
GRID=$SRC/examples/grid-vmpi.toml
OMPI_LIB=/usr/lib/x86_64-linux-gnu/libmpi.so.40
MPICH_LIB=/usr/lib/x86_64-linux-gnu/libmpich.so.12
[ -e "$OMPI_LIB" ] && command -v mpirun.openmpi >/dev/null || skip "Debian's Open MPI is not installed"
dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-vmpi.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# grid LIB LAUNCHER: the example with another vendor library/launcher.
grid() {
    sed -e "s|^  lib = .*|  lib = \"$1\"|" -e "s|^  launcher = \"mpirun.openmpi\"|  launcher = \"$2\"|" "$GRID"
}

refused() { # NAME LIB LAUNCHER WANT: mpirun must refuse, saying WANT
    grid "$2" "$3" >"$dir/$1.toml"
    "$BUILD/bin/mpirun" --timeout 60 --grid "$dir/$1.toml" /bin/sh -c "touch $dir/$1.started" \
        >"$dir/$1.out" 2>&1 </dev/null
    local rc=$?
    cat "$dir/$1.out"
    [ $rc -ne 0 ] || fail "$1: mpirun exited 0"
    [ ! -e "$dir/$1.started" ] || fail "$1: a rank was started"
    grep -q "machine site0-vendor: .*$4" "$dir/$1.out" || fail "$1: the message does not say \"machine site0-vendor: ...$4\""
}
refused nolib /nonexistent/libmpi.so.40 mpirun.openmpi "cannot load /nonexistent/libmpi.so.40"
refused notmpi /usr/lib/x86_64-linux-gnu/libc.so.6 mpirun.openmpi "libc.so.6: unknown MPI ABI"
refused nolauncher "$OMPI_LIB" /nonexistent/mpirun "launcher"

[ "$(id -u)" -eq 0 ] || skip "--emulate needs root"

run() { # NAME GRID PROGRAM...
    local name=$1 g=$2
    shift 2
    TOPOATTR_PRINT=1 "$BUILD/bin/mpirun" --timeout 200 -x TOPOATTR_PRINT --grid "$g" --emulate "$@" \
        >"$dir/$name.out" 2>&1 </dev/null
    local rc=$?
    cat "$dir/$name.out"
    [ $rc -eq 0 ] && grep -q ' No Errors' "$dir/$name.out" || fail "$name with a vendor MPI machine: exit $rc"
}

run topoattr "$GRID" "$BUILD/tests/c/topoattr"
got=$(grep '^topo ' "$dir/topoattr.out" | sort)
want='topo 0 4 0 0 0 0
topo 1 4 0 0 0 0
topo 2 3 0 1 1
topo 3 3 0 1 1'
[ "$got" = "$want" ] || fail "topology attributes
$got
want
$want"
for t in g2topo ring p2p_semantics bigmsg bigwild cancel mprobe collectives; do
    run "$t" "$GRID" "$BUILD/tests/c/$t"
done
# coll/hier with the vendor machine's part of barrier, bcast, reduce and
# allreduce handed to Open MPI's collectives (GMPI_HIER_VENDOR=1, set
# here: off by default), every collective in every form on reordered communicators.
HIERCOLL_QUICK=1 GMPI_HIER_VENDOR=1 run hiercoll "$GRID" -x HIERCOLL_QUICK -x GMPI_HIER_VENDOR "$BUILD/tests/c/hiercoll"

if [ -e "$MPICH_LIB" ] && command -v mpiexec.mpich >/dev/null; then
    grid "$MPICH_LIB" mpiexec.mpich >"$dir/mpich.toml"
    for t in ring bigmsg bigwild cancel; do
        run "mpich-$t" "$dir/mpich.toml" "$BUILD/tests/c/$t"
    done
    HIERCOLL_QUICK=1 run mpich-hiercoll "$dir/mpich.toml" -x HIERCOLL_QUICK "$BUILD/tests/c/hiercoll"
else
    echo "Debian's MPICH is not installed: its variant is not tested"
fi
echo "PASS: grid_vmpi"
