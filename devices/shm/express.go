package shm

// #include <stdlib.h>
// #include "express.h"
import "C"

import (
	"sync"
	"unsafe"

	mpirt "gmpi/runtime"
)

// txState mirrors struct gmpi_shm_tx (express.h): the producer side of
// one ring, allocated outside the Go heap (C memory) so that capi's C
// express lane can append frames with gmpi_shm_send while Go's Send uses
// the same tail. It holds only pointers into mappings (no Go pointers).
type txState struct {
	data       *byte
	mask       uint64
	tail       uint64 // bytes produced so far
	head       uint64 // last head value read from the consumer
	headp      *uint64
	epoch      *uint32
	waiters    *uint32
	maxPayload uint64
	gate       uint32
	_          uint32
}

// rxState mirrors struct gmpi_shm_rx: the consumer side of one ring, in
// C memory, shared by Go's drain and the express lane's receive.
type rxState struct {
	data      *byte
	mask      uint64
	head      uint64 // bytes consumed so far
	published uint64 // last value stored to *headp
	headp     *uint64
	wantp     *uint32
	epoch     *uint32 // the producer's doorbell
	waiters   *uint32
	broken    uint32 // a record failed validation; the ring is abandoned
	_         uint32
}

var layoutOK = sync.OnceValue(func() bool {
	var t txState
	var r rxState
	tx := uint64(unsafe.Sizeof(t))<<48 | uint64(unsafe.Offsetof(t.tail))<<40 |
		uint64(unsafe.Offsetof(t.headp))<<32 | uint64(unsafe.Offsetof(t.maxPayload))<<24 |
		uint64(unsafe.Offsetof(t.gate))<<16
	rx := uint64(unsafe.Sizeof(r))<<48 | uint64(unsafe.Offsetof(r.head))<<40 |
		uint64(unsafe.Offsetof(r.headp))<<32 | uint64(unsafe.Offsetof(r.waiters))<<24 |
		uint64(unsafe.Offsetof(r.broken))<<16
	return uint64(C.gmpi_shm_tx_layout()) == tx && uint64(C.gmpi_shm_rx_layout()) == rx
})

// cAlloc returns n zeroed bytes of C memory.
func cAlloc(n uintptr) unsafe.Pointer {
	if !layoutOK() {
		panic("shm: txState/rxState do not match express.h")
	}
	return C.calloc(1, C.size_t(n))
}

func newTxState() *txState { return (*txState)(cAlloc(unsafe.Sizeof(txState{}))) }
func newRxState() *rxState { return (*rxState)(cAlloc(unsafe.Sizeof(rxState{}))) }

func freeState(p unsafe.Pointer) { C.free(p) }

// ExpressRx is the C-side consumer state of the ring from peer (a
// *struct gmpi_shm_rx for gmpi_shm_peek/consume), nil when peer is not a
// local peer; the same rules as ExpressTx apply.
func (d *Device) ExpressRx(peer int) unsafe.Pointer {
	for i := range d.rx {
		if d.rx[i].rank == peer {
			return unsafe.Pointer(d.rx[i].st)
		}
	}
	return nil
}

// ExpressTx is the C-side producer state towards peer (a *struct
// gmpi_shm_tx for gmpi_shm_send), nil when peer is not a local peer. It
// is valid until Close; the caller must stop using it before then and
// must only use it while the device is single-threaded.
func (d *Device) ExpressTx(peer int) unsafe.Pointer {
	if uint(peer) >= uint(len(d.byRank)) || d.byRank[peer] == nil {
		return nil
	}
	return unsafe.Pointer(d.byRank[peer].tx)
}

// ExpressPrefetch is how far past its tail (bytes) a nonblocking eager
// send asks for the next ring line (GMPI_SHM_PREFETCH; 0: not at all), as
// Send does for frames that name a request.
func (d *Device) ExpressPrefetch() uint64 { return d.prefetch }

// ExpressPipe is the chunk (bytes) in which the express lane's blocking
// send publishes a larger payload as it writes it (GMPI_SHM_PIPE; 0:
// whole), for the blocking receive at the other end to copy out as it
// comes (layout.go, ctlPartial).
func (d *Device) ExpressPipe() uint64 { return d.pipe }

// The two halves of the express lane, callable from Go for the tests
// (cgo is not allowed in _test.go files).

// expressSend appends a frame with gmpi_shm_send; false: it declined.
func (d *Device) expressSend(peer int, h *mpirt.Header, payload []byte) bool {
	var p *C.uint8_t
	if len(payload) > 0 {
		p = (*C.uint8_t)(unsafe.Pointer(&payload[0]))
	}
	return C.gmpi_shm_send((*C.struct_gmpi_shm_tx)(d.ExpressTx(peer)), (*C.struct_gmpi_shm_hdr)(unsafe.Pointer(h)),
		unsafe.Pointer(p), C.uint64_t(len(payload))) == 0
}

// expressTake consumes the next frame from peer with gmpi_shm_peek and
// gmpi_shm_consume, copying it out; false: nothing the lane would take.
func (d *Device) expressTake(peer int) (mpirt.Header, []byte, bool) {
	r := (*C.struct_gmpi_shm_rx)(d.ExpressRx(peer))
	var payload *C.uint8_t
	var n C.uint64_t
	h := C.gmpi_shm_peek(r, &payload, &n)
	if h == nil {
		return mpirt.Header{}, nil, false
	}
	hdr := *(*mpirt.Header)(unsafe.Pointer(h))
	data := C.GoBytes(unsafe.Pointer(payload), C.int(n))
	C.gmpi_shm_consume(r, n)
	return hdr, data, true
}

// expressSendPipe appends a frame with gmpi_shm_send_pipe, publishing
// it chunk bytes at a time; false: it declined.
func (d *Device) expressSendPipe(peer int, h *mpirt.Header, payload []byte, chunk int) bool {
	var p *C.uint8_t
	if len(payload) > 0 {
		p = (*C.uint8_t)(unsafe.Pointer(&payload[0]))
	}
	return C.gmpi_shm_send_pipe((*C.struct_gmpi_shm_tx)(d.ExpressTx(peer)), (*C.struct_gmpi_shm_hdr)(unsafe.Pointer(h)),
		unsafe.Pointer(p), C.uint64_t(len(payload)), C.uint64_t(chunk)) == 0
}

// expressTakePart consumes the next frame from peer as the express
// lane's blocking receive does: gmpi_shm_peek_part, then
// gmpi_shm_copy_out (a record being written is copied as it comes, for
// at most spin idle polls), then gmpi_shm_consume. ok false: nothing
// there, or the producer stalled (nothing consumed; partial tells).
func (d *Device) expressTakePart(peer, spin int) (h mpirt.Header, data []byte, ok, partial bool) {
	r := (*C.struct_gmpi_shm_rx)(d.ExpressRx(peer))
	var payload *C.uint8_t
	var n, done C.uint64_t
	ch := C.gmpi_shm_peek_part(r, &payload, &n, &done)
	if ch == nil {
		return h, nil, false, false
	}
	h = *(*mpirt.Header)(unsafe.Pointer(ch))
	buf := C.malloc(max(C.size_t(n), 1))
	defer C.free(buf)
	if C.gmpi_shm_copy_out(r, buf, payload, n, done, C.int(spin), 0) != 0 {
		return h, nil, false, true
	}
	data = C.GoBytes(buf, C.int(n))
	C.gmpi_shm_consume(r, n)
	return h, data, true, done < n
}
