package ports

import (
	"errors"
	"net"
	"strings"
	"testing"

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
