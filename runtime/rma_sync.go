package mpirt

import (
	"runtime"
	"sync/atomic"
	"time"
)

// Synchronization of RMA windows: fence, PSCW (post/start/complete/wait)
// and passive target (lock/unlock, lock_all, flush, sync). Every
// operation completes when it is issued (rma.go), so closing an epoch
// only has to tell the peers.

// waitWord waits until ok(*p) holds: it spins briefly (yielding), then
// sleeps on the word's futex, counted in *waiters so that wakers make the
// futex call only when someone sleeps (wake); it rechecks at least every
// millisecond.
func waitWord(p, waiters *uint32, ok func(uint32) bool) {
	for i := 0; ; i++ {
		v := atomic.LoadUint32(p)
		if ok(v) {
			return
		}
		if i < 200 {
			runtime.Gosched()
			continue
		}
		atomic.AddUint32(waiters, 1)
		if atomic.LoadUint32(p) == v {
			FutexWait(p, v, time.Millisecond)
		}
		atomic.AddUint32(waiters, ^uint32(0))
	}
}

// wake wakes the sleepers on p after a change, if any are counted.
func wake(p, waiters *uint32) {
	if atomic.LoadUint32(waiters) != 0 {
		FutexWake(p)
	}
}

// Per-rank words of the control segment (t, r: window ranks of this host).
func (win *Win) lockWords(t int) (p, waiters *uint32) {
	o := win.layout.ranks + win.lidx[t]*ctrlRankStride
	return win.word(o + ctrlLockOff), win.word(o + ctrlLockWaitOff)
}

func (win *Win) accWords(t int) (p, waiters *uint32) {
	o := win.layout.ranks + win.lidx[t]*ctrlRankStride
	return win.word(o + ctrlAccOff), win.word(o + ctrlAccWaitOff)
}

// pscwWaiters counts rank r's sleepers on PSCW counters.
func (win *Win) pscwWaiters(r int) *uint32 {
	return win.word(win.layout.ranks + win.lidx[r]*ctrlRankStride + ctrlPscwWaitOff)
}

// postWord counts the posts of target t for origin o; completeWord the
// completes of origin o at target t (both of this host).
func (win *Win) postWord(t, o int) *uint32 {
	return win.word(win.layout.post + 4*(win.lidx[t]*win.layout.n+win.lidx[o]))
}

func (win *Win) completeWord(t, o int) *uint32 {
	return win.word(win.layout.complete + 4*(win.lidx[t]*win.layout.n+win.lidx[o]))
}

const lockWriter = 1 << 31

// acquire takes rank t's window lock (shared or exclusive).
func (win *Win) acquire(t, typ int) error {
	if !win.local(t) {
		return win.net.acquire(t, typ)
	}
	win.acquireLocal(t, typ)
	return nil
}

// tryAcquire takes the lock of t (of this host) if it is free for typ.
func (win *Win) tryAcquire(t, typ int) bool {
	p, _ := win.lockWords(t)
	for {
		v := atomic.LoadUint32(p)
		if typ == LockExclusive {
			return v == 0 && atomic.CompareAndSwapUint32(p, 0, lockWriter)
		}
		if v&lockWriter != 0 {
			return false
		}
		if atomic.CompareAndSwapUint32(p, v, v+1) {
			return true
		}
	}
}

// acquireLocal waits for the lock of t (of this host).
func (win *Win) acquireLocal(t, typ int) {
	p, waiters := win.lockWords(t)
	for {
		if win.tryAcquire(t, typ) {
			return
		}
		waitWord(p, waiters, func(x uint32) bool {
			if typ == LockExclusive {
				return x == 0
			}
			return x&lockWriter == 0
		})
	}
}

// release drops rank t's window lock (on a window spanning hosts, once
// the operations issued to t are complete there).
func (win *Win) release(t, typ int) error {
	if !win.local(t) {
		return win.net.release(t, typ)
	}
	win.releaseLocal(t, typ)
	return nil
}

// releaseLocal drops the lock of t (of this host).
func (win *Win) releaseLocal(t, typ int) {
	p, waiters := win.lockWords(t)
	if typ == LockExclusive {
		atomic.StoreUint32(p, 0)
	} else {
		atomic.AddUint32(p, ^uint32(0))
	}
	wake(p, waiters)
}

