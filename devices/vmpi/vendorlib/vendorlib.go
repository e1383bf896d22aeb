// Package vendorlib inspects a vendor MPI library without loading it
// (pure Go, debug/elf): which ABI it has and whether it exports every
// entry point the vmpi device calls. mpirun uses it to refuse a grid
// file's vendor MPI before anything starts; the device checks the same
// again when it loads the library (devices/vmpi/shim.c).
package vendorlib

import (
	"debug/elf"
	"fmt"
	"strings"
)

// ABI is a vendor library's binary interface. The values are the shim's
// VMPI_ABI_* (devices/vmpi/shim.h).
type ABI int

const (
	None    ABI = 0
	MPICH   ABI = 1 // integer handles: libmpich.so.12 (MPICH, Intel MPI, ...)
	OpenMPI ABI = 2 // pointer handles: libmpi.so.40
)

func (a ABI) String() string {
	switch a {
	case MPICH:
		return "MPICH"
	case OpenMPI:
		return "Open MPI"
	}
	return "unknown"
}

// Symbols are the entry points the vmpi device resolves (keep in step
// with vmpi_open in shim.c).
var Symbols = []string{"MPI_Init_thread", "MPI_Finalize", "MPI_Comm_dup", "MPI_Comm_free",
	"MPI_Comm_rank", "MPI_Comm_size", "MPI_Isend", "MPI_Irecv", "MPI_Recv", "MPI_Test", "MPI_Wait",
	"MPI_Cancel", "MPI_Get_count", "MPI_Error_string"}

// Markers tell the ABIs apart: Open MPI exports its predefined objects,
// MPICH its internal entry points.
var (
	openMPIMarkers = []string{"ompi_mpi_comm_world", "ompi_mpi_byte"}
	mpichMarkers   = []string{"MPII_Version_ABI", "MPIR_Err_create_code"}
)

// Inspect reads the dynamic symbols of the shared library at path and
// returns its ABI, or an error saying why the device could not use it.
func Inspect(path string) (ABI, error) {
	f, err := elf.Open(path)
	if err != nil {
		return None, fmt.Errorf("cannot load %s: %v", path, err)
	}
	defer f.Close()
	if f.Type != elf.ET_DYN {
		return None, fmt.Errorf("cannot load %s: not a shared library", path)
	}
	if f.Class != elf.ELFCLASS64 || f.Machine != elf.EM_X86_64 {
		return None, fmt.Errorf("cannot load %s: built for %v %v, not this machine", path, f.Class, f.Machine)
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		return None, fmt.Errorf("cannot load %s: %v", path, err)
	}
	have := map[string]bool{}
	for _, s := range syms {
		if s.Section != elf.SHN_UNDEF {
			have[s.Name] = true
		}
	}
	all := func(names []string) bool {
		for _, n := range names {
			if !have[n] {
				return false
			}
		}
		return true
	}
	var abi ABI
	switch {
	case all(openMPIMarkers):
		abi = OpenMPI
	case have[mpichMarkers[0]] || have[mpichMarkers[1]]:
		abi = MPICH
	default:
		return None, fmt.Errorf("%s: unknown MPI ABI (neither Open MPI's %s nor MPICH's %s is exported)",
			path, strings.Join(openMPIMarkers, "/"), strings.Join(mpichMarkers, "/"))
	}
	for _, n := range Symbols {
		if !have[n] {
			return None, fmt.Errorf("%s lacks the symbol %s", path, n)
		}
	}
	return abi, nil
}
