package mpirt

import (
	"sync"
	"unsafe"
)

// Persistent requests (MPI_Send_init, MPI_Recv_init, ...) keep their
// arguments; Start launches an ordinary operation with them. The
// persistent Request is the user's handle; the launched operation is what
// completion calls wait for (Op). After completion the persistent request
// goes inactive (Deactivate) and can be started again.

type persistent struct {
	buf   unsafe.Pointer
	count int
	dt    *Datatype
	rank  int // dest (sends) or source (receives)
	tag   int
	mode  SendMode
	cur   *Request // operation launched by Start; nil while inactive
	// start, when set, launches the operation instead (persistent
	// collectives, Comm.CollInit).
	start func() (*Request, error)
	part  *partState // partitioned requests (partitioned.go)
}

// SendInit creates an inactive persistent send request.
func (c *Comm) SendInit(buf unsafe.Pointer, count int, dt *Datatype, dest, tag int, mode SendMode) *Request {
	return &Request{w: c.w, Kind: ReqSend, comm: c, Persistent: true,
		pers: &persistent{buf: buf, count: count, dt: dt, rank: dest, tag: tag, mode: mode}}
}

// RecvInit creates an inactive persistent receive request.
func (c *Comm) RecvInit(buf unsafe.Pointer, count int, dt *Datatype, src, tag int) *Request {
	return &Request{w: c.w, Kind: ReqRecv, comm: c, Persistent: true,
		pers: &persistent{buf: buf, count: count, dt: dt, rank: src, tag: tag}}
}

// Start activates the persistent request r.
func (r *Request) Start() error {
	p := r.pers
	if p == nil {
		return Errorf(ErrRequest, "", "invalid request: not a persistent request")
	}
	if p.cur != nil {
		return Errorf(ErrRequest, "", "invalid request: persistent request is already active")
	}
	var op *Request
	var err error
	if p.start != nil {
		op, err = p.start()
	} else if r.Kind == ReqSend && p.mode == ModeBuffered {
		op, err = r.comm.IbsendTyped(p.buf, p.count, p.dt, p.rank, p.tag)
	} else if r.Kind == ReqSend {
		op, err = r.comm.IsendTyped(p.buf, p.count, p.dt, p.rank, p.tag, p.mode)
	} else {
		op, err = r.comm.IrecvTyped(p.buf, p.count, p.dt, p.rank, p.tag)
	}
	if err != nil {
		return err
	}
	p.cur = op
	return nil
}

// Op returns the operation completion calls wait for: r itself for an
// ordinary request, the started operation of a persistent one, nil when a
// persistent request is inactive.
func (r *Request) Op() *Request {
	if r.pers == nil {
		return r
	}
	return r.pers.cur
}

// Active reports whether a persistent request has been started and not
// yet completed by a completion call (always true for other requests).
func (r *Request) Active() bool { return r.Op() != nil }

// Deactivate marks a persistent request inactive after its operation
// completed; it is a no-op for other requests.
func (r *Request) Deactivate() {
	if r.pers != nil {
		r.pers.cur = nil
	}
}

// WaitAny blocks until one of the non-nil requests of rs completes and
// returns its index; -1 when every entry is nil.
func (w *World) WaitAny(rs []*Request) int {
	idx := -1
	for i, r := range rs {
		if r != nil {
			idx = i
			break
		}
	}
	if idx < 0 {
		return -1
	}
	blockAnyGeneralized(rs)
	w.waitUntil(func() bool {
		for i, r := range rs {
			if r != nil && r.Done() {
				idx = i
				return true
			}
		}
		return false
	})
	return idx
}

// WaitSome blocks until at least one non-nil request of rs completes and
// returns the indices of all completed ones; nil when every entry is nil.
func (w *World) WaitSome(rs []*Request) []int {
	if w.WaitAny(rs) < 0 {
		return nil
	}
	return DoneIndices(rs)
}

// TestSome makes progress once and returns the indices of the completed
// non-nil requests of rs.
func (w *World) TestSome(rs []*Request) []int {
	w.progress()
	return DoneIndices(rs)
}

// DoneIndices lists the indices of the completed non-nil requests of rs.
func DoneIndices(rs []*Request) []int {
	var out []int
	for i, r := range rs {
		if r != nil && r.Done() {
			out = append(out, i)
		}
	}
	return out
}

// MaxMessageBytes is the largest point-to-point message, in bytes. Go
// slices over user memory and staging buffers are limited to 2^48 bytes on
// amd64; the runtime stays well below that.
const MaxMessageBytes = 1 << 46

