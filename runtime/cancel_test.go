package mpirt_test

import (
	"testing"
	"unsafe"

	mpirt "gmpi/runtime"
)

// TestCancelSend: rank 0 cancels unmatched sends of every kind (eager
// standard, synchronous, rendezvous, buffered) and sends that rank 1 has
// already received; only the unmatched ones are cancelled, and rank 1
// never sees them.
func TestCancelSend(t *testing.T) {
	db, _ := mpirt.PredefinedDatatype(mpirt.TypeByte)
	job(t, 2, 256, 64, func(t *testing.T, w *mpirt.World) {
		c := w.CommWorld()
		me := c.Rank()
		small := pattern(10, 1)
		big := pattern(4000, 2)
		ptr := func(b []byte) unsafe.Pointer { return unsafe.Pointer(&b[0]) }
		if me == 0 {
			space := make([]byte, 5000) // room for one 4000-byte buffered message
			if err := w.BufferAttach(ptr(space), len(space)); err != nil {
				t.Fatal(err)
			}
			var hs []mpirt.Handle
			for i, mode := range []mpirt.SendMode{mpirt.ModeStandard, mpirt.ModeSync, mpirt.ModeStandard} {
				buf := small
				if i == 2 {
					buf = big
				}
				r, err := c.IsendTyped(ptr(buf), len(buf), db, 1, 5, mode)
				if err != nil {
					t.Fatal(err)
				}
				hs = append(hs, w.AddRequest(r))
			}
			r, err := c.IbsendTyped(ptr(big), len(big), db, 1, 6)
			if err != nil {
				t.Fatal(err)
			}
			hs = append(hs, w.AddRequest(r))
			for _, h := range hs {
				w.Cancel(w.Request(h))
			}
			for i, h := range hs {
				op := w.Request(h).Op()
				if err := w.Wait(op); err != nil || !op.Status.Cancelled {
					t.Errorf("send %d: err %v, cancelled %v", i, err, op.Status.Cancelled)
				}
				w.FreeRequest(w.Request(h))
			}
			// The buffered send's space is back: the whole buffer is free.
			if _, err := c.IbsendTyped(ptr(big), len(big), db, 1, 7); err != nil {
				t.Errorf("buffer space not released by the cancel: %v", err)
			}
		}
		if err := c.Coll.Barrier(c); err != nil {
			t.Fatal(err)
		}
		if me == 1 {
			if _, ok := w.Iprobe(c, c.Context(), 0, 5); ok {
				t.Error("a cancelled message arrived (tag 5)")
			}
			if _, ok := w.Iprobe(c, c.Context(), 0, 6); ok {
				t.Error("a cancelled message arrived (tag 6)")
			}
			buf := make([]byte, len(big))
			if _, err := c.Recv(buf, 0, 7); err != nil {
				t.Error(err)
			}
		}
		// Matched sends cannot be cancelled.
		for i, sz := range []int{10, 4000} {
			if me == 0 {
				r, err := c.IsendTyped(ptr(big), sz, db, 1, 8, mpirt.ModeSync)
				if err != nil {
					t.Fatal(err)
				}
				h := w.AddRequest(r)
				if _, err := c.Recv(make([]byte, 1), 1, 9); err != nil {
					t.Fatal(err)
				}
				w.Cancel(w.Request(h))
				op := w.Request(h).Op()
				if err := w.Wait(op); err != nil || op.Status.Cancelled {
					t.Errorf("matched send %d: err %v cancelled %v", i, err, op.Status.Cancelled)
				}
				w.FreeRequest(op)
			} else {
				buf := make([]byte, sz)
				if _, err := c.Recv(buf, 0, 8); err != nil {
					t.Fatal(err)
				}
				if err := c.Send([]byte{1}, 0, 9, mpirt.ModeStandard); err != nil {
					t.Fatal(err)
				}
			}
		}
		if me == 0 {
			w.BufferDetach()
		}
		// Rank 1 keeps making progress until rank 0 has its answers.
		if err := c.Coll.Barrier(c); err != nil {
			t.Fatal(err)
		}
	})
}
