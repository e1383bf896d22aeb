#!/bin/bash
# dyngrid.sh BUILD: client/server and spawn on the emulated grid of
# examples/grid-2x2.toml (two sites, 10 ms between them), each job started
# by its own mpirun:
#   1. a holder job (one blocked rank) builds the grid and shares it
#      (--emulate-share FILE); a server job of 2 ranks at site0 and a client
#      job of 2 ranks at site1 run on the same grid (--emulate-attach FILE);
#      the client connects through the port
#      written to a file: p2p both ways, bcast, allreduce, merge, disconnect
#      (tests/c/dynconnect.c);
#   2. a job at site0 spawns 2 children at a time from C
#      (tests/c/dynspawn2.c) with the info key site=site1, machine=
#      site1-cluster, host=s1h1 (each lands there) and machine=site0-cluster
#      (back home), and machine=nosuch (MPI_ERR_SPAWN).
# Needs root; nothing may be left running, no namespace of ours.
set -u
BUILD=$(cd "${1:?usage: $0 BUILD}" && pwd)
. "$(dirname "$0")/lib.sh"
need_build
[ "$(id -u)" -eq 0 ] || skip "--emulate needs root"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
GRID=$SRC/examples/grid-2x2.toml
mpirun=$BUILD/bin/mpirun
dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-dyngrid.XXXXXX")
spid= srvpid=
cleanup() {
    [ -n "$srvpid" ] && kill -TERM "$srvpid" 2>/dev/null && wait "$srvpid" 2>/dev/null
    [ -n "$spid" ] && kill -TERM "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
before=$(ns_entries)

# 1. A holder job builds and shares the grid (one rank at site0 blocked
# in MPI_Recv: the grid lives as long as the mpirun that built it, so
# neither job below may own it, or the one that ends first would take
# the other's processes with it); the server attaches at site0, the
# client at site1, each with its own mpirun.
"$mpirun" --timeout 200 --grid "$GRID" --emulate --emulate-share "$dir/grid" \
    -n 1 --at site=site0 "$BUILD/tests/c/block" "$dir" >"$dir/holder" 2>&1 </dev/null &
spid=$!
for _ in $(seq 600); do
    [ -s "$dir/grid" ] && [ -s "$dir/rank0.pid" ] && break
    kill -0 "$spid" 2>/dev/null || break
    sleep 0.1
done
[ -s "$dir/grid" ] || { cat "$dir/holder"; fail "the holder job shared no grid"; }
"$mpirun" --timeout 200 --grid "$GRID" --emulate-attach "$dir/grid" \
    -n 2 --at site=site0 "$BUILD/tests/c/dynconnect" server "$dir/port" 1 >"$dir/server" 2>&1 </dev/null &
srvpid=$!
for _ in $(seq 600); do
    [ -s "$dir/port" ] && break
    kill -0 "$srvpid" 2>/dev/null || break
    sleep 0.1
done
[ -s "$dir/port" ] || { kill "$srvpid" 2>/dev/null; cat "$dir/server"; fail "the server wrote no port"; }
"$mpirun" --timeout 200 --grid "$GRID" --emulate-attach "$dir/grid" \
    -n 2 --at site=site1 "$BUILD/tests/c/dynconnect" client "$dir/port" >"$dir/client" 2>&1 </dev/null
rc=$?
echo "--- client (site1, exit $rc):"
cat "$dir/client"
wait "$srvpid"
src=$?
srvpid=
echo "--- server (site0, exit $src):"
cat "$dir/server"
kill -TERM "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
spid=
[ "$rc" -eq 0 ] && grep -q ' No Errors' "$dir/client" || fail "the client job at site1 failed"
[ "$src" -eq 0 ] && grep -q ' No Errors' "$dir/server" || fail "the server job at site0 failed"
[ ! -e "$dir/grid" ] || fail "the holder's mpirun left its --emulate-share file"
# Attaching to a grid that is gone is refused.
out=$("$mpirun" --grid "$GRID" --emulate-attach "$dir/nonexistent" -n 1 --at site=site1 /bin/true 2>&1)
[ $? -ne 0 ] && echo "$out" | grep -q 'emulate-attach' || fail "attaching to no grid: $out"

# 2. Spawn with the info keys site, machine and host: children there.
"$mpirun" --timeout 200 --grid "$GRID" --emulate -n 1 --at site=site0 \
    "$BUILD/tests/c/dynspawn2" place site site1 s1h machine site1-cluster s1h host s1h1 s1h1 \
    machine site0-cluster s0h machine nosuch - >"$dir/spawn" 2>&1 </dev/null
rc=$?
echo "--- spawn by place (exit $rc):"
cat "$dir/spawn"
[ "$rc" -eq 0 ] && grep -q ' No Errors' "$dir/spawn" || fail "spawn by place failed"
for want in 'site=site1: child [01] on s1h' 'machine=site1-cluster: child [01] on s1h' \
    'host=s1h1: child [01] on s1h1$' 'machine=site0-cluster: child [01] on s0h'; do
    [ "$(grep -c "^$want" "$dir/spawn")" -eq 2 ] || fail "not 2 children reporting: $want"
done
grep -q '^machine=nosuch refused: .*no such machine' "$dir/spawn" || fail "machine=nosuch was not refused naming it"

left=$(ns_leaked "$before")
[ -z "$left" ] || fail "namespaces left: $left"
exit 0
