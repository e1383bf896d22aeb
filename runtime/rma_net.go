package mpirt

// Windows whose processes are on several hosts: the ranks of one host
// share a control segment (rma.go) and reach each other through it; an
// operation, lock request or PSCW notice to a rank of another host
// travels as a FrameRMA frame over the device that serves them from its
// own receive path (AsyncReceiver: tcp's drainer goroutine, or whichever
// thread reads the socket), so a target applies them while it computes
// without calling MPI (passive target progress). The receive path takes
// the target's words in its host's segment: accumulates under its
// accumulate lock (the one the origins of its host take: per-call
// atomicity whatever the op and type, and the order of issue per origin,
// as frames of a pair are read in order and served one at a time), lock
// requests on its lock word (a request that must wait is granted by a
// goroutine that waits for the word). Frame header: Context is the
// window's context id, Source the sender's rank in the window, Tag the
// operation, SendID the origin's answer id, Offset the target offset
// from its base (an address for dynamic windows), Len the lock type
// (requests) or the error class (answers).
//
// Data: the origin flattens the target datatype into (offset, length)
// segments relative to the target offset (data blocks for put and get;
// whole-element spans, padding of pair types included, for accumulates)
// and sends them with the data, cut in pieces of at most rmaPiece bytes;
// a fetching operation completes when its answers are in: at the next
// flush, unlock, fence or MPI_Win_complete, or (request forms) when the
// last answer arrives, which completes the request. The others are
// complete locally when sent and remotely at the next flush, unlock,
// fence or (for the target) MPI_Win_wait. Dynamic windows: the origin
// checks addresses against its copy of the target's attached regions,
// fetched again on a miss; the target checks every segment again.
//
// Cost per operation: one frame per piece (plus, for a fetch, one answer
// and a round trip); a flush or unlock is one round trip per target that
// was written since the last; a fence adds a barrier; a lock is one round
// trip on the first access to the target in the epoch.

