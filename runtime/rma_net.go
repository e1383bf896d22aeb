package mpirt

// Windows whose processes are on several hosts: every operation, lock
// request and PSCW notice travels as a FrameRMA frame over the device that
// serves them from its own receive path (AsyncReceiver: tcp's drainer
// goroutine, or whichever thread reads the socket), so a target applies
// them while it computes without calling MPI (passive target progress).
// Every pair of such a window talks this way, also two ranks of one host
// (the tcp device reaches every rank for this), so that all accumulates
// into one process are applied by that process, under one lock (accMu):
// per-call atomicity whatever the op and type, and the order of issue per
// origin (frames of a pair are read in order and served one at a time);
// an origin's accesses to its own memory take the same path without a
// message. Frame header: Context is the window's context id, Source the
// sender's rank in the window, Tag the operation, SendID the origin's
// answer id, Offset the target address, Len the lock type (requests) or
// the error class (answers).
//
// Data: the origin flattens the target datatype into (offset, length)
// segments relative to the target address (data blocks for put and get;
// whole-element spans, padding of pair types included, for accumulates)
// and sends them with the data, cut in pieces of at most rmaPiece bytes;
// a fetching operation waits for its answers before it returns, the others
// are complete locally when sent and remotely at the next flush, unlock,
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
	"unsafe"

	"golang.org/x/sys/unix"
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
	rmaOpUnlock // Len: lock type
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
}

// netRegion is an attached region of a dynamic window.
type netRegion struct {
	lo, n uint64
	p     unsafe.Pointer
}

// lockReq is a lock request queued at its target.
type lockReq struct {
	origin, typ int
	id          uint64
}

