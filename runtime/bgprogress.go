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
	started atomic.Bool // the goroutine was started (it lives until stop)
	bell    uint32      // futex word the idle goroutine sleeps on
	// held: the calling thread (not the goroutine) holds the baton for
	// the rest of its MPI call. Written only by the baton's holder.
	held bool
	// owner is the thread id of the baton's holder (0: none); depth
	// counts the holder's MPI calls nested in the one that took it.
	owner atomic.Int64
	depth atomic.Int32
	// lazy: running was set by startBackgroundLazy and the goroutine
	// has not taken over yet; timer wakes it after bgGrace. The baton's
	// holder clears it (BgExit) when the list is empty by then.
	lazy  atomic.Bool
	timer *time.Timer
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
		if b.lazy.Load() && w.sched.n.Load() == 0 {
			// The settled calls completed before the goroutine was
			// woken: background progress ends without it.
			b.lazy.Store(false)
			b.timer.Stop()
			if b.hold != nil {
				b.hold(false)
			}
			b.running.Store(false)
		}
		b.held = false
		b.unlock()
	}
}

// startBackgroundLazy is startBackground for settled calls
// (SettledColl): the engine is handed to the goroutine as by
// startBackground (the baton, the hold hook), but the goroutine is woken
// only by a timer after bgGrace; if the list is empty when the MPI call
// holding the baton returns, background progress ends without having
// woken it (BgExit).
func (w *World) startBackgroundLazy() {
	b := &w.bg
	if b.multi {
		w.startBackground()
		return
	}
	if b.off || b.stop.Load() || b.running.Load() {
		return
	}
	if !b.held {
		b.lock()
		b.held = true
	}
	b.running.Store(true)
	if b.hold != nil {
		b.hold(true)
	}
	b.lazy.Store(true)
	if b.timer == nil {
		b.timer = time.AfterFunc(bgGrace, w.wakeLazy)
	} else {
		b.timer.Reset(bgGrace)
	}
}

// wakeLazy is the timer of startBackgroundLazy: it wakes (or starts) the
// goroutine if background progress is still waiting for it.
func (w *World) wakeLazy() {
	b := &w.bg
	if !b.lazy.Load() || b.stop.Load() {
		return
	}
	if b.started.CompareAndSwap(false, true) {
		go w.backgroundLoop()
		return
	}
	atomic.AddUint32(&b.bell, 1)
	FutexWake(&b.bell)
}

// startBackground makes the progress goroutine active unless it is: the
// first time it starts it, later it wakes it from its idle sleep. The
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
	if !b.running.CompareAndSwap(false, true) {
		return // another thread (MPI_THREAD_MULTIPLE) made it active
	}
	if b.hold != nil {
		b.hold(true)
	}
	if b.started.CompareAndSwap(false, true) {
		go w.backgroundLoop()
		return
	}
	atomic.AddUint32(&b.bell, 1)
	FutexWake(&b.bell)
}

// bgGrace is how long the goroutine lets the caller alone after it
// became active: a call waited for at once (start, then wait) completes
// in the caller's thread without the goroutine taking the baton.
const bgGrace = 20 * time.Microsecond

// polledSlice is how long a waiter sleeps at a time while a polled
// collective (StartPolled) runs.
const polledSlice = 50 * time.Microsecond

// tryLock takes the baton if it is free.
func (b *bgProgress) tryLock() bool {
	if !b.baton.TryLock() {
		return false
	}
	b.owner.Store(int64(gettid()))
	return true
}

// backgroundLoop is the progress goroutine. It lives until the World
// closes: while schedules run (active) it polls whenever the baton is
// free (a thread inside MPI holds it and makes progress itself), and
// sleeps between polls that find nothing; when none is left it sleeps on
// bg.bell until startBackground wakes it.
func (w *World) backgroundLoop() {
	// The baton's holder is known by thread id (reenter).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b := &w.bg
	var nap uint32 // a futex word nobody wakes: timed sleeps
	for {
		FutexWait(&nap, 0, bgGrace)
		idle := 0
		for {
			if !b.multi && !b.tryLock() {
				// A thread is inside MPI and makes progress.
				FutexWait(&nap, 0, bgGrace)
				continue
			}
			if !b.running.Load() && !b.stop.Load() {
				// A late wake-up of startBackgroundLazy's timer: the
				// calls completed and background progress ended
				// without the goroutine (BgExit).
				e := atomic.LoadUint32(&b.bell)
				if !b.multi {
					b.unlock()
				}
				if !b.running.Load() {
					FutexWait(&b.bell, e, 0)
				}
				break
			}
			b.lazy.Store(false)
			if w.sched.n.Load() == 0 || b.stop.Load() {
				if b.hold != nil {
					b.hold(false)
				}
				b.running.Store(false)
				e := atomic.LoadUint32(&b.bell)
				if !b.multi {
					b.unlock()
				}
				if b.stop.Load() {
					return
				}
				FutexWait(&b.bell, e, 0)
				if b.stop.Load() {
					return
				}
				break
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
			if w.sched.polled.Load() != 0 {
				// No event wakes us for these.
				FutexWait(&nap, 0, polledSlice)
				continue
			}
			e := w.waker.Arm()
			if !b.multi {
				if !b.tryLock() {
					w.waker.Disarm()
					continue
				}
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
}

// stopBackground ends the progress goroutine (the World is closing).
func (w *World) stopBackground() {
	b := &w.bg
	b.stop.Store(true)
	atomic.AddUint32(&b.bell, 1)
	FutexWake(&b.bell)
}
