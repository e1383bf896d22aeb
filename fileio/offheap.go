package fileio

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Small buffers some collectives of hints.go use live outside the Go heap
// (anonymous mappings), with room past their length. Go memory is fine
// for the runtime's collectives now that they form no address for an
// empty block (coll/basic.Block): the "found pointer to free object"
// aborts of collective buffering came from such an address just past the
// end of a Go buffer, which points at the next heap object.

// offHeap returns n zeroed bytes outside the Go heap; release frees them.
func offHeap(n int) []byte {
	b, err := unix.Mmap(-1, 0, n+64, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		panic(err) // out of memory: capi turns this into MPI_ERR_INTERN
	}
	return b[:n]
}

func release(b []byte) {
	if cap(b) > 0 {
		unix.Munmap(b[:cap(b)])
	}
}

// offHeap64 returns n zeroed int64s outside the Go heap and their bytes
// (for release).
func offHeap64(n int) ([]int64, []byte) {
	b := offHeap(8 * n)
	return unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(b))), n), b
}
