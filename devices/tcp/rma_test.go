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
// fetch-and-adds arrived, then checks; the origins' request-form get and
// get_accumulate return a pending request (completed by the answer, not
// inside the call) whose data is in place once it completes. Run with
// -race too.
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
			rback, rold := int32(-1), int32(-1)
			rget := mpirt.RMAArgs{Origin: unsafe.Pointer(&rback), OCount: 1, ODT: intT, Target: 0, Disp: int64(me), TCount: 1, TDT: intT, Request: true}
			rfao := mpirt.RMAArgs{Origin: unsafe.Pointer(&one), OCount: 1, ODT: intT, Result: unsafe.Pointer(&rold), RCount: 1, RDT: intT,
				Target: 0, Disp: 14, TCount: 1, TDT: intT, Op: mpirt.OpSum, Request: true}
			wait := func(a *mpirt.RMAArgs, what string) error {
				if a.Req == nil {
					t.Errorf("rank %d: %s to another host returned no pending request", me, what)
					return nil
				}
				return c.World().Wait(a.Req)
			}
			steps := []func() error{
				func() error { return win.Lock(mpirt.LockExclusive, 0, 0) },
				func() error { return win.Put(&put) },
				func() error { return win.Flush(0, false) },
				func() error { return win.Get(&get) },
				func() error { return win.Unlock(0) },
				func() error { return win.Lock(mpirt.LockShared, 0, 0) },
				func() error { return win.GetAccumulate(&fao) },
				func() error { return win.Unlock(0) },
				func() error { return win.Lock(mpirt.LockShared, 0, 0) },
				func() error { return win.Get(&rget) },
				func() error { return win.GetAccumulate(&rfao) },
				func() error { return wait(&rget, "MPI_Rget") },
				func() error { return wait(&rfao, "MPI_Rget_accumulate") },
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
			if rback != val {
				t.Errorf("rank %d: MPI_Rget gave %d, put %d", me, rback, val)
			}
			if rold != 0 && rold != 1 {
				t.Errorf("rank %d: MPI_Rget_accumulate gave %d", me, rold)
			}
		}
		if err := c.Coll.Barrier(c); err != nil {
			t.Error(err)
		}
		if me == 0 && (mem[1] != 101 || mem[2] != 102 || mem[14] != 2) {
			t.Errorf("target memory %v (word 14: %d)", mem[:3], mem[14])
		}
		if err := win.Free(); err != nil {
			t.Error(err)
		}
	})
}

// TestWindowMixedHosts: a window over 4 ranks, two on each of 2 hosts:
// pairs of one host use the host's control segment, the others FrameRMA
// frames, and the two paths agree. Every origin (rank 1 of rank 0's host,
// ranks 2 and 3 of the other) adds 1 to one word of rank 0 200 times
// under a shared lock while rank 0 computes without MPI calls (the
// accumulates of both kinds of origins are atomic against each other),
// then each adds its rank under an exclusive lock with a get and a put
// (exclusive against each other), then puts in a PSCW epoch and a fence
// epoch.
func TestWindowMixedHosts(t *testing.T) {
	jobHosts = func(n int) []string { return []string{"hostA", "hostA", "hostB", "hostB"}[:n] }
	defer func() { jobHosts = hosts }()
	ranks := newJob(t, 4, 0)
	intT, _ := mpirt.PredefinedDatatype(mpirt.TypeInt)
	const adds = 200
	run(t, ranks, func(t *testing.T, r *rank, c *mpirt.Comm) {
		win, err := c.NewWin(mpirt.FlavorAllocate, nil, 16*4, 4, nil)
		if err != nil {
			t.Error(err)
			return
		}
		mem := unsafe.Slice((*int32)(win.Base()), 16)
		me := c.Rank()
		fail := func(step string, err error) bool {
			if err != nil {
				t.Errorf("rank %d %s: %v", me, step, err)
			}
			return err != nil
		}
		if fail("barrier", c.Coll.Barrier(c)) {
			return
		}
		if me == 0 {
			deadline := time.Now().Add(30 * time.Second)
			for atomic.LoadInt32(&mem[1]) < 3*adds && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond) // computing, no MPI call
			}
		} else {
			one, old := int32(1), int32(0)
			fao := mpirt.RMAArgs{Origin: unsafe.Pointer(&one), OCount: 1, ODT: intT, Result: unsafe.Pointer(&old), RCount: 1, RDT: intT,
				Target: 0, Disp: 1, TCount: 1, TDT: intT, Op: mpirt.OpSum}
			if fail("lock", win.Lock(mpirt.LockShared, 0, 0)) {
				return
			}
			for i := 0; i < adds; i++ {
				if fail("fetch_and_op", win.GetAccumulate(&fao)) {
					break
				}
			}
			fail("unlock", win.Unlock(0))
			// Read, add, write under the exclusive lock: lost updates
			// if two origins held it at once.
			var v int32
			get := mpirt.RMAArgs{Origin: unsafe.Pointer(&v), OCount: 1, ODT: intT, Target: 0, Disp: 2, TCount: 1, TDT: intT}
			put := get
			for i := 0; i < 20; i++ {
				fail("lock exclusive", win.Lock(mpirt.LockExclusive, 0, 0))
				fail("get", win.Get(&get))
				fail("flush", win.Flush(0, false))
				v += int32(me)
				fail("put", win.Put(&put))
				fail("unlock exclusive", win.Unlock(0))
			}
		}
		fail("barrier", c.Coll.Barrier(c))
		if me == 0 && (mem[1] != 3*adds || mem[2] != 20*(1+2+3)) {
			t.Errorf("rank 0: accumulated %d (want %d), exclusive sum %d (want %d)", mem[1], 3*adds, mem[2], 20*6)
		}
		// PSCW: everyone exposes to everyone, puts its rank into word
		// 4+me of every rank.
		g := c.Group()
		val := int32(100 + me)
		if fail("post", win.Post(g, 0)) || fail("start", win.Start(g, 0)) {
			return
		}
		for tg := 0; tg < 4; tg++ {
			put := mpirt.RMAArgs{Origin: unsafe.Pointer(&val), OCount: 1, ODT: intT, Target: tg, Disp: int64(4 + me), TCount: 1, TDT: intT}
			fail("pscw put", win.Put(&put))
		}
		fail("complete", win.Complete())
		if _, err := win.Wait(true); fail("wait", err) {
			return
		}
		for o := 0; o < 4; o++ {
			if mem[4+o] != int32(100+o) {
				t.Errorf("rank %d after PSCW: word %d is %d, want %d", me, 4+o, mem[4+o], 100+o)
			}
		}
		// Fence: each gets word 4 of its right neighbour, puts 200+me
		// into word 8+me of its left one.
		fail("fence", win.Fence(0))
		right, left := (me+1)%4, (me+3)%4
		var got int32
		get := mpirt.RMAArgs{Origin: unsafe.Pointer(&got), OCount: 1, ODT: intT, Target: right, Disp: 4 + int64(right), TCount: 1, TDT: intT}
		val = int32(200 + me)
		put := mpirt.RMAArgs{Origin: unsafe.Pointer(&val), OCount: 1, ODT: intT, Target: left, Disp: 8 + int64(me), TCount: 1, TDT: intT}
		fail("fence get", win.Get(&get))
		fail("fence put", win.Put(&put))
		fail("fence", win.Fence(0))
		if got != int32(100+right) || mem[8+right] != int32(200+right) {
			t.Errorf("rank %d after fence: got %d (want %d), word %d is %d (want %d)", me, got, 100+right, 8+right, mem[8+right], 200+right)
		}
		fail("free", win.Free())
	})
}
