package main

import "C"

import (
	"unsafe"

	mpirt "gmpi/runtime"
)

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

// gmpi_raise_arg raises MPI_ERR_ARG for function name with message msg
// through MPI_COMM_WORLD's error handler: the ABI fronts' hand-written
// functions (capi/front_*.c) report bad arguments with it.
//
//export gmpi_raise_arg
func gmpi_raise_arg(name, msg *C.char) (rc C.int) {
	fn := C.GoString(name)
	defer func() {
		if r := recover(); r != nil {
			rc = C.int(panicked(fn, r))
		}
	}()
	return C.int(raiseError(0x44000000, mpirt.ErrArg, fn+": "+C.GoString(msg)))
}

// gmpi_raise_class raises the inner error class cls for function name
// with message msg through MPI_COMM_WORLD's error handler: a front raises
// it for an argument its own ABI refuses but the inner layer would accept
// (an info key longer than the front's MPI_MAX_INFO_KEY).
//
//export gmpi_raise_class
func gmpi_raise_class(name *C.char, cls C.int, msg *C.char) (rc C.int) {
	fn := C.GoString(name)
	defer func() {
		if r := recover(); r != nil {
			rc = C.int(panicked(fn, r))
		}
	}()
	return C.int(raiseError(0x44000000, int32(cls), fn+": "+C.GoString(msg)))
}

// The argument kinds an unimplemented function checks before it reports
// MPI_ERR_UNSUPPORTED_OPERATION (capi/internal/gen/unsupported.go derives
// them from the API table).
const (
	uComm = iota
	uInfo
	uType
	uGroup
	uErrhandler
	uFile
	uCount
	uRoot
	uOffset
	uBuf
)

// uarg is one argument of an unimplemented function: a handle or number
// in v, a pointer in p.
type uarg struct {
	kind int
	name string
	v    int64
	p    unsafe.Pointer
}

// unsupportedArgs checks the arguments of unimplemented function fn in
// order (communicators first, a buffer once its count and datatype are
// known), raising the
// first bad one's class through the error handler of the function's
// communicator (else MPI_COMM_WORLD's), then reports the function as not
// supported.
func unsupportedArgs(fn string, args []uarg) int32 {
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	var c *mpirt.Comm
	var dt *mpirt.Datatype
	var buf *uarg
	count := int64(-1)
	// Communicators first: the others' errors go to the first one's
	// handler, and a root is a rank of it.
	for _, a := range args {
		if a.kind == uComm {
			cc, rc := namedComm(fn, int32(a.v), a.name)
			if rc != 0 {
				return rc
			}
			if c == nil {
				c = cc
			}
		}
	}
	for i := range args {
		a := &args[i]
		var rc int32
		switch a.kind {
		case uInfo:
			_, rc = infoArg(fn, c, int32(a.v), a.name, true)
		case uType:
			dt, rc = datatype(fn, c, int32(a.v), a.name)
		case uGroup:
			_, rc = groupArg(fn, c, int32(a.v), a.name)
		case uErrhandler:
			_, rc = errhandlerArg(fn, c, int32(a.v), a.name, mpirt.ObjFile)
		case uFile:
			// No file can be open while the I/O functions are missing.
			if a.p == nil {
				rc = failf(fn, c, mpirt.ErrFile, "invalid file argument %s: MPI_FILE_NULL", a.name)
			} else {
				rc = failf(fn, c, mpirt.ErrFile, "invalid file argument %s: %p is not an open file", a.name, a.p)
			}
		case uCount:
			count = a.v
			rc = checkCount(fn, c, a.v, a.name)
		case uRoot:
			if c != nil && !c.IsInter() && (a.v < 0 || a.v >= int64(c.Size())) {
				rc = failf(fn, c, mpirt.ErrRoot, "invalid root argument %s: %d (communicator size %d)", a.name, a.v, c.Size())
			}
		case uOffset:
			if a.v < 0 {
				rc = failf(fn, c, mpirt.ErrArg, "invalid argument %s: %d is negative", a.name, a.v)
			}
		case uBuf:
			buf = a
		}
		if rc != 0 {
			return rc
		}
	}
	if buf != nil && dt != nil && count > 0 && !mpirt.IsInPlace(buf.p) {
		if rc := checkBuf(fn, c, buf.p, count, dt, buf.name); rc != 0 {
			return rc
		}
	}
	return failf(fn, c, errUnsupportedOperation, "gmpi: %s is not supported yet", fn)
}
