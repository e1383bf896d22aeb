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
# With -c each gmpi front also runs bench/callcost.c: the ns one 8-byte
# MPI_Send and one MPI_Recv of a message already there cost the calling
# core (best and median batch), which the CPU placement of the two ranks,
# most of a ping-pong's time, does not move.
#
# usage: bench/fronts.sh [-b BUILD] [-B BASE] [-R ROUNDS] [-s SCALE]
#                        [-x median|min] [-i LIST] [-e VAR=VALUE]... [-c]
#   -b DIR    gmpi build directory (default: <repo>/build)
#   -B DIR    another gmpi build (before/after): its three fronts run in
#             the same rounds, as rows mpich-front-B, ompi-front-B, abi-front-B
#   -R K      rounds (default 3)
#   -s X      iteration scale passed to mpibench (default 1)
#   -x STAT   median (default) or min, per job and over the rounds
#   -i LIST   which of mpich-front,ompi-front,abi-front,MPICH,OpenMPI
#             (default all; the -B rows follow the fronts chosen)
#   -e V=X    set V=X in the environment of every job, the same for all
#             (repeatable); e.g. -e GMPI_RMA_MIN=32K -e GMPI_PUSH_MIN=16K
#             fixes gmpi's protocol for 1 MiB, which the shm device's
#             startup copy probe otherwise picks per launch (the bandwidth
#             column then swings 10-25 GB/s between launches)
#   -c        add the callcost columns (gmpi's fronts only)
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../build base= rounds=3 scale=1 stat=median only= calls=0
envs=()
while [ $# -gt 0 ]; do
    case $1 in
    -b) build=${2:?}; shift 2 ;;
    -B) base=${2:?}; shift 2 ;;
    -R) rounds=${2:?}; shift 2 ;;
    -s) scale=${2:?}; shift 2 ;;
    -x) stat=${2:?}; shift 2 ;;
    -i) only=${2:?}; shift 2 ;;
    -e) [[ ${2:-} =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || { echo "fronts.sh: -e wants VAR=VALUE" >&2; exit 2; }
        envs+=("$2"); shift 2 ;;
    -c) calls=1; shift ;;
    *) sed -n '2,/^set -u/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "fronts.sh: -R wants a positive integer" >&2; exit 2; }
case $stat in median | min) ;; *) echo "fronts.sh: -x wants median or min" >&2; exit 2 ;; esac
build=$(cd "$build" 2>/dev/null && pwd) || { echo "fronts.sh: no build directory" >&2; exit 2; }
if [ -n "$base" ]; then
    base=$(cd "$base" 2>/dev/null && pwd) || { echo "fronts.sh: no base build directory (-B)" >&2; exit 2; }
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-fronts.XXXXXX")
trap 'rm -rf "$out"' EXIT
src=$here/mpibench.c
root=
[ "$(id -u)" = 0 ] && root=--allow-run-as-root

declare -A cc launch
# gmpi_front NAME BUILD: how to build and launch a gmpi front.
gmpi_front() {
    local n=$1 b=$2 m=$2/bin/mpirun
    case $n in
    mpich-front*) cc[$n]=$b/bin/mpicc launch[$n]="$m --bind-to none" ;;
    ompi-front*)
        cc[$n]=$b/openmpi/bin/mpicc
        launch[$n]="env LD_LIBRARY_PATH=$b/openmpi/lib $m --bind-to none -x LD_LIBRARY_PATH" ;;
    abi-front*)
        cc[$n]=$b/bin/mpicc_abi
        launch[$n]="env LD_LIBRARY_PATH=$b/abi/lib $m --bind-to none -x LD_LIBRARY_PATH" ;;
    esac
}
fronts=(mpich-front ompi-front abi-front)
names=()
for n in "${fronts[@]}" MPICH OpenMPI; do
    [ -z "$only" ] || [[ ,$only, == *,$n,* ]] && names+=("$n")
