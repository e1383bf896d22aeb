package shm

import (
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	mpirt "gmpi/runtime"
)

// Nonblocking collectives on the segment: MPI_Ibarrier, MPI_Ibcast,
// MPI_Ireduce and MPI_Iallreduce run the blocking algorithms of ops.go as
// state machines (mpirt.StartPolled): every point where the blocking form
// waits for other ranks' steps is a state that the progress engine polls,
// so a call advances inside any MPI call and, through background
// progress, while the caller computes. There are no messages, no
// schedule and no per-round allocation; the steps, slots and association
// of the reductions are those of the blocking forms, so the results have
// the same bits.
//
// Ordering. The operations of a communicator take their steps in the
// order the processes start them (the same everywhere), so the module
// keeps a queue: only its head runs; the next starts when it completes.
// A blocking collective on the segment first completes the queue (drain:
// every process started the queued operations before this one, so they
// can complete), and the C express lane declines the communicator while
// the queue is not empty (Busy). A nonblocking call declines (and runs
// its schedule) before the segment is set up, since setting it up is a
// blocking exchange: the module's state is the same on every process, so
// all of them decline the same calls.

// Busy, when set, is called with true when a communicator's queue of
// nonblocking operations becomes non-empty and with false when it is
// empty again (capi turns the express lane off for it meanwhile).
var Busy func(c *mpirt.Comm, busy bool)

// nbOp is one queued operation's state machine: step does what can be
// done without waiting and reports whether the operation completed and
// whether anything moved. It runs under nbMu, only at the queue's head.
type nbOp interface {
	step() (done, moved bool)
	// settled reports that no other rank waits for a step of this
	// operation that this rank has still to take (mpirt.SettledColl).
	settled() bool
	// failed is the error of a completed operation (nil: success).
	failed() error
}

// nbCall is one started nonblocking call (the mpirt.PolledColl of its
// request).
type nbCall struct {
	m        *module
	op       nbOp
	finished atomic.Bool
}

// nbQueue is the module's queue of nonblocking operations.
type nbQueue struct {
	mu sync.Mutex
	q  []*nbCall
	n  atomic.Int32 // len(q), read without the lock
}

// Advance implements mpirt.PolledColl: it runs the module's queue.
func (x *nbCall) Advance() (done, moved bool, err error) {
	if x.finished.Load() {
		return true, true, x.op.failed()
	}
	m := x.m
	if !m.nb.mu.TryLock() {
		return false, false, nil // another thread runs the queue
	}
	moved = m.runQueue()
	m.nb.mu.Unlock()
	if !x.finished.Load() {
		return false, moved, nil
	}
	return true, moved, x.op.failed()
}

// Settled implements mpirt.SettledColl: the call is the only one queued
// and its operation has taken every step the other ranks wait for (the
// steps of later calls are theirs; a call behind this one still has all
// of its steps to take, so it needs background progress).
func (x *nbCall) Settled() bool {
	if x.finished.Load() {
		return true
	}
	m := x.m
	if !m.nb.mu.TryLock() {
		return false
	}
	s := len(m.nb.q) == 1 && m.nb.q[0] == x && x.op.settled()
	m.nb.mu.Unlock()
	return s
}

// Sleep implements mpirt.PolledSleeper: it sleeps on this rank's futex
// word in the segment (as the blocking forms do, wait.go), which every
// rank that publishes a step rings, unless the queue can move now.
func (x *nbCall) Sleep(limit time.Duration) {
	if x.finished.Load() {
		return
	}
	m := x.m
	seg := m.seg
	bell, waiters := seg.bell[m.me], seg.waiters(m.me)
	e := atomic.LoadUint32(bell)
	atomic.AddUint32(waiters, 1)
	// Arm, then check: a publish after this check sees the waiter.
	if done, moved, _ := x.Advance(); !done && !moved {
		mpirt.FutexWait(bell, e, limit)
	}
	atomic.AddUint32(waiters, ^uint32(0))
}

