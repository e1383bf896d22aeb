//go:build !gmpi_ompi && !gmpi_abi

package main

// frontABI names the ABI this build of the library exports (in
// MPI_Get_library_version).
const frontABI = "MPICH"
