package inter

import (
	"unsafe"

	"gmpi/coll/basic"
	mpirt "gmpi/runtime"
)

// Intercommunicator collectives as schedules (MPI 4.0 §6.2.2): data moves
// from one group to the other. Rooted operations take MPI_ROOT at the
// root, MPI_PROC_NULL at the root's other processes and the root's rank
// in the remote group at the processes of the other group. Local phases
// run on the hidden intracommunicator over the local group (basic's
// builders), on the same schedule and tag. Scan and exscan are not
// defined on intercommunicators.

// SchedFuncs is the component's schedule builder per operation.
var SchedFuncs = [mpirt.NumCollOps]mpirt.SchedFunc{
	mpirt.CollBarrier:            SchedBarrier,
	mpirt.CollBcast:              SchedBcast,
	mpirt.CollGather:             SchedGather,
	mpirt.CollGatherv:            SchedGatherv,
	mpirt.CollScatter:            SchedScatter,
	mpirt.CollScatterv:           SchedScatterv,
	mpirt.CollAllgather:          SchedAllgather,
	mpirt.CollAllgatherv:         SchedAllgatherv,
	mpirt.CollAlltoall:           SchedAlltoall,
	mpirt.CollAlltoallv:          SchedAlltoallv,
	mpirt.CollAlltoallw:          SchedAlltoallw,
	mpirt.CollReduce:             SchedReduce,
	mpirt.CollAllreduce:          SchedAllreduce,
	mpirt.CollReduceScatter:      SchedReduceScatter,
	mpirt.CollReduceScatterBlock: SchedReduceScatterBlock,
}

// SchedBarrier: a barrier in each group, the leaders swap an empty
// message, and a second local barrier releases the others.
func SchedBarrier(c *mpirt.Comm, _ *mpirt.CollArgs) (*mpirt.Schedule, error) {
	s := c.NewSchedule()
	l := c.LocalComm()
	basic.AppendBarrier(s, l)
	if l.Rank() == 0 {
		s.Send(c, nil, 0)
		s.Recv(c, nil, 0)
		s.Round()
	}
	basic.AppendBarrier(s, l)
	return s, nil
}

// SchedBcast: the root sends the packed data to the other group's
// leader, which broadcasts it in its group.
func SchedBcast(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	s := c.NewSchedule()
	switch a.Root {
	case mpirt.ProcNull:
	case mpirt.RootRank:
		s.SendTyped(c, a.Rbuf, a.Rcount, a.Rdt, 0)
	default:
		l := c.LocalComm()
		k := mpirt.NewPacked(a.Rbuf, a.Rcount, a.Rdt)
		if l.Rank() == 0 {
			s.Recv(c, k.Data, a.Root)
			s.Round()
		}
		basic.AppendBcast(s, l, k.Data, 0)
		s.Local(k.Store)
	}
	return s, nil
}

type vec struct {
	count          int
	counts, displs []int
}

func (v vec) block(p unsafe.Pointer, i int, dt *mpirt.Datatype) (unsafe.Pointer, int) {
	if v.counts == nil {
		return basic.BlockAt(p, i*v.count, dt), v.count
	}
	return basic.Block(p, v.displs[i], v.counts[i], dt), v.counts[i]
}

// SchedGather: every process of the other group sends its block to the
// root, which receives block i from remote rank i (one round).
func SchedGather(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return gather(c, a, vec{count: a.Rcount}), nil
}

// SchedGatherv is SchedGather with per-rank counts and displacements.
func SchedGatherv(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return gather(c, a, vec{counts: a.Rcounts, displs: a.Rdispls}), nil
}

func gather(c *mpirt.Comm, a *mpirt.CollArgs, v vec) *mpirt.Schedule {
	s := c.NewSchedule()
	switch a.Root {
	case mpirt.ProcNull:
	case mpirt.RootRank:
		for i := range c.RemoteSize() {
			p, k := v.block(a.Rbuf, i, a.Rdt)
			s.RecvTyped(c, p, k, a.Rdt, i)
		}
	default:
		s.SendTyped(c, a.Sbuf, a.Scount, a.Sdt, a.Root)
	}
	return s
}

