#!/bin/sh
# Symbol check: libmpi.so must export every MPI_/PMPI_/MPIX_/PMPIX_
# function and every data object and helper that libmpich.so.12 exports and
# MPICH's header lets a program reference; MPI_X must be weak and PMPI_X
# strong (profilers interpose MPI_X).
#
# usage: tests/abi/symbols.sh LIB   (or $GMPI_LIB)
# Environment: MPICH_LIB (default /usr/lib/x86_64-linux-gnu/libmpich.so.12).
# Exit status 0 when nothing is missing; otherwise the missing symbols are
# listed and the status is 1.
set -eu

lib=${1:-${GMPI_LIB:-}}
mpich_lib=${MPICH_LIB:-/usr/lib/x86_64-linux-gnu/libmpich.so.12}
if [ -z "$lib" ]; then
    echo "usage: $0 path/to/libmpi.so" >&2
    exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# MPICH's symbols, "name kind", keeping the API functions and the objects
# and helpers the header refers to (MPIR_*, the sentinels). QMPI_, MPII_
# (internal) and MPIR_Err_* (not referenced by the 4.0 header) are left out.
nm -D --defined-only "$mpich_lib" |
    awk '$3 ~ /^P?MPIX?_/ || $3 ~ /^MPIR_(C_|F08_|Dup_fn)/ {print $3}' | sort -u >"$work/want"
nm -D --defined-only "$lib" | awk '{print $3, $2}' | sort -u >"$work/have"

status=0
cut -d' ' -f1 "$work/have" | sort -u >"$work/have_names"
comm -23 "$work/want" "$work/have_names" >"$work/missing"
if [ -s "$work/missing" ]; then
    echo "symbols: missing from $lib ($(wc -l <"$work/missing")):"
    sed 's/^/  /' "$work/missing"
    status=1
fi

# Functions: PMPI_ strong (T), MPI_ weak (W).
awk '$1 ~ /^PMPIX?_/ && $2 == "T" {print $1}' "$work/have" | sort >"$work/pmpi"
awk '$1 ~ /^MPIX?_/ && $2 == "W" {print "P" $1}' "$work/have" | sort >"$work/mpi_as_p"
grep -E '^PMPIX?_' "$work/want" | while read -r p; do
    grep -qx "$p" "$work/pmpi" || echo "  $p is not a strong function"
    grep -qx "$p" "$work/mpi_as_p" || echo "  ${p#P} is not a weak function"
done >"$work/kinds"
# Data objects MPICH exports as data must be data here too.
nm -D --defined-only "$mpich_lib" | awk '$2 ~ /^[BDR]$/ && ($3 ~ /^P?MPIX?_/ || $3 ~ /^MPIR_/) {print $3}' |
    while read -r d; do
        grep -qE "^$d [BDRbdr]$" "$work/have" || echo "  $d is not a data object"
    done >>"$work/kinds"
if [ -s "$work/kinds" ]; then
    echo "symbols: wrong kind in $lib:"
    cat "$work/kinds"
    status=1
fi

if [ $status -eq 0 ]; then
    echo "symbols: all $(wc -l <"$work/want") MPICH symbols exported with the right kind"
fi
exit $status
