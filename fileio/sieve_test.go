package fileio

import (
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	mpirt "gmpi/runtime"
)

// TestSievedAndPlainWrites: process 0 writes every other int through a
// sieved view (read-modify-write of small spans) while processes 1 and 2
// write the ints in its holes one by one with plain writes. No write may
// be lost (the plain writes take the range lock; without it this test
// failed in 3 runs of 5).
func TestSievedAndPlainWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	const n = 4096 // ints of process 0; as many holes
	reg := NewRegistry()
	var mu sync.Mutex
	var plainDone atomic.Int32
	job(t, 3, nil, func(w *mpirt.World) {
		c := w.CommWorld()
		r := c.Rank()
		fail := func(format string, args ...any) {
			mu.Lock()
			t.Errorf("rank %d: "+format, append([]any{r}, args...)...)
			mu.Unlock()
		}
		in := mpirt.NewInfo()
		in.Set("romio_ds_write", "enable")
		in.Set("ind_wr_buffer_size", "256")
		f, err := Open("t", c, reg, path, ModeCreate|ModeRdwr, in)
		if err != nil {
			fail("open: %v", err)
			return
		}
		defer f.Close("t")
		it := predef(mpirt.TypeInt)
		ft := it
		if r == 0 {
			ft = vectorType(t, 1, 1, 1, 2)
		}
		if err := f.SetView("t", 0, it, ft, "native", nil); err != nil {
			fail("set_view: %v", err)
			return
		}
		// Process 0 sieves until the others have written each hole once:
		// a plain write its read-modify-write undid leaves a 0.
		if r == 0 {
			for pass := 0; pass == 0 || plainDone.Load() < 2; pass++ {
				data := make([]int32, n)
				for i := range data {
					data[i] = int32(2 * i)
				}
				for k := 0; k < n; k += 256 {
					if _, err := f.Do("t", Access{Write: true, Ptr: Explicit, Offset: int64(k), Buf: unsafe.Pointer(&data[k]), Count: 256, Dt: it}); err != nil {
						fail("sieved write: %v", err)
					}
				}
			}
		} else {
			for i := (r - 1) * n / 2; i < r*n/2; i++ {
				v := int32(2*i + 1)
				if _, err := f.Do("t", Access{Write: true, Ptr: Explicit, Offset: int64(2*i + 1), Buf: unsafe.Pointer(&v), Count: 1, Dt: it}); err != nil {
					fail("plain write: %v", err)
				}
			}
			plainDone.Add(1)
		}
		if err := f.Sync("t"); err != nil {
			fail("sync: %v", err)
		}
		if err := f.SetView("t", 0, it, it, "native", nil); err != nil {
			fail("set_view: %v", err)
		}
		got := make([]int32, 2*n)
		if _, err := f.Do("t", Access{Ptr: Explicit, Buf: unsafe.Pointer(&got[0]), Count: 2 * n, Dt: it}); err != nil {
			fail("read: %v", err)
		}
		for i, v := range got {
			if v != int32(i) {
				fail("int %d: %d in the file, want %d", i, v, i)
				break
			}
		}
	})
}