// accLock and accUnlock bracket a read-modify-write at rank t.
func (win *Win) accLock(t int) {
	p, waiters := win.accWords(t)
	for !atomic.CompareAndSwapUint32(p, 0, 1) {
		waitWord(p, waiters, func(x uint32) bool { return x == 0 })
	}
}

func (win *Win) accUnlock(t int) {
	p, waiters := win.accWords(t)
	atomic.StoreUint32(p, 0)
	wake(p, waiters)
}

func checkAssert(assert int) error {
	if assert&^modeAll != 0 {
		return Errorf(ErrAssert, "", "invalid assert argument: %#x has bits that are no MPI_MODE_* assertion", assert)
	}
	return nil
}

// passiveLocked reports whether a passive target epoch is open.
func (win *Win) passiveLocked() bool { return len(win.locks) > 0 || win.lockAll }

// Fence is MPI_Win_fence (collective).
func (win *Win) Fence(assert int) error {
	if err := checkAssert(assert); err != nil {
		return err
	}
	win.mu.Lock()
	if win.passiveLocked() || win.startGroup != nil || win.postGroup != nil {
		win.mu.Unlock()
		return Errorf(ErrRMASync, "", "MPI_Win_fence inside a lock or post/start epoch")
	}
	win.mu.Unlock()
	// Operations are complete already; the barrier orders them before
	// every process's next epoch. With MPI_MODE_NOPRECEDE nothing was
	// issued, but the barrier still separates the local stores before
	// the fence from the peers' accesses after it.
	if win.net != nil {
		if err := win.net.flushAll(); err != nil {
			return err
		}
		if err := win.comm.Coll.Barrier(win.comm); err != nil {
			return err
		}
	} else {
		win.segBarrier()
	}
	win.mu.Lock()
	win.fence = assert&ModeNosucceed == 0
	win.mu.Unlock()
	return nil
}

// segBarrier is the fence of a window whose processes are all on this
// host: a counter and a generation word in the segment (capi's express
// lane runs the same barrier in C, so fences of both kinds meet).
func (win *Win) segBarrier() {
	cnt, gen, waiters := win.word(ctrlBarCount), win.word(ctrlBarGen), win.word(ctrlBarWait)
	g := atomic.LoadUint32(gen)
	if atomic.AddUint32(cnt, 1) == uint32(win.layout.n) {
		atomic.StoreUint32(cnt, 0)
		atomic.AddUint32(gen, 1)
		wake(gen, waiters)
		return
	}
	waitWord(gen, waiters, func(v uint32) bool { return v != g })
}

// ExpressBarrier returns the words of segBarrier and the number of
// processes that meet there (ExpressTarget's windows only).
func (win *Win) ExpressBarrier() (words *uint32, n int) {
	return win.word(ctrlBarCount), win.layout.n
}

// commRanks turns a group into ranks of the window's communicator.
func (win *Win) commRanks(g *Group) ([]int, error) {
	out := make([]int, 0, g.Size())
	for i, wr := range g.Ranks() {
		r := win.comm.rankOfWorld(wr)
		if r < 0 {
			return nil, Errorf(ErrGroup, "", "invalid group argument group: its rank %d (world rank %d) is not in the window", i, wr)
		}
		out = append(out, r)
	}
	return out, nil
}

// epochRanks checks the assertion of MPI_Win_post/MPI_Win_start and
// returns g's members as ranks of the window's communicator.
func (win *Win) epochRanks(g *Group, assert int) ([]int, error) {
	if err := checkAssert(assert); err != nil {
		return nil, err
	}
	return win.commRanks(g)
}

