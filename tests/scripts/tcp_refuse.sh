#!/bin/bash
# tcp_refuse.sh BUILD: while a 2-rank job runs over the tcp device
# (GMPI_DEVICE=tcp, on loopback), foreign connections to a rank's
# listening socket - plain connect + garbage, and a handshake that gives
# a wrong proof (a wrong secret) - are closed by the rank, and the job
# still completes with correct results.
set -u
BUILD=$(cd "${1:?usage: $0 BUILD}" && pwd)
. "$(dirname "$0")/lib.sh"
need_build
command -v ss >/dev/null || skip "ss (iproute2) is not installed"

dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-tcpref.XXXXXX")
mpirun_pid=
cleanup() {
    local f p
    exec 3<&- 2>/dev/null
    [ -n "$mpirun_pid" ] && kill -KILL "$mpirun_pid" 2>/dev/null
    for f in "$dir"/rank*.pid; do
        [ -f "$f" ] || continue
        p=$(cat "$f")
        [ -n "$p" ] && kill -KILL "$p" 2>/dev/null
    done
    rm -rf "$dir"
}
trap cleanup EXIT

GMPI_DEVICE=tcp GMPI_DEBUG=1 "$BUILD/bin/mpirun" -n 2 --timeout 120 "$BUILD/tests/c/waitgo" "$dir" \
    >"$dir/out" 2>&1 </dev/null &
mpirun_pid=$!
t0=$(now)
while [ ! -s "$dir/rank1.pid" ] || [ ! -s "$dir/rank0.pid" ]; do
    kill -0 "$mpirun_pid" 2>/dev/null || { cat "$dir/out"; fail "mpirun ended before the ranks were up"; }
    awk -v a="$t0" -v b="$(now)" 'BEGIN { exit !(b - a > 60) }' && { cat "$dir/out"; fail "the ranks did not start within 60 s"; }
    sleep 0.1
done
pid=$(cat "$dir/rank1.pid")
port=$(ss -Hltnp | grep "pid=$pid," | awk '{ n = split($4, a, ":"); print a[n] }' | head -1)
[ -n "$port" ] || { ss -Hltnp; fail "no listening socket of rank 1 (pid $pid)"; }
echo "rank 1 (pid $pid) listens on port $port"

# attack NAME DATA: connect, send DATA (printf format), and require the
# rank to close the connection within 20 s.
attack() {
    exec 3<>"/dev/tcp/127.0.0.1/$port" || fail "$1: cannot connect to port $port"
    printf "$2" >&3
    timeout 20 cat <&3 >/dev/null 2>&1
    [ $? -eq 124 ] && fail "$1: the rank kept the connection open"
    exec 3<&-
    echo "$1: refused"
}
attack garbage 'GET / HTTP/1.0\r\nHost: localhost\r\nUser-Agent: not gmpi at all\r\n\r\n'
# A well-formed hello (GMPI, version 1, initiator, 32-byte nonce) followed
# by a proof that no secret of this job produces.
nonce='\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x20'
attack wrong-secret "GMPI\x01I${nonce}${nonce}"

touch "$dir/go"
if ! wait_exit "$mpirun_pid" 90; then
    cat "$dir/out"
    fail "the job did not finish within 90 s after the attacks"
fi
wait "$mpirun_pid"
rc=$?
mpirun_pid=
cat "$dir/out" | grep -v "^gmpi\[" | tail -5
[ $rc -eq 0 ] || { cat "$dir/out"; fail "mpirun exited $rc"; }
grep -q "^ No Errors" "$dir/out" || { cat "$dir/out"; fail "the job reported errors"; }
n=$(grep -c "refused connection" "$dir/out")
[ "$n" -ge 2 ] || { cat "$dir/out"; fail "rank 1 logged $n refused connections, want 2"; }
grep "refused connection" "$dir/out"
echo "PASS: foreign connections refused, job unaffected"
