#!/bin/bash
# coll.sh: builds bench/coll.c against gmpi, Debian's MPICH and Debian's
# Open MPI in one invocation, runs the same collective benchmarks on each
# at 2 and 4 ranks (4 ranks oversubscribe a 2-core machine) and prints one
# table with the ratio gmpi/best per cell. See bench/README.md.
#
# usage: bench/coll.sh [options] [OP]...   (default: every op of coll.c)
#   -b, --build DIR     gmpi build directory (default: <repo>/build)
#   -n, --np LIST       comma-separated process counts (default 2,4)
#   -r, --reps N        repetitions per launch (default 3)
#   -R, --rounds K      rounds (default 3): every launch is repeated K times,
#                       alternating implementations, and the table reduces
#                       over all K (like run.sh)
#   -x, --stat S        median (default) or min
#   -s, --scale X       multiply every iteration count by X (default 1)
#   -i, --impl LIST     comma-separated subset of gmpi,mpich,openmpi
#   -e, --env VAR=VAL   set VAR for the gmpi runs (repeatable; e.g.
#                       -e GMPI_COLL=^shm to measure without coll/shm)
#   -o, --out DIR       keep the raw outputs in DIR
#   -t, --timeout S     limit of each launch in seconds (default 600)
#
# OP: barrier bcast reduce allreduce allgather alltoall gather scatter scan
# reduce_scatter_block iallreduce. An op an implementation does not
# provide shows "n/a". gmpi/best is gmpi / min(MPICH, Open MPI) for times
# (> 1: gmpi is slower) and gmpi / max(...) for iallreduce_pct (overlap in
# percent; < 1: gmpi overlaps less). Exit status: 0 when every launch
# succeeded, 1 otherwise, 2 on bad usage or when gmpi cannot be built.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../build
nps=2,4 reps=3 rounds=3 stat=median scale=1 impls=gmpi,mpich,openmpi keep= limit=600
ops=() genv=()
usage() {
    sed -n '2,/^set -u/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case $1 in
    -b | --build) build=${2:?}; shift 2 ;;
    -n | --np) nps=${2:?}; shift 2 ;;
    -r | --reps) reps=${2:?}; shift 2 ;;
    -R | --rounds) rounds=${2:?}; shift 2 ;;
    -x | --stat) stat=${2:?}; shift 2 ;;
    -s | --scale) scale=${2:?}; shift 2 ;;
    -i | --impl) impls=${2:?}; shift 2 ;;
    -e | --env) genv+=("${2:?}"); shift 2 ;;
    -o | --out) keep=${2:?}; shift 2 ;;
    -t | --timeout) limit=${2:?}; shift 2 ;;
    -h | --help) usage ;;
    barrier | bcast | reduce | allreduce | allgather | alltoall | gather | scatter | scan | \
        reduce_scatter_block | iallreduce) ops+=("$1"); shift ;;
    *) echo "coll.sh: unknown argument: $1" >&2; usage ;;
    esac
done
case $stat in median | min) ;; *) echo "coll.sh: --stat must be median or min" >&2; exit 2 ;; esac
for v in "$reps" "$rounds" "$limit"; do
    [[ $v =~ ^[1-9][0-9]*$ ]] || { echo "coll.sh: not a positive integer: $v" >&2; exit 2; }
done
[[ $nps =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || { echo "coll.sh: bad --np: $nps" >&2; exit 2; }
build=$(cd "$build" 2>/dev/null && pwd) || { echo "coll.sh: no build directory $build" >&2; exit 2; }
[ -x "$build/bin/mpicc" ] && [ -x "$build/bin/mpirun" ] || { echo "coll.sh: $build has no bin/mpicc or bin/mpirun" >&2; exit 2; }

out=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-coll.XXXXXX")
trap 'rm -rf "$out"' EXIT
names=(gmpi mpich openmpi)
declare -A label=([gmpi]=gmpi [mpich]=MPICH [openmpi]="Open MPI")
declare -A launch=() why=()
want() { [[ ,$impls, == *,$1,* ]]; }
status=0

# run IMPL NP OUTFILE ARGS...
run() {
    local impl=$1 np=$2 of=$3 envs=()
    shift 3
    [ "$impl" = gmpi ] && envs=("${genv[@]}")
    # shellcheck disable=SC2086 # launch[] holds a word list
    env "${envs[@]}" timeout -k 10 "$limit" ${launch[$impl]} -n "$np" "$out/coll.$impl" \
        -r "$reps" -x "$stat" -s "$scale" "$@" >"$of" 2>"$of.err" </dev/null
}

echo "# building $here/coll.c"
for impl in "${names[@]}"; do
    want "$impl" || { why[$impl]="not selected"; continue; }
    case $impl in
    gmpi) cc=$build/bin/mpicc; base="$build/bin/mpirun --timeout $limit --bind-to none" ;;
    mpich) cc=mpicc.mpich; base="mpiexec.mpich -bind-to none" ;;
    openmpi)
        cc=mpicc.openmpi
        base="mpirun.openmpi --oversubscribe --bind-to none"
        [ "$(id -u)" = 0 ] && base="$base --allow-run-as-root"
        ;;
    esac
    if ! command -v "$cc" >/dev/null || ! "$cc" -O2 -o "$out/coll.$impl" "$here/coll.c" >"$out/cc.err" 2>&1; then
        cat "$out/cc.err" >&2 2>/dev/null
        why[$impl]="MISSING: $cc not installed or failed"
        [ "$impl" = gmpi ] && exit 2
        continue
    fi
    # A short probe; Open MPI falls back to vader without cross-memory
    # attach when its defaults fail in a container (see run.sh).
    extras=("")
    [ "$impl" = openmpi ] && extras=("" "--mca btl self,vader --mca btl_vader_single_copy_mechanism none")
    ok=
    for extra in "${extras[@]}"; do
        launch[$impl]="$base${extra:+ $extra}"
        if run "$impl" 2 "$out/probe" -r 1 -s 0.001 bcast allreduce && grep -q '^allreduce 1048576 ' "$out/probe"; then
            ok=1
            break
        fi
    done
    if [ -z "$ok" ]; then
        head -c 2000 "$out/probe.err" | sed 's/^/    | /' >&2
        why[$impl]="MISSING: probe run failed"
        unset "launch[$impl]"
        [ "$impl" = gmpi ] && { echo "coll.sh: gmpi cannot run the benchmark" >&2; exit 2; }
        continue
    fi
    echo "# ${label[$impl]}: launched as: ${launch[$impl]} -n NP"
