#!/bin/bash
# grid_hostile.sh BUILD: hostile connections on the emulated 2-site x
# 2-host grid of examples/grid-2x2.toml (issue 25). A job of 4 ranks loops
# over ring exchanges, barriers and broadcasts (tests/c/barrierloop) with
# its ranks' tcp listeners in a known port range; mid-job, an attacker in
# the namespace of the emulated host s1h1 (another namespace than three of
# the ranks', across the wide-area link for two) opens, to every rank's
# listener, a connection sending garbage, a half-open one, one sending a
# byte every 250 ms and 200 silent ones (more than the 128 a port's auth
# gate keeps waiting), with internal/hostile/attack. Every hostile
# connection must be dropped within GMPI_AUTH_TIMEOUT (1 s) plus slack
# (20 s in all: the attacker dials one connection per 20 ms wide-area
# round trip), the job must still be running after the attack, and end
# with " No Errors". Under --emulate mpirun has no network port (the
# ranks reach its PMI server over inherited sockets), so the ranks'
# listeners are what the grid exposes there; a second job, on a grid with
# a private site, has its relay attacked the same way (below). Needs
# root; nothing may be left running, no namespace of ours.
set -u
BUILD=$(cd "${1:?usage: $0 BUILD}" && pwd)
. "$(dirname "$0")/lib.sh"
need_build
[ "$(id -u)" -eq 0 ] || skip "--emulate needs root (network namespaces)"
command -v nsenter >/dev/null || skip "nsenter (util-linux) is missing"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
GRID=$SRC/examples/grid-2x2.toml
GO=$(command -v go || echo /usr/local/go/bin/go)
dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-hostile.XXXXXX")
jpid=
cleanup() {
    [ -n "$jpid" ] && kill -TERM "$jpid" 2>/dev/null && wait "$jpid" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
before=$(ns_entries)

(cd "$SRC" && "$GO" build -o "$dir/attack" ./internal/hostile/attack) || fail "building the attacker"

PORTS=41000-41003
GMPI_TCP_PORT_RANGE=$PORTS GMPI_AUTH_TIMEOUT=1 "$BUILD/bin/mpirun" --timeout 200 \
    -x GMPI_TCP_PORT_RANGE -x GMPI_AUTH_TIMEOUT --grid "$GRID" --emulate --emulate-share "$dir/grid" \
    "$BUILD/tests/c/barrierloop" 20 >"$dir/job.out" 2>&1 </dev/null &
jpid=$!
for _ in $(seq 600); do
    [ -s "$dir/grid" ] && break
    kill -0 "$jpid" 2>/dev/null || break
    sleep 0.1
done
[ -s "$dir/grid" ] || { cat "$dir/job.out"; fail "the job shared no grid"; }
# host NAME SITE ADDR PID NETNS
targets=$(awk '$1 == "host" { printf "%s:'$PORTS' ", $4 }' "$dir/grid")
apid=$(awk '$1 == "host" && $2 == "s1h1" { print $5 }' "$dir/grid")
[ -n "$apid" ] && [ -n "$targets" ] || { cat "$dir/grid"; fail "no host s1h1 in the shared grid"; }
echo "attacking $targets from s1h1's namespace"
nsenter --target "$apid" --net -- "$dir/attack" -want 4 -flood 200 -within 20s $targets >"$dir/attack.out" 2>&1
arc=$?
cat "$dir/attack.out"
running=0
kill -0 "$jpid" 2>/dev/null && running=1
wait "$jpid"
rc=$?
jpid=
cat "$dir/job.out"
[ $arc -eq 0 ] || fail "the attack: some hostile connection was not dropped (exit $arc)"
[ "$(grep -c 'hostile connections dropped' "$dir/attack.out")" -eq 4 ] || fail "not every rank's listener was attacked"
[ $running -eq 1 ] || fail "the job had ended before the attack did (not mid-job: exit $rc)"
[ $rc -eq 0 ] && grep -q ' No Errors' "$dir/job.out" || fail "the job under attack failed: exit $rc"

# 2. The relay: on examples/grid-firewall.toml site2 is private, reached
# through the relay mpirun starts on its gateway s2h0. Mid-job, an
# attacker at site0 (s0h0's namespace, across the wide-area link) attacks
# the relay's port; the job, whose traffic between site0 and s2h1, s2h2
# goes through that relay, must end with " No Errors".
FWGRID=$SRC/examples/grid-firewall.toml
rm -f "$dir/grid"
GMPI_AUTH_TIMEOUT=1 "$BUILD/bin/mpirun" --timeout 200 -x GMPI_AUTH_TIMEOUT --grid "$FWGRID" --emulate \
    --emulate-share "$dir/grid" "$BUILD/tests/c/barrierloop" 20 >"$dir/relayjob.out" 2>&1 </dev/null &
jpid=$!
for _ in $(seq 600); do
    [ -s "$dir/grid" ] && break
    kill -0 "$jpid" 2>/dev/null || break
    sleep 0.1
done
[ -s "$dir/grid" ] || { cat "$dir/relayjob.out"; fail "the relay job shared no grid"; }
gw=$(awk '$1 == "host" && $2 == "s2h0" { print $5, $4 }' "$dir/grid")
apid=$(awk '$1 == "host" && $2 == "s0h0" { print $5 }' "$dir/grid")
rport=
for _ in $(seq 300); do
    # The relay is the mpirun process listening in the gateway's namespace.
    rport=$(nsenter --target "${gw% *}" --net ss -ltnpH 2>/dev/null | awk '/"mpirun"/ { n = split($4, a, ":"); print a[n]; exit }')
    [ -n "$rport" ] && break
    kill -0 "$jpid" 2>/dev/null || break
    sleep 0.1
done
[ -n "$rport" ] && [ -n "$apid" ] || { cat "$dir/relayjob.out"; fail "no relay listening on s2h0"; }
echo "attacking the relay at ${gw#* }:$rport from s0h0's namespace"
nsenter --target "$apid" --net -- "$dir/attack" -want 1 -flood 200 -within 20s "${gw#* }:$rport" >"$dir/rattack.out" 2>&1
arc=$?
cat "$dir/rattack.out"
running=0
kill -0 "$jpid" 2>/dev/null && running=1
wait "$jpid"
rc=$?
jpid=
cat "$dir/relayjob.out"
[ $arc -eq 0 ] || fail "the relay attack: some hostile connection was not dropped (exit $arc)"
[ $running -eq 1 ] || fail "the relay job had ended before the attack did (exit $rc)"
[ $rc -eq 0 ] && grep -q ' No Errors' "$dir/relayjob.out" || fail "the job under attack at its relay failed: exit $rc"

left=$(ns_leaked "$before")
[ -z "$left" ] || fail "emulated hosts left behind: $left"
pgrep -f "$BUILD/bin/mpirun __relay" >/dev/null && fail "a relay left running"
pgrep -f "$BUILD/tests/c/barrierloop" >/dev/null && fail "ranks left running"
echo "PASS: grid_hostile"