// Post is MPI_Win_post: opens an exposure epoch for the origins in g.
func (win *Win) Post(g *Group, assert int) error {
	ranks, err := win.epochRanks(g, assert)
	if err != nil {
		return err
	}
	win.mu.Lock()
	defer win.mu.Unlock()
	if win.postGroup != nil {
		return Errorf(ErrRMASync, "", "MPI_Win_post while an exposure epoch is open")
	}
	me := win.comm.Rank()
	if win.waited == nil {
		win.waited = make([]uint32, len(win.targets))
	}
	win.fence = false
	for _, o := range ranks {
		if !win.local(o) {
			if err := win.net.send(o, Header{Tag: rmaOpPost}, nil); err != nil {
				return err
			}
			continue
		}
		p := win.postWord(me, o)
		atomic.AddUint32(p, 1)
		wake(p, win.pscwWaiters(o))
	}
	win.postGroup = ranks
	return nil
}

// Start is MPI_Win_start: opens an access epoch to the targets in g,
// waiting for their posts.
func (win *Win) Start(g *Group, assert int) error {
	ranks, err := win.epochRanks(g, assert)
	if err != nil {
		return err
	}
	win.mu.Lock()
	defer win.mu.Unlock()
	if win.startGroup != nil || win.passiveLocked() {
		return Errorf(ErrRMASync, "", "MPI_Win_start while an access epoch is open")
	}
	me := win.comm.Rank()
	if win.started == nil {
		win.started = make([]uint32, len(win.targets))
	}
	win.fence = false
	for _, t := range ranks {
		want := win.started[t] + 1
		if !win.local(t) {
			pc := &win.net.posts[t]
			win.w.waitUntil(func() bool { return int32(pc.Load()-want) >= 0 })
			win.started[t] = want
			continue
		}
		waitWord(win.postWord(t, me), win.pscwWaiters(me), func(v uint32) bool { return int32(v-want) >= 0 })
		win.started[t] = want
	}
	win.startGroup = ranks
	return nil
}

// Complete is MPI_Win_complete: closes the PSCW access epoch.
func (win *Win) Complete() error {
	win.mu.Lock()
	defer win.mu.Unlock()
	if win.startGroup == nil {
		return Errorf(ErrRMASync, "", "MPI_Win_complete without MPI_Win_start")
	}
	me := win.comm.Rank()
	var first error
	for _, t := range win.startGroup {
		if !win.local(t) {
			// The notice follows the operations on the pair's
			// ordered path: the target's MPI_Win_wait sees them
			// applied.
			if err := win.net.completeFetches(t); err != nil && first == nil {
				first = err
			}
			win.net.dirty[t].Store(false)
			if err := win.net.send(t, Header{Tag: rmaOpComplete}, nil); err != nil && first == nil {
				first = err
			}
			continue
		}
		p := win.completeWord(t, me)
		atomic.AddUint32(p, 1)
		wake(p, win.pscwWaiters(t))
	}
	win.startGroup = nil
	return first
}

// completedLocked reports whether origin o completed its epoch.
func (win *Win) completedLocked(o int) bool {
	want := win.waited[o] + 1
	if !win.local(o) {
		return int32(win.net.completes[o].Load()-want) >= 0
	}
	return int32(atomic.LoadUint32(win.completeWord(win.comm.Rank(), o))-want) >= 0
}

// Wait is MPI_Win_wait (block) and MPI_Win_test (!block): closes the
// exposure epoch once every origin completed; Test reports whether it did.
func (win *Win) Wait(block bool) (bool, error) {
	win.mu.Lock()
	defer win.mu.Unlock()
	if win.postGroup == nil {
		return false, Errorf(ErrRMASync, "", "no exposure epoch (MPI_Win_post) to wait for")
	}
	me := win.comm.Rank()
	for _, o := range win.postGroup {
		if !win.completedLocked(o) {
			if !block {
				return false, nil
			}
			if !win.local(o) {
				win.w.waitUntil(func() bool { return win.completedLocked(o) })
				continue
			}
			want := win.waited[o] + 1
			waitWord(win.completeWord(me, o), win.pscwWaiters(me), func(v uint32) bool { return int32(v-want) >= 0 })
		}
	}
	for _, o := range win.postGroup {
		win.waited[o]++
	}
	win.postGroup = nil
	return true, nil
}

func (win *Win) checkRank(rank int) error {
	if rank < 0 || rank >= len(win.targets) {
		return Errorf(ErrRank, "", "invalid rank argument rank: %d (the window has %d processes)", rank, len(win.targets))
	}
	return nil
}

