package mpirt

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Comm is an intracommunicator: an ordered group of world ranks and a pair
// of context ids (point-to-point, and collective = pt2pt+1) that keeps its
// traffic apart from every other communicator's.
type Comm struct {
	w      *World
	handle Handle
	rank   int
	group  []int // comm rank -> world rank (the local group)
	// remote is the remote group of an intercommunicator (remote rank ->
	// world rank), nil for an intracommunicator. Point-to-point ranks
	// name remote processes when it is set (peerOf).
	remote []int
	// local is the hidden intracommunicator over the local group of an
	// intercommunicator (merge, intercomm collectives), nil otherwise.
	local *Comm
	ctx   uint32
	// dynSeed is nonzero on an intercommunicator to another job: a
	// value both groups share (world ranks are per job), and dynFirst
	// says whether the local group comes first (it accepted).
	dynSeed  uint64
	dynFirst bool
	// subDepth is 0 for a communicator with a context pair of its own, k
	// for a level sub-communicator k levels below one (SubComm).
	subDepth uint8
	// collSeq numbers the schedules started on c (the tag space of each
	// collective call; sched.go).
	collSeq uint32

	mu         sync.Mutex
	name       string
	errhandler Handle
	userEH     *Errhandler // the object behind a user errhandler handle
	info       *Info       // hints set by MPI_Comm_set_info / dup_with_info
	onFree     []func()    // run when the communicator is freed
	cache      map[string]uintptr
	freed      bool
	topo       *Topology // process topology (immutable; shared by dups)
	// createTail is closed when the last creation started on this
	// communicator is done (nil: none started; see inOrder).
	createTail chan struct{}
	// pending is set while c is the new communicator of an
	// MPI_Comm_idup whose agreement runs: its handle exists (the
	// caller has it), but only its error handler, name, hints and
	// attributes may be used; the agreement builds c in place and
	// clears pending before the request completes (Comm.Idup).
	pending atomic.Bool

	// Attrs holds the cached attributes (MPI_Comm_set_attr).
	Attrs Attrs

	// Coll is this communicator's table of collective operations, filled
	// by the CollSelector when the communicator is created.
	Coll *CollTable
}

// CollSelector builds the collective table of a new communicator (the coll
// framework: every component queried, highest priority wins per operation).
type CollSelector interface {
	Select(c *Comm) (*CollTable, error)
}

// CollTable holds a communicator's collective operations. Buffers are
// given as C memory (unsafe.Pointer) with count and datatype, as MPI does;
// IsInPlace marks MPI_IN_PLACE.
//
// Every operation has a schedule builder (Sched, required: nonblocking
// and persistent calls run schedules, collargs.go). A blocking call runs
// the named function for barrier, bcast, reduce and allreduce when set,
// else Blocking[op] when set, else the schedule (Comm.CollRun).
type CollTable struct {
	Barrier   func(c *Comm) error
	Bcast     func(c *Comm, buf unsafe.Pointer, count int, dt *Datatype, root int) error
	Reduce    func(c *Comm, sbuf, rbuf unsafe.Pointer, count int, dt *Datatype, op Handle, root int) error
	Allreduce func(c *Comm, sbuf, rbuf unsafe.Pointer, count int, dt *Datatype, op Handle) error
	// Sched builds one call of each operation as a schedule.
	Sched [NumCollOps]SchedFunc
	// Start, when set, starts a nonblocking call of an operation
	// without a schedule (a polled collective, StartPolled); it returns
	// a nil request to decline a call, which then runs the schedule.
	// The selector clears it when a later module replaces the
	// operation's schedule.
	Start [NumCollOps]StartFunc
	// Blocking overrides the schedule for blocking calls of an operation.
	Blocking [NumCollOps]BlockingFunc
	// Neighbor holds the neighborhood collectives (neighbor.go).
	Neighbor NeighborColl
}

// IsInPlace reports whether p is MPI_IN_PLACE ((void*)-1).
func IsInPlace(p unsafe.Pointer) bool { return uintptr(p) == ^uintptr(0) }

func (w *World) newComm(h Handle, group []int, ctx uint32, name string) (*Comm, error) {
	return w.setupComm(&Comm{group: group, ctx: ctx, name: name}, h)
}

