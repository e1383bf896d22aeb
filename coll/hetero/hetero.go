// Package hetero is the collective component of communicators whose
// processes differ in data representation (issue 21): every byte of user
// data it moves is typed, so the receiver converts it (receiver makes
// right), and reductions combine operands only after they were converted
// to the combining process's representation. It outranks every other
// component on such communicators and declines all others, so a
// homogeneous communicator never sees it.
//
// Algorithms are linear through one process (the root, or rank 0): the
// data is converted once per hop and no process forwards bytes it did not
// convert. Gather, scatter, allgather and alltoall are basic's, which
// already move typed data; barrier moves none. Intercommunicators:
// inter.go.
package hetero

import (
	"unsafe"

	"gmpi/coll"
	"gmpi/coll/basic"
	mpirt "gmpi/runtime"
	"gmpi/runtime/param"
)

// Component is the hetero component.
type Component struct{}

var _ coll.Component = Component{}

// Priority is above every other component's.
const Priority = 1000

// GMPI_COLL_HETERO_PRIORITY overrides Priority (the selector reads it).
var _ = coll.PriorityParam("hetero", Priority)

func (Component) Name() string { return "hetero" }

// Query serves the communicators that span data representations.
func (Component) Query(c *mpirt.Comm) (int, coll.Module) {
	if !c.MixedReps() {
		return -1, nil
	}
	if c.IsInter() {
		if c.LocalComm() == nil {
			return -1, nil
		}
		return Priority, interModule{}
	}
	return Priority, module{}
}

// Describe implements coll.Component.
func (Component) Describe(*param.Values) coll.Description {
	return coll.Description{Name: "hetero", Priority: Priority,
		Serves: "communicators whose processes differ in data representation (on intercommunicators: inter's typed algorithms, bcast and reductions typed between the groups and by the groups' own components within them)",
		Ops:    coll.OneEach(algorithmNames, "")}
}

var algorithmNames = [mpirt.NumCollOps]string{
	mpirt.CollBarrier: "dissemination", mpirt.CollBcast: "linear_typed",
	mpirt.CollGather: "linear", mpirt.CollGatherv: "linear",
	mpirt.CollScatter: "linear", mpirt.CollScatterv: "linear",
	mpirt.CollAllgather: "linear", mpirt.CollAllgatherv: "linear",
	mpirt.CollAlltoall: "linear", mpirt.CollAlltoallv: "linear", mpirt.CollAlltoallw: "linear",
	mpirt.CollReduce: "linear_convert", mpirt.CollAllreduce: "linear_convert",
	mpirt.CollReduceScatter: "linear_convert", mpirt.CollReduceScatterBlock: "linear_convert",
	mpirt.CollScan: "linear_convert", mpirt.CollExscan: "linear_convert",
}

var schedFuncs = [mpirt.NumCollOps]mpirt.SchedFunc{
	mpirt.CollBarrier:            basic.SchedBarrier,
	mpirt.CollBcast:              schedBcast,
	mpirt.CollGather:             basic.SchedGather,
	mpirt.CollGatherv:            basic.SchedGatherv,
	mpirt.CollScatter:            basic.SchedScatter,
	mpirt.CollScatterv:           basic.SchedScatterv,
	mpirt.CollAllgather:          basic.SchedAllgather,
	mpirt.CollAllgatherv:         basic.SchedAllgatherv,
	mpirt.CollAlltoall:           basic.SchedAlltoall,
	mpirt.CollAlltoallv:          basic.SchedAlltoallv,
	mpirt.CollAlltoallw:          basic.SchedAlltoallw,
	mpirt.CollReduce:             schedReduce,
	mpirt.CollAllreduce:          schedAllreduce,
	mpirt.CollReduceScatter:      schedReduceScatter,
	mpirt.CollReduceScatterBlock: schedReduceScatterBlock,
	mpirt.CollScan:               schedScan,
	mpirt.CollExscan:             schedExscan,
}

type module struct{}

