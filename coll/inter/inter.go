// Package inter is the collective component for intercommunicators. Each
// operation runs its local phases with the collectives of the hidden
// intracommunicator over the local group (Comm.LocalComm), whatever
// component serves that, and crosses between the groups once, leader to
// leader or root to leader, on the intercommunicator's collective
// context. It declines intracommunicators.
package inter

import (
	"unsafe"

	"gmpi/coll"
	mpirt "gmpi/runtime"
)

// Tags on the intercommunicator's collective context (the construction
// calls use negative tags there, so these never meet them).
const (
	tagBarrier = 1 + iota
	tagBcast
	tagReduce
	tagAllreduce
)

// Priority is the component's priority on intercommunicators.
const Priority = 40

// GMPI_COLL_INTER_PRIORITY overrides Priority (the selector reads it).
var _ = coll.PriorityParam("inter", Priority)

// Component is the intercommunicator component.
type Component struct{}

var _ coll.Component = Component{}

func (Component) Name() string { return "inter" }

// Describe implements coll.Component.
func (Component) Describe() coll.Description {
	return coll.Description{Name: "inter", Priority: Priority, Serves: "intercommunicators",
		Ops: coll.OneEach(algorithmNames, "")}
}

// algorithmNames names the algorithm of each operation (SchedFuncs):
// "leaders" when the two groups' leaders exchange on behalf of their
// group, "direct" when processes address the remote group themselves.
var algorithmNames = [mpirt.NumCollOps]string{
	mpirt.CollBarrier: "leaders", mpirt.CollBcast: "root_to_leader_bcast",
	mpirt.CollGather: "direct", mpirt.CollGatherv: "direct",
	mpirt.CollScatter: "direct", mpirt.CollScatterv: "direct",
	mpirt.CollAllgather: "direct", mpirt.CollAllgatherv: "direct",
	mpirt.CollAlltoall: "direct", mpirt.CollAlltoallv: "direct", mpirt.CollAlltoallw: "direct",
	mpirt.CollReduce: "leaders", mpirt.CollAllreduce: "leaders",
	mpirt.CollReduceScatter: "leaders", mpirt.CollReduceScatterBlock: "leaders",
}

func (Component) Query(c *mpirt.Comm) (int, coll.Module) {
	if !c.IsInter() || c.LocalComm() == nil {
		return -1, nil
	}
	return Priority, module{}
}

type module struct{}

func (module) Enable(c *mpirt.Comm, t *mpirt.CollTable) error {
	t.Barrier = Barrier
	t.Bcast = Bcast
	t.Reduce = Reduce
	t.Allreduce = Allreduce
	t.Sched = SchedFuncs
	return nil
}

// Barrier: a barrier in each group, the leaders swap a message (so each
// knows every process of the other group has entered), and a second
// local barrier holds the other processes until their leader has heard
// from the other group.
func Barrier(c *mpirt.Comm) error {
	l := c.LocalComm()
	if err := l.Coll.Barrier(l); err != nil {
		return err
	}
	if l.Rank() == 0 {
		r, err := c.CollIsend(nil, 0, tagBarrier)
		if err != nil {
			return err
		}
		if err := c.CollRecv(nil, 0, tagBarrier); err != nil {
			return err
		}
		if err := c.World().Wait(r); err != nil {
			return err
		}
	}
	return l.Coll.Barrier(l)
}

// Bcast: the root (MPI_ROOT) sends to the leader of the other group,
// which broadcasts in its group; the root's other processes (root
// MPI_PROC_NULL) do nothing.
func Bcast(c *mpirt.Comm, buf unsafe.Pointer, count int, dt *mpirt.Datatype, root int) error {
	switch root {
	case mpirt.ProcNull:
		return nil
	case mpirt.RootRank:
		return c.CollSendTyped(buf, count, dt, 0, tagBcast)
	}
	l := c.LocalComm()
	if l.Rank() == 0 {
		if err := c.CollRecvTyped(buf, count, dt, root, tagBcast); err != nil {
			return err
		}
	}
	if l.Size() == 1 {
		return nil
	}
	return l.Coll.Bcast(l, buf, count, dt, 0)
}

// Reduce: the group without the root reduces to its leader, which sends
// the result to the root (MPI_ROOT).
func Reduce(c *mpirt.Comm, sbuf, rbuf unsafe.Pointer, count int, dt *mpirt.Datatype, op mpirt.Handle, root int) error {
	switch root {
	case mpirt.ProcNull:
		return nil
	case mpirt.RootRank:
		return c.CollRecvTyped(rbuf, count, dt, 0, tagReduce)
	}
	l := c.LocalComm()
	var tmp unsafe.Pointer
	if l.Rank() == 0 {
		tmp = mpirt.TempBuffer(count, dt)
	}
	if err := l.Coll.Reduce(l, sbuf, tmp, count, dt, op, 0); err != nil {
		return err
	}
	if l.Rank() != 0 {
		return nil
	}
	return c.CollSendTyped(tmp, count, dt, root, tagReduce)
}

// Allreduce: each group reduces to its leader, the leaders swap their
// results, and each leader broadcasts the other group's result in its
// own group.
func Allreduce(c *mpirt.Comm, sbuf, rbuf unsafe.Pointer, count int, dt *mpirt.Datatype, op mpirt.Handle) error {
	l := c.LocalComm()
	var tmp unsafe.Pointer
	if l.Rank() == 0 {
		tmp = mpirt.TempBuffer(count, dt)
	}
	if err := l.Coll.Reduce(l, sbuf, tmp, count, dt, op, 0); err != nil {
		return err
	}
	if l.Rank() == 0 {
		r, err := c.CollIsendTyped(tmp, count, dt, 0, tagAllreduce)
		if err != nil {
			return err
		}
		if err := c.CollRecvTyped(rbuf, count, dt, 0, tagAllreduce); err != nil {
			return err
		}
		if err := c.World().Wait(r); err != nil {
			return err
		}
	}
	if l.Size() == 1 {
		return nil
	}
	return l.Coll.Bcast(l, rbuf, count, dt, 0)
}
