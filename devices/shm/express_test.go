package shm

import (
	"bytes"
	"math/rand"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	mpirt "gmpi/runtime"
)

// xframe is a frame as the express tests compare them: tag and payload.
type xframe struct {
	tag  int32
	data []byte
}

// expressPair is two single-threaded ranks with rings of ring bytes, the
// sender and the receiver of the express tests.
func expressPair(t *testing.T, ring int) (tx, rx *Device) {
	_, devs := newRanks(t, 2, ring)
	for _, d := range devs {
		d.SetSingleThreaded(true)
	}
	return devs[0], devs[1]
}

// TestExpressInterleaved mixes Go's Send and the C express append on one
// ring, and Go's Poll and the C express receive on the other end, through
// many wraps with records of every size: every frame arrives once, in
// order, intact.
func TestExpressInterleaved(t *testing.T) {
	tx, rx := expressPair(t, 16<<10)
	var got []xframe
	rx.Start(func(peer int, h *mpirt.Header, p []byte) {
		got = append(got, xframe{h.Tag, append([]byte(nil), p...)})
	})
	tx.Start(func(int, *mpirt.Header, []byte) {})
	rng := rand.New(rand.NewSource(7))
	var want []xframe
	sent := 0
	for round := 0; len(got) < 5000; round++ {
		if round > 1e6 {
			t.Fatalf("stuck: %d of %d frames received", len(got), sent)
		}
		// Send a few, each way at random, as long as there is room.
		for k := rng.Intn(4); k >= 0 && sent < 5000; k-- {
			n := rng.Intn(600)
			if rng.Intn(10) == 0 {
				n = rng.Intn(tx.MaxPayload() + 1)
			}
			data := make([]byte, n)
			rng.Read(data)
			h := mpirt.Header{Kind: mpirt.FrameEager, Tag: int32(sent), Len: uint64(n)}
			if rng.Intn(2) == 0 {
				if !tx.expressSend(1, &h, data) {
					break // full: let the receiver catch up
				}
			} else if !room(tx.byRank[1], n) {
				break // Send would wait for the receiver, which is us
			} else if err := tx.Send(1, h, data); err != nil {
				t.Fatal(err)
			}
			want = append(want, xframe{int32(sent), data})
			sent++
		}
		// Receive a few, each way at random.
		for k := rng.Intn(4); k >= 0; k-- {
			if rng.Intn(2) == 0 {
				if h, data, ok := rx.expressTake(0); ok {
					if h.Len != uint64(len(data)) {
						t.Fatalf("frame %d: header length %d, payload %d", h.Tag, h.Len, len(data))
					}
					got = append(got, xframe{h.Tag, data})
				}
			} else {
				rx.Poll()
			}
		}
	}
	for i := range want {
		if got[i].tag != want[i].tag || !bytes.Equal(got[i].data, want[i].data) {
			t.Fatalf("frame %d: got tag %d (%d bytes), want tag %d (%d bytes)", i, got[i].tag, len(got[i].data), want[i].tag, len(want[i].data))
		}
	}
	if tx.byRank[1].tx.tail < 4*uint64(16<<10) {
		t.Fatalf("only %d bytes went through a 16 KiB ring: not enough wraps", tx.byRank[1].tx.tail)
	}
}

// room reports whether Send of n bytes to p would find space at once.
func room(p *peer, n int) bool {
	rec := recSize(uint64(n))
	size := p.mask + 1
	pos := p.tx.tail & p.mask
	need := rec
	if pos+rec > size {
		need += size - pos
	}
	return p.tx.tail+need+lineSize-atomic.LoadUint64(p.headp) <= size
}

