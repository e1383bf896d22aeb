package fileio

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Buffers handed to the runtime's collectives live outside the Go heap
// (anonymous mappings): the transports may keep their addresses as plain
// numbers while data moves, which the garbage collector must never see
// as the only reference to a Go object. Each has room past its length,
// since a collective may form the address just past a buffer.

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
