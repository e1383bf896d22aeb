package shm

import (
	"unsafe"

	mpirt "gmpi/runtime"
)

// The C express lane (capi/cshm.c) runs small blocking collectives of a
// communicator whose segment is set up without entering Go, on the same
// segment and the same per-rank state (the private block): the two paths
// may alternate call by call. It covers what is simple in C (contiguous
// predefined data in the small ring) and declines everything else to the
// Go path. When it must wait longer than a short spin it calls back into
// Go (ExpressInfo.Wait), which waits as the Go path does: event-driven,
// with point-to-point progress.

// ExpressInfo describes one communicator's segment to the express lane.
type ExpressInfo struct {
	Base       unsafe.Pointer // the mapping
	Rank, Size int
	// Layout: rank r's control block at r*CtlBytes (step, then at
	// BellOff its futex word and waiter count), its private block at
	// PrivOff + r*PrivBytes (SeenOff: its seen counters), its data at
	// DataOff + r*DataBytes (the small ring first).
	CtlBytes, BellOff, PrivOff, PrivBytes, SeenOff, DataOff, DataBytes int
	SmallSlot, SmallSlots                                              int
	// Ops: the operations the component takes (bit CollOp).
	Ops uint32
	// Yield: the host is oversubscribed (give the CPU away while polling).
	Yield bool
	// Wait waits until rank r (-1: every rank) has completed step s.
	Wait func(r int, s uint64)
}

// Ready, when set, is called when a communicator's segment is set up
// (collectively, in a collective call); Released when it is about to be
// unmapped. capi sets them to register communicators with the lane.
var (
	Ready    func(c *mpirt.Comm, info ExpressInfo)
	Released func(c *mpirt.Comm)
)

// Pending, when set, returns the completion of the nonblocking call the
// express lane started on c and has not completed (nil: none; capi/cshm.c
// runs small MPI_Iallreduce calls to their end in C). finish completes
// the call once every rank published its operand, and reports whether it
// is complete; it never waits. The call took its steps before any the
// module takes now, so the module completes it first: a blocking
// operation waits for it, a nonblocking one queues it ahead of itself.
var Pending func(c *mpirt.Comm) (finish func() bool)

// expressFirst completes the lane's pending call before a blocking
// operation uses the segment.
func (m *module) expressFirst() {
	if Pending == nil {
		return
	}
	if finish := Pending(m.c); finish != nil && !finish() {
		m.wait(finish)
	}
}

// nbExpress is the lane's pending call in the queue (startCall).
type nbExpress struct{ finish func() bool }

func (o *nbExpress) step() (done, moved bool) {
	if o.finish() {
		return true, true
	}
	return false, false
}

// settled: the lane published the operand when it started the call.
func (o *nbExpress) settled() bool { return true }

func (o *nbExpress) failed() error { return nil }

func (m *module) expressInfo() ExpressInfo {
	info := ExpressInfo{Base: m.seg.base(), Rank: m.me, Size: m.n,
		CtlBytes: ctlBytes, BellOff: lineBytes, PrivOff: privOff(m.n), PrivBytes: privBytes(m.n),
		SeenOff: int(unsafe.Sizeof(private{})), DataOff: dataOff(m.n), DataBytes: dataBytes,
		SmallSlot: smallSlot, SmallSlots: smallSlots, Yield: m.yield}
	for op, f := range m.ops {
		if f && !m.singleCopyOnly(mpirt.CollOp(op)) {
			info.Ops |= 1 << op
		}
	}
	info.Wait = func(r int, s uint64) {
		if r < 0 {
			m.waitAll(s)
		} else {
			m.waitRank(r, s)
		}
	}
	return info
}

// singleCopyOnly reports whether op runs single-copy at every size
// (GMPI_COLL_SHM_SINGLE_COPY=1): the lane, which runs the segment's
// protocol, must not take it then (a process whose datatypes the lane
// declines would run the other protocol).
func (m *module) singleCopyOnly(op mpirt.CollOp) bool {
	if !m.forceCMA || !m.cma {
		return false
	}
	switch op {
	case mpirt.CollGather, mpirt.CollAllgather, mpirt.CollScatter, mpirt.CollAlltoall:
		return true
	case mpirt.CollReduce, mpirt.CollAllreduce:
		return m.push
	}
	return false
}
