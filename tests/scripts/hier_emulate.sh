#!/bin/bash
# hier_emulate.sh BUILD: coll/hier on the emulated uneven 3-site grid
# (tests/grids/hier-3site-emu.toml: 3+2+1 ranks, 5 ms and 4 MB/s between
# sites) and on examples/grid-2x2.toml (2 sites, 10 ms, 1 MB/s):
# tests/c/hiercoll in its quick form (world and an interleaved
# communicator, blocking and nonblocking), once with the associativity
# assertion. Needs root.
set -u
BUILD=$(cd "${1:?usage: $0 BUILD}" && pwd)
. "$(dirname "$0")/lib.sh"
need_build
[ "$(id -u)" -eq 0 ] || skip "--emulate needs root"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-hieremu.XXXXXX")
trap 'rm -rf "$dir"' EXIT

run() { # NAME GRIDFILE [VAR=VAL...]
    local name=$1 grid=$2
    shift 2
    local xs=()
    for v in HIERCOLL_QUICK=1 "$@"; do xs+=(-x "${v%%=*}"); done
    env HIERCOLL_QUICK=1 "$@" "$BUILD/bin/mpirun" --timeout 250 "${xs[@]}" --grid "$grid" --emulate \
        "$BUILD/tests/c/hiercoll" >"$dir/$name.out" 2>&1 </dev/null
    local rc=$?
    echo "== $name: exit $rc"
    cat "$dir/$name.out"
    [ $rc -eq 0 ] && grep -q ' No Errors' "$dir/$name.out" || fail "$name: hiercoll on the emulated grid failed"
}
run 3site "$SRC/tests/grids/hier-3site-emu.toml"
run 3site-assoc "$SRC/tests/grids/hier-3site-emu.toml" GMPI_ASSOCIATIVE=1
run 2x2 "$SRC/examples/grid-2x2.toml" GMPI_HIER_SPLIT_MIN=1024
# The emulated hosts share this machine's CPUs: with more ranks than
# CPUs, mpirun makes the ranks yield (GMPI_OVERSUBSCRIBED=1), unless the
# user chose otherwise.
want=
n=$("$BUILD/bin/mpirun" --timeout 60 --grid "$SRC/tests/grids/hier-3site-emu.toml" --emulate sh -c 'echo x' </dev/null | grep -c x)
[ "$n" -gt "$(nproc)" ] && want=1
got=$("$BUILD/bin/mpirun" --timeout 60 --grid "$SRC/tests/grids/hier-3site-emu.toml" --emulate \
    sh -c 'echo "v=$GMPI_OVERSUBSCRIBED"' </dev/null | sort -u)
[ "$got" = "v=$want" ] || fail "emulated ranks ($n, $(nproc) CPUs): GMPI_OVERSUBSCRIBED: got '$got', want 'v=$want'"
got=$("$BUILD/bin/mpirun" --timeout 60 -x GMPI_OVERSUBSCRIBED=0 --grid "$SRC/tests/grids/hier-3site-emu.toml" --emulate \
    sh -c 'echo "v=$GMPI_OVERSUBSCRIBED"' </dev/null | sort -u)
[ "$got" = "v=0" ] || fail "-x GMPI_OVERSUBSCRIBED=0 under --emulate: got '$got'"
echo "PASS: hier_emulate"
