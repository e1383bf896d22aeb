package names

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"gmpi/internal/fuzzseed"
	attack "gmpi/internal/hostile"
	"gmpi/runtime/auth"
)

func TestLocal(t *testing.T) {
	svc := fmt.Sprintf("gmpi-test-%d", os.Getpid())
	if _, err := LookupLocal(svc); !errors.Is(err, ErrNotFound) {
		t.Fatalf("lookup before publish: %v", err)
	}
	p, err := PublishLocal(svc, "port;with spaces")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := PublishLocal(svc, "other"); !errors.Is(err, ErrPublished) {
		t.Errorf("second publish: %v", err)
	}
	got, err := LookupLocal(svc)
	if err != nil || got != "port;with spaces" {
		t.Errorf("lookup: %q %v", got, err)
	}
	p.Close()
	if _, err := LookupLocal(svc); !errors.Is(err, ErrNotFound) {
		t.Errorf("lookup after close: %v", err)
	}
}

func TestServer(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go NewServer(key).Serve(l)
	// Garbage and a half-open connection first: the server goes on.
	if c, err := net.Dial("tcp", l.Addr().String()); err == nil {
		c.Write([]byte("GET / HTTP/1.0\r\n\r\n" + string(make([]byte, 5000))))
		c.Close()
	}
	half, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer half.Close()
	bad := &Client{Addr: l.Addr().String(), Key: []byte("wrong key wrong key wrong key!!!")}
	if err := bad.Publish("s", "p"); err == nil {
		t.Error("a client with the wrong key could publish")
	}
	cl := &Client{Addr: l.Addr().String(), Key: key}
	if _, err := cl.Lookup("svc"); !errors.Is(err, ErrNotFound) {
		t.Errorf("lookup unknown: %v", err)
	}
	if err := cl.Unpublish("svc"); !errors.Is(err, ErrNotMine) {
		t.Errorf("unpublish unknown: %v", err)
	}
	if err := cl.Publish("svc", "the port"); err != nil {
		t.Fatal(err)
	}
	if err := cl.Publish("svc", "x"); !errors.Is(err, ErrPublished) {
		t.Errorf("publish twice: %v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if got, err := cl.Lookup("svc"); err != nil || got != "the port" {
			t.Errorf("lookup: %q %v", got, err)
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("lookup hung")
	}
	if err := cl.Unpublish("svc"); err != nil {
		t.Error(err)
	}
	if _, err := cl.Lookup("svc"); !errors.Is(err, ErrNotFound) {
		t.Errorf("lookup after unpublish: %v", err)
	}
}

// TestServerFull: a client publishing without end is refused with
// ErrFull at the server's bound; lookups and unpublishing go on, and a
// name unpublished makes room again.
func TestServerFull(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	s := NewServer(key)
	s.Max = 20
	go s.Serve(l)
	cl := &Client{Addr: l.Addr().String(), Key: key}
	for i := 0; i < 20; i++ {
		if err := cl.Publish(fmt.Sprint("svc", i), "port"); err != nil {
			t.Fatalf("name %d of 20: %v", i, err)
		}
	}
	if err := cl.Publish("one-more", "port"); !errors.Is(err, ErrFull) || !strings.Contains(err.Error(), "maximum") {
		t.Fatalf("name 21 of 20: %v", err)
	}
	if p, err := cl.Lookup("svc7"); err != nil || p != "port" {
		t.Fatalf("lookup when full: %q %v", p, err)
	}
	if err := cl.Unpublish("svc7"); err != nil {
		t.Fatal(err)
	}
	if err := cl.Publish("one-more", "port"); err != nil {
		t.Fatalf("after an unpublish: %v", err)
	}
}

func FuzzAnswer(f *testing.F) {
	fuzzseed.Add(f, []any{"publish 6162 6364"}, []any{"lookup 6162"}, []any{"unpublish 6162"}, []any{"unpublish zz"},
		[]any{"publish 6162"}, []any{"lookup"}, []any{""}, []any{"publish 61 " + strings.Repeat("00", 2000)}, []any{"bogus 61"})
	f.Fuzz(func(t *testing.T, line string) {
		NewServer([]byte("k")).answer(line)
	})
}

// FuzzClientAnswer: the answer line a name server sends a client (every
// kind the server writes, and garbage) gives a port, a known error or a
// "malformed answer" error, never a panic or a port longer than maxLen.
func FuzzClientAnswer(f *testing.F) {
	fuzzseed.Add(f, []any{"ok\n"}, []any{"ok " + hx("gmpi1;127.0.0.1;5000;00") + "\n"}, []any{"err name\n"},
		[]any{"err service\n"}, []any{"err published\n"}, []any{"err full\n"}, []any{"err request\n"}, []any{"ok zz\n"},
		[]any{"ok " + strings.Repeat("61", maxLen+1) + "\n"}, []any{"x name\n"}, []any{""})
	f.Fuzz(func(t *testing.T, line string) {
		port, err := parseAnswer("fuzz", line)
		if len(port) > maxLen {
			t.Fatalf("port of %d bytes", len(port))
		}
		if err != nil && port != "" {
			t.Fatalf("error %v with port %q", err, port)
		}
	})
}

// TestServerHostile: garbage, a half-open, a slow and 1000 silent
// connections to the name server are dropped within its handshake
// deadline, at most auth.DefaultGate wait at once, and clients are
// served during the flood; so are connections that prove the key and
// then send garbage, a request cut short, an endless line or nothing.
func TestServerHostile(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	s := NewServer(key)
	s.Timeout = time.Second
	var logMu sync.Mutex
	dropped := 0
	s.Log = func(f string, a ...any) {
		if strings.HasPrefix(f, "dropped") {
			logMu.Lock()
			dropped++
			logMu.Unlock()
		}
	}
	go s.Serve(l)
	a, err := attack.Start(l.Addr().String(), 1000, 250*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if w := s.gate.Waiting(); w > auth.DefaultGate {
		t.Errorf("%d connections in their handshake", w)
	}
	if err := a.Authed(key, "names"); err != nil {
		t.Fatal(err)
	}
	cl := &Client{Addr: l.Addr().String(), Key: key}
	if err := cl.Publish("svc", "port"); err != nil {
		t.Fatalf("publish during the flood: %v", err)
	}
	if p, err := cl.Lookup("svc"); err != nil || p != "port" {
		t.Errorf("lookup during the flood: %q %v", p, err)
	}
	if err := a.Check(10 * time.Second); err != nil {
		t.Error(err)
	}
	if w := s.gate.Waiting(); w != 0 {
		t.Errorf("%d connections still waiting", w)
	}
	logMu.Lock()
	if dropped != 4 {
		t.Errorf("%d authenticated connections dropped with a message, want 4", dropped)
	}
	logMu.Unlock()
}
