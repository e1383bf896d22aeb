#!/bin/bash
# hetero.sh [-b BUILD] [-R ROUNDS] [--ab OLD NEW] [--no-convert] [--no-grid]:
# heterogeneous data (issue 21).
#  1. Conversion throughput of the receiver-makes-right converter, as Go
#     benchmarks (x86-64 little-endian/x87 -> s390x big-endian/binary128):
#     MPI_DOUBLE, MPI_INT, a struct {char; double; int[2]} and
#     MPI_LONG_DOUBLE, in GB/s of input: by wall time and by the
#     converting thread's CPU time (GB/s per core, which a loaded machine
#     does not inflate). Target >= 4 GB/s per core for the swaps.
#  2. When the s390x cross compiler and qemu-user-static are installed:
#     latency and bandwidth between an x86 process and an s390x process
#     under qemu (make cross ARCH=s390x; as root on the emulated grid,
#     --emulate, else over loopback). qemu's speed: reported, not a target.
#  3. --ab OLD NEW: homogeneous pairs pay nothing. Builds libmpi.so (the
#     MPICH front) at git revisions OLD and NEW into a scratch directory
#     and runs one mpibench binary, 2 ranks on this computer, with each
#     library in turn, ROUNDS times alternating (which goes first
#     alternates too), over shm (the default device) and over TCP
#     (GMPI_DEVICE=tcp; -d picks the devices); best of the rounds. E.g. --ab ad1e54c^1 ad1e54c
#     compares main before and after the merge of the conversion code.
# Timings are noisy on a shared machine: the load is printed with them.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
BUILD=$src/build
ROUNDS=3
AB=()
DEVS="shm tcp"
convert=1
grid=1
while [ $# -gt 0 ]; do
    case $1 in
    -b) BUILD=$2; shift 2 ;;
    -R) ROUNDS=$2; shift 2 ;;
    --ab) AB=("$2" "$3"); shift 3 ;;
    -d) DEVS=$2; shift 2 ;;
    --no-convert) convert=0; shift ;;
    --no-grid) grid=0; shift ;;
    *) echo "usage: $0 [-b BUILD] [-R ROUNDS] [--ab OLD NEW] [-d 'shm tcp'] [--no-convert] [--no-grid]" >&2; exit 2 ;;
    esac
done
BUILD=$(cd "$BUILD" && pwd)
export PATH=$PATH:/usr/local/go/bin
load() { echo "load $(cut -d' ' -f1-3 /proc/loadavg)"; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-hbench.XXXXXX")
cleanup() {
    for w in "$dir"/wt-*; do
        [ -d "$w" ] && git -C "$src" worktree remove --force "$w" >/dev/null 2>&1
    done
    rm -rf "$dir"
}
trap cleanup EXIT

if [ $convert = 1 ]; then
    echo "# conversion throughput, x86-64 -> s390x ($(load)): GB/s wall, GB/s per core (CPU time)"
    (cd "$src" && go test -run '^$' -bench BenchmarkConvert -benchtime 1s -count 3 ./runtime) |
        awk '/^BenchmarkConvert/ { n = $1; sub("BenchmarkConvert/", "", n); sub("-[0-9]+$", "", n);
                for (i = 1; i <= NF; i++) { if ($(i) == "MB/s") w = $(i-1) / 1000; if ($(i) == "GB/s-cpu") c = $(i-1) }
                printf "convert %-10s %6.2f GB/s  %6.2f GB/s-cpu\n", n, w, c }'
fi

if [ $grid = 1 ]; then
    if ! command -v qemu-s390x-static >/dev/null || ! command -v s390x-linux-gnu-gcc >/dev/null; then
        echo "# x86<->s390x: skipped (needs qemu-user-static, gcc-s390x-linux-gnu, libc6-dev-s390x-cross)"
    else
        make -C "$src" --no-print-directory cross ARCH=s390x BUILD="$BUILD" >"$dir/cross.out" 2>&1 ||
            { tail -20 "$dir/cross.out"; exit 1; }
        "$BUILD/bin/mpicc" -O2 -o "$dir/mpibench" "$here/mpibench.c" || exit 1
        "$BUILD/s390x/bin/mpicc" -O2 -o "$dir/mpibench.s390x" "$here/mpibench.c" || exit 1
        cat >"$dir/grid.toml" <<'GRID'
[[site]]
name = "s"
  [[site.machine]]
  name = "x86"
  launcher = "local"
  hosts = ["xh"]
  [[site.machine]]
  name = "z"
  arch = "s390x"
  launcher = "local"
  hosts = ["zh"]
GRID
        emu=()
        how="loopback"
        [ "$(id -u)" -eq 0 ] && emu=(--emulate) && how="emulated grid"
        echo "# x86 <-> s390x under qemu, $how ($(load)): latency USEC, bw MB/s"
        timeout -k 10 900 "$BUILD/bin/mpirun" --grid "$dir/grid.toml" "${emu[@]}" "$dir/mpibench" \
            -r 3 -s 0.02 -m 1048576 latency bw | grep -v '^#'
    fi
fi

if [ ${#AB[@]} -eq 2 ]; then
    "$BUILD/bin/mpicc" -O2 -o "$dir/mpibench" "$here/mpibench.c" || exit 1
    for i in 0 1; do
        rev=${AB[$i]}
        w="$dir/wt-$i"
        git -C "$src" worktree add --detach "$w" "$rev" >/dev/null 2>&1 || { echo "no revision $rev" >&2; exit 1; }
        mkdir -p "$dir/lib$i"
        (cd "$w" && CGO_ENABLED=1 go build -buildmode=c-shared "-ldflags=-extldflags=-Wl,-soname,libmpi.so.12" \
            -o "$dir/lib$i/libmpi.so" ./capi) || { echo "go build at $rev failed" >&2; exit 1; }
        rm -f "$dir/lib$i/libmpi.h"
        ln -s libmpi.so "$dir/lib$i/libmpi.so.12"
        ln -s libmpi.so "$dir/lib$i/libmpich.so.12"
    done
    echo "# homogeneous pair, 2 ranks: ${AB[0]} (old) vs ${AB[1]} (new), $ROUNDS alternating rounds ($(load))"
    printf "%-4s %-8s %8s %12s %12s %7s\n" dev bench bytes old new new/old
    for dev in $DEVS; do
        for r in $(seq "$ROUNDS"); do
            # Odd rounds run the new library first: no order bias.
            order="0 1"
            [ $((r % 2)) = 1 ] && order="1 0"
            for i in $order; do
                env=()
                [ $dev = tcp ] && env=(GMPI_DEVICE=tcp)
                env "${env[@]}" LD_LIBRARY_PATH="$dir/lib$i" timeout -k 10 300 "$BUILD/bin/mpirun" -n 2 \
                    "$dir/mpibench" -r 3 -m 1048576 latency bw 2>&1 | grep -v '^#' |
                    awk -v d=$dev -v v=$i '{ print d, (v ? "new" : "old"), $0 }'
            done
        done
    done | awk '{ k = $1 " " $3 " " $4; key[k] = 1; v = k " " $2
                  if (!(v in b) || ($3 == "latency" ? $5 < b[v] : $5 > b[v])) b[v] = $5 }
        END { for (k in key) { o = b[k " old"]; w = b[k " new"]
                               split(k, f, " "); printf "%-4s %-8s %8s %12.2f %12.2f %7.3f\n", f[1], f[2], f[3], o, w, (o ? w / o : 0) } }' |
        sort -k1,1 -k2,2 -k3,3n
    echo "# ($(load) at the end; latency in usec, bw in MB/s, best over rounds: least latency, most bandwidth)"
fi
