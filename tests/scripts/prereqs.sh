#!/bin/bash
# prereqs.sh: makes sure the tools and Debian packages that the build and
# the tests use are installed. As root it installs what is missing with
# apt-get; otherwise it names the missing packages and fails.
set -euo pipefail

# Debian package -> a file that shows it is installed.
declare -A probe=(
    [cmake]=/usr/bin/cmake
    [gcc]=/usr/bin/gcc
    [make]=/usr/bin/make
    [libmpich-dev]=/usr/include/x86_64-linux-gnu/mpich/mpi.h
    [mpich]=/usr/bin/mpiexec.mpich
    [openmpi-bin]=/usr/bin/mpirun.openmpi
    [libopenmpi-dev]=/usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h
    [netpipe-mpich2]=/usr/bin/NPmpich2
    [procps]=/usr/bin/pgrep
    [binutils]=/usr/bin/readelf
    [scalapack-mpi-test]=/usr/lib/x86_64-linux-gnu/scalapack/mpich-tests/xdlu
    [python3-mpi4py]=/usr/lib/python3/dist-packages/mpi4py/__init__.py
    [netpipe-openmpi]=/usr/bin/NPopenmpi
)
order=(cmake gcc make libmpich-dev mpich openmpi-bin libopenmpi-dev netpipe-mpich2 procps binutils scalapack-mpi-test
    python3-mpi4py netpipe-openmpi)

missing=()
for pkg in "${order[@]}"; do
    [ -e "${probe[$pkg]}" ] || missing+=("$pkg")
done

if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then
        echo "prereqs: installing ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -q
        apt-get install -y -q --no-install-recommends "${missing[@]}"
    else
        echo "prereqs: missing Debian packages: ${missing[*]}" >&2
        echo "prereqs: install them with: sudo apt-get install -y ${missing[*]}" >&2
        exit 1
    fi
fi

# Optional packages: only some script tests use them (slurm.sh runs a
# private Slurm), and those skip without them. Installed as root when
# missing; a failed install is reported, not fatal.
declare -A optprobe=(
    [slurm-wlm]=/usr/sbin/slurmctld
    [munge]=/usr/sbin/munged
    [qemu-user-static]=/usr/bin/qemu-s390x-static
    [gcc-s390x-linux-gnu]=/usr/bin/s390x-linux-gnu-gcc
    [libc6-dev-s390x-cross]=/usr/s390x-linux-gnu/include/stdio.h
    [libhdf5-mpich-dev]=/usr/include/hdf5/mpich/hdf5.h
)
optional=()
for pkg in slurm-wlm munge qemu-user-static gcc-s390x-linux-gnu libc6-dev-s390x-cross libhdf5-mpich-dev; do
    [ -e "${optprobe[$pkg]}" ] || optional+=("$pkg")
done
if [ ${#optional[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then
        echo "prereqs: installing optional ${optional[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -q --no-install-recommends "${optional[@]}" ||
            { apt-get update -q && apt-get install -y -q --no-install-recommends "${optional[@]}"; } ||
            echo "prereqs: could not install ${optional[*]}: the Slurm, heterogeneous-grid and HDF5 tests will be skipped" >&2
    else
        echo "prereqs: optional packages missing (the Slurm, heterogeneous-grid and HDF5 tests will be skipped): ${optional[*]}" >&2
    fi
fi

# Go is not a Debian package here (the module needs a newer one): it must
# be on PATH or in /usr/local/go.
if ! command -v go >/dev/null && [ ! -x /usr/local/go/bin/go ]; then
    echo "prereqs: the Go toolchain (go 1.26 or later) is missing: install it in /usr/local/go" >&2
    exit 1
fi
exit 0
