package mpirt

import (
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// A Schedule is one collective call as data: rounds of steps (sends,
// receives, local computations). Starting it runs the first round; a
// round ends when all its sends and receives are done, and then the next
// one starts. The progress engine (World.progress) advances running
// schedules, so a nonblocking collective moves inside any MPI call that
// polls. A schedule can be started again once it completed (persistent
// collectives build it once): every step reads user memory when it runs.
//
// Every schedule owns one tag on its communicators' collective contexts,
// taken from a per-communicator sequence when it is built. All processes
// build the collectives of a communicator in the same order, so the
// same call has the same tag everywhere, and outstanding calls never
// match each other's messages. Within a call, messages between two
// processes pair up by MPI's non-overtaking rule.
//
// Steps within a round run in the order they were added: a local step
// runs when the round starts (before the later steps are posted), so a
// round "compute then send" is one round.
type Schedule struct {
	c      *Comm
	tag    int
	rounds [][]step
	open   bool // the last round accepts steps

	// running state
	cur     int
	pending atomic.Int32 // unfinished steps of the current round, +1 while posting
	req     *Request
	errMu   sync.Mutex
	err     error
	hook    func(*Request) // childDone, bound once
	running bool
	// foreground: a blocking call waits for the schedule at once, so it
	// does not start background progress.
	foreground bool
	// again, when set (Loop), is asked after the last round whether the
	// schedule runs once more from its first round.
	again func() bool
}

type stepKind uint8

const (
	stepSend stepKind = iota
	stepRecv
	stepSendTyped
	stepRecvTyped
	stepLocal
)

type step struct {
	kind  stepKind
	c     *Comm // whose collective context carries the message
	peer  int
	buf   []byte
	p     unsafe.Pointer
	count int
	dt    *Datatype
	fn    func() error
	bufFn func() []byte // SendFunc: the bytes to send, asked for when the step runs
	tag   int           // 0: the schedule's own tag (steps inlined from another schedule keep its tag)
}

// schedTagBase is above every fixed tag the collective components use.
const schedTagBase = 1 << 22

// NewSchedule starts building a schedule for one collective call on c.
func (c *Comm) NewSchedule() *Schedule {
	seq := atomic.AddUint32(&c.collSeq, 1)
	s := &Schedule{c: c, tag: schedTagBase + int(seq&(1<<20-1))}
	s.hook = s.childDone
	return s
}

// Comm is the communicator the schedule was built for.
func (s *Schedule) Comm() *Comm { return s.c }

func (s *Schedule) add(st step) {
	if !s.open {
		s.rounds = append(s.rounds, nil)
		s.open = true
	}
	i := len(s.rounds) - 1
	s.rounds[i] = append(s.rounds[i], st)
}

// Round closes the current round: steps added after it start only when
// every send and receive added before it completed. Empty rounds are not
// created.
func (s *Schedule) Round() { s.open = false }

// Send adds a send of buf (contiguous bytes, read when the step runs) to
// rank peer of c (a remote rank on an intercommunicator), on c's
// collective context. MPI_PROC_NULL adds nothing.
func (s *Schedule) Send(c *Comm, buf []byte, peer int) {
	if peer != ProcNull {
		s.add(step{kind: stepSend, c: c, peer: peer, buf: buf})
	}
}

// Recv adds a receive of up to len(buf) bytes into buf from rank peer of c.
func (s *Schedule) Recv(c *Comm, buf []byte, peer int) {
	if peer != ProcNull {
		s.add(step{kind: stepRecv, c: c, peer: peer, buf: buf})
	}
}

// SendFunc adds a send of the bytes fn returns when the step runs (their
// length may differ from run to run), to rank peer of c.
func (s *Schedule) SendFunc(c *Comm, fn func() []byte, peer int) {
	if peer != ProcNull {
		s.add(step{kind: stepSend, c: c, peer: peer, bufFn: fn})
	}
}

// Loop makes the schedule start over from its first round each time its
// last round completed, as long as again (called then) returns true: a
// service that runs in the background (background progress advances it)
// until it decides to end, which completes its request.
func (s *Schedule) Loop(again func() bool) { s.again = again }

// RecvPacked adds a receive of count elements of dt, packed, into buf
// (PackedLen bytes): a Recv whose bytes are known to be typed data, so
// that data from a process of another representation arrives converted
// to this process's (hetero.go); reductions combine only such operands.
func (s *Schedule) RecvPacked(c *Comm, buf []byte, count int, dt *Datatype, peer int) {
	if peer != ProcNull {
		s.add(step{kind: stepRecv, c: c, peer: peer, buf: buf, count: count, dt: dt})
	}
}

// SendTyped adds a send of count elements of dt at p (packed when the
// step runs if dt is not contiguous).
func (s *Schedule) SendTyped(c *Comm, p unsafe.Pointer, count int, dt *Datatype, peer int) {
	if peer != ProcNull {
		s.add(step{kind: stepSendTyped, c: c, peer: peer, p: p, count: count, dt: dt})
	}
}

// RecvTyped adds a receive of up to count elements of dt into p.
func (s *Schedule) RecvTyped(c *Comm, p unsafe.Pointer, count int, dt *Datatype, peer int) {
	if peer != ProcNull {
		s.add(step{kind: stepRecvTyped, c: c, peer: peer, p: p, count: count, dt: dt})
	}
}

// Inline appends the rounds of child (a schedule built on any
// communicator, never started) after the current round: they run in
// order, each step with child's tag on its own communicator, so a
// component composes one call from the schedules other components build
// for sub-communicators. The next step added starts a new round.
func (s *Schedule) Inline(child *Schedule) { s.InlineParallel(child) }

// InlineParallel appends the rounds of several children side by side:
// round i of the result holds round i of every child that has one.
func (s *Schedule) InlineParallel(children ...*Schedule) {
	s.open = false
	base := len(s.rounds)
	for _, ch := range children {
		if ch == nil {
			continue
		}
		for i, round := range ch.rounds {
			for len(s.rounds) <= base+i {
				s.rounds = append(s.rounds, nil)
			}
			for _, st := range round {
				if st.tag == 0 {
					st.tag = ch.tag
				}
				s.rounds[base+i] = append(s.rounds[base+i], st)
			}
		}
	}
	s.open = false
}

// Reset drops every step of a schedule that is not running, keeping its
// tag, so a blocking composition runs several phases under one tag.
func (s *Schedule) Reset() {
	if !s.running {
		s.rounds, s.open = s.rounds[:0], false
	}
}

// Local adds a local computation (a reduction, a copy).
func (s *Schedule) Local(fn func() error) { s.add(step{kind: stepLocal, fn: fn}) }

// Start runs the schedule once and returns the request that completes
// when its last round has (an active schedule cannot be started again).
func (s *Schedule) Start() (*Request, error) {
	if s.running {
		return nil, Errorf(ErrRequest, "", "invalid request: the collective is still active")
	}
	s.open = false
	s.cur, s.err, s.running = 0, nil, true
	s.req = &Request{w: s.c.w, Kind: ReqColl, comm: s.c}
	s.req.Status = Status{Source: AnySource, Tag: AnyTag}
	r := s.req
	if !s.run() {
		s.c.w.addSchedule(s, !s.foreground)
	}
	return r, nil
}

func (s *Schedule) childDone(r *Request) {
	if r.Err != nil {
		s.fail(r.Err)
	}
	if s.pending.Add(-1) == 0 {
		s.c.w.waker.Ring()
	}
}

func (s *Schedule) fail(err error) {
	s.errMu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.errMu.Unlock()
}

func (s *Schedule) failed() error {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	return s.err
}

// run starts rounds while the current one is complete; it reports
// whether the schedule finished (and completed its request).
func (s *Schedule) run() bool {
	w := s.c.w
	for s.pending.Load() == 0 {
		if err := s.failed(); err != nil || s.cur == len(s.rounds) {
			if err == nil && s.again != nil && len(s.rounds) > 0 && s.again() {
				s.cur = 0
				continue
			}
			s.finish(err)
			return true
		}
		round := s.rounds[s.cur]
		s.cur++
		s.pending.Store(1)
		for i := range round {
			st := &round[i]
			tag := s.tag
			if st.tag != 0 {
				tag = st.tag
			}
			switch st.kind {
			case stepLocal:
				if err := st.fn(); err != nil {
					s.fail(err)
				}
			case stepSend, stepSendTyped:
				buf, m := st.buf, ModeStandard
				if st.bufFn != nil {
					buf = st.bufFn()
				}
				if st.kind == stepSendTyped {
					buf, m = w.sendData(st.p, st.count, st.dt)
				}
				s.pending.Add(1)
				if _, err := w.isend(st.c, st.c.CollContext(), buf, st.peer, tag, m, s.hook); err != nil {
					s.pending.Add(-1)
					s.fail(err)
				}
			case stepRecv:
				s.pending.Add(1)
				w.irecvT(st.c, st.c.CollContext(), st.buf, st.peer, tag, s.hook, recvTarget{st.dt, st.count})
			case stepRecvTyped:
				data, unpack := recvView(st.p, st.count, st.dt)
				hook := s.hook
				if unpack != nil {
					hook = func(r *Request) {
						unpack(r)
						s.childDone(r)
					}
				}
				s.pending.Add(1)
				w.irecvT(st.c, st.c.CollContext(), data, st.peer, tag, hook, recvTarget{st.dt, st.count})
			}
		}
		s.pending.Add(-1)
	}
	return false
}

func (s *Schedule) finish(err error) {
	r := s.req
	s.req, s.running = nil, false
	if err != nil {
		r.Err = err
		r.Status.Error = ErrorClassOf(err)
	}
	s.c.w.complete(r)
}

// schedules are the running schedules of a World, advanced by progress,
// and the running polled collectives (StartPolled).
type schedules struct {
	mu        sync.Mutex
	list      []schedItem
	n         atomic.Int32 // len(list), read without the lock
	polled    atomic.Int32 // polled collectives in list: no device event wakes a waiter for them
	advancing atomic.Bool
}

// schedItem is a running schedule or polled collective: advance moves it
// as far as it can go now and reports whether it finished and whether it
// moved at all.
type schedItem interface {
	advance() (done, moved bool)
}

func (s *Schedule) advance() (done, moved bool) {
	if s.pending.Load() != 0 {
		return false, false
	}
	return s.run(), true
}

// PolledColl is a nonblocking collective that its component runs as a state
// machine on memory the processes share (coll/shm), not as messages:
// Advance does what can be done now without waiting and reports whether
// the operation completed (err: how it failed) and whether anything
// moved. It must never wait or call into the progress engine. Advance
// may be called from any thread that makes progress (never two at once
// for one World's list), also after it reported done.
type PolledColl interface {
	Advance() (done, moved bool, err error)
}

// StartPolled starts a polled collective on c and returns its request,
// which progress completes once p reports done. Until then waiters poll
// (the component's peers publish their steps in shared memory, which
// rings no doorbell of this process), and background progress advances
// it while the caller computes.
func (c *Comm) StartPolled(p PolledColl) *Request {
	r := &Request{w: c.w, Kind: ReqColl, comm: c, poll: p}
	r.Status = Status{Source: AnySource, Tag: AnyTag}
	if done, _ := r.advance(); done {
		return r
	}
	if sl, ok := p.(PolledSleeper); ok {
		r.psleep = sl
	}
	c.w.sched.polled.Add(1)
	if s, ok := p.(SettledColl); ok && s.Settled() {
		c.w.addScheduleLazy(r)
	} else {
		c.w.addSchedule(r, true)
	}
	return r
}

// SettledColl is a PolledColl that can tell when the rest of its call
// needs nothing more of this process: Settled reports that every step
// the other processes wait for (to complete the calls they started) has
// been taken here, so what is left only waits for their steps and works
// locally (a small reduction whose operand is published). Such a call
// does not wake the progress goroutine at once: the others complete
// without this process, and a call waited for soon (MPI_Wait right after
// the start, or after a short computation) completes in the waiting
// thread; the goroutine is woken by a timer after bgGrace only if the
// call is still running then (startBackgroundLazy). Waking it for every
// call cost more than the call itself (bench/README.md, "Nonblocking
// collectives without the goroutine").
type SettledColl interface {
	PolledColl
	Settled() bool
}

// PolledSleeper is a PolledColl that can put a waiter to sleep until its
// peers take a step (shared memory rings nothing in this process's
// doorbell): Sleep arms the component's own wake-up, returns at once if
// the call can move (or completed), and else sleeps for at most limit.
// A thread that waits for such a call alone sleeps there instead of
// polling the doorbell in slices (measured: 2 ranks, 8 B MPI_Iallreduce
// + MPI_Wait, median 8 us per call with the slices under load).
type PolledSleeper interface {
	PolledColl
	Sleep(limit time.Duration)
}

// advance moves a polled collective's request (StartPolled).
func (r *Request) advance() (done, moved bool) {
	done, moved, err := r.poll.Advance()
	if !done {
		return false, moved
	}
	if err != nil {
		r.Err = err
		r.Status.Error = ErrorClassOf(err)
	}
	r.poll = nil
	r.w.complete(r)
	return true, true
}

func (w *World) addSchedule(s schedItem, background bool) {
	w.sched.mu.Lock()
	w.sched.list = append(w.sched.list, s)
	w.sched.n.Store(int32(len(w.sched.list)))
	w.sched.mu.Unlock()
	if background {
		w.startBackground()
	}
	w.waker.Ring()
}

// addScheduleLazy adds a settled polled collective (SettledColl): its
// background progress starts only if the call is still running after
// bgGrace (startBackgroundLazy).
func (w *World) addScheduleLazy(s schedItem) {
	w.sched.mu.Lock()
	w.sched.list = append(w.sched.list, s)
	w.sched.n.Store(int32(len(w.sched.list)))
	w.sched.mu.Unlock()
	w.startBackgroundLazy()
}

// advanceSchedules moves every running schedule whose round completed
// to its next round; it returns how many moved. A call nested in a step
// (a send that polls while it waits for room) returns at once.
func (w *World) advanceSchedules() int {
	q := &w.sched
	if !q.advancing.CompareAndSwap(false, true) {
		return 0
	}
	defer q.advancing.Store(false)
	q.mu.Lock()
	defer q.mu.Unlock()
	n, keep := 0, q.list[:0]
	for _, s := range q.list {
		done, moved := s.advance()
		if moved {
			n++
		}
		if !done {
			keep = append(keep, s)
		} else if _, ok := s.(*Request); ok {
			q.polled.Add(-1)
		}
	}
	clear(q.list[len(keep):])
	q.list = keep
	q.n.Store(int32(len(keep)))
	return n
}

// RunningSchedules is the number of collective schedules in flight.
func (w *World) RunningSchedules() int { return int(w.sched.n.Load()) }

// Packed helpers: reductions in schedules work on packed buffers
// (ReducePacked), so processes may describe their operands with
// different datatypes of one type signature.

// PackedLen is the number of bytes of count elements of dt packed.
func PackedLen(count int, dt *Datatype) int {
	if count <= 0 {
		return 0
	}
	return count * dt.Size()
}

// LoadPacked packs count elements of dt at p into buf (PackedLen bytes).
func LoadPacked(buf []byte, p unsafe.Pointer, count int, dt *Datatype) {
	if len(buf) > 0 {
		dt.Pack(buf, p, count)
	}
}

// StorePacked unpacks buf into count elements of dt at p, never touching
// the gaps.
func StorePacked(p unsafe.Pointer, count int, dt *Datatype, buf []byte) {
	if len(buf) > 0 {
		dt.Unpack(p, buf, count)
	}
}

// CopyTyped copies count elements of sdt at src to dst as rcount elements
// of rdt (same type signature; a local collective step). It packs
// through a temporary unless both types are contiguous.
func CopyTyped(dst unsafe.Pointer, rcount int, rdt *Datatype, src unsafe.Pointer, scount int, sdt *Datatype) {
	data := sendView(src, scount, sdt)
	if len(data) == 0 {
		return
	}
	if n := rcount * rdt.Size(); len(data) > n {
		data = data[:n]
	}
	if rdt.IsContiguous() {
		copy(unsafe.Slice((*byte)(unsafe.Add(dst, rdt.TrueLB())), len(data)), data)
		return
	}
	rdt.Unpack(dst, data, rcount)
}

// Packed is count elements of dt at p as contiguous bytes for a
// schedule: the user memory itself when dt is contiguous, else a buffer
// that Load fills from (Store copies back to) the user memory.
type Packed struct {
	Data  []byte
	p     unsafe.Pointer
	count int
	dt    *Datatype
}

// NewPacked returns the packed view of count elements of dt at p.
func NewPacked(p unsafe.Pointer, count int, dt *Datatype) *Packed {
	k := &Packed{p: p, count: count, dt: dt}
	n := count * dt.Size()
	switch {
	case n == 0:
	case dt.IsContiguous():
		k.Data = unsafe.Slice((*byte)(unsafe.Add(p, dt.TrueLB())), n)
		k.dt = nil
	default:
		k.Data = make([]byte, n)
	}
	return k
}

// Load packs the user data into Data (nothing to do when contiguous).
func (k *Packed) Load() error {
	if k.dt != nil && len(k.Data) > 0 {
		k.dt.Pack(k.Data, k.p, k.count)
	}
	return nil
}

// Store unpacks Data into the user memory.
func (k *Packed) Store() error {
	if k.dt != nil && len(k.Data) > 0 {
		k.dt.Unpack(k.p, k.Data, k.count)
	}
	return nil
}

// RunBlocking runs the schedule once and waits for it, for a blocking
// call (no background progress is started for it).
func (s *Schedule) RunBlocking() error {
	s.foreground = true
	r, err := s.Start()
	if err != nil {
		return err
	}
	return s.c.w.Wait(r)
}
