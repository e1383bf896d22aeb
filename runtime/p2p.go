package mpirt

import (
	"errors"
	"unsafe"
)

// sendFrame hands one frame to the device that reaches peer; frames to
// this process go straight to the handler.
func (w *World) sendFrame(peer int, h *Header, payload []byte) error {
	if peer == w.cfg.Rank {
		w.handle(peer, h, payload)
		return nil
	}
	return w.routes[peer].Send(peer, *h, payload)
}

// maxPayload is the largest frame payload towards peer.
func (w *World) maxPayload(peer int) int {
	if peer == w.cfg.Rank {
		return int(^uint(0) >> 1)
	}
	return w.routes[peer].MaxPayload()
}

// Send is the blocking send of buf (contiguous bytes) to rank dest of c
// on context ctx. A standard or ready send that fits one eager frame
// towards another process is the fast path: the frame goes straight to
// the device, with no request, no lock and no allocation; the send is
// complete when the device took the bytes. Its frame has SendID 0: there
// is no request to cancel (capi's C express lane sends the same frames).
func (w *World) Send(c *Comm, ctx uint32, buf []byte, dest, tag int, mode SendMode) error {
	if dest != ProcNull && (mode == ModeStandard || mode == ModeReady) {
		if peer := c.peerOf(dest); peer != w.cfg.Rank && len(buf) <= w.eagerTo[peer] {
			return w.routes[peer].Send(peer, Header{Kind: FrameEager, Context: ctx, Source: int32(c.rank),
				Tag: int32(tag), Len: uint64(len(buf))}, buf)
		}
	}
	r, err := w.Isend(c, ctx, buf, dest, tag, mode)
	if err != nil {
		return err
	}
	return w.Wait(r)
}

// Recv is the blocking receive into buf; it allocates nothing on the
// eager path (its request is pooled).
func (w *World) Recv(c *Comm, ctx uint32, buf []byte, src, tag int, onDone func(*Request)) (Status, error) {
	return w.recv(c, ctx, buf, src, tag, onDone, recvTarget{})
}

// recv is Recv of typed data: buf holds rt packed (hetero.go).
func (w *World) recv(c *Comm, ctx uint32, buf []byte, src, tag int, onDone func(*Request), rt recvTarget) (Status, error) {
	if src == ProcNull {
		return Status{Source: ProcNull, Tag: AnyTag}, nil
	}
	r := w.pooledRequest()
	r.rt = rt
	w.postRecv(r, c, ctx, buf, src, tag, onDone)
	w.waitFor(r)
	st, err := r.Status, r.Err
	w.recycle(r)
	return st, err
}

// Isend starts sending buf (contiguous bytes) to rank dest of c on context
// ctx. The caller keeps buf unchanged until the request is done.
func (w *World) Isend(c *Comm, ctx uint32, buf []byte, dest, tag int, mode SendMode) (*Request, error) {
	return w.isend(c, ctx, buf, dest, tag, mode, nil)
}

