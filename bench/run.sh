#!/bin/bash
# run.sh: builds bench/mpibench.c against gmpi, Debian's MPICH and Debian's
# Open MPI in one invocation, runs the same benchmarks on each and prints
# one table per metric with the ratio gmpi/best. See bench/README.md.
#
# usage: bench/run.sh [options] [latency|bw|bibw|rate|ring]...   (default: all)
#   -b, --build DIR     gmpi build directory (default: <repo>/build)
#   -r, --reps N        repetitions per launch (default 3)
#   -R, --rounds K      rounds (default 3): every benchmark runs K times on
#                       each implementation, alternating, and the table
#                       reduces over all K launches, so a change of machine
#                       state mid-run hits every column alike
#   -x, --stat S        median (default) or min: how repetitions and rounds
#                       are reduced (min: the best, lowest time or highest rate)
#   -s, --scale X       multiply every iteration count by X (default 1)
#   -m, --max BYTES     largest message size (default 4194304)
#   -i, --impl LIST     comma-separated subset of gmpi,mpich,openmpi
#   -p, --pin           pin rank r to CPU r mod ncpu with taskset, for every
#                       implementation alike (default: no pinning at all)
#   -o, --out DIR       keep the raw outputs of every run in DIR
#   -t, --timeout S     limit of each launch in seconds (default 600)
#
# gmpi is required; a missing or unusable MPICH or Open MPI is reported and
# its column shows "-". Exit status: 0 when every launch that was attempted
# succeeded, 1 otherwise, 2 on bad usage or if gmpi cannot be built.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../build
reps=3 rounds=3 stat=median scale=1 max=4194304 impls=gmpi,mpich,openmpi pin=0 keep= limit=600
benches=()

usage() {
    sed -n '2,/^set -u/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case $1 in
    -b | --build) build=${2:?}; shift 2 ;;
    -r | --reps) reps=${2:?}; shift 2 ;;
    -R | --rounds) rounds=${2:?}; shift 2 ;;
    -x | --stat) stat=${2:?}; shift 2 ;;
    -s | --scale) scale=${2:?}; shift 2 ;;
    -m | --max) max=${2:?}; shift 2 ;;
    -i | --impl) impls=${2:?}; shift 2 ;;
    -p | --pin) pin=1; shift ;;
    -o | --out) keep=${2:?}; shift 2 ;;
    -t | --timeout) limit=${2:?}; shift 2 ;;
    -h | --help) usage ;;
    latency | bw | bibw | rate | ring) benches+=("$1"); shift ;;
    *) echo "run.sh: unknown argument: $1" >&2; usage ;;
    esac
