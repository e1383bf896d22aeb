#!/bin/bash
# dynsizes.sh BUILD: two separately launched jobs of every pair of sizes
# 1-4 x 1-4 meet, each job its own mpirun (tests/c/dynconnect.c). For
# each server size S one server job publishes its port both in a file and
# under a name (this host's name service), and four client jobs of sizes
# 1-4, started at once, each connect twice: through the port in the file,
# then through the published name. Every connection runs p2p both ways
# (eager and rendezvous), an intercommunicator bcast from each side and
# allreduce, dup, merge and a merged allreduce, then
# MPI_Comm_disconnect: 16 pairs x 2 ways of meeting = 32 connections
# from 4 server and 16 client launches. Nothing may be left running, nor
# in /dev/shm.
set -u
BUILD=$(cd "${1:?usage: $0 BUILD}" && pwd)
. "$(dirname "$0")/lib.sh"
need_build

prog=$BUILD/tests/c/dynconnect
mpirun=$BUILD/bin/mpirun
scratch_and_jobs dynsizes
before=$(shm_entries)
t0=$(now)

for s in 1 2 3 4; do
    # A service name of this run only (other jobs of this user on this
    # host share the name service).
    service=gmpi-dynsizes-$$-$s
    port=$dir/port$s
    "$mpirun" --timeout 120 -n "$s" "$prog" server "$port" 8 "$service" >"$dir/server$s" 2>&1 </dev/null &
    spid=$!
    pids+=($spid)
    cpids=()
    for c in 1 2 3 4; do
        "$mpirun" --timeout 120 -n "$c" "$prog" both "$port" "$service" >"$dir/client$s.$c" 2>&1 </dev/null &
        cpids+=($!)
        pids+=($!)
    done
    for c in 1 2 3 4; do
        wait "${cpids[$((c - 1))]}"
        rc=$?
        if [ "$rc" -ne 0 ] || ! grep -q ' No Errors' "$dir/client$s.$c"; then
            cat "$dir/client$s.$c"
            kill -KILL "$spid" 2>/dev/null
            wait "$spid"
            cat "$dir/server$s"
            fail "client of $c with the server of $s exited $rc"
        fi
    done
    wait "$spid"
    rc=$?
    echo "--- server of $s (exit $rc):"
    cat "$dir/server$s"
    [ "$rc" -eq 0 ] && grep -q ' No Errors' "$dir/server$s" || fail "the server of $s failed"
    for c in 1 2 3 4; do
        [ "$(grep -c "^served $s x $c\$" "$dir/server$s")" -eq 2 ] ||
            fail "the server of $s did not serve the client of $c twice (port file and name)"
    done
done
echo "32 connections in $(elapsed "$t0") s"

left=$(pgrep -f "$dir" || true)
[ -z "$left" ] || fail "left running: $(ps -o pid,args -p "$(echo $left | tr ' ' ,)")"
new=$(shm_leaked "$before")
[ -z "$new" ] || fail "left behind in /dev/shm: $new"
echo "PASS: dynsizes"
