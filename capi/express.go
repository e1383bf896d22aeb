package main

// #include <stdlib.h>
// #include "express.h"
import "C"

import (
	"sync/atomic"
	"unsafe"

	"gmpi/devices/tcp"
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
	if world.Heterogeneous() {
		// A packed buffer sent between machines of several
		// representations loses or keeps its representation header
		// (runtime/hpack.go): MPI_PACKED takes the Go path.
		x.dtype[mpirt.TypePacked&0xff] = 0
	}
	if level >= 3 || !param.Express.Get(world.Params()) {
		return
	}
	x.rma_on = 1
	if shmDevice == nil && vmpiDevice == nil {
		return
	}
	n := world.Size()
	peers := unsafe.Slice((*C.struct_gmpi_express_peer)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.struct_gmpi_express_peer{})))), n)
	if vmpiDevice != nil {
		// vMPI peers (express.h): their vendor ranks, and the way back.
		byWorld, byVendor := vmpiDevice.VendorRanks()
		for r, vr := range byWorld {
			if vr >= 0 && r != world.Rank() {
				peers[r].vrank1 = C.int32_t(vr + 1)
				peers[r].eager = C.uint64_t(world.EagerLimit(r))
			}
		}
		vw := unsafe.Slice((*C.int32_t)(C.calloc(C.size_t(len(byVendor)), 4)), len(byVendor))
		for i, w := range byVendor {
			vw[i] = C.int32_t(w)
		}
		x.vworld, x.nvworld = &vw[0], C.int32_t(len(vw))
		// A vendor test costs more than a ring check: a receive waits
		// about as long as the shm lane's before Go takes over.
		x.vspin = C.int32_t(128 * world.SpinPolls())
	}
	var rxs []*C.struct_gmpi_shm_rx
	for r := range peers {
		if shmDevice == nil {
			break
		}
		if tx := shmDevice.ExpressTx(r); tx != nil && r != world.Rank() {
			peers[r].tx = (*C.struct_gmpi_shm_tx)(tx)
			peers[r].rx = (*C.struct_gmpi_shm_rx)(shmDevice.ExpressRx(r))
			peers[r].eager = C.uint64_t(world.EagerLimit(r))
			rxs = append(rxs, peers[r].rx)
		}
	}
	if tcpDevice != nil && expressTCPLayout() {
		// tcp peers (express.c, tcp_send): the device publishes each
		// pair's socket once connected. Receives read it too
		// (tcp_recv) unless GMPI_TCP_EXPRESS_RECV=0 or the grid has
		// several data representations (the Go path converts).
		recv := param.TCPExpressRecv.Get(world.Params()) && !world.Heterogeneous()
		if recv {
			tcpDevice.SetExpressWords((*int32)(unsafe.Pointer(&x.tcp_inbox)), (*uint32)(unsafe.Pointer(&x.tcp_polls)))
			x.tcp_recv = 1
		}
		for _, r := range tcpRemote {
			var rd tcp.ExpressReader
			if recv {
				rd = tcp.ExpressReader{Lock: (*uint32)(unsafe.Pointer(&peers[r].tcp_rlock)),
					Pend: (*int32)(unsafe.Pointer(&peers[r].tcp_rpend))}
			}
			if r != world.Rank() && tcpDevice.SetExpress(r, (*uint32)(unsafe.Pointer(&peers[r].tcp_lock)),
				(*int32)(unsafe.Pointer(&peers[r].tcp_fd1)), rd) {
				peers[r].eager = C.uint64_t(world.EagerLimit(r))
			}
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
	// A poll of a socket is a system call: fewer of them, about as long.
	x.tcp_spin = C.int32_t(max(2*world.SpinPolls(), 16))
	x.yield = 0
	if world.Yields() {
		x.yield = 1
	}
	x.rank = C.int32_t(world.Rank())
	x.prefetch, x.pipe = 0, 0
	if shmDevice != nil {
		x.prefetch = C.uint64_t(shmDevice.ExpressPrefetch())
		x.pipe = C.uint64_t(shmDevice.ExpressPipe())
	}
	x.eager_kind = C.uint8_t(mpirt.FrameEager)
	// A goroutine of the engine that communicates (MPI_Comm_idup) would
	// share the rings with the lane: the lane stops for good then.
	world.OnConcurrent = stopExpress
	world.ReplaceForeign = expressReplace
	x.on = 1
}

// stopExpress turns the lane off (MPI_Finalize, before the devices close).
func stopExpress() {
	x := &C.gmpi_express
	x.on = 0
	x.rma_on = 0
	for i := range expressWins {
		x.wins[i].handle = 0
		expressWins[i] = nil
	}
	expressWasOn = false
	if x.peers != nil && tcpDevice != nil {
		for _, r := range tcpRemote {
			tcpDevice.SetExpress(r, nil, nil, tcp.ExpressReader{})
		}
		tcpDevice.SetExpressWords(nil, nil)
		x.tcp_recv = 0
	}
	if x.peers != nil {
		C.free(unsafe.Pointer(x.peers))
		x.peers = nil
	}
	if x.rxs != nil {
		C.free(unsafe.Pointer(x.rxs))
		x.rxs, x.nrx = nil, 0
	}
	if x.vworld != nil {
		C.free(unsafe.Pointer(x.vworld))
		x.vworld, x.nvworld = nil, 0
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

// expressWins are the windows registered with the one-sided lane, by slot.
var expressWins [C.GMPI_EXPRESS_WINS]*mpirt.Win

// expressWinNew registers a new window with the one-sided lane when every
// target's memory is mapped here and its slot is free.
func expressWinNew(win *mpirt.Win) {
	x := &C.gmpi_express
	h := int32(win.Handle())
	i := uint32(h) % C.GMPI_EXPRESS_WINS
	n := win.Comm().Size()
	if x.rma_on == 0 || expressWins[i] != nil || n > C.GMPI_EXPRESS_WIN_RANKS {
		return
	}
	slot := &x.wins[i]
	for t := 0; t < n; t++ {
		mem, unit := win.ExpressTarget(t)
		if mem == nil || unit <= 0 {
			return
		}
		slot.base[t] = (*C.char)(unsafe.Pointer(unsafe.SliceData(mem)))
		slot.size[t] = C.uint64_t(len(mem))
		slot.unit[t] = C.uint64_t(unit)
		acc, waiters := win.ExpressAccWords(t)
		slot.acc[t] = (*C.uint32_t)(unsafe.Pointer(acc))
		slot.accwait[t] = (*C.uint32_t)(unsafe.Pointer(waiters))
		slot.access[t], slot.flush[t] = 0, 0
	}
	bar, _ := win.ExpressBarrier()
	slot.bar = (*C.uint32_t)(unsafe.Pointer(bar))
	slot.fence = 0
	slot.n = C.int32_t(n)
	slot.handle = C.int32_t(h)
	expressWins[i] = win
}

// expressWin rewrites the epoch flags of a registered window after a
// call that entered Go on it (x.rma_on is 0 under MPI_THREAD_MULTIPLE, so
// no other thread reads them meanwhile).
func expressWin(win *mpirt.Win) {
	i := uint32(win.Handle()) % C.GMPI_EXPRESS_WINS
	if expressWins[i] != win {
		return
	}
	slot := &C.gmpi_express.wins[i]
	var acc, fl [C.GMPI_EXPRESS_WIN_RANKS]bool
	n := int(slot.n)
	slot.fence = 0
	if win.ExpressState(acc[:n], fl[:n]) {
		slot.fence = 1
	}
	for t := 0; t < n; t++ {
		slot.access[t], slot.flush[t] = 0, 0
		if acc[t] {
			slot.access[t] = 1
		}
		if fl[t] {
			slot.flush[t] = 1
		}
	}
}

// expressWinFree takes a window out of the one-sided lane (before it is
// freed).
func expressWinFree(win *mpirt.Win) {
	i := uint32(win.Handle()) % C.GMPI_EXPRESS_WINS
	if expressWins[i] == win {
		C.gmpi_express.wins[i].handle = 0
		expressWins[i] = nil
	}
}

// The lane's nonblocking requests (express.h, gmpi_express_reqs): Go's
// request functions resolve their handles here. A request Go has seen
// becomes an ordinary Request (expressGo), which the slot names until
// its handle is freed.
var expressGo [C.GMPI_EXPRESS_REQS]*mpirt.Request

// expressSlot returns the slot of h, -1 if h is not one of the lane's
// live requests.
func expressSlot(h mpirt.Handle) int {
	u := uint32(h)
	i := u &^ C.GMPI_EXPRESS_REQ_MASK
	if u&C.GMPI_EXPRESS_REQ_MASK != C.GMPI_EXPRESS_REQ_KIND || i >= C.GMPI_EXPRESS_REQS ||
		C.gmpi_express_reqs.r[i].state == C.XR_FREE {
		return -1
	}
	return int(i)
}

// expressHandover posts the receives the lane holds, in posting order,
// with the matching engine, before Go does anything else (every Go entry
// calls it when there are any): from then on they are Go's requests.
func expressHandover() {
	q := &C.gmpi_express_reqs
	n := int(q.npost)
	q.npost = 0
	for j := 0; j < n; j++ {
		i := q.post[j]
		e := &q.r[i]
		h := mpirt.Handle(C.GMPI_EXPRESS_REQ_KIND | uint32(i))
		var r *mpirt.Request
		c := world.Comm(mpirt.Handle(e.comm))
		dt := world.Datatype(mpirt.Handle(e.datatype))
		var err error
		if c != nil && dt != nil {
			r, err = c.IrecvTyped(e.buf, int(e.count), dt, int(e.peer), int(e.tag))
		} else {
			err = mpirt.Errorf(mpirt.ErrIntern, "MPI_Irecv", "request 0x%08x: its communicator or datatype is gone", uint32(h))
		}
		if err != nil {
			r = world.ExpressReceived(c, mpirt.Status{Source: mpirt.AnySource, Tag: mpirt.AnyTag}, err, h)
		}
		expressGo[i] = r
		e.state = C.XR_GO
	}
}

// expressRequest resolves one of the lane's request handles for Go (nil:
// not one of its live requests).
func expressRequest(h mpirt.Handle) *mpirt.Request {
	i := expressSlot(h)
	if i < 0 {
		return nil
	}
	e := &C.gmpi_express_reqs.r[i]
	switch e.state {
	case C.XR_POSTED:
		expressHandover()
	case C.XR_SENT:
		hdr := mpirt.Header{Kind: mpirt.FrameEager, Context: uint32(e.ctx), Tag: int32(e.tag),
			Len: uint64(e.len), SendID: uint64(e.send_id)}
		c := world.Comm(mpirt.Handle(e.comm))
		if c != nil {
			hdr.Source = int32(c.Rank())
		}
		expressGo[i] = world.ExpressSent(c, int(e.peer), hdr, h)
		e.state = C.XR_GO
	case C.XR_RECVD:
		st := mpirt.Status{Source: int(e.peer), Tag: int(e.tag), Count: int64(e.len)}
		expressGo[i] = world.ExpressReceived(world.Comm(mpirt.Handle(e.comm)), st, nil, h)
		e.state = C.XR_GO
	case C.XR_COLL:
		expressGo[i] = cshmRequest(int32(e.comm), uint64(e.send_id), h)
		e.state = C.XR_GO
	}
	return expressGo[i]
}

// expressRelease frees the slot of h when h is one of the lane's
// requests (its handle is being freed).
func expressRelease(h int32) {
	i := expressSlot(mpirt.Handle(h))
	if i < 0 {
		return
	}
	q := &C.gmpi_express_reqs
	if q.r[i].state == C.XR_POSTED {
		expressHandover() // not expected: Go entries hand them over first
	}
	expressGo[i] = nil
	q.r[i].state = C.XR_FREE
	q.freel[q.nfree] = C.int32_t(i)
	q.nfree++
}

// expressReplace makes proxy what the lane's handle h names (a cancelled
// send, runtime/cancel.go).
func expressReplace(h mpirt.Handle, proxy *mpirt.Request) bool {
	i := expressSlot(h)
	if i < 0 || expressGo[i] == nil {
		return false
	}
	expressGo[i] = proxy
	return true
}

// expressTCPLayout reports whether the C lane's tcp frame header
// (express.c) is the device's, byte for byte, for a header with every
// field the lane sets; the lane leaves tcp peers to Go otherwise.
func expressTCPLayout() bool {
	if C.GMPI_TCP_HEADER != tcp.ExpressHeaderSize || C.GMPI_TCP_SMALL > tcp.ExpressSmall {
		return false
	}
	h := mpirt.Header{Kind: mpirt.FrameEager, Flags: 0x5a, Context: 0x01020304, Source: -2, Tag: 0x7eadbeef,
		Len: 0x0102030405060708}
	ch := C.struct_gmpi_shm_hdr{kind: C.uint8_t(h.Kind), flags: C.uint8_t(h.Flags), context: C.uint32_t(h.Context),
		source: C.int32_t(h.Source), tag: C.int32_t(h.Tag), len: C.uint64_t(h.Len)}
	b := (*[C.GMPI_TCP_HEADER]byte)(C.malloc(C.GMPI_TCP_HEADER))
	defer C.free(unsafe.Pointer(b))
	C.gmpi_express_tcp_header((*C.uint8_t)(unsafe.Pointer(b)), &ch, 1000)
	return string(b[:]) == string(tcp.ExpressHeader(h, 1000))
}
