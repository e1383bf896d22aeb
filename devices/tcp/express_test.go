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
		if !ranks[0].dev.SetExpress(1, &lock, &fd, tcp.ExpressReader{}) {
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
			r.dev.SetExpress(1, nil, nil, tcp.ExpressReader{})
			if atomic.LoadInt32(&fd) != 0 {
				t.Error("descriptor word not cleared when taken back")
			}
		})
	}
}

// A C reader (capi's express lane, tcp_recv) reads the pair's socket
// itself while it holds the reading word (ExpressReader): it takes a
// whole frame and gives back what it read beyond it, part of the next
// frame included; the device parses what it gets back as its own reader
// would, mirrors its queue to the inbox word, and the frames that follow
// arrive intact and in order through the Go path.
func TestExpressReader(t *testing.T) {
	for _, poll := range []bool{false, true} {
		ranks := newJob(t, 2, 0, poll)
		var lock, rlock, polls uint32
		var fd, pend, inbox int32
		if !ranks[1].dev.SetExpress(0, &lock, &fd, tcp.ExpressReader{Lock: &rlock, Pend: &pend}) {
			t.Fatal("SetExpress: rank 0 not reached")
		}
		ranks[1].dev.SetExpressWords(&inbox, &polls)
		msgs := [][]byte{pattern(10, 1), pattern(100, 2), pattern(300, 3), pattern(70000, 4), pattern(5, 5)}
		run(t, ranks, func(t *testing.T, r *rank, c *mpirt.Comm) {
			if c.Rank() == 0 {
				for i, m := range msgs {
					if i == 1 {
						// The receiver holds the reading word now.
						if _, err := r.w.Recv(c, c.Context(), nil, 1, 99, nil); err != nil {
							t.Error(err)
							return
						}
					}
					if err := r.w.Send(c, c.Context(), m, 1, i, mpirt.ModeStandard); err != nil {
						t.Error(err)
						return
					}
				}
				return
			}
			recv := func(i int) {
				b := make([]byte, len(msgs[i]))
				st, err := r.w.Recv(c, c.Context(), b, 0, mpirt.AnyTag, nil)
				if err != nil || st.Tag != i || !bytes.Equal(b, msgs[i]) {
					t.Errorf("message %d: tag %d, err %v, data right: %v", i, st.Tag, err, bytes.Equal(b, msgs[i]))
				}
			}
			recv(0)
			f := atomic.LoadInt32(&fd)
			if f == 0 {
				t.Error("no descriptor published after the first message")
				return
			}
			// Message 1 and all of message 2's frame, read as the C
			// reader does: holding the word, once the device holds
			// nothing of the stream.
			for !atomic.CompareAndSwapUint32(&rlock, 0, 1) {
				time.Sleep(time.Millisecond)
			}
			if atomic.LoadInt32(&pend) != 0 || atomic.LoadInt32(&inbox) != 0 {
				t.Errorf("pend %d, inbox %d with nothing in flight", pend, inbox)
			}
			if err := r.w.Send(c, c.Context(), nil, 0, 99, mpirt.ModeStandard); err != nil {
				t.Error(err)
			}
			want := 2*tcp.ExpressHeaderSize + len(msgs[1]) + len(msgs[2])
			var got []byte
			deadline := time.Now().Add(10 * time.Second)
			for len(got) < want && time.Now().Before(deadline) {
				b := make([]byte, want+40-len(got))
				if n, err := unix.Read(int(f-1), b); n > 0 {
					got = append(got, b[:n]...)
				} else if err != unix.EAGAIN {
					t.Errorf("read: %d, %v", n, err)
					break
				}
			}
			if len(got) < want {
				t.Errorf("read %d bytes of %d", len(got), want)
				atomic.StoreUint32(&rlock, 0)
				return
			}
			h := tcp.ExpressHeader(mpirt.Header{Kind: mpirt.FrameEager, Context: c.Context(), Tag: 1,
				Len: uint64(len(msgs[1]))}, len(msgs[1]))
			k := tcp.ExpressHeaderSize + len(msgs[1])
			if !bytes.Equal(got[:tcp.ExpressHeaderSize], h) || !bytes.Equal(got[tcp.ExpressHeaderSize:k], msgs[1]) {
				t.Error("the first frame read is not message 1")
			}
			r.dev.ExpressUnread(0, got[k:])
			if atomic.LoadInt32(&inbox) == 0 {
				t.Error("message 2, given back whole, is not queued (inbox word 0)")
			}
			atomic.StoreUint32(&rlock, 0)
			for i := 2; i < len(msgs); i++ {
				recv(i)
			}
			r.dev.SetExpress(0, nil, nil, tcp.ExpressReader{})
			r.dev.SetExpressWords(nil, nil)
		})
	}
}