import (
	"encoding/binary"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Operations (Header.Tag of FrameRMA frames).
const (
	rmaOpPut = iota + 1
	rmaOpGet
	rmaOpAcc    // accumulate (payload: elem type, op)
	rmaOpGetAcc // get_accumulate, fetch_and_op
	rmaOpCAS
	rmaOpFlush
	rmaOpLock   // Len: lock type
	rmaOpUnlock // Len: lock type (the answer follows the release)
	rmaOpPost
	rmaOpComplete
	rmaOpRegions
	rmaOpAnswer // SendID: the origin's id; Len: error class (0: success)
)

// rmaPiece bounds the data of one frame; rmaPieceSegs its segments.
const (
	rmaPiece     = 256 << 10
	rmaPieceSegs = 4096
	rmaPieceHead = 16 // nsegs uint32, pad, elem type handle, op handle
)

// rmaWait is one answer an origin waits for.
type rmaWait struct {
	segs []rmaSeg // where the answer's data goes, in order
	done atomic.Bool
	cls  int    // error class of the answer
	data []byte // the answer's payload when segs is nil (regions)
	grp  *rmaGroup
}

// rmaGroup completes a request once the answers of its operation are in.
type rmaGroup struct {
	nt     *rmaNet
	t      int
	left   atomic.Int32
	waits  []*rmaWait
	finish func()
	req    *Request
}

// arrived counts one answer of g in; the last completes the request.
func (g *rmaGroup) arrived() {
	if g.left.Add(-1) != 0 {
		return
	}
	for _, wt := range g.waits {
		if wt.cls != 0 {
			g.req.Err = remoteErr(wt.cls, g.t, "one-sided operation")
			break
		}
	}
	if g.req.Err == nil && g.finish != nil {
		g.finish()
	}
	g.nt.win.w.complete(g.req)
}

// netRegion is an attached region of a dynamic window.
type netRegion struct {
	lo, n uint64
	p     unsafe.Pointer
}

// rmaNet is the state of a window spanning hosts.
type rmaNet struct {
	win   *Win
	dev   Device
	ctx   uint32
	me    int
	world []int // window rank -> world rank

	// Target side. live guards the window's segment and memory against
	// a frame served while the window is freed (closed: served no more).
	live     sync.RWMutex
	closed   bool
	lockMu   sync.Mutex
	held     []int // per origin: the lock type it holds here (| lockPending while it waits), 0: none
	regMu    sync.Mutex
	regs     []netRegion // attached regions (dynamic)
	errMu    sync.Mutex
	deferred []int // per origin: error class of an operation that failed here

	posts     []atomic.Uint32 // origin side: posts received from each target
	completes []atomic.Uint32 // target side: completes received from each origin

	// Origin side.
	waitMu  sync.Mutex
	nextID  uint64
	waits   map[uint64]*rmaWait
	dirty   []atomic.Bool // written since the last flush, per target
	rregMu  sync.Mutex
	rregs   [][]netRegion // copies of the targets' regions (dynamic)
	senders sync.WaitGroup
	fetchMu sync.Mutex
	fetches [][]rmaFetch // fetching operations not completed yet, per target

	// Answers waiting for the sender goroutine.
	outMu   sync.Mutex
	outCond *sync.Cond
	out     []rmaOut
	stop    bool
}

// rmaFetch is a fetching operation (get, get_accumulate, fetch_and_op,
// compare_and_swap) issued but not completed: its answers, and what moves
// the staged data to the user's buffers once they are in.
type rmaFetch struct {
	waits  []*rmaWait
	finish func()
	req    *Request // a request form's: it completes the operation
}

type rmaOut struct {
	peer    int
	hdr     Header
	payload []byte
}

// spansHosts decides the data path of a new window over c.
func (c *Comm) windowSpansHosts() (bool, error) {
	hosts, err := c.hostsOf()
	if err != nil {
		return false, err
	}
	for _, h := range hosts {
		if h != hosts[0] {
			return true, nil
		}
	}
	return false, nil
}

// setupNet builds the state of a window spanning hosts, after setup
// (collective: fails on every process alike).
func (win *Win) setupNet() error {
	c := win.comm
	w := c.w
	n := c.Size()
	nt := &rmaNet{win: win, dev: w.rmaSend, ctx: c.Context(), me: c.Rank(), world: make([]int, n),
		waits: map[uint64]*rmaWait{}, deferred: make([]int, n), held: make([]int, n), posts: make([]atomic.Uint32, n),
		completes: make([]atomic.Uint32, n), dirty: make([]atomic.Bool, n), rregs: make([][]netRegion, n), fetches: make([][]rmaFetch, n)}
	nt.outCond = sync.NewCond(&nt.outMu)
	ok := byte(1)
	for r := 0; r < n; r++ {
		nt.world[r] = c.WorldRank(r)
		if !win.local(r) && (w.rmaDev == nil || !w.rmaDev.Reaches(nt.world[r])) {
			ok = 2
		}
	}
	// Registered before the exchange: a peer may send once it is done.
	w.rmaWins.Store(nt.ctx, nt)
	all, err := c.sysAllgather([]byte{ok}, 3)
	if err == nil {
		for r, b := range all {
			if len(b) != 1 || b[0] != 1 {
				err = Errorf(ErrUnsupportedOperation, "", "rank %d of the window cannot reach every rank of other hosts over the tcp device (which windows spanning hosts need)", r)
				break
			}
		}
	}
	if err != nil {
		w.rmaWins.Delete(nt.ctx)
		return err
	}
	win.net = nt
	nt.senders.Add(1)
	go nt.sender()
	w.logf("window (context %d) spans hosts: %d of its %d processes share this host's segment, the others are reached by messages", nt.ctx, win.layout.n, n)
	return nil
}

// freeNet releases what setupNet built (after the window's last barrier).
func (nt *rmaNet) free() {
	w := nt.win.w
	nt.live.Lock()
	nt.closed = true
	nt.live.Unlock()
	w.rmaWins.Delete(nt.ctx)
	nt.outMu.Lock()
	nt.stop = true
	nt.outCond.Broadcast()
	nt.outMu.Unlock()
	nt.senders.Wait()
}

// sender sends the answers the receive path queued (a Handler never
// sends itself).
func (nt *rmaNet) sender() {
	defer nt.senders.Done()
	for {
		nt.outMu.Lock()
		for len(nt.out) == 0 && !nt.stop {
			nt.outCond.Wait()
		}
		if len(nt.out) == 0 {
			nt.outMu.Unlock()
			return
		}
		o := nt.out[0]
		nt.out[0] = rmaOut{}
		nt.out = nt.out[1:]
		nt.outMu.Unlock()
		if err := nt.dev.Send(o.peer, o.hdr, o.payload); err != nil {
			nt.win.w.logf("gmpi: window answer to rank %d: %v", o.peer, err)
		}
	}
}

// rmaFrame serves a FrameRMA frame (from a device's receive path or from
// Poll); it reports whether the frame was one.
func (w *World) rmaFrame(peer int, h *Header, payload []byte) bool {
	if h.Kind != FrameRMA {
		return false
	}
	v, ok := w.rmaWins.Load(h.Context)
	if !ok {
		w.logf("gmpi: one-sided frame for unknown window context %d from %d", h.Context, peer)
		return true
	}
	nt := v.(*rmaNet)
	src := int(h.Source)
	if src < 0 || src >= len(nt.world) || nt.world[src] != peer {
		w.logf("gmpi: bad one-sided frame from %d", peer)
		return true
	}
	nt.serve(src, h, payload)
	return true
}

// answer sends (or, to this process, delivers) the answer to id of origin o.
func (nt *rmaNet) answer(o int, id uint64, cls int, payload []byte) {
	h := Header{Kind: FrameRMA, Context: nt.ctx, Source: int32(nt.me), Tag: rmaOpAnswer, SendID: id, Len: uint64(cls)}
	if o == nt.me {
		nt.gotAnswer(&h, payload)
		return
	}
	if payload != nil {
		payload = append([]byte(nil), payload...)
	}
	nt.outMu.Lock()
	nt.out = append(nt.out, rmaOut{peer: nt.world[o], hdr: h, payload: payload})
	nt.outCond.Signal()
	nt.outMu.Unlock()
}

// gotAnswer completes the wait the answer names.
func (nt *rmaNet) gotAnswer(h *Header, payload []byte) {
	nt.waitMu.Lock()
	wt := nt.waits[h.SendID]
	delete(nt.waits, h.SendID)
	nt.waitMu.Unlock()
	if wt == nil || wt.done.Load() {
		nt.win.w.logf("gmpi: one-sided answer for unknown id %d", h.SendID)
		return
	}
	wt.cls = int(h.Len)
	if h.Len > ErrLastClass {
		// Not a class: a malformed answer fails the operation all the same.
		nt.win.w.logf("gmpi: one-sided answer with error class %d from rank %d", h.Len, h.Source)
		wt.cls = ErrIntern
	}
	if wt.segs == nil {
		wt.data = append([]byte(nil), payload...)
	} else if wt.cls == 0 {
		pos := 0
		for _, s := range wt.segs {
			if pos+s.n > len(payload) {
				wt.cls = ErrIntern
				break
			}
			copy(unsafe.Slice((*byte)(s.loc), s.n), payload[pos:pos+s.n])
			pos += s.n
		}
	}
	nt.waitMu.Lock()
	wt.done.Store(true)
	g := wt.grp
	nt.waitMu.Unlock()
	if g != nil {
		g.arrived()
	}
	nt.win.w.waker.Wake()
}

// newWait registers a wait for an answer.
func (nt *rmaNet) newWait(segs []rmaSeg) (uint64, *rmaWait) {
	wt := &rmaWait{segs: segs}
	nt.waitMu.Lock()
	nt.nextID++
	id := nt.nextID
	nt.waits[id] = wt
	nt.waitMu.Unlock()
	return id, wt
}

// send sends a request to target t (served at once when t is this process).
func (nt *rmaNet) send(t int, h Header, payload []byte) error {
	h.Kind, h.Context, h.Source = FrameRMA, nt.ctx, int32(nt.me)
	if t == nt.me {
		nt.serve(t, &h, payload)
		return nil
	}
	return nt.dev.Send(nt.world[t], h, payload)
}

// await waits for the answers of ws and returns the first error class.
func (nt *rmaNet) await(ws ...*rmaWait) int {
	w := nt.win.w
	w.waitUntil(func() bool {
		for _, wt := range ws {
			if !wt.done.Load() {
				return false
			}
		}
		return true
	})
	for _, wt := range ws {
		if wt.cls != 0 {
			return wt.cls
		}
	}
	return 0
}

// call sends a request and waits for its answer.
func (nt *rmaNet) call(t int, h Header, payload []byte, segs []rmaSeg) (*rmaWait, error) {
	id, wt := nt.newWait(segs)
	h.SendID = id
	if err := nt.send(t, h, payload); err != nil {
		nt.waitMu.Lock()
		delete(nt.waits, id)
		nt.waitMu.Unlock()
		return nil, err
	}
	nt.await(wt)
	return wt, nil
}

func remoteErr(cls, t int, what string) error {
	if cls == 0 {
		return nil
	}
	switch cls {
	case ErrRMARange:
		return Errorf(cls, "", "%s: rank %d found target bytes outside the window (or outside every attached region)", what, t)
	case ErrRMASync:
		return Errorf(cls, "", "%s: rank %d found no lock of this process to release, or one held already", what, t)
	case ErrLocktype:
		return Errorf(cls, "", "%s: rank %d got an invalid lock type", what, t)
	}
	return Errorf(cls, "", "%s: rank %d could not apply the operation", what, t)
}

// issue sends an operation on segs to target t at address addr, in
// pieces. With data the segments' bytes go along (from their locs);
// with fetch the answers' data land in the locs of fsegs (segments
// paired one to one with segs). unit is the granularity a long segment
// may be cut at.
func (nt *rmaNet) issue(t, op int, addr int64, elem, opH Handle, segs, fsegs []rmaSeg, data bool, unit int) ([]*rmaWait, error) {
	if fsegs != nil && len(fsegs) != len(segs) {
		return nil, Errorf(ErrIntern, "", "one-sided operation with %d segments and %d result segments", len(segs), len(fsegs))
	}
	maxPiece := rmaPiece / unit * unit
	if maxPiece == 0 {
		maxPiece = unit
	}
	var waits []*rmaWait
	var sendErr error
	var pSegs, pF []rmaSeg
	pBytes := 0
	flush := func() {
		if len(pSegs) == 0 || sendErr != nil {
			pSegs, pF, pBytes = pSegs[:0], pF[:0], 0
			return
		}
		sz := rmaPieceHead + 16*len(pSegs)
		if data {
			sz += pBytes
		}
		b := make([]byte, sz)
		binary.LittleEndian.PutUint32(b[0:], uint32(len(pSegs)))
		binary.LittleEndian.PutUint32(b[8:], uint32(elem))
		binary.LittleEndian.PutUint32(b[12:], uint32(opH))
		pos := rmaPieceHead
		for _, s := range pSegs {
			binary.LittleEndian.PutUint64(b[pos:], uint64(s.off))
			binary.LittleEndian.PutUint64(b[pos+8:], uint64(s.n))
			pos += 16
		}
		if data {
			for _, s := range pSegs {
				pos += copy(b[pos:], unsafe.Slice((*byte)(s.loc), s.n))
			}
		}
		h := Header{Tag: int32(op), Offset: uint64(addr)}
		if fsegs != nil {
			id, wt := nt.newWait(append([]rmaSeg(nil), pF...))
			h.SendID = id
			waits = append(waits, wt)
		}
		if err := nt.send(t, h, b); err != nil {
			sendErr = err
		}
		pSegs, pF, pBytes = pSegs[:0], pF[:0], 0
	}
	for i, s := range segs {
		var f rmaSeg
		if fsegs != nil {
			f = fsegs[i]
		}
		for s.n > 0 {
			k := min(s.n, maxPiece-pBytes)
			if k < unit || k < s.n && k%unit != 0 {
				k = k / unit * unit
			}
			if k == 0 {
				flush()
				continue
			}
			pSegs = append(pSegs, rmaSeg{off: s.off, loc: s.loc, n: k})
			if fsegs != nil {
				pF = append(pF, rmaSeg{off: f.off, loc: f.loc, n: k})
			}
			pBytes += k
			if s.n -= k; s.n > 0 {
				// (Never past the end: checkptr.)
				s.off += int64(k)
				s.loc = unsafe.Add(s.loc, k)
				if fsegs != nil {
					f.off += int64(k)
					f.loc = unsafe.Add(f.loc, k)
				}
			}
			if pBytes >= maxPiece || len(pSegs) >= rmaPieceSegs {
				flush()
			}
		}
	}
	flush()
	if sendErr != nil {
		// Answers to the pieces sent still arrive: wait for them.
		nt.await(waits...)
		return nil, sendErr
	}
	if fsegs == nil && t != nt.me {
		nt.dirty[t].Store(true)
	}
	return waits, nil
}

// fetched registers the fetching operation a (to another host) whose
// answers are waits: it completes at the next synchronization that
// completes operations to a.Target (flush, unlock, fence,
// MPI_Win_complete), and for a request form (a.Request) when its last
// answer arrives, which completes the request (a.Req) then.
func (nt *rmaNet) fetched(a *RMAArgs, waits []*rmaWait, finish func()) error {
	t := a.Target
	f := rmaFetch{waits: waits, finish: finish}
	if a.Request {
		req := &Request{w: nt.win.w, Kind: ReqSend, comm: nt.win.comm}
		req.Status = Status{Source: AnySource, Tag: AnyTag}
		g := &rmaGroup{nt: nt, t: t, waits: waits, finish: finish, req: req}
		g.left.Store(int32(len(waits)) + 1)
		in := int32(1)
		nt.waitMu.Lock()
		for _, wt := range waits {
			if wt.done.Load() {
				in++
			} else {
				wt.grp = g
			}
		}
		nt.waitMu.Unlock()
		if g.left.Add(-in) == 0 {
			g.left.Store(1)
			g.arrived()
		}
		a.Req = req
		f = rmaFetch{waits: waits, req: req}
	}
	nt.fetchMu.Lock()
	nt.fetches[t] = append(nt.fetches[t], f)
	nt.fetchMu.Unlock()
	return nil
}

// completeFetches completes the fetching operations issued to t.
func (nt *rmaNet) completeFetches(t int) error {
	nt.fetchMu.Lock()
	fs := nt.fetches[t]
	nt.fetches[t] = nil
	nt.fetchMu.Unlock()
	var first error
	for _, f := range fs {
		if f.req != nil {
			nt.win.w.waitFor(f.req)
			if f.req.Err != nil && first == nil {
				first = f.req.Err
			}
			continue
		}
		cls := nt.await(f.waits...)
		if cls != 0 {
			if first == nil {
				first = remoteErr(cls, t, "one-sided operation")
			}
			continue
		}
		if f.finish != nil {
			f.finish()
		}
	}
	return first
}

// parsePiece splits a request payload.
func parsePiece(p []byte) (segs []rmaSeg, elem, op Handle, data []byte, ok bool) {
	if len(p) < rmaPieceHead {
		return nil, 0, 0, nil, false
	}
	n := int(binary.LittleEndian.Uint32(p[0:]))
	elem = Handle(binary.LittleEndian.Uint32(p[8:]))
	op = Handle(binary.LittleEndian.Uint32(p[12:]))
	if n < 0 || n > (len(p)-rmaPieceHead)/16 {
		return nil, 0, 0, nil, false
	}
	segs = make([]rmaSeg, n)
	pos := rmaPieceHead
	for i := range segs {
		segs[i].off = int64(binary.LittleEndian.Uint64(p[pos:]))
		segs[i].n = int(binary.LittleEndian.Uint64(p[pos+8:]))
		if segs[i].n < 0 {
			return nil, 0, 0, nil, false
		}
		pos += 16
	}
	return segs, elem, op, p[pos:], true
}

// locate returns this process's memory for n bytes at target address a,
// nil when they are outside the window (or every attached region).
func (nt *rmaNet) locate(a int64, n int) []byte {
	win := nt.win
	if n == 0 {
		return []byte{}
	}
	lo, hi := uint64(a), uint64(a)+uint64(n)
	if hi < lo {
		return nil
	}
	if win.flavor == FlavorDynamic {
		nt.regMu.Lock()
		defer nt.regMu.Unlock()
		for _, r := range nt.regs {
			if lo >= r.lo && hi <= r.lo+r.n {
				return unsafe.Slice((*byte)(unsafe.Add(r.p, lo-r.lo)), n)
			}
		}
		return nil
	}
	if win.base == nil || hi > uint64(win.size) {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Add(win.base, lo)), n)
}

