#!/bin/sh
# Smoke test of gmpi's mpirun with real MPICH-linked clients (the Go tests
# in mpirun/ cover the launcher itself: go test ./mpirun/... ./runtime/pmi/...).
#
# Builds mpirun, installs it also as mpiexec, and runs, when available:
#   - a C MPI hello built with mpicc.mpich, on 1..4 processes
#   - NetPIPE for MPICH (NPmpich2) on 2 processes, few repetitions
# Usage: tests/launcher/smoke.sh   (from anywhere; needs go)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/mpirun" ./mpirun)
ln -s mpirun "$tmp/mpiexec"
fail=0

"$tmp/mpiexec" --version | grep -q '^mpiexec (gmpi)' || { echo "FAIL: mpiexec --version"; fail=1; }

if command -v mpicc.mpich >/dev/null 2>&1; then
    mpicc.mpich -o "$tmp/hello" "$root/mpirun/testdata/mpich_hello.c"
    for n in 1 2 3 4; do
        out=$("$tmp/mpiexec" -n $n --timeout 30 "$tmp/hello")
        got=$(printf '%s\n' "$out" | grep -c "of $n sum $((n * (n - 1) / 2))" || true)
        if [ "$got" -eq $n ]; then echo "ok: MPICH hello -n $n"; else echo "FAIL: MPICH hello -n $n: $out"; fail=1; fi
    done
    set +e
    "$tmp/mpirun" -n 3 --timeout 30 "$tmp/hello" 1 2>"$tmp/err" >/dev/null
    rc=$?
    set -e
    if [ $rc -eq 3 ] && grep -q 'rank 1 .*MPI_Abort with error code 3' "$tmp/err"; then
        echo "ok: MPICH MPI_Abort"
    else
        echo "FAIL: MPICH MPI_Abort: rc=$rc $(cat "$tmp/err")"; fail=1
    fi
else
    echo "skip: mpicc.mpich not installed"
fi

if command -v NPmpich2 >/dev/null 2>&1; then
    if (cd "$tmp" && "$tmp/mpirun" -n 2 --timeout 60 NPmpich2 -u 65536 -n 20 -o "$tmp/np.out" >"$tmp/np.log" 2>&1); then
        echo "ok: NPmpich2 -u 65536 -n 20"
    else
        echo "FAIL: NPmpich2: $(tail -5 "$tmp/np.log")"; fail=1
    fi
else
    echo "skip: NPmpich2 (netpipe-mpich2) not installed"
fi
exit $fail