// Enable takes every operation: the schedules above for all calls
// (blocking ones too), none of the blocking shortcuts of components
// enabled before it, which may move raw bytes.
func (module) Enable(c *mpirt.Comm, t *mpirt.CollTable) error {
	t.Barrier = basic.Barrier // no data
	t.Bcast = func(c *mpirt.Comm, buf unsafe.Pointer, count int, dt *mpirt.Datatype, root int) error {
		return run(schedBcast(c, &mpirt.CollArgs{Rbuf: buf, Rcount: count, Rdt: dt, Root: root}))
	}
	t.Reduce = func(c *mpirt.Comm, sbuf, rbuf unsafe.Pointer, count int, dt *mpirt.Datatype, op mpirt.Handle, root int) error {
		return run(schedReduce(c, &mpirt.CollArgs{Sbuf: sbuf, Rbuf: rbuf, Rcount: count, Rdt: dt, Op: op, Root: root}))
	}
	t.Allreduce = func(c *mpirt.Comm, sbuf, rbuf unsafe.Pointer, count int, dt *mpirt.Datatype, op mpirt.Handle) error {
		return run(schedAllreduce(c, &mpirt.CollArgs{Sbuf: sbuf, Rbuf: rbuf, Rcount: count, Rdt: dt, Op: op}))
	}
	t.Sched = schedFuncs
	t.Blocking = [mpirt.NumCollOps]mpirt.BlockingFunc{}
	t.Neighbor = mpirt.NeighborColl{
		Allgather: basic.NeighborAllgather, Allgatherv: basic.NeighborAllgatherv,
		Alltoall: basic.NeighborAlltoall, Alltoallv: basic.NeighborAlltoallv, Alltoallw: basic.NeighborAlltoallw,
	}
	return nil
}

// run runs a schedule to completion (a blocking call).
func run(s *mpirt.Schedule, err error) error {
	if err != nil {
		return err
	}
	return s.RunBlocking()
}

// schedBcast: the root sends the typed data to every other process,
// which receives (and converts) it: one round, p-1 messages from the
// root.
func schedBcast(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	s := c.NewSchedule()
	if c.Rank() != a.Root {
		s.RecvTyped(c, a.Rbuf, a.Rcount, a.Rdt, a.Root)
		return s, nil
	}
	for i := range c.Size() {
		if i != a.Root {
			s.SendTyped(c, a.Rbuf, a.Rcount, a.Rdt, i)
		}
	}
	return s, nil
}

// operand is this process's contribution, packed when the schedule runs:
// sbuf, or rbuf when sbuf is MPI_IN_PLACE.
func operand(s *mpirt.Schedule, sbuf, rbuf unsafe.Pointer, count int, dt *mpirt.Datatype) []byte {
	src := sbuf
	if mpirt.IsInPlace(sbuf) {
		src = rbuf
	}
	acc := make([]byte, mpirt.PackedLen(count, dt))
	s.Local(func() error { mpirt.LoadPacked(acc, src, count, dt); return nil })
	return acc
}

// gatherOperands adds the collection of every process's operand (count
// elements of dt, packed) at root: it returns them indexed by rank at the
// root (converted to the root's representation), nil elsewhere.
func gatherOperands(s *mpirt.Schedule, c *mpirt.Comm, mine []byte, count int, dt *mpirt.Datatype, root int) [][]byte {
	n, me := c.Size(), c.Rank()
	if me != root {
		s.Send(c, mine, root)
		s.Round()
		return nil
	}
	all := make([][]byte, n)
	for i := range n {
		if i == me {
			all[i] = mine
			continue
		}
		all[i] = make([]byte, len(mine))
		s.RecvPacked(c, all[i], count, dt, i)
	}
	s.Round()
	return all
}

// combine returns ops[0] op ops[1] op ... op ops[k-1] in that order (the
// canonical order, correct for non-commutative operators), into a new
// buffer.
func combine(op mpirt.Handle, dt *mpirt.Datatype, ops [][]byte) ([]byte, error) {
	acc := append([]byte(nil), ops[0]...)
	tmp := make([]byte, len(acc))
	for _, x := range ops[1:] {
		copy(tmp, x)
		// tmp = acc op tmp: acc covers the lower ranks.
		if err := mpirt.ReducePacked(op, dt, acc, tmp); err != nil {
			return nil, err
		}
		acc, tmp = tmp, acc
	}
	return acc, nil
}

// reduceTo adds a reduction of every operand to root; the result (packed)
// is in *res at the root when the schedule ran.
func reduceTo(s *mpirt.Schedule, c *mpirt.Comm, a *mpirt.CollArgs, count, root int) *[]byte {
	mine := operand(s, a.Sbuf, a.Rbuf, count, a.Rdt)
	all := gatherOperands(s, c, mine, count, a.Rdt, root)
	res := new([]byte)
	if all != nil {
		s.Local(func() error {
			var err error
			*res, err = combine(a.Op, a.Rdt, all)
			return err
		})
	}
	return res
}

