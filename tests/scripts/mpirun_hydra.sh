#!/bin/bash
# mpirun_hydra.sh BUILD: our mpirun starting ranks through MPICH's hydra as
# their launcher (--launcher hydra, and a grid machine with launcher =
# "hydra" next to one started directly): the ranks join the gmpi job over
# authenticated TCP PMI to mpirun, not hydra's PMI. Checks that ring and
# collectives pass and that g2topo sees the two machines of the grid file.
set -u
BUILD=$(cd "${1:?usage: $0 BUILD}" && pwd)
. "$(dirname "$0")/lib.sh"
need_build
command -v mpiexec.hydra >/dev/null || skip "mpiexec.hydra is missing (apt-get install mpich)"
dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-mpirun-hydra.XXXXXX")
trap 'rm -rf "$dir"' EXIT
host=$(hostname -s)

run() {
    local what=$1
    shift
    echo "+ $*"
    timeout -k 5 200 "$@" >"$dir/out" 2>&1 </dev/null
    local rc=$?
    cat "$dir/out"
    [ $rc -eq 0 ] || fail "$what exited with status $rc"
    grep -q ' No Errors' "$dir/out" || fail "$what did not print \" No Errors\""
}

run "mpirun --launcher hydra" "$BUILD/bin/mpirun" --launcher hydra -n 4 --timeout 150 "$BUILD/tests/c/ring"

cat >"$dir/grid.toml" <<EOF
[[site]]
name = "here"
  [[site.machine]]
  name = "viahydra"
  launcher = "hydra"
  procs = 2
  hosts = ["$host"]
  [[site.machine]]
  name = "direct"
  procs = 2
  hosts = ["direct1"]       # runs here under that name: tcp to the others
EOF
"$BUILD/bin/mpirun" --grid "$dir/grid.toml" --show-topology | tee "$dir/topo"
grep -q 'machine viahydra (launcher hydra)' "$dir/topo" || fail "--show-topology does not name the hydra launcher"
run "mpirun --grid g2topo (one machine through hydra)" "$BUILD/bin/mpirun" --grid "$dir/grid.toml" --timeout 150 "$BUILD/tests/c/g2topo"
run "mpirun --grid collectives (one machine through hydra)" "$BUILD/bin/mpirun" --grid "$dir/grid.toml" --timeout 150 "$BUILD/tests/c/collectives"
echo "ok: mpirun with hydra as a launcher"
