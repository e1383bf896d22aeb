package relay

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	attack "gmpi/internal/hostile"
	"gmpi/runtime/auth"
	"gmpi/runtime/ports"
)

var secret = []byte("0123456789abcdef0123456789abcdef")

// startRelay runs a relay on loopback and returns its address.
func startRelay(t *testing.T, name string) (*Server, string) {
	return startRelayMax(t, name, 0)
}

func startRelayMax(t *testing.T, name string, maxPending int) (*Server, string) {
	return startRelayMode(t, name, maxPending, KernelAuto)
}

func startRelayMode(t *testing.T, name string, maxPending int, mode Kernel) (*Server, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Listener: l, Secret: secret, Timeout: 30 * time.Second, Name: "relay on host " + name, Job: 42, MaxPending: maxPending}
	s.Kernel = mode
	s.Log = t.Logf
	done := make(chan struct{})
	go func() { s.Serve(); close(done) }()
	t.Cleanup(func() { s.Close(); <-done })
	return s, l.Addr().String()
}

// startTarget accepts connections and echoes them (a rank's end).
func startTarget(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { l.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				io.Copy(struct{ io.Writer }{c}, struct{ io.Reader }{c})
				c.(*net.TCPConn).CloseWrite()
				c.Close()
			}()
		}
	}()
	return l.Addr().String()
}

func echoCheck(t *testing.T, c *net.TCPConn, n int) {
	t.Helper()
	data := make([]byte, n)
	rand.Read(data)
	errc := make(chan error, 1)
	go func() {
		_, err := c.Write(data)
		c.CloseWrite()
		errc <- err
	}()
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("echo through the relay: %d bytes back of %d, equal prefix %v", len(got), len(data), bytes.Equal(got, data[:min(len(got), len(data))]))
	}
}

// TestOneAndTwoRelays runs with the kernel's forwarding where this
// process may use it, and with splice (pump.go).
func TestOneAndTwoRelays(t *testing.T) {
	for _, mode := range []Kernel{KernelAuto, KernelOff} {
		t.Run(map[Kernel]string{KernelAuto: "auto", KernelOff: "splice"}[mode], func(t *testing.T) {
			oneAndTwoRelays(t, mode)
		})
	}
}

func oneAndTwoRelays(t *testing.T, mode Kernel) {
	target := startTarget(t)
	s1, r1 := startRelayMode(t, "a", 0, mode)
	s2, r2 := startRelayMode(t, "b", 0, mode)
	for _, hops := range [][]string{{r1}, {r1, r2}} {
		c, err := Dial(hops, target, secret, 42, 1, 2, ports.Range{}, 3*time.Second)
		if err != nil {
			t.Fatalf("Dial %v: %v", hops, err)
		}
		echoCheck(t, c, 3<<20+17) // larger than any buffer on the way
		c.Close()
	}
	if s1.Paths() != 2 || s2.Paths() != 1 {
		t.Errorf("paths: relay a %d (want 2), relay b %d (want 1)", s1.Paths(), s2.Paths())
	}
	if mode == KernelOff && s1.KernelPaths()+s2.KernelPaths() != 0 {
		t.Errorf("GMPI_RELAY_KERNEL=0, but %d paths went through the kernel", s1.KernelPaths()+s2.KernelPaths())
	}
}

// TestPairsIndependent: a pair whose receiver does not read does not
// stop another pair through the same relay.
func TestPairsIndependent(t *testing.T) {
	stalled, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	go func() {
		c, err := stalled.Accept()
		if err == nil {
			defer c.Close()
			time.Sleep(5 * time.Second) // never reads
		}
	}()
	target := startTarget(t)
	_, r := startRelay(t, "a")
	cs, err := Dial([]string{r}, stalled.Addr().String(), secret, 42, 1, 2, ports.Range{}, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	// Fill everything on the stalled path.
	go func() {
		buf := make([]byte, 1<<20)
		cs.SetWriteDeadline(time.Now().Add(4 * time.Second))
		for {
			if _, err := cs.Write(buf); err != nil {
				return
			}
		}
	}()
	time.Sleep(200 * time.Millisecond)
	c, err := Dial([]string{r}, target, secret, 42, 3, 4, ports.Range{}, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(3 * time.Second))
	echoCheck(t, c, 1<<20)
}

func TestRefusals(t *testing.T) {
	_, r := startRelay(t, "gw")
	// Nothing listens at the target: the relay says so, naming itself.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := l.Addr().String()
	l.Close()
	_, err := Dial([]string{r}, dead, secret, 42, 1, 2, ports.Range{}, 2*time.Second)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "relay on host gw") || !strings.Contains(err.Error(), dead) {
		t.Errorf("dial to a closed port through the relay: %v", err)
	}
	// Wrong secret: the relay drops the connection.
	if _, err := Dial([]string{r}, dead, []byte("another secret, 32 bytes long.."), 42, 1, 2, ports.Range{}, 2*time.Second); err == nil {
		t.Error("a client with the wrong secret got through")
	}
	// Another job: refused.
	if _, err := Dial([]string{r}, startTarget(t), secret, 43, 1, 2, ports.Range{}, 2*time.Second); err == nil {
		t.Error("a request of another job got through")
	}
}