// isend is Isend with a completion hook (compound requests, compound.go).
func (w *World) isend(c *Comm, ctx uint32, buf []byte, dest, tag int, mode SendMode, onDone func(*Request)) (*Request, error) {
	if dest == ProcNull {
		return w.completedRequest(c, ReqSend, ProcNull, AnyTag), nil
	}
	var flags uint8
	if mode&modePacked != 0 { // a packed buffer with its representation header (hpack.go)
		flags, mode = FlagPacked, mode&^modePacked
	}
	peer := c.peerOf(dest)
	r := w.newRequest()
	r.w, r.Kind, r.comm, r.ctx, r.buf, r.peer, r.onDone = w, ReqSend, c, ctx, buf, peer, onDone
	r.hdr = Header{Flags: flags, Context: ctx, Source: int32(c.rank), Tag: int32(tag), Len: uint64(len(buf))}
	h := &r.hdr
	if peer == w.cfg.Rank || len(buf) <= w.eagerTo[peer] {
		h.Kind = FrameEager
		if mode == ModeSync {
			h.Flags |= FlagSync
			h.SendID = w.register(r)
		} else {
			h.SendID = w.nextID.Add(1) // names the message (cancel)
		}
		// Nobody can wait on r before we return it, so a plain eager send
		// is marked done before its frame goes out: the atomic store then
		// does not wait behind the frame's store into the peer's ring (a
		// cache line still on its way). With a completion hook, the hook
		// must not run before the data is copied, so the order stays.
		early := mode != ModeSync && onDone == nil
		if early {
			r.done.Store(true)
		}
		if err := w.sendFrame(peer, h, buf); err != nil {
			if mode == ModeSync {
				w.lookup(h.SendID, true)
			}
			return nil, err
		}
		if mode != ModeSync && !early {
			w.complete(r)
		}
		return r, nil
	}
	h.Kind = FrameRTS
	h.SendID = w.register(r)
	// Every rendezvous message to a peer that can read our memory offers
	// its address: the receiver picks single copy or streaming (deliver),
	// knowing what we cannot, whether it is busy with sends of its own.
	if w.remote[peer] != nil {
		h.Flags |= FlagRMA
		h.Offset = uint64(uintptr(unsafe.Pointer(&buf[0])))
		r.rmaOut = true
		w.rmaOut[peer].Add(1)
	}
	if err := w.sendFrame(peer, h, nil); err != nil {
		w.lookup(h.SendID, true)
		if r.rmaOut {
			r.rmaOut = false
			w.rmaOut[peer].Add(-1)
		}
		return nil, err
	}
	return r, nil
}

// Irecv posts a receive into buf on context ctx of c. src is a rank of c
// or AnySource, tag a tag or AnyTag.
func (w *World) Irecv(c *Comm, ctx uint32, buf []byte, src, tag int) *Request {
	return w.irecv(c, ctx, buf, src, tag, nil)
}

func (w *World) irecv(c *Comm, ctx uint32, buf []byte, src, tag int, onDone func(*Request)) *Request {
	return w.irecvT(c, ctx, buf, src, tag, onDone, recvTarget{})
}

// irecvT is irecv of typed data: buf holds rt packed, so that a message
// from a peer of another data representation is converted (hetero.go).
func (w *World) irecvT(c *Comm, ctx uint32, buf []byte, src, tag int, onDone func(*Request), rt recvTarget) *Request {
	if src == ProcNull {
		return w.completedRequest(c, ReqRecv, ProcNull, AnyTag)
	}
	r := w.newRequest()
	r.rt = rt
	w.postRecv(r, c, ctx, buf, src, tag, onDone)
	return r
}

// postRecv fills in receive r and matches it against the unexpected
// messages, or posts it.
func (w *World) postRecv(r *Request, c *Comm, ctx uint32, buf []byte, src, tag int, onDone func(*Request)) {
	r.w, r.Kind, r.comm, r.ctx, r.buf, r.src, r.tag, r.onDone = w, ReqRecv, c, ctx, buf, src, tag, onDone
	if w.p2px.failures.any.Load() && src != AnySource {
		if err := w.peerError(c.peerOf(src)); err != nil {
			r.Err, r.Status.Error = err, ErrOther
			w.complete(r)
			return
		}
	}
	m := &w.match
	m.lock()
	q := m.queuesLocked(ctx)
	u := q.findUnexpectedLocked(src, tag, true)
	if u == nil {
		if src == AnySource && w.p2px.failures.any.Load() {
			// No sender left on an intercommunicator to a job that
			// died: fail rather than wait forever (under m.mu, so a
			// loss recorded now finds the receive posted instead).
			if err := w.remoteLostError(c); err != nil {
				m.unlock()
				r.Err, r.Status.Error = err, ErrOther
				w.complete(r)
				return
			}
		}
		q.appendPostedLocked(r)
		m.unlock()
		return
	}
	m.unlock()
	deferred := w.deliverPosted(r, u.peer, &u.hdr, u.data)
	u.release()
	if !deferred && w.outboxLen.Load() != 0 {
		w.flush()
	}
}

