#!/bin/bash
# hetero.sh [BUILD]: heterogeneous data (issue 21).
#  1. Conversion throughput of the receiver-makes-right converter, as Go
#     benchmarks (x86-64 little-endian/x87 -> s390x big-endian/binary128):
#     MPI_DOUBLE, MPI_INT, a struct {char; double; int[2]} and
#     MPI_LONG_DOUBLE, in MB/s of input (go test -bench BenchmarkConvert).
#  2. When the s390x cross compiler and qemu-user-static are installed:
#     latency and bandwidth between an x86 process and an s390x process
#     under qemu on one grid (local launcher, loopback TCP). That is
#     qemu's speed, reported, not a target.
# Timings are noisy on a shared machine: the load is printed first.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
BUILD=$(cd "${1:-$src/build}" && pwd)
export PATH=$PATH:/usr/local/go/bin
echo "# load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# conversion throughput (MB/s of input, one core)"
(cd "$src" && go test -run '^$' -bench BenchmarkConvert -benchtime 1s ./runtime) |
    awk '/^BenchmarkConvert/ { sub("BenchmarkConvert/", "", $1); sub("-[0-9]+$", "", $1); print "convert", $1, $(NF-1) }'

if ! command -v qemu-s390x-static >/dev/null || ! command -v s390x-linux-gnu-gcc >/dev/null; then
    echo "# x86<->s390x: skipped (needs qemu-user-static, gcc-s390x-linux-gnu, libc6-dev-s390x-cross)"
    exit 0
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-hbench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
make -C "$src" --no-print-directory cross ARCH=s390x BUILD="$BUILD" >"$dir/cross.out" 2>&1 ||
    { tail -20 "$dir/cross.out"; exit 1; }
"$BUILD/bin/mpicc" -O2 -o "$dir/mpibench" "$here/mpibench.c" || exit 1
"$BUILD/s390x/bin/mpicc" -O2 -o "$dir/mpibench.s390x" "$here/mpibench.c" || exit 1
cat >"$dir/grid.toml" <<'GRID'
[[site]]
name = "s"
  [[site.machine]]
  name = "x86"
  hosts = ["xh"]
  [[site.machine]]
  name = "z"
  arch = "s390x"
  hosts = ["zh"]
GRID
echo "# x86 <-> s390x under qemu (latency USEC, bw MB/s)"
timeout -k 10 600 "$BUILD/bin/mpirun" --grid "$dir/grid.toml" "$dir/mpibench" -r 3 -s 0.05 -m 1048576 latency bw