// serve applies a request of window rank o (or, for an answer, completes
// the wait it names). It runs on any thread, concurrently with the user's.
func (nt *rmaNet) serve(o int, h *Header, payload []byte) {
	nt.live.RLock()
	defer nt.live.RUnlock()
	if nt.closed {
		nt.win.w.logf("gmpi: one-sided frame (operation %d) from rank %d for a freed window", h.Tag, o)
		return
	}
	switch int(h.Tag) {
	case rmaOpAnswer:
		nt.gotAnswer(h, payload)
	case rmaOpPut, rmaOpGet, rmaOpAcc, rmaOpGetAcc, rmaOpCAS:
		nt.serveData(o, h, payload)
	case rmaOpFlush:
		nt.answer(o, h.SendID, nt.takeDeferred(o), nil)
	case rmaOpLock:
		nt.lockRequest(o, int(h.Len), h.SendID)
	case rmaOpUnlock:
		nt.unlockRequest(o, int(h.Len), h.SendID)
	case rmaOpPost:
		nt.posts[o].Add(1)
		nt.win.w.waker.Wake()
	case rmaOpComplete:
		nt.completes[o].Add(1)
		nt.win.w.waker.Wake()
	case rmaOpRegions:
		nt.regMu.Lock()
		b := make([]byte, 0, 16*len(nt.regs))
		for _, r := range nt.regs {
			b = binary.LittleEndian.AppendUint64(b, r.lo)
			b = binary.LittleEndian.AppendUint64(b, r.n)
		}
		nt.regMu.Unlock()
		nt.answer(o, h.SendID, 0, b)
	default:
		nt.win.w.logf("gmpi: one-sided frame with unknown operation %d from rank %d", h.Tag, o)
	}
}

