package mpirt_test

import (
	"bytes"
	"sync/atomic"
	"testing"
	"unsafe"

	"gmpi/coll"
	"gmpi/coll/basic"
	"gmpi/devices/memdev"
	mpirt "gmpi/runtime"
	"gmpi/runtime/param"
)

// cmaDevice is memdev with cross-memory attach: the ranks of a test share
// one address space, so reading a peer's memory is a copy. It counts the
// protocol frames that show which rendezvous the receiver chose.
type cmaDevice struct {
	*memdev.Device
	cts, push, done *atomic.Int32
}

func (d cmaDevice) RemoteReadable() bool { return true }

// at is the memory at addr (a buffer another rank of the test keeps
// alive until the rendezvous is done).
func at(addr uintptr, n int) []byte {
	return unsafe.Slice(*(**byte)(unsafe.Pointer(&addr)), n)
}

func (d cmaDevice) ReadRemote(peer int, dst []byte, addr uintptr) error {
	copy(dst, at(addr, len(dst)))
	return nil
}

func (d cmaDevice) WriteRemote(peer int, src []byte, addr uintptr) error {
	copy(at(addr, len(src)), src)
	return nil
}

func (d cmaDevice) Send(peer int, h mpirt.Header, payload []byte) error {
	switch h.Kind {
	case mpirt.FrameCTS:
		d.cts.Add(1)
	case mpirt.FrameRMAPush:
		d.push.Add(1)
	case mpirt.FrameRMADone:
		d.done.Add(1)
	}
	return d.Device.Send(peer, h, payload)
}

// TestRendezvousChoice checks who copies a rendezvous message between
// two ranks that can read each other's memory (runtime/p2p.go, deliver):
// one way, the receiver streams below GMPI_RMA_MIN and shares the copy
// above GMPI_PUSH_MIN; both ways at once, each receiver reads whole. The
// receiver chooses at its next progress, not in the receive call: a
// receive posted when the peer's RTS is already there, followed by a send
// of its own to that peer (a window of MPI_Irecv, then MPI_Isend, as in
// mpibench's bibw), reads whole too ("late receive"). Every byte is
// checked.
func TestRendezvousChoice(t *testing.T) {
	const n = 40000
	for _, tc := range []struct {
		name            string
		rmaMin, pushMin string
		both, late      bool
		cts, push, done bool // which frames must (true) or must not appear
	}{
		{"one-way stream", "1G", "1K", false, false, true, false, false},
		{"one-way shared", "1K", "1K", false, false, false, true, true},
		{"both ways, stream when idle", "1G", "1K", true, false, false, false, true},
		{"both ways, shared when idle", "1K", "1K", true, false, false, false, true},
		{"both ways, late receive, stream when idle", "1G", "1K", true, true, false, false, true},
		{"both ways, late receive, shared when idle", "1K", "1K", true, true, false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cts, push, done atomic.Int32
			nw := memdev.NewNetwork(2, 4096)
			worlds := make([]*mpirt.World, 2)
			for i := range worlds {
				params, err := param.Map(map[string]string{"GMPI_RMA_MIN": tc.rmaMin, "GMPI_PUSH_MIN": tc.pushMin})
				if err != nil {
					t.Fatal(err)
				}
				dev := cmaDevice{nw.Device(i), &cts, &push, &done}
				routes := []mpirt.Route{{Peer: 1 - i, Device: dev}}
				cfg := mpirt.Config{Rank: i, Size: 2, EagerLimit: 512, Params: params}
				w, err := mpirt.NewWorld(cfg, routes, nw.Device(i).Waker(), coll.NewSelector(basic.Component{}))
				if err != nil {
					t.Fatal(err)
				}
				worlds[i] = w
			}
			ready := []chan struct{}{make(chan struct{}), make(chan struct{}), make(chan struct{})}
			runWorlds(t, worlds, func(t *testing.T, w *mpirt.World) {
				c := w.CommWorld()
				me, other := c.Rank(), 1-c.Rank()
				for round := 0; round < 3; round++ {
					out := pattern(n, 10*round+me)
					in := make([]byte, n)
					var reqs []*mpirt.Request
					if tc.late {
						// Rank 0 receives, then sends, and waits for
						// rank 1 to make progress once: rank 1 receives
						// once rank 0's RTS is there, then sends.
						if me == 1 {
							for {
								if _, ok := w.Iprobe(c, 0, other, round); ok {
									break
								}
							}
						}
						reqs = append(reqs, w.Irecv(c, 0, in, other, round))
					}
					if tc.both || me == 0 {
						s, err := w.Isend(c, 0, out, other, round, mpirt.ModeStandard)
						if err != nil {
							t.Error(err)
							return
						}
						reqs = append(reqs, s)
					}
					if !tc.late && (tc.both || me == 1) {
						reqs = append(reqs, w.Irecv(c, 0, in, other, round))
					}
					if tc.late && me == 0 {
						<-ready[round] // rank 0's send stays unread until rank 1 chose
					}
					if tc.late && me == 1 {
						w.Progress() // the choice: our send is outstanding
						close(ready[round])
					}
					for _, r := range reqs {
						if err := w.Wait(r); err != nil {
							t.Error(err)
							return
						}
					}
					if (tc.both || me == 1) && !bytes.Equal(in, pattern(n, 10*round+other)) {
						t.Errorf("rank %d round %d: wrong data", me, round)
					}
				}
			})
			if got := cts.Load() > 0; got != tc.cts {
				t.Errorf("CTS frames %d, want any: %v", cts.Load(), tc.cts)
			}
			if got := push.Load() > 0; got != tc.push {
				t.Errorf("push frames %d, want any: %v", push.Load(), tc.push)
			}
			if got := done.Load() > 0; got != tc.done {
				t.Errorf("single-copy done frames %d, want any: %v", done.Load(), tc.done)
			}
		})
	}
}