// SchedScatter: the root sends block i to remote rank i (one round).
func SchedScatter(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return scatter(c, a, vec{count: a.Scount}), nil
}

// SchedScatterv is SchedScatter with per-rank counts and displacements.
func SchedScatterv(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return scatter(c, a, vec{counts: a.Scounts, displs: a.Sdispls}), nil
}

func scatter(c *mpirt.Comm, a *mpirt.CollArgs, v vec) *mpirt.Schedule {
	s := c.NewSchedule()
	switch a.Root {
	case mpirt.ProcNull:
	case mpirt.RootRank:
		for i := range c.RemoteSize() {
			p, k := v.block(a.Sbuf, i, a.Sdt)
			s.SendTyped(c, p, k, a.Sdt, i)
		}
	default:
		s.RecvTyped(c, a.Rbuf, a.Rcount, a.Rdt, a.Root)
	}
	return s
}

// SchedAllgather: every process sends its block to every process of the
// other group and receives remote rank i's block into block i (one round).
func SchedAllgather(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return allgather(c, a, vec{count: a.Rcount}), nil
}

// SchedAllgatherv is SchedAllgather with per-rank counts and displacements.
func SchedAllgatherv(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return allgather(c, a, vec{counts: a.Rcounts, displs: a.Rdispls}), nil
}

func allgather(c *mpirt.Comm, a *mpirt.CollArgs, v vec) *mpirt.Schedule {
	s := c.NewSchedule()
	n, me := c.RemoteSize(), c.Rank()
	for d := range n {
		i := (me + d) % n
		p, k := v.block(a.Rbuf, i, a.Rdt)
		s.RecvTyped(c, p, k, a.Rdt, i)
		s.SendTyped(c, a.Sbuf, a.Scount, a.Sdt, i)
	}
	return s
}

// SchedAlltoall: block j of the send buffer goes to remote rank j, block
// i of the receive buffer comes from remote rank i (one round).
func SchedAlltoall(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return alltoall(c, a, func(j int) (unsafe.Pointer, int, *mpirt.Datatype, unsafe.Pointer, int, *mpirt.Datatype) {
		return basic.BlockAt(a.Sbuf, j*a.Scount, a.Sdt), a.Scount, a.Sdt, basic.BlockAt(a.Rbuf, j*a.Rcount, a.Rdt), a.Rcount, a.Rdt
	}), nil
}

// SchedAlltoallv is SchedAlltoall with per-rank counts and displacements.
func SchedAlltoallv(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return alltoall(c, a, func(j int) (unsafe.Pointer, int, *mpirt.Datatype, unsafe.Pointer, int, *mpirt.Datatype) {
		return basic.Block(a.Sbuf, a.Sdispls[j], a.Scounts[j], a.Sdt), a.Scounts[j], a.Sdt, basic.Block(a.Rbuf, a.Rdispls[j], a.Rcounts[j], a.Rdt), a.Rcounts[j], a.Rdt
	}), nil
}

// SchedAlltoallw is SchedAlltoallv with per-rank types and byte displacements.
func SchedAlltoallw(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return alltoall(c, a, func(j int) (unsafe.Pointer, int, *mpirt.Datatype, unsafe.Pointer, int, *mpirt.Datatype) {
		return basic.ByteBlock(a.Sbuf, a.Sdispls[j], a.Scounts[j]), a.Scounts[j], a.Sdts[j], basic.ByteBlock(a.Rbuf, a.Rdispls[j], a.Rcounts[j]), a.Rcounts[j], a.Rdts[j]
	}), nil
}

