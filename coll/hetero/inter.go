package hetero

import (
	"unsafe"

	"gmpi/coll/inter"
	mpirt "gmpi/runtime"
)

// Intercommunicators whose processes differ in data representation (the
// two groups, or the members of one group). coll/inter already moves
// typed data wherever it addresses the other group directly (gather,
// scatter, allgather and alltoall families: each block is sent and
// received typed, so the receiver converts it), its barrier moves no
// data, and its blocking bcast, reduce and allreduce cross between the
// groups typed and run their local phases with the local group's own
// collectives (this component's when that group is itself mixed): those
// are used as they are. Its schedules of bcast, reduce, allreduce and
// reduce_scatter(_block) forward packed bytes as they are, across and
// within the groups; here they are composed instead of typed messages
// between the groups and the local group's own schedules (inlined), so
// every hop converts and every reduction combines operands converted to
// the combining process's representation, in the order of a homogeneous
// job (rank order within each group).

// interModule serves intercommunicators of mixed representations.
type interModule struct{}

// interSchedFuncs are coll/inter's schedules with those that forward
// bytes replaced.
var interSchedFuncs = func() [mpirt.NumCollOps]mpirt.SchedFunc {
	t := inter.SchedFuncs
	t[mpirt.CollBcast] = schedInterBcast
	t[mpirt.CollReduce] = schedInterReduce
	t[mpirt.CollAllreduce] = schedInterAllreduce
	t[mpirt.CollReduceScatter] = schedInterReduceScatter
	t[mpirt.CollReduceScatterBlock] = schedInterReduceScatterBlock
	return t
}()

func (interModule) Enable(c *mpirt.Comm, t *mpirt.CollTable) error {
	t.Barrier, t.Bcast, t.Reduce, t.Allreduce = inter.Barrier, inter.Bcast, inter.Reduce, inter.Allreduce
	t.Sched = interSchedFuncs
	t.Blocking = [mpirt.NumCollOps]mpirt.BlockingFunc{}
	t.Start = [mpirt.NumCollOps]mpirt.StartFunc{}
	return nil
}

// inline appends the schedule of op over the local group l, built by the
// component that serves l, to s.
func inline(s *mpirt.Schedule, l *mpirt.Comm, op mpirt.CollOp, a *mpirt.CollArgs) error {
	ch, err := l.CollSchedule(op, a)
	if err != nil {
		return err
	}
	s.Inline(ch)
	return nil
}

// groupReduce adds the reduction of sbuf (count elements of dt) over the
// local group l to its leader and returns the memory that holds the
// result there when the step ran (nil at the other processes).
func groupReduce(s *mpirt.Schedule, l *mpirt.Comm, sbuf unsafe.Pointer, count int, dt *mpirt.Datatype, op mpirt.Handle) (unsafe.Pointer, error) {
	if l.Size() == 1 {
		return sbuf, nil
	}
	var res unsafe.Pointer
	if l.Rank() == 0 {
		res = mpirt.TempBuffer(count, dt)
	}
	return res, inline(s, l, mpirt.CollReduce, &mpirt.CollArgs{Sbuf: sbuf, Rbuf: res, Rcount: count, Rdt: dt, Op: op, Root: 0})
}

// groupBcast adds the broadcast of buf from the leader over l.
func groupBcast(s *mpirt.Schedule, l *mpirt.Comm, buf unsafe.Pointer, count int, dt *mpirt.Datatype) error {
	if l.Size() == 1 {
		return nil
	}
	return inline(s, l, mpirt.CollBcast, &mpirt.CollArgs{Rbuf: buf, Rcount: count, Rdt: dt, Root: 0})
}

// schedInterBcast: the root sends the typed data to the other group's
// leader, which receives (converts) it and broadcasts it in its group.
func schedInterBcast(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	s := c.NewSchedule()
	switch a.Root {
	case mpirt.ProcNull:
	case mpirt.RootRank:
		s.SendTyped(c, a.Rbuf, a.Rcount, a.Rdt, 0)
	default:
		l := c.LocalComm()
		if l.Rank() == 0 {
			s.RecvTyped(c, a.Rbuf, a.Rcount, a.Rdt, a.Root)
		}
		if err := groupBcast(s, l, a.Rbuf, a.Rcount, a.Rdt); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// schedInterReduce: the group without the root reduces to its leader,
// which sends the result typed to the root.
func schedInterReduce(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	s := c.NewSchedule()
	switch a.Root {
	case mpirt.ProcNull:
	case mpirt.RootRank:
		s.RecvTyped(c, a.Rbuf, a.Rcount, a.Rdt, 0)
	default:
		l := c.LocalComm()
		res, err := groupReduce(s, l, a.Sbuf, a.Rcount, a.Rdt, a.Op)
		if err != nil {
			return nil, err
		}
		if l.Rank() == 0 {
			s.SendTyped(c, res, a.Rcount, a.Rdt, a.Root)
		}
	}
	return s, nil
}

// schedInterAllreduce: each group reduces to its leader, the leaders
// swap their results typed, and each broadcasts the other group's result
// in its group.
func schedInterAllreduce(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	s := c.NewSchedule()
	l := c.LocalComm()
	res, err := groupReduce(s, l, a.Sbuf, a.Rcount, a.Rdt, a.Op)
	if err != nil {
		return nil, err
	}
	if l.Rank() == 0 {
		s.SendTyped(c, res, a.Rcount, a.Rdt, 0)
		s.RecvTyped(c, a.Rbuf, a.Rcount, a.Rdt, 0)
	}
	if err := groupBcast(s, l, a.Rbuf, a.Rcount, a.Rdt); err != nil {
		return nil, err
	}
	return s, nil
}

// schedInterReduceScatterBlock: MPI_Reduce_scatter_block with Rcount
// elements for each process of the local group.
func schedInterReduceScatterBlock(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	counts := make([]int, c.LocalComm().Size())
	for i := range counts {
		counts[i] = a.Rcount
	}
	return interReduceScatter(c, a, counts)
}

// schedInterReduceScatter: MPI_Reduce_scatter with the local group's
// counts (both groups' totals agree).
func schedInterReduceScatter(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return interReduceScatter(c, a, a.Rcounts)
}

// interReduceScatter: each group reduces its vector to its leader, the
// leaders swap their results typed, and each scatters the other group's
// result over its group.
func interReduceScatter(c *mpirt.Comm, a *mpirt.CollArgs, counts []int) (*mpirt.Schedule, error) {
	s := c.NewSchedule()
	l := c.LocalComm()
	dt := a.Rdt
	displs := make([]int, len(counts))
	total := 0
	for i, k := range counts {
		displs[i] = total
		total += k
	}
	res, err := groupReduce(s, l, a.Sbuf, total, dt, a.Op)
	if err != nil {
		return nil, err
	}
	if l.Size() == 1 {
		s.SendTyped(c, res, total, dt, 0)
		s.RecvTyped(c, a.Rbuf, total, dt, 0)
		return s, nil
	}
	var other unsafe.Pointer
	if l.Rank() == 0 {
		other = mpirt.TempBuffer(total, dt)
		s.SendTyped(c, res, total, dt, 0)
		s.RecvTyped(c, other, total, dt, 0)
	}
	err = inline(s, l, mpirt.CollScatterv, &mpirt.CollArgs{Sbuf: other, Scounts: counts, Sdispls: displs, Sdt: dt,
		Rbuf: a.Rbuf, Rcount: counts[l.Rank()], Rdt: dt, Root: 0})
	if err != nil {
		return nil, err
	}
	return s, nil
}
