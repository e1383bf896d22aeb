// Package basic is the reference collective component: correct on any
// intracommunicator, simple algorithms, lowest priority. Every other
// component falls back to it.
package basic

import (
	"unsafe"

	"gmpi/coll"
	mpirt "gmpi/runtime"
	"gmpi/runtime/param"
)

// Tags on the collective context. Collectives on one communicator are
// issued in the same order on every rank, and the collective context is
// separate from point-to-point, so a tag per operation suffices.
const (
	tagBarrier = 1 + iota
	tagBcast
	tagReduce
	tagAllreduce
)

// Component is the basic component.
type Component struct{}

var _ coll.Component = Component{}

// Priority is the component's priority: the lowest, every other
// component wins over it.
const Priority = 0

// GMPI_COLL_BASIC_PRIORITY overrides Priority (the selector reads it).
var _ = coll.PriorityParam("basic", Priority)

func (Component) Name() string { return "basic" }

// Query serves every intracommunicator and declines intercommunicators
// (coll/inter serves those).
func (Component) Query(c *mpirt.Comm) (int, coll.Module) {
	if c.IsInter() {
		return -1, nil
	}
	return Priority, module{}
}

// Describe implements coll.Component.
func (Component) Describe(*param.Values) coll.Description {
	return coll.Description{Name: "basic", Priority: Priority, Serves: "every intracommunicator",
		Ops: coll.OneEach(algorithmNames, "linear")}
}

// algorithmNames names the algorithm of each operation (SchedFuncs; the
// blocking barrier, bcast, reduce and allreduce run the same ones).
var algorithmNames = [mpirt.NumCollOps]string{
	mpirt.CollBarrier: "dissemination", mpirt.CollBcast: "binomial",
	mpirt.CollGather: "linear", mpirt.CollGatherv: "linear",
	mpirt.CollScatter: "linear", mpirt.CollScatterv: "linear",
	mpirt.CollAllgather: "linear", mpirt.CollAllgatherv: "linear",
	mpirt.CollAlltoall: "linear", mpirt.CollAlltoallv: "linear", mpirt.CollAlltoallw: "linear",
	mpirt.CollReduce: "binomial", mpirt.CollAllreduce: "reduce_bcast",
	mpirt.CollReduceScatter: "reduce_scatter", mpirt.CollReduceScatterBlock: "reduce_scatter",
	mpirt.CollScan: "recursive_doubling", mpirt.CollExscan: "recursive_doubling",
}

type module struct{}

func (module) Enable(c *mpirt.Comm, t *mpirt.CollTable) error {
	t.Barrier = Barrier
	t.Bcast = Bcast
	t.Reduce = Reduce
	t.Allreduce = Allreduce
	t.Sched = SchedFuncs
	t.Neighbor = mpirt.NeighborColl{
		Allgather: NeighborAllgather, Allgatherv: NeighborAllgatherv,
		Alltoall: NeighborAlltoall, Alltoallv: NeighborAlltoallv, Alltoallw: NeighborAlltoallw,
	}
	return nil
}

// Barrier is the dissemination barrier: ceil(log2 p) rounds; in round k
// rank r signals r+2^k and waits for r-2^k (mod p).
func Barrier(c *mpirt.Comm) error {
	n, me := c.Size(), c.Rank()
	for k := 1; k < n; k <<= 1 {
		r := c.CollIrecv(nil, (me-k+n)%n, tagBarrier)
		if err := c.CollSend(nil, (me+k)%n, tagBarrier); err != nil {
			return err
		}
		if err := c.World().Wait(r); err != nil {
			return err
		}
	}
	return nil
}

// Bcast is a binomial tree rooted at root: ceil(log2 p) steps, each
// process receives once and sends to its subtree. The data travels
// packed: processes may describe it with different datatypes of the same
// type signature (a strided column at the root, a contiguous buffer
// elsewhere), so only the count*Size() data bytes are comparable.
func Bcast(c *mpirt.Comm, buf unsafe.Pointer, count int, dt *mpirt.Datatype, root int) error {
	n := count * dt.Size()
	if n == 0 {
		return nil
	}
	if dt.IsContiguous() {
		return bcastBytes(c, unsafe.Slice((*byte)(unsafe.Add(buf, dt.TrueLB())), n), root, tagBcast)
	}
	data := make([]byte, n)
	if c.Rank() == root {
		dt.Pack(data, buf, count)
	}
	if err := bcastBytes(c, data, root, tagBcast); err != nil {
		return err
	}
	if c.Rank() != root {
		dt.Unpack(buf, data, count)
	}
	return nil
}

