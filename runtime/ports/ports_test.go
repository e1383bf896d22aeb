package ports

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"gmpi/runtime/param"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Range
	}{{"", Range{}}, {"40000:40015", Range{40000, 40015}}, {" 5-7 ", Range{5, 7}}, {"8080", Range{8080, 8080}}} {
		got, err := Parse(c.in)
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
		if again, _ := Parse(got.String()); again != got {
			t.Errorf("Parse(String(%v)) = %v", got, again)
		}
	}
	for _, bad := range []string{"0:10", "10:5", "1:70000", "a:b", "1:", ":2", "-1:3"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

// TestListenRange fills a small range and checks the error names it.
func TestListenRange(t *testing.T) {
	// A free-looking range: around a port the kernel just gave.
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := probe.Addr().(*net.TCPAddr).Port
	probe.Close()
	r := Range{p, p + 2}
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for i := 0; i < r.Size(); i++ {
		l, err := Listen("127.0.0.1", r, "test", "GMPI_TCP_PORT_RANGE")
		if err != nil {
			t.Skipf("range %v partly taken by another process: %v", r, err)
		}
		if port := l.Addr().(*net.TCPAddr).Port; !r.Contains(port) {
			t.Fatalf("listening on port %d, outside %v", port, r)
		}
		ls = append(ls, l)
	}
	_, err = Listen("127.0.0.1", r, "test", "GMPI_TCP_PORT_RANGE")
	if !errors.Is(err, ErrExhausted) || !strings.Contains(err.Error(), "GMPI_TCP_PORT_RANGE="+r.String()) {
		t.Fatalf("full range: %v", err)
	}
}

func TestListenConfigured(t *testing.T) {
	v, err := param.Map(map[string]string{"GMPI_TCP_PORT_RANGE": "nonsense"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ListenConfigured(v, "127.0.0.1", "test"); err == nil || !strings.Contains(err.Error(), "GMPI_TCP_PORT_RANGE") {
		t.Errorf("malformed range: %v", err)
	}
	v, _ = param.Map(nil)
	l, err := ListenConfigured(v, "127.0.0.1", "test")
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
}

// TestDialRange: connections leave from ports of the range, several
// peers share a source port, and when the range's ports are all
// connected to one peer the error names the range.
func TestDialRange(t *testing.T) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range 2 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				defer c.Close()
			}
		}()
	}
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := probe.Addr().(*net.TCPAddr).Port
	probe.Close()
	r := Range{p, p + 1}
	var cs []net.Conn
	defer func() {
		for _, c := range cs {
			c.Close()
		}
	}()
	// Two connections to each of two peers: four connections, two ports.
	for i := range 4 {
		c, err := Dial(ls[i%2].Addr().String(), r, 5*time.Second, "test", "GMPI_TCP_SOURCE_PORT_RANGE")
		if err != nil {
			t.Skipf("range %v partly taken by another process: %v", r, err)
		}
		if port := c.LocalAddr().(*net.TCPAddr).Port; !r.Contains(port) {
			t.Fatalf("connection %d leaves from port %d, outside %v", i, port, r)
		}
		cs = append(cs, c)
	}
	_, err = Dial(ls[0].Addr().String(), r, 5*time.Second, "test", "GMPI_TCP_SOURCE_PORT_RANGE")
	if !errors.Is(err, ErrExhausted) || !strings.Contains(err.Error(), "GMPI_TCP_SOURCE_PORT_RANGE="+r.String()) {
		t.Fatalf("range used up towards one peer: %v", err)
	}
	// A refusal is the peer's answer, not a reason to try other ports.
	probe, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := probe.Addr().String()
	probe.Close()
	if _, err := Dial(dead, r, 5*time.Second, "test", "X"); err == nil || errors.Is(err, ErrExhausted) {
		t.Fatalf("dialling a closed port: %v", err)
	}
	v, _ := param.Map(map[string]string{"GMPI_TCP_SOURCE_PORT_RANGE": "9:1"})
	if _, err := DialConfigured(v, ls[0].Addr().String(), time.Second, "test"); err == nil || !strings.Contains(err.Error(), "GMPI_TCP_SOURCE_PORT_RANGE") {
		t.Errorf("malformed source range: %v", err)
	}
}