// Probe looks for a matching message without receiving it.
func (w *World) Iprobe(c *Comm, ctx uint32, src, tag int) (Status, bool) {
	if src == ProcNull {
		return Status{Source: ProcNull, Tag: AnyTag}, true
	}
	w.progress()
	m := &w.match
	m.lock()
	u := m.queuesLocked(ctx).findUnexpectedLocked(src, tag, false)
	var st Status
	if u != nil {
		st = Status{Source: int(u.hdr.Source), Tag: int(u.hdr.Tag), Count: int64(u.hdr.Len), SenderSizes: w.senderSizes(u.peer, u.hdr.Flags)}
	}
	m.unlock()
	return st, u != nil
}

// Probe blocks until a matching message is available, or until no
// sender is left (ProbeLost): then the status is empty and a receive
// with the same pattern fails.
func (w *World) Probe(c *Comm, ctx uint32, src, tag int) Status {
	st, _ := w.ProbeErr(c, ctx, src, tag)
	return st
}

// ProbeErr is Probe that returns ProbeLost's error when no sender is
// left.
func (w *World) ProbeErr(c *Comm, ctx uint32, src, tag int) (Status, error) {
	var st Status
	var err error
	w.waitUntil(func() bool {
		var ok bool
		st, ok = w.Iprobe(c, ctx, src, tag)
		if !ok {
			err = w.ProbeLost(c, src)
		}
		return ok || err != nil
	})
	return st, err
}

// ProbeLost is the error of a probe of c for src that found nothing and
// never will: src is a lost process, or MPI_ANY_SOURCE on an
// intercommunicator whose remote group is lost; nil otherwise.
func (w *World) ProbeLost(c *Comm, src int) error {
	if !w.p2px.failures.any.Load() || src == ProcNull {
		return nil
	}
	if src == AnySource {
		return w.remoteLostError(c)
	}
	return w.peerError(c.peerOf(src))
}

// handle is the Handler every device calls for an incoming frame.
func (w *World) handle(peer int, h *Header, payload []byte) {
	switch h.Kind {
	case FrameEager, FrameRTS:
		m := &w.match
		m.lock()
		q := m.queuesLocked(h.Context)
		r := q.takePostedLocked(h)
		if r == nil {
			if h.Kind != FrameEager {
				payload = nil
			}
			q.appendUnexpectedLocked(newUnexpected(peer, h, payload))
			m.unlock()
			w.waker.Ring()
			return
		}
		m.unlock()
		w.deliver(r, peer, h, payload)
	case FrameCTS:
		r := w.lookup(h.SendID, true)
		if r == nil {
			w.logf("gmpi: CTS for unknown request %d from %d", h.SendID, peer)
			return
		}
		w.queueData(r, h.RecvID)
	case FrameData:
		r := w.lookup(h.RecvID, false)
		if r == nil {
			w.logf("gmpi: data for unknown request %d from %d", h.RecvID, peer)
			return
		}
		if off := h.Offset; off < uint64(len(r.buf)) && !inPlace(r.buf[off:], payload) {
			copy(r.buf[off:], payload)
		}
		r.remaining -= uint64(len(payload))
		if r.remaining == 0 {
			w.lookup(h.RecvID, true)
			w.complete(r)
		}
	case FrameSyncAck, FrameRMADone:
		if r := w.lookup(h.SendID, true); r != nil {
			w.complete(r)
		} else {
			w.logf("gmpi: ack for unknown request %d from %d", h.SendID, peer)
		}
	case FrameRMAPush:
		w.handlePush(peer, h)
	case FramePushDone:
		r := w.lookup(h.RecvID, false)
		if r == nil {
			w.logf("gmpi: push answer for unknown request %d from %d", h.RecvID, peer)
			return
		}
		if h.Len != 0 {
			r.Err = Errorf(ErrOther, "", "rank %d could not write its part of a %d-byte message", peer, r.Status.Count)
			r.Status.Error = ErrOther
		}
		w.partDone(r)
	case FrameCancelReq:
		w.handleCancelReq(peer, h)
	case FrameCancelAck:
		w.handleCancelAck(peer, h)
	case FrameRMA:
		w.rmaFrame(peer, h, payload)
	default:
		w.logf("gmpi: dropping frame of unknown kind %d from %d", h.Kind, peer)
	}
}

