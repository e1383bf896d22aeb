//go:build gmpi_abi

package main

// The MPI-5 standard ABI front (libmpi_abi.so): built with -tags gmpi_abi.
// GMPI_FRONT makes zz_pmpi.c's definitions the inner layer (zz_inner.h);
// the front's own C files (front_abi.c, zz_front_abi.c) export the MPI_X
// and PMPI_X symbols with the standard ABI's types.

// #cgo CFLAGS: -DGMPI_FRONT=1
import "C"

// frontABI names the ABI this build exports (MPI_Get_library_version).
const frontABI = "MPI-5 standard"
