package mpirt

import (
	"sync"
	"sync/atomic"
	"time"
)

// Background progress: while nonblocking collectives are in flight, a
// goroutine makes progress for them, so they advance while the caller
// computes without calling MPI (real overlap). It exists only while
// schedules are outstanding: the first schedule that does not finish at
// once starts it, and it ends when none is left. Between polls that find
// nothing it sleeps on the Waker (no busy loop).
//
// Below MPI_THREAD_MULTIPLE the engine's data path runs without locks,
// assuming one thread inside MPI at a time. The goroutine then takes the
// baton (a mutex) around each poll, and the capi layer takes the same
// baton for every MPI call made while the goroutine runs (BgActive), so
// the two never run the engine at the same time; the hold hook turns off
// what bypasses the capi layer's Go side (the express lane) for that
// time. With MPI_THREAD_MULTIPLE the engine is thread-safe and no baton
// is needed.
type bgProgress struct {
	baton   sync.Mutex
	running atomic.Bool
	multi   bool        // MPI_THREAD_MULTIPLE: no baton
	hold    func(bool)  // called with true when the goroutine starts, false when it ends
	off     bool        // GMPI_ASYNC_PROGRESS=0
	stop    atomic.Bool // the World is closing
	// held: the calling thread (not the goroutine) holds the baton for
	// the rest of its MPI call. Written only by the baton's holder.
	held bool
}

// SetProgressHold registers f, called (under the baton) with true when
// background progress starts and false when it stops.
func (w *World) SetProgressHold(f func(bool)) { w.bg.hold = f }

// BgEnter is called when an MPI call starts: while the background
// goroutine runs (below MPI_THREAD_MULTIPLE) the call takes the baton.
func (w *World) BgEnter() {
	if b := &w.bg; b.running.Load() && !b.multi {
		b.baton.Lock()
		b.held = true
	}
}

// BgExit is called when an MPI call returns: it releases the baton if
// the call holds it (taken by BgEnter, or by starting the goroutine).
func (w *World) BgExit() {
	if b := &w.bg; b.held {
		b.held = false
		b.baton.Unlock()
	}
}

// startBackground starts the progress goroutine unless it runs. The
// calling thread keeps the baton until its MPI call returns (BgExit), so
// the goroutine polls only once the call is done with the engine.
func (w *World) startBackground() {
	b := &w.bg
	if b.off || b.stop.Load() || b.running.Load() {
		return
	}
	if !b.multi && !b.held {
		b.baton.Lock()
		b.held = true
	}
	b.running.Store(true)
	if b.hold != nil {
		b.hold(true)
	}
	go w.backgroundLoop()
}

func (w *World) backgroundLoop() {
	b := &w.bg
	idle := 0
	for {
		if !b.multi {
			b.baton.Lock()
		}
		if w.sched.n.Load() == 0 || b.stop.Load() {
			if b.hold != nil {
				b.hold(false)
			}
			b.running.Store(false)
			if !b.multi {
				b.baton.Unlock()
			}
			return
		}
		k := w.progress()
		if !b.multi {
			b.baton.Unlock()
		}
		if k > 0 {
			idle = 0
			continue
		}
		if idle++; idle < 32 {
			osyield()
			continue
		}
		idle = 0
		e := w.waker.Arm()
		if !b.multi {
			b.baton.Lock()
		}
		k = w.progress()
		if !b.multi {
			b.baton.Unlock()
		}
		if k > 0 {
			w.waker.Disarm()
			continue
		}
		w.waker.SleepArmed(e, 5*time.Millisecond)
	}
}