// runQueue advances the queue's head, and the next ones as they
// complete; it reports whether anything moved. Holds nb.mu.
func (m *module) runQueue() bool {
	moved, popped := false, false
	for len(m.nb.q) > 0 {
		done, mv := m.nb.q[0].op.step()
		moved = moved || mv
		if !done {
			break
		}
		popped = true
		m.nb.q[0].finished.Store(true)
		m.nb.q[0] = nil
		m.nb.q = m.nb.q[1:]
		m.nb.n.Add(-1)
	}
	if len(m.nb.q) == 0 {
		m.nb.q = m.nb.q[:0:0]
		if popped && Busy != nil {
			Busy(m.c, false)
		}
	}
	return moved
}

// startNB queues op and starts its request.
func (m *module) startNB(c *mpirt.Comm, op nbOp) *mpirt.Request {
	return m.startCall(c, &nbCall{m: m, op: op})
}

// startCall queues x (its op set) and starts its request.
// The express lane's pending call, if any, goes first (Pending): the
// lane starts none while the queue is not empty.
func (m *module) startCall(c *mpirt.Comm, x *nbCall) *mpirt.Request {
	m.nb.mu.Lock()
	empty := len(m.nb.q) == 0
	if empty && Pending != nil {
		if finish := Pending(c); finish != nil {
			m.nb.q = append(m.nb.q, &nbCall{m: m, op: &nbExpress{finish: finish}})
			m.nb.n.Add(1)
		}
	}
	m.nb.q = append(m.nb.q, x)
	m.nb.n.Add(1)
	if empty && Busy != nil {
		Busy(c, true)
	}
	m.nb.mu.Unlock()
	return c.StartPolled(x)
}

// drain completes every queued nonblocking operation (before a blocking
// operation uses the segment).
func (m *module) drain() {
	if m.nb.n.Load() == 0 {
		return
	}
	m.wait(func() bool {
		m.nb.mu.Lock()
		m.runQueue()
		m.nb.mu.Unlock()
		return m.nb.n.Load() == 0
	})
}

// takesNB reports whether nonblocking calls may use the segment now.
func (m *module) takesNB() bool { return m.state == stateOn }

// ibarrier: one step, complete when every rank has completed it.
func (m *module) ibarrier(c *mpirt.Comm, _ *mpirt.CollArgs) (*mpirt.Request, error) {
	if !m.takesNB() {
		return nil, nil
	}
	return m.startNB(c, &nbBarrier{m: m}), nil
}

type nbBarrier struct {
	m *module
	s uint64 // 0: not started
}

// settled: the barrier's one step is published.
func (o *nbBarrier) settled() bool { return o.s != 0 }

func (o *nbBarrier) failed() error { return nil }

func (o *nbBarrier) step() (done, moved bool) {
	m := o.m
	if o.s == 0 {
		m.pv.step++
		o.s = m.pv.step
		m.publish(o.s)
		moved = true
	}
	if !m.allAt(o.s) {
		return false, moved
	}
	return true, true
}

// ibcast: bcastBytes in chunks, each chunk a state.
func (m *module) ibcast(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Request, error) {
	bytes := a.Rcount * a.Rdt.Size()
	if bytes <= 0 || bytes >= bcastMax || !m.takesNB() {
		return nil, nil
	}
	return m.startNB(c, &nbBcast{m: m, p: a.Rbuf, count: a.Rcount, dt: a.Rdt, root: a.Root}), nil
}

type nbBcast struct {
	m     *module
	p     unsafe.Pointer
	count int
	dt    *mpirt.Datatype
	root  int

	data    []byte // nil: not started
	off     int
	inChunk bool // the chunk at off has its step and slots
	g       *ring
	first   int
	s, free uint64
}

// settled: a rank other than the root, at the last chunk (only the
// root's steps are waited for within a broadcast; the others' steps free
// the root's slots for later chunks).
func (o *nbBcast) settled() bool {
	return o.m.me != o.root && o.data != nil && o.off+bcastChunk >= len(o.data)
}

func (o *nbBcast) failed() error { return nil }

