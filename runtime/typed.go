package mpirt

import (
	"unsafe"
)

// This file connects user buffers (pointer, count, datatype) to the
// byte-oriented protocol: contiguous data is sent from and received into
// user memory directly; anything else goes through a packed staging buffer.

// Datatype resolves a datatype handle (predefined or created), nil if the
// handle names no datatype.
func (w *World) Datatype(h Handle) *Datatype {
	if dt, ok := PredefinedDatatype(h); ok {
		return dt
	}
	return nil
}

// AddRequest gives r a user-visible handle.
func (w *World) AddRequest(r *Request) Handle {
	r.Handle = w.requests.Add(r)
	return r.Handle
}

// Request resolves a request handle, nil if it names no live request.
func (w *World) Request(h Handle) *Request {
	r, ok := w.requests.Get(h)
	if !ok {
		return nil
	}
	return r
}

// FreeRequest releases the handle of a completed request.
func (w *World) FreeRequest(r *Request) {
	if r.Handle != 0 {
		w.requests.Remove(r.Handle)
		r.Handle = 0
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
		dt.Unpack(p, stage[:r.Status.Count], int(r.Status.Count)/max(dt.Size(), 1))
	}
}

// IsendTyped starts a send of count elements of dt at buf.
func (c *Comm) IsendTyped(buf unsafe.Pointer, count int, dt *Datatype, dest, tag int, mode SendMode) (*Request, error) {
	return c.w.Isend(c, c.ctx, sendView(buf, count, dt), dest, tag, mode)
}

// SendTyped is the blocking form of IsendTyped.
func (c *Comm) SendTyped(buf unsafe.Pointer, count int, dt *Datatype, dest, tag int, mode SendMode) error {
	r, err := c.IsendTyped(buf, count, dt, dest, tag, mode)
	if err != nil {
		return err
	}
	return c.w.Wait(r)
}

// IrecvTyped posts a receive of up to count elements of dt into buf.
func (c *Comm) IrecvTyped(buf unsafe.Pointer, count int, dt *Datatype, src, tag int) (*Request, error) {
	data, unpack := recvView(buf, count, dt)
	r := c.w.irecv(c, c.ctx, data, src, tag, unpack)
	return r, nil
}

// RecvTyped is the blocking form of IrecvTyped.
func (c *Comm) RecvTyped(buf unsafe.Pointer, count int, dt *Datatype, src, tag int) (Status, error) {
	r, err := c.IrecvTyped(buf, count, dt, src, tag)
	if err != nil {
		return Status{}, err
	}
	err = c.w.Wait(r)
	return r.Status, err
}

// CollView gives a collective algorithm count elements of dt at p as a
// byte slice in memory layout (count*extent bytes, padding included, so
// reduction kernels can work on it in place). For output buffers (out)
// done copies staged data back; it is a no-op when p is used directly.
func CollView(p unsafe.Pointer, count int, dt *Datatype, out bool) (data []byte, done func() error, err error) {
	noop := func() error { return nil }
	n := count * dt.Extent()
	if n == 0 || count == 0 {
		return nil, noop, nil
	}
	if dt.TrueLB() != 0 || dt.TrueExtent() > dt.Extent() || !dt.IsPredefined() && !dt.IsContiguous() {
		return nil, nil, Errorf(ErrUnsupportedOperation, "", "collectives on datatype %s (non-contiguous layout) are not supported yet", dt.Name())
	}
	return unsafe.Slice((*byte)(p), n), noop, nil
}
