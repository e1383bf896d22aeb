# lib.sh: helpers for the script tests. Source it after setting BUILD.

# fail prints a message and exits 1.
fail() {
    echo "FAIL: $*"
    exit 1
}

# skip exits with ctest's skip code.
skip() {
    echo "SKIP: $*"
    exit 77
}

# need_build checks that the build has what the tests run.
need_build() {
    [ -x "$BUILD/bin/mpirun" ] || fail "$BUILD/bin/mpirun is missing (build first)"
    [ -e "$BUILD/lib/libmpi.so" ] || fail "$BUILD/lib/libmpi.so is missing (build first)"
}

# excerpt [N]: stdin's first N lines (default 30) and, if there are more
# than 2N, "...", then its last N. A crash dump from Go starts with the
# cause (panic, fatal error, signal) and ends with a list of goroutines:
# a tail alone would show only the list.
excerpt() {
    awk -v n="${1:-30}" '{ line[NR] = $0 }
        END {
            if (NR <= 2 * n) { for (i = 1; i <= NR; i++) print line[i]; exit }
            for (i = 1; i <= n; i++) print line[i]
            print "... (" NR - 2 * n " lines)"
            for (i = NR - n + 1; i <= NR; i++) print line[i]
        }'
}

# scratch_and_jobs NAME: $dir, a new scratch directory, and $pids, a list
# the script appends its background processes to; when the script exits
# they are killed and the directory removed.
scratch_and_jobs() {
    dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-$1.XXXXXX")
    pids=()
    trap 'kill_jobs; rm -rf "$dir"' EXIT
}

# kill_jobs kills every process of $pids that still runs.
kill_jobs() {
    local p
    for p in "${pids[@]}"; do
        kill -KILL "$p" 2>/dev/null
    done
}

# ns_entries lists the grid emulator's network namespaces (gmpi-PID-...).
ns_entries() {
    ip netns list 2>/dev/null | awk '$1 ~ /^gmpi-[0-9]+-/ { print $1 }' | sort
}

# ns_leaked BEFORE lists the namespaces that are not in BEFORE (an
# ns_entries list) and whose emulator (the PID in the name) has ended:
# ours left behind, not those of another test's job still running.
ns_leaked() {
    local n pid
    for n in $(comm -13 <(echo "$1") <(ns_entries)); do
        pid=${n#gmpi-}
        pid=${pid%%-*}
        kill -0 "$pid" 2>/dev/null || echo "$n"
    done
}

# now prints the time in seconds with a fraction.
now() {
    date +%s.%N
}

# elapsed T0 prints the seconds since T0, to one decimal.
elapsed() {
    awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'
}

# wait_exit PID SECONDS waits up to SECONDS for a process to end;
# returns 1 if it is still running then.
wait_exit() {
    local pid=$1 limit=$2 t0
    t0=$(now)
    while kill -0 "$pid" 2>/dev/null; do
        if awk -v a="$t0" -v b="$(now)" -v l="$limit" 'BEGIN { exit !(b - a > l) }'; then
            return 1
        fi
        sleep 0.05
    done
    return 0
}

# shm_entries lists the gmpi segments in /dev/shm.
shm_entries() {
    ls -1 /dev/shm 2>/dev/null | grep '^gmpi-' | sort
}

# shm_leaked BEFORE lists the gmpi segments in /dev/shm that are not in
# BEFORE (a shm_entries list) and whose owner is gone: a segment is named
# gmpi-PID-... after the mpirun (or rank) that made it, and one whose
# process still runs belongs to a job still going, e.g. another test's
# under ctest -j.
shm_leaked() {
    local s pid
    comm -13 <(echo "$1") <(shm_entries) | while read -r s; do
        [ -n "$s" ] || continue
        pid=${s#gmpi-}
        pid=${pid%%-*}
        case $pid in
        '' | *[!0-9]*) echo "$s" ;;
        *) kill -0 "$pid" 2>/dev/null || [ ! -e "/dev/shm/$s" ] || echo "$s" ;;
        esac
    done
}