// Lock is MPI_Win_lock.
func (win *Win) Lock(typ, rank, assert int) error {
	if typ != LockExclusive && typ != LockShared {
		return Errorf(ErrLocktype, "", "invalid lock_type argument: %d is neither MPI_LOCK_EXCLUSIVE nor MPI_LOCK_SHARED", typ)
	}
	if err := checkAssert(assert); err != nil {
		return err
	}
	if rank == ProcNull {
		return nil
	}
	if err := win.checkRank(rank); err != nil {
		return err
	}
	win.mu.Lock()
	defer win.mu.Unlock()
	if _, ok := win.locks[rank]; ok || win.lockAll || win.startGroup != nil {
		return Errorf(ErrRMASync, "", "MPI_Win_lock on rank %d while an access epoch to it is open", rank)
	}
	if win.locks == nil {
		win.locks = map[int]int{}
	}
	win.fence = false
	if assert&ModeNocheck != 0 {
		typ = 0 // no lock taken
	} else if win.eagerLock(rank) {
		if err := win.acquire(rank, typ); err != nil {
			return err
		}
		typ |= lockHeld
	}
	win.locks[rank] = typ
	return nil
}

// lockHeld marks a lock of win.locks that was acquired (lazily, by the
// first operation to the target, for other processes' memory outside
// shared windows: so a process waiting for a lock never blocks a peer
// that locked before entering a collective call).
const lockHeld = 1 << 16

// eagerLock reports whether a lock on rank is taken by MPI_Win_lock
// itself: on this process's memory, and in shared windows, whose memory
// the lock also guards against direct loads and stores.
func (win *Win) eagerLock(rank int) bool {
	return rank == win.comm.Rank() || win.flavor == FlavorShared
}

// holdLocked takes the pending lock on target t, if any (win.mu held).
func (win *Win) holdLocked(t int) error {
	if typ, ok := win.locks[t]; ok {
		if typ != 0 && typ&lockHeld == 0 {
			if err := win.acquire(t, typ); err != nil {
				return err
			}
			win.locks[t] = typ | lockHeld
		}
		return nil
	}
	if win.lockAll && win.lockAllChecked && !win.lockAllHeld[t] {
		if err := win.acquire(t, LockShared); err != nil {
			return err
		}
		win.lockAllHeld[t] = true
	}
	return nil
}

// Unlock is MPI_Win_unlock.
func (win *Win) Unlock(rank int) error {
	if rank == ProcNull {
		return nil
	}
	if err := win.checkRank(rank); err != nil {
		return err
	}
	win.mu.Lock()
	defer win.mu.Unlock()
	typ, ok := win.locks[rank]
	if !ok {
		return Errorf(ErrRMASync, "", "MPI_Win_unlock on rank %d, which is not locked", rank)
	}
	delete(win.locks, rank)
	if typ&lockHeld != 0 {
		return win.release(rank, typ&^lockHeld)
	}
	if win.net != nil {
		return win.net.flush(rank)
	}
	return nil
}

// LockAll is MPI_Win_lock_all: a shared lock on every rank.
func (win *Win) LockAll(assert int) error {
	if err := checkAssert(assert); err != nil {
		return err
	}
	win.mu.Lock()
	defer win.mu.Unlock()
	if win.passiveLocked() || win.startGroup != nil {
		return Errorf(ErrRMASync, "", "MPI_Win_lock_all while an access epoch is open")
	}
	win.fence = false
	win.lockAll = true
	win.lockAllChecked = assert&ModeNocheck == 0
	if win.lockAllHeld == nil {
		win.lockAllHeld = make([]bool, len(win.targets))
	}
	if win.lockAllChecked {
		for t := range win.targets {
			if win.eagerLock(t) {
				if err := win.acquire(t, LockShared); err != nil {
					return err
				}
				win.lockAllHeld[t] = true
			}
		}
	}
	return nil
}

