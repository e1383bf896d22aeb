package auth

import (
	"errors"
	"net"
	"sync"
	"testing"
	"time"
)

// tcpPair returns the two ends of a loopback TCP connection (buffered,
// unlike net.Pipe, as the handshake assumes).
func tcpPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c1, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c2, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	return c1, c2
}

func pair(t *testing.T, a, b []byte, ctxA, ctxB string) (errA, errB error) {
	t.Helper()
	c1, c2 := tcpPair(t)
	defer c1.Close()
	defer c2.Close()
	done := make(chan error, 1)
	go func() { done <- Handshake(c2, b, false, ctxB, time.Second) }()
	errA = Handshake(c1, a, true, ctxA, time.Second)
	if errA != nil {
		c1.Close() // unblock the other side
	}
	errB = <-done
	return
}

func TestHandshake(t *testing.T) {
	s := []byte("secret")
	if ea, eb := pair(t, s, s, "tcp", "tcp"); ea != nil || eb != nil {
		t.Fatalf("same secret: %v / %v", ea, eb)
	}
	if ea, eb := pair(t, s, []byte("other"), "tcp", "tcp"); !errors.Is(ea, ErrDenied) || !errors.Is(eb, ErrDenied) {
		t.Fatalf("different secrets accepted: %v / %v", ea, eb)
	}
	if ea, eb := pair(t, s, s, "tcp", "pmi"); ea == nil || eb == nil {
		t.Fatalf("different contexts accepted: %v / %v", ea, eb)
	}
}

func TestGarbageRefused(t *testing.T) {
	c1, c2 := tcpPair(t)
	defer c1.Close()
	go func() {
		c2.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n0123456789"))
		c2.Close()
	}()
	if err := Handshake(c1, []byte("s"), false, "tcp", time.Second); !errors.Is(err, ErrDenied) {
		t.Fatalf("garbage: %v", err)
	}
}

func TestSilentPeerTimesOut(t *testing.T) {
	c1, c2 := tcpPair(t)
	defer c1.Close()
	defer c2.Close()
	go func() { buf := make([]byte, 64); c2.Read(buf) }() // reads the hello, answers nothing
	start := time.Now()
	if err := Handshake(c1, []byte("s"), true, "tcp", 100*time.Millisecond); err == nil {
		t.Fatal("silent peer accepted")
	}
	if time.Since(start) > 2*time.Second {
		t.Fatal("timeout not honoured")
	}
}

func TestReflectionRefused(t *testing.T) {
	// An acceptor that echoes the initiator's own bytes back must fail:
	// the role byte differs.
	c1, c2 := tcpPair(t)
	defer c1.Close()
	go func() {
		buf := make([]byte, helloSize)
		n, _ := c2.Read(buf)
		c2.Write(buf[:n])
		c2.Close()
	}()
	if err := Handshake(c1, []byte("s"), true, "tcp", time.Second); !errors.Is(err, ErrDenied) {
		t.Fatalf("reflected hello: %v", err)
	}
}

// TestGate: a full gate closes its oldest connection, never holds more
// than its maximum, and a real peer authenticates during a flood of
// silent connections.
func TestGate(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	g := NewGate(8)
	maxSeen := 0
	var mu sync.Mutex
	results := make(chan error, 1000)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			g.Enter(c) // in accept order, as the servers do
			go func() {
				err := g.Pass(c, []byte("s"), "gate", 3*time.Second)
				mu.Lock()
				maxSeen = max(maxSeen, g.Waiting())
				mu.Unlock()
				if err == nil {
					c.Close()
				}
				results <- err
			}()
		}
	}()
	var silent []net.Conn
	defer func() {
		for _, c := range silent {
			c.Close()
		}
	}()
	for i := 0; i < 100; i++ {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		silent = append(silent, c)
	}
	// The honest peer comes last, behind 100 silent ones.
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := Handshake(c, []byte("s"), true, "gate", 3*time.Second); err != nil {
		t.Fatalf("a real peer during a flood: %v", err)
	}
	// Every silent one is closed: by the full gate or at the handshake's
	// deadline (3 s).
	for _, s := range silent {
		s.SetReadDeadline(time.Now().Add(6 * time.Second))
		buf := make([]byte, 64)
		for {
			if _, err := s.Read(buf); err != nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					t.Fatal("a silent connection was neither evicted nor timed out")
				}
				break
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if g.Evicted() < 92 || maxSeen > 8 || g.Waiting() != 0 {
		t.Fatalf("evicted %d, waiting at most %d now %d (gate of 8)", g.Evicted(), maxSeen, g.Waiting())
	}
}
