package mpirt

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// A compound request is one user-visible request made of several
// point-to-point operations on a communicator's collective context (the
// nonblocking neighborhood collectives). It completes, event-driven, from
// the completion hook of its last child: no thread polls it. To MPI_Wait,
// MPI_Test, MPI_Waitall, MPI_Request_free and MPI_Request_get_status it is
// an ordinary request (its Kind is ReqColl, so it reports an empty
// status, as every collective does).
//
// Lifecycle:
//
//	NewCompound ──Send/Recv (children start at once)──▶ Start ──last child done──▶ done
//
// The builder holds one count of its own until Start, so the request can
// not complete while children are still being added.

// ReqColl is the kind of a compound (collective) request.
const ReqColl ReqKind = ReqRecv + 1

// Compound builds a compound request.
type Compound struct {
	c       *Comm
	r       *Request
	pending atomic.Int64 // children not yet done, +1 for the builder until Start

	mu     sync.Mutex
	err    error    // first child error
	finish []func() // run once, after every child, before Done
}

// NewCompound starts building a compound request on c.
func (c *Comm) NewCompound() *Compound {
	b := &Compound{c: c, r: &Request{w: c.w, Kind: ReqColl, comm: c}}
	b.r.Status = Status{Source: AnySource, Tag: AnyTag}
	b.pending.Store(1)
	return b
}

// childDone is every child's completion hook.
func (b *Compound) childDone(r *Request) {
	if r.Err != nil {
		b.mu.Lock()
		if b.err == nil {
			b.err = r.Err
		}
		b.mu.Unlock()
	}
	b.release()
}

func (b *Compound) release() {
	if b.pending.Add(-1) != 0 {
		return
	}
	b.mu.Lock()
	fs, err := b.finish, b.err
	b.finish = nil
	b.mu.Unlock()
	for _, f := range fs {
		f()
	}
	if err != nil {
		b.r.Err = err
		b.r.Status.Error = ErrorClassOf(err)
	}
	b.c.w.complete(b.r)
}

// Send adds a send of count elements of dt at buf to rank dest of the
// communicator, on its collective context. MPI_PROC_NULL adds nothing.
func (b *Compound) Send(buf unsafe.Pointer, count int, dt *Datatype, dest, tag int) error {
	data, m := b.c.w.sendData(buf, count, dt)
	return b.sendBytes(data, m, dest, tag)
}

// SendBytes adds a send of contiguous bytes (which stay unchanged until
// the request completes).
func (b *Compound) SendBytes(data []byte, dest, tag int) error {
	return b.sendBytes(data, ModeStandard, dest, tag)
}

func (b *Compound) sendBytes(data []byte, mode SendMode, dest, tag int) error {
	if dest == ProcNull {
		return nil
	}
	b.pending.Add(1)
	if _, err := b.c.w.isend(b.c, b.c.CollContext(), data, dest, tag, mode, b.childDone); err != nil {
		b.pending.Add(-1)
		return err
	}
	return nil
}

// Recv adds a receive of up to count elements of dt into buf from rank
// src, on the collective context. MPI_PROC_NULL adds nothing.
func (b *Compound) Recv(buf unsafe.Pointer, count int, dt *Datatype, src, tag int) {
	if src == ProcNull {
		return
	}
	data, unpack := recvView(buf, count, dt)
	hook := b.childDone
	if unpack != nil {
		hook = func(r *Request) {
			unpack(r)
			b.childDone(r)
		}
	}
	b.pending.Add(1)
	b.c.w.irecvT(b.c, b.c.CollContext(), data, src, tag, hook, recvTarget{dt, count})
}

// OnFinish registers f to run once every child is done, before the
// request completes.
func (b *Compound) OnFinish(f func()) {
	b.mu.Lock()
	b.finish = append(b.finish, f)
	b.mu.Unlock()
}

// Start seals the request: no child can be added any more, and it
// completes as soon as every child has (at once when there are none).
func (b *Compound) Start() *Request {
	r := b.r
	b.release()
	return r
}

// CollInit creates an inactive persistent request whose every MPI_Start
// runs start, which launches one instance of the operation (the
// persistent collectives, MPI_Neighbor_*_init).
func (c *Comm) CollInit(start func() (*Request, error)) *Request {
	return &Request{w: c.w, Kind: ReqColl, comm: c, Persistent: true,
		pers: &persistent{start: start}}
}

// SendData returns count elements of dt at p as contiguous bytes for
// SendBytes: the user memory itself when dt is contiguous, a packed copy
// otherwise (so data sent to several processes is packed once).
func SendData(p unsafe.Pointer, count int, dt *Datatype) []byte { return sendView(p, count, dt) }
