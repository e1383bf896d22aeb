package shm

// #include <stdlib.h>
// #include "express.h"
import "C"

import (
	"sync"
	"unsafe"
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
	closed     uint32
}

var layoutOnce = sync.OnceValue(func() bool {
	var t txState
	want := uint64(unsafe.Sizeof(t))<<48 | uint64(unsafe.Offsetof(t.tail))<<40 |
		uint64(unsafe.Offsetof(t.headp))<<32 | uint64(unsafe.Offsetof(t.maxPayload))<<24 |
		uint64(unsafe.Offsetof(t.closed))<<16
	return uint64(C.gmpi_shm_tx_layout()) == want
})

// newTxState allocates a zeroed txState in C memory.
func newTxState() *txState {
	if !layoutOnce() {
		panic("shm: txState does not match struct gmpi_shm_tx")
	}
	return (*txState)(C.calloc(1, C.size_t(unsafe.Sizeof(txState{}))))
}

func freeTxState(t *txState) { C.free(unsafe.Pointer(t)) }

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