func (nt *rmaNet) setDeferred(o, cls int) {
	nt.errMu.Lock()
	if nt.deferred[o] == 0 {
		nt.deferred[o] = cls
	}
	nt.errMu.Unlock()
}

func (nt *rmaNet) takeDeferred(o int) int {
	nt.errMu.Lock()
	defer nt.errMu.Unlock()
	c := nt.deferred[o]
	nt.deferred[o] = 0
	return c
}

// serveData applies a put, get, accumulate or compare-and-swap piece.
func (nt *rmaNet) serveData(o int, h *Header, payload []byte) {
	op := int(h.Tag)
	fetch := op == rmaOpGet || op == rmaOpGetAcc || op == rmaOpCAS
	fail := func(cls int) {
		if fetch {
			nt.answer(o, h.SendID, cls, nil)
		} else {
			nt.setDeferred(o, cls)
		}
	}
	segs, elemH, opH, data, ok := parsePiece(payload)
	if !ok {
		fail(ErrIntern)
		return
	}
	mem := make([][]byte, len(segs))
	total := 0
	for i, s := range segs {
		if mem[i] = nt.locate(int64(h.Offset)+s.off, s.n); mem[i] == nil {
			fail(ErrRMARange)
			return
		}
		// An origin cuts its operations in pieces of at most rmaPiece
		// bytes (issue): a piece naming more (many segments over the
		// same bytes, say) would make a fetch allocate what the frame
		// never announced.
		if total += s.n; total > rmaPiece {
			fail(ErrIntern)
			return
		}
	}
	var elem *Datatype
	if op == rmaOpAcc || op == rmaOpGetAcc || op == rmaOpCAS {
		var ok bool
		if elem, ok = PredefinedDatatype(elemH); !ok || elem.Extent() == 0 {
			fail(ErrType)
			return
		}
		// Accumulates take predefined operations only: a peer never
		// gets to run one of this process's user functions.
		if op != rmaOpCAS && !IsPredefinedOp(opH) {
			fail(ErrOp)
			return
		}
		nt.win.accLock(nt.me)
		defer nt.win.accUnlock(nt.me)
	}
	// The data a piece carries: the bytes of its segments for a put and
	// an accumulate (MPI_NO_OP: none), none for a get; more or less is a
	// malformed frame.
	if op != rmaOpCAS {
		want := total
		if op == rmaOpGet || opH == OpNoOp && (op == rmaOpAcc || op == rmaOpGetAcc) {
			want = 0
		}
		if len(data) != want {
			fail(ErrIntern)
			return
		}
	}
	var out []byte
	if fetch && op != rmaOpCAS {
		out = make([]byte, 0, total)
		for _, m := range mem {
			out = append(out, m...)
		}
	}
	switch op {
	case rmaOpPut:
		pos := 0
		for _, m := range mem {
			pos += copy(m, data[pos:])
		}
	case rmaOpAcc, rmaOpGetAcc:
		if opH == OpNoOp {
			break
		}
		pos := 0
		for _, m := range mem {
			if err := ReduceLocal(opH, elem, data[pos:pos+len(m)], m, len(m)/elem.Extent()); err != nil {
				fail(ErrOp)
				return
			}
			pos += len(m)
		}
	case rmaOpCAS:
		n := elem.Size()
		if len(mem) != 1 || len(mem[0]) != n || len(data) != 2*n {
			fail(ErrIntern)
			return
		}
		out = append([]byte(nil), mem[0]...)
		if string(out) == string(data[n:]) {
			copy(mem[0], data[:n])
		}
	}
	if fetch {
		nt.answer(o, h.SendID, 0, out)
	}
}

