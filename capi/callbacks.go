package main

// #include <stdlib.h>
// extern int gmpi_call_copy_fn(void *fn, int oldobj, int keyval, void *extra_state, void *attribute_val_in, void *attribute_val_out, int *flag);
// extern int gmpi_call_delete_fn(void *fn, int obj, int keyval, void *attribute_val, void *extra_state);
// extern void gmpi_call_comm_errhandler(void *fn, int *comm, int *code);
// extern void gmpi_call_file_errhandler(void *fn, void **file, int *code);
import "C"

import (
	"unsafe"

	mpirt "gmpi/runtime"
)

// callCopy runs a C attribute copy callback (MPI_Comm_copy_attr_function
// and its MPI-1, datatype and window twins, which share the C ABI).
func callCopy(fn uintptr, obj, keyval mpirt.Handle, extra, val uintptr) (out uintptr, keep bool, rc int) {
	var flag C.int
	r := C.gmpi_call_copy_fn(ptr(fn), C.int(obj), C.int(keyval), ptr(extra), ptr(val), unsafe.Pointer(&out), &flag)
	return out, flag != 0, int(r)
}

// callDelete runs a C attribute delete callback.
func callDelete(fn uintptr, obj, keyval mpirt.Handle, val, extra uintptr) int {
	return int(C.gmpi_call_delete_fn(ptr(fn), C.int(obj), C.int(keyval), ptr(val), ptr(extra)))
}

// callCommErrhandler runs a user communicator error handler.
func callCommErrhandler(fn uintptr, comm mpirt.Handle, code int32) {
	ch, cc := C.int(comm), C.int(code)
	C.gmpi_call_comm_errhandler(ptr(fn), &ch, &cc)
}

// callFileErrhandler runs a user file error handler on the file handle
// fh (MPI_File is a pointer in the MPICH ABI).
func callFileErrhandler(fn uintptr, fh unsafe.Pointer, code int32) {
	cc := C.int(code)
	C.gmpi_call_file_errhandler(ptr(fn), &fh, &cc)
}

// ptr turns a C address kept as uintptr back into a pointer for a C call.
// The address is C memory (or an opaque user value), never Go memory.
func ptr(p uintptr) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&p))
}

// cMalloc allocates n bytes of zeroed C memory.
func cMalloc(n int) unsafe.Pointer { return C.calloc(1, C.size_t(n)) }

// cFree releases memory from cMalloc.
func cFree(p unsafe.Pointer) { C.free(p) }
