#!/bin/bash
# grid_firewall.sh BUILD: MPI programs on the emulated grid of
# examples/grid-firewall.toml (issue 23): site1 behind a firewall that
# admits inbound TCP only on ports 40000-40015 (gmpi told to use that
# range there), site2 on a private network reached only through the
# relay mpirun starts on its gateway s2h0. The point-to-point and
# collective C tests and the MPICH-G2 topology example must pass; the
# same job with the port range or the relay switched off must end within
# a bounded time with a diagnosis naming both hosts, the address tried
# and the setting that fixes it; a relay killed mid-job must end the job
# naming it; nothing may be left running. Needs root.
set -u
BUILD=$(cd "${1:?usage: $0 BUILD}" && pwd)
. "$(dirname "$0")/lib.sh"
need_build
[ "$(id -u)" -eq 0 ] || skip "--emulate needs root"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
GRID=$SRC/examples/grid-firewall.toml
dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-fw.XXXXXX")
trap 'rm -rf "$dir"' EXIT
before=$(ns_entries)

# What goes where, without running anything.
"$BUILD/bin/mpirun" --grid "$GRID" --show-topology >"$dir/topo.out" 2>&1 || { cat "$dir/topo.out"; fail "--show-topology"; }
cat "$dir/topo.out"
grep -q 'site0 <-> site1: 4 host pair(s) direct' "$dir/topo.out" || fail "--show-topology: site0-site1 should be direct"
grep -q 'site0 <-> site2: 2 host pair(s) direct, 4 host pair(s) via relay on s2h0' "$dir/topo.out" ||
    fail "--show-topology: site0-site2 should go through the relay on s2h0 for s2h1 and s2h2"
grep -q 'port range 40000:40015' "$dir/topo.out" || fail "--show-topology: no port range for site1"

run() { # NAME PROGRAM... (on ${RUNGRID:-$GRID})
    local name=$1
    shift
    local t0
    t0=$(now)
    TOPOATTR_PRINT=1 HIERCOLL_QUICK=1 "$BUILD/bin/mpirun" --timeout 250 -x TOPOATTR_PRINT -x HIERCOLL_QUICK \
        --grid "${RUNGRID:-$GRID}" --emulate "$@" >"$dir/$name.out" 2>&1 </dev/null
    local rc=$?
    echo "== $name: exit $rc after $(elapsed "$t0") s"
    cat "$dir/$name.out"
    [ $rc -eq 0 ] && grep -q ' No Errors' "$dir/$name.out" || fail "$name on the firewalled grid: exit $rc"
}
run topoattr "$BUILD/tests/c/topoattr"
got=$(grep '^topo ' "$dir/topoattr.out" | sort | awk '{ print $2, $3, $4, $5 }' | tr '\n' ' ')
want='0 3 0 0 1 3 0 0 2 3 0 1 3 3 0 1 4 3 0 2 5 3 0 2 6 3 0 2 '
[ "$got" = "$want" ] || fail "topology attributes: $got, want $want"
run g2topo "$BUILD/tests/c/g2topo"
run ring "$BUILD/tests/c/ring"
run p2p_semantics "$BUILD/tests/c/p2p_semantics"
run collectives "$BUILD/tests/c/collectives"
run hiercoll "$BUILD/tests/c/hiercoll"

# Switched off: the job must end on its own (tcp timeout 4 s) with the
# diagnosis, well before mpirun's timeout.
diagnose() { # NAME SED-SCRIPT WANT...
    local name=$1 script=$2
    shift 2
    sed -e "$script" "$GRID" >"$dir/$name.toml"
    local t0
    t0=$(now)
    GMPI_TCP_TIMEOUT=4 "$BUILD/bin/mpirun" --timeout 100 -x GMPI_TCP_TIMEOUT --grid "$dir/$name.toml" --emulate \
        "$BUILD/tests/c/ring" >"$dir/$name.out" 2>&1 </dev/null
    local rc=$?
    echo "== $name: exit $rc after $(elapsed "$t0") s"
    cat "$dir/$name.out"
    [ $rc -ne 0 ] || fail "$name: the job exited 0"
    [ $rc -ne 124 ] || fail "$name: the job hung until mpirun's timeout"
    for w in "$@"; do
        grep -q -- "$w" "$dir/$name.out" || fail "$name: no '$w' in the diagnosis"
    done
}
# Egress rules: site1 also lets connections out only from ports
# 40100-40115 (emulated), and gmpi is told to dial from there
# (source_port_range): everything still runs; without the setting the
# job ends with the diagnosis naming it.
egress='s/^firewall = .*/&\nsource_port_range = "40100:40115"\negress = "40100:40115"/'
sed -e "$egress" "$GRID" >"$dir/egress.toml"
"$BUILD/bin/mpirun" --grid "$dir/egress.toml" --show-topology >"$dir/topo2.out" 2>&1 || { cat "$dir/topo2.out"; fail "--show-topology (egress)"; }
grep -q 'source port range 40100:40115, .*egress only from source ports 40100:40115' "$dir/topo2.out" ||
    { cat "$dir/topo2.out"; fail "--show-topology: no source port range or egress rule for site1"; }
RUNGRID=$dir/egress.toml run egress_p2p "$BUILD/tests/c/p2p_semantics"
RUNGRID=$dir/egress.toml run egress_hiercoll "$BUILD/tests/c/hiercoll"
diagnose no-source-range 's/^firewall = .*/&\negress = "40100:40115"/' 'cannot reach host' 'GMPI_TCP_SOURCE_PORT_RANGE'
diagnose no-port-range '/^port_range/d' 'cannot reach host "s1h' 'at 10\.77\.2\.1[01]:' 'GMPI_TCP_PORT_RANGE'
diagnose no-relay 's/^gateway = .*/&\nrelay = false/' 'cannot reach host "s2h[12]"\|host "s2h[12]" (rank [56]) cannot reach' 'private = true'

# The relay dies mid-job: the job ends, naming it.
t0=$(now)
"$BUILD/bin/mpirun" --timeout 100 --grid "$GRID" --emulate "$BUILD/tests/c/barrierloop" 60 >"$dir/relaykill.out" 2>&1 </dev/null &
mp=$!
relay=
for _ in $(seq 1 300); do
    relay=$(pgrep -P "$mp" -f '__relay -site site2' | head -1)
    [ -n "$relay" ] && break
    sleep 0.1
done
[ -n "$relay" ] || { kill "$mp"; fail "relay kill: no relay process under mpirun $mp"; }
sleep 8 # the ranks are in their loop of barriers and ring exchanges
kill -KILL "$relay"
wait "$mp"
rc=$?
echo "== relay killed: exit $rc after $(elapsed "$t0") s"
cat "$dir/relaykill.out"
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "relay kill: exit $rc"
grep -q 'relay of site site2 on host s2h0' "$dir/relaykill.out" || fail "relay kill: no message naming the relay"

# Ours only: namespaces that appeared and whose emulator has ended.
left=$(ns_leaked "$before")
[ -z "$left" ] || fail "emulated hosts left behind: $left"
pgrep -f "$BUILD/tests/c/(barrierloop|ring)" >/dev/null && fail "ranks left running"
echo "PASS: grid_firewall"