func bcastBytes(c *mpirt.Comm, data []byte, root, tag int) error {
	n, me := c.Size(), c.Rank()
	v := (me - root + n) % n
	mask := 1
	for ; mask < n; mask <<= 1 {
		if v&mask != 0 {
			if err := c.CollRecv(data, (v-mask+root)%n, tag); err != nil {
				return err
			}
			break
		}
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if v+mask < n {
			if err := c.CollSend(data, (v+mask+root)%n, tag); err != nil {
				return err
			}
		}
	}
	return nil
}

// Reduce combines in rank order over a binomial tree towards rank 0
// (operands are always combined lower-ranks-first, so non-commutative
// operators get the order MPI requires), then rank 0 hands the result to
// root. ceil(log2 p) steps plus one hop when root != 0.
func Reduce(c *mpirt.Comm, sbuf, rbuf unsafe.Pointer, count int, dt *mpirt.Datatype, op mpirt.Handle, root int) error {
	return reduce(c, sbuf, rbuf, count, dt, op, root, tagReduce)
}

func reduce(c *mpirt.Comm, sbuf, rbuf unsafe.Pointer, count int, dt *mpirt.Datatype, op mpirt.Handle, root, tag int) error {
	me := c.Rank()
	acc, err := operand(sbuf, rbuf, count, dt)
	if err != nil {
		return err
	}
	if err := reduceToZero(c, acc, count, dt, op, tag); err != nil {
		return err
	}
	if me != root && me != 0 {
		return nil
	}
	if root == 0 {
		return storeResult(rbuf, count, dt, acc)
	}
	if me == 0 {
		return c.CollSend(acc, root, tag)
	}
	if err := c.CollRecv(acc, 0, tag); err != nil {
		return err
	}
	return storeResult(rbuf, count, dt, acc)
}

// reduceToZero leaves the reduction of every rank's acc in rank 0's acc.
func reduceToZero(c *mpirt.Comm, acc []byte, count int, dt *mpirt.Datatype, op mpirt.Handle, tag int) error {
	n, me := c.Size(), c.Rank()
	var tmp []byte
	for mask := 1; mask < n; mask <<= 1 {
		if me&mask != 0 {
			return c.CollSend(acc, me-mask, tag)
		}
		if me+mask < n {
			if tmp == nil {
				tmp = make([]byte, len(acc))
			}
			if err := c.CollRecv(tmp, me+mask, tag); err != nil {
				return err
			}
			// acc covers lower ranks than tmp: tmp = acc op tmp.
			if err := mpirt.ReducePacked(op, dt, acc, tmp); err != nil {
				return err
			}
			copy(acc, tmp)
		}
	}
	return nil
}

func storeResult(rbuf unsafe.Pointer, count int, dt *mpirt.Datatype, acc []byte) error {
	mpirt.StorePacked(rbuf, count, dt, acc)
	return nil
}

// Allreduce is Reduce to rank 0 followed by Bcast: 2 ceil(log2 p) steps.
func Allreduce(c *mpirt.Comm, sbuf, rbuf unsafe.Pointer, count int, dt *mpirt.Datatype, op mpirt.Handle) error {
	acc, err := operand(sbuf, rbuf, count, dt)
	if err != nil {
		return err
	}
	if err := reduceToZero(c, acc, count, dt, op, tagAllreduce); err != nil {
		return err
	}
	if err := bcastBytes(c, acc, 0, tagAllreduce); err != nil {
		return err
	}
	return storeResult(rbuf, count, dt, acc)
}

// operand returns a private packed copy of this process's contribution
// to a reduction: sbuf, or rbuf when sbuf is MPI_IN_PLACE. Processes may
// describe their operands with different datatypes of one type
// signature: only packed data is comparable between them.
func operand(sbuf, rbuf unsafe.Pointer, count int, dt *mpirt.Datatype) ([]byte, error) {
	src := sbuf
	if mpirt.IsInPlace(sbuf) {
		src = rbuf
	}
	acc := make([]byte, mpirt.PackedLen(count, dt))
	mpirt.LoadPacked(acc, src, count, dt)
	return acc, nil
}
