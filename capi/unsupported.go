package main

import "C"

// errUnsupportedOperation is MPI_ERR_UNSUPPORTED_OPERATION in the MPICH ABI.
const errUnsupportedOperation = 44

// gmpi_unsupported is what the generated PMPI_X stub of every function
// without an implementation calls (zz_pmpi.c). It raises
// MPI_ERR_UNSUPPORTED_OPERATION through the error handler of comm (the
// function's first communicator argument, else MPI_COMM_WORLD) and returns
// the resulting error code, so the call fails honestly instead of
// pretending to succeed.
//
//export gmpi_unsupported
func gmpi_unsupported(name *C.char, comm C.int) (rc C.int) {
	fn := C.GoString(name)
	defer func() {
		if r := recover(); r != nil {
			rc = C.int(panicked(fn, r))
		}
	}()
	return C.int(raiseError(int32(comm), errUnsupportedOperation, "gmpi: "+fn+" is not supported yet"))
}
