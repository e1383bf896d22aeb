#!/bin/bash
# fuzz.sh: run every Go fuzz target of gmpi for a while each and print one
# line per target: package, target, execs per second, result.
#
#   bench/fuzz.sh [-t DURATION] [-l] [REGEXP]
#
#   -t DURATION  time per target (default 10m; e.g. -t 30s)
#   -l           only list the targets
#   REGEXP       only the targets whose "package target" matches
#
# Targets are found in the sources (every func FuzzX(f *testing.F) of a
# _test.go file of every package), so a new one is run without editing
# this script. A crasher lands in the package's testdata/fuzz/<Target>/
# (go test writes it there), so that the normal `go test` run replays it
# from then on; every target's seed corpus lives there too.
set -u
dur=10m
list=0
while getopts t:l o; do
    case $o in
    t) dur=$OPTARG ;;
    l) list=1 ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
filter=${1:-}
cd "$(dirname "$0")/.." || exit 1
export PATH=$PATH:/usr/local/go/bin
targets=()
for pkg in $(go list ./...); do
    dir=$(go list -f '{{.Dir}}' "$pkg")
    for t in $(grep -ho '^func Fuzz[A-Za-z0-9_]*(f \*testing\.F)' "$dir"/*_test.go 2>/dev/null | sed 's/^func //; s/(.*//' | sort); do
        if [ -z "$filter" ] || echo "${pkg#gmpi/} $t" | grep -Eq -- "$filter"; then
            targets+=("$pkg $t")
        fi
    done
done
if [ $list = 1 ]; then
    printf '%s\n' "${targets[@]}" | sed 's|^gmpi/||'
    exit 0
fi
echo "# ${#targets[@]} targets, $dur each; $(uptime)"
fail=0
printf '%-22s %-20s %12s  %s\n' package target execs/s result
for pt in "${targets[@]}"; do
    pkg=${pt% *}
    t=${pt#* }
    log=$(mktemp)
    go test "$pkg" -run '^$' -fuzz "^$t\$" -fuzztime "$dur" -parallel 1 >"$log" 2>&1
    rc=$?
    # Progress lines: "fuzz: elapsed: 30s, execs: 123456 (4115/sec), ...";
    # the final one reports 0/sec, so take the run's total over its time.
    rate=$(grep -o 'elapsed: [0-9ms]*, execs: [0-9]*' "$log" | tail -1 |
        awk '{t = $2; s = 0; if (t ~ /m/) { split(t, a, "m"); s = a[1] * 60; t = a[2] } sub("s", "", t); s += t;
              if (s > 0) printf "%d", $4 / s}')
    res=ok
    if [ $rc -ne 0 ] && ! grep -q 'Failing input written' "$log" &&
        [ "$(grep -c '^    context deadline exceeded$' "$log")" -eq 1 ] &&
        [ "$(grep -c -- '^--- FAIL' "$log")" -eq 1 ]; then
        # Go 1.26's fuzz coordinator may report its own -fuzztime
        # deadline as a failure, with no input (go.dev/issue/75804,
        # fixed in Go 1.27): the target ran its time clean.
        res="ok (go#75804: fuzztime deadline reported, no input)"
        rc=0
    fi
    if [ $rc -ne 0 ]; then
        res="FAIL ($(grep -m1 -o 'testdata/fuzz/[^ ]*' "$log" || echo "see $log"))"
        fail=1
    fi
    printf '%-22s %-20s %12s  %s\n' "${pkg#gmpi/}" "$t" "${rate:-?}" "$res"
    [ $rc -eq 0 ] && rm -f "$log"
done
echo "# done; $(uptime)"
exit $fail
