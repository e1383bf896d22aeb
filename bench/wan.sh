#!/bin/bash
# wan.sh: wide-area collectives and the ASP kernel (bench/wan.c) on an
# emulated grid of S sites x H hosts (one rank per host, 10 ms one way and
# 1 MB/s between any two sites, nothing added inside a site), for gmpi,
# MPICH and Open MPI in the same run, printed next to the wide-area lower
# bound of issue 13. Needs root (network namespaces).
#
# usage: bench/wan.sh [-b BUILD] [-I IMPLS] [-x VAR=VAL]... [-g SxH] [-r REPS]
#                     [-i ITERS] [-a N] [-o OPS]
#   -b  gmpi build directory (default <repo>/build)
#   -I  implementations to run (default "gmpi mpich openmpi")
#   -x  an environment variable for gmpi's processes (repeatable)
#   -g  grid shape (default 4x2; 2x4 also has a grid file)
#   -r  repetitions, median printed (default 3)
#   -i  calls per timed loop (default 10)
#   -a  ASP problem size N (default 256; 0: no ASP)
#   -o  the collectives (default: barrier bcast8 bcast64k allreduce8
#       allreduce64k allgather8 allgather64k alltoall8)
#
# How each runs on the same emulated network:
#   gmpi     mpirun --grid examples/grid-SxH.toml --emulate wan ...
#   MPICH    mpirun __emu-helper shell with the same sites, hosts and
#            links; mpiexec.mpich in the first host, ranks started on the
#            others through the emulator's ssh look-alike (emussh).
#   Open MPI the same, mpirun.openmpi with plm_rsh_agent emussh, pml ob1,
#            btl tcp,self on the emulated addresses.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../build shape=4x2 reps=3 iters=10 aspn=256
ops="barrier bcast8 bcast64k allreduce8 allreduce64k allgather8 allgather64k alltoall8"
impls="gmpi mpich openmpi" genv=()
while getopts b:I:x:g:r:i:a:o: o; do
    case $o in
    b) build=$OPTARG ;;
    I) impls=$OPTARG ;;
    x) genv+=(-x "$OPTARG") ;;
    g) shape=$OPTARG ;;
    r) reps=$OPTARG ;;
    i) iters=$OPTARG ;;
    a) aspn=$OPTARG ;;
    o) ops=$OPTARG ;;
    *) sed -n '2,/^set -u/p' "$0" | grep '^#' >&2; exit 2 ;;
    esac
done
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: bench/wan.sh needs root (network namespaces)"
    exit 77