// deliverPosted is deliver for a receive that matched a message already
// there, as it is posted (MPI_Irecv, MPI_Imrecv): the rendezvous choice of
// a message this process may copy single-copy is queued (outbox) rather
// than made now, so it is made at the next progress, when the sends the
// application posts right after its receives (a window of MPI_Irecv, then
// MPI_Isend) count as sends of ours to that peer. deferred reports that
// it was queued: the caller must then not flush, or the choice would be
// made at once.
func (w *World) deliverPosted(r *Request, peer int, h *Header, payload []byte) (deferred bool) {
	if h.Kind == FrameRTS && h.Flags&(FlagRMA|FlagForeign|FlagPacked) == FlagRMA && h.Len > 0 && w.remote[peer] != nil {
		hc := *h // h is a recycled unexpected entry's
		// Sends of ours outstanding now count too: by the next progress
		// the peer may have read them.
		busy := w.rmaOut[peer].Load() > 0
		w.queue(outFrame{peer: peer, choose: func() { w.deliverBusy(r, peer, &hc, nil, busy) }})
		return true
	}
	w.deliver(r, peer, h, payload)
	return false
}

// deliver completes (or starts the rendezvous of) receive r with the
// message whose envelope is h. It runs without locks.
func (w *World) deliver(r *Request, peer int, h *Header, payload []byte) {
	w.deliverBusy(r, peer, h, payload, false)
}

// deliverBusy is deliver; busy says that this process had single-copy
// sends to peer outstanding when the receive matched (deliverPosted).
func (w *World) deliverBusy(r *Request, peer int, h *Header, payload []byte, busy bool) {
	if checkRequests {
		checkDeliver(r)
	}
	r.Status.Source = int(h.Source)
	r.Status.Tag = int(h.Tag)
	n := h.Len
	if n > uint64(len(r.buf)) {
		n = uint64(len(r.buf))
		r.Status.Error = ErrTruncate
		r.Err = Errorf(ErrTruncate, "", "message of %d bytes from rank %d (tag %d) truncated to the %d-byte receive buffer",
			h.Len, h.Source, h.Tag, len(r.buf))
	}
	r.Status.Count = int64(n)
	if h.Kind == FrameEager {
		if h.Flags&(FlagSync|FlagForeign|FlagPacked) == 0 {
			copy(r.buf[:n], payload)
			w.complete(r)
			return
		}
		if h.Flags&(FlagForeign|FlagPacked) == 0 || !w.convertEager(r, peer, h, payload) {
			copy(r.buf[:n], payload)
		}
		if h.Flags&FlagSync != 0 {
			w.queue(outFrame{peer: peer, hdr: Header{Kind: FrameSyncAck, Context: h.Context, SendID: h.SendID}})
		}
		w.complete(r)
		return
	}
	// Rendezvous.
	r.peer = peer // a lost peer fails the receive (PeerFailed)
	if h.Flags&(FlagRMA|FlagForeign|FlagPacked) != 0 {
		if h.Flags&(FlagForeign|FlagPacked) != 0 {
			w.stageForeign(r, peer, h)
		} else if rr := w.remote[peer]; rr != nil && h.Len > 0 {
			// Both directions at once (we have single-copy sends to peer
			// that are not done): both cores are busy, so the copies of
			// streaming no longer overlap with idle time and sharing the
			// copy only moves work between them; one copy each, by its
			// receiver, is the least work (bench/README.md, "Both
			// directions"). One direction: single copy from rmaMin,
			// shared from pushMin, else stream. A receive posted after
			// the RTS came chooses at the next progress, not in the
			// receive call (deliverPosted), so that the sends posted
			// right after it count.
			if busy := busy || w.rmaOut[peer].Load() > 0; busy || h.Len >= uint64(w.rmaMin) {
				w.deliverRMA(rr, r, peer, h, n, !busy)
				return
			}
		}
	}
	r.remaining = h.Len
	id := w.register(r)
	w.queue(outFrame{peer: peer, hdr: Header{Kind: FrameCTS, Context: h.Context, SendID: h.SendID, RecvID: id, Len: h.Len}})
}

