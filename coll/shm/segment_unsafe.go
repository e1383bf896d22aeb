package shm

// All pointer arithmetic of the package lives in this file.
//
// A segment is mapped with mmap outside the Go heap, so the garbage
// collector neither scans nor moves it: holding *uint64 and *uint32 into it
// and using sync/atomic on them is safe. No Go pointer is ever stored in a
// segment; only counters and user data bytes are.

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Layout of a segment for n ranks (all offsets from the mapping's start):
//
//	rank r's control block at r*ctlBytes:
//	  +0         step   uint64  the last step rank r completed (only r writes it)
//	  +lineBytes epoch  uint32  rank r sleeps on this futex word
//	             waiters uint32 rank r is about to sleep (or sleeps)
//	rank r's private block at privOff(n) + r*privBytes(n) (only rank r
//	  uses it; it is here so that the C express lane shares it):
//	  private{step, next, lastUse[smallSlots]}, then seen [n]uint64
//	data area at dataOff = roundUp(privOff(n)+n*privBytes(n), page): rank r's data at
//	  dataOff + r*dataBytes: a ring of small slots (smallBytes), then a
//	  ring of large slots (largeBytes). Only r writes its slots, except
//	  that a reduction folds partial results into the slice it owns of
//	  rank n-1's slots (see ops.go).
const (
	lineBytes = 128 // two cache lines: adjacent-line prefetch stays inside
	ctlBytes  = 2 * lineBytes

	smallSlot = 256
	// smallSlots bounds how far a rank that only writes (a Bcast root,
	// a Reduce or Gather non-root, Scan's rank 0) runs ahead of the
	// others: 256 calls of a small collective. On a loaded host every
	// wrap of the ring costs a sleep and a wake-up of the rank ahead
	// (hundreds of microseconds at load 20 on 2 cores); 64 slots made
	// that 3-4 us per 8-byte Reduce, Gather or Scan (bench/README.md,
	// coll8).
	smallSlots = 256
	smallBytes = smallSlot * smallSlots
	largeSlot  = 16 << 10
	largeSlots = 32
	largeBytes = largeSlot * largeSlots
	dataBytes  = smallBytes + largeBytes
)

// private is a rank's state of the protocol: the module's step counter
// and the small ring's allocation state (ops.go). capi/cshm.h declares
// the same layout for C.
type private struct {
	step    uint64 // steps completed by every rank so far (the same on all)
	next    uint64 // the small ring's next slot
	lastUse [smallSlots]uint64
}

func privOff(n int) int { return n * ctlBytes }

// privBytes is the size of one rank's private block: private, then the
// seen counters of n ranks, rounded up to whole lines.
func privBytes(n int) int {
	return (int(unsafe.Sizeof(private{})) + 8*n + lineBytes - 1) / lineBytes * lineBytes
}

func dataOff(n int) int { return (n*ctlBytes + n*privBytes(n) + 4095) &^ 4095 }

func segmentSize(n int) int { return dataOff(n) + n*dataBytes }

// segment is one mapping of a communicator's shared segment.
type segment struct {
	mem  []byte
	n    int
	step []*uint64 // step[r]
	bell []*uint32 // epoch[r]; waiters[r] follows it
	data []byte    // the data area
}

// createSegment creates and maps path (exclusive, mode 0600) for n ranks.
func createSegment(path string, n int) (*segment, error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, &os.PathError{Op: "create", Path: path, Err: err}
	}
	defer unix.Close(fd)
	size := segmentSize(n)
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		unix.Unlink(path)
		return nil, &os.PathError{Op: "truncate", Path: path, Err: err}
	}
	s, err := mapSegment(fd, n, size)
	if err != nil {
		unix.Unlink(path)
		return nil, &os.PathError{Op: "mmap", Path: path, Err: err}
	}
	return s, nil
}

// openSegment maps the segment another rank created at path.
func openSegment(path string, n int) (*segment, error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	size := segmentSize(n)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Size != int64(size) || st.Uid != uint32(os.Getuid()) {
		return nil, fmt.Errorf("%s: %d bytes owned by uid %d, want %d bytes owned by uid %d", path, st.Size, st.Uid, size, os.Getuid())
	}
	s, err := mapSegment(fd, n, size)
	if err != nil {
		return nil, &os.PathError{Op: "mmap", Path: path, Err: err}
	}
	return s, nil
}

func mapSegment(fd, n, size int) (*segment, error) {
	p, err := unix.MmapPtr(fd, 0, nil, uintptr(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	mem := unsafe.Slice((*byte)(p), size)
	s := &segment{mem: mem, n: n, step: make([]*uint64, n), bell: make([]*uint32, n), data: mem[dataOff(n):]}
	for r := range n {
		s.step[r] = (*uint64)(unsafe.Pointer(&mem[r*ctlBytes]))
		s.bell[r] = (*uint32)(unsafe.Pointer(&mem[r*ctlBytes+lineBytes]))
	}
	return s, nil
}

// private returns rank r's private block and its seen counters.
func (s *segment) private(r int) (*private, []uint64) {
	off := privOff(s.n) + r*privBytes(s.n)
	pv := (*private)(unsafe.Pointer(&s.mem[off]))
	seen := unsafe.Slice((*uint64)(unsafe.Pointer(&s.mem[off+int(unsafe.Sizeof(private{}))])), s.n)
	return pv, seen
}

// Base is the address of the mapping (for the C express lane).
func (s *segment) base() unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(s.mem)) }

// waiters is rank r's sleeper count, the word after its epoch.
func (s *segment) waiters(r int) *uint32 {
	return (*uint32)(unsafe.Add(unsafe.Pointer(s.bell[r]), 4))
}

// slots returns bytes of rank r's data in ring g from slot first on.
func (s *segment) slots(r int, g *ring, first, bytes int) []byte {
	off := r*dataBytes + g.off + first*g.slot
	return s.data[off : off+bytes : off+bytes]
}

// unmap releases the mapping; the segment is unusable afterwards.
func (s *segment) unmap() error {
	if s == nil || s.mem == nil {
		return nil
	}
	err := unix.MunmapPtr(unsafe.Pointer(unsafe.SliceData(s.mem)), uintptr(len(s.mem)))
	s.mem, s.data = nil, nil
	return err
}

// publish stores rank r's step (a full fence on amd64, which orders it
// before the waiters loads that follow in wake).
func (s *segment) publish(r int, step uint64) { atomic.StoreUint64(s.step[r], step) }

func (s *segment) stepOf(r int) uint64 { return atomic.LoadUint64(s.step[r]) }

var errNoSegment = errors.New("no segment")

// putAddr stores the address of b (0 when empty) in slot, which holds at
// least 8 bytes (cma.go).
func putAddr(slot []byte, b []byte) {
	var a uint64
	if len(b) > 0 {
		a = uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	}
	*(*uint64)(unsafe.Pointer(&slot[:8][0])) = a
}

// getAddr loads the address putAddr stored in slot.
func getAddr(slot []byte) uintptr { return uintptr(*(*uint64)(unsafe.Pointer(&slot[:8][0]))) }
