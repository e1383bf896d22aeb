package mpirt_test

import (
	"sync/atomic"
	"testing"
	"time"

	mpirt "gmpi/runtime"
)

// fakePolled completes once release is set; it counts its calls and
// fails the test if two threads call it at once.
type fakePolled struct {
	t       *testing.T
	release atomic.Bool
	calls   atomic.Int32
	inside  atomic.Int32
}

func (f *fakePolled) Advance() (done, moved bool, err error) {
	if f.inside.Add(1) != 1 {
		f.t.Error("Advance called by two threads at once")
	}
	defer f.inside.Add(-1)
	f.calls.Add(1)
	if f.release.Load() {
		return true, true, nil
	}
	return false, false, nil
}

// A polled collective (StartPolled) completes through background
// progress while its caller makes no call at all, and through Wait; the
// background goroutine idles and becomes active again for the next one.
// Every call is bracketed with BgEnter/BgExit as capi does (the baton).
func TestPolledBackground(t *testing.T) {
	job(t, 2, 256, 512, func(t *testing.T, w *mpirt.World) {
		c := w.CommWorld()
		start := func(p mpirt.PolledColl) *mpirt.Request {
			w.BgEnter()
			defer w.BgExit()
			return c.StartPolled(p)
		}
		wait := func(r *mpirt.Request) error {
			w.BgEnter()
			defer w.BgExit()
			return w.Wait(r)
		}
		for i := range 3 {
			f := &fakePolled{t: t}
			r := start(f)
			if r.Done() {
				t.Fatalf("round %d: done before release", i)
			}
			f.release.Store(true)
			deadline := time.Now().Add(30 * time.Second) // a hang guard
			for !r.Done() && time.Now().Before(deadline) {
				time.Sleep(100 * time.Microsecond) // no MPI call
			}
			if !r.Done() {
				t.Fatalf("round %d: no background progress in 30 s (%d calls)", i, f.calls.Load())
			}
			if err := wait(r); err != nil {
				t.Fatal(err)
			}
			// Completed at once: no request left running.
			g := &fakePolled{t: t}
			g.release.Store(true)
			if r := start(g); !r.Done() {
				t.Fatalf("round %d: an operation done at its start is not complete", i)
			}
			// Completed in Wait.
			h := &fakePolled{t: t}
			r = start(h)
			go func() {
				time.Sleep(time.Millisecond)
				h.release.Store(true)
			}()
			if err := wait(r); err != nil {
				t.Fatal(err)
			}
			if n := w.RunningSchedules(); n != 0 {
				t.Fatalf("round %d: %d schedules still running", i, n)
			}
		}
	})
}