// deliverRMA copies the n bytes of single-copy rendezvous message h from
// the sender's memory into receive r. With share, a large message is
// copied by both processes at once: the receiver asks the sender to write the second
// half (FrameRMAPush, sent first) and reads the first half itself once
// that request is on its way; r completes when both halves are in. The
// sender's request completes at FrameRMADone, after the receiver's read.
func (w *World) deliverRMA(rr RemoteReader, r *Request, peer int, h *Header, n uint64, share bool) {
	// h is the device's or a recycled unexpected entry's: copy what the
	// deferred read needs.
	addr := uintptr(h.Offset)
	read := func(m uint64) {
		if m == 0 {
			return
		}
		if err := rr.ReadRemote(peer, r.buf[:m], addr); err != nil {
			r.Err = Errorf(ErrOther, "", "reading %d bytes from rank %d: %v", m, peer, err)
			r.Status.Error = ErrOther
		}
	}
	done := Header{Kind: FrameRMADone, Context: h.Context, SendID: h.SendID}
	if _, ok := rr.(RemoteWriter); !ok || !share || n < w.pushMin || n != h.Len {
		read(n)
		w.queue(outFrame{peer: peer, hdr: done})
		w.complete(r)
		return
	}
	half := n / 2 &^ 4095
	r.parts.Store(2) // our read and the sender's write
	id := w.register(r)
	push := Header{Kind: FrameRMAPush, Context: h.Context, SendID: h.SendID, RecvID: id,
		Len: n - half, Offset: uint64(uintptr(unsafe.Pointer(&r.buf[half])))}
	// Handlers may not send, so the read runs from the flush, right
	// after the push request went out.
	w.queue(outFrame{peer: peer, hdr: push, after: func(error) {
		read(half)
		w.queue(outFrame{peer: peer, hdr: done})
		w.partDone(r)
	}})
}

// partDone counts one finished part of a shared single copy (deliverRMA)
// and completes r after the last. The two parts end on different threads
// under MPI_THREAD_MULTIPLE (the flush that ran our read, the poller that
// handled the sender's FramePushDone), so the count is atomic: with a
// plain decrement both could store 1 and the receive would never complete.
func (w *World) partDone(r *Request) {
	if r.parts.Add(-1) == 0 {
		w.lookup(r.id, true)
		w.complete(r)
	}
}

// handlePush is the sender's side of a shared single copy: it writes the
// last h.Len bytes of send request h.SendID to h.Offset in the receiver.
func (w *World) handlePush(peer int, h *Header) {
	r := w.lookup(h.SendID, false)
	pushed := Header{Kind: FramePushDone, Context: h.Context, RecvID: h.RecvID}
	rw, _ := w.remote[peer].(RemoteWriter)
	if r == nil || rw == nil || h.Len > uint64(len(r.buf)) {
		w.logf("gmpi: cannot serve push request for request %d from %d", h.SendID, peer)
		pushed.Len = 1
		w.queue(outFrame{peer: peer, hdr: pushed})
		return
	}
	src := r.buf[uint64(len(r.buf))-h.Len:]
	if err := rw.WriteRemote(peer, src, uintptr(h.Offset)); err != nil {
		// The receiver learns of it: its part stays unwritten.
		pushed.Len = 1
		w.logf("gmpi: writing %d bytes to rank %d: %v", len(src), peer, err)
	}
	w.queue(outFrame{peer: peer, hdr: pushed})
}

