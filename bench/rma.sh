#!/bin/bash
# rma.sh: builds bench/rma.c against gmpi, Debian's MPICH and Debian's
# Open MPI in one invocation, runs it with 2 ranks on this host on each,
# alternating implementations round by round, and prints one table:
# put/get latency (8 B, usec per operation and its fence or flush) and
# bandwidth (64 KiB, 1 MiB, MB/s) with fence and with lock/flush, and
# accumulate latency, with the ratio gmpi/best (latency: <= 1 is better
# or equal; bandwidth: >= 1).
#
# usage: bench/rma.sh [options]
#   -b, --build DIR     gmpi build directory (default: <repo>/build)
#   -r, --reps N        repetitions per launch (default 3, median)
#   -R, --rounds K      rounds (default 3): median over the rounds' medians
#   -s, --scale X       multiply every iteration count by X (default 1)
#   -i, --impl LIST     comma-separated subset of gmpi,mpich,openmpi
#   -t, --timeout S     limit of each launch in seconds (default 600)
#   -a, --alt LIBDIR    another gmpi libmpi.so directory (e.g. a copy of an
#                       older build's lib/): column "gmpi -a" runs the same
#                       gmpi binary with it (LD_LIBRARY_PATH), in the same
#                       rounds, for before/after in one run
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../build
reps=3 rounds=3 scale=1 impls=gmpi,mpich,openmpi limit=600 alib=
usage() {
    sed -n '2,/^set -u/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case $1 in
    -b | --build) build=${2:?}; shift 2 ;;
    -r | --reps) reps=${2:?}; shift 2 ;;
    -R | --rounds) rounds=${2:?}; shift 2 ;;
    -s | --scale) scale=${2:?}; shift 2 ;;
    -i | --impl) impls=${2:?}; shift 2 ;;
    -t | --timeout) limit=${2:?}; shift 2 ;;
    -a | --alt) alib=${2:?}; shift 2 ;;
    -h | --help) usage ;;
    *) echo "rma.sh: unknown argument: $1" >&2; usage ;;
    esac
done
for v in "$reps" "$rounds" "$limit"; do
    [[ $v =~ ^[1-9][0-9]*$ ]] || { echo "rma.sh: not a positive integer: $v" >&2; exit 2; }
done
build=$(cd "$build" 2>/dev/null && pwd) || { echo "rma.sh: no build directory $build" >&2; exit 2; }
if [ -n "$alib" ]; then
    alib=$(cd "$alib" 2>/dev/null && pwd) && [ -e "$alib/libmpi.so.12" ] ||
        { echo "rma.sh: -a: no libmpi.so.12 in ${alib:-the directory}" >&2; exit 2; }
fi
[ -x "$build/bin/mpicc" ] && [ -x "$build/bin/mpirun" ] || { echo "rma.sh: $build has no bin/mpicc or bin/mpirun" >&2; exit 2; }

out=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-rma.XXXXXX")
trap 'rm -rf "$out"' EXIT
names=(gmpi gmpi_a mpich openmpi)
declare -A label=([gmpi]=gmpi [gmpi_a]="gmpi -a" [mpich]=MPICH [openmpi]="Open MPI")
declare -A launch=() why=()
want() { [[ ,$impls, == *,$1,* ]]; }
status=0
run() {
    local bin=$out/rma.$1
    [ "$1" = gmpi_a ] && bin=$out/rma.gmpi
    timeout -k 10 "$limit" ${launch[$1]} -n 2 "$bin" -r "$reps" -s "$3" >"$2" 2>"$2.err" </dev/null
}

