package mpirt

import (
	"unsafe"
)

// This file connects user buffers (pointer, count, datatype) to the
// byte-oriented protocol: contiguous data is sent from and received into
// user memory directly; anything else goes through a packed staging buffer.

// Datatype resolves a datatype handle for communication: a predefined or
// a committed derived type; nil if the handle names no such datatype (an
// uncommitted type is MPI_ERR_TYPE wherever data moves).
func (w *World) Datatype(h Handle) *Datatype {
	if dt, ok := PredefinedDatatype(h); ok {
		return dt
	}
	if dt, ok := w.types.Get(h); ok && dt.Committed() {
		return dt
	}
	return nil
}

// AnyDatatype resolves a datatype handle whether or not it is committed
// (constructors and queries).
func (w *World) AnyDatatype(h Handle) *Datatype {
	if dt, ok := PredefinedDatatype(h); ok {
		return dt
	}
	if dt, ok := w.types.Get(h); ok {
		return dt
	}
	return nil
}

// AddRequest gives r a user-visible handle.
func (w *World) AddRequest(r *Request) Handle {
	r.Handle = w.requests.AddPtr(r)
	return r.Handle
}

// Request resolves a request handle, nil if it names no live request.
func (w *World) Request(h Handle) *Request {
	return w.requests.GetPtr(h)
}

// FreeRequest releases the handle of a completed request.
func (w *World) FreeRequest(r *Request) {
	if r.Handle != 0 {
		w.requests.Remove(r.Handle)
		r.Handle = 0
	}
	if st := r.partitioned(); st != nil {
		// Its matching queue is no longer needed once empty.
		w.match.mu.Lock()
		w.match.dropIfEmptyLocked(st.ctx)
		w.match.mu.Unlock()
	}
}

// sendView returns count elements of dt at p as bytes: the user memory
// itself when dt is contiguous, a packed copy otherwise.
func sendView(p unsafe.Pointer, count int, dt *Datatype) []byte {
	n := count * dt.Size()
	if n == 0 {
		return nil
	}
	if dt.IsContiguous() {
		return unsafe.Slice((*byte)(unsafe.Add(p, dt.TrueLB())), n)
	}
	out := make([]byte, n)
	dt.Pack(out, p, count)
	return out
}

// recvView returns where to receive count elements of dt at p, and the
// function that moves staged data into place when the receive completes
// (nil when the data lands in user memory directly).
func recvView(p unsafe.Pointer, count int, dt *Datatype) ([]byte, func(*Request)) {
	n := count * dt.Size()
	if n == 0 {
		return nil, nil
	}
	if dt.IsContiguous() {
		return unsafe.Slice((*byte)(unsafe.Add(p, dt.TrueLB())), n), nil
	}
	stage := make([]byte, n)
	return stage, func(r *Request) {
		// A short message may end inside an element: Unpack fills what
		// arrived (MPI_Get_elements counts it).
		dt.Unpack(p, stage[:min(int(r.Status.Count), n)], count)
	}
}

// IsendTyped starts a send of count elements of dt at buf.
func (c *Comm) IsendTyped(buf unsafe.Pointer, count int, dt *Datatype, dest, tag int, mode SendMode) (*Request, error) {
	data, m := c.w.sendData(buf, count, dt)
	return c.w.Isend(c, c.ctx, data, dest, tag, mode|m)
}

// SendTyped is the blocking form of IsendTyped.
func (c *Comm) SendTyped(buf unsafe.Pointer, count int, dt *Datatype, dest, tag int, mode SendMode) error {
	data, m := c.w.sendData(buf, count, dt)
	return c.w.Send(c, c.ctx, data, dest, tag, mode|m)
}

// IrecvTyped posts a receive of up to count elements of dt into buf.
func (c *Comm) IrecvTyped(buf unsafe.Pointer, count int, dt *Datatype, src, tag int) (*Request, error) {
	data, unpack := recvView(buf, count, dt)
	r := c.w.irecvT(c, c.ctx, data, src, tag, unpack, recvTarget{dt, count})
	return r, nil
}

// RecvTyped is the blocking form of IrecvTyped.
func (c *Comm) RecvTyped(buf unsafe.Pointer, count int, dt *Datatype, src, tag int) (Status, error) {
	data, unpack := recvView(buf, count, dt)
	return c.w.recv(c, c.ctx, data, src, tag, unpack, recvTarget{dt, count})
}