// setupComm completes a communicator whose group (and remote group and
// hidden local communicator, for an intercommunicator), context and name
// are set: it finds this process's rank, gives it handle h (0: a new
// handle; HandleCommNull: none, for hidden communicators) and selects its
// collectives.
func (w *World) setupComm(c *Comm, h Handle) (*Comm, error) {
	c.w, c.rank = w, -1
	// A communicator built in place (MPI_Comm_idup's) keeps the error
	// handler it was given, which the program may be setting meanwhile.
	c.mu.Lock()
	if c.errhandler == 0 {
		c.errhandler = HandleErrorsAreFatal
	}
	c.mu.Unlock()
	for i, g := range c.group {
		if g == w.cfg.Rank {
			c.rank = i
		}
	}
	if h == 0 {
		c.handle = w.comms.Add(c)
	} else {
		c.handle = h
	}
	if h != HandleCommNull {
		w.refPeers(c)
	}
	if w.coll != nil {
		t, err := w.coll.Select(c)
		if err != nil {
			if h == 0 {
				w.comms.Remove(c.handle)
			}
			return nil, fmt.Errorf("gmpi: selecting collectives for %s: %w", c.name, err)
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
	if !ok || c.pending.Load() {
		return nil
	}
	return c
}

// PendingComm resolves the handle of the new communicator of an
// MPI_Comm_idup that has not completed (nil for anything else): its
// error handler, name, hints and attributes may be set and read.
func (w *World) PendingComm(h Handle) *Comm {
	if h == HandleCommWorld || h == HandleCommSelf {
		return nil
	}
	c, ok := w.comms.Get(h)
	if !ok || !c.pending.Load() {
		return nil
	}
	return c
}

// Pending reports whether c is the new communicator of an MPI_Comm_idup
// that has not completed (World.PendingComm).
func (c *Comm) Pending() bool { return c.pending.Load() }

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

// InWorldOrder reports whether c is an intracommunicator whose rank r is
// world rank r (MPI_COMM_WORLD and its duplicates).
func (c *Comm) InWorldOrder() bool {
	if c.remote != nil || len(c.group) != c.w.cfg.Size {
		return false
	}
	for r, p := range c.group {
		if p != r {
			return false
		}
	}
	return true
}

// peerOf maps a point-to-point rank (destination or source) to a world
// rank: a rank of the remote group on an intercommunicator, of the group
// otherwise.
func (c *Comm) peerOf(r int) int {
	if c.remote != nil {
		return c.remote[r]
	}
	return c.group[r]
}

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

// SetErrhandler attaches an error handler to c: a predefined one
// (MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN, MPI_ERRORS_ABORT) or a user
// handler created by NewErrhandler. An unknown handle is ignored (capi
// checks handles first).
func (c *Comm) SetErrhandler(h Handle) {
	var eh *Errhandler
	if h.Kind() == KindDirect {
		if eh = c.w.Errhandler(h); eh == nil {
			return
		}
	}
	c.mu.Lock()
	c.errhandler = h
	c.userEH = eh
	c.mu.Unlock()
}

// UserErrhandler returns the user error handler attached to c, nil when
// c's handler is a predefined one.
func (c *Comm) UserErrhandler() *Errhandler {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.userEH
}

// Cached returns the value cached on c under key, calling make (under c's
// lock) the first time; the release function make returns (may be nil)
// runs when c is freed. capi keeps C arrays it built for c this way (the
// MPICHX topology attributes).
func (c *Comm) Cached(key string, make func() (uintptr, func())) uintptr {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.cache[key]; ok {
		return v
	}
	if c.cache == nil {
		c.cache = map[string]uintptr{}
	}
	v, release := make()
	c.cache[key] = v
	if release != nil {
		c.onFree = append(c.onFree, release)
	}
	return v
}

// OnFree registers f to run when c is freed (capi releases C memory it
// cached for c this way).
func (c *Comm) OnFree(f func()) {
	c.mu.Lock()
	c.onFree = append(c.onFree, f)
	c.mu.Unlock()
}

// Send is a blocking send of contiguous bytes on c's point-to-point context.
func (c *Comm) Send(buf []byte, dest, tag int, mode SendMode) error {
	return c.w.Send(c, c.ctx, buf, dest, tag, mode)
}

// Recv is a blocking receive of contiguous bytes on c's point-to-point
// context.
func (c *Comm) Recv(buf []byte, src, tag int) (Status, error) {
	return c.w.Recv(c, c.ctx, buf, src, tag, nil)
}

// CollSend sends on the collective context (for coll algorithms).
func (c *Comm) CollSend(buf []byte, dest, tag int) error {
	return c.w.Send(c, c.ctx+1, buf, dest, tag, ModeStandard)
}

// CollIsend starts a send on the collective context.
func (c *Comm) CollIsend(buf []byte, dest, tag int) (*Request, error) {
	return c.w.Isend(c, c.ctx+1, buf, dest, tag, ModeStandard)
}

// CollRecv receives on the collective context.
func (c *Comm) CollRecv(buf []byte, src, tag int) error {
	_, err := c.w.Recv(c, c.ctx+1, buf, src, tag, nil)
	return err
}

// CollIrecv starts a receive on the collective context.
func (c *Comm) CollIrecv(buf []byte, src, tag int) *Request {
	return c.w.Irecv(c, c.ctx+1, buf, src, tag)
}
