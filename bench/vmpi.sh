#!/bin/bash
# vmpi.sh: vMPI against the vendor alone, in the same run. MPICH-G2's
# three small-message latency cases (specified, specified-pending,
# multimethod; bench/vmpi.c) and bandwidth (4 MiB) between two ranks of a
# vendor MPI machine: through gmpi + the vendor (a grid of that machine,
# 2 ranks, and one TCP host, 1 rank) and through the vendor alone (its
# mpicc and launcher, 2 ranks). Rounds alternate; the best round counts
# (and the median is shown: the machine is often loaded); CASE/batch is
# the best batch of 100 round trips inside a round (bench/vmpi.c). -B BASE also
# runs another gmpi build (before/after a change) in the same rounds.
#
# usage: bench/vmpi.sh [-b BUILD] [-B BASE] [-v ompi|mpich] [-n ITERS] [-R ROUNDS]
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../build base= vendor=ompi iters=20000 rounds=3
while getopts b:B:v:n:R: o; do
    case $o in
    b) build=$OPTARG ;;
    B) base=$(cd "$OPTARG" && pwd) || exit 2 ;;
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
if [ -n "$base" ]; then
    "$base/bin/mpicc" -O2 -o "$tmp/vmpi_base" "$here/vmpi.c" || exit 1
fi
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
    if [ -n "$base" ]; then
        "$base/bin/mpirun" --timeout 300 --grid "$tmp/grid.toml" "$tmp/vmpi_base" "$iters" | sed 's/^/base /'
    fi
    run_vendor "$tmp/vmpi_vendor" "$iters" | sed 's/^/vendor /'
done >"$tmp/all"
echo "vMPI ($vendor) vs $vendor alone; $rounds rounds of $iters; best (median); load $(cut -d' ' -f1-3 /proc/loadavg)"
[ -n "$base" ] && echo "base: $base"
sort -k1,2 -k3,3g "$tmp/all" | awk -v base="$base" '
    { k = $1 SUBSEP $2; v[k, ++n[k]] = $3 + 0; unit[$2] = $4; seen[$2] = 1 }
    function pick(w, key, med,   k, c) { # best or median of who w
        k = w SUBSEP key; c = n[k]; if (!c) return -1
        if (med) return (c % 2) ? v[k, (c + 1) / 2] : (v[k, c / 2] + v[k, c / 2 + 1]) / 2
        return (key == "bandwidth") ? v[k, c] : v[k, 1] }
    function diff(key, g, r) {
        return (key == "bandwidth") ? sprintf("%+.1f%%", (g / r - 1) * 100) : sprintf("%+.2f us", g - r) }
    END {
        m = split("specified specified-pending multimethod specified/batch specified-pending/batch multimethod/batch bandwidth", ks, " ")
        if (base != "")
            printf "%-23s %-21s %-21s %-21s %-20s %-20s\n", "case", "gmpi+vendor", "base", "vendor", "diff (median)", "base diff (median)"
        else
            printf "%-23s %-21s %-21s %-20s\n", "case", "gmpi+vendor", "vendor", "diff (median)"
        for (i = 1; i <= m; i++) { k = ks[i]; if (!seen[k]) continue
            g = pick("gmpi", k, 0); gm = pick("gmpi", k, 1); r = pick("vendor", k, 0); rm = pick("vendor", k, 1)
            line = sprintf("%-23s %8.3f (%8.3f) %-2s %8.3f (%8.3f) %-2s", k, g, gm, unit[k], r, rm, unit[k])
            if (base != "") {
                b = pick("base", k, 0); bm = pick("base", k, 1)
                line = sprintf("%-23s %8.3f (%8.3f) %-2s %8.3f (%8.3f) %-2s %8.3f (%8.3f) %-2s", k, g, gm, unit[k], b, bm, unit[k], r, rm, unit[k])
            }
            line = line sprintf(" %9s (%9s)", diff(k, g, r), diff(k, gm, rm))
            if (base != "") line = line sprintf(" %9s (%9s)", diff(k, b, r), diff(k, bm, rm))
            print line }
    }'