func alltoall(c *mpirt.Comm, a *mpirt.CollArgs, blocks func(j int) (sp unsafe.Pointer, sk int, sdt *mpirt.Datatype, rp unsafe.Pointer, rk int, rdt *mpirt.Datatype)) *mpirt.Schedule {
	s := c.NewSchedule()
	n, me := c.RemoteSize(), c.Rank()
	for d := range n {
		j := (me + d) % n
		sp, sk, sdt, rp, rk, rdt := blocks(j)
		s.RecvTyped(c, rp, rk, rdt, j)
		s.SendTyped(c, sp, sk, sdt, j)
	}
	return s
}

// localReduce adds the reduction of this group's sbuf (count elements)
// into a packed buffer at the local leader, which it returns (nil
// elsewhere).
func localReduce(s *mpirt.Schedule, l *mpirt.Comm, sbuf unsafe.Pointer, count int, dt *mpirt.Datatype, op mpirt.Handle) []byte {
	acc := make([]byte, mpirt.PackedLen(count, dt))
	s.Local(func() error { mpirt.LoadPacked(acc, sbuf, count, dt); return nil })
	basic.AppendReduceToZero(s, l, acc, dt, op)
	if l.Rank() != 0 {
		return nil
	}
	return acc
}

// SchedReduce: the group without the root reduces to its leader, which
// sends the result to the root.
func SchedReduce(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	s := c.NewSchedule()
	count, dt := a.Rcount, a.Rdt
	switch a.Root {
	case mpirt.ProcNull:
	case mpirt.RootRank:
		buf := make([]byte, mpirt.PackedLen(count, dt))
		s.Recv(c, buf, 0)
		s.Round()
		s.Local(func() error { mpirt.StorePacked(a.Rbuf, count, dt, buf); return nil })
	default:
		if acc := localReduce(s, c.LocalComm(), a.Sbuf, count, dt, a.Op); acc != nil {
			s.Send(c, acc, a.Root)
		}
	}
	return s, nil
}

// exchangeLeaders adds the leaders' swap of their groups' results: mine
// (count elements here) goes out, the other group's (theirs elements)
// comes back; the returned buffer holds it at the leader and is then
// broadcast over the local group.
func exchangeLeaders(s *mpirt.Schedule, c *mpirt.Comm, mine []byte, theirs int, dt *mpirt.Datatype) []byte {
	l := c.LocalComm()
	other := make([]byte, mpirt.PackedLen(theirs, dt))
	if l.Rank() == 0 {
		s.Send(c, mine, 0)
		s.Recv(c, other, 0)
		s.Round()
	}
	return other
}

// SchedAllreduce: each group reduces to its leader, the leaders swap
// their results, and each leader broadcasts the other group's result.
func SchedAllreduce(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	s := c.NewSchedule()
	count, dt := a.Rcount, a.Rdt
	l := c.LocalComm()
	acc := localReduce(s, l, a.Sbuf, count, dt, a.Op)
	other := exchangeLeaders(s, c, acc, count, dt)
	basic.AppendBcast(s, l, other, 0)
	s.Local(func() error { mpirt.StorePacked(a.Rbuf, count, dt, other); return nil })
	return s, nil
}

// SchedReduceScatterBlock: each group reduces its vector (Rcount
// elements per local process) to its leader, the leaders swap, and each
// leader scatters the other group's result over its group.
func SchedReduceScatterBlock(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	counts := make([]int, c.LocalComm().Size())
	for i := range counts {
		counts[i] = a.Rcount
	}
	return reduceScatter(c, a, counts), nil
}

// SchedReduceScatter is SchedReduceScatterBlock with the local
// recvcounts (both groups' totals must agree).
func SchedReduceScatter(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return reduceScatter(c, a, a.Rcounts), nil
}

func reduceScatter(c *mpirt.Comm, a *mpirt.CollArgs, counts []int) *mpirt.Schedule {
	s := c.NewSchedule()
	dt := a.Rdt
	total := 0
	for _, k := range counts {
		total += k
	}
	l := c.LocalComm()
	acc := localReduce(s, l, a.Sbuf, total, dt, a.Op)
	other := exchangeLeaders(s, c, acc, total, dt)
	basic.AppendScatterPacked(s, l, other, counts, dt, a.Rbuf, 0)
	return s
}
