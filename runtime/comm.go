package mpirt

import (
	"fmt"
	"sync"
	"unsafe"
)

// Comm is an intracommunicator: an ordered group of world ranks and a pair
// of context ids (point-to-point, and collective = pt2pt+1) that keeps its
// traffic apart from every other communicator's.
type Comm struct {
	w      *World
	handle Handle
	rank   int
	group  []int // comm rank -> world rank
	ctx    uint32

	mu         sync.Mutex
	name       string
	errhandler Handle

	// Coll is this communicator's table of collective operations, filled
	// by the CollSelector when the communicator is created.
	Coll *CollTable
}

// CollSelector builds the collective table of a new communicator (the coll
// framework: every component queried, highest priority wins per operation).
type CollSelector interface {
	Select(c *Comm) (*CollTable, error)
}

// CollTable holds one function per collective operation. Buffers are
// given as C memory (unsafe.Pointer) with count and datatype, as MPI does;
// InPlace marks MPI_IN_PLACE.
type CollTable struct {
	Barrier   func(c *Comm) error
	Bcast     func(c *Comm, buf unsafe.Pointer, count int, dt *Datatype, root int) error
	Reduce    func(c *Comm, sbuf, rbuf unsafe.Pointer, count int, dt *Datatype, op Handle, root int) error
	Allreduce func(c *Comm, sbuf, rbuf unsafe.Pointer, count int, dt *Datatype, op Handle) error
}

// IsInPlace reports whether p is MPI_IN_PLACE ((void*)-1).
func IsInPlace(p unsafe.Pointer) bool { return uintptr(p) == ^uintptr(0) }

func (w *World) newComm(h Handle, group []int, ctx uint32, name string) (*Comm, error) {
	c := &Comm{w: w, group: group, ctx: ctx, name: name, errhandler: HandleErrorsAreFatal, rank: -1}
	for i, g := range group {
		if g == w.cfg.Rank {
			c.rank = i
		}
	}
	if h == 0 {
		c.handle = w.comms.Add(c)
	} else {
		c.handle = h
	}
	if w.coll != nil {
		t, err := w.coll.Select(c)
		if err != nil {
			return nil, fmt.Errorf("gmpi: selecting collectives for %s: %w", name, err)
		}
		c.Coll = t
	}
	return c, nil
}

// Comm resolves a communicator handle. It returns nil for MPI_COMM_NULL and
// for anything that is not a live communicator.
func (w *World) Comm(h Handle) *Comm {
	switch h {
	case HandleCommWorld:
		return w.commWorld
	case HandleCommSelf:
		return w.commSelf
	}
	c, ok := w.comms.Get(h)
	if !ok {
		return nil
	}
	return c
}

// World returns the engine the communicator belongs to.
func (c *Comm) World() *World { return c.w }

// Handle is the communicator's MPI handle.
func (c *Comm) Handle() Handle { return c.handle }

// Rank is this process's rank in c.
func (c *Comm) Rank() int { return c.rank }

// Size is the number of processes in c.
func (c *Comm) Size() int { return len(c.group) }

// WorldRank translates a rank of c to a rank of MPI_COMM_WORLD.
func (c *Comm) WorldRank(r int) int { return c.group[r] }

// Context is the point-to-point context id; Context()+1 is for collectives.
func (c *Comm) Context() uint32 { return c.ctx }

// CollContext is the context id collectives use on c.
func (c *Comm) CollContext() uint32 { return c.ctx + 1 }

// Name returns the communicator's name (MPI_Comm_get_name).
func (c *Comm) Name() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.name
}

// SetName sets the communicator's name.
func (c *Comm) SetName(s string) {
	c.mu.Lock()
	c.name = s
	c.mu.Unlock()
}

// Errhandler returns the error handler attached to c.
func (c *Comm) Errhandler() Handle {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.errhandler
}

// SetErrhandler attaches an error handler to c.
func (c *Comm) SetErrhandler(h Handle) {
	c.mu.Lock()
	c.errhandler = h
	c.mu.Unlock()
}

// Send is a blocking send of contiguous bytes on c's point-to-point context.
func (c *Comm) Send(buf []byte, dest, tag int, mode SendMode) error {
	r, err := c.w.Isend(c, c.ctx, buf, dest, tag, mode)
	if err != nil {
		return err
	}
	return c.w.Wait(r)
}

// Recv is a blocking receive of contiguous bytes on c's point-to-point
// context.
func (c *Comm) Recv(buf []byte, src, tag int) (Status, error) {
	r := c.w.Irecv(c, c.ctx, buf, src, tag)
	err := c.w.Wait(r)
	return r.Status, err
}

// CollSend sends on the collective context (for coll algorithms).
func (c *Comm) CollSend(buf []byte, dest, tag int) error {
	r, err := c.w.Isend(c, c.ctx+1, buf, dest, tag, ModeStandard)
	if err != nil {
		return err
	}
	return c.w.Wait(r)
}

// CollIsend starts a send on the collective context.
func (c *Comm) CollIsend(buf []byte, dest, tag int) (*Request, error) {
	return c.w.Isend(c, c.ctx+1, buf, dest, tag, ModeStandard)
}

// CollRecv receives on the collective context.
func (c *Comm) CollRecv(buf []byte, src, tag int) error {
	r := c.w.Irecv(c, c.ctx+1, buf, src, tag)
	return c.w.Wait(r)
}

// CollIrecv starts a receive on the collective context.
func (c *Comm) CollIrecv(buf []byte, src, tag int) *Request {
	return c.w.Irecv(c, c.ctx+1, buf, src, tag)
}
