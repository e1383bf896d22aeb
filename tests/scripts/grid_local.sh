#!/bin/bash
# grid_local.sh BUILD: a grid file whose hosts are all this computer
# (launcher local, different host names, so the ranks talk over loopback
# TCP): 2 sites x 2 hosts, one machine of site b with a vendor MPI.
# tests/c/topoattr must see the grid file's topology (compared with what
# --show-topology prints for the same file), the MPICH-G2 example
# (tests/c/g2topo) must give the expected communicators, and the
# collective test must pass across the hosts. Then tests/c/express and
# p2p_semantics with two ranks of a vendor job (MPICH, Open MPI) and one
# TCP rank: the vMPI express lane. Skipped while the library cannot talk
# between hosts (no tcp device yet).
set -u
BUILD=$(cd "${1:?usage: $0 BUILD}" && pwd)
. "$(dirname "$0")/lib.sh"
need_build
dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-grid.XXXXXX")
trap 'rm -rf "$dir"' EXIT

cat >"$dir/grid.toml" <<'GRID'
[[site]]
name = "a"
  [[site.machine]]
  name = "a-cluster"
  hosts = ["a0", "a1"]
[[site]]
name = "b"
  [[site.machine]]
  name = "b-cluster"
  procs = 2
  hosts = ["b0"]
  [site.machine.vmpi]
  lib = "/usr/lib/x86_64-linux-gnu/libmpich.so.12"
  launcher = "mpiexec.mpich"
  [[site.machine]]
  name = "b-ws"
  hosts = ["b1"]
GRID

GRIDFILE=$dir/grid.toml
run() { # NAME PROGRAM...: run under the grid, pass on " No Errors"
    local name=$1
    shift
    TOPOATTR_PRINT=1 "$BUILD/bin/mpirun" --timeout 200 -x TOPOATTR_PRINT --grid "$GRIDFILE" "$@" \
        >"$dir/$name.out" 2>&1 </dev/null
    local rc=$?
    cat "$dir/$name.out"
    if grep -q 'needs the tcp device' "$dir/$name.out"; then
        skip "ranks on different hosts cannot talk yet (no tcp device)"
    fi
    [ $rc -eq 0 ] && grep -q ' No Errors' "$dir/$name.out" || fail "$name under the grid: exit $rc"
}

run topoattr "$BUILD/tests/c/topoattr"
"$BUILD/bin/mpirun" --grid "$dir/grid.toml" --show-topology >"$dir/show.out" || fail "--show-topology failed"
want=$(awk '/^rank +host/ { t = 1; next } t { printf "topo %s %s", $1, $5; for (i = 6; i <= NF; i++) printf " %s", $i; print "" }' "$dir/show.out" | sort)
# The vendor ranks' output reaches mpirun's stdout as its own ranks' does
# (not through mpiexec.mpich's forwarding), yet CI once saw two vendor
# ranks' lines joined ("topo 2 ...topo 3 ..."; cause not found, see the
# closing note of session 7): split such lines before comparing.
got=$(sed 's/\(.\)topo /\1\ntopo /g' "$dir/topoattr.out" | grep '^topo ' | sort)
[ -n "$want" ] && [ "$got" = "$want" ] || fail "the ranks saw
$got
but --show-topology says
$want"
# With --tag-output every rank's line carries its own tag, the vendor
# ranks' too (mpirun forwards each rank's output line by line).
run tagged --tag-output "$BUILD/tests/c/topoattr"
tagged=$(grep -c '^\[\([0-9]*\)\] topo \1 ' "$dir/tagged.out")
[ "$tagged" = "$(echo "$want" | wc -l)" ] || fail "--tag-output: $tagged lines \"[r] topo r ...\", want one per rank"
run g2topo "$BUILD/tests/c/g2topo"
run collectives "$BUILD/tests/c/collectives"

# The express lane towards vMPI peers (capi/express.h): ranks 0 and 1 in
# one vendor job, rank 2 over TCP; tests/c/express mixes C-lane and Go
# sends and receives (order, communicators, MPI_ANY_SOURCE with a
# receive pending, errors), p2p_semantics the rest. Each vendor that is
# installed.
for v in "mpich /usr/lib/x86_64-linux-gnu/libmpich.so.12 mpiexec.mpich" \
    "ompi /usr/lib/x86_64-linux-gnu/libmpi.so.40 mpirun.openmpi"; do
    set -- $v
    [ -e "$2" ] && command -v "$3" >/dev/null || continue
    GRIDFILE=$dir/express-$1.toml
    cat >"$GRIDFILE" <<GRID
[[site]]
name = "v"
  [[site.machine]]
  name = "v-vendor"
  procs = 2
  hosts = ["v0"]
  [site.machine.vmpi]
  lib = "$2"
  launcher = "$3"
  [[site.machine]]
  name = "v-ws"
  hosts = ["v1"]
GRID
    run "express-$1" "$BUILD/tests/c/express"
    run "p2p_semantics-$1" "$BUILD/tests/c/p2p_semantics"
done
echo "PASS: grid_local"
