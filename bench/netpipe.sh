#!/bin/bash
# netpipe.sh: runs Debian's NetPIPE (NPmpich2, package netpipe-mpich2, a
# binary linked against MPICH's libmpich.so.12) over its full default range
# of sizes (1 B to 8 MiB + 3, with perturbations) on gmpi, by pointing the
# loader at our library, and on MPICH itself, then prints latency and
# bandwidth at 8 B, 64 KiB, 1 MiB and 4 MiB side by side. A gmpi run that
# fails or does not reach NetPIPE's last size is reported with the size it
# was working on and its error output. Each run takes about two minutes.
#
# usage: bench/netpipe.sh [options] [-- NetPIPE options]
#   -b, --build DIR     gmpi build directory (default: <repo>/build)
#   -i, --impl LIST     comma-separated subset of gmpi,mpich (default both)
#   -t, --timeout S     limit of each run in seconds (default 900)
#   -o, --out DIR       keep NetPIPE's logs and np.out files in DIR
#
# Exit status: 0 if every run completed the full range, 1 otherwise,
# 2 on bad usage or when NPmpich2 or the gmpi build is missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../build
impls=gmpi,mpich limit=900 keep=
npargs=()
usage() {
    sed -n '2,/^set -u/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case $1 in
    -b | --build) build=${2:?}; shift 2 ;;
    -i | --impl) impls=${2:?}; shift 2 ;;
    -t | --timeout) limit=${2:?}; shift 2 ;;
    -o | --out) keep=${2:?}; shift 2 ;;
    -h | --help) usage ;;
    --) shift; npargs=("$@"); break ;;
    *) echo "netpipe.sh: unknown argument: $1" >&2; usage ;;
    esac
done
NP=/usr/bin/NPmpich2
[ -x "$NP" ] || { echo "netpipe.sh: $NP is missing (apt-get install netpipe-mpich2)" >&2; exit 2; }
build=$(cd "$build" 2>/dev/null && pwd) || { echo "netpipe.sh: no build directory $build" >&2; exit 2; }
out=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-netpipe.XXXXXX")
trap 'rm -rf "$out"' EXIT
want() { [[ ,$impls, == *,$1,* ]]; }
status=0
declare -A label=([gmpi]=gmpi [mpich]=MPICH)
declare -A ok=()

# run IMPL: NetPIPE in its own directory (it writes np.out there).
run() {
    local impl=$1 d=$out/$1 rc t0
    mkdir -p "$d"
    t0=$(date +%s)
    case $impl in
    gmpi)
        if ! [ -x "$build/bin/mpirun" ] || ! [ -e "$build/lib/libmpich.so.12" ]; then
            echo "netpipe.sh: $build has no bin/mpirun or lib/libmpich.so.12 (build gmpi first)" >&2
            exit 2
        fi
        echo "# gmpi: $build/bin/mpirun -n 2 --timeout $limit env LD_LIBRARY_PATH=$build/lib $NP ${npargs[*]}"
        (cd "$d" && "$build/bin/mpirun" -n 2 --timeout "$limit" \
            env LD_LIBRARY_PATH="$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
            "$NP" "${npargs[@]}" >log 2>&1 </dev/null)
        rc=$?
        ;;
    mpich)
        if ! command -v mpiexec.mpich >/dev/null; then
            echo "# MPICH: MISSING (mpiexec.mpich not installed); its columns show '-'"
            return
        fi
        echo "# MPICH: mpiexec.mpich -bind-to none -n 2 $NP ${npargs[*]}"
        (cd "$d" && timeout -k 10 "$limit" mpiexec.mpich -bind-to none -n 2 \
            "$NP" "${npargs[@]}" >log 2>&1 </dev/null)
        rc=$?
        ;;
    esac
    local dt=$(($(date +%s) - t0))
    # NetPIPE prints "N: SIZE bytes REPS times --> X Mbps in T usec" per
    # size; the line of a size it is working on stops after "-->".
    local last started
    last=$(grep -E '^ *[0-9]+: +[0-9]+ bytes .* usec' "$d/log" | tail -1 | awk '{print $2}')
    started=$(grep -E '^ *[0-9]+: +[0-9]+ bytes' "$d/log" | tail -1)
    if [ "$rc" -eq 0 ] && [ -s "$d/np.out" ]; then
        echo "# ${label[$impl]}: completed in $dt s, $(wc -l <"$d/np.out") sizes, the last $(tail -1 "$d/np.out" | awk '{print $1}') bytes"
        ok[$impl]=1
    else
        status=1
        local what="exit status $rc"
        [ "$rc" -eq 124 ] && what="timed out after $limit s (hang)"
        echo "# ${label[$impl]}: FAILED after $dt s: $what"
        echo "#   last size completed: $([ -n "$last" ] && echo "$last bytes" || echo none)"
        echo "#   size it was working on: $(echo "$started" | awk '!/usec/ && NF >= 2 { print $2 " bytes"; exit } { print "none" }')"
        echo "#   NetPIPE's last line: ${started:-none}"
        echo "#   the end of its output (NetPIPE prints progress to stderr):"
        tail -n 25 "$d/log" | tail -c 3000 | sed 's/^/#   | /'
    fi
}

