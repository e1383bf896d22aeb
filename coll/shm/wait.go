package shm

import (
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	mpirt "gmpi/runtime"
)

// Waiting is event-driven like the point-to-point path: poll the counters
// (yielding the CPU between polls on an oversubscribed host), and after
// spinFor sleep on this rank's futex word in the segment. A rank that
// publishes a step wakes the ranks that sleep. While waiting, point-to-
// point progress continues (a peer's rendezvous may need this process),
// and a sleeper wakes up every sleepSlice to make it.
const sleepSlice = time.Millisecond

// publish completes step s for this rank and wakes sleeping ranks.
func (m *module) publish(s uint64) {
	seg := m.seg
	seg.publish(m.me, s)
	for r := range m.n {
		if r != m.me && atomic.LoadUint32(seg.waiters(r)) != 0 {
			atomic.AddUint32(seg.bell[r], 1)
			mpirt.FutexWake(seg.bell[r])
		}
	}
}

// at reports whether rank r has completed step s. It reads r's counter
// only when what it saw last is not enough: a rank that runs behind reads
// the counter of one that runs ahead once per many steps.
func (m *module) at(r int, s uint64) bool {
	if m.seen[r] >= s {
		return true
	}
	m.seen[r] = m.seg.stepOf(r)
	return m.seen[r] >= s
}

// allAt reports whether every rank has completed step s.
func (m *module) allAt(s uint64) bool {
	for r := range m.n {
		if !m.at(r, s) {
			return false
		}
	}
	return true
}

// waitAll waits until every rank has completed step s.
func (m *module) waitAll(s uint64) {
	if m.allAt(s) {
		return
	}
	m.wait(func() bool { return m.allAt(s) })
}

// waitOthers waits until every rank but this one has completed step s.
func (m *module) waitOthers(s uint64) {
	done := func() bool {
		for r := range m.n {
			if r != m.me && !m.at(r, s) {
				return false
			}
		}
		return true
	}
	if done() {
		return
	}
	m.wait(done)
}

// waitRank waits until rank r has completed step s.
func (m *module) waitRank(r int, s uint64) {
	if m.at(r, s) {
		return
	}
	m.wait(func() bool { return m.at(r, s) })
}

func (m *module) wait(done func() bool) {
	w := m.c.World()
	seg := m.seg
	var start time.Time
	for i := 1; ; i++ {
		if done() {
			return
		}
		if m.yield {
			osyield()
		}
		if i&63 != 0 {
			continue
		}
		w.Progress()
		if start.IsZero() {
			start = time.Now()
			continue
		}
		if time.Since(start) < m.spinFor {
			continue
		}
		// Arm, re-check, sleep: a publish after the re-check sees the
		// waiter count and bumps the epoch we sleep on.
		bell, waiters := seg.bell[m.me], seg.waiters(m.me)
		e := atomic.LoadUint32(bell)
		atomic.AddUint32(waiters, 1)
		if !done() {
			mpirt.FutexWait(bell, e, sleepSlice)
		}
		atomic.AddUint32(waiters, ^uint32(0))
		w.Progress()
		// start stays: after a wake-up that did not finish the wait
		// (an earlier step, or the slice ran out), sleep again soon.
	}
}

func osyield() { unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }
