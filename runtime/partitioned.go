package mpirt

import (
	"sync"
	"unsafe"
)

// Partitioned point-to-point communication (MPI 4.0 chapter 4). A
// partitioned send or receive is a persistent request over partitions
// blocks of count elements. This implementation moves the whole buffer as
// one message: the send goes out when the last partition is marked ready
// (MPI_Pready), and a receive reports every partition arrived once the
// message has (MPI_Parrived). The standard allows both.
//
// Matching. Partitioned operations never match ordinary ones, and they
// pair up in the order of their MPI_Psend_init/MPI_Precv_init calls. Both
// follow from the context their messages use: the communicator's
// point-to-point context with partBit set and, above it, the number k of
// earlier partitioned inits between the same two processes with the same
// tag (each side counts its own; the k-th send init meets the k-th receive
// init). The matcher keeps these contexts apart from the others
// (matcher.part).

const (
	partBit   = 1 << 31
	partKBits = 18 // k modulo 2^18: inits in flight per (peer, tag) pair
	ctxBits   = 13 // communicator context ids are below 2*ctxPairs
)

type partState struct {
	send       bool
	ctx        uint32 // partitioned context of this pair (see above)
	buf        unsafe.Pointer
	partitions int
	count      int
	dt         *Datatype
	peer, tag  int // rank in the communicator, user tag

	mu     sync.Mutex
	ready  []bool // send: partitions marked ready since Start
	nready int
	op     *Request // current operation; nil while inactive
}

type partKey struct {
	c         *Comm
	send      bool
	peer, tag int
}

// partSeq hands out the init numbers k (World.partInits).
func (w *World) partSeq(c *Comm, send bool, peer, tag int) uint32 {
	w.partMu.Lock()
	defer w.partMu.Unlock()
	if w.partInits == nil {
		w.partInits = make(map[partKey]uint32)
	}
	k := partKey{c, send, peer, tag}
	n := w.partInits[k]
	w.partInits[k] = n + 1
	return n
}

// PartitionedInit creates an inactive partitioned send (MPI_Psend_init)
// or receive (MPI_Precv_init) request. peer is a rank of c (never a
// wildcard; MPI_PROC_NULL is allowed).
func (c *Comm) PartitionedInit(send bool, buf unsafe.Pointer, partitions, count int, dt *Datatype, peer, tag int) *Request {
	k := c.w.partSeq(c, send, peer, tag) & (1<<partKBits - 1)
	st := &partState{send: send, ctx: partBit | k<<ctxBits | c.ctx, buf: buf, partitions: partitions,
		count: count, dt: dt, peer: peer, tag: tag, ready: make([]bool, partitions)}
	kind := ReqRecv
	if send {
		kind = ReqSend
	}
	r := &Request{w: c.w, Kind: kind, comm: c, Persistent: true, pers: &persistent{part: st}}
	r.pers.start = func() (*Request, error) { return c.startPartitioned(st) }
	return r
}

func (c *Comm) startPartitioned(st *partState) (*Request, error) {
	w := c.w
	st.mu.Lock()
	defer st.mu.Unlock()
	clear(st.ready)
	st.nready = 0
	if !st.send {
		if st.peer == ProcNull {
			st.op = w.completedRequest(c, ReqRecv, ProcNull, AnyTag)
			return st.op, nil
		}
		view, unpack := recvView(st.buf, st.partitions*st.count, st.dt)
		st.op = w.irecvT(c, st.ctx, view, st.peer, st.tag, unpack, recvTarget{st.dt, st.partitions * st.count})
		return st.op, nil
	}
	// The send completes once its message went out (after the last
	// Pready); until then it is a request nobody completes.
	st.op = &Request{w: w, Kind: ReqSend, comm: c}
	if st.partitions == 0 {
		return st.op, c.launchPartitioned(st)
	}
	return st.op, nil
}

// launchPartitioned sends the whole buffer. Caller holds st.mu.
func (c *Comm) launchPartitioned(st *partState) error {
	w, op := c.w, st.op
	if st.peer == ProcNull {
		w.complete(op)
		return nil
	}
	data, m := w.sendData(st.buf, st.partitions*st.count, st.dt)
	_, err := w.isend(c, st.ctx, data, st.peer, st.tag, ModeStandard|m, func(sr *Request) {
		op.Err = sr.Err
		w.complete(op)
	})
	return err
}

// partitioned returns the partitioned state of r, nil if r is not a
// partitioned request.
func (r *Request) partitioned() *partState {
	if r.pers == nil {
		return nil
	}
	return r.pers.part
}

// Pready marks send partitions ready (MPI_Pready, _range, _list); the
// message goes out with the last one.
func (r *Request) Pready(parts ...int) error {
	st := r.partitioned()
	if st == nil || !st.send {
		return Errorf(ErrRequest, "", "invalid request: not a partitioned send request")
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.op == nil || st.nready == st.partitions {
		return Errorf(ErrRequest, "", "invalid request: partitioned send is not active (MPI_Start it first)")
	}
	for _, p := range parts {
		if p < 0 || p >= st.partitions {
			return Errorf(ErrArg, "", "invalid argument partition: %d is not in [0, %d)", p, st.partitions)
		}
		if st.ready[p] {
			return Errorf(ErrArg, "", "invalid argument partition: %d is already marked ready", p)
		}
	}
	for _, p := range parts {
		st.ready[p] = true
		st.nready++
	}
	if st.nready == st.partitions {
		return r.comm.launchPartitioned(st)
	}
	return nil
}

// Parrived reports whether receive partition part has arrived (it makes
// progress first).
func (r *Request) Parrived(part int) (bool, error) {
	st := r.partitioned()
	if st == nil || st.send {
		return false, Errorf(ErrRequest, "", "invalid request: not a partitioned receive request")
	}
	if part < 0 || part >= st.partitions {
		return false, Errorf(ErrArg, "", "invalid argument partition: %d is not in [0, %d)", part, st.partitions)
	}
	st.mu.Lock()
	op := st.op
	st.mu.Unlock()
	if op == nil || r.pers.cur == nil {
		return false, Errorf(ErrRequest, "", "invalid request: partitioned receive is not active")
	}
	return r.w.Test(op), nil
}
