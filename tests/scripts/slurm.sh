#!/bin/bash
# slurm.sh BUILD TEST...: gmpi under Slurm. Starts a private one-node
# Slurm on this machine (munged with a fresh key, slurmctld and slurmd
# with their own config, ports, state and spool directories under a
# temporary directory; no cgroups, linuxproc process tracking), checks that
# `srun --mpi=list` offers pmi2, then runs each named C test from
# BUILD/tests/c as `srun -n 4 --mpi=pmi2 PROGRAM` (our library through
# its rpath; the PMI-2 client chosen from Slurm's PMI_JOBID), plus hello
# with GMPI_PMI=1 (Slurm's pmi2 plugin also speaks PMI-1) and our mpirun
# with a grid machine whose launcher is srun. Each must exit 0 and print
# " No Errors". Slurm and munge are shut down on exit, whatever happens.
#
# Needs root (the daemons) and Debian's slurm-wlm and munge packages
# (tests/scripts/prereqs.sh installs them as root); skips otherwise.
set -u
BUILD=$(cd "${1:?usage: $0 BUILD TEST...}" && pwd)
shift
. "$(dirname "$0")/lib.sh"
need_build
[ "$(id -u)" -eq 0 ] || skip "slurm.sh needs root (it starts slurmctld, slurmd and munged)"
for b in slurmctld slurmd srun sinfo scontrol munged mungekey; do
    command -v $b >/dev/null || skip "$b is missing (apt-get install slurm-wlm munge)"
done
[ $# -gt 0 ] || set -- ring

T=$(mktemp -d /tmp/gmpi-slurm.XXXXXX)
chmod 755 "$T"
pids=()
cleanup() {
    # scontrol shutdown asks both daemons to stop; then everything we
    # started is killed by pid (never by name: other jobs may run Slurm).
    [ -f "$T/slurm.conf" ] && SLURM_CONF="$T/slurm.conf" timeout 10 scontrol shutdown >/dev/null 2>&1
    for p in "${pids[@]}" $(cat "$T"/*.pid 2>/dev/null); do
        wait_exit "$p" 5 || kill -KILL "$p" 2>/dev/null
    done
    if [ -n "${KEEP_SLURM_LOGS:-}" ]; then
        cp "$T"/*.log "$KEEP_SLURM_LOGS"/ 2>/dev/null
    fi
    rm -rf "$T"
}
trap cleanup EXIT

# A free TCP port on the loopback interface.
free_port() {
    local p
    for _ in $(seq 50); do
        p=$((20000 + RANDOM % 20000))
        ss -Hltn "sport = :$p" 2>/dev/null | grep -q . || { echo $p; return; }
    done
    fail "no free port"
}

# munge: a fresh key and a private socket.
mungekey -c -k "$T/munge.key" >/dev/null 2>&1 || fail "mungekey failed"
chmod 600 "$T/munge.key"
munged -f --socket="$T/munge.sock" --key-file="$T/munge.key" --pid-file="$T/munged.pid" \
    --log-file="$T/munged.log" --seed-file="$T/munged.seed" || fail "munged did not start: $(cat "$T/munged.log" 2>/dev/null)"

host=$(hostname -s)
mkdir -p "$T/ctld" "$T/spool"
cat >"$T/slurm.conf" <<EOF
ClusterName=gmpitest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/munge
AuthInfo=socket=$T/munge.sock
CredType=cred/munge
StateSaveLocation=$T/ctld
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
InactiveLimit=0
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=4 State=UNKNOWN
PartitionName=gmpi Nodes=$host Default=YES MaxTime=10 State=UP OverSubscribe=YES
EOF
export SLURM_CONF="$T/slurm.conf"
slurmctld -D -i -f "$T/slurm.conf" >"$T/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N "$host" -f "$T/slurm.conf" >"$T/slurmd.out" 2>&1 &
pids+=($!)

t0=$(now)
until [ "$(sinfo -h -n "$host" -o %T 2>/dev/null)" = idle ]; do
    if awk -v a="$t0" -v b="$(now)" 'BEGIN { exit !(b - a > 60) }'; then
        tail -20 "$T"/slurmctld.log "$T"/slurmd.log "$T"/*.out
        fail "the Slurm node did not become idle in 60 s (state: $(sinfo -h -n "$host" -o %T 2>&1))"
    fi
    sleep 0.5
done
echo "slurm up in $(elapsed "$t0") s: $(sinfo -h -o '%P %D %T %c')"

echo "+ srun --mpi=list"
srun --mpi=list 2>&1 | tee "$T/mpilist"
grep -q pmi2 "$T/mpilist" || fail "srun --mpi=list does not offer pmi2"

out="$T/out"
# run NAME DESCRIPTION COMMAND...: runs a job, passes on exit 0 and " No Errors".
run() {
    local what=$1
    shift
    echo "+ $*"
    timeout -k 5 240 "$@" >"$out" 2>&1 </dev/null
    local rc=$?
    cat "$out"
    [ $rc -eq 0 ] || fail "$what exited with status $rc"
    grep -q ' No Errors' "$out" || fail "$what did not print \" No Errors\""
}

# PMI-2 is what the library picks under srun --mpi=pmi2.
run "hello (PMI-2, GMPI_DEBUG)" env GMPI_DEBUG=1 srun -n 4 --mpi=pmi2 "$BUILD/tests/c/hello"
grep -q 'PMI-2' "$out" || fail "the library did not report using PMI-2 under srun --mpi=pmi2"
[ "$(grep -c '^Hello from rank .* of 4' "$out")" -eq 4 ] || fail "hello: not 4 ranks of 4"
run "hello (GMPI_PMI=1)" env GMPI_PMI=1 srun -n 4 --mpi=pmi2 "$BUILD/tests/c/hello"

for t in "$@"; do
    run "$t under srun" srun -n 4 --mpi=pmi2 "$BUILD/tests/c/$t"
done
# MPI_Comm_spawn under srun: refused with MPI_ERR_SPAWN, naming Slurm.
run "dynspawn2 under srun" srun -n 1 --mpi=pmi2 "$BUILD/tests/c/dynspawn2"
grep -q 'refused: .*MPI_ERR_SPAWN.*Slurm' "$out" || fail "spawn under srun was not refused naming Slurm"

# Our mpirun starting a grid machine through srun: the ranks join the
# gmpi job over TCP PMI to mpirun, like ssh-started ones.
cat >"$T/grid.toml" <<EOF
[[site]]
name = "local"
  [[site.machine]]
  name = "viasrun"
  launcher = "srun"
  procs = 2
  hosts = ["$host"]
  [[site.machine]]
  name = "direct"
  launcher = "local"
  procs = 2
  hosts = ["direct1"]         # runs here under that name: tcp to the others
EOF
run "mpirun --grid (one machine through srun)" "$BUILD/bin/mpirun" --grid "$T/grid.toml" --timeout 200 "$BUILD/tests/c/g2topo"
run "mpirun --launcher srun" "$BUILD/bin/mpirun" --launcher srun -n 4 --timeout 200 "$BUILD/tests/c/ring"
echo "ok: slurm ($*), $(elapsed "$t0") s after start"
exit 0