fi
build=$(cd "$build" && pwd) || exit 2
grid=$here/../examples/grid-$shape.toml
[ -f "$grid" ] || { echo "wan.sh: no grid file $grid" >&2; exit 2; }
S=${shape%x*} H=${shape#*x} P=$((${shape%x*} * ${shape#*x}))
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-wanbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

src=$here/wan.c
"$build/bin/mpicc" -O2 -o "$tmp/wan.gmpi" "$src" || exit 2
mpicc.mpich -O2 -o "$tmp/wan.mpich" "$src" 2>/dev/null || echo "# MPICH: cannot build" >&2
mpicc.openmpi -O2 -o "$tmp/wan.openmpi" "$src" 2>/dev/null || echo "# Open MPI: cannot build" >&2

# The emulator's topology for the shell mode: the grid file's hosts
# (s<site>h<host>) and one link per pair of sites.
emu=() hosts=
for s in $(seq 0 $((S - 1))); do
    hs=
    for h in $(seq 0 $((H - 1))); do hs=$hs${hs:+,}s${s}h$h; done
    emu+=(-site "site$s=$hs")
    hosts=$hosts${hosts:+,}$hs
    for t in $(seq $((s + 1)) $((S - 1))); do emu+=(-link "site$s-site$t,10ms,1e6"); done
done
args="-r $reps -i $iters $ops"
[ "$aspn" -gt 0 ] && args="$args asp:$aspn"

# inhost CMD: run CMD in the first emulated host of a shell-mode grid
# with the same topology, its output in $tmp/out.part; once the program
# printed "done", give the launcher 5 s to finish, then stop it (MPICH's
# UCX may hang in MPI_Finalize across hosts; the results are out by then).
inhost() {
    timeout 900 "$build/bin/mpirun" __emu-helper shell "${emu[@]}" sh -c \
        "$1 >$tmp/out.part 2>&1 & pid=\$!
         while kill -0 \$pid 2>/dev/null && ! grep -q '^done' $tmp/out.part; do sleep 1; done
         for i in 1 2 3 4 5; do kill -0 \$pid 2>/dev/null && sleep 1; done
         kill \$pid 2>/dev/null; wait \$pid; exit 0" >/dev/null 2>&1
    cat "$tmp/out.part"
}

run() { # impl -> raw output on stdout
    case $1 in
    gmpi) timeout 900 "$build/bin/mpirun" --timeout 880 "${genv[@]}" --grid "$grid" --emulate "$tmp/wan.gmpi" $args ;;
    mpich)
        [ -x "$tmp/wan.mpich" ] || return 1
        inhost "mpiexec.mpich -launcher ssh -launcher-exec \$GMPI_EMU_SSH -hosts $hosts -n $P -ppn 1 \
             -genv UCX_TLS tcp,self $tmp/wan.mpich $args" ;;
    openmpi)
        [ -x "$tmp/wan.openmpi" ] || return 1
        inhost "mpirun.openmpi --allow-run-as-root --mca plm_rsh_agent \$GMPI_EMU_SSH --mca pml ob1 \
             --mca btl tcp,self --mca btl_tcp_if_include 10.77.0.0/16 --mca oob_tcp_if_include 10.77.0.0/16 \
             --host $hosts -np $P $tmp/wan.openmpi $args" ;;
    esac
}

echo "# $(date -u '+%F %T') UTC, grid $shape ($P ranks), load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $impls; do
    run $i >"$tmp/$i.out" 2>"$tmp/$i.err" </dev/null
done

# The wide-area bound (issue 13): L = 10 ms, B = 1 MB/s, m bytes, H ranks
# per site; bcast/allreduce of m: L + m/B with one flat tree (the split
# vector can beat it); allgather: L + H*m/B; small operations: L.
bound() {
    case $1 in
    bcast64k | allreduce64k) awk 'BEGIN { printf "%.1f", 10 + 65536 / 1e3 }' ;;
    allgather64k) awk -v h="$H" 'BEGIN { printf "%.1f", 10 + h * 65536 / 1e3 }' ;;
    asp:*) echo - ;;
    *) echo 10.0 ;;
    esac
}
val() { awk -v k="$1" '$1 == k { print $2; exit }' "$tmp/$2.out" 2>/dev/null; }
printf "%-14s %10s %10s %10s %10s %9s %9s\n" "op (ms)" gmpi mpich openmpi bound gmpi/bnd ompi/gmpi
for op in $ops ${aspn:+asp:$aspn}; do
    [ "$op" = asp:0 ] && continue
    g=$(val "$op" gmpi) a=$(val "$op" mpich) o=$(val "$op" openmpi) b=$(bound "$op")
    r1=$(awk -v g="${g:--}" -v b="$b" 'BEGIN { if (g == "-" || b == "-") print "-"; else printf "%.2fx", g / b }')
    r2=$(awk -v g="${g:--}" -v o="${o:--}" 'BEGIN { if (g == "-" || o == "-") print "-"; else printf "%.2fx", o / g }')
    printf "%-14s %10s %10s %10s %10s %9s %9s\n" "$op" "${g:--}" "${a:--}" "${o:--}" "$b" "$r1" "$r2"
done
for i in $impls; do
    c=$(awk '$1 ~ /^asp:/ { print $3 }' "$tmp/$i.out")
    [ -n "$c" ] && echo "# $i ASP checksum $c"
    grep -q . "$tmp/$i.out" 2>/dev/null || { echo "# $i produced nothing; its stderr:"; head -5 "$tmp/$i.err"; }
done
