package mpirt

import (
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// FutexWaker is a Waker built on two 32-bit words: an event count and a
// count of sleepers. The words may live in shared memory (then another
// process can Wake this one), so the futex operations are the shared, not
// the private, variants.
type FutexWaker struct {
	epoch   *uint32
	waiters *uint32
	// onWake, when set, runs on every Wake that finds a sleeper (a
	// device whose Sleeper waits on something besides the futex).
	onWake atomic.Pointer[func()]
}

// OnWake makes every Wake that finds a sleeper also call f.
func (w *FutexWaker) OnWake(f func()) { w.onWake.Store(&f) }

// NewFutexWaker returns a Waker on the given words, which must stay mapped
// for the Waker's lifetime.
func NewFutexWaker(epoch, waiters *uint32) *FutexWaker {
	return &FutexWaker{epoch: epoch, waiters: waiters}
}

// NewLocalWaker returns a Waker on process-private words (singleton, or a
// process without shared-memory peers).
func NewLocalWaker() *FutexWaker {
	w := new([2]uint32)
	return NewFutexWaker(&w[0], &w[1])
}

func (w *FutexWaker) Epoch() uint32 { return atomic.LoadUint32(w.epoch) }

func (w *FutexWaker) Sleep(epoch uint32, timeout time.Duration) {
	atomic.AddUint32(w.waiters, 1)
	if atomic.LoadUint32(w.epoch) == epoch {
		FutexWait(w.epoch, epoch, timeout)
	}
	atomic.AddUint32(w.waiters, ^uint32(0))
}

func (w *FutexWaker) Wake() {
	atomic.AddUint32(w.epoch, 1)
	if atomic.LoadUint32(w.waiters) != 0 {
		FutexWake(w.epoch)
		if f := w.onWake.Load(); f != nil {
			(*f)()
		}
	}
}

// Arm announces a sleeper and returns the epoch to sleep on. The caller
// then re-checks its condition and either calls SleepArmed or Disarm.
// Because the sleeper count is raised before the re-check, a Ring that
// follows the event which satisfies the condition cannot be missed.
func (w *FutexWaker) Arm() uint32 {
	atomic.AddUint32(w.waiters, 1)
	return atomic.LoadUint32(w.epoch)
}

// SleepArmed sleeps while the epoch is still epoch (at most timeout),
// then withdraws the announcement made by Arm.
func (w *FutexWaker) SleepArmed(epoch uint32, timeout time.Duration) {
	if atomic.LoadUint32(w.epoch) == epoch {
		FutexWait(w.epoch, epoch, timeout)
	}
	atomic.AddUint32(w.waiters, ^uint32(0))
}

// Disarm withdraws an Arm without sleeping.
func (w *FutexWaker) Disarm() { atomic.AddUint32(w.waiters, ^uint32(0)) }

// Ring wakes armed sleepers, if any; with none it costs one load and
// leaves the epoch (a shared cache line) untouched.
func (w *FutexWaker) Ring() {
	if atomic.LoadUint32(w.waiters) != 0 {
		w.Wake()
	}
}

// FutexWait sleeps while *addr == val, at most timeout (0: no limit).
func FutexWait(addr *uint32, val uint32, timeout time.Duration) {
	var ts *unix.Timespec
	if timeout > 0 {
		t := unix.NsecToTimespec(int64(timeout))
		ts = &t
	}
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWait,
		uintptr(val), uintptr(unsafe.Pointer(ts)), 0, 0)
}

// FutexWake wakes every sleeper on addr.
func FutexWake(addr *uint32) {
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWake,
		uintptr(1<<30), 0, 0, 0)
}

// Futex operations (linux/futex.h); the shared variants, since the words
// may be in memory mapped by several processes.
const (
	futexWait = 0
	futexWake = 1
)
