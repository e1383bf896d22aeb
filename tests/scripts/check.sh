#!/bin/bash
# check.sh BUILD: everything `make test` runs after the build: go vet, the
# gofmt check, go test and ctest. Every step runs even if an earlier one
# failed; the summary names the failures and the exit status is non-zero
# if there were any.
set -u
BUILD=${1:?usage: $0 BUILD}
cd "$(dirname "$0")/../.."
JOBS=${JOBS:-2}
failed=()

step() {
    local name=$1
    shift
    echo
    echo "==> $name: $*"
    if "$@"; then
        echo "==> $name: ok"
    else
        echo "==> $name: FAILED"
        failed+=("$name")
    fi
}

gofmt_check() {
    local files
    files=$(find . -name '*.go' -not -path './.git/*' -not -path "./$BUILD/*" -not -path './build/*' \
        -print0 | xargs -0 -r gofmt -l)
    if [ -n "$files" ]; then
        echo "not gofmt'ed (run gofmt -w):"
        echo "$files"
        return 1
    fi
}

# The generated ABI layer must match its spec and the hand-written entry
# points: regenerate into a scratch copy and compare.
generated_check() {
    local tmp
    tmp=$(mktemp -d) || return 1
    # tests/c/badargs_calls.h is generated from the same table.
    cp -r capi include "$tmp/" && cp go.mod go.sum "$tmp/" &&
        mkdir -p "$tmp/tests/c" && cp tests/c/badargs_calls.h "$tmp/tests/c/" &&
        ln -s "$PWD/runtime" "$PWD/devices" "$PWD/coll" "$tmp/" &&
        (cd "$tmp/capi" && go generate . >/dev/null) &&
        diff -r capi "$tmp/capi" >/dev/null && diff -r include "$tmp/include" >/dev/null &&
        diff tests/c/badargs_calls.h "$tmp/tests/c/badargs_calls.h" >/dev/null
    local rc=$?
    [ $rc -ne 0 ] && echo "generated files are stale: run 'cd capi && go generate .'"
    rm -rf "$tmp"
    return $rc
}

step "go vet" go vet ./...
step "go vet (Open MPI front)" go vet -tags gmpi_ompi ./capi
# ctest_run runs every test; one that fails is run once more (ctest
# --repeat until-pass:2) and fails the step only if it fails again. The
# first failure's output stays in the log, and the tests that needed the
# second run are listed at the end as flaky: a bug to find, not noise.
ctest_run() {
    local log rc flaky
    log=$(mktemp)
    (cd "$BUILD" && ctest --output-on-failure -j"$JOBS" --repeat until-pass:2) 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    flaky=$(awk '/Test +#[0-9]+: / {
            line = $0; sub(/.*Test +#[0-9]+: +/, "", line); split(line, f, " "); name = f[1]
            if ($0 ~ /Passed/) ok[name] = 1; else if ($0 ~ /\*\*\*|Failed|Timeout|Exception/) bad[name] = 1 }
        END { for (n in bad) if (n in ok) print n }' "$log" | sort | tr '\n' ' ')
    [ -n "$flaky" ] && echo "==> ctest: FLAKY (failed, then passed when run again): $flaky"
    rm -f "$log"
    return "$rc"
}

step "generated" generated_check
step "gofmt" gofmt_check
step "go test" go test -count=1 -timeout 20m ./...
step "go test -race" go test -race -count=1 -timeout 20m ./runtime/... ./devices/... ./coll/...
step "ctest" ctest_run

echo
if [ ${#failed[@]} -gt 0 ]; then
    echo "make test: FAILED: ${failed[*]}"
    exit 1
fi
echo "make test: all steps passed"
