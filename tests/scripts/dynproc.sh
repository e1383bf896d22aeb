#!/bin/bash
# dynproc.sh BUILD: client/server between separately started jobs
# (tests/c/dynconnect.c), each job its own mpirun:
#   1. a server job of 2 ranks takes four clients in turn: sizes 1, 3 and
#      2 through the port written to a file, and a victim (1 rank) that is
#      killed with SIGKILL mid-session: every server rank sees an error on
#      the intercommunicator (rank 0 in a receive from the victim, rank 1
#      in one from MPI_ANY_SOURCE) and goes on; garbage sent to the port
#      and a client job that connects with a forged secret (MPI_ERR_PORT)
#      in between are refused without harm;
#   2. a server of 1 rank and a client of 4 meet through a published name
#      (this host's name service, no server);
#   3. the same through a name server (mpirun --serve-names, --nameserver);
#   4. MPI_Comm_spawn with the info key soft past the universe size;
#   5. two jobs (singletons, no mpirun) joined over a socketpair
#      (tests/c/dynjoin.c).
# Every size pair 1-4 x 1-4 is tests/scripts/dynsizes.sh. Nothing may be
# left running, nor in /dev/shm.
set -u
BUILD=$(cd "${1:?usage: $0 BUILD}" && pwd)
. "$(dirname "$0")/lib.sh"
need_build

prog=$BUILD/tests/c/dynconnect
mpirun=$BUILD/bin/mpirun
scratch_and_jobs dynproc
before=$(shm_entries)

# start NAME ARGS...: an mpirun in the background, output to $dir/NAME.
start() {
    local name=$1
    shift
    "$mpirun" --timeout 120 "$@" >"$dir/$name" 2>&1 </dev/null &
    pids+=($!)
    eval "pid_$name=$!"
}

# finish NAME: wait for that mpirun and check it passed.
finish() {
    local name=$1 pidvar="pid_$1"
    wait "${!pidvar}"
    local rc=$?
    echo "--- $name (exit $rc):"
    cat "$dir/$name"
    [ "$rc" -eq 0 ] || fail "$name exited $rc"
    grep -q ' No Errors' "$dir/$name" || fail "$name did not print No Errors"
}

# 1. Clients through a port file, one after another, and a victim.
port=$dir/port
start server -n 2 "$prog" server "$port" 4
start c1 -n 1 "$prog" client "$port"
finish c1
# Garbage and a forged secret at the port: refused, the server goes on.
p=$(cat "$port")
hostport=$(echo "$p" | awk -F';' '{split($2, a, ","); print a[1] ":" $3}')
timeout 10 bash -c "exec 3<>/dev/tcp/${hostport%:*}/${hostport#*:}; head -c 4096 /dev/urandom >&3; sleep 0.3" 2>/dev/null
start forged -n 2 "$prog" forged "$port"
finish forged
start c2 -n 3 "$prog" client "$port"
finish c2
start victim -n 1 "$prog" victim "$port"
for i in $(seq 600); do
    grep -q 'victim connected' "$dir/victim" && break
    sleep 0.1
done
grep -q 'victim connected' "$dir/victim" || { cat "$dir/victim" "$dir/server"; fail "the victim did not connect"; }
vpid=$(pgrep -f "dynconnect victim $port" | while read -r q; do [ "$(cat /proc/$q/comm 2>/dev/null)" = dynconnect ] && echo "$q"; done | head -1)
[ -n "$vpid" ] || fail "no victim process"
kill -KILL "$vpid"
wait "$pid_victim" 2>/dev/null
start c3 -n 2 "$prog" client "$port"
finish c3
finish server
grep -q 'server saw:.*connected job [0-9]' "$dir/server" || fail "the server did not report the killed client's job"

# 2. Through a published name on this host.
# A service name of this run only (the same user's other jobs on this
# host share the name service).
start nserver -n 1 "$prog" server "$dir/unused" 1 "gmpi-dynproc-$$"
start nclient -n 4 "$prog" client "$dir/unused" "gmpi-dynproc-$$"
finish nclient
finish nserver

# 3. Through a name server.
key=$dir/names.key
nsport=$((20000 + RANDOM % 20000))
GMPI_NAMESERVER_KEY=$key "$mpirun" --serve-names "127.0.0.1:$nsport" >"$dir/ns" 2>&1 &
nspid=$!
pids+=($nspid)
for i in $(seq 100); do
    [ -s "$key" ] && grep -q listening "$dir/ns" && break
    sleep 0.1
done
grep -q listening "$dir/ns" || { cat "$dir/ns"; fail "the name server did not start"; }
# Garbage at the name server: refused, it goes on.
timeout 10 bash -c "exec 3<>/dev/tcp/127.0.0.1/$nsport; head -c 2048 /dev/urandom >&3" 2>/dev/null
export GMPI_NAMESERVER_KEY=$key
start sserver -n 2 -x GMPI_NAMESERVER_KEY --nameserver "127.0.0.1:$nsport" "$prog" server "$dir/unused2" 1 "gmpi-dynproc-ns-$$"
start sclient -n 1 -x GMPI_NAMESERVER_KEY --nameserver "127.0.0.1:$nsport" "$prog" client "$dir/unused2" "gmpi-dynproc-ns-$$"
finish sclient
finish sserver
kill -TERM "$nspid"
wait "$nspid"

# 4. Spawn with the info key soft into a universe of 3 (one parent): 2 of
# the 4 asked for (tests/c/dynspawn2.c).
start soft -n 1 --universe-size 3 "$BUILD/tests/c/dynspawn2" soft
finish soft

# 5. Two singleton jobs joined over a socketpair.
timeout 60 "$BUILD/tests/c/dynjoin" socketpair >"$dir/join" 2>&1 </dev/null
rc=$?
echo "--- join over a socketpair (exit $rc):"
cat "$dir/join"
[ "$rc" -eq 0 ] && [ "$(grep -c '^ No Errors' "$dir/join")" -eq 2 ] || fail "join over a socketpair"

left=$(pgrep -f "$dir" || true)
[ -z "$left" ] || fail "left running: $(ps -o pid,args -p "$(echo $left | tr ' ' ,)")"
new=$(shm_leaked "$before")
[ -z "$new" ] || fail "left behind in /dev/shm: $new"
echo "PASS: dynproc"
