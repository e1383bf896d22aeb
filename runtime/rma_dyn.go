package mpirt

import (
	"sync/atomic"
	"unsafe"
)

// Dynamic windows: each rank's attached regions are a table of
// maxRegions (base, size) pairs in the control segment, so an origin checks
// a target address without the target's help. A free slot has base 0.

func (win *Win) region(t, i int) (base, size *uint64) {
	off := win.layout.regions + (win.lidx[t]*maxRegions+i)*regionSize
	return (*uint64)(unsafe.Pointer(&win.seg[off])), (*uint64)(unsafe.Pointer(&win.seg[off+8]))
}

// Attach is MPI_Win_attach.
func (win *Win) Attach(base unsafe.Pointer, size int64) error {
	if win.flavor != FlavorDynamic {
		return Errorf(ErrRMAFlavor, "", "MPI_Win_attach needs a window of MPI_Win_create_dynamic")
	}
	if size < 0 {
		return Errorf(ErrSize, "", "invalid size argument: %d is negative", size)
	}
	if base == nil {
		return Errorf(ErrRMAAttach, "", "cannot attach memory at NULL")
	}
	win.mu.Lock()
	defer win.mu.Unlock()
	me := win.comm.Rank()
	lo, hi := uint64(uintptr(base)), uint64(uintptr(base))+uint64(size)
	free := -1
	for i := 0; i < maxRegions; i++ {
		pb, ps := win.region(me, i)
		b := atomic.LoadUint64(pb)
		if b == 0 {
			if free < 0 {
				free = i
			}
			continue
		}
		if e := b + atomic.LoadUint64(ps); lo < e && b < hi || b == lo {
			return Errorf(ErrRMAAttach, "", "memory [%#x, %#x) overlaps a region attached already", lo, hi)
		}
	}
	if free < 0 {
		return Errorf(ErrRMAAttach, "", "already %d regions attached to the window (the most gmpi keeps)", maxRegions)
	}
	if win.net != nil {
		// For the origins of other hosts.
		if err := win.net.attach(base, size); err != nil {
			return err
		}
	}
	pb, ps := win.region(me, free)
	atomic.StoreUint64(ps, uint64(size))
	atomic.StoreUint64(pb, lo)
	win.regions[uintptr(base)] = free
	return nil
}

// Detach is MPI_Win_detach.
func (win *Win) Detach(base unsafe.Pointer) error {
	if win.flavor != FlavorDynamic {
		return Errorf(ErrRMAFlavor, "", "MPI_Win_detach needs a window of MPI_Win_create_dynamic")
	}
	win.mu.Lock()
	defer win.mu.Unlock()
	i, ok := win.regions[uintptr(base)]
	if !ok {
		return Errorf(ErrRMAAttach, "", "memory at %p is not attached to the window", base)
	}
	if win.net != nil {
		if err := win.net.detach(base); err != nil {
			return err
		}
	}
	pb, ps := win.region(win.comm.Rank(), i)
	atomic.StoreUint64(pb, 0)
	atomic.StoreUint64(ps, 0)
	delete(win.regions, uintptr(base))
	return nil
}

// attached reports whether [addr, addr+n) lies in one region rank t
// attached.
func (win *Win) attached(t int, addr uintptr, n int64) bool {
	lo, hi := uint64(addr), uint64(addr)+uint64(n)
	for i := 0; i < maxRegions; i++ {
		pb, ps := win.region(t, i)
		b := atomic.LoadUint64(pb)
		if b != 0 && lo >= b && hi <= b+atomic.LoadUint64(ps) {
			return true
		}
	}
	return false
}
