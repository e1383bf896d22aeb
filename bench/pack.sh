#!/bin/sh
# pack.sh: MPI_Pack/MPI_Unpack throughput of bench/pack.c against gmpi and
# Debian's MPICH in the same run, with the ratio gmpi/MPICH (higher is
# better for gmpi). Usage: bench/pack.sh [build-dir]   (default: build)
set -e
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$build/bin/mpicc" -O2 -o "$out/pack_gmpi" "$here/pack.c"
mpicc.mpich -O2 -o "$out/pack_mpich" "$here/pack.c"
"$build/bin/mpirun" -n 1 "$out/pack_gmpi" > "$out/gmpi.txt"
mpiexec.mpich -n 1 "$out/pack_mpich" > "$out/mpich.txt"
printf '%-16s %-6s %10s %12s %12s %8s\n' type dir bytes gmpi_MB/s mpich_MB/s ratio
paste "$out/gmpi.txt" "$out/mpich.txt" | awk '{ printf "%-16s %-6s %10d %12.1f %12.1f %8.2f\n", $1, $2, $3, $6, $13, $6 / $13 }'