done
[ ${#names[@]} -gt 0 ] || { echo "fronts.sh: -i names none of mpich-front,ompi-front,abi-front,MPICH,OpenMPI" >&2; exit 2; }
for n in "${fronts[@]}"; do
    gmpi_front "$n" "$build"
done
if [ -n "$base" ]; then
    all=()
    for n in "${names[@]}"; do
        all+=("$n")
        case $n in *-front) gmpi_front "$n-B" "$base" && all+=("$n-B") ;; esac
    done
    names=("${all[@]}")
fi
cc[MPICH]=mpicc.mpich cc[OpenMPI]=mpicc.openmpi
launch[MPICH]="mpiexec.mpich -bind-to none"
launch[OpenMPI]="mpiexec.openmpi $root --oversubscribe --bind-to none"
# The -e settings: every launcher passes its environment to the ranks
# (gmpi's mpirun and MPICH's hydra all of it; Open MPI's mpiexec what -x
# names).
xs=
for kv in "${envs[@]}"; do
    export "${kv?}"
    xs+=" -x ${kv%%=*}"
done
launch[OpenMPI]+=$xs
avail=()
for n in "${names[@]}"; do
    ok=0
    if command -v "${cc[$n]}" >/dev/null && "${cc[$n]}" -O2 -Wno-stringop-overflow -o "$out/b.$n" "$src" >"$out/cc.$n" 2>&1; then
        ok=1
        if [ $calls = 1 ] && [[ $n == *-front* ]] && ! "${cc[$n]}" -O2 -o "$out/c.$n" "$here/callcost.c" >>"$out/cc.$n" 2>&1; then
            ok=0
        fi
    fi
    if [ $ok = 1 ]; then
        avail+=("$n")
    else
        echo "# $n: cannot build (${cc[$n]}); its row shows '-'" >&2
    fi
done
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)${envs[*]:+; environment: ${envs[*]}}"
for r in $(seq "$rounds"); do
    for n in "${avail[@]}"; do
        for b in "-m 8 latency" "-m 1048576 bw"; do
            # shellcheck disable=SC2086 # word lists
            timeout -k 5 300 ${launch[$n]} -n 2 "$out/b.$n" -r 3 -x "$stat" -s "$scale" $b >>"$out/res.$n" 2>>"$out/err.$n" </dev/null ||
                echo "# $n: '$b' failed in round $r (see below)" >&2
        done
        if [ $calls = 1 ] && [ -x "$out/c.$n" ]; then
            # shellcheck disable=SC2086
            timeout -k 5 300 ${launch[$n]} -n 2 "$out/c.$n" >>"$out/res.$n" 2>>"$out/err.$n" </dev/null ||
                echo "# $n: callcost failed in round $r (see below)" >&2
        fi
    done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg); $stat of 3 repetitions per job, $stat over $rounds rounds"
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
lowest() { sort -g | head -1; }
highest() { sort -g | tail -1; }
lo=median hi=median
[ "$stat" = min ] && lo=lowest hi=highest
declare -A lat bw snd rcv
for n in "${names[@]}"; do
    f=$out/res.$n
    [ -f "$f" ] || continue
    lat[$n]=$(awk '$1 == "latency" && $2 == 8 { print $3 }' "$f" | $lo)
    bw[$n]=$(awk '$1 == "bw" && $2 == 1048576 { print $3 }' "$f" | $hi)
    # callcost: the best batch of each launch, then $stat over the rounds.
    snd[$n]=$(awk '$1 == "send" { print $3 }' "$f" | $lo)
    rcv[$n]=$(awk '$1 == "recv" { print $3 }' "$f" | $lo)
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
if [ $calls = 1 ]; then
    printf '%-14s %14s %14s %12s %12s %10s %10s\n' impl "lat 8 B (us)" "bw 1 MiB MB/s" "lat/front" "bw/front" "send ns" "recv ns"
else
    printf '%-14s %14s %14s %12s %12s\n' impl "lat 8 B (us)" "bw 1 MiB MB/s" "lat/front" "bw/front"
fi
ref=mpich-front
[ -n "${lat[$ref]:-}" ] || ref=
for n in "${names[@]}"; do
    l=${lat[$n]:--} w=${bw[$n]:--} rl=- rw=-
    if [ "$l" != - ] && [ -n "$ref" ]; then rl=$(ratio "$l" "${lat[$ref]}"); fi
    if [ "$w" != - ] && [ -n "${bw[mpich-front]:-}" ]; then rw=$(ratio "$w" "${bw[mpich-front]}"); fi
    if [ $calls = 1 ]; then
        printf '%-14s %14s %14s %12s %12s %10s %10s\n' "$n" "$l" "$w" "$rl" "$rw" "${snd[$n]:--}" "${rcv[$n]:--}"
    else
        printf '%-14s %14s %14s %12s %12s\n' "$n" "$l" "$w" "$rl" "$rw"
    fi
done
for n in "${avail[@]}"; do
    [ -s "$out/err.$n" ] && { echo "# stderr of $n:"; head -c 1500 "$out/err.$n" | sed 's/^/    | /'; }
done
exit 0
