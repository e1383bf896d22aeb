#!/bin/bash
# kill.sh BUILD: a job of 4 ranks blocks in MPI_Recv; SIGKILL one rank.
# mpirun must exit non-zero within 10 s naming the rank, no process of the
# job may remain, and no /dev/shm/gmpi-* entry may be left behind.
set -u
BUILD=$(cd "${1:?usage: $0 BUILD}" && pwd)
. "$(dirname "$0")/lib.sh"
need_build

dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-kill.XXXXXX")
mpirun_pid=
cleanup() {
    # End only what this test started: mpirun and the ranks that wrote
    # their pids.
    local f p
    [ -n "$mpirun_pid" ] && kill -KILL "$mpirun_pid" 2>/dev/null
    for f in "$dir"/rank*.pid; do
        [ -f "$f" ] || continue
        p=$(cat "$f")
        [ -n "$p" ] && kill -KILL "$p" 2>/dev/null
    done
    rm -rf "$dir"
}
trap cleanup EXIT

before=$(shm_entries)
"$BUILD/bin/mpirun" -n 4 --timeout 100 "$BUILD/tests/c/block" "$dir" >"$dir/out" 2>&1 </dev/null &
mpirun_pid=$!

# Wait for the four ranks to write their pids.
t0=$(now)
while [ "$(ls "$dir" | grep -c '^rank[0-9]*\.pid$')" -lt 4 ]; do
    if ! kill -0 "$mpirun_pid" 2>/dev/null; then
        cat "$dir/out"
        fail "mpirun ended before the ranks were up"
    fi
    if awk -v a="$t0" -v b="$(now)" 'BEGIN { exit !(b - a > 60) }'; then
        cat "$dir/out"
        fail "the ranks did not start within 60 s"
    fi
    sleep 0.1
done
pids=$(cat "$dir"/rank*.pid | tr '\n' ' ')
victim=$(cat "$dir/rank2.pid")
echo "ranks: $pids; killing rank 2 (pid $victim)"
sleep 0.5 # let the ranks reach MPI_Recv
kill -KILL "$victim"
t0=$(now)
if ! wait_exit "$mpirun_pid" 10; then
    cat "$dir/out"
    fail "mpirun still running 10 s after rank 2 was killed"
fi
wait "$mpirun_pid"
rc=$?
mpirun_pid=
echo "--- output (exit status $rc, $(elapsed "$t0") s after the kill):"
cat "$dir/out"
echo "---"
[ "$rc" -ne 0 ] || fail "mpirun exited 0 after a rank was killed"
grep -qiE 'rank[ =:#]*2([^0-9]|$)' "$dir/out" || fail "no message names rank 2"

# No process of the job remains (a short grace for the kernel to reap).
left=
for i in $(seq 20); do
    left=
    for p in $pids; do
        if kill -0 "$p" 2>/dev/null && ! grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null; then
            left="$left $p"
        fi
    done
    [ -z "$left" ] && break
    sleep 0.1
done
[ -z "$left" ] || fail "processes of the job still running after mpirun exited:$left"
if pgrep -f "$dir" >/dev/null; then
    pgrep -af "$dir"
    fail "processes of the job still running after mpirun exited"
fi

after=$(shm_entries)
new=$(comm -13 <(echo "$before") <(echo "$after") | grep . || true)
[ -z "$new" ] || fail "left behind in /dev/shm: $new"
echo "PASS: kill"
