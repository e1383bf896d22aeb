package mpirt

import (
	"sync"
	"sync/atomic"
)

// Wildcards and special ranks, as the MPI ABI defines them.
const (
	AnySource = -2 // MPI_ANY_SOURCE
	AnyTag    = -1 // MPI_ANY_TAG
	ProcNull  = -1 // MPI_PROC_NULL
	RootRank  = -3 // MPI_ROOT
)

// ReqKind says what a request does.
type ReqKind uint8

const (
	ReqSend ReqKind = iota + 1
	ReqRecv
)

// SendMode is the flavour of a send.
type SendMode uint8

const (
	ModeStandard SendMode = iota
	ModeSync
	ModeReady
	ModeBuffered
)

// Status is the runtime's view of MPI_Status.
type Status struct {
	Source    int
	Tag       int
	Error     int   // MPI error class of this request (0: success)
	Count     int64 // bytes received
	Cancelled bool
	// SenderSizes is nonzero in a probe's status when the sender's C
	// types have other sizes than this process's: Count is then in the
	// sender's bytes, and ReceiverBytes gives the count in this process's
	// terms for a datatype (hetero.go).
	SenderSizes uint8
}

// Request is one point-to-point operation in flight.
//
// Lifecycle: created by Isend/Irecv → (matched, data moving) → done. Done
// is set exactly once, after the data is in place and Status is final; a
// waiter that sees Done() true may read Status and Err without locks.
type Request struct {
	w    *World
	Kind ReqKind
	done atomic.Bool

	comm *Comm
	ctx  uint32
	src  int // match pattern: comm rank or AnySource (receives)
	tag  int // match pattern: tag or AnyTag (receives)
	buf  []byte
	rt   recvTarget // typed receives: what buf holds (hetero.go)

	// Status and Err are final once Done() is true.
	Status Status
	Err    error

	// protocol state
	id        uint64       // key in World.pending while waiting for a reply
	remaining uint64       // rendezvous bytes still expected
	parts     atomic.Int32 // shared single copy: parts still running (deliverRMA)
	peer      int          // world rank of the partner (sends)
	hdr       Header       // envelope of a send
	rmaOut    bool         // a send offered for single copy, counted in World.rmaOut

	// onDone runs once, before Done() becomes true (unpacking into a
	// non-contiguous user buffer, releasing a staging buffer).
	onDone func(*Request)

	// Handle is the user-visible MPI_Request, 0 when the request is internal.
	Handle Handle
	// Persistent requests are restarted by Start; between a completion
	// and the next Start they are inactive (Op returns nil; persist.go).
	Persistent bool
	pers       *persistent // arguments and current operation (persistent requests)

	seq   uint64        // posting order (matcher)
	qlink link[Request] // posted bucket links (matcher)

	pooled   bool // internal request of a blocking call, recycled (reqPool)
	reusable bool // from newRequest: ReleaseRequest may recycle it

	poll       PolledColl    // a running polled collective (StartPolled)
	psleep     PolledSleeper // poll's sleep, if it has one (kept after completion)
	gen        *Generalized  // generalized requests only (greq.go)
	completing atomic.Bool   // generalized: MPI_Grequest_complete was called

	// Lifetime checks (checkRequests, reqcheck.go): queued while in the
	// matcher's posted lists, released while recycled.
	queued, released bool
}

// Done reports whether the request completed.
func (r *Request) Done() bool { return r.done.Load() }

// Comm returns the communicator the request belongs to.
func (r *Request) Comm() *Comm { return r.comm }

// complete finishes r: runs onDone, publishes Done, wakes sleepers. r
// must not be touched after Done is published: the waiter of a pooled
// request recycles it at once.
func (w *World) complete(r *Request) {
	if checkRequests {
		checkComplete(r)
	}
	if r.rmaOut {
		r.rmaOut = false
		w.rmaOut[r.peer].Add(-1)
	}
	if r.onDone != nil {
		r.onDone(r)
	}
	r.done.Store(true)
	w.waker.Ring()
}

