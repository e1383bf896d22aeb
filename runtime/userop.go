package mpirt

import (
	"math"
	goruntime "runtime"
	"unsafe"
)

// UserOp is an operation created with MPI_Op_create(_c). The runtime never
// calls C: capi fills Fn with a closure that calls the user's C function
// through a shim.
type UserOp struct {
	Handle      Handle
	Commutative bool
	// Fn computes inout[i] = in[i] op inout[i] for count elements of the
	// datatype dt, whose element 0 starts at the given addresses (Go or C
	// memory kept alive by the caller). count fits a C int unless the op
	// was created with MPI_Op_create_c (Large).
	Fn    func(in, inout uintptr, count int, dt Handle)
	Large bool
}

// userOps holds the user ops of the process. It is the one exception to
// "no package-level mutable state" in the runtime: reductions name their
// operation by handle (ReduceLocal(op, ...) is called by coll without a
// World), so the handle must resolve without one. Handles are unique per
// process, so several Worlds in one test process share it harmlessly.
var userOps = NewHandleTable[*UserOp](ObjOp)

// AddUserOp registers u and returns its handle (MPI_Op_create).
func AddUserOp(u *UserOp) Handle {
	h := userOps.Add(u)
	u.Handle = h
	return h
}

// LookupUserOp returns the user op named by h, nil for any other handle.
func LookupUserOp(h Handle) *UserOp {
	if h.Kind() != KindDirect {
		return nil
	}
	u, ok := userOps.Get(h)
	if !ok {
		return nil
	}
	return u
}

// FreeOp releases a user op (MPI_Op_free). Reductions already running
// with it keep their reference.
func FreeOp(h Handle) error {
	if IsPredefinedOp(h) {
		return Errorf(ErrOp, "", "invalid op argument op: predefined operation %s cannot be freed", OpName(h))
	}
	if !userOps.Remove(h) {
		if h == HandleOpNull {
			return Errorf(ErrOp, "", "invalid op argument op: MPI_OP_NULL")
		}
		return Errorf(ErrOp, "", "invalid op argument op: %v is not an operation", h)
	}
	return nil
}

// apply calls the user function on buffers in memory layout (starting at
// TrueLB of element 0), in chunks a C int can count.
func (u *UserOp) apply(dt *Datatype, in, inout []byte, count int) {
	origin := -dt.trueLB
	pin := uintptr(unsafe.Pointer(unsafe.SliceData(in)))
	pio := uintptr(unsafe.Pointer(unsafe.SliceData(inout)))
	chunk := count
	if !u.Large {
		chunk = math.MaxInt32
	}
	for done := 0; done < count; {
		n := min(chunk, count-done)
		off := uintptr(origin + done*dt.extent)
		u.Fn(pin+off, pio+off, n, dt.Handle)
		done += n
	}
	goruntime.KeepAlive(in)
	goruntime.KeepAlive(inout)
}