// queueData queues the data frames of rendezvous send r after its CTS.
func (w *World) queueData(r *Request, recvID uint64) {
	max := w.maxPayload(r.peer)
	buf := r.buf
	for off := 0; off < len(buf); off += max {
		end := min(off+max, len(buf))
		f := outFrame{peer: r.peer, hdr: Header{Kind: FrameData, Context: r.ctx, RecvID: recvID, Offset: uint64(off)}, payload: buf[off:end]}
		last := end == len(buf)
		f.after = func(err error) {
			if err != nil && r.Err == nil {
				w.sendFailed(r, err)
			}
			if last {
				w.complete(r)
			}
		}
		w.queue(f)
	}
}

// sendFailed records that a data frame of rendezvous send r could not be
// sent (its peer was lost mid-message): the send fails with MPI_ERR_OTHER
// naming the peer, not success.
func (w *World) sendFailed(r *Request, err error) {
	if pe := w.peerError(r.peer); pe != nil {
		err = pe
	}
	var me *Error
	if !errors.As(err, &me) || me.Class != ErrOther {
		host := "?"
		if hosts := w.knownHosts(); r.peer < len(hosts) {
			host = hosts[r.peer]
		}
		err = Errorf(ErrOther, "", "sending to rank %d on host %q: %v", r.peer, host, err)
	}
	r.Err = err
	r.Status.Error = ErrOther
}

func (w *World) queue(f outFrame) {
	w.outboxMu.Lock()
	w.outbox = append(w.outbox, f)
	w.outboxLen.Store(int32(len(w.outbox)))
	w.outboxMu.Unlock()
}

// flush sends the queued control and data frames. Only one goroutine
// flushes at a time; a flush that finds another one running returns (the
// running one picks up what was queued).
func (w *World) flush() int {
	n := 0
	for {
		w.outboxMu.Lock()
		if len(w.outbox) == 0 || !w.flushing.CompareAndSwap(false, true) {
			w.outboxMu.Unlock()
			return n
		}
		batch := w.outbox
		w.outbox = nil
		w.outboxLen.Store(0)
		w.outboxMu.Unlock()
		for i := range batch {
			f := &batch[i]
			if f.choose != nil {
				f.choose()
				n++
				continue
			}
			err := w.sendFrame(f.peer, &f.hdr, f.payload)
			if err != nil {
				w.logf("gmpi: sending protocol frame to %d: %v", f.peer, err)
			}
			if f.after != nil {
				f.after(err)
			}
			n++
		}
		w.flushing.Store(false)
	}
}

// RemoteReadable reports whether this process can copy straight out of
// world rank peer's memory (cross-memory attach through its device).
func (w *World) RemoteReadable(peer int) bool {
	return peer >= 0 && peer < len(w.remote) && w.remote[peer] != nil
}

// RemoteWritable reports whether this process can copy straight into
// world rank peer's memory (RemoteReadable, and its device writes too).
func (w *World) RemoteWritable(peer int) bool {
	if !w.RemoteReadable(peer) {
		return false
	}
	_, ok := w.remote[peer].(RemoteWriter)
	return ok
}

// WriteRemote copies src to address addr of world rank peer's memory
// (RemoteWritable must be true for peer).
func (w *World) WriteRemote(peer int, src []byte, addr uintptr) error {
	if len(src) == 0 {
		return nil
	}
	return w.remote[peer].(RemoteWriter).WriteRemote(peer, src, addr)
}

// ReadRemote copies len(dst) bytes at address addr of world rank peer's
// memory into dst (RemoteReadable must be true for peer).
func (w *World) ReadRemote(peer int, dst []byte, addr uintptr) error {
	if len(dst) == 0 {
		return nil
	}
	return w.remote[peer].ReadRemote(peer, dst, addr)
}
