#!/bin/bash
# bench_smoke.sh BUILD: bench/run.sh builds bench/mpibench.c against gmpi
# and runs every benchmark with tiny iteration counts; each must finish and
# print well-formed results (every size once, positive numbers) and the
# tables. Timings are never checked. Also checks that mpibench rejects bad
# options.
set -u
BUILD=$(cd "${1:?usage: $0 BUILD}" && pwd)
. "$(dirname "$0")/lib.sh"
need_build
BENCH=$(cd "$(dirname "$0")/../../bench" && pwd)
MAX=65536

dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-bench-smoke.XXXXXX")
trap 'rm -rf "$dir"' EXIT

echo "+ bench/run.sh -b $BUILD -i gmpi -r 2 -R 1 -s 0.002 -m $MAX -t 60 -o $dir/raw"
"$BENCH/run.sh" -b "$BUILD" -i gmpi -r 2 -R 1 -s 0.002 -m $MAX -t 60 -o "$dir/raw" >"$dir/table" 2>&1
rc=$?
cat "$dir/table"
[ $rc -eq 0 ] || fail "run.sh exited $rc"

# sizes FIRST: FIRST, then powers of two up to MAX.
sizes() {
    local s=$1
    [ "$s" = 0 ] && { echo 0; s=1; }
    while [ "$s" -le $MAX ]; do echo "$s"; s=$((s * 2)); done
}
# wellformed METRIC EXPECTED-SIZES: the raw output holds exactly one
# "METRIC SIZE VALUE" line per expected size, in order, VALUE a positive
# number, plus '#' comments and nothing else.
wellformed() {
    local m=$1 f=$dir/raw/gmpi.$1 want got
    shift
    [ -s "$f" ] || fail "no output for $m"
    awk -v m="$m" '
        /^#/ { next }
        $1 != m || NF != 3 || $2 !~ /^[0-9]+$/ || $3 !~ /^[0-9]+(\.[0-9]+)?$/ || $3 + 0 <= 0 {
            print "bad line: " $0; bad = 1
        }
        END { exit bad }' "$f" || fail "malformed $m output"
    want=$(printf '%s\n' "$@")
    got=$(awk '!/^#/ { print $2 }' "$f")
    [ "$want" = "$got" ] || fail "$m sizes: got $(echo $got), want $(echo $want)"
    grep -q "^== $m: " "$dir/table" || fail "no $m table"
    echo "ok: $m ($(grep -vc '^#' "$f") lines)"
}
wellformed latency $(sizes 0)
wellformed bw $(sizes 1)
wellformed bibw $(sizes 1)
wellformed rate 8
wellformed ring 4

# The table rows: gmpi has a number, the implementations not run show "-".
row=$(awk '/^== latency:/ { t = 1; next } t && $1 == 8 { print; exit }' "$dir/table")
echo "$row" | awk '$2 + 0 > 0 && $3 == "-" && $4 == "-" && $5 == "-" { ok = 1 } END { exit !ok }' ||
    fail "latency row for 8 bytes is not 'size value - - -': $row"
grep -q "MPICH: SKIPPED" "$dir/table" || fail "run.sh does not say MPICH was left out"

# Bad options: usage message and a non-zero exit, no hang.
"$BUILD/bin/mpicc" -O2 -o "$dir/mpibench" "$BENCH/mpibench.c" 2>"$dir/cc.err" ||
    { cat "$dir/cc.err"; fail "mpicc mpibench.c"; }
for bad in "-r 0" "-x mean" "-w 65" "nosuchbench"; do
    # shellcheck disable=SC2086
    "$BUILD/bin/mpirun" -n 2 --timeout 20 "$dir/mpibench" $bad >"$dir/bad.out" 2>&1 </dev/null
    rc=$?
    [ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "mpibench $bad: exit status $rc"
    grep -q '^usage: mpibench' "$dir/bad.out" || fail "mpibench $bad: no usage message"
done
echo "ok: bad options rejected"
echo "PASS: bench_smoke"
