#!/bin/bash
# dyn.sh: the cost of dynamic processes (issue 19), gmpi against Open MPI
# and MPICH in one invocation: MPI_Comm_accept/connect + one message each
# way + MPI_Comm_disconnect between two processes of one job (the port
# name passed inside the job, so no name server is needed by anyone), and
# MPI_Comm_spawn of 1 and of 4 children (spawn, one reply, disconnect).
# Prints one table, median microseconds per round, and gmpi/best.
#
# usage: bench/dyn.sh [options]
#   -b, --build DIR     gmpi build directory (default: <repo>/build)
#   -n, --rounds N      connect rounds per launch (default 50; spawn: N/10, at least 3)
#   -R, --repeat K      launches per implementation and case, alternating (default 3);
#                       the table shows the median of the K launches
#   -i, --impl LIST     comma-separated subset of gmpi,mpich,openmpi
#   -t, --timeout S     limit of each launch in seconds (default 300)
#
# Debian's MPICH 4.0 (ch4:ucx) refuses MPI_Open_port and MPI_Comm_spawn
# on this machine; its column then says why. Exit 0 when gmpi ran.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../build
rounds=50 repeat=3 impls=gmpi,mpich,openmpi limit=300
while [ $# -gt 0 ]; do
    case $1 in
    -b | --build) build=${2:?}; shift 2 ;;
    -n | --rounds) rounds=${2:?}; shift 2 ;;
    -R | --repeat) repeat=${2:?}; shift 2 ;;
    -i | --impl) impls=${2:?}; shift 2 ;;
    -t | --timeout) limit=${2:?}; shift 2 ;;
    *) sed -n '2,/^set -u/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    esac
done
build=$(cd "$build" 2>/dev/null && pwd) || { echo "dyn.sh: no build directory $build" >&2; exit 2; }
srounds=$((rounds / 10)); [ "$srounds" -lt 3 ] && srounds=3
out=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-dyn.XXXXXX")
trap 'rm -rf "$out"' EXIT
names=(gmpi mpich openmpi)
declare -A label=([gmpi]=gmpi [mpich]=MPICH [openmpi]="Open MPI") launch=() why=()
want() { [[ ,$impls, == *,$1,* ]]; }

for impl in "${names[@]}"; do
    want "$impl" || { why[$impl]="not selected"; continue; }
    case $impl in
    gmpi) cc=$build/bin/mpicc; launch[$impl]="$build/bin/mpirun --timeout $limit" ;;
    mpich) cc=mpicc.mpich; launch[$impl]="mpiexec.mpich" ;;
    openmpi)
        cc=mpicc.openmpi
        # Spawned children need slots: oversubscribe.
        launch[$impl]="mpirun.openmpi --oversubscribe --bind-to none --mca btl self,vader,tcp"
        [ "$(id -u)" = 0 ] && launch[$impl]="${launch[$impl]} --allow-run-as-root"
        ;;
    esac
    if ! command -v "$cc" >/dev/null || ! "$cc" -O2 -o "$out/dyn.$impl" "$here/dyn.c" >"$out/cc.err" 2>&1; then
        why[$impl]="$cc missing or failed"
        unset "launch[$impl]"
        [ "$impl" = gmpi ] && { cat "$out/cc.err" >&2; exit 2; }
    fi
done

# run IMPL CASE NP ARGS...: one launch; sets val to the number or "".
run() {
    local impl=$1 case=$2 np=$3
    shift 3
    # shellcheck disable=SC2086 # launch[] holds a word list
    OMPI_MCA_rmaps_base_oversubscribe=1 timeout -k 10 "$limit" ${launch[$impl]} -n "$np" \
        "$out/dyn.$impl" "$@" >"$out/o" 2>"$out/e" </dev/null
    local rc=$?
    val=
    if grep -q ' No Errors' "$out/o"; then
        val=$(awk -v c="$case" '$1 == c { print $NF }' "$out/o" | head -1)
    else
        # Counted per implementation and case; the first error is kept.
        local tag="${label[$impl]} $*"
        nfail[$tag]=$((${nfail[$tag]:-0} + 1))
        [ -n "${first[$tag]:-}" ] || first[$tag]="exit $rc: $(head -c 400 "$out/e" | tr '\n' ' ')"
    fi
}

cases=("connect" "spawn1" "spawn4")
echo "# ncpu $(nproc), connect rounds $rounds, spawn rounds $srounds, launches $repeat (median)"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A res=() nfail=() first=()
for k in $(seq "$repeat"); do
    for impl in "${names[@]}"; do
        [ -n "${launch[$impl]:-}" ] || continue
        run "$impl" connect 2 connect "$rounds"; res[$impl,connect]+=" $val"
        run "$impl" spawn 1 spawn 1 "$srounds"; res[$impl,spawn1]+=" $val"
        run "$impl" spawn 1 spawn 4 "$srounds"; res[$impl,spawn4]+=" $val"
    done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
med() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'; }
printf '%-10s %14s %14s %14s %10s\n' case gmpi MPICH "Open MPI" gmpi/best
for c in "${cases[@]}"; do
    g=$(echo "${res[gmpi,$c]:-}" | med) m=$(echo "${res[mpich,$c]:-}" | med) o=$(echo "${res[openmpi,$c]:-}" | med)
    ratio=$(awk -v g="$g" -v m="$m" -v o="$o" 'BEGIN { b = ""; if (m != "-") b = m; if (o != "-" && (b == "" || o < b)) b = o
        if (g == "-" || b == "") print "-"; else printf "%.2f", g / b }')
    printf '%-10s %14s %14s %14s %10s\n' "$c" "$g" "$m" "$o" "$ratio"
done
echo "# microseconds per round (median of rounds, then of launches)"
for impl in "${names[@]}"; do
    [ -n "${why[$impl]:-}" ] && echo "# ${label[$impl]}: ${why[$impl]}"
done
for tag in "${!nfail[@]}"; do
    echo "# $tag: ${nfail[$tag]} of $repeat launches failed; first: ${first[$tag]}"
done
[ -n "${res[gmpi,connect]// /}" ]
