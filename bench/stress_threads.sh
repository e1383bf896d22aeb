#!/bin/bash
# stress_threads.sh: run the MPI_THREAD_MULTIPLE tests many times and, when a
# run hangs, capture every rank's C stacks (gdb), then its Go stacks and
# engine state (SIGUSR1 with GMPI_DEBUG_SIGNAL=1, into the run's log),
# before ending it.
#
#   bench/stress_threads.sh [-b BUILD] [-n RUNS] [-t SECONDS] [-o OUTDIR] "NP PROG [ARGS]"...
#
# BUILD is copied to OUTDIR first (LD_LIBRARY_PATH), so rebuilding the tree
# does not change the library under running jobs.
# Each quoted spec is one job ("5 threads_anysrc"); the specs are run in
# turn RUNS times. Prints one line per hang and a summary.
set -u
build=build runs=50 limit=90 out=/tmp/gmpi-stress.$$
while getopts b:n:t:o: o; do
    case $o in
    b) build=$OPTARG ;; n) runs=$OPTARG ;; t) limit=$OPTARG ;; o) out=$OPTARG ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- "5 threads_anysrc" "8 threads_anysrc" "5 threads_sendmany" "4 p2p_threads"
mkdir -p "$out"
rm -rf "$out/build" && mkdir -p "$out/build/tests" &&
    cp -a "$build/bin" "$build/lib" "$out/build/" && cp -a "$build/tests/c" "$out/build/tests/" || exit 1
build=$out/build
export LD_LIBRARY_PATH=$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GMPI_DEBUG_SIGNAL=1 THREADS_SENDMANY_ITER=${THREADS_SENDMANY_ITER:-60}
hangs=0 fails=0 total=0
for ((i = 0; i < runs; i++)); do
    for spec in "$@"; do
        read -r np prog args <<<"$spec"
        total=$((total + 1))
        log=$out/run-$i-$np-$prog.log
        "$build/bin/mpirun" -n "$np" "$build/tests/c/$prog" $args >"$log" 2>&1 &
        mp=$!
        for ((s = 0; s < limit * 10; s++)); do
            kill -0 $mp 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 $mp 2>/dev/null; then
            hangs=$((hangs + 1))
            echo "HANG run $i: $spec (log $log)"
            # C stacks of every rank first (a Go traceback ends the rank,
            # and mpirun then ends the others), then the Go stacks.
            ranks=$(pgrep -P $mp)
            for pid in $ranks; do
                timeout 60 gdb -p "$pid" -batch -ex 'thread apply all bt' >"$log.gdb.$pid" 2>&1
            done
            for pid in $ranks; do
                kill -USR1 "$pid" 2>/dev/null
            done
            sleep 5
            kill $mp 2>/dev/null
            wait $mp
            continue
        fi
        wait $mp
        rc=$?
        if [ $rc -ne 0 ] || ! grep -q " No Errors" "$log"; then
            fails=$((fails + 1))
            echo "FAIL run $i: $spec rc=$rc (log $log)"
        else
            rm -f "$log"
        fi
    done
done
echo "stress: $total runs, $hangs hangs, $fails failures (logs in $out)"
[ $hangs -eq 0 ] && [ $fails -eq 0 ]