// reqPool recycles the internal requests of blocking calls (MPI_Recv,
// blocking sends that need one), so the data path allocates nothing. A
// single-threaded process keeps one spare in the World instead, which is
// cheaper still.
var reqPool = sync.Pool{New: func() any { return new(Request) }}

// pooledRequest returns a zeroed request owned by a blocking call, which
// hands it back with recycle once it has read Status and Err.
func (w *World) pooledRequest() *Request {
	var r *Request
	if w.match.single && w.spare != nil {
		// Zeroed here rather than in recycle: a blocking receive is
		// usually posted before its message arrives, so this is off the
		// latency path, and recycle (on it) is cheap.
		r, w.spare = w.spare, nil
		*r = Request{}
	} else {
		r = reqPool.Get().(*Request)
		if checkRequests {
			checkTaken(r)
		}
	}
	r.pooled = true
	return r
}

// newRequest returns a zeroed request for Isend/Irecv. The capi layer
// hands user requests back with ReleaseRequest once it has retired their
// handle and read their status, so a steady stream of nonblocking calls
// allocates nothing.
func (w *World) newRequest() *Request {
	var r *Request
	if n := len(w.free); n > 0 && w.match.single {
		r, w.free = w.free[n-1], w.free[:n-1]
	} else {
		r = reqPool.Get().(*Request)
	}
	if checkRequests {
		checkTaken(r)
	}
	r.reusable = true
	return r
}

// ReleaseRequest recycles r, a completed non-persistent send or receive
// whose handle was freed: the caller guarantees it keeps no reference.
// Other requests (persistent, collective, proxies) are left to the GC.
func (w *World) ReleaseRequest(r *Request) {
	if r == nil || !r.reusable || r.Handle != 0 || r.pers != nil || !r.done.Load() ||
		(r.Kind != ReqSend && r.Kind != ReqRecv) {
		return
	}
	if checkRequests {
		w.checkRecycle(r)
	}
	*r = Request{}
	r.released = checkRequests
	if w.match.single {
		if len(w.free) < 1024 {
			w.free = append(w.free, r)
		}
		return
	}
	reqPool.Put(r)
}

// recycle returns a pooled request; anything else is left to the GC.
func (w *World) recycle(r *Request) {
	if !r.pooled {
		return
	}
	if checkRequests {
		w.checkRecycle(r)
	}
	if w.match.single {
		w.spare = r // zeroed when taken again
		return
	}
	*r = Request{}
	r.released = checkRequests
	reqPool.Put(r)
}

// completedRequest returns a request that is already done (MPI_PROC_NULL).
func (w *World) completedRequest(c *Comm, kind ReqKind, src, tag int) *Request {
	r := &Request{w: w, Kind: kind, comm: c}
	r.Status = Status{Source: src, Tag: tag}
	r.done.Store(true)
	return r
}

func (w *World) register(r *Request) uint64 {
	r.id = w.nextID.Add(1)
	w.pendingMu.Lock()
	w.pending[r.id] = r
	w.pendingMu.Unlock()
	return r.id
}

func (w *World) lookup(id uint64, remove bool) *Request {
	w.pendingMu.Lock()
	r := w.pending[id]
	if remove && r != nil {
		delete(w.pending, id)
	}
	w.pendingMu.Unlock()
	return r
}

// Wait blocks until r completes and returns its error.
func (w *World) Wait(r *Request) error {
	blockGeneralized(r)
	w.waitFor(r)
	return r.Err
}

// WaitAll blocks until every request completes; it returns the first error.
func (w *World) WaitAll(rs []*Request) error {
	// Waiting on each in turn is waiting on all: progress moves every
	// request, whichever one we watch. (No closure over rs: callers may
	// keep the slice on their stack.)
	for _, r := range rs {
		blockGeneralized(r)
	}
	for _, r := range rs {
		if r != nil {
			w.waitFor(r)
		}
	}
	for _, r := range rs {
		if r != nil && r.Err != nil {
			return r.Err
		}
	}
	return nil
}

// Test makes progress once and reports whether r completed.
func (w *World) Test(r *Request) bool {
	if r.Done() {
		return true
	}
	w.progress()
	return r.Done()
}
