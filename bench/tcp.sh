#!/bin/bash
# tcp.sh: TCP latency (8 B) and bandwidth (1 MiB) between two network
# namespaces joined by a veth pair, for gmpi (tcp device), MPICH and
# Open MPI in the same run, with the ratios gmpi/best. Needs root (skips
# otherwise). Everything it creates (namespaces gmpib0/gmpib1, the veth
# pair) is removed on exit.
#
# usage: bench/tcp.sh [-b BUILD] [-r REPS] [-R ROUNDS] [-i IMPLS]
#   -b  gmpi build directory (default <repo>/build)
#   -i  implementations to run (default "gmpi mpich openmpi")
#   -r  repetitions per launch, median taken (default 5)
#   -R  rounds: every implementation runs ROUNDS times, alternating, and
#       the best round counts (default 3)
#
# How each runs across the namespaces:
#   gmpi     build/bin/mpirun -n 2 WRAP prog: WRAP enters gmpib$PMI_RANK
#            (PMI_FD is inherited) and sets GMPI_HOSTNAME and GMPI_TCP_IF.
#   MPICH    mpiexec.mpich in gmpib0 with an ssh-like launcher that runs a
#            command in the namespace owning the host address; UCX_TLS=tcp,self.
#   Open MPI mpirun.openmpi in gmpib0, same launcher as plm_rsh_agent,
#            pml ob1, btl tcp,self, --bind-to none, and rank r pinned to
#            CPU r by taskset (PIN), the placement gmpi's mpirun gives.
#            Its own binding is wrong here: mpirun and the orted in the
#            other namespace each bind their local rank 0 to core 0, so
#            both polling ranks shared one CPU and every message waited
#            for a time slice (8 B latency 4 ms, 13-18 ms loaded). With
#            1/20 of the iterations (-s 0.05): on a loaded host its busy
#            polling makes the full counts run into the time limit.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../build reps=5 rounds=3 impls="gmpi mpich openmpi"
while getopts b:r:R:i: o; do
    case $o in
    b) build=$OPTARG ;;
    r) reps=$OPTARG ;;
    R) rounds=$OPTARG ;;
    i) impls=$OPTARG ;;
    *) sed -n '2,/^set -u/p' "$0" | grep '^#' >&2; exit 2 ;;
    esac
done
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: bench/tcp.sh needs root (network namespaces)"
    exit 77
fi
build=$(cd "$build" && pwd) || exit 2
ns0=gmpib0 ns1=gmpib1 ip0=10.77.0.1 ip1=10.77.0.2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-tcpbench.XXXXXX")
cleanup() {
    # Whatever still runs in our namespaces (an Open MPI orted, a rank
    # left by a timeout) is ours: end it before the namespaces go.
    for ns in $ns0 $ns1; do
        pids=$(ip netns pids $ns 2>/dev/null)
        [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
    done
    [ -n "${child:-}" ] && kill -TERM $child 2>/dev/null
    ip netns del $ns0 2>/dev/null
    ip netns del $ns1 2>/dev/null
    [ -n "${KEEP:-}" ] && echo "# outputs kept in $tmp" >&2 || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
cleanup
mkdir -p "$tmp"

ip netns add $ns0 && ip netns add $ns1 || exit 1
ip link add gmpib-a netns $ns0 type veth peer name gmpib-b netns $ns1 || exit 1
for n in 0 1; do
    ns=gmpib$n
    eval ip=\$ip$n
    dev=gmpib-a
    [ $n = 1 ] && dev=gmpib-b
    ip -n $ns addr add $ip/24 dev $dev
    ip -n $ns link set $dev up
    ip -n $ns link set lo up
    ip netns exec $ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1
done

# The launcher: "WRAP [options] HOST COMMAND..." runs COMMAND in the
# namespace that owns HOST (an address), like ssh would on that host.
cat >"$tmp/rsh" <<EOS
#!/bin/bash
while [ \$# -gt 0 ] && [ "\${1#-}" != "\$1" ]; do shift; done
host=\$1; shift
case \$host in $ip0) ns=$ns0 ;; $ip1) ns=$ns1 ;; *) echo "rsh: unknown host \$host" >&2; exit 255 ;; esac
# Its own host name too (UTS namespace), as a real host would have.
exec ip netns exec \$ns unshare --uts sh -c "hostname \$ns; \$*"
EOS
# gmpi's wrapper: rank r runs in gmpib<r>, as host h<r> on its address.
cat >"$tmp/gwrap" <<EOS
#!/bin/sh
case \$PMI_RANK in 0) ip=$ip0 ;; *) ip=$ip1 ;; esac
exec ip netns exec gmpib\$PMI_RANK env GMPI_HOSTNAME=h\$PMI_RANK GMPI_TCP_IF=\$ip "\$@"
EOS
# Open MPI's ranks: rank r on CPU r, like gmpi's (see the header).
cat >"$tmp/pin" <<'EOS'
#!/bin/sh
r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
n=$(nproc)
exec taskset -c $((r % n)) "$@"
EOS
chmod +x "$tmp/rsh" "$tmp/gwrap" "$tmp/pin"