func (o *nbBcast) step() (done, moved bool) {
	m := o.m
	if o.data == nil {
		bytes := o.count * o.dt.Size()
		if o.dt.IsContiguous() {
			o.data = unsafe.Slice((*byte)(unsafe.Add(o.p, o.dt.TrueLB())), bytes)
		} else {
			o.data = m.stage(bytes)
			if m.me == o.root {
				o.dt.Pack(o.data, o.p, o.count)
			}
		}
	}
	seg := m.seg
	for o.off < len(o.data) {
		part := o.data[o.off:min(o.off+bcastChunk, len(o.data))]
		if !o.inChunk {
			m.pv.step++
			o.s = m.pv.step
			o.g = m.ringFor(len(part))
			o.first, o.free = o.g.alloc(len(part), o.s)
			o.inChunk = true
		}
		if m.me == o.root {
			if !m.allAt(o.free) {
				return false, moved
			}
			copy(seg.slots(o.root, o.g, o.first, len(part)), part)
		} else {
			if !m.at(o.root, o.s) {
				return false, moved
			}
			copy(part, seg.slots(o.root, o.g, o.first, len(part)))
		}
		m.publish(o.s)
		o.off += len(part)
		o.inChunk = false
		moved = true
	}
	if m.me != o.root && !o.dt.IsContiguous() {
		o.dt.Unpack(o.p, o.data, o.count)
	}
	return true, true
}

// ireduce and iallreduce: reduction's rounds, each round's waits states.
func (m *module) ireduce(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Request, error) {
	return m.ireduction(c, a, a.Root, false)
}

func (m *module) iallreduce(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Request, error) {
	return m.ireduction(c, a, 0, true)
}

func (m *module) ireduction(c *mpirt.Comm, a *mpirt.CollArgs, root int, all bool) (*mpirt.Request, error) {
	dt := a.Rdt
	if a.Rcount <= 0 || dt.Size() == 0 || !m.takesNB() {
		return nil, nil
	}
	if err := mpirt.CheckOp(a.Op, dt); err != nil {
		return nil, err
	}
	if !reducible(a.Op, dt) {
		return nil, nil
	}
	// One allocation for the call and its state.
	k := &struct {
		x nbCall
		o nbReduce
	}{}
	k.o = nbReduce{m: m, sbuf: a.Sbuf, rbuf: a.Rbuf, count: a.Rcount,
		a: redArgs{dt: dt, op: a.Op, unit: mpirt.PackedReduceUnit(a.Op, dt), all: all, root: root}}
	k.x.m, k.x.op = m, &k.o
	return m.startCall(c, &k.x), nil
}

type nbReduce struct {
	m          *module
	sbuf, rbuf unsafe.Pointer
	count      int
	a          redArgs

	started    bool
	total, off int
	// The single-copy reduction (cma.go), when it takes the call.
	cma     bool
	inPlace bool
	x       redCMA
	// The current round (phase 0: none).
	phase   int
	bytes   int
	g       *ring
	first   int
	s1, end uint64
	free    uint64
}

// Round phases: waiting for the slots to be free, for every operand
// (s1), for every slice (s1+1, split rounds).
const (
	phNone = iota
	phFree
	phOperands
	phSlices
	// The single-copy reduction's waits: for free, s1, end.
	phCMAFree
	phCMAOperands
	phCMAEnd
)

func (o *nbReduce) slot(r int) []byte { return o.m.seg.slots(r, o.g, o.first, o.bytes) }

func (o *nbReduce) failed() error { return o.x.err }

func (o *nbReduce) step() (done, moved bool) {
	m, a := o.m, &o.a
	if !o.started {
		o.start()
		o.started = true
		moved = true
	}
	if o.cma {
		return o.stepCMA(moved)
	}
	wantOut := a.all || m.me == a.root
	per := roundBytes / a.unit * a.unit
	for {
		switch o.phase {
		case phNone:
			if o.off >= o.total {
				if wantOut && !a.dt.IsContiguous() {
					a.dt.Unpack(o.rbuf, a.out, o.count)
				}
				return true, true
			}
			o.bytes = min(per, o.total-o.off)
			o.s1, o.end = m.pv.step+1, m.pv.step+3
			m.pv.step = o.end
			o.g = m.ringFor(o.bytes)
			o.first, o.free = o.g.alloc(o.bytes, o.end)
			o.phase = phFree
			moved = true
		case phFree:
			if !m.allAt(o.free) {
				return false, moved
			}
			copy(o.slot(m.me), a.in[o.off:o.off+o.bytes])
			if o.small() && !wantOut {
				o.next()
			} else {
				m.publish(o.s1)
				o.phase = phOperands
			}
			moved = true
		case phOperands:
			if !m.allAt(o.s1) {
				return false, moved
			}
			moved = true
			if o.small() {
				m.combine(a, a.out[o.off:o.off+o.bytes], 0, o.slot)
				o.next()
				continue
			}
			if lo, hi := o.slice(m.me); hi > lo {
				acc := m.buf(bufAcc, hi-lo)
				m.combine(a, acc, lo, o.slot)
				copy(o.slot(m.me)[lo:hi], acc)
			}
			if !wantOut {
				o.next()
				continue
			}
			m.publish(o.s1 + 1)
			o.phase = phSlices
		case phSlices:
			if !m.allAt(o.s1 + 1) {
				return false, moved
			}
			out := a.out[o.off : o.off+o.bytes]
			for r := range m.n {
				lo, hi := o.slice(r)
				copy(out[lo:hi], o.slot(r)[lo:hi])
			}
			o.next()
			moved = true
		}
	}
}