// lockPending marks a lock request of an origin that waits for the lock.
const lockPending = 1 << 16

// lockRequest grants a lock request of origin o when this process's lock
// is free for it, else hands it to a goroutine that waits for the lock.
// An origin holds at most one lock here (MPI forbids a second before the
// unlock): a second request, like an unlock of a lock it does not hold,
// is answered with MPI_ERR_RMA_SYNC and leaves the lock as it is.
func (nt *rmaNet) lockRequest(o, typ int, id uint64) {
	if typ != LockExclusive && typ != LockShared {
		nt.answer(o, id, ErrLocktype, nil)
		return
	}
	nt.lockMu.Lock()
	if nt.held[o] != 0 {
		nt.lockMu.Unlock()
		nt.answer(o, id, ErrRMASync, nil)
		return
	}
	nt.held[o] = typ | lockPending
	nt.lockMu.Unlock()
	if nt.win.tryAcquire(nt.me, typ) {
		nt.granted(o, typ, id)
		return
	}
	go nt.waitLock(o, typ, id)
}

// granted records and answers origin o's lock.
func (nt *rmaNet) granted(o, typ int, id uint64) {
	nt.lockMu.Lock()
	nt.held[o] = typ
	nt.lockMu.Unlock()
	nt.answer(o, id, 0, nil)
}