// Buffered sends. MPI_Buffer_attach hands the library a buffer; every
// buffered send charges its packed size plus BsendOverhead against it
// until the message has left. The data itself is copied into Go memory
// (the attached memory is only accounted, never written), and the send
// proceeds as a standard send from that copy.

// BsendOverhead is MPI_BSEND_OVERHEAD in the MPICH ABI.
const BsendOverhead = 96

type bsendPool struct {
	mu       sync.Mutex
	attached bool
	buf      unsafe.Pointer
	size     int
	used     int
	pending  []bsendMsg
}

type bsendMsg struct {
	r    *Request
	cost int
}

// p2pExtra is the per-World state of the point-to-point features off the
// hot path: the buffered-send pool, the table of matched-probe messages
// (mprobe.go) and the send cancellations waiting for an answer
// (cancel.go).
type p2pExtra struct {
	bsend    bsendPool
	messages messageTable
	cancels  cancelTable
	failures peerFailures // lost peers (devext.go)
}

func (w *World) bsend() *bsendPool { return &w.p2px.bsend }

// reapLocked releases the space of buffered sends that have left.
func (p *bsendPool) reapLocked() {
	k := 0
	for _, m := range p.pending {
		if m.r.Done() {
			p.used -= m.cost
			continue
		}
		p.pending[k] = m
		k++
	}
	clear(p.pending[k:])
	p.pending = p.pending[:k]
}

// BufferAttach attaches the buffered-send buffer buf of size bytes.
func (w *World) BufferAttach(buf unsafe.Pointer, size int) error {
	p := w.bsend()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.attached {
		return Errorf(ErrBuffer, "", "invalid buffer: a buffer is already attached")
	}
	p.attached, p.buf, p.size = true, buf, size
	return nil
}

// BufferDetach waits until every buffered send has left, detaches the
// buffer and returns it (nil, 0 when none is attached).
func (w *World) BufferDetach() (unsafe.Pointer, int) {
	p := w.bsend()
	w.waitUntil(func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.reapLocked()
		return len(p.pending) == 0
	})
	p.mu.Lock()
	defer p.mu.Unlock()
	buf, size := p.buf, p.size
	if !p.attached {
		buf, size = nil, 0
	}
	p.attached, p.buf, p.size = false, nil, 0
	return buf, size
}

// BufferSize returns the size of the attached buffered-send buffer (0 when
// none is attached).
func (w *World) BufferSize() int {
	p := w.bsend()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.size
}

// IbsendTyped starts a buffered send: the data is copied out of buf at
// once and the returned request is already complete.
func (c *Comm) IbsendTyped(buf unsafe.Pointer, count int, dt *Datatype, dest, tag int) (*Request, error) {
	w := c.w
	if dest == ProcNull {
		return w.completedRequest(c, ReqSend, ProcNull, AnyTag), nil
	}
	n := count * dt.Size()
	cost := n + BsendOverhead
	p := w.bsend()
	p.mu.Lock()
	p.reapLocked()
	if !p.attached || p.size-p.used < cost {
		free := 0
		if p.attached {
			free = p.size - p.used
		}
		p.mu.Unlock()
		return nil, Errorf(ErrBuffer, "", "invalid buffer: buffered send of %d bytes needs %d bytes of attached buffer, %d free", n, cost, free)
	}
	p.used += cost
	p.mu.Unlock()
	data := make([]byte, n)
	if n > 0 {
		dt.Pack(data, buf, count)
	}
	var m SendMode
	if w.reps != nil && isPackedType(dt) {
		data, m = w.packedPayload(data)
	}
	r, err := w.Isend(c, c.ctx, data, dest, tag, ModeStandard|m)
	p.mu.Lock()
	if err != nil {
		p.used -= cost
	} else {
		p.pending = append(p.pending, bsendMsg{r, cost})
	}
	p.mu.Unlock()
	if err != nil {
		return nil, err
	}
	// The user's request is complete (the data is buffered); it carries
	// the envelope of the send so that MPI_Cancel can withdraw it.
	u := w.completedRequest(c, ReqSend, AnySource, AnyTag)
	u.peer, u.hdr = r.peer, r.hdr
	return u, nil
}

// bsendCancelled releases the buffer space of the buffered send whose
// message sendID was withdrawn at its receiver.
func (w *World) bsendCancelled(sendID uint64) {
	p := w.bsend()
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, m := range p.pending {
		if m.r.hdr.SendID == sendID {
			p.used -= m.cost
			p.pending = append(p.pending[:i], p.pending[i+1:]...)
			return
		}
	}
}

// FinalizeBuffers is MPI_Finalize's part for buffered sends: like
// MPI_Buffer_detach it waits until every buffered message has left, then
// detaches the buffer.
func (w *World) FinalizeBuffers() {
	w.BufferDetach()
}
