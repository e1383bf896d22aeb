// Package memdev is an in-memory Device for tests: several ranks in one
// process, each with its own mpirt.World, exchanging frames through
// mutex-protected queues. Modelled on wireguard-go's conn/bindtest.
package memdev

import (
	"fmt"
	"sync"

	mpirt "gmpi/runtime"
)

// Network connects n in-memory devices.
type Network struct {
	devs       []*Device
	maxPayload int
}

// NewNetwork returns a network of n ranks whose frames carry at most
// maxPayload bytes (small values exercise fragmentation).
func NewNetwork(n, maxPayload int) *Network {
	nw := &Network{maxPayload: maxPayload}
	for i := 0; i < n; i++ {
		nw.devs = append(nw.devs, &Device{nw: nw, rank: i, waker: mpirt.NewLocalWaker()})
	}
	return nw
}

// Device returns rank i's device.
func (nw *Network) Device(i int) *Device { return nw.devs[i] }

type frame struct {
	from    int
	hdr     mpirt.Header
	payload []byte
}

// Device is one rank's end of a Network.
type Device struct {
	nw    *Network
	rank  int
	waker *mpirt.FutexWaker

	mu      sync.Mutex
	inbox   []frame
	handler mpirt.Handler
	polling sync.Mutex
	closed  bool
}

var _ mpirt.Device = (*Device)(nil)

// Waker is the rank's doorbell, rung by every Send to it.
func (d *Device) Waker() mpirt.Waker { return d.waker }

func (d *Device) Name() string { return "mem" }

func (d *Device) Start(h mpirt.Handler) error { d.handler = h; return nil }

func (d *Device) MaxPayload() int { return d.nw.maxPayload }

func (d *Device) Send(peer int, hdr mpirt.Header, payload []byte) error {
	if peer < 0 || peer >= len(d.nw.devs) {
		return fmt.Errorf("memdev: no peer %d", peer)
	}
	if len(payload) > d.nw.maxPayload {
		return fmt.Errorf("memdev: payload %d exceeds %d", len(payload), d.nw.maxPayload)
	}
	p := d.nw.devs[peer]
	f := frame{from: d.rank, hdr: hdr, payload: append([]byte(nil), payload...)}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return fmt.Errorf("memdev: peer %d closed", peer)
	}
	p.inbox = append(p.inbox, f)
	p.mu.Unlock()
	p.waker.Wake()
	return nil
}

func (d *Device) Poll() int {
	if !d.polling.TryLock() {
		return 0
	}
	defer d.polling.Unlock()
	d.mu.Lock()
	in := d.inbox
	d.inbox = nil
	d.mu.Unlock()
	for i := range in {
		d.handler(in[i].from, &in[i].hdr, in[i].payload)
	}
	return len(in)
}

func (d *Device) Close() error {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	return nil
}
