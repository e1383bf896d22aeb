#!/bin/bash
# grid_hostile_dyn.sh BUILD: hostile connections to a name server and to
# an MPI port on the emulated 2-site x 2-host grid of
# examples/grid-2x2.toml (issue 25; grid_hostile.sh does the ranks'
# listeners and a relay):
#   1. a holder job (one blocked rank at site0) builds and shares the grid;
#   2. a name server (mpirun --serve-names) runs in the namespace of the
#      emulated host s0h1, listening on its grid address;
#   3. a server job of 2 ranks at site0 (tests/c/dynconnect server, with
#      --nameserver) opens a port, publishes it there and waits in
#      MPI_Comm_accept;
#   4. from s1h1's namespace (across the wide-area link) the attacker
#      (internal/hostile/attack -names KEY -port FILE) opens to the name
#      server and to the port a connection sending garbage, a half-open
#      one, one sending a byte every 250 ms and 200 silent ones, and four
#      that prove the key or the port's secret and then send garbage, a
#      truncated message, an oversized one or nothing. Every one must be
#      dropped within 30 s (GMPI_AUTH_TIMEOUT=2), the name server and the
#      port naming them in their messages (mpirun -v's "refused" and
#      "dropped" lines, GMPI_DEBUG's "port: refused"/"port: dropped");
#   5. then a client job at site1 connects twice (tests/c/dynconnect both:
#      through the port name in a file, then through the name it looks up
#      at the name server), and both jobs must end with " No Errors".
# Needs root; nothing may be left running, no namespace of ours.
set -u
BUILD=$(cd "${1:?usage: $0 BUILD}" && pwd)
. "$(dirname "$0")/lib.sh"
need_build
[ "$(id -u)" -eq 0 ] || skip "--emulate needs root (network namespaces)"
command -v nsenter >/dev/null || skip "nsenter (util-linux) is missing"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
GRID=$SRC/examples/grid-2x2.toml
GO=$(command -v go || echo /usr/local/go/bin/go)
mpirun=$BUILD/bin/mpirun
dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-hostiledyn.XXXXXX")
hpid= nspid= spid=
cleanup() {
    local p
    for p in $spid $nspid $hpid; do
        kill -TERM "$p" 2>/dev/null && wait "$p" 2>/dev/null
    done
    rm -rf "$dir"
}
trap cleanup EXIT
before=$(ns_entries)

(cd "$SRC" && "$GO" build -o "$dir/attack" ./internal/hostile/attack) || fail "building the attacker"

# 1. The holder job.
"$mpirun" --timeout 110 --grid "$GRID" --emulate --emulate-share "$dir/grid" \
    -n 1 --at site=site0 "$BUILD/tests/c/block" "$dir" >"$dir/holder" 2>&1 </dev/null &
hpid=$!
for _ in $(seq 600); do
    [ -s "$dir/grid" ] && [ -s "$dir/rank0.pid" ] && break
    kill -0 "$hpid" 2>/dev/null || break
    sleep 0.1
done
[ -s "$dir/grid" ] || { cat "$dir/holder"; fail "the holder job shared no grid"; }
# host NAME SITE ADDR PID NETNS
nsaddr=$(awk '$1 == "host" && $2 == "s0h1" { print $4 }' "$dir/grid")
nshost=$(awk '$1 == "host" && $2 == "s0h1" { print $5 }' "$dir/grid")
apid=$(awk '$1 == "host" && $2 == "s1h1" { print $5 }' "$dir/grid")
[ -n "$nsaddr" ] && [ -n "$nshost" ] && [ -n "$apid" ] || { cat "$dir/grid"; fail "no hosts s0h1 and s1h1 in the shared grid"; }

# 2. The name server in s0h1 (nsenter execs mpirun: nspid is its pid).
key=$dir/names.key
ns=$nsaddr:41100
GMPI_NAMESERVER_KEY=$key GMPI_AUTH_TIMEOUT=2 GMPI_MPIRUN_VERBOSE=1 \
    nsenter --target "$nshost" --net -- "$mpirun" --serve-names "$ns" >"$dir/ns" 2>&1 </dev/null &
nspid=$!
for _ in $(seq 100); do
    [ -s "$key" ] && grep -q listening "$dir/ns" && break
    kill -0 "$nspid" 2>/dev/null || break
    sleep 0.1
