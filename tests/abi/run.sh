#!/bin/sh
# ABI check: every constant, type and layout of gmpi's mpi.h against
# MPICH's, plus the compatibility of every prototype.
#
# usage: tests/abi/run.sh [LIB]
#   LIB (or $GMPI_LIB) is gmpi's libmpi.so; without it the script builds
#   one with `go build -buildmode=c-shared ./capi`.
# Environment: MPICH_INCLUDE (default /usr/include/x86_64-linux-gnu/mpich),
#   MPICH_LIB (default /usr/lib/x86_64-linux-gnu/libmpich.so.12), CC.
# Exit status 0 when the headers agree; otherwise the differences are
# printed and the status is 1.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
mpich_inc=${MPICH_INCLUDE:-/usr/include/x86_64-linux-gnu/mpich}
mpich_lib=${MPICH_LIB:-/usr/lib/x86_64-linux-gnu/libmpich.so.12}
cc=${CC:-cc}
lib=${1:-${GMPI_LIB:-}}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ -z "$lib" ]; then
    lib=$work/libmpi.so
    (cd "$root" && go build -buildmode=c-shared -o "$lib" ./capi)
fi
case $lib in /*) ;; *) lib=$(pwd)/$lib ;; esac

(cd "$root" && go run ./tests/abi/probegen -I "$mpich_inc" -o "$work")

status=0

# 1. Values, sizes and layouts: the same probe against both headers.
build() { # build NAME INCLUDE LIB
    if ! $cc -std=c11 -w -I"$2" "$work/probe.c" -o "$work/probe_$1" "$3" -ldl 2>"$work/$1.err"; then
        echo "abi: the probe does not compile against the $1 header:"
        grep error "$work/$1.err" | head -50
        exit 1
    fi
}
build mpich "$mpich_inc" "$mpich_lib"
build gmpi "$root/include" "$lib"
"$work/probe_mpich" >"$work/mpich.txt"
"$work/probe_gmpi" >"$work/gmpi.txt"
if ! diff -u "$work/mpich.txt" "$work/gmpi.txt" >"$work/probe.diff"; then
    echo "abi: constants, types or layouts differ (--- MPICH, +++ gmpi):"
    cat "$work/probe.diff"
    status=1
fi

# 2. Prototypes, function types and external objects: MPICH's declarations
#    must be compatible with ours.
if ! $cc -std=c11 -fsyntax-only -I"$root/include" "$work/compat.c" 2>"$work/compat.err"; then
    echo "abi: declarations incompatible with MPICH's:"
    grep -E "error|differs" "$work/compat.err" | head -100
    status=1
fi

# 3. A program using the sentinels and predefined callbacks compiles
#    cleanly against our header, as C and as C++.
for std in c99 c11; do
    if ! $cc -std=$std -Wall -Wextra -Werror -O2 -I"$root/include" -c "$root/tests/abi/usage.c" -o "$work/usage.o"; then
        echo "abi: tests/abi/usage.c does not compile as $std"
        status=1
    fi
done
if command -v c++ >/dev/null 2>&1; then
    if ! c++ -x c++ -Wall -Werror -I"$root/include" -c "$root/tests/abi/usage.c" -o "$work/usage_cxx.o"; then
        echo "abi: tests/abi/usage.c does not compile as C++"
        status=1
    fi
fi

if [ $status -eq 0 ]; then
    echo "abi: $(wc -l <"$work/mpich.txt") probe lines identical; $(grep -c SAME "$work/compat.c") declarations compatible"
fi
exit $status
