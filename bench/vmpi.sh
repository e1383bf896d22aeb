#!/bin/bash
# vmpi.sh: vMPI against the vendor alone, in the same run. MPICH-G2's
# three small-message latency cases (specified, specified-pending,
# multimethod; bench/vmpi.c) and bandwidth (4 MiB) between two ranks of a
# vendor MPI machine: through gmpi + the vendor (a grid of that machine,
# 2 ranks, and one TCP host, 1 rank) and through the vendor alone (its
# mpicc and launcher, 2 ranks). Rounds alternate; the best round counts.
#
# usage: bench/vmpi.sh [-b BUILD] [-v ompi|mpich] [-n ITERS] [-R ROUNDS]
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../build vendor=ompi iters=20000 rounds=3
while getopts b:v:n:R: o; do
    case $o in
    b) build=$OPTARG ;;
    v) vendor=$OPTARG ;;
    n) iters=$OPTARG ;;
    R) rounds=$OPTARG ;;
    *) sed -n '2,/^set -u/p' "$0" | grep '^#' >&2; exit 2 ;;
    esac
done
build=$(cd "$build" && pwd) || exit 2
case $vendor in
ompi) lib=/usr/lib/x86_64-linux-gnu/libmpi.so.40 launcher=mpirun.openmpi cc=mpicc.openmpi
    run_vendor() { OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 300 mpirun.openmpi \
        --bind-to none --mca btl self,vader --mca pml ob1 -np 2 "$@"; } ;;
mpich) lib=/usr/lib/x86_64-linux-gnu/libmpich.so.12 launcher=mpiexec.mpich cc=mpicc.mpich
    run_vendor() { timeout 300 mpiexec.mpich -n 2 "$@"; } ;;
*) echo "vendor: ompi or mpich" >&2; exit 2 ;;
esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-vmpibench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$build/bin/mpicc" -O2 -o "$tmp/vmpi_gmpi" "$here/vmpi.c" || exit 1
$cc -O2 -o "$tmp/vmpi_vendor" "$here/vmpi.c" || exit 1
cat >"$tmp/grid.toml" <<GRID
[[site]]
name = "s"
  [[site.machine]]
  name = "vendor"
  procs = 2
  hosts = ["v0"]
  [site.machine.vmpi]
  lib = "$lib"
  launcher = "$launcher"
  [[site.machine]]
  name = "ws"
  hosts = ["w0"]
GRID
for r in $(seq "$rounds"); do
    "$build/bin/mpirun" --timeout 300 --grid "$tmp/grid.toml" "$tmp/vmpi_gmpi" "$iters" | sed 's/^/gmpi /'
    run_vendor "$tmp/vmpi_vendor" "$iters" | sed 's/^/vendor /'
done >"$tmp/all"
echo "vMPI ($vendor) vs $vendor alone; $rounds rounds, best; load $(cut -d' ' -f1-3 /proc/loadavg)"
awk '
    { key = $2; v = $3 + 0; better = ($2 == "bandwidth") ? (v > best[$1, key]) : (best[$1, key] == 0 || v < best[$1, key])
      if (better) best[$1, key] = v; unit[key] = $4; seen[key] = 1 }
    END {
        n = split("specified specified-pending multimethod bandwidth", ks, " ")
        printf "%-18s %12s %12s %10s\n", "case", "gmpi+vendor", "vendor", "diff"
        for (i = 1; i <= n; i++) { k = ks[i]; if (!seen[k]) continue
            g = best["gmpi", k]; v = best["vendor", k]
            d = (k == "bandwidth") ? sprintf("%+.1f%%", (g / v - 1) * 100) : sprintf("%+.2f us", g - v)
            printf "%-18s %9.3f %-2s %9.3f %-2s %10s\n", k, g, unit[k], v, unit[k], d }
    }' "$tmp/all"
