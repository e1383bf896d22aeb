package tcp_test

import (
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	mpirt "gmpi/runtime"
)

// TestWindowAcrossHosts: a window over 3 ranks of 3 hosts (so its
// operations travel as FrameRMA frames, served by the device's receive
// path): rank 0 spins on its own memory without any MPI call until both
// origins' exclusive puts (read back after a flush) and shared
// fetch-and-adds arrived, then checks. Run with -race too.
func TestWindowAcrossHosts(t *testing.T) {
	ranks := newJob(t, 3, 0)
	intT, _ := mpirt.PredefinedDatatype(mpirt.TypeInt)
	run(t, ranks, func(t *testing.T, r *rank, c *mpirt.Comm) {
		win, err := c.NewWin(mpirt.FlavorAllocate, nil, 16*4, 4, nil)
		if err != nil {
			t.Error(err)
			return
		}
		mem := unsafe.Slice((*int32)(win.Base()), 16)
		if err := c.Coll.Barrier(c); err != nil {
			t.Error(err)
		}
		me := c.Rank()
		if me == 0 {
			deadline := time.Now().Add(20 * time.Second)
			for atomic.LoadInt32(&mem[15]) < 2 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond) // computing, no MPI call
			}
			if v := atomic.LoadInt32(&mem[15]); v != 2 {
				t.Errorf("target: %d of 2 origins done while it computed", v)
			}
		} else {
			val := int32(100 + me)
			put := mpirt.RMAArgs{Origin: unsafe.Pointer(&val), OCount: 1, ODT: intT, Target: 0, Disp: int64(me), TCount: 1, TDT: intT}
			back := int32(-1)
			get := mpirt.RMAArgs{Origin: unsafe.Pointer(&back), OCount: 1, ODT: intT, Target: 0, Disp: int64(me), TCount: 1, TDT: intT}
			one, old := int32(1), int32(-1)
			fao := mpirt.RMAArgs{Origin: unsafe.Pointer(&one), OCount: 1, ODT: intT, Result: unsafe.Pointer(&old), RCount: 1, RDT: intT,
				Target: 0, Disp: 15, TCount: 1, TDT: intT, Op: mpirt.OpSum}
			steps := []func() error{
				func() error { return win.Lock(mpirt.LockExclusive, 0, 0) },
				func() error { return win.Put(&put) },
				func() error { return win.Flush(0, false) },
				func() error { return win.Get(&get) },
				func() error { return win.Unlock(0) },
				func() error { return win.Lock(mpirt.LockShared, 0, 0) },
				func() error { return win.GetAccumulate(&fao) },
				func() error { return win.Unlock(0) },
			}
			for i, f := range steps {
				if err := f(); err != nil {
					t.Errorf("rank %d step %d: %v", me, i, err)
					return
				}
			}
			if back != val {
				t.Errorf("rank %d: got back %d, put %d", me, back, val)
			}
			if old != 0 && old != 1 {
				t.Errorf("rank %d: fetch_and_op gave %d", me, old)
			}
		}
		if err := c.Coll.Barrier(c); err != nil {
			t.Error(err)
		}
		if me == 0 && (mem[1] != 101 || mem[2] != 102) {
			t.Errorf("target memory %v", mem[:3])
		}
		if err := win.Free(); err != nil {
			t.Error(err)
		}
	})
}
