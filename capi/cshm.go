package main

// #include "cshm.h"
import "C"

import (
	"sync"
	"sync/atomic"
	"unsafe"

	collshm "gmpi/coll/shm"
	mpirt "gmpi/runtime"
	"gmpi/runtime/param"
)

// The collective express lane (cshm.h): coll/shm tells this side when a
// communicator's segment is set up (collshm.Ready) and before it goes
// away (collshm.Released); this side fills or clears the communicator's
// slot of the C table and keeps the Go wait the lane calls back into.

// cshm.h numbers the operations as mpirt.CollOp does (checked here at
// compile time: a constant index out of range does not compile).
var (
	_ = [1]int{}[int(C.GMPI_COLL_BARRIER)-int(mpirt.CollBarrier)]
	_ = [1]int{}[int(C.GMPI_COLL_BCAST)-int(mpirt.CollBcast)]
	_ = [1]int{}[int(C.GMPI_COLL_GATHER)-int(mpirt.CollGather)]
	_ = [1]int{}[int(C.GMPI_COLL_SCATTER)-int(mpirt.CollScatter)]
	_ = [1]int{}[int(C.GMPI_COLL_ALLGATHER)-int(mpirt.CollAllgather)]
	_ = [1]int{}[int(C.GMPI_COLL_ALLTOALL)-int(mpirt.CollAlltoall)]
	_ = [1]int{}[int(C.GMPI_COLL_REDUCE)-int(mpirt.CollReduce)]
	_ = [1]int{}[int(C.GMPI_COLL_ALLREDUCE)-int(mpirt.CollAllreduce)]
	_ = [1]int{}[int(C.GMPI_COLL_SCAN)-int(mpirt.CollScan)]
	_ = [1]int{}[int(C.GMPI_COLL_REDUCE_SCATTER_BLOCK)-int(mpirt.CollReduceScatterBlock)]
)

// cshmWaits holds each registered communicator's wait, by handle.
var cshmWaits sync.Map // int32 -> func(int, uint64)

func init() {
	collshm.Ready = cshmRegister
	collshm.Released = cshmRelease
	collshm.Busy = cshmBusy
	collshm.Pending = cshmPending
}

// cshmPending is coll/shm's Pending: the completion of the lane's
// nonblocking call on c that is not complete (cshm.h, gmpi_cshm_nb),
// read from C memory without a call into C.
func cshmPending(c *mpirt.Comm) func() bool {
	h := int32(c.Handle())
	nb := &C.gmpi_cshm.nb[uint32(h)%C.GMPI_CSHM_COMMS]
	seq := atomic.LoadUint64((*uint64)(unsafe.Pointer(&nb.seq)))
	if seq == 0 || int32(nb.comm) != h || atomic.LoadUint64((*uint64)(unsafe.Pointer(&nb.done))) >= seq {
		return nil
	}
	return func() bool { return C.gmpi_cshm_nb_finish(C.int(h), C.uint64_t(seq)) != 0 }
}

// cshmCall is the lane's nonblocking call seq of communicator comm as a
// polled collective, once a Go request function has its handle
// (expressRequest).
type cshmCall struct {
	comm C.int
	seq  C.uint64_t
}

func (x *cshmCall) Advance() (done, moved bool, err error) {
	switch C.gmpi_cshm_nb_finish(x.comm, x.seq) {
	case 0:
		return false, false, nil
	case 1:
		return true, true, nil
	}
	return true, true, x.gone()
}

// Settled: the lane published the operand when it started the call.
func (x *cshmCall) Settled() bool { return true }

func (x *cshmCall) gone() error {
	return mpirt.Errorf(mpirt.ErrIntern, "MPI_Iallreduce",
		"communicator 0x%08x: its shared segment went away before the call completed", uint32(x.comm))
}

