package auth

import (
	"errors"
	"net"
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
