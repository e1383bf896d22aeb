#!/bin/bash
# io.sh: builds bench/io.c against gmpi, Debian's MPICH (ROMIO) and
# Debian's Open MPI (OMPIO) and runs it on each at 2 and 4 ranks in the
# same directory (same file system, page cache warm after the first
# repetition), printing MB/s and the ratio gmpi / best peer (> 1: gmpi is
# faster). See the header of io.c for what is measured.
#
# usage: bench/io.sh [-b BUILD] [-n 2,4] [-s MiB] [-d DIR] [-i gmpi,mpich,openmpi]
#                     [-R ROUNDS] [-a LIBDIR]
#   -b  gmpi build directory (default: <repo>/build)
#   -n  comma-separated process counts (default 2,4)
#   -s  size of the 3-D array in MiB (default 256)
#   -d  directory for the file (default: $TMPDIR or /tmp)
#   -i  implementations to run
#   -R  launches of each implementation, alternating (default 1); each
#       cell is the best of them (on a loaded machine single runs vary
#       by several times)
#   -a  another gmpi libmpi.so directory (e.g. a copy of an older build's
#       lib/): column gmpi_a runs the same gmpi binary with it
#       (LD_LIBRARY_PATH), for before/after in one run
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../build nps=2,4 mib=256 dir=${TMPDIR:-/tmp} impls=gmpi,mpich,openmpi rounds=1 alib=
while getopts b:n:s:d:i:R:a:h opt; do
    case $opt in
    b) build=$OPTARG ;; n) nps=$OPTARG ;; s) mib=$OPTARG ;; d) dir=$OPTARG ;; i) impls=$OPTARG ;;
    R) rounds=$OPTARG ;; a) alib=$(cd "$OPTARG" && pwd) || exit 2 ;;
    *) sed -n '2,/^set -u/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    esac
done
build=$(cd "$build" 2>/dev/null && pwd) || { echo "io.sh: no build directory" >&2; exit 2; }
tmp=$(mktemp -d "$dir/gmpi-iobench-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
declare -A cc run
cc[gmpi]=$build/bin/mpicc run[gmpi]="$build/bin/mpirun -n"
cc[mpich]=mpicc.mpich run[mpich]="mpiexec.mpich -n"
cc[openmpi]=mpicc.openmpi run[openmpi]="mpiexec.openmpi --oversubscribe -n"
# Open MPI refuses to run as root without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
IFS=, read -ra want <<<"$impls"
have=()
for impl in "${want[@]}"; do
    if command -v "${cc[$impl]}" >/dev/null 2>&1 && "${cc[$impl]}" -O2 -o "$tmp/io.$impl" "$here/io.c" 2>"$tmp/cc.$impl"; then
        have+=("$impl")
    else
        echo "io.sh: $impl: cannot build (skipped)" >&2
    fi
done
if [ -n "$alib" ] && [[ " ${have[*]} " == *" gmpi "* ]]; then
    have=(gmpi gmpi_a "${have[@]:1}")
    cp "$tmp/io.gmpi" "$tmp/io.gmpi_a"
    run[gmpi_a]="env LD_LIBRARY_PATH=$alib ${run[gmpi]}"
fi
declare -A bw
status=0
IFS=, read -ra counts <<<"$nps"
for np in "${counts[@]}"; do
    for ((round = 0; round < rounds; round++)); do
        for impl in "${have[@]}"; do
            mkdir -p "$tmp/d.$impl"
            if ! out=$(timeout 900 ${run[$impl]} "$np" "$tmp/io.$impl" "$tmp/d.$impl" "$mib" 2>"$tmp/err.$impl"); then
                echo "io.sh: $impl at $np ranks failed:" >&2
                tail -5 "$tmp/err.$impl" >&2
                status=1
                continue
            fi
            while read -r name mbs _; do
                old=${bw[$impl,$np,$name]:-0}
                bw[$impl,$np,$name]=$(awk -v a="$old" -v b="$mbs" 'BEGIN{print (b>a)?b:a}')
            done <<<"$out"
        done
    done
done
echo "# MB/s (best of $rounds launch(es)), $mib MiB array; load: $(cut -d' ' -f1-3 /proc/loadavg); dir: $dir${alib:+; gmpi_a: $alib}"
printf '%-14s %3s' test np
for impl in "${have[@]}"; do printf ' %10s' "$impl"; done
printf ' %12s\n' gmpi/best
for np in "${counts[@]}"; do
    for name in coll_write coll_read indep_write indep_read ordered_write; do
        printf '%-14s %3s' "$name" "$np"
        best=
        for impl in "${have[@]}"; do
            v=${bw[$impl,$np,$name]:-}
            printf ' %10s' "${v:-n/a}"
            if [ "${impl%_a}" != gmpi ] && [ -n "$v" ]; then
                best=$(awk -v a="${best:-0}" -v b="$v" 'BEGIN{print (b>a)?b:a}')
            fi
        done
        g=${bw[gmpi,$np,$name]:-}
        if [ -n "$g" ] && [ -n "$best" ]; then
            printf ' %12s\n' "$(awk -v g="$g" -v b="$best" 'BEGIN{printf "%.2f", g/b}')"
        else
            printf ' %12s\n' n/a
        fi
    done
done
exit $status