done
for impl in "${names[@]}"; do
    [ -n "${why[$impl]:-}" ] && echo "# ${label[$impl]}: ${why[$impl]}; its column shows '-'"
done
[ ${#genv[@]} -gt 0 ] && echo "# gmpi environment: ${genv[*]}"
echo "# ncpu $(nproc), np $nps, reps $reps, rounds $rounds, statistic $stat, scale $scale"
echo "# load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg)"

for round in $(seq "$rounds"); do
    for np in ${nps//,/ }; do
        for impl in "${names[@]}"; do
            [ -n "${launch[$impl]:-}" ] || continue
            f=$out/$impl.$np.$round
            if ! run "$impl" "$np" "$f" "${ops[@]}"; then
                echo "# ${label[$impl]} at $np ranks (round $round): FAILED; partial results" >&2
                head -c 2000 "$f.err" | sed 's/^/    | /' >&2
                status=1
            fi
            grep -v '^#' "$f" | sed "s/^/$np /" >>"$out/$impl.all"
        done
    done
done

echo
echo "== collective latency, usec per call (slowest rank), $stat over rounds; iallreduce_pct: overlap %"
for impl in "${names[@]}"; do [ -f "$out/$impl.all" ] || : >"$out/$impl.all"; done
awk -v stat="$stat" '
    function reduce(k, key,    c, i, j, t, a) {
        c = cnt[k, key]
        for (i = 1; i <= c; i++) a[i] = all[k, key, i] + 0
        for (i = 1; i <= c; i++)
            for (j = i + 1; j <= c; j++)
                if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        if (stat == "min") return low[key] ? a[1] : a[c]
        return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
    }
    NF == 4 {
        key = $1 SUBSEP $2 SUBSEP $3
        if (!(key in seen)) { seen[key] = 1; order[n++] = key; low[key] = $2 != "iallreduce_pct" }
        if ($4 == "n/a") { na[k, key] = 1; next }
        all[k, key, ++cnt[k, key]] = $4
    }
    END {
        printf "%3s %-22s %8s %10s %10s %10s %10s\n", "np", "op", "bytes", "gmpi", "MPICH", "Open MPI", "gmpi/best"
        for (i = 0; i < n; i++) {
            key = order[i]
            split(key, f, SUBSEP)
            line = sprintf("%3s %-22s %8s", f[1], f[2], f[3])
            best = ""
            for (kk = 1; kk <= 3; kk++) {
                if ((kk, key) in cnt) {
                    v[kk] = reduce(kk, key)
                    line = line sprintf(" %10.3f", v[kk])
                    if (kk > 1 && (best == "" || (low[key] ? v[kk] < best : v[kk] > best))) best = v[kk]
                } else {
                    v[kk] = ""
                    line = line sprintf(" %10s", ((kk, key) in na) ? "n/a" : "-")
                }
            }
            r = (v[1] != "" && best != "" && best > 0) ? sprintf("%.2f", v[1] / best) : "-"
            print line sprintf(" %10s", r)
        }
    }' k=1 "$out/gmpi.all" k=2 "$out/mpich.all" k=3 "$out/openmpi.all"

if [ -n "$keep" ]; then
    mkdir -p "$keep" && cp "$out"/*.all "$keep"/ && echo "# raw outputs in $keep"
fi
exit $status
