#!/bin/bash
# mpicc.sh BUILD: build/bin/mpicc compiles and links a test against our
# header and library (with an rpath), and the program runs under mpirun.
set -u
BUILD=$(cd "${1:?usage: $0 BUILD}" && pwd)
. "$(dirname "$0")/lib.sh"
need_build
src=$(cd "$(dirname "$0")/../c" && pwd)

dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-mpicc.XXXXXX")
trap 'rm -rf "$dir"' EXIT

show=$("$BUILD/bin/mpicc" -show x.c)
echo "mpicc -show x.c: $show"
case "$show" in
*"-I$BUILD/include"*"-L$BUILD/lib"*"-lmpi"*) ;;
*) fail "mpicc -show does not name $BUILD/include and $BUILD/lib" ;;
esac

"$BUILD/bin/mpicc" -c -o "$dir/mtest.o" "$src/mtest.c" || fail "mpicc -c mtest.c"
"$BUILD/bin/mpicc" -O2 -o "$dir/hello" "$src/hello.c" "$dir/mtest.o" || fail "mpicc hello.c"
readelf -d "$dir/hello" | grep -E 'RPATH|RUNPATH' | grep -q "$BUILD/lib" ||
    fail "hello has no rpath to $BUILD/lib"
# The program must find our library, not another libmpi.
lib=$(ldd "$dir/hello" | awk '$1 ~ /^libmpi/ { print $3 }')
echo "hello links $lib"
case "$lib" in
"$BUILD/lib/"*) ;;
*) fail "hello resolves libmpi to '$lib', not $BUILD/lib" ;;
esac

out=$("$BUILD/bin/mpirun" -n 2 --timeout 60 "$dir/hello" 2>&1 </dev/null)
rc=$?
echo "$out"
[ "$rc" -eq 0 ] || fail "hello built by mpicc exited $rc"
echo "$out" | grep -q ' No Errors' || fail "hello built by mpicc did not print No Errors"
echo "PASS: mpicc"
