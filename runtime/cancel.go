package mpirt

import "sync"

// MPI_Cancel.
//
// A receive still waiting in the posted queue is withdrawn locally and
// completes at once with Status.Cancelled set.
//
// A send can be withdrawn only while its message is unmatched at the
// receiver, which only the receiver knows. The sender asks with a
// FrameCancelReq naming the message (context, source, tag, SendID); under
// the matching lock the receiver looks for that message among the
// unexpected ones (eager data or an RTS), removes it when it is there and
// answers with a FrameCancelAck (Len 1: withdrawn, 0: already matched).
// Frames between a pair are ordered, so the request cannot overtake the
// message it names: when the receiver does not find the message, the
// message was received, is being received, or was bound by a matched
// probe, and the send completes normally (MPI lets a cancel fail).
//
// The answer is delivered by the progress engine like any frame, so a
// waiter on the cancelled request makes progress until it arrives:
//   - a send still in flight (rendezvous or synchronous, waiting for its
//     CTS or ack) completes with Cancelled set when the message was
//     withdrawn, or normally otherwise;
//   - a send that already completed locally (an eager standard send, a
//     buffered send whose data was copied) is replaced, under the user's
//     handle, by a proxy request that completes when the answer arrives.
//
// Withdrawing a buffered send releases its space in the attached buffer.

// cancelTable holds the send cancellations waiting for their answer,
// keyed by SendID.
type cancelTable struct {
	mu    sync.Mutex
	waits map[uint64]*cancelWait
}

type cancelWait struct {
	orig  *Request // the send being cancelled
	proxy *Request // stands in for orig when orig had completed; else nil
}

// Cancel marks the operation of the user's request r for cancellation
// (MPI_Cancel). It does not wait; the completion call on r does.
func (w *World) Cancel(r *Request) {
	op := r.Op()
	if op == nil || op.comm == nil {
		return
	}
	if op.Kind == ReqRecv {
		w.cancelRecv(op)
		return
	}
	w.cancelSend(r, op)
}

func (w *World) cancelRecv(r *Request) {
	if r.Done() {
		return
	}
	m := &w.match
	m.mu.Lock()
	ok := m.queuesLocked(r.ctx).removePostedLocked(r)
	m.mu.Unlock()
	if !ok {
		return
	}
	r.Status = Status{Source: AnySource, Tag: AnyTag, Cancelled: true}
	r.onDone = nil // nothing arrived to unpack
	w.complete(r)
}

// sendKey returns the envelope that identifies send op at its receiver
// and the receiver's world rank; ok is false for sends that cannot be
// named (MPI_PROC_NULL, proxies of cancelled sends).
func sendKey(op *Request) (peer int, h Header, ok bool) {
	if op.Kind != ReqSend || op.hdr.SendID == 0 {
		return 0, Header{}, false
	}
	return op.peer, op.hdr, true
}

func (w *World) cancelSend(r, op *Request) {
	peer, h, ok := sendKey(op)
	if !ok {
		return
	}
	ct := &w.p2px.cancels
	ct.mu.Lock()
	if _, dup := ct.waits[h.SendID]; dup {
		ct.mu.Unlock()
		return
	}
	cw := &cancelWait{orig: op}
	if op.Done() {
		// Completed locally: the user's handle now names a proxy that
		// completes with the answer.
		proxy := &Request{w: w, Kind: ReqSend, comm: op.comm}
		if !w.replaceOp(r, proxy) {
			ct.mu.Unlock()
			return
		}
		cw.proxy = proxy
	}
	if ct.waits == nil {
		ct.waits = make(map[uint64]*cancelWait)
	}
	ct.waits[h.SendID] = cw
	ct.mu.Unlock()
	req := Header{Kind: FrameCancelReq, Context: h.Context, Source: h.Source, Tag: h.Tag, SendID: h.SendID}
	if err := w.sendFrame(peer, &req, nil); err != nil {
		w.logf("gmpi: sending cancel request to %d: %v", peer, err)
		w.cancelAnswered(h.SendID, false)
	}
	w.flush()
}

// replaceOp makes proxy the operation the user's request r stands for:
// the current operation of a persistent request, or the request the
// user's handle names.
func (w *World) replaceOp(r, proxy *Request) bool {
	if r.pers != nil {
		r.pers.cur = proxy
		return true
	}
	if r.Handle == 0 {
		return false
	}
	if !w.requests.replace(r.Handle, proxy) &&
		(w.ReplaceForeign == nil || !w.ReplaceForeign(r.Handle, proxy)) {
		return false
	}
	proxy.Handle, r.Handle = r.Handle, 0
	return true
}

// handleCancelReq runs at the receiver of a cancelled send (Handler
// context: the answer is queued, not sent).
func (w *World) handleCancelReq(peer int, h *Header) {
	m := &w.match
	m.mu.Lock()
	q := m.queuesLocked(h.Context)
	u := q.takeUnexpectedLocked(int(h.Source), int(h.Tag), func(u *unexpected) bool {
		return u.peer == peer && u.hdr.SendID == h.SendID
	})
	m.mu.Unlock()
	found := u != nil
	if found {
		u.release()
	}
	ack := Header{Kind: FrameCancelAck, Context: h.Context, SendID: h.SendID}
	if found {
		ack.Len = 1
	}
	w.queue(outFrame{peer: peer, hdr: ack})
}

// handleCancelAck runs at the sender when the receiver answered.
func (w *World) handleCancelAck(peer int, h *Header) {
	if !w.cancelAnswered(h.SendID, h.Len == 1) {
		w.logf("gmpi: cancel answer for unknown send %d from %d", h.SendID, peer)
	}
}

// cancelAnswered finishes the cancellation of send id; it reports whether
// one was waiting.
func (w *World) cancelAnswered(id uint64, cancelled bool) bool {
	ct := &w.p2px.cancels
	ct.mu.Lock()
	cw := ct.waits[id]
	delete(ct.waits, id)
	ct.mu.Unlock()
	if cw == nil {
		return false
	}
	var waiting *Request
	if cancelled {
		// A rendezvous or synchronous send waits for no reply any more;
		// a buffered one gives its space back.
		waiting = w.lookup(id, true)
		w.bsendCancelled(id)
	}
	if cw.proxy != nil {
		cw.proxy.Status.Cancelled = cancelled
		w.complete(cw.proxy)
		return true
	}
	if waiting != nil {
		waiting.Status.Cancelled = true
		w.complete(waiting)
	}
	return true
}

// replace makes h name the object p points to instead of its current
// one; false when h is not live.
func (t *HandleTable[T]) replace(h Handle, p *T) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.lookup(h)
	if s == nil || s.Load() == nil {
		return false
	}
	s.Store(p)
	return true
}