done
[ ${#benches[@]} -eq 0 ] && benches=(latency bw bibw rate ring)
case $stat in median | min) ;; *) echo "run.sh: --stat must be median or min" >&2; exit 2 ;; esac
for v in "$reps" "$rounds" "$max" "$limit"; do
    [[ $v =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: not a positive integer: $v" >&2; exit 2; }
done
build=$(cd "$build" 2>/dev/null && pwd) || { echo "run.sh: no build directory $build" >&2; exit 2; }

out=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT
src=$here/mpibench.c
ncpu=$(nproc)
status=0
names=(gmpi mpich openmpi)
declare -A label=([gmpi]=gmpi [mpich]=MPICH [openmpi]="Open MPI")
declare -A launch=()  # impl -> launcher command line, without -n
declare -A why=()     # impl -> why it is missing

want() { [[ ,$impls, == *,$1,* ]]; }

# The pin wrapper: every launcher exports the rank (PMI_RANK for gmpi and
# MPICH's hydra, OMPI_COMM_WORLD_RANK for Open MPI).
wrap=()
if [ "$pin" = 1 ]; then
    command -v taskset >/dev/null || { echo "run.sh: --pin needs taskset" >&2; exit 2; }
    wrap=(sh -c 'r=${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-0}}; exec taskset -c $((r % '"$ncpu"')) "$@"' pin)
fi

# run IMPL NP OUTFILE ARGS...: one launch of that implementation's binary.
run() {
    local impl=$1 np=$2 of=$3
    shift 3
    # shellcheck disable=SC2086 # launch[] holds a word list
    timeout -k 10 "$limit" ${launch[$impl]} -n "$np" "${wrap[@]}" "$out/mpibench.$impl" \
        -r "$reps" -x "$stat" -s "$scale" -m "$max" "$@" >"$of" 2>"$of.err" </dev/null
}

# probe IMPL: a short run of latency and bw up to the largest size, whose
# data the benchmark checks; prints why it failed.
probe() {
    local impl=$1 rc
    timeout -k 10 120 ${launch[$impl]} -n 2 "${wrap[@]}" "$out/mpibench.$impl" -r 1 -s 0.01 \
        -m "$max" latency bw >"$out/probe.out" 2>"$out/probe.err" </dev/null
    rc=$?
    if [ $rc -ne 0 ]; then
        [ $rc -eq 124 ] && echo "timed out after 120 s" || echo "exit status $rc"
        return 1
    fi
    if ! grep -q "^bw $max " "$out/probe.out"; then
        echo "incomplete output"
        return 1
    fi
    # Open MPI's vader reports failed cross-memory attach but may go on.
    if grep -qiE 'process_vm_readv|Read -1|errno *=|single.copy' "$out/probe.err"; then
        echo "errors on stderr"
        return 1
    fi
}

report_failure() {
    head -c 2000 "$out/probe.err" | sed 's/^/    | /' >&2
}

# Compile and probe each implementation.
echo "# building $src"
if ! [ -x "$build/bin/mpicc" ] || ! [ -x "$build/bin/mpirun" ]; then
    echo "run.sh: $build has no bin/mpicc or bin/mpirun (build gmpi first)" >&2
    exit 2
fi
cflags=(-O2 -Wno-stringop-overflow)
for impl in "${names[@]}"; do
    want "$impl" || { why[$impl]="SKIPPED: not selected with --impl"; continue; }
    case $impl in
    gmpi)
        cc=$build/bin/mpicc
        launch[$impl]="$build/bin/mpirun --timeout $limit --bind-to none"
        version=$("$build/bin/mpirun" --version | head -1)
        ;;
    mpich)
        if ! command -v mpicc.mpich >/dev/null || ! command -v mpiexec.mpich >/dev/null; then
            why[$impl]="MISSING: not installed (mpicc.mpich or mpiexec.mpich missing; apt-get install mpich)"
            continue
        fi
        cc=mpicc.mpich
        launch[$impl]="mpiexec.mpich -bind-to none"
        version="MPICH $(mpichversion 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*//p')"
        ;;
    openmpi)
        if ! command -v mpicc.openmpi >/dev/null || ! command -v mpiexec.openmpi >/dev/null; then
            why[$impl]="MISSING: not installed (mpicc.openmpi or mpiexec.openmpi missing; apt-get install openmpi-bin libopenmpi-dev)"
            continue
        fi
        cc=mpicc.openmpi
        base="mpiexec.openmpi --oversubscribe --bind-to none"
        [ "$(id -u)" = 0 ] && base="$base --allow-run-as-root"
        launch[$impl]=$base
        version="Open MPI $(mpiexec.openmpi --version 2>/dev/null | sed -n '1s/.* //p')"
        ;;
    esac
    if ! "$cc" "${cflags[@]}" -o "$out/mpibench.$impl" "$src" >"$out/cc.err" 2>&1; then
        cat "$out/cc.err" >&2
        why[$impl]="MISSING: $cc failed"
        [ "$impl" = gmpi ] && { echo "run.sh: cannot build against gmpi" >&2; exit 2; }
        unset "launch[$impl]"
        continue
    fi
    if [ "$impl" = openmpi ]; then
        # Containers may forbid the shared-memory transports' defaults;
        # try the default first, then vader only, then vader without
        # cross-memory attach, and keep the first that runs cleanly.
        ok=
        for extra in "" "--mca btl self,vader" \
            "--mca btl self,vader --mca btl_vader_single_copy_mechanism none"; do
            launch[$impl]="$base${extra:+ $extra}"
            if res=$(probe "$impl"); then
                ok=1
                break
            fi
            echo "# Open MPI probe with '${extra:-default transports}' failed: $res" >&2
            report_failure
        done
        if [ -z "$ok" ]; then
            why[$impl]="MISSING: no transport setting works (see the probe errors above)"
            unset "launch[$impl]"
            continue
        fi
    elif ! res=$(probe "$impl"); then
        echo "# ${label[$impl]} probe failed: $res" >&2
        report_failure
        why[$impl]="MISSING: probe run failed: $res"
        [ "$impl" = gmpi ] && { echo "run.sh: gmpi cannot run the benchmark" >&2; exit 2; }
        unset "launch[$impl]"
        continue
    fi
    echo "# ${label[$impl]}: $version; launched as: ${launch[$impl]} -n NP${wrap:+ <pin wrapper>}"
done
for impl in "${names[@]}"; do
    [ -n "${why[$impl]:-}" ] && echo "# ${label[$impl]}: ${why[$impl]}; its column shows '-'"
done
if [ "$pin" = 1 ]; then
    echo "# pinning: rank r on CPU r mod $ncpu (taskset), all implementations"
else
    echo "# pinning: none for any implementation (launchers told not to bind; the kernel places ranks)"
fi
echo "# ncpu $ncpu, reps $reps per launch, rounds $rounds, statistic $stat, scale $scale, max $max bytes"
echo "# load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"

