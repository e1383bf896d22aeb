package mpirt

import (
	"runtime"
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
//
// The baton is reentrant for its holder: a user function that the
// engine calls while it holds the baton (a user-defined MPI_Op reducing
// a nonblocking collective's data on the goroutine, an error handler, a
// generalized request's callbacks) may itself call MPI (MPI_Comm_rank,
// MPI_Type_size, ...). Those nested calls run on the holder's OS thread
// (a cgo callback stays on the thread that called C; the goroutine is
// locked to its thread), so the holder is known by thread id and its
// nested calls only count their depth instead of taking the baton again.
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
	// owner is the thread id of the baton's holder (0: none); depth
	// counts the holder's MPI calls nested in the one that took it.
	owner atomic.Int64
	depth atomic.Int32
}

// lock takes the baton for the calling thread.
func (b *bgProgress) lock() {
	b.baton.Lock()
	b.owner.Store(int64(gettid()))
}

// unlock releases the baton.
func (b *bgProgress) unlock() {
	b.owner.Store(0)
	b.baton.Unlock()
}

// reenter reports whether the calling thread holds the baton (an MPI call
// nested in one of its own), and counts the nesting if so.
func (b *bgProgress) reenter() bool {
	if o := b.owner.Load(); o != 0 && o == int64(gettid()) {
		b.depth.Add(1)
		return true
	}
	return false
}

// SetProgressHold registers f, called (under the baton) with true when
// background progress starts and false when it stops.
func (w *World) SetProgressHold(f func(bool)) { w.bg.hold = f }

// BgEnter is called when an MPI call starts: while the background
// goroutine runs (below MPI_THREAD_MULTIPLE) the call takes the baton.
func (w *World) BgEnter() {
	if b := &w.bg; b.running.Load() && !b.multi && !b.reenter() {
		b.lock()
		b.held = true
	}
}

// BgExit is called when an MPI call returns: it releases the baton if
// the call holds it (taken by BgEnter, or by starting the goroutine).
func (w *World) BgExit() {
	b := &w.bg
	if b.depth.Load() > 0 && b.owner.Load() == int64(gettid()) {
		b.depth.Add(-1) // the end of a nested call: the outer one keeps the baton
		return
	}
	if b.held {
		b.held = false
		b.unlock()
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
		b.lock()
		b.held = true
	}
	b.running.Store(true)
	if b.hold != nil {
		b.hold(true)
	}
	go w.backgroundLoop()
}

func (w *World) backgroundLoop() {
	// The baton's holder is known by thread id (reenter).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b := &w.bg
	idle := 0
	for {
		if !b.multi {
			b.lock()
		}
		if w.sched.n.Load() == 0 || b.stop.Load() {
			if b.hold != nil {
				b.hold(false)
			}
			b.running.Store(false)
			if !b.multi {
				b.unlock()
			}
			return
		}
		k := w.progress()
		if !b.multi {
			b.unlock()
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
			b.lock()
		}
		k = w.progress()
		if !b.multi {
			b.unlock()
		}
		if k > 0 {
			w.waker.Disarm()
			continue
		}
		w.waker.SleepArmed(e, 5*time.Millisecond)
	}
}
