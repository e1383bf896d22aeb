#!/bin/bash
# grid_hetero.sh BUILD: a heterogeneous grid (issue 21) on this computer:
# examples/grid-hetero.toml, machine x86 (this computer's architecture, 2
# ranks) and machine z (s390x, 2 ranks, run by qemu-s390x-static). Builds
# the library and mpicc for s390x (make cross ARCH=s390x into
# BUILD/s390x), compiles tests/c/hetero.c for both, and runs it under the
# grid (local launcher: loopback TCP; as root also --emulate). Skipped
# when the cross compiler, qemu (tests/scripts/prereqs.sh installs them as
# root) or the s390x build (make cross ARCH=s390x) is missing.
set -u
BUILD=$(cd "${1:?usage: $0 BUILD}" && pwd)
SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
need_build
command -v qemu-s390x-static >/dev/null || skip "qemu-s390x-static is not installed (Debian: qemu-user-static)"
command -v s390x-linux-gnu-gcc >/dev/null || skip "s390x-linux-gnu-gcc is not installed (Debian: gcc-s390x-linux-gnu, libc6-dev-s390x-cross)"
[ "$(uname -m)" = x86_64 ] || skip "the grid file's x86 machine is this computer's architecture only on x86_64"
dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-hetero.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# The cross build compiles Go's standard library for s390x: `make test`
# makes it (make cross ARCH=s390x BUILD=...) when the cross compiler and
# qemu are installed; run alone, the test skips without it.
[ ! -e "$BUILD/s390x/FAILED" ] || fail "the s390x build failed (make cross ARCH=s390x BUILD=$BUILD)"
[ -e "$BUILD/s390x/lib/libmpi.so" ] && [ -x "$BUILD/s390x/bin/mpicc" ] ||
    skip "no s390x build in $BUILD/s390x (run: make cross ARCH=s390x BUILD=$BUILD)"
for prog in hetero g2topo; do
    "$BUILD/bin/mpicc" -O1 -o "$dir/$prog" "$SRC/tests/c/$prog.c" "$SRC/tests/c/mtest.c" -lm ||
        fail "mpicc $prog.c"
    "$BUILD/s390x/bin/mpicc" -O1 -o "$dir/$prog.s390x" "$SRC/tests/c/$prog.c" "$SRC/tests/c/mtest.c" -lm ||
        fail "s390x mpicc $prog.c"
done
file "$dir/hetero.s390x" 2>/dev/null | grep -q 'IBM S/390' || [ ! -x /usr/bin/file ] ||
    fail "the s390x program is not an s390x executable"

run() { # NAME PROG ARGS...: run PROG (and PROG.s390x) under the grid, pass on " No Errors"
    local name=$1 prog=$2
    shift 2
    local t0
    t0=$(now)
    "$BUILD/bin/mpirun" --timeout 300 --grid "$SRC/examples/grid-hetero.toml" "$@" "$dir/$prog" \
        >"$dir/$name.out" 2>&1 </dev/null
    local rc=$?
    cat "$dir/$name.out"
    echo "$name: $(elapsed "$t0") s"
    [ $rc -eq 0 ] && grep -q ' No Errors' "$dir/$name.out" || fail "$prog under the grid ($name): exit $rc"
    # hetero.c prints each rank's byte order: x86 ranks 0-1, s390x 2-3.
    [ "$prog" != hetero ] || grep -q 'byte orders: LLBB' "$dir/$name.out" ||
        fail "hetero ($name) did not run on two representations"
}

# The local launcher: both machines on this computer over loopback TCP;
# as root the emulated grid too (each machine in its own namespace).
run local hetero
run g2topo g2topo
if [ "$(id -u)" -eq 0 ]; then
    run emulate hetero --emulate
fi
echo "PASS"