// UnlockAll is MPI_Win_unlock_all.
func (win *Win) UnlockAll() error {
	win.mu.Lock()
	defer win.mu.Unlock()
	if !win.lockAll {
		return Errorf(ErrRMASync, "", "MPI_Win_unlock_all without MPI_Win_lock_all")
	}
	var first error
	for t, held := range win.lockAllHeld {
		var err error
		if held {
			err = win.release(t, LockShared)
			win.lockAllHeld[t] = false
		} else if win.net != nil {
			err = win.net.flush(t)
		}
		if err != nil && first == nil {
			first = err
		}
	}
	win.lockAll = false
	return first
}

// Flush is MPI_Win_flush and MPI_Win_flush_local (rank >= 0) and their
// _all forms (rank < 0, all): operations are complete when issued, so it
// checks that a passive target epoch is open and orders memory.
func (win *Win) Flush(rank int, all bool) error {
	if !all {
		if rank == ProcNull {
			return nil
		}
		if err := win.checkRank(rank); err != nil {
			return err
		}
	}
	win.mu.Lock()
	defer win.mu.Unlock()
	_, ok := win.locks[rank]
	if win.lockAll || (all && len(win.locks) > 0) || (!all && ok) {
		memoryBarrier()
		if win.net != nil {
			if all {
				return win.net.flushAll()
			}
			return win.net.flush(rank)
		}
		return nil
	}
	return Errorf(ErrRMASync, "", "flush outside a passive target epoch (MPI_Win_lock or MPI_Win_lock_all)")
}

// Sync is MPI_Win_sync: a memory barrier between the public and private
// copies, which are one in the unified model.
func (win *Win) Sync() error {
	memoryBarrier()
	return nil
}

var barrierWord atomic.Uint32

// memoryBarrier is a full fence (a locked read-modify-write on amd64).
func memoryBarrier() { barrierWord.Add(1) }

// canAccess reports whether an access epoch to target t is open, taking
// a pending passive target lock on t first.
func (win *Win) canAccess(t int) (bool, error) {
	win.mu.Lock()
	defer win.mu.Unlock()
	if win.fence {
		return true, nil
	}
	if _, ok := win.locks[t]; ok || win.lockAll {
		return true, win.holdLocked(t)
	}
	for _, r := range win.startGroup {
		if r == t {
			return true, nil
		}
	}
	return false, nil
}

// ExpressTarget returns rank t's window memory when it is mapped in this
// process and no process of the window is on another host (so every
// operation to t is a copy by the origin), with t's displacement unit;
// nil otherwise. capi's express lane copies small contiguous puts and
// gets into it without entering Go.
func (win *Win) ExpressTarget(t int) (mem []byte, unit int64) {
	if win.net != nil || t < 0 || t >= len(win.targets) {
		return nil, 0
	}
	return win.targets[t].mapped, win.targets[t].dispUnit
}

// ExpressAccWords returns target t's accumulate lock word and its
// sleeper count (ExpressTarget's windows only): holding the word (0 -> 1)
// excludes every other accumulate into t; whoever stores 0 again calls
// FUTEX_WAKE on it when the count is not 0.
func (win *Win) ExpressAccWords(t int) (p, waiters *uint32) { return win.accWords(t) }

// ExpressState fills, per target, whether an operation may be a plain
// copy now (an access epoch to it is open and the lock it needs, if any,
// is taken) and whether MPI_Win_flush on it only orders memory (a
// passive target epoch is open); fence reports whether an MPI_Win_fence
// without MPI_MODE_NOSUCCEED leaves the state as it is (a fence epoch is
// open, no other), so that it only has to meet the others (segBarrier).
func (win *Win) ExpressState(access, flush []bool) (fence bool) {
	win.mu.Lock()
	defer win.mu.Unlock()
	fence = win.net == nil && win.fence && !win.passiveLocked() && win.startGroup == nil && win.postGroup == nil
	for t := range access {
		typ, locked := win.locks[t]
		flush[t] = win.net == nil && (locked || win.lockAll)
		access[t] = win.net == nil && (win.fence || locked && (typ == 0 || typ&lockHeld != 0) ||
			win.lockAll && (!win.lockAllChecked || win.lockAllHeld[t]))
	}
	if win.net == nil {
		for _, t := range win.startGroup {
			if t < len(access) {
				access[t] = true
			}
		}
	}
	return fence
}