// cshmRequest is the Go request of the lane's call seq of communicator
// comm, named by handle h.
func cshmRequest(comm int32, seq uint64, h mpirt.Handle) *mpirt.Request {
	x := &cshmCall{comm: C.int(comm), seq: C.uint64_t(seq)}
	c := world.Comm(mpirt.Handle(comm))
	switch C.gmpi_cshm_nb_finish(x.comm, x.seq) {
	case 1:
		return world.ExpressColl(c, nil, h)
	case 0:
		if c != nil {
			return c.StartPolled(x)
		}
	}
	return world.ExpressColl(c, x.gone(), h)
}

// cshmBusy makes the lane decline c while coll/shm has nonblocking
// operations queued on its segment (they take steps first).
func cshmBusy(c *mpirt.Comm, busy bool) {
	x := &C.gmpi_cshm
	h := int32(c.Handle())
	slot := &x.comms[uint32(h)%C.GMPI_CSHM_COMMS]
	if int32(slot.handle) != h {
		return
	}
	b := int32(0)
	if busy {
		b = 1
	}
	atomic.StoreInt32((*int32)(unsafe.Pointer(&slot.busy)), b)
}

// startCshm turns the lane on (MPI_Init), unless GMPI_EXPRESS=0.
func startCshm() {
	x := &C.gmpi_cshm
	if !param.Express.Get(world.Params()) {
		return
	}
	x.spin = C.int32_t(16 * world.SpinPolls())
	if param.AsyncProgress.Get(world.Params()) {
		x.async = 1
	}
	x.on = 1
}

// stopCshm turns the lane off (MPI_Finalize).
func stopCshm() {
	x := &C.gmpi_cshm
	x.on = 0
	for i := range x.comms {
		x.comms[i].handle = 0
	}
}

func cshmRegister(c *mpirt.Comm, info collshm.ExpressInfo) {
	x := &C.gmpi_cshm
	h := int32(c.Handle())
	if world == nil || c.World() != world || h == int32(mpirt.HandleCommNull) || h == 0 {
		return
	}
	slot := &x.comms[uint32(h)%C.GMPI_CSHM_COMMS]
	if slot.handle != 0 {
		return // taken by another communicator: this one stays in Go
	}
	cshmWaits.Store(h, info.Wait)
	yield := C.int32_t(0)
	if info.Yield {
		yield = 1
	}
	*slot = C.struct_gmpi_cshm_comm{handle: C.int32_t(h), rank: C.int32_t(info.Rank), size: C.int32_t(info.Size),
		ops: C.uint32_t(info.Ops), yield: yield, base: (*C.uint8_t)(info.Base),
		ctl_bytes: C.int64_t(info.CtlBytes), bell_off: C.int64_t(info.BellOff), priv_off: C.int64_t(info.PrivOff),
		priv_bytes: C.int64_t(info.PrivBytes), seen_off: C.int64_t(info.SeenOff), data_off: C.int64_t(info.DataOff),
		data_bytes: C.int64_t(info.DataBytes), small_slot: C.int64_t(info.SmallSlot), small_slots: C.int64_t(info.SmallSlots)}
}

func cshmRelease(c *mpirt.Comm) {
	x := &C.gmpi_cshm
	h := int32(c.Handle())
	slot := &x.comms[uint32(h)%C.GMPI_CSHM_COMMS]
	if int32(slot.handle) == h && unsafe.Pointer(slot.base) != nil {
		slot.handle = 0
		cshmWaits.Delete(h)
	}
}

// gmpi_cshm_wait is the lane's wait: until rank r (-1: every rank) of
// communicator h has completed step s, as coll/shm waits.
//
//export gmpi_cshm_wait
func gmpi_cshm_wait(h, r C.int, s C.uint64_t) {
	defer func() {
		if p := recover(); p != nil {
			panicked("a collective", p)
		}
		bgExit()
	}()
	bgEnter()
	if f, ok := cshmWaits.Load(int32(h)); ok {
		f.(func(int, uint64))(int(r), uint64(s))
	}
}
