package tcp_test

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gmpi/devices/tcp"
	attack "gmpi/internal/hostile"
	mpirt "gmpi/runtime"
	"gmpi/runtime/auth"
)

// exchange sends a message from a to b and checks it arrived.
func exchange(t *testing.T, ranks []*rank, a, b int, tag int) {
	t.Helper()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := ranks[a].w.CommWorld().Send(pattern(5000, byte(tag)), b, tag, mpirt.ModeStandard); err != nil {
			t.Errorf("send %d->%d: %v", a, b, err)
		}
	}()
	buf := make([]byte, 5000)
	if _, err := ranks[b].w.CommWorld().Recv(buf, a, tag); err != nil || string(buf) != string(pattern(5000, byte(tag))) {
		t.Errorf("receive %d->%d: %v", a, b, err)
	}
	wg.Wait()
}

// TestHostileStrangers: garbage, a half-open connection, one sending a
// byte every 250 ms and 1000 silent connections at a rank's port are all
// dropped within GMPI_AUTH_TIMEOUT (1 s here, plus slack for the load),
// at most auth.DefaultGate of them wait at once, and the job goes on:
// the pair that was connected keeps talking and a rank that connects for
// the first time during the flood gets in.
func TestHostileStrangers(t *testing.T) {
	t.Setenv("GMPI_AUTH_TIMEOUT", "1")
	ranks := newJob(t, 3, 0)
	defer closeAll(ranks)
	exchange(t, ranks, 0, 1, 1)
	a, err := attack.Start(ranks[0].card, 1000, 250*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if w := tcp.Waiting(ranks[0].dev); w > auth.DefaultGate {
		t.Errorf("%d connections in their handshake (bound %d)", w, auth.DefaultGate)
	}
	exchange(t, ranks, 1, 0, 2)
	exchange(t, ranks, 2, 0, 3) // a new connection in the middle of the flood
	exchange(t, ranks, 0, 2, 4)
	if err := a.Check(10 * time.Second); err != nil {
		t.Error(err)
	}
	t.Logf("%d hostile connections dropped", a.Conns())
	if w := tcp.Waiting(ranks[0].dev); w != 0 {
		t.Errorf("%d connections still in their handshake after the attack", w)
	}
	exchange(t, ranks, 1, 2, 5)
}

// frame is a raw frame header with payload length n.
func frame(kind mpirt.FrameKind, src int32, length uint64, n uint32) []byte {
	h := make([]byte, 56)
	h[0] = byte(kind)
	binary.LittleEndian.PutUint32(h[8:], uint32(src))
	binary.LittleEndian.PutUint64(h[16:], length)
	binary.LittleEndian.PutUint32(h[48:], n)
	copy(h[52:], "GTCF")
	return h
}

// TestMalformedFrames: an authenticated peer (rank 1, impersonated) that
// sends a malformed frame makes the receive that depended on it fail with
// MPI_ERR_OTHER naming rank 1 and its host, and later operations with it
// fail at once; the receiver does not crash and goes on with others.
func TestMalformedFrames(t *testing.T) {
	cases := []struct {
		name string
		b    []byte
	}{
		{"eager length differs from the payload", append(frame(mpirt.FrameEager, 1, 10, 20), make([]byte, 20)...)},
		{"unknown kind", frame(200, 1, 0, 0)},
		{"payload longer than announced", append(frame(mpirt.FrameEager, 1, 4, 4), make([]byte, 100)...)},
		{"payload over the bound", frame(mpirt.FrameEager, 1, tcp.MaxPayloadForTest+1, tcp.MaxPayloadForTest+1)},
		{"control frame with a payload", append(frame(mpirt.FrameCTS, 1, 0, 8), make([]byte, 8)...)},
		{"bad magic", []byte(strings.Repeat("garbage!", 7))},
		{"data frame without payload", frame(mpirt.FrameData, 1, 0, 0)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ranks := newJob(t, 3, 0)
			defer closeAll(ranks)
			c := ranks[0].w.CommWorld()
			raw := impersonate(t, ranks[0].card)
			defer raw.Close()
			done := make(chan error, 1)
			go func() {
				buf := make([]byte, 100)
				_, err := c.Recv(buf, 1, 0)
				done <- err
			}()
			time.Sleep(50 * time.Millisecond) // the receive is posted
			raw.Write(tc.b)
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("the receive from the misbehaving peer did not end")
			}
			if tc.name == "payload longer than announced" && err == nil {
				// The announced 4 bytes were a message; what follows
				// them is not a frame.
				_, err = c.Recv(make([]byte, 100), 1, 0)
			}
			var me *mpirt.Error
			if !errors.As(err, &me) || me.Class != mpirt.ErrOther || !strings.Contains(err.Error(), "rank 1") || !strings.Contains(err.Error(), "hostB") {
				t.Fatalf("receive from the misbehaving peer: %v", err)
			}
			if err := c.Send([]byte("x"), 1, 0, mpirt.ModeStandard); err == nil {
				t.Error("a send to the misbehaving peer succeeded")
			}
			exchange(t, ranks, 2, 0, 7) // the others go on
		})
	}
}

// TestDialAgain: a connection that the accepting rank closes after the
// handshake, before its verdict (as its port's auth gate does to the
// oldest waiting connection during a flood, or its deadline on a loaded
// host), is dialled again: the first connection from rank 1 to rank 0
// goes through a proxy that passes the handshake (hello and proof each
// way) and then closes both ends; the send still arrives, and rank 1
// says it dialled again.
func TestDialAgain(t *testing.T) {
	ranks := newJob(t, 2, 0)
	defer closeAll(ranks)
	target := ranks[0].card
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ranks[0].card = l.Addr().String()
	var first atomic.Bool
	first.Store(true)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				s, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer s.Close()
				if first.Swap(false) {
					const handshake = 38 + 32 // hello, proof
					done := make(chan struct{}, 2)
					go func() { io.CopyN(s, c, handshake); done <- struct{}{} }()
					go func() { io.CopyN(c, s, handshake); done <- struct{}{} }()
					<-done
					<-done
					return
				}
				go io.Copy(s, c)
				io.Copy(c, s)
			}()
		}
	}()
	got := make(chan error, 1)
	go func() {
		buf := make([]byte, 5000)
		_, err := ranks[0].w.CommWorld().Recv(buf, 1, 1)
		if err == nil && string(buf) != string(pattern(5000, 1)) {
			err = errors.New("wrong data")
		}
		got <- err
	}()
	if err := ranks[1].w.CommWorld().Send(pattern(5000, 1), 0, 1, mpirt.ModeStandard); err != nil {
		t.Fatalf("send 1->0: %v", err)
	}
	select {
	case err := <-got:
		if err != nil {
			t.Errorf("receive 1->0: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the message from rank 1 did not arrive")
	}
	ranks[1].logs.mu.Lock()
	defer ranks[1].logs.mu.Unlock()
	again := false
	for _, line := range ranks[1].logs.lines {
		again = again || strings.Contains(line, "closed the connection before its verdict")
	}
	if !again {
		t.Errorf("rank 1 did not dial again: %q", ranks[1].logs.lines)
	}
}
