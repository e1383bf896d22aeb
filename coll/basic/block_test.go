package basic

import (
	"testing"
	"unsafe"

	mpirt "gmpi/runtime"
)

// TestBlockEmpty: an empty block has no address. The last block of a
// v-operation often starts at the end of the buffer; for Go memory (the
// exchange buffers of fileio's collective buffering) that address is the
// next heap object's, which the garbage collector then marked whether it
// was allocated or not ("found pointer to free object").
func TestBlockEmpty(t *testing.T) {
	dt, _ := mpirt.PredefinedDatatype(mpirt.TypeInt64)
	buf := make([]int64, 4)
	p := unsafe.Pointer(&buf[0])
	if got := Block(p, 4, 0, dt); got != nil {
		t.Errorf("Block of an empty block at the end = %p, want nil", got)
	}
	if got := ByteBlock(p, 32, 0); got != nil {
		t.Errorf("ByteBlock of an empty block at the end = %p, want nil", got)
	}
	if got, want := Block(p, 3, 1, dt), unsafe.Pointer(&buf[3]); got != want {
		t.Errorf("Block(3, 1) = %p, want %p", got, want)
	}
	if got, want := ByteBlock(p, 16, 2), unsafe.Pointer(&buf[2]); got != want {
		t.Errorf("ByteBlock(16, 2) = %p, want %p", got, want)
	}
	if got := Block(nil, 0, 5, dt); got != nil {
		t.Errorf("Block(nil) = %p (MPI_BOTTOM stays nil)", got)
	}
}
