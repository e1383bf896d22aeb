package shm

// All pointer arithmetic of the package lives in this file.
//
// The segments are mapped with mmap outside the Go heap, so the garbage
// collector neither scans nor moves them: it is safe to hold *uint32 and
// *uint64 into them and to operate on those with sync/atomic. The reverse
// is not: a Go pointer must never be stored in a segment (another process
// would read a meaningless address, and the collector would not see the
// reference). Only integers and plain-data headers (mpirt.Header has no
// pointers) are written there. Accessors take a byte offset into a mapping
// and index it once, so every access is bounds-checked against the mapping.

import (
	"unsafe"

	"golang.org/x/sys/unix"

	mpirt "gmpi/runtime"
)

// The header is copied into the ring byte for byte and must keep the
// payload that follows it 8-byte aligned.
var _ [0]struct{} = [mpirt.HeaderSize % 8]struct{}{}

// mapShared maps size bytes of fd read-write and shared.
func mapShared(fd int, size int) ([]byte, error) {
	p, err := unix.MmapPtr(fd, 0, nil, uintptr(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	return unsafe.Slice((*byte)(p), size), nil
}

// unmap releases a mapping made by mapShared (or what is left of it).
func unmap(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return unix.MunmapPtr(unsafe.Pointer(unsafe.SliceData(b)), uintptr(len(b)))
}

// detachKeepingFirstPage unmaps b but leaves private anonymous memory at
// the address of its first page, holding a copy of that page's first
// ctrlKeep bytes. The process doorbell lives there and the runtime may keep
// using the Waker after the device closed; this way its words stay valid
// (no longer shared, so no peer rings it any more). len(b) must be a
// multiple of the page size and at least one page.
func detachKeepingFirstPage(b []byte, pageSize int) error {
	var saved [ctrlKeep]byte
	copy(saved[:], b)
	base := unsafe.Pointer(unsafe.SliceData(b))
	if len(b) > pageSize {
		if err := unix.MunmapPtr(unsafe.Add(base, pageSize), uintptr(len(b)-pageSize)); err != nil {
			return err
		}
	}
	_, err := unix.MmapPtr(-1, 0, base, uintptr(pageSize), unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_FIXED)
	if err != nil {
		return err
	}
	copy(unsafe.Slice((*byte)(base), pageSize), saved[:])
	return nil
}

// addrOf is the virtual address of b in this process (published so that
// peers can probe process_vm_readv against it).
func addrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// u64 is the 8-byte word at b[off]; off must be 8-byte aligned.
func u64(b []byte, off uint64) *uint64 { return (*uint64)(unsafe.Pointer(&b[off])) }

// u32 is the 4-byte word at b[off]; off must be 4-byte aligned.
func u32(b []byte, off uint64) *uint32 { return (*uint32)(unsafe.Pointer(&b[off])) }

// storeHeader copies *h into b at off (8-byte aligned, bounds checked).
func storeHeader(b []byte, off uint64, h *mpirt.Header) {
	_ = b[off+uint64(mpirt.HeaderSize)-1]
	*(*mpirt.Header)(unsafe.Pointer(&b[off])) = *h
}

// loadHeader copies the header at b[off] into *h.
func loadHeader(h *mpirt.Header, b []byte, off uint64) {
	_ = b[off+uint64(mpirt.HeaderSize)-1]
	*h = *(*mpirt.Header)(unsafe.Pointer(&b[off]))
}

// readv copies len(dst) bytes (at most maxRW) from addr in process pid.
func readv(pid int, dst []byte, addr uintptr) (int, error) {
	local := [1]unix.Iovec{{Base: unsafe.SliceData(dst)}}
	local[0].SetLen(len(dst))
	remote := [1]unix.RemoteIovec{{Base: addr, Len: len(dst)}}
	return unix.ProcessVMReadv(pid, local[:], remote[:], 0)
}

// writev copies src (at most maxRW bytes) to addr in process pid.
func writev(pid int, src []byte, addr uintptr) (int, error) {
	local := [1]unix.Iovec{{Base: unsafe.SliceData(src)}}
	local[0].SetLen(len(src))
	remote := [1]unix.RemoteIovec{{Base: addr, Len: len(src)}}
	return unix.ProcessVMWritev(pid, local[:], remote[:], 0)
}
