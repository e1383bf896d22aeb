package main

// #include <stdlib.h>
// #include "express.h"
import "C"

import (
	"sync/atomic"
	"unsafe"

	mpirt "gmpi/runtime"
	"gmpi/runtime/param"
)

// The express lane (express.h): this side fills its table when MPI starts,
// registers communicators as the Go path first sends on them, and turns it
// off before anything it points to goes away.

// startExpress turns the express lane on for a process below
// MPI_THREAD_MULTIPLE with shared-memory peers, unless GMPI_EXPRESS=0.
func startExpress(level int32) {
	x := &C.gmpi_express
	// The runtime counts its queued frames where the C side reads them,
	// whether or not the lane is used.
	world.SetOutboxWord((*atomic.Int32)(unsafe.Pointer(&x.outbox)))
	world.SetQueuedWord((*int32)(unsafe.Pointer(&x.queued)))
	// Predefined datatypes (the collective lane, cshm.c, uses the table
	// too) with their size in the handle (0x4c00SSII)
	// that are plain contiguous bytes.
	for i := 0; i < 256; i++ {
		for size := 1; size < 256; size++ {
			h := mpirt.Handle(0x4c000000 | size<<8 | i)
			if dt, ok := mpirt.PredefinedDatatype(h); ok && dt.IsContiguous() && dt.Size() == size &&
				dt.Extent() == size && dt.TrueLB() == 0 {
				x.dtype[i] = C.int32_t(int32(h))
				x.dsize[i] = C.uint32_t(size)
			}
		}
	}
	if level >= 3 || shmDevice == nil || !param.Express.Get(world.Params()) {
		return
	}
	n := world.Size()
	peers := unsafe.Slice((*C.struct_gmpi_express_peer)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.struct_gmpi_express_peer{})))), n)
	var rxs []*C.struct_gmpi_shm_rx
	for r := range peers {
		if tx := shmDevice.ExpressTx(r); tx != nil && r != world.Rank() {
			peers[r].tx = (*C.struct_gmpi_shm_tx)(tx)
			peers[r].rx = (*C.struct_gmpi_shm_rx)(shmDevice.ExpressRx(r))
			peers[r].eager = C.uint64_t(world.EagerLimit(r))
			rxs = append(rxs, peers[r].rx)
		}
	}
	x.peers = &peers[0]
	x.nrx = C.int32_t(len(rxs))
	if len(rxs) > 0 {
		p := unsafe.Slice((**C.struct_gmpi_shm_rx)(C.calloc(C.size_t(len(rxs)), C.size_t(unsafe.Sizeof(rxs[0])))), len(rxs))
		copy(p, rxs)
		x.rxs = &p[0]
	}
	// A receive polls about as long as the Go path does before it
	// starts timing its spin; on an oversubscribed host 16 times,
	// yielding the CPU between polls as the Go path does.
	x.spin = C.int32_t(16 * world.SpinPolls())
	x.yield = 0
	if world.Yields() {
		x.yield = 1
	}
	x.rank = C.int32_t(world.Rank())
	x.eager_kind = C.uint8_t(mpirt.FrameEager)
	// A goroutine of the engine that communicates (MPI_Comm_idup) would
	// share the rings with the lane: the lane stops for good then.
	world.OnConcurrent = stopExpress
	x.on = 1
}

// stopExpress turns the lane off (MPI_Finalize, before the devices close).
func stopExpress() {
	x := &C.gmpi_express
	x.on = 0
	expressWasOn = false
	if x.peers != nil {
		C.free(unsafe.Pointer(x.peers))
		x.peers = nil
	}
	if x.rxs != nil {
		C.free(unsafe.Pointer(x.rxs))
		x.rxs, x.nrx = nil, 0
	}
}

// expressComm registers c with the lane after the Go path sent on it, if
// it is an intracommunicator in world order and not registered yet. Its
// slot is cleared when c is freed.
func expressComm(c *mpirt.Comm) {
	x := &C.gmpi_express
	h := int32(c.Handle())
	slot := &x.comms[uint32(h)%C.GMPI_EXPRESS_COMMS]
	if x.on == 0 || int32(slot.handle) == h {
		return
	}
	ok := c.Cached("express", func() (uintptr, func()) {
		if !c.InWorldOrder() {
			return 0, nil
		}
		return 1, func() {
			if int32(slot.handle) == h {
				slot.handle = 0
			}
		}
	})
	if ok == 1 {
		*slot = C.struct_gmpi_express_comm{handle: C.int32_t(h), ctx: C.uint32_t(c.Context()),
			rank: C.int32_t(c.Rank()), size: C.int32_t(c.Size())}
	}
}
