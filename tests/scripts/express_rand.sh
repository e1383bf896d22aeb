#!/bin/bash
# express_rand.sh BUILD: the express lane (capi/express.c) must deliver
# exactly what the Go path delivers. Runs tests/c/express_rand (randomized
# traffic fixed by a seed: mixed sizes around the eager limit, wildcards,
# probes, cancels, several communicators, Sendrecv, Ssend/Issend) with the
# lane on and with GMPI_EXPRESS=0, for the same seed, and compares the two
# runs' records of every receive (message, count, checksum, status) rank by
# rank. Cases: 2 ranks; 4 ranks on 2 CPUs (oversubscribed); a small eager
# limit (every size class often); threads under MPI_THREAD_MULTIPLE;
# pipelined blocking sends through a small ring; 3 ranks all over tcp,
# with the default and a small eager limit.
# EXPRESS_RAND_SEED=N repeats a run (the seed is printed).
#
# express_rand.sh BUILD FRONT runs the same through another ABI front (the
# front's C code calls the lane with its converted arguments): FRONT is
# openmpi (built with Debian's mpicc.openmpi when installed, else with
# build/openmpi/bin/mpicc, run on build/openmpi/lib/libmpi.so.40) or
# standard (build/bin/mpicc_abi, build/abi/lib/libmpi_abi.so).
set -u
BUILD=$(cd "${1:?usage: $0 BUILD [openmpi|standard]}" && pwd)
FRONT=${2:-mpich}
. "$(dirname "$0")/lib.sh"
need_build

dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-express-rand.XXXXXX")
trap 'rm -rf "$dir"' EXIT
src=$(cd "$(dirname "$0")/../c" && pwd)
libdir=
case $FRONT in
mpich) PROG=$BUILD/tests/c/express_rand ;;
openmpi | standard)
    if [ "$FRONT" = openmpi ]; then
        cc=$(command -v mpicc.openmpi) || cc=$BUILD/openmpi/bin/mpicc
        libdir=$BUILD/openmpi/lib
    else
        cc=$BUILD/bin/mpicc_abi libdir=$BUILD/abi/lib
    fi
    PROG=$dir/express_rand
    $cc -O1 -o "$PROG" "$src/express_rand.c" "$src/mtest.c" -lm >"$dir/cc.log" 2>&1 ||
        { cat "$dir/cc.log"; fail "cannot build express_rand with $cc"; }
    export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    echo "express_rand.sh: front $FRONT ($cc, $libdir)"
    ;;
*) fail "unknown front $FRONT (openmpi or standard)" ;;
esac
[ -x "$PROG" ] || fail "$PROG is missing (build first)"
fwd_lib=()
[ -n "$libdir" ] && fwd_lib=(-x LD_LIBRARY_PATH)
seed=${EXPRESS_RAND_SEED:-$(( ($(date +%s%N) / 1000) % 1000000007 ))}
echo "express_rand.sh: seed $seed (EXPRESS_RAND_SEED=$seed repeats it)"

# Four ranks on two CPUs where taskset can say so (the CI machine has two).
pin=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
    pin=(taskset -c 0,1)
fi

# run NAME NP EXPRESS [VAR=VALUE ...]: one job, its records in $dir/NAME.
run() {
    local name=$1 np=$2 lane=$3 fwd=() kv
    shift 3
    for kv in "$@"; do fwd+=(-x "${kv%%=*}"); done
    echo "+ GMPI_EXPRESS=$lane $* mpirun -n $np express_rand"
    env GMPI_EXPRESS="$lane" EXPRESS_RAND_SEED="$seed" EXPRESS_RAND_LOG="$dir/$name" "$@" \
        "${pin[@]}" "$BUILD/bin/mpirun" -n "$np" --timeout 60 \
        -x GMPI_EXPRESS -x EXPRESS_RAND_SEED -x EXPRESS_RAND_LOG "${fwd_lib[@]}" "${fwd[@]}" "$PROG" \
        >"$dir/$name.out" 2>&1 </dev/null
    local rc=$?
    cat "$dir/$name.out"
    [ $rc -eq 0 ] || fail "$name: exit status $rc (seed $seed)"
    grep -q ' No Errors' "$dir/$name.out" || fail "$name: no \" No Errors\" (seed $seed)"
}

# compare NAME NP VAR=VALUE...: lane on and off, same records.
compare() {
    local name=$1 np=$2 r
    shift 2
    run "$name.on" "$np" 1 "$@"
    run "$name.off" "$np" 0 "$@"
    for ((r = 0; r < np; r++)); do
        [ -s "$dir/$name.on.$r" ] || fail "$name: rank $r wrote no records"
        if ! cmp -s "$dir/$name.on.$r" "$dir/$name.off.$r"; then
            diff "$dir/$name.on.$r" "$dir/$name.off.$r" | head -20
            fail "$name: rank $r received differently with the lane on (<) and off (>) (seed $seed)"
        fi
    done
    echo "ok: $name: $(cat "$dir/$name.on".[0-9]* | grep -vc '^#') records agree"
}

compare np2 2 EXPRESS_RAND_ROUNDS=400
compare np4 4 EXPRESS_RAND_ROUNDS=200
compare eager 3 EXPRESS_RAND_ROUNDS=300 GMPI_EAGER_LIMIT=512
compare threads 2 EXPRESS_RAND_ROUNDS=100 EXPRESS_RAND_THREADS=3
# Blocking sends published in small pieces as they are written, received
# as they come (GMPI_SHM_PIPE), through a small ring that windows of
# nonblocking sends fill (the lane's MPI_Isend then waits for room).
compare pipe 2 EXPRESS_RAND_ROUNDS=300 GMPI_SHM_PIPE=100 GMPI_SHM_RING=32K GMPI_EAGER_LIMIT=8192
# Every peer over tcp (the lane's sends to tcp peers, express.c tcp_send).
compare tcp 3 EXPRESS_RAND_ROUNDS=200 GMPI_DEVICE=tcp
# The same with a small eager limit: the lane's receives from tcp peers
# (express.c tcp_recv) meet rendezvous and longer frames often.
compare tcp_eager 3 EXPRESS_RAND_ROUNDS=200 GMPI_DEVICE=tcp GMPI_EAGER_LIMIT=256
echo "express_rand.sh: all cases agree (seed $seed)"