echo "# building $here/rma.c"
for impl in "${names[@]}"; do
    if [ "$impl" = gmpi_a ]; then
        [ -n "$alib" ] && [ -n "${launch[gmpi]:-}" ] || continue
        launch[$impl]="env LD_LIBRARY_PATH=$alib ${launch[gmpi]}"
        if ! run "$impl" "$out/probe" 0.01 || ! grep -q '^acc_fence ' "$out/probe"; then
            head -c 2000 "$out/probe.err" | sed 's/^/    | /' >&2
            echo "rma.sh: gmpi with $alib cannot run the benchmark" >&2
            exit 2
        fi
        echo "# gmpi -a: launched as: ${launch[$impl]} -n 2"
        continue
    fi
    want "$impl" || { why[$impl]="not selected"; continue; }
    case $impl in
    gmpi) cc=$build/bin/mpicc; launch[$impl]="$build/bin/mpirun --timeout $limit --bind-to none" ;;
    mpich) cc=mpicc.mpich; launch[$impl]="mpiexec.mpich -bind-to none" ;;
    openmpi)
        cc=mpicc.openmpi
        launch[$impl]="mpirun.openmpi --oversubscribe --bind-to none"
        [ "$(id -u)" = 0 ] && launch[$impl]="${launch[$impl]} --allow-run-as-root"
        ;;
    esac
    if ! command -v "$cc" >/dev/null || ! "$cc" -O2 -o "$out/rma.$impl" "$here/rma.c" >"$out/cc.err" 2>&1; then
        cat "$out/cc.err" >&2 2>/dev/null
        why[$impl]="MISSING: $cc not installed or failed"
        unset "launch[$impl]"
        [ "$impl" = gmpi ] && exit 2
        continue
    fi
    if ! run "$impl" "$out/probe" 0.01 || ! grep -q '^acc_fence ' "$out/probe"; then
        head -c 2000 "$out/probe.err" | sed 's/^/    | /' >&2
        why[$impl]="MISSING: probe run failed"
        unset "launch[$impl]"
        [ "$impl" = gmpi ] && { echo "rma.sh: gmpi cannot run the benchmark" >&2; exit 2; }
        continue
    fi
    echo "# ${label[$impl]}: launched as: ${launch[$impl]} -n 2"
done
for impl in "${names[@]}"; do
    [ -n "${why[$impl]:-}" ] && echo "# ${label[$impl]}: ${why[$impl]}; its column shows '-'"
done
echo "# ncpu $(nproc), reps $reps, rounds $rounds, scale $scale"
echo "# load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$rounds"); do
    for impl in "${names[@]}"; do
        [ -n "${launch[$impl]:-}" ] || continue
        f=$out/$impl.$round
        if ! run "$impl" "$f" "$scale"; then
            echo "# ${label[$impl]} (round $round): FAILED; partial results" >&2
            head -c 2000 "$f.err" | sed 's/^/    | /' >&2
            status=1
        fi
        cat "$f" >>"$out/$impl.all"
    done
done
echo "# load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "== RMA, 2 ranks: latency usec (8 B rows, lower is better), bandwidth MB/s (other rows, higher is better), median"
for impl in "${names[@]}"; do [ -f "$out/$impl.all" ] || : >"$out/$impl.all"; done
awk '
    function med(k, key,    c, i, j, t, a) {
        c = cnt[k, key]
        for (i = 1; i <= c; i++) a[i] = all[k, key, i] + 0
        for (i = 1; i <= c; i++)
            for (j = i + 1; j <= c; j++)
                if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
    }
    NF == 3 {
        key = $1 SUBSEP $2
        if (!(key in seen)) { seen[key] = 1; order[n++] = key }
        all[k, key, ++cnt[k, key]] = $3
    }
    END {
        # columns: 1 gmpi, 4 gmpi -a (when given), 2 MPICH, 3 Open MPI
        ncol = alt ? 4 : 3
        col[1] = 1; col[2] = alt ? 4 : 2; col[3] = alt ? 2 : 3; col[4] = 3
        name[1] = "gmpi"; name[2] = "MPICH"; name[3] = "Open MPI"; name[4] = "gmpi -a"
        hdr = sprintf("%-10s %8s", "op", "bytes")
        for (c = 1; c <= ncol; c++) hdr = hdr sprintf(" %12s", name[col[c]])
        hdr = hdr sprintf(" %10s", "gmpi/best")
        if (alt) hdr = hdr sprintf(" %10s", "-a/best")
        print hdr
        for (i = 0; i < n; i++) {
            key = order[i]
            split(key, f, SUBSEP)
            low = f[2] <= 8
            line = sprintf("%-10s %8s", f[1], f[2])
            best = ""
            for (c = 1; c <= ncol; c++) {
                kk = col[c]
                if ((kk, key) in cnt) {
                    v[kk] = med(kk, key)
                    line = line sprintf(" %12.3f", v[kk])
                    if ((kk == 2 || kk == 3) && (best == "" || (low ? v[kk] < best : v[kk] > best))) best = v[kk]
                } else {
                    v[kk] = ""
                    line = line sprintf(" %12s", "-")
                }
            }
            r = (v[1] != "" && best != "" && best > 0) ? sprintf("%.2f", v[1] / best) : "-"
            line = line sprintf(" %10s", r)
            if (alt) line = line sprintf(" %10s", (v[4] != "" && best != "" && best > 0) ? sprintf("%.2f", v[4] / best) : "-")
            print line
        }
    }' alt="$([ -n "$alib" ] && echo 1 || echo 0)" k=1 "$out/gmpi.all" k=2 "$out/mpich.all" k=3 "$out/openmpi.all" k=4 "$out/gmpi_a.all"
exit $status
