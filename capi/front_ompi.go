//go:build gmpi_ompi

package main

// The Open MPI front (libmpi.so.40): built with -tags gmpi_ompi. GMPI_FRONT
// makes zz_pmpi.c's definitions the inner layer (zz_inner.h); the front's
// own C files (front_ompi*.c, zz_front_ompi.c) export the MPI_X and PMPI_X
// symbols with Open MPI's types.

// #cgo CFLAGS: -DGMPI_FRONT=1
// #cgo LDFLAGS: -ldl
import "C"

// frontABI names the ABI this build exports (MPI_Get_library_version).
const frontABI = "Open MPI 4.x"