// TestHostileClients: garbage, silence and a flood do not stop the relay.
func TestHostileClients(t *testing.T) {
	_, r := startRelayMax(t, "gw", 8)
	target := startTarget(t)
	garbage, _ := net.Dial("tcp", r)
	garbage.Write(bytes.Repeat([]byte("GET / HTTP/1.0\r\n"), 100))
	defer garbage.Close()
	// An authenticated client with a malformed request is dropped.
	c, err := net.Dial("tcp", r)
	if err != nil {
		t.Fatal(err)
	}
	if err := auth.Handshake(c, secret, true, Context, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("GRLY\x01\x09\x00\x00garbagegarbagegarbage"))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, _ := c.Read(make([]byte, 1)); n != 0 {
		t.Error("the relay answered a malformed request")
	}
	c.Close()
	var idle []net.Conn
	for i := 0; i < 20; i++ { // half-open: connect and say nothing
		if c, err := net.Dial("tcp", r); err == nil {
			idle = append(idle, c)
		}
	}
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	// The half-open ones time out (Timeout 3 s), then the job goes on.
	deadline := time.Now().Add(10 * time.Second)
	for {
		conn, err := Dial([]string{r}, target, secret, 42, 1, 2, ports.Range{}, 2*time.Second)
		if err == nil {
			echoCheck(t, conn, 1000)
			conn.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the relay serves nobody after hostile clients: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func TestRequestRoundTrip(t *testing.T) {
	req := &Request{Job: 7, From: 3, To: 9, Addrs: []string{"10.77.3.10:40000", "[::1]:5", "s2h1:41234"}}
	b, err := req.marshal()
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadRequest(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if got.Job != 7 || got.From != 3 || got.To != 9 || strings.Join(got.Addrs, " ") != strings.Join(req.Addrs, " ") {
		t.Errorf("round trip: %+v", got)
	}
	for _, bad := range []string{"", "GRLY", "XRLY\x01\x01\x00\x00" + strings.Repeat("\x00", 16),
		"GRLY\x02\x01\x00\x00" + strings.Repeat("\x00", 16) + "\x03a:1",
		"GRLY\x01\x00\x00\x00" + strings.Repeat("\x00", 16),
		"GRLY\x01\x05\x00\x00" + strings.Repeat("\x00", 16),
		"GRLY\x01\x01\x00\x00" + strings.Repeat("\x00", 16) + "\x00",
		"GRLY\x01\x01\x00\x00" + strings.Repeat("\x00", 16) + "\x09host:port",
		"GRLY\x01\x01\x00\x00" + strings.Repeat("\x00", 16) + "\x09host:0000",
	} {
		if _, err := ReadRequest(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadRequest accepted %q", bad)
		}
	}
	var w bytes.Buffer
	writeReply(&w, errors.New("no route"))
	if err := ReadReply(&w); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "no route") {
		t.Errorf("refusal round trip: %v", err)
	}
}

func TestRoutes(t *testing.T) {
	rs, err := ParseRoutes("site2@s2h0=10.77.3.10:41000 site3@g3=10.0.0.1:5,198.51.100.7:6000")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		fs, fh, ts, th string
		want           string
	}{
		{"site0", "a", "site1", "b", ""},
		{"site2", "s2h1", "site2", "s2h2", ""},
		{"site2", "s2h1", "site2", "s2h0", ""},
		{"site0", "a", "site2", "s2h0", ""},
		{"site0", "a", "site2", "s2h1", "10.77.3.10:41000"},
		{"site2", "s2h2", "site0", "a", "10.77.3.10:41000"},
		{"site2", "s2h0", "site0", "a", ""},
		{"site2", "s2h1", "site3", "h", "10.77.3.10:41000 198.51.100.7:6000"},
		{"site3", "h", "site2", "s2h1", "10.0.0.1:5 10.77.3.10:41000"},
		{"site3", "g3", "site2", "s2h0", ""},
	} {
		if got := strings.Join(rs.Hops(c.fs, c.fh, c.ts, c.th), " "); got != c.want {
			t.Errorf("Hops(%s/%s -> %s/%s) = %q, want %q", c.fs, c.fh, c.ts, c.th, got, c.want)
		}
	}
	if got := Format([]Relay{rs["site2"], rs["site3"]}); got != "site2@s2h0=10.77.3.10:41000 site3@g3=10.0.0.1:5,198.51.100.7:6000" {
		t.Errorf("Format = %q", got)
	}
	for _, bad := range []string{"site2", "site2=1.2.3.4:5", "@g=1.2.3.4:5", "s@g=1.2.3.4", "s@g=1:2 s@h=1:3"} {
		if _, err := ParseRoutes(bad); err == nil {
			t.Errorf("ParseRoutes(%q) accepted", bad)
		}
	}
}

// TestHostileFlood: garbage, a half-open, a slow and 1000 silent
// connections to a relay are dropped within its handshake deadline
// (1 s here), at most MaxPending wait at once, and a rank's path opened
// during the flood works.
func TestHostileFlood(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Listener: l, Secret: secret, Timeout: 3 * time.Second, AuthTimeout: time.Second, Name: "relay on host gw", Job: 42, MaxPending: 16}
	done := make(chan struct{})
	go func() { s.Serve(); close(done) }()
	defer func() { s.Close(); <-done }()
	target := startTarget(t)
	a, err := attack.Start(l.Addr().String(), 1000, 250*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if w := s.gate.Waiting(); w > 16 {
		t.Errorf("%d connections in their handshake (bound 16)", w)
	}
	conn, err := Dial([]string{l.Addr().String()}, target, secret, 42, 1, 2, ports.Range{}, 5*time.Second)
	if err != nil {
		t.Fatalf("a path during the flood: %v", err)
	}
	echoCheck(t, conn, 100000)
	conn.Close()
	if err := a.Check(10 * time.Second); err != nil {
		t.Error(err)
	}
	if w := s.gate.Waiting(); w != 0 {
		t.Errorf("%d connections still waiting", w)
	}
}
