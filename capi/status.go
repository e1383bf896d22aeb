package main

// Status is MPI_Status as C lays it out in the MPICH ABI (include/mpi.h):
// five ints. The byte count is CountLo (low 32 bits) plus
// CountHiAndCancelled>>1 (high bits); bit 0 of CountHiAndCancelled is the
// cancelled flag, as in MPICH. The generated shims hand MPI_Status* parameters
// to the Go functions as *Status.
type Status struct {
	CountLo             int32
	CountHiAndCancelled int32
	Source              int32
	Tag                 int32
	Error               int32
}