# Run each benchmark on each implementation in turn, round after round
# (interleaved, so a drift in machine load, or a change of where the
# hypervisor puts our two CPUs, spreads over all columns).
for round in $(seq "$rounds"); do
    for b in "${benches[@]}"; do
        np=2
        [ "$b" = ring ] && np=4
        for impl in "${names[@]}"; do
            [ -n "${launch[$impl]:-}" ] || continue
            t0=$(date +%s.%N)
            run "$impl" "$np" "$out/$impl.$b.$round" "$b"
            rc=$?
            cat "$out/$impl.$b.$round" >>"$out/$impl.$b"
            dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
            if [ $rc -ne 0 ]; then
                echo "# $b on ${label[$impl]} (round $round): FAILED (exit status $rc after $dt s); its results are partial" >&2
                head -c 2000 "$out/$impl.$b.$round.err" | sed 's/^/    | /' >&2
                status=1
            else
                echo "# $b on ${label[$impl]} (round $round): $dt s"
            fi
        done
    done
done

# One table per metric. Value lines of mpibench are "metric size value".
title() {
    case $1 in
    latency) echo "one-way latency (ping-pong/2), usec; gmpi/best = gmpi / min(MPICH, Open MPI): > 1 means gmpi is slower" ;;
    bw) echo "unidirectional bandwidth, MB/s (10^6 B/s); gmpi/best = gmpi / max(MPICH, Open MPI): < 1 means gmpi is slower" ;;
    bibw) echo "bidirectional bandwidth (both directions summed), MB/s; gmpi/best = gmpi / max(MPICH, Open MPI): < 1 means gmpi is slower" ;;
    rate) echo "message rate, 8-byte messages, window 64, messages/s; gmpi/best = gmpi / max(MPICH, Open MPI): < 1 means gmpi is slower" ;;
    ring) echo "oversubscribed ring (Sendrecv right, Sendrecv left, Barrier), usec per iteration; gmpi/best = gmpi / min(MPICH, Open MPI): > 1 means gmpi is slower" ;;
    esac
}
for b in "${benches[@]}"; do
    echo
    echo "== $b: $(title "$b")"
    low=0
    [ "$b" = latency ] || [ "$b" = ring ] && low=1
    key=bytes
    [ "$b" = ring ] && key=ranks
    for impl in "${names[@]}"; do
        f=$out/$impl.$b
        [ -f "$f" ] || : >"$f"
    done
    awk -v m="$b" -v low="$low" -v key="$key" -v stat="$stat" '
        # reduce(k, s): the median of the rounds values of size s, or with
        # stat=min the best of them.
        function reduce(k, s,    c, i, j, t, a) {
            c = cnt[k, s]
            for (i = 1; i <= c; i++) a[i] = all[k, s, i] + 0
            for (i = 1; i <= c; i++)
                for (j = i + 1; j <= c; j++)
                    if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
            if (stat == "min") return low ? a[1] : a[c]
            return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
        }
        $1 == m && NF == 3 {
            if (!($2 in seen)) { seen[$2] = 1; order[n++] = $2 }
            all[k, $2, ++cnt[k, $2]] = $3
        }
        END {
            for (kk = 1; kk <= 3; kk++)
                for (i = 0; i < n; i++)
                    if ((kk, order[i]) in cnt) v[kk, order[i]] = reduce(kk, order[i])
            printf "%10s %12s %12s %12s %10s\n", key, "gmpi", "MPICH", "Open MPI", "gmpi/best"
            # sizes in numeric order
            for (i = 0; i < n; i++)
                for (j = i + 1; j < n; j++)
                    if (order[j] + 0 < order[i] + 0) { t = order[i]; order[i] = order[j]; order[j] = t }
            for (i = 0; i < n; i++) {
                s = order[i]
                line = sprintf("%10s", s)
                for (k = 1; k <= 3; k++)
                    line = line sprintf(" %12s", ((k, s) in v) ? v[k, s] : "-")
                best = ""
                for (k = 2; k <= 3; k++)
                    if ((k, s) in v && (best == "" || (low ? v[k, s] + 0 < best : v[k, s] + 0 > best)))
                        best = v[k, s] + 0
                r = "-"
                if ((1, s) in v && best != "" && best > 0)
                    r = sprintf("%.2f", v[1, s] / best)
                print line sprintf(" %10s", r)
            }
        }' k=1 "$out/gmpi.$b" k=2 "$out/mpich.$b" k=3 "$out/openmpi.$b"
done

if [ -n "$keep" ]; then
    mkdir -p "$keep" && cp "$out"/*.{latency,bw,bibw,rate,ring}* "$keep"/ 2>/dev/null
    echo
    echo "# raw outputs in $keep"
fi
exit $status