for impl in gmpi mpich; do
    want "$impl" && run "$impl"
done
# Both must have covered the same sizes (a gmpi run that stopped early is
# incomplete even if it exited 0).
if [ -n "${ok[gmpi]:-}" ] && [ -n "${ok[mpich]:-}" ] &&
    ! cmp -s <(awk '{print $1}' "$out/gmpi/np.out") <(awk '{print $1}' "$out/mpich/np.out"); then
    echo "# gmpi and MPICH measured different sizes: gmpi $(wc -l <"$out/gmpi/np.out"), MPICH $(wc -l <"$out/mpich/np.out")"
    status=1
fi

# np.out: "bytes Mbps seconds" per size (seconds: one-way, half a round
# trip). Mbps is 10^6 bits/s; MB/s below is 10^6 bytes/s.
echo
echo "== NetPIPE ping-pong: one-way latency (usec) and bandwidth (MB/s = 10^6 B/s); gmpi/MPICH bw: < 1 means gmpi is slower"
printf '%10s %12s %12s %12s %12s %14s\n' bytes "gmpi usec" "MPICH usec" "gmpi MB/s" "MPICH MB/s" "gmpi/MPICH bw"
for f in gmpi mpich; do [ -f "$out/$f/np.out" ] || { mkdir -p "$out/$f" && : >"$out/$f/np.out"; }; done
awk '
    { v[k, $1 + 0] = 1; us[k, $1 + 0] = $3 * 1e6; mb[k, $1 + 0] = $2 / 8 }
    END {
        split("8 65536 1048576 4194304", sizes, " ")
        for (i = 1; i <= 4; i++) {
            s = sizes[i]
            line = sprintf("%10d", s)
            for (j = 1; j <= 2; j++)
                line = line sprintf(" %12s", ((j, s) in v) ? sprintf("%.2f", us[j, s]) : "-")
            for (j = 1; j <= 2; j++)
                line = line sprintf(" %12s", ((j, s) in v) ? sprintf("%.1f", mb[j, s]) : "-")
            r = ((1, s) in v && (2, s) in v && mb[2, s] > 0) ? sprintf("%.2f", mb[1, s] / mb[2, s]) : "-"
            print line sprintf(" %14s", r)
        }
    }' k=1 "$out/gmpi/np.out" k=2 "$out/mpich/np.out"

if [ -n "$keep" ]; then
    mkdir -p "$keep"
    for impl in gmpi mpich; do
        [ -d "$out/$impl" ] && mkdir -p "$keep/$impl" && cp "$out/$impl"/* "$keep/$impl"/ 2>/dev/null
    done
    echo
    echo "# logs and np.out in $keep/{gmpi,mpich}"
fi
exit $status
