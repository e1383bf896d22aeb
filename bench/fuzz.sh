#!/bin/bash
# fuzz.sh: run every Go fuzz target of gmpi for a while each and print one
# line per target: package, target, execs per second, result.
#
#   bench/fuzz.sh [-t DURATION]      (default 10m per target, e.g. -t 30s)
#
# A crasher lands in the package's testdata/fuzz/<Target>/ (go test writes
# it there), so that the normal `go test` run replays it from then on.
set -u
dur=10m
while getopts t: o; do
    case $o in
    t) dur=$OPTARG ;;
    *) exit 2 ;;
    esac
done
cd "$(dirname "$0")/.." || exit 1
export PATH=$PATH:/usr/local/go/bin
fail=0
printf '%-22s %-18s %12s  %s\n' package target execs/s result
for pkg in $(go list ./... | grep -v /capi); do
    dir=$(go list -f '{{.Dir}}' "$pkg")
    for t in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //'); do
        log=$(mktemp)
        go test "$pkg" -run '^$' -fuzz "^$t\$" -fuzztime "$dur" -parallel 1 >"$log" 2>&1
        rc=$?
        # Progress lines: "fuzz: elapsed: 30s, execs: 123456 (4115/sec), ...";
        # the final one reports 0/sec, so take the run's total over its time.
        rate=$(grep -o 'elapsed: [0-9ms]*, execs: [0-9]*' "$log" | tail -1 |
            awk '{t = $2; s = 0; if (t ~ /m/) { split(t, a, "m"); s = a[1] * 60; t = a[2] } sub("s", "", t); s += t;
                  if (s > 0) printf "%d", $4 / s}')
        res=ok
        if [ $rc -ne 0 ]; then
            res="FAIL ($(grep -m1 -o 'testdata/fuzz/[^ ]*' "$log" || echo "see $log"))"
            fail=1
        fi
        printf '%-22s %-18s %12s  %s\n' "${pkg#gmpi/}" "$t" "${rate:-?}" "$res"
        [ $rc -eq 0 ] && rm -f "$log"
    done
done
exit $fail
