package main

// #include <stdlib.h>
// static void *gmpi_alloc_aligned(size_t n, size_t align) {
//     void *p = NULL;
//     if (align <= sizeof(void *)) return malloc(n);
//     return posix_memalign(&p, align, n) == 0 ? p : NULL;
// }
import "C"

import (
	"strconv"
	"sync"
	"unsafe"

	mpirt "gmpi/runtime"
)

// MPI_Alloc_mem and MPI_Free_mem hand out C heap memory (malloc, or
// posix_memalign when the info key mpi_minimum_memory_alignment asks for
// more than malloc's alignment), which C code may use freely and which the
// Go collector never moves or scans. The table of live blocks lets
// MPI_Free_mem refuse a pointer that MPI_Alloc_mem did not return instead
// of corrupting the C heap.

// allocTable is the set of live MPI_Alloc_mem blocks.
type allocTable struct {
	mu   sync.Mutex
	live map[uintptr]int64 // base address → size
}

func (t *allocTable) add(p unsafe.Pointer, size int64) {
	t.mu.Lock()
	if t.live == nil {
		t.live = make(map[uintptr]int64)
	}
	t.live[uintptr(p)] = size
	t.mu.Unlock()
}

// remove forgets p; false when p is not a live block.
func (t *allocTable) remove(p unsafe.Pointer) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.live[uintptr(p)]; !ok {
		return false
	}
	delete(t.live, uintptr(p))
	return true
}

// allocAlignment is the alignment the info asks for (0: none); a value
// that is not a power of two is ignored, as an unknown hint is.
func allocAlignment(in *mpirt.Info) int64 {
	if in == nil {
		return 0
	}
	v, ok := in.Get("mpi_minimum_memory_alignment")
	if !ok {
		return 0
	}
	a, err := strconv.ParseInt(v, 10, 64)
	if err != nil || a <= 0 || a&(a-1) != 0 {
		return 0
	}
	return a
}

func MPI_Alloc_mem(size int64, infoH int32, baseptr unsafe.Pointer) int32 {
	const fn = "MPI_Alloc_mem"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if size < 0 {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument size: %d is negative", size)
	}
	if baseptr == nil {
		return badPointer(fn, "baseptr")
	}
	in, rc := infoArg(fn, nil, infoH, "info", true)
	if rc != 0 {
		return rc
	}
	n := size
	if n == 0 {
		n = 1 // a distinct pointer that MPI_Free_mem accepts
	}
	p := C.gmpi_alloc_aligned(C.size_t(n), C.size_t(allocAlignment(in)))
	if p == nil {
		return failf(fn, nil, mpirt.ErrNoMem, "cannot allocate %d bytes", size)
	}
	allocs.add(p, size)
	*(*unsafe.Pointer)(baseptr) = p
	return 0
}

func MPI_Free_mem(base unsafe.Pointer) int32 {
	const fn = "MPI_Free_mem"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if base == nil {
		return 0 // as free(NULL), and as MPICH
	}
	if !allocs.remove(base) {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument base: %p was not returned by MPI_Alloc_mem (or was freed already)", base)
	}
	C.free(base)
	return 0
}