// TestExpressPipelined sends frames published in chunks as they are
// written (gmpi_shm_send_pipe), mixed with whole ones from Go's Send,
// from one goroutine while another receives them, at random, with Go's
// Poll (which waits for a whole record) or as the express lane's
// blocking receive does (copying a record as it is written, giving up
// when the producer stalls): every frame arrives once, in order, intact,
// and some were taken while being written.
func TestExpressPipelined(t *testing.T) {
	tx, rx := expressPair(t, 64<<10)
	const total = 3000
	var got []xframe
	rx.Start(func(peer int, h *mpirt.Header, p []byte) {
		if h.Len != uint64(len(p)) {
			t.Errorf("frame %d: header length %d, payload %d", h.Tag, h.Len, len(p))
		}
		got = append(got, xframe{h.Tag, append([]byte(nil), p...)})
	})
	tx.Start(func(int, *mpirt.Header, []byte) {})
	want := make([]xframe, total)
	rng := rand.New(rand.NewSource(11))
	for i := range want {
		n := rng.Intn(tx.MaxPayload() + 1)
		if rng.Intn(4) == 0 {
			n = rng.Intn(300)
		}
		want[i] = xframe{int32(i), make([]byte, n)}
		rng.Read(want[i].data)
	}
	done := make(chan error, 1)
	go func() {
		rng := rand.New(rand.NewSource(12))
		chunks := []int{0, 64, 1000, 4096, 8192}
		for i := 0; i < total; {
			f := want[i]
			h := mpirt.Header{Kind: mpirt.FrameEager, Tag: f.tag, Len: uint64(len(f.data))}
			if rng.Intn(5) == 0 {
				if err := tx.Send(1, h, f.data); err != nil {
					done <- err
					return
				}
			} else if !tx.expressSendPipe(1, &h, f.data, chunks[rng.Intn(len(chunks))]) {
				runtime.Gosched() // full
				continue
			}
			i++
		}
		done <- nil
	}()
	partial, stalled := 0, 0
	deadline := time.Now().Add(time.Minute)
	for len(got) < total {
		if time.Now().After(deadline) {
			t.Fatalf("stuck: %d of %d frames received", len(got), total)
		}
		if rng.Intn(2) == 0 {
			rx.Poll()
			continue
		}
		h, data, ok, part := rx.expressTakePart(0, 1+rng.Intn(2000))
		switch {
		case ok:
			got = append(got, xframe{h.Tag, data})
			if part {
				partial++
			}
		case part:
			stalled++
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i].tag != want[i].tag || !bytes.Equal(got[i].data, want[i].data) {
			t.Fatalf("frame %d: got tag %d (%d bytes), want tag %d (%d bytes)", i, got[i].tag, len(got[i].data), want[i].tag, len(want[i].data))
		}
	}
	t.Logf("%d frames taken while being written, %d takes gave up on a stalled producer", partial, stalled)
}

// TestPartialRecord holds a pipelined record half written (its ctl word
// as the producer leaves it between two chunks): Poll delivers nothing,
// the lane's receive copies what is there and gives up without consuming
// it; once whole, both see it.
func TestPartialRecord(t *testing.T) {
	_, devs := newRanks(t, 2, 64<<10)
	tx, rx := devs[0], devs[1]
	var got [][]byte
	rx.Start(func(peer int, h *mpirt.Header, p []byte) { got = append(got, append([]byte(nil), p...)) })
	tx.Start(func(int, *mpirt.Header, []byte) {})
	data := make([]byte, 10000)
	rand.New(rand.NewSource(3)).Read(data)
	for round := 0; round < 2; round++ {
		at := tx.byRank[1].tx.tail & tx.byRank[1].mask
		h := mpirt.Header{Kind: mpirt.FrameEager, Tag: 5, Len: uint64(len(data))}
		if !tx.expressSendPipe(1, &h, data, 4096) {
			t.Fatal("send declined on an empty ring")
		}
		ctl := u64(tx.byRank[1].data, at)
		whole := atomic.LoadUint64(ctl)
		atomic.StoreUint64(ctl, ctlValid|ctlPartial|4096<<32|uint64(len(data)))
		if rx.Poll() != 0 || len(got) != 0 {
			t.Fatal("Poll delivered a record being written")
		}
		if _, _, ok, part := rx.expressTakePart(0, 10); ok || !part {
			t.Fatalf("take of a stalled record: ok %v partial %v", ok, part)
		}
		atomic.StoreUint64(ctl, whole)
		if round == 0 {
			_, d, ok, _ := rx.expressTakePart(0, 10)
			if !ok || !bytes.Equal(d, data) {
				t.Fatalf("take of the whole record: ok %v, %d bytes", ok, len(d))
			}
		} else if rx.Poll() != 1 || len(got) != 1 || !bytes.Equal(got[0], data) {
			t.Fatalf("Poll of the whole record: %d frames", len(got))
		}
	}
}
