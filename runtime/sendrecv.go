package mpirt

import (
	"sync/atomic"
	"unsafe"
)

// SendrecvTyped sends scount elements of sdt at sbuf to dest while it
// receives up to rcount elements of rdt into rbuf from src
// (MPI_Sendrecv). Both complete before it returns; a receive error is
// reported before a send error.
//
// It posts the receive, sends (blocking: a rendezvous send makes progress,
// so the peer's matching send can land in the posted receive), then waits
// for the receive; like MPI_Recv it allocates nothing on the eager path.
func (c *Comm) SendrecvTyped(sbuf unsafe.Pointer, scount int, sdt *Datatype, dest, stag int,
	rbuf unsafe.Pointer, rcount int, rdt *Datatype, src, rtag int) (Status, error) {
	w := c.w
	send := func() error {
		if dest == ProcNull {
			return nil
		}
		data, m := w.sendData(sbuf, scount, sdt)
		return w.Send(c, c.ctx, data, dest, stag, ModeStandard|m)
	}
	if src == ProcNull {
		return Status{Source: ProcNull, Tag: AnyTag}, send()
	}
	view, unpack := recvView(rbuf, rcount, rdt)
	r := w.pooledRequest()
	r.rt = recvTarget{rdt, rcount}
	w.postRecv(r, c, c.ctx, view, src, rtag, unpack)
	err := send()
	if err != nil {
		w.Cancel(r) // completes it unless a message matched it already
	}
	w.waitFor(r)
	st, rerr := r.Status, r.Err
	w.recycle(r)
	if rerr == nil && err != nil {
		return Status{}, err
	}
	return st, rerr
}

// SendrecvReplace sends count elements of dt at buf to dest and receives
// the reply into the same buffer (MPI_Sendrecv_replace).
func (c *Comm) SendrecvReplace(buf unsafe.Pointer, count int, dt *Datatype, dest, stag, src, rtag int) (Status, error) {
	return c.wait(c.IsendrecvReplace(buf, count, dt, dest, stag, src, rtag))
}

func (c *Comm) wait(r *Request, err error) (Status, error) {
	if err != nil {
		return Status{}, err
	}
	err = c.w.Wait(r)
	return r.Status, err
}

// IsendrecvTyped starts SendrecvTyped (MPI_Isendrecv): the request
// completes when both the send and the receive have, with the receive's
// status.
func (c *Comm) IsendrecvTyped(sbuf unsafe.Pointer, scount int, sdt *Datatype, dest, stag int,
	rbuf unsafe.Pointer, rcount int, rdt *Datatype, src, rtag int) (*Request, error) {
	data, m := c.w.sendData(sbuf, scount, sdt)
	return c.isendrecv(data, m, dest, stag, rbuf, rcount, rdt, src, rtag)
}

// IsendrecvReplace starts SendrecvReplace (MPI_Isendrecv_replace). The
// outgoing data is packed first, so the receive may land in buf at once.
func (c *Comm) IsendrecvReplace(buf unsafe.Pointer, count int, dt *Datatype, dest, stag, src, rtag int) (*Request, error) {
	packed := make([]byte, count*dt.Size())
	if len(packed) > 0 {
		dt.Pack(packed, buf, count)
	}
	var m SendMode
	if c.w.reps != nil && isPackedType(dt) {
		packed, m = c.w.packedPayload(packed)
	}
	return c.isendrecv(packed, m, dest, stag, buf, count, dt, src, rtag)
}

// isendrecv posts the receive, then starts the send. The returned request
// (a receive, to the completion calls) completes from the last child's
// completion hook; the builder holds one count until both children exist.
func (c *Comm) isendrecv(data []byte, mode SendMode, dest, stag int, rbuf unsafe.Pointer, rcount int, rdt *Datatype, src, rtag int) (*Request, error) {
	w := c.w
	p := &Request{w: w, Kind: ReqRecv, comm: c, ctx: c.ctx}
	p.Status = Status{Source: ProcNull, Tag: AnyTag}
	var pending atomic.Int32
	pending.Store(1)
	var rr, sr *Request
	release := func() {
		if pending.Add(-1) != 0 {
			return
		}
		if rr != nil {
			p.Status, p.Err = rr.Status, rr.Err
		}
		if p.Err == nil && sr != nil && sr.Err != nil {
			p.Err = sr.Err
			p.Status.Error = ErrorClassOf(sr.Err)
		}
		w.complete(p)
	}
	if src != ProcNull {
		view, unpack := recvView(rbuf, rcount, rdt)
		pending.Add(1)
		rr = w.irecvT(c, c.ctx, view, src, rtag, func(r *Request) {
			if unpack != nil {
				unpack(r)
			}
			release()
		}, recvTarget{rdt, rcount})
	}
	if dest != ProcNull {
		pending.Add(1)
		var err error
		if sr, err = w.isend(c, c.ctx, data, dest, stag, ModeStandard|mode, func(*Request) { release() }); err != nil {
			if rr != nil {
				w.Cancel(rr)
			}
			return nil, err
		}
	}
	release()
	return p, nil
}