done
grep -q listening "$dir/ns" || { cat "$dir/ns"; fail "the name server did not start in s0h1"; }

# 3. The server job: publishes at the name server, writes the port name
# to a file, accepts two connections.
svc=gmpi-hostile-$$
export GMPI_NAMESERVER_KEY=$key GMPI_AUTH_TIMEOUT=2 GMPI_DEBUG=1
"$mpirun" --timeout 100 --grid "$GRID" --emulate-attach "$dir/grid" \
    -x GMPI_NAMESERVER_KEY -x GMPI_AUTH_TIMEOUT -x GMPI_DEBUG --nameserver "$ns" \
    -n 2 --at site=site0 "$BUILD/tests/c/dynconnect" server "$dir/port" 2 "$svc" >"$dir/server" 2>&1 </dev/null &
spid=$!
for _ in $(seq 600); do
    [ -s "$dir/port" ] && break
    kill -0 "$spid" 2>/dev/null || break
    sleep 0.1
done
[ -s "$dir/port" ] || { cat "$dir/server"; fail "the server wrote no port"; }
unset GMPI_DEBUG

# 4. The attack, from s1h1.
echo "attacking the name server at $ns and the port $(cat "$dir/port") from s1h1's namespace"
nsenter --target "$apid" --net -- "$dir/attack" -want 1 -flood 200 -within 30s \
    -names "$key" -port "$dir/port" "$ns" >"$dir/attack.out" 2>&1
arc=$?
cat "$dir/attack.out"
[ $arc -eq 0 ] || { cat "$dir/ns" "$dir/server"; fail "the attack: some hostile connection was not dropped (exit $arc)"; }
[ "$(grep -c 'hostile connections dropped' "$dir/attack.out")" -eq 2 ] || fail "the name server and the port were not both attacked"
kill -0 "$nspid" 2>/dev/null || { cat "$dir/ns"; fail "the name server ended under attack"; }
kill -0 "$spid" 2>/dev/null || { cat "$dir/server"; fail "the server job ended under attack"; }

# 5. The job's own connections: through the file, then through the name.
"$mpirun" --timeout 90 --grid "$GRID" --emulate-attach "$dir/grid" \
    -x GMPI_NAMESERVER_KEY --nameserver "$ns" \
    -n 2 --at site=site1 "$BUILD/tests/c/dynconnect" both "$dir/port" "$svc" >"$dir/client" 2>&1 </dev/null
rc=$?
echo "--- client (site1, exit $rc):"
cat "$dir/client"
wait "$spid"
src=$?
spid=
echo "--- server (site0, exit $src), its port's messages:"
grep -v 'gmpi\[' "$dir/server"
echo "$(grep -c 'port: refused' "$dir/server") connections refused, e.g.:"
grep -m1 'port: refused' "$dir/server"
grep 'port: dropped' "$dir/server"
echo "--- name server's messages ($(grep -c 'refused ' "$dir/ns") connections refused, e.g. the first):"
grep -v 'refused ' "$dir/ns"
grep -m1 'refused ' "$dir/ns"
[ "$rc" -eq 0 ] && grep -q ' No Errors' "$dir/client" || fail "the client job at site1 failed after the attack"
[ "$src" -eq 0 ] && grep -q ' No Errors' "$dir/server" || fail "the server job at site0 failed after the attack"
# Dropped with a message: unauthenticated ones refused, the four that
# proved the secret dropped.
grep -q 'port: refused a connection' "$dir/server" || fail "the port named no refused connection"
[ "$(grep -c 'port: dropped a connection' "$dir/server")" -ge 4 ] || fail "the port did not name the 4 authenticated hostile connections it dropped"
grep -q 'refused ' "$dir/ns" || fail "the name server named no refused connection"
[ "$(grep -c 'dropped ' "$dir/ns")" -ge 4 ] || fail "the name server did not name the 4 authenticated hostile connections it dropped"

kill -TERM "$nspid"
wait "$nspid"
nspid=
kill -TERM "$hpid" 2>/dev/null
wait "$hpid" 2>/dev/null
hpid=
# Namespaces of ours left behind (another job's, whose mpirun still
# runs, may come and go meanwhile).
left=$(ns_leaked "$before")
[ -z "$left" ] || fail "emulated hosts left behind: $left"
pgrep -f "$BUILD/tests/c/dynconnect" >/dev/null && fail "ranks left running"
echo "PASS: grid_hostile_dyn"
