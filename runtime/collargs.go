package mpirt

import (
	"fmt"
	"unsafe"
)

// CollOp names one collective operation (the rows of CollTable.Sched).
type CollOp uint8

const (
	CollBarrier CollOp = iota
	CollBcast
	CollGather
	CollGatherv
	CollScatter
	CollScatterv
	CollAllgather
	CollAllgatherv
	CollAlltoall
	CollAlltoallv
	CollAlltoallw
	CollReduce
	CollAllreduce
	CollReduceScatter
	CollReduceScatterBlock
	CollScan
	CollExscan
	NumCollOps
)

var collOpNames = [NumCollOps]string{"barrier", "bcast", "gather", "gatherv", "scatter", "scatterv",
	"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw", "reduce", "allreduce",
	"reduce_scatter", "reduce_scatter_block", "scan", "exscan"}

// String is the operation's lower-case name (as in GMPI_COLL_TUNED_<OP>_ALGORITHM).
func (o CollOp) String() string {
	if o < NumCollOps {
		return collOpNames[o]
	}
	return fmt.Sprintf("collop(%d)", o)
}

// CollArgs are the arguments of one collective call, already checked by
// the caller. Which fields an operation reads:
//
//	bcast                  Rbuf, Rcount, Rdt, Root
//	gather, scatter,       Sbuf, Scount, Sdt, Rbuf, Rcount, Rdt (+ Root)
//	allgather, alltoall
//	gatherv, allgatherv    + Rcounts, Rdispls (elements of Rdt)
//	scatterv               + Scounts, Sdispls
//	alltoallv              + Scounts, Sdispls, Rcounts, Rdispls
//	alltoallw              + Sdts, Rdts (displacements in bytes)
//	reduce, allreduce,     Sbuf, Rbuf, Rcount, Rdt, Op (+ Root)
//	scan, exscan
//	reduce_scatter_block   Sbuf, Rbuf, Rcount, Rdt, Op
//	reduce_scatter         Sbuf, Rbuf, Rcounts, Rdt, Op
//
// Sbuf may be MPI_IN_PLACE where the standard allows it (IsInPlace).
// Arrays are indexed by rank of the group the data goes to or comes
// from (the remote group on an intercommunicator, except the local
// recvcounts of reduce_scatter).
type CollArgs struct {
	Sbuf, Rbuf                         unsafe.Pointer
	Scount, Rcount                     int
	Sdt, Rdt                           *Datatype
	Scounts, Sdispls, Rcounts, Rdispls []int
	Sdts, Rdts                         []*Datatype
	Op                                 Handle
	Root                               int
}

// SchedFunc builds the schedule of one call of a collective operation on
// c. The schedule may be started many times (persistent collectives);
// everything it reads from user memory it reads when it runs.
type SchedFunc func(c *Comm, a *CollArgs) (*Schedule, error)

// StartFunc starts one nonblocking call of a collective operation
// without a schedule, or declines it (nil request, nil error).
type StartFunc func(c *Comm, a *CollArgs) (*Request, error)

// BlockingFunc runs one blocking call of a collective operation.
type BlockingFunc func(c *Comm, a *CollArgs) error

// CollRun runs one blocking call of op on c: the table's named blocking
// function for barrier, bcast, reduce and allreduce, else its Blocking
// entry, else the operation's schedule, started and waited for.
func (c *Comm) CollRun(op CollOp, a *CollArgs) error {
	t := c.Coll
	switch {
	case op == CollBarrier && t.Barrier != nil:
		return t.Barrier(c)
	case op == CollBcast && t.Bcast != nil:
		return t.Bcast(c, a.Rbuf, a.Rcount, a.Rdt, a.Root)
	case op == CollReduce && t.Reduce != nil:
		return t.Reduce(c, a.Sbuf, a.Rbuf, a.Rcount, a.Rdt, a.Op, a.Root)
	case op == CollAllreduce && t.Allreduce != nil:
		return t.Allreduce(c, a.Sbuf, a.Rbuf, a.Rcount, a.Rdt, a.Op)
	case t.Blocking[op] != nil:
		return t.Blocking[op](c, a)
	}
	s, err := c.CollSchedule(op, a)
	if err != nil {
		return err
	}
	// The caller waits at once: no background progress for it.
	s.foreground = true
	r, err := s.Start()
	if err != nil {
		return err
	}
	return c.w.Wait(r)
}

// CollStart starts one nonblocking call of op on c (MPI_I*).
func (c *Comm) CollStart(op CollOp, a *CollArgs) (*Request, error) {
	if f := c.Coll.Start[op]; f != nil {
		if r, err := f(c, a); r != nil || err != nil {
			return r, err
		}
	}
	s, err := c.CollSchedule(op, a)
	if err != nil {
		return nil, err
	}
	return s.Start()
}

// CollSchedule builds the schedule of one call of op on c.
func (c *Comm) CollSchedule(op CollOp, a *CollArgs) (*Schedule, error) {
	f := c.Coll.Sched[op]
	if f == nil {
		return nil, Errorf(ErrUnsupportedOperation, "", "no collective component provides %s on this communicator", op)
	}
	return f(c, a)
}

// CollPersistent creates the inactive persistent request of a persistent
// collective (MPI_*_init): the schedule is built once, here, and every
// MPI_Start runs it again.
func (c *Comm) CollPersistent(op CollOp, a *CollArgs) (*Request, error) {
	s, err := c.CollSchedule(op, a)
	if err != nil {
		return nil, err
	}
	return c.CollInit(s.Start), nil
}
