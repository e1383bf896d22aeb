#!/bin/bash
# fronts.sh: the three ABI fronts of gmpi side by side (issue 24): builds
# bench/mpibench.c once per front (build/bin/mpicc: MPICH ABI,
# build/openmpi/bin/mpicc: Open MPI ABI, build/bin/mpicc_abi: MPI-5
# standard ABI) and against Debian's MPICH and Open MPI, runs 8-byte
# latency and 1 MiB bandwidth at 2 ranks on each, alternating
# implementations round after round, and prints the medians with each
# front's ratio to the MPICH front (the fronts should be within 5 %).
# On a machine loaded by other work the medians swing with where each job
# lands; -x min takes each job's best repetition and the best round (the
# lowest latency, the highest bandwidth), what the code itself costs.
#
# usage: bench/fronts.sh [-b BUILD] [-R ROUNDS] [-s SCALE] [-x median|min]
#   -b DIR    gmpi build directory (default: <repo>/build)
#   -R K      rounds (default 3)
#   -s X      iteration scale passed to mpibench (default 1)
#   -x STAT   median (default) or min, per job and over the rounds
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../build rounds=3 scale=1 stat=median
while [ $# -gt 0 ]; do
    case $1 in
    -b) build=${2:?}; shift 2 ;;
    -R) rounds=${2:?}; shift 2 ;;
    -s) scale=${2:?}; shift 2 ;;
    -x) stat=${2:?}; shift 2 ;;
    *) sed -n '2,/^set -u/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "fronts.sh: -R wants a positive integer" >&2; exit 2; }
case $stat in median | min) ;; *) echo "fronts.sh: -x wants median or min" >&2; exit 2 ;; esac
build=$(cd "$build" 2>/dev/null && pwd) || { echo "fronts.sh: no build directory" >&2; exit 2; }
out=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-fronts.XXXXXX")
trap 'rm -rf "$out"' EXIT
src=$here/mpibench.c
mpirun=$build/bin/mpirun
root=
[ "$(id -u)" = 0 ] && root=--allow-run-as-root

names=(mpich-front ompi-front abi-front MPICH OpenMPI)
declare -A cc=([mpich-front]=$build/bin/mpicc [ompi-front]=$build/openmpi/bin/mpicc
    [abi-front]=$build/bin/mpicc_abi [MPICH]=mpicc.mpich [OpenMPI]=mpicc.openmpi)
declare -A launch=(
    [mpich-front]="$mpirun --bind-to none"
    [ompi-front]="env LD_LIBRARY_PATH=$build/openmpi/lib $mpirun --bind-to none -x LD_LIBRARY_PATH"
    [abi-front]="env LD_LIBRARY_PATH=$build/abi/lib $mpirun --bind-to none -x LD_LIBRARY_PATH"
    [MPICH]="mpiexec.mpich -bind-to none"
    [OpenMPI]="mpiexec.openmpi $root --oversubscribe --bind-to none")
avail=()
for n in "${names[@]}"; do
    if command -v "${cc[$n]}" >/dev/null && "${cc[$n]}" -O2 -Wno-stringop-overflow -o "$out/b.$n" "$src" >"$out/cc.$n" 2>&1; then
        avail+=("$n")
    else
        echo "# $n: cannot build (${cc[$n]}); its column shows '-'" >&2
    fi
done
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$rounds"); do
    for n in "${avail[@]}"; do
        for b in "-m 8 latency" "-m 1048576 bw"; do
            # shellcheck disable=SC2086 # word lists
            timeout -k 5 300 ${launch[$n]} -n 2 "$out/b.$n" -r 3 -x "$stat" -s "$scale" $b >>"$out/res.$n" 2>>"$out/err.$n" </dev/null ||
                echo "# $n: '$b' failed in round $r (see below)" >&2
        done
    done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg); $stat of 3 repetitions per job, $stat over $rounds rounds"
printf '%-12s %14s %14s %12s %12s\n' impl "lat 8 B (us)" "bw 1 MiB MB/s" "lat/front" "bw/front"
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
lowest() { sort -g | head -1; }
highest() { sort -g | tail -1; }
lo=median hi=median
[ "$stat" = min ] && lo=lowest hi=highest
declare -A lat bw
for n in "${names[@]}"; do
    f=$out/res.$n
    [ -f "$f" ] || continue
    lat[$n]=$(awk '$1 == "latency" && $2 == 8 { print $3 }' "$f" | $lo)
    bw[$n]=$(awk '$1 == "bw" && $2 == 1048576 { print $3 }' "$f" | $hi)
done
for n in "${names[@]}"; do
    l=${lat[$n]:--} w=${bw[$n]:--} rl=- rw=-
    if [ "$l" != - ] && [ -n "${lat[mpich-front]:-}" ]; then
        rl=$(awk -v a="$l" -v b="${lat[mpich-front]}" 'BEGIN { printf "%.2f", a / b }')
    fi
    if [ "$w" != - ] && [ -n "${bw[mpich-front]:-}" ]; then
        rw=$(awk -v a="$w" -v b="${bw[mpich-front]}" 'BEGIN { printf "%.2f", a / b }')
    fi
    printf '%-12s %14s %14s %12s %12s\n' "$n" "$l" "$w" "$rl" "$rw"
done
for n in "${avail[@]}"; do
    [ -s "$out/err.$n" ] && { echo "# stderr of $n:"; head -c 1500 "$out/err.$n" | sed 's/^/    | /'; }
done
exit 0