// schedReduce: every operand to the root, converted there, combined in
// rank order.
func schedReduce(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	s := c.NewSchedule()
	res := reduceTo(s, c, a, a.Rcount, a.Root)
	if c.Rank() == a.Root {
		s.Local(func() error { mpirt.StorePacked(a.Rbuf, a.Rcount, a.Rdt, *res); return nil })
	}
	return s, nil
}

// schedAllreduce: reduction at rank 0, then the result sent (and
// converted) to every process. Every process gets rank 0's value.
func schedAllreduce(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	counts := make([]int, c.Size())
	for i := range counts {
		counts[i] = a.Rcount
	}
	return reduceScatterCounts(c, a, a.Rcount, counts, true), nil
}

func schedReduceScatterBlock(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	counts := make([]int, c.Size())
	for i := range counts {
		counts[i] = a.Rcount
	}
	return reduceScatterCounts(c, a, a.Rcount*c.Size(), counts, false), nil
}

func schedReduceScatter(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	total := 0
	for _, k := range a.Rcounts {
		total += k
	}
	return reduceScatterCounts(c, a, total, a.Rcounts, false), nil
}

// reduceScatterCounts reduces total elements at rank 0 and sends rank i
// its block of counts[i] elements (the whole result when whole is set).
func reduceScatterCounts(c *mpirt.Comm, a *mpirt.CollArgs, total int, counts []int, whole bool) *mpirt.Schedule {
	s := c.NewSchedule()
	dt := a.Rdt
	res := reduceTo(s, c, a, total, 0)
	me := c.Rank()
	if me != 0 {
		buf := make([]byte, mpirt.PackedLen(counts[me], dt))
		s.RecvPacked(c, buf, counts[me], dt, 0)
		s.Round()
		s.Local(func() error { mpirt.StorePacked(a.Rbuf, counts[me], dt, buf); return nil })
		return s
	}
	// The blocks are cut when the result exists: sends read their buffer
	// when they run, so each send gets a buffer filled by a local step.
	off := 0
	for i, k := range counts {
		lo := off
		if whole {
			lo = 0
		}
		n := mpirt.PackedLen(k, dt)
		if i == 0 {
			s.Local(func() error { mpirt.StorePacked(a.Rbuf, k, dt, (*res)[lo:lo+n]); return nil })
		} else {
			blk := make([]byte, n)
			s.Local(func() error { copy(blk, (*res)[lo:lo+n]); return nil })
			s.Send(c, blk, i)
		}
		if !whole {
			off += n
		}
	}
	s.Round()
	return s
}

func schedScan(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return scan(c, a, false), nil
}

func schedExscan(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return scan(c, a, true), nil
}

// scan: every operand to rank 0, which computes each prefix in rank order
// and sends rank i its own (converted at i). Exscan leaves rank 0's
// receive buffer alone.
func scan(c *mpirt.Comm, a *mpirt.CollArgs, exclusive bool) *mpirt.Schedule {
	s := c.NewSchedule()
	n, me := c.Size(), c.Rank()
	count, dt := a.Rcount, a.Rdt
	mine := operand(s, a.Sbuf, a.Rbuf, count, dt)
	all := gatherOperands(s, c, mine, count, dt, 0)
	if me != 0 {
		buf := make([]byte, len(mine))
		s.RecvPacked(c, buf, count, dt, 0)
		s.Round()
		s.Local(func() error { mpirt.StorePacked(a.Rbuf, count, dt, buf); return nil })
		return s
	}
	prefixes := make([][]byte, n)
	for i := range prefixes {
		prefixes[i] = make([]byte, len(mine))
	}
	s.Local(func() error {
		for i := range n {
			hi := i + 1
			if exclusive {
				hi = i
			}
			if hi == 0 {
				continue
			}
			p, err := combine(a.Op, dt, all[:hi])
			if err != nil {
				return err
			}
			copy(prefixes[i], p)
		}
		return nil
	})
	for i := 1; i < n; i++ {
		s.Send(c, prefixes[i], i)
	}
	if !exclusive {
		s.Local(func() error { mpirt.StorePacked(a.Rbuf, count, dt, prefixes[0]); return nil })
	}
	s.Round()
	return s
}
