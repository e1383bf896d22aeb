#!/bin/bash
# relay.sh: what a relay costs (issue 23). 8 B latency and 1 MiB bandwidth
# between two sites of an emulated grid (bench/mpibench.c, ranks 0 and 1),
# directly and through the relay on the gateway of a private site, with
# 0.1 ms and with 10 ms one way between the sites (no bandwidth limit, so
# the relay's own cost shows). Prints one line per case and the relay's
# overhead: added one-way latency (target: at most 15 us) and the share of
# the direct bandwidth it keeps (target: at least 90 %). Needs root.
#
# usage: bench/relay.sh [-b BUILD] [-r REPS] [-R ROUNDS] [-d "100us 10ms"]
#   -b  gmpi build directory (default <repo>/build)
#   -r  repetitions per run, median taken (default 5)
#   -R  rounds: direct and relay alternate ROUNDS times, the best counts
#       (default 3)
#   -d  the one-way delays between the sites (default "100us 10ms")
#
# The grid: site a = host a0 (rank 0); site b = hosts b1 (rank 1) and b0
# (rank 2, idle), private behind its gateway b0 in the relay case, so that
# rank 0 <-> rank 1 goes a0 -> relay on b0 -> b1; open in the direct case.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../build reps=5 rounds=3 delays="100us 10ms"
while getopts b:r:R:d: o; do
    case $o in
    b) build=$OPTARG ;;
    r) reps=$OPTARG ;;
    R) rounds=$OPTARG ;;
    d) delays=$OPTARG ;;
    *) sed -n '2,/^set -u/p' "$0" | grep '^#' >&2; exit 2 ;;
    esac
done
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: bench/relay.sh needs root (network namespaces)"
    exit 77
fi
build=$(cd "$build" && pwd) || exit 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-relaybench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$build/bin/mpicc" -O2 -o "$tmp/mpibench" "$here/mpibench.c" || exit 1

grid() { # DELAY MODE -> file
    local f=$tmp/grid-$1-$2.toml
    {
        printf '[wan]\nlatency = "%s"\n' "$1"
        printf '[[site]]\nname = "a"\n  [[site.machine]]\n  name = "am"\n  hosts = ["a0"]\n'
        printf '[[site]]\nname = "b"\n'
        [ "$2" = relay ] && printf 'private = true\ngateway = "b0"\n'
        printf '  [[site.machine]]\n  name = "bm"\n  hosts = ["b1", "b0"]\n'
    } >"$f"
    echo "$f"
}

run() { # DELAY MODE BENCH MAXBYTES SCALE -> value of the largest size
    local out
    out=$(timeout -k 10 600 "$build/bin/mpirun" --grid "$(grid "$1" "$2")" --emulate \
        "$tmp/mpibench" -r "$reps" -s "$5" -m "$4" "$3" 2>"$tmp/err")
    local v
    v=$(echo "$out" | awk -v b="$3" -v m="$4" '$1 == b && $2 == m { print $3 }')
    if [ -z "$v" ]; then
        echo "relay.sh: $1 $2 $3 failed:" >&2
        cat "$tmp/err" >&2
        echo "nan"
        return
    fi
    echo "$v"
}

best() { # low|high VALUES...
    local dir=$1
    shift
    printf '%s\n' "$@" | grep -v nan | sort -g | { [ "$dir" = low ] && head -1 || tail -1; }
}

echo "# bench/relay.sh: reps=$reps rounds=$rounds load=$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %-7s %14s %14s\n' delay path "lat8B(us)" "bw1MiB(MB/s)"
for d in $delays; do
    # Fewer round trips when each takes long.
    case $d in
    *ms) ls=0.02 bs=0.1 ;;
    *) ls=0.25 bs=0.5 ;;
    esac
    declare -A lat bw
    for mode in direct relay; do lat[$mode]="" bw[$mode]=""; done
    for _ in $(seq 1 "$rounds"); do
        for mode in direct relay; do
            lat[$mode]+=" $(run "$d" $mode latency 8 $ls)"
            bw[$mode]+=" $(run "$d" $mode bw 1048576 $bs)"
        done
    done
    for mode in direct relay; do
        L=$(best low ${lat[$mode]}) B=$(best high ${bw[$mode]})
        eval "L_$mode=\${L:-nan} B_$mode=\${B:-nan}"
        printf '%-8s %-7s %14s %14s\n' "$d" $mode "${L:-nan}" "${B:-nan}"
    done
    awk -v d="$d" -v ld="$L_direct" -v lr="$L_relay" -v bd="$B_direct" -v br="$B_relay" 'BEGIN {
        printf "%-8s relay adds %.1f us one way (target <= 15), keeps %.1f %% of the bandwidth (target >= 90)\n",
            d, lr - ld, 100 * br / bd }'
    unset lat bw
done
