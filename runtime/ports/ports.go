// Package ports opens gmpi's listening sockets inside a configured port
// range (GMPI_TCP_PORT_RANGE=low:high, or a grid file's port_range), so
// that a site firewall that admits only those ports lets the job's
// connections in. Every listening socket gmpi opens for other hosts
// (rank links, mpirun's PMI port, relays, ports of MPI_Open_port and the
// name service) goes through Listen. Outgoing connections may leave from a
// range too (GMPI_TCP_SOURCE_PORT_RANGE, a grid file's source_port_range),
// for sites whose egress rules admit only some source ports: they go
// through Dial.
package ports

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gmpi/runtime/param"
)

// Range is an inclusive range of TCP ports; the zero Range means any
// port (the kernel picks one).
type Range struct{ Lo, Hi int }

// Any reports whether r leaves the port to the kernel.
func (r Range) Any() bool { return r.Lo == 0 && r.Hi == 0 }

// String writes r as Parse reads it ("" for any port).
func (r Range) String() string {
	if r.Any() {
		return ""
	}
	return strconv.Itoa(r.Lo) + ":" + strconv.Itoa(r.Hi)
}

// Size is the number of ports in r (0 for any port).
func (r Range) Size() int {
	if r.Any() {
		return 0
	}
	return r.Hi - r.Lo + 1
}

// Contains reports whether port is in r (always true for any port).
func (r Range) Contains(port int) bool { return r.Any() || port >= r.Lo && port <= r.Hi }

// Parse reads "low:high" (also "low-high", or a single port); "" is any
// port. Ports are 1..65535 and low <= high.
func Parse(s string) (Range, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Range{}, nil
	}
	lo, hi, ok := strings.Cut(s, ":")
	if !ok {
		lo, hi, ok = strings.Cut(s, "-")
	}
	if !ok {
		hi = lo
	}
	l, err1 := strconv.Atoi(strings.TrimSpace(lo))
	h, err2 := strconv.Atoi(strings.TrimSpace(hi))
	switch {
	case err1 != nil || err2 != nil:
		return Range{}, fmt.Errorf("port range %q: want low:high, e.g. 40000:40015", s)
	case l < 1 || h > 65535 || l > h:
		return Range{}, fmt.Errorf("port range %q: want 1 <= low <= high <= 65535", s)
	}
	return Range{l, h}, nil
}

// ErrExhausted is wrapped by Listen's error when every port of the range
// is taken.
var ErrExhausted = errors.New("port range exhausted")

// Listen opens a TCP listener on host (an IP address, "" for every
// address) at a port of r: the kernel's choice when r is any port, else
// the ports of r tried in turn from a random one, skipping those in use.
// what names the socket and source the setting in messages (e.g. "the tcp
// device", "GMPI_TCP_PORT_RANGE"). When every port is taken the error
// wraps ErrExhausted and names the range.
func Listen(host string, r Range, what, source string) (net.Listener, error) {
	if r.Any() {
		l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return nil, fmt.Errorf("%s: listening on %s: %w", what, orAll(host), err)
		}
		return l, nil
	}
	n := r.Size()
	start := rand.IntN(n)
	for i := 0; i < n; i++ {
		port := r.Lo + (start+i)%n
		l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err == nil {
			return l, nil
		}
		if !errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("%s: listening on %s port %d: %w", what, orAll(host), port, err)
		}
	}
	return nil, fmt.Errorf("%s: every port of %s=%s is in use on %s (%d ports): widen the range: %w",
		what, source, r, orAll(host), n, ErrExhausted)
}

func orAll(host string) string {
	if host == "" {
		return "every address"
	}
	return host
}

// FromParams is the range GMPI_TCP_PORT_RANGE sets (any port when unset);
// a malformed value is an error naming the variable.
func FromParams(p *param.Values) (Range, error) {
	r, err := Parse(param.TCPPortRange.Get(p))
	if err != nil {
		return Range{}, fmt.Errorf("%s: %w", param.TCPPortRange.Name(), err)
	}
	return r, nil
}

// ListenConfigured is Listen in the range GMPI_TCP_PORT_RANGE of p says:
// what every gmpi socket that other hosts dial calls (p nil: the process
// environment).
func ListenConfigured(p *param.Values, host, what string) (net.Listener, error) {
	p, err := param.OrEnv(p)
	if err != nil {
		return nil, err
	}
	r, err := FromParams(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return Listen(host, r, what, param.TCPPortRange.Name())
}

// Dial connects to addr ("host:port") over TCP within timeout, from a
// port of r: any port when r is any port, else the ports of r tried in
// turn from a random one. A source port may serve several connections to
// different peers (SO_REUSEADDR), so a small range is enough; a port that
// is taken (bound by a listener, or already connected to this peer) is
// skipped. A refusal, a timeout or any other answer about the peer ends
// the attempt at once. When every port is taken the error wraps
// ErrExhausted and names the range and source (the setting).
func Dial(addr string, r Range, timeout time.Duration, what, source string) (net.Conn, error) {
	if r.Any() {
		d := net.Dialer{Timeout: timeout}
		return d.Dial("tcp", addr)
	}
	deadline := time.Now().Add(timeout)
	n := r.Size()
	start := rand.IntN(n)
	for i := 0; i < n; i++ {
		port := r.Lo + (start+i)%n
		d := net.Dialer{Deadline: deadline, LocalAddr: &net.TCPAddr{Port: port}, Control: reuseAddr}
		c, err := d.Dial("tcp", addr)
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, syscall.EADDRINUSE) && !errors.Is(err, syscall.EADDRNOTAVAIL) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("%s: dialling %s: every source port of %s=%s is taken (%d ports): widen the range: %w",
		what, addr, source, r, n, ErrExhausted)
}

func reuseAddr(network, address string, rc syscall.RawConn) error {
	var serr error
	err := rc.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1)
	})
	if err != nil {
		return err
	}
	return serr
}

// SourceFromParams is the range GMPI_TCP_SOURCE_PORT_RANGE sets (any port
// when unset); a malformed value is an error naming the variable.
func SourceFromParams(p *param.Values) (Range, error) {
	r, err := Parse(param.TCPSourcePortRange.Get(p))
	if err != nil {
		return Range{}, fmt.Errorf("%s: %w", param.TCPSourcePortRange.Name(), err)
	}
	return r, nil
}

// DialConfigured is Dial from the range GMPI_TCP_SOURCE_PORT_RANGE of p
// says (p nil: the process environment): what every connection gmpi opens
// to another host calls.
func DialConfigured(p *param.Values, addr string, timeout time.Duration, what string) (net.Conn, error) {
	p, err := param.OrEnv(p)
	if err != nil {
		return nil, err
	}
	r, err := SourceFromParams(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return Dial(addr, r, timeout, what, param.TCPSourcePortRange.Name())
}