// waitLock waits for this process's lock for origin o, a millisecond at
// a time under live, so that freeing the window ends the wait.
func (nt *rmaNet) waitLock(o, typ int, id uint64) {
	for {
		nt.live.RLock()
		if nt.closed {
			nt.live.RUnlock()
			return
		}
		if nt.win.tryAcquire(nt.me, typ) {
			nt.granted(o, typ, id)
			nt.live.RUnlock()
			return
		}
		p, waiters := nt.win.lockWords(nt.me)
		v := atomic.LoadUint32(p)
		atomic.AddUint32(waiters, 1)
		if v != 0 && atomic.LoadUint32(p) == v {
			FutexWait(p, v, time.Millisecond)
		}
		atomic.AddUint32(waiters, ^uint32(0))
		nt.live.RUnlock()
	}
}

// unlockRequest releases the lock origin o holds here, once the
// operations it sent before are applied (they were: frames of a pair are
// served in order).
func (nt *rmaNet) unlockRequest(o, typ int, id uint64) {
	nt.lockMu.Lock()
	if typ != LockExclusive && typ != LockShared || nt.held[o] != typ {
		nt.lockMu.Unlock()
		nt.answer(o, id, ErrRMASync, nil)
		return
	}
	nt.held[o] = 0
	nt.lockMu.Unlock()
	nt.win.releaseLocal(nt.me, typ)
	nt.answer(o, id, nt.takeDeferred(o), nil)
}