src=$here/mpibench.c
"$build/bin/mpicc" -O2 -o "$tmp/b.gmpi" "$src" || exit 2
mpicc.mpich -O2 -o "$tmp/b.mpich" "$src" 2>/dev/null || echo "# MPICH: cannot build" >&2
mpicc.openmpi -O2 -o "$tmp/b.openmpi" "$src" 2>/dev/null || echo "# Open MPI: cannot build" >&2
# Latency only at 8 bytes (the sweep below it is cheap), bandwidth up to
# 1 MiB: two launches, so that a slow implementation on a loaded host
# still finishes.
lat="-r $reps -m 8 latency" bw="-r $reps -m 1048576 bw"

run() { # impl -> raw output on stdout
    run1 "$1" $lat
    run1 "$1" $bw
}
run1() { # impl args...
    local impl=$1
    shift
    case $impl in
    gmpi) timeout 300 "$build/bin/mpirun" -n 2 "$tmp/gwrap" "$tmp/b.gmpi" "$@" ;;
    mpich)
        [ -x "$tmp/b.mpich" ] || return 1
        # MPICH's UCX may hang in MPI_Finalize across hosts: results are
        # printed before that, so the timeout is harmless.
        timeout 120 ip netns exec $ns0 unshare --uts sh -c "hostname $ns0; exec \"\$@\"" sh mpiexec.mpich -launcher ssh -launcher-exec "$tmp/rsh" \
            -iface gmpib-a -hosts $ip0,$ip1 -n 2 -ppn 1 -genv UCX_TLS tcp,self \
            "$tmp/b.mpich" "$@" ;;
    openmpi)
        [ -x "$tmp/b.openmpi" ] || return 1
        timeout 300 ip netns exec $ns0 unshare --uts sh -c "hostname $ns0; exec \"\$@\"" sh mpirun.openmpi --allow-run-as-root --mca plm_rsh_agent "$tmp/rsh" \
            --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include 10.77.0.0/24 \
            --mca oob_tcp_if_include 10.77.0.0/24 --bind-to none --host $ip0,$ip1 -np 2 "$tmp/pin" "$tmp/b.openmpi" -s 0.05 "$@" ;;
    esac
}

# In the background, so that a signal ends the script (and cleanup kills
# the job) at once rather than after the running launch.
for k in $(seq "$rounds"); do
    for i in $impls; do
        run $i >"$tmp/$i.$k" 2>"$tmp/$i.$k.err" </dev/null &
        child=$!
        wait $child
        child=
    done
done
# best LINEKEY IMPL MODE: best value over rounds (min for latency, max for bw).
best() {
    cat "$tmp/$2".[0-9]* 2>/dev/null | awk -v k="$1" -v m="$3" '
        $1 " " $2 == k { v = $3 + 0; if (!n++ || (m == "min" ? v < b : v > b)) b = v }
        END { if (n) printf "%.2f", b; else printf "-" }'
}
printf "%-22s %10s %10s %10s %8s\n" metric gmpi mpich openmpi ratio
for m in "latency 8|min|us" "bw 1048576|max|MB/s"; do
    key=${m%%|*} rest=${m#*|} mode=${rest%%|*} unit=${rest#*|}
    g=$(best "$key" gmpi $mode) a=$(best "$key" mpich $mode) o=$(best "$key" openmpi $mode)
    ratio=$(awk -v g="$g" -v a="$a" -v o="$o" -v m=$mode 'BEGIN {
        b = ""; if (a != "-") b = a; if (o != "-" && (b == "" || (m == "min" ? o < b : o > b))) b = o
        if (g == "-" || b == "") print "-"; else printf "%.2fx", g / b }')
    printf "%-22s %10s %10s %10s %8s\n" "$key ($unit)" "$g" "$a" "$o" "$ratio"
done
echo "# ratio: gmpi / best peer (latency: lower is better, target <= 1.0x; bandwidth: higher is better, target >= 1.1x)"
for i in $impls; do
    grep -q . "$tmp/$i.1" 2>/dev/null || { echo "# $i produced nothing; its stderr:"; head -5 "$tmp/$i.1.err"; }
done