// stepCMA runs the single-copy reduction's phases (reductionCMA).
func (o *nbReduce) stepCMA(moved bool) (done, _ bool) {
	m, a := o.m, &o.a
	for {
		switch o.phase {
		case phNone:
			o.x = m.redCMABegin(o.inPlace)
			o.phase = phCMAFree
		case phCMAFree:
			if !m.allAt(o.x.free) {
				return false, moved
			}
			m.redCMAPost(a, &o.x)
			o.phase = phCMAOperands
		case phCMAOperands:
			if !m.allAt(o.x.s1) {
				return false, moved
			}
			m.redCMAWork(a, &o.x)
			o.phase = phCMAEnd
		case phCMAEnd:
			if !m.allAt(o.x.end) {
				return false, moved
			}
			m.redCMAFinish(a, &o.x)
			if a.all || m.me == a.root {
				if !a.dt.IsContiguous() {
					a.dt.Unpack(o.rbuf, a.out, o.count)
				}
			}
			return true, true
		}
		moved = true
	}
}

// settled: in the last round, past the steps the others wait for (this
// rank's operand, and its slice of a split round): what is left reads
// the others' slots. A single-copy reduction settles once this rank has
// done its slices (the others read its operand and write its output
// until then).
func (o *nbReduce) settled() bool {
	if !o.started {
		return false
	}
	if o.cma {
		return o.phase == phCMAEnd
	}
	if o.off+o.bytes < o.total {
		return false
	}
	return o.phase == phSlices || o.phase == phOperands && o.small()
}

// start sets the packed operands up (as reduction does), once the
// operation is at the queue's head (the private buffers are its own).
func (o *nbReduce) start() {
	m, a := o.m, &o.a
	src := o.sbuf
	if mpirt.IsInPlace(src) {
		src = o.rbuf
	}
	dt := a.dt
	o.total = o.count * dt.Size()
	o.cma = m.useCMARed(o.total, a.unit)
	o.inPlace = mpirt.IsInPlace(o.sbuf)
	wantOut := a.all || m.me == a.root
	if dt.IsContiguous() {
		a.in = unsafe.Slice((*byte)(unsafe.Add(src, dt.TrueLB())), o.total)
		if wantOut {
			a.out = unsafe.Slice((*byte)(unsafe.Add(o.rbuf, dt.TrueLB())), o.total)
		}
		return
	}
	a.in = m.buf(bufIn, o.total)
	dt.Pack(a.in, src, o.count)
	if wantOut {
		a.out = m.buf(bufOut, o.total)
	}
}

// small reports whether the current round is combined whole (by the
// root or every rank) rather than split into slices (see round).
func (o *nbReduce) small() bool {
	return o.bytes < splitMin || o.bytes/o.a.unit < o.m.n
}

// slice is rank r's slice of a split round (see round).
func (o *nbReduce) slice(r int) (lo, hi int) {
	units, n, u := o.bytes/o.a.unit, o.m.n, o.a.unit
	return units * r / n * u, units * (r + 1) / n * u
}

// next completes the current round.
func (o *nbReduce) next() {
	o.m.publish(o.end)
	o.off += o.bytes
	o.phase = phNone
}
