package tcp_test

import (
	"bytes"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"gmpi/devices/tcp"
	mpirt "gmpi/runtime"
)

// A C writer (capi's express lane) writes frames on the pair's socket
// itself while it holds the lock word (SetExpress): the descriptor is
// published once the connection is up, a frame the writer begins and
// ExpressFinish ends arrives whole, and a Go send issued meanwhile waits
// for the word, so it arrives after, intact. Taking the words back
// clears the descriptor word.
func TestExpressWriter(t *testing.T) {
	for _, poll := range []bool{false, true} {
		ranks := newJob(t, 2, 0, poll)
		var lock uint32
		var fd int32
		if !ranks[0].dev.SetExpress(1, &lock, &fd) {
			t.Fatal("SetExpress: rank 1 not reached")
		}
		if atomic.LoadInt32(&fd) != 0 {
			t.Fatal("descriptor published before the connection")
		}
		express := pattern(300, 9)
		later := pattern(200, 4)
		run(t, ranks, func(t *testing.T, r *rank, c *mpirt.Comm) {
			if c.Rank() == 1 {
				for i, want := range [][]byte{pattern(10, 1), express, later} {
					b := make([]byte, len(want))
					st, err := r.w.Recv(c, c.Context(), b, 0, mpirt.AnyTag, nil)
					if err != nil || st.Tag != i || !bytes.Equal(b, want) {
						t.Errorf("message %d: tag %d, err %v, data right: %v", i, st.Tag, err, bytes.Equal(b, want))
					}
				}
				return
			}
			if err := r.w.Send(c, c.Context(), pattern(10, 1), 1, 0, mpirt.ModeStandard); err != nil {
				t.Error(err)
				return
			}
			f := atomic.LoadInt32(&fd)
			if f == 0 {
				t.Error("no descriptor published after the first send")
				return
			}
			if !atomic.CompareAndSwapUint32(&lock, 0, 1) {
				t.Error("lock word taken")
				return
			}
			frame := append(tcp.ExpressHeader(mpirt.Header{Kind: mpirt.FrameEager, Context: c.Context(), Tag: 1,
				Len: uint64(len(express))}, len(express)), express...)
			if n, err := unix.Write(int(f-1), frame[:20]); n != 20 || err != nil {
				t.Errorf("write: %d, %v", n, err)
			}
			done := make(chan error)
			go func() { done <- r.w.Send(c, c.Context(), later, 1, 2, mpirt.ModeStandard) }()
			time.Sleep(20 * time.Millisecond)
			select {
			case err := <-done:
				t.Errorf("a Go send went out while the lock word was held (%v)", err)
			default:
			}
			if err := r.dev.ExpressFinish(1, frame[20:]); err != nil {
				t.Error(err)
			}
			atomic.StoreUint32(&lock, 0)
			if err := <-done; err != nil {
				t.Error(err)
			}
			r.dev.SetExpress(1, nil, nil)
			if atomic.LoadInt32(&fd) != 0 {
				t.Error("descriptor word not cleared when taken back")
			}
		})
	}
}