// acquire takes target t's lock (waits for the grant).
func (nt *rmaNet) acquire(t, typ int) error {
	_, err := nt.call(t, Header{Tag: rmaOpLock, Len: uint64(typ)}, nil, nil)
	return err
}

// release drops target t's lock once the operations before it are
// complete there.
func (nt *rmaNet) release(t, typ int) error {
	ferr := nt.completeFetches(t)
	nt.dirty[t].Store(false)
	wt, err := nt.call(t, Header{Tag: rmaOpUnlock, Len: uint64(typ)}, nil, nil)
	if err != nil {
		return err
	}
	if err := remoteErr(wt.cls, t, "MPI_Win_unlock"); err != nil {
		return err
	}
	return ferr
}

// flush completes the operations issued to t at t.
func (nt *rmaNet) flush(t int) error {
	ferr := nt.completeFetches(t)
	if t == nt.me || !nt.dirty[t].Swap(false) {
		return ferr
	}
	wt, err := nt.call(t, Header{Tag: rmaOpFlush}, nil, nil)
	if err != nil {
		return err
	}
	if err := remoteErr(wt.cls, t, "flush"); err != nil {
		return err
	}
	return ferr
}

// flushAll flushes every target written since the last flush.
func (nt *rmaNet) flushAll() error {
	var first error
	for t := range nt.dirty {
		if err := nt.flush(t); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// attachedRemote reports whether [lo, lo+n) of rank t is in a region t
// attached, asking t for its regions when the copy does not say so.
func (nt *rmaNet) attachedRemote(t int, lo uint64, n int64) (bool, error) {
	find := func() bool {
		for _, r := range nt.rregs[t] {
			if lo >= r.lo && lo+uint64(n) <= r.lo+r.n {
				return true
			}
		}
		return false
	}
	nt.rregMu.Lock()
	found := find()
	nt.rregMu.Unlock()
	if found {
		return true, nil
	}
	wt, err := nt.call(t, Header{Tag: rmaOpRegions}, nil, nil)
	if err != nil {
		return false, err
	}
	var regs []netRegion
	for b := wt.data; len(b) >= 16; b = b[16:] {
		regs = append(regs, netRegion{lo: binary.LittleEndian.Uint64(b), n: binary.LittleEndian.Uint64(b[8:])})
	}
	nt.rregMu.Lock()
	nt.rregs[t] = regs
	found = find()
	nt.rregMu.Unlock()
	return found, nil
}

// attach and detach keep this process's regions of a dynamic window.
func (nt *rmaNet) attach(base unsafe.Pointer, size int64) error {
	lo, hi := uint64(uintptr(base)), uint64(uintptr(base))+uint64(size)
	nt.regMu.Lock()
	defer nt.regMu.Unlock()
	for _, r := range nt.regs {
		if lo < r.lo+r.n && r.lo < hi || r.lo == lo {
			return Errorf(ErrRMAAttach, "", "memory [%#x, %#x) overlaps a region attached already", lo, hi)
		}
	}
	if len(nt.regs) >= maxRegions {
		return Errorf(ErrRMAAttach, "", "already %d regions attached to the window (the most gmpi keeps)", maxRegions)
	}
	nt.regs = append(nt.regs, netRegion{lo: lo, n: uint64(size), p: base})
	return nil
}

func (nt *rmaNet) detach(base unsafe.Pointer) error {
	nt.regMu.Lock()
	defer nt.regMu.Unlock()
	for i, r := range nt.regs {
		if r.p == base {
			nt.regs = append(nt.regs[:i], nt.regs[i+1:]...)
			return nil
		}
	}
	return Errorf(ErrRMAAttach, "", "memory at %p is not attached to the window", base)
}

// elemSpans pairs the whole-element spans of count x dt (its eprog leaf
// blocks: padding of pair types included) with local memory laid out like
// the target from dt's true lower bound.
func elemSpans(dt *Datatype, count int, local unsafe.Pointer) []rmaSeg {
	var segs []rmaSeg
	add := func(off, n int) {
		l := unsafe.Add(local, off-dt.TrueLB())
		if k := len(segs); k > 0 && segs[k-1].off+int64(segs[k-1].n) == int64(off) {
			segs[k-1].n += n
			return
		}
		segs = append(segs, rmaSeg{off: int64(off), loc: l, n: n})
	}
	dt.eprog.each(0, count, dt.Extent(), add)
	return segs
}

// accumulateNet is GetAccumulate on a window spanning hosts: the operand
// is laid out like the target, sent as whole-element spans; a fetch
// lands in a staging image of the same layout, packed into the result.
func (win *Win) accumulateNet(a *RMAArgs, addr int64, noop, fetch bool) error {
	tdt, tc := a.TDT, a.TCount
	sp := rmaSpan(tdt, tc)
	img := make([]byte, sp)
	pi := unsafe.Pointer(unsafe.SliceData(img))
	if !noop {
		tdt.Unpack(unsafe.Add(pi, -tdt.TrueLB()), sendView(a.Origin, a.OCount, a.ODT), tc)
	}
	segs := elemSpans(tdt, tc, pi)
	op := rmaOpAcc
	var fsegs []rmaSeg
	var res []byte
	if fetch {
		op = rmaOpGetAcc
		res = make([]byte, sp)
		fsegs = elemSpans(tdt, tc, unsafe.Pointer(unsafe.SliceData(res)))
	}
	waits, err := win.net.issue(a.Target, op, addr, tdt.Elem.Handle, a.Op, segs, fsegs, !noop, tdt.Elem.Extent())
	if err != nil || !fetch {
		return err
	}
	rdt, result, rc := a.RDT, a.Result, a.RCount
	return win.net.fetched(a, waits, func() {
		packed := make([]byte, tc*tdt.Size())
		tdt.Pack(packed, unsafe.Add(unsafe.Pointer(unsafe.SliceData(res)), -tdt.TrueLB()), tc)
		rdt.Unpack(result, packed, rc)
	})
}

// issueCAS is compare-and-swap on a window spanning hosts: in holds the
// origin value then the compare value; the old value lands in result.
func (nt *rmaNet) issueCAS(t int, addr int64, dt *Datatype, in, result []byte) error {
	n := dt.Size()
	b := make([]byte, rmaPieceHead+16+2*n)
	binary.LittleEndian.PutUint32(b[0:], 1)
	binary.LittleEndian.PutUint32(b[8:], uint32(dt.Handle))
	binary.LittleEndian.PutUint64(b[rmaPieceHead+8:], uint64(n))
	copy(b[rmaPieceHead+16:], in)
	seg := []rmaSeg{{loc: unsafe.Pointer(unsafe.SliceData(result)), n: n}}
	id, wt := nt.newWait(seg)
	if err := nt.send(t, Header{Tag: rmaOpCAS, Offset: uint64(addr), SendID: id}, b); err != nil {
		nt.waitMu.Lock()
		delete(nt.waits, id)
		nt.waitMu.Unlock()
		return err
	}
	return nt.fetched(&RMAArgs{Target: t}, []*rmaWait{wt}, nil)
}