// rmaNet is the state of a window spanning hosts.
type rmaNet struct {
	win   *Win
	dev   Device
	ctx   uint32
	me    int
	world []int // window rank -> world rank

	alloc []byte // this process's memory of an allocated window

	// Target side.
	accMu    sync.Mutex // serializes accumulates into this process
	lkMu     sync.Mutex
	excl     bool
	shared   int
	lkQueue  []lockReq
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

// setupNet builds the state of a window spanning hosts (after the cards'
// exchange fails or succeeds on every process alike).
func (win *Win) setupNet(base unsafe.Pointer) error {
	c := win.comm
	w := c.w
	n := c.Size()
	nt := &rmaNet{win: win, dev: w.rmaSend, ctx: c.Context(), me: c.Rank(), world: make([]int, n),
		waits: map[uint64]*rmaWait{}, deferred: make([]int, n), posts: make([]atomic.Uint32, n),
		completes: make([]atomic.Uint32, n), dirty: make([]atomic.Bool, n), rregs: make([][]netRegion, n), fetches: make([][]rmaFetch, n)}
	nt.outCond = sync.NewCond(&nt.outMu)
	ok := byte(1)
	for r := 0; r < n; r++ {
		nt.world[r] = c.WorldRank(r)
		if r != nt.me && (w.rmaDev == nil || !w.rmaDev.Reaches(nt.world[r])) {
			ok = 2
		}
	}
	if win.flavor == FlavorAllocate && win.size > 0 {
		m, err := unix.Mmap(-1, 0, roundUp(int(win.size), pageSize), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
		if err != nil {
			ok = 3
		} else {
			nt.alloc = m
			base = unsafe.Pointer(unsafe.SliceData(m))
		}
	}
	win.base = base
	var mine [33]byte
	binary.LittleEndian.PutUint64(mine[0:], uint64(uintptr(base)))
	binary.LittleEndian.PutUint64(mine[8:], uint64(win.size))
	binary.LittleEndian.PutUint64(mine[16:], uint64(win.unit))
	mine[32] = ok
	// Registered before the exchange: a peer may send once it is done.
	w.rmaWins.Store(nt.ctx, win)
	all, err := c.sysAllgather(mine[:], 0)
	if err == nil {
		win.targets = make([]winTarget, n)
		for r, b := range all {
			if len(b) != 33 {
				err = Errorf(ErrIntern, "", "window card of rank %d has %d bytes", r, len(b))
				break
			}
			switch b[32] {
			case 1:
			case 3:
				err = Errorf(ErrNoMem, "", "rank %d of the window could not allocate %d bytes", r, binary.LittleEndian.Uint64(b[8:]))
			default:
				err = Errorf(ErrUnsupportedOperation, "", "rank %d of the window cannot reach every other one over the tcp device (which windows spanning hosts need)", r)
			}
			if err != nil {
				break
			}
			win.targets[r] = winTarget{base: uintptr(binary.LittleEndian.Uint64(b[0:])),
				size: int64(binary.LittleEndian.Uint64(b[8:])), dispUnit: int64(binary.LittleEndian.Uint64(b[16:]))}
		}
	}
	if err != nil {
		w.rmaWins.Delete(nt.ctx)
		if nt.alloc != nil {
			unix.Munmap(nt.alloc)
		}
		return err
	}
	win.layout = winLayout{n: n}
	win.net = nt
	if win.flavor == FlavorDynamic {
		win.regions = map[uintptr]int{}
	}
	nt.senders.Add(1)
	go nt.sender()
	w.logf("window (context %d) spans hosts: its operations travel as messages", nt.ctx)
	return nil
}

// freeNet releases what setupNet built (after the window's last barrier).
func (nt *rmaNet) free() {
	w := nt.win.w
	w.rmaWins.Delete(nt.ctx)
	nt.outMu.Lock()
	nt.stop = true
	nt.outCond.Broadcast()
	nt.outMu.Unlock()
	nt.senders.Wait()
	if nt.alloc != nil {
		unix.Munmap(nt.alloc)
		nt.alloc = nil
	}
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
	nt := v.(*Win).net
	src := int(h.Source)
	if nt == nil || src < 0 || src >= len(nt.world) || nt.world[src] != peer {
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
	if wt == nil {
		nt.win.w.logf("gmpi: one-sided answer for unknown id %d", h.SendID)
		return
	}
	wt.cls = int(h.Len)
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
	wt.done.Store(true)
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
	if cls == ErrRMARange {
		return Errorf(cls, "", "%s: rank %d found target bytes outside the window (or outside every attached region)", what, t)
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

// fetched completes a fetching operation to t now (a request form, or a
// target in this process), or at the next synchronization that completes
// operations to t (flush, unlock, fence, MPI_Win_complete).
func (nt *rmaNet) fetched(t int, now bool, waits []*rmaWait, finish func()) error {
	if now || t == nt.me {
		if cls := nt.await(waits...); cls != 0 {
			return remoteErr(cls, t, "one-sided operation")
		}
		if finish != nil {
			finish()
		}
		return nil
	}
	nt.fetchMu.Lock()
	nt.fetches[t] = append(nt.fetches[t], rmaFetch{waits: waits, finish: finish})
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
	b := uint64(uintptr(win.base))
	if win.base == nil || lo < b || hi > b+uint64(win.size) {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Add(win.base, lo-b)), n)
}

// serve applies a request of window rank o (or, for an answer, completes
// the wait it names). It runs on any thread, concurrently with the user's.
func (nt *rmaNet) serve(o int, h *Header, payload []byte) {
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
		nt.unlockRequest(int(h.Len))
		nt.answer(o, h.SendID, nt.takeDeferred(o), nil)
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
		total += s.n
	}
	var elem *Datatype
	if op == rmaOpAcc || op == rmaOpGetAcc || op == rmaOpCAS {
		var ok bool
		if elem, ok = PredefinedDatatype(elemH); !ok || elem.Extent() == 0 {
			fail(ErrType)
			return
		}
		nt.accMu.Lock()
		defer nt.accMu.Unlock()
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
		if op == rmaOpAcc && len(data) < total || op == rmaOpGetAcc && len(data) < total {
			fail(ErrIntern)
			return
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

// lockRequest queues or grants a lock request of origin o.
func (nt *rmaNet) lockRequest(o, typ int, id uint64) {
	nt.lkMu.Lock()
	if len(nt.lkQueue) == 0 && nt.grantableLocked(typ) {
		nt.takeLocked(typ)
		nt.lkMu.Unlock()
		nt.answer(o, id, 0, nil)
		return
	}
	nt.lkQueue = append(nt.lkQueue, lockReq{origin: o, typ: typ, id: id})
	nt.lkMu.Unlock()
}

func (nt *rmaNet) grantableLocked(typ int) bool {
	if typ == LockExclusive {
		return !nt.excl && nt.shared == 0
	}
	return !nt.excl
}

func (nt *rmaNet) takeLocked(typ int) {
	if typ == LockExclusive {
		nt.excl = true
	} else {
		nt.shared++
	}
}

// unlockRequest releases a lock and grants the queued requests that fit,
// in order.
func (nt *rmaNet) unlockRequest(typ int) {
	nt.lkMu.Lock()
	if typ == LockExclusive {
		nt.excl = false
	} else if nt.shared > 0 {
		nt.shared--
	}
	var grant []lockReq
	for len(nt.lkQueue) > 0 && nt.grantableLocked(nt.lkQueue[0].typ) {
		q := nt.lkQueue[0]
		nt.lkQueue = nt.lkQueue[1:]
		nt.takeLocked(q.typ)
		grant = append(grant, q)
	}
	nt.lkMu.Unlock()
	for _, q := range grant {
		nt.answer(q.origin, q.id, 0, nil)
	}
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
	return win.net.fetched(a.Target, a.Request, waits, func() {
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
	return nt.fetched(t, false, []*rmaWait{wt}, nil)
}
