package main

// #include <stdint.h>
// extern void gmpi_call_user_op(void *fn, uintptr_t in, uintptr_t inout, int len, int dt);
// extern void gmpi_call_user_op_c(void *fn, uintptr_t in, uintptr_t inout, long len, int dt);
import "C"

import (
	"unsafe"

	mpirt "gmpi/runtime"
)

// User reduction operations: the runtime's UserOp gets a closure that
// calls the user's C function through the shims in userop.c.

func opCreate(fn string, f unsafe.Pointer, commute int32, op *int32, large bool) int32 {
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if f == nil {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument user_fn: NULL function pointer")
	}
	if op == nil {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument op: NULL pointer")
	}
	fp := uintptr(f)
	u := &mpirt.UserOp{Commutative: commute != 0, Large: large}
	if large {
		u.Fn = func(in, inout uintptr, count int, dt mpirt.Handle) {
			C.gmpi_call_user_op_c(ptr(fp), C.uintptr_t(in), C.uintptr_t(inout), C.long(count), C.int(dt))
		}
	} else {
		u.Fn = func(in, inout uintptr, count int, dt mpirt.Handle) {
			C.gmpi_call_user_op(ptr(fp), C.uintptr_t(in), C.uintptr_t(inout), C.int(count), C.int(dt))
		}
	}
	*op = int32(mpirt.AddUserOp(u))
	return 0
}

func MPI_Op_create(f unsafe.Pointer, commute int32, op *int32) int32 {
	return opCreate("MPI_Op_create", f, commute, op, false)
}

func MPI_Op_create_c(f unsafe.Pointer, commute int32, op *int32) int32 {
	return opCreate("MPI_Op_create_c", f, commute, op, true)
}

func MPI_Op_free(op *int32) int32 {
	const fn = "MPI_Op_free"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if op == nil {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument op: NULL pointer")
	}
	if err := mpirt.FreeOp(mpirt.Handle(*op)); err != nil {
		return fail(fn, nil, err)
	}
	*op = int32(mpirt.HandleOpNull)
	return 0
}

func MPI_Op_commutative(op int32, commute *int32) int32 {
	const fn = "MPI_Op_commutative"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	h := mpirt.Handle(op)
	if !mpirt.IsPredefinedOp(h) && mpirt.LookupUserOp(h) == nil {
		return failf(fn, nil, mpirt.ErrOp, "invalid op argument op: 0x%08x is not an operation", uint32(op))
	}
	if commute == nil {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument commute: NULL pointer")
	}
	*commute = 0
	if h.IsCommutative() {
		*commute = 1
	}
	return 0
}

func reduceLocal(fn string, in, inout unsafe.Pointer, count int64, dtH, op int32) int32 {
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if rc := checkCount(fn, nil, count, "count"); rc != 0 {
		return rc
	}
	d, rc := datatype(fn, nil, dtH, "datatype")
	if rc != 0 {
		return rc
	}
	if err := mpirt.CheckOp(mpirt.Handle(op), d); err != nil {
		return fail(fn, nil, err)
	}
	if count == 0 || d.Size() == 0 {
		return 0
	}
	if mpirt.IsInPlace(in) || mpirt.IsInPlace(inout) {
		return failf(fn, nil, mpirt.ErrBuffer, "invalid buffer argument inbuf/inoutbuf: MPI_IN_PLACE")
	}
	if rc := checkBuf(fn, nil, in, count, d, "inbuf"); rc != 0 {
		return rc
	}
	if rc := checkBuf(fn, nil, inout, count, d, "inoutbuf"); rc != 0 {
		return rc
	}
	n := (int(count)-1)*d.Extent() + d.TrueExtent()
	a := unsafe.Slice((*byte)(unsafe.Add(in, d.TrueLB())), n)
	b := unsafe.Slice((*byte)(unsafe.Add(inout, d.TrueLB())), n)
	return fail(fn, nil, mpirt.ReduceLocal(mpirt.Handle(op), d, a, b, int(count)))
}

func MPI_Reduce_local(in, inout unsafe.Pointer, count, dtH, op int32) int32 {
	return reduceLocal("MPI_Reduce_local", in, inout, int64(count), dtH, op)
}

func MPI_Reduce_local_c(in, inout unsafe.Pointer, count int64, dtH, op int32) int32 {
	return reduceLocal("MPI_Reduce_local_c", in, inout, count, dtH, op)
}
