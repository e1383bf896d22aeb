// Package relay carries the tcp device's connections between sites
// whose hosts cannot dial each other: a site marked private in the grid
// file has a relay on its gateway host (started by mpirun, "mpirun
// __relay"), which listens on one port (in the site's port range) and
// forwards connections in both directions: from other sites to the
// site's hosts, and from the site's hosts to other sites (through the
// other site's relay too when that one is private as well).
//
// Every pair of ranks that goes through relays gets a connection of its
// own at each relay, so per-pair order is TCP's, a stalled receiver
// stalls only its own pair (TCP flow control end to end: a relay holds
// at most a pipe's worth of a pair's bytes, never a whole message), and
// the relay forwards with splice(2), without copying through user space
// (pump.go).
// Above the relay hops the two ranks run their usual handshake (the job
// secret, context "tcp") and frames, so a relay sees nothing it could
// forge or read usefully, and a relay of another job is refused by the
// ranks themselves.
//
// The relay protocol, on each hop (client: a rank or the previous
// relay):
//
//	auth.Handshake      the job secret, context "relay" (a connection that
//	                    fails it is closed: scanners and strangers cost
//	                    one bounded handshake)
//	request (client)    24-byte header | count × (len u8 | address)
//	  header            "GRLY" | version u8 (1) | count u8 (1..maxAddrs) |
//	                    u16 0 | job hash u64 | from rank u32 | to rank u32
//	  addresses         the hops still to go, the last one the target rank's
//	                    card ("host:port"); the relay dials the first and,
//	                    when more follow, asks that relay for the rest
//	reply (relay)       'Y' (the path is open: from now on the connection
//	                    carries the pair's bytes both ways) or
//	                    'N' | len u16 | message (why not; the relay closes)
//
// All integers are little-endian.
package relay

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"gmpi/runtime/auth"
	"gmpi/runtime/ports"
)

const (
	magic      = "GRLY"
	version    = 1
	headerSize = 24
	// maxAddrs bounds a request: two relays and the target.
	maxAddrs = 4
	// maxMessage bounds a refusal's message.
	maxMessage = 1024

	replyYes byte = 'Y'
	replyNo  byte = 'N'

	// Context is the auth.Handshake context of a relay hop.
	Context = "relay"
)

// Request is what a client asks of a relay.
type Request struct {
	Job      uint64
	From, To int // world ranks, for messages
	// Addrs are the hops still to go; the last is the target's card.
	Addrs []string
}

// marshal encodes r.
func (r *Request) marshal() ([]byte, error) {
	if len(r.Addrs) == 0 || len(r.Addrs) > maxAddrs {
		return nil, fmt.Errorf("relay request with %d addresses (1..%d)", len(r.Addrs), maxAddrs)
	}
	b := make([]byte, headerSize, headerSize+64)
	copy(b, magic)
	b[4], b[5] = version, byte(len(r.Addrs))
	le := binary.LittleEndian
	le.PutUint64(b[8:], r.Job)
	le.PutUint32(b[16:], uint32(r.From))
	le.PutUint32(b[20:], uint32(r.To))
	for _, a := range r.Addrs {
		if len(a) == 0 || len(a) > 255 {
			return nil, fmt.Errorf("relay request: bad address %q", a)
		}
		b = append(b, byte(len(a)))
		b = append(b, a...)
	}
	return b, nil
}

// ReadRequest decodes a request from r; it reads at most what the header
// announces (bounded: maxAddrs addresses of at most 255 bytes) and checks
// every field, so a stranger's bytes are an error, never a panic or an
// allocation they choose.
func ReadRequest(r io.Reader) (*Request, error) {
	var h [headerSize]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, fmt.Errorf("reading the relay request: %w", err)
	}
	if string(h[:4]) != magic {
		return nil, errors.New("not a gmpi relay request")
	}
	if h[4] != version {
		return nil, fmt.Errorf("relay request of version %d (want %d)", h[4], version)
	}
	n := int(h[5])
	if n < 1 || n > maxAddrs || h[6] != 0 || h[7] != 0 {
		return nil, fmt.Errorf("bad relay request header (%d addresses)", n)
	}
	le := binary.LittleEndian
	req := &Request{Job: le.Uint64(h[8:]), From: int(int32(le.Uint32(h[16:]))), To: int(int32(le.Uint32(h[20:])))}
	if req.From < 0 || req.To < 0 {
		return nil, errors.New("relay request names a negative rank")
	}
	var buf [255]byte
	for i := 0; i < n; i++ {
		var l [1]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return nil, fmt.Errorf("reading the relay request: %w", err)
		}
		if l[0] == 0 {
			return nil, errors.New("relay request with an empty address")
		}
		a := buf[:l[0]]
		if _, err := io.ReadFull(r, a); err != nil {
			return nil, fmt.Errorf("reading the relay request: %w", err)
		}
		if err := checkAddr(string(a)); err != nil {
			return nil, err
		}
		req.Addrs = append(req.Addrs, string(a))
	}
	return req, nil
}

// checkAddr accepts "host:port" with a printable host and a port 1..65535.
func checkAddr(a string) error {
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return fmt.Errorf("relay request: bad address %q", a)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 1 || p > 65535 || host == "" {
		return fmt.Errorf("relay request: bad address %q", a)
	}
	for _, c := range host {
		if c <= ' ' || c > '~' {
			return fmt.Errorf("relay request: bad address %q", a)
		}
	}
	return nil
}

// writeReply sends the relay's verdict: nil is 'Y'.
func writeReply(w io.Writer, refusal error) error {
	if refusal == nil {
		_, err := w.Write([]byte{replyYes})
		return err
	}
	msg := refusal.Error()
	if len(msg) > maxMessage {
		msg = msg[:maxMessage]
	}
	b := make([]byte, 3, 3+len(msg))
	b[0] = replyNo
	binary.LittleEndian.PutUint16(b[1:], uint16(len(msg)))
	_, err := w.Write(append(b, msg...))
	return err
}

// ErrRefused is wrapped by the error of a relay that could not open the
// path; the message says why.
var ErrRefused = errors.New("relay refused")

// ReadReply decodes a relay's verdict: nil when the path is open, an
// error wrapping ErrRefused with the relay's message when not, another
// error when the reply is malformed or missing.
func ReadReply(r io.Reader) error {
	var v [1]byte
	if _, err := io.ReadFull(r, v[:]); err != nil {
		return fmt.Errorf("waiting for the relay's answer: %w", err)
	}
	switch v[0] {
	case replyYes:
		return nil
	case replyNo:
	default:
		return fmt.Errorf("bad relay answer %#x", v[0])
	}
	var l [2]byte
	if _, err := io.ReadFull(r, l[:]); err != nil {
		return fmt.Errorf("reading the relay's refusal: %w", err)
	}
	n := int(binary.LittleEndian.Uint16(l[:]))
	if n > maxMessage {
		return fmt.Errorf("relay refusal of %d bytes (at most %d)", n, maxMessage)
	}
	msg := make([]byte, n)
	if _, err := io.ReadFull(r, msg); err != nil {
		return fmt.Errorf("reading the relay's refusal: %w", err)
	}
	return fmt.Errorf("%w: %s", ErrRefused, strings.ToValidUTF8(string(msg), "?"))
}

// Dial opens a path through relays: it dials hops[0], proves the secret,
// and asks for hops[1:] and then target; it returns the connection once
// every relay on the way said yes. The caller then talks to target's
// rank as over a direct connection. timeout bounds each dial and the
// whole exchange.
//
// The connection leaves from a port of src (GMPI_TCP_SOURCE_PORT_RANGE).
func Dial(hops []string, target string, secret []byte, job uint64, from, to int, src ports.Range, timeout time.Duration) (*net.TCPConn, error) {
	if len(hops) == 0 {
		return nil, errors.New("relay.Dial without a relay")
	}
	req := &Request{Job: job, From: from, To: to, Addrs: append(append([]string(nil), hops[1:]...), target)}
	return dialHop(hops[0], req, secret, src, timeout)
}

// sourceSetting names the source port range in messages.
const sourceSetting = "source_port_range (GMPI_TCP_SOURCE_PORT_RANGE)"

// dialHop dials the relay at addr, from a port of src, and sends req.
func dialHop(addr string, req *Request, secret []byte, src ports.Range, timeout time.Duration) (*net.TCPConn, error) {
	b, err := req.marshal()
	if err != nil {
		return nil, err
	}
	c, err := ports.Dial(addr, src, timeout, "a relay's client", sourceSetting)
	if err != nil {
		return nil, fmt.Errorf("dialling the relay at %s: %w", addr, err)
	}
	nc := c.(*net.TCPConn)
	Tune(nc, timeout)
	fail := func(err error) (*net.TCPConn, error) {
		nc.Close()
		return nil, err
	}
	if err := auth.Handshake(nc, secret, true, Context, timeout); err != nil {
		return fail(fmt.Errorf("authenticating to the relay at %s: %w", addr, err))
	}
	// Each further hop needs its own dial and handshake.
	nc.SetDeadline(time.Now().Add(time.Duration(len(req.Addrs)) * (2*timeout + time.Second)))
	if _, err := nc.Write(b); err != nil {
		return fail(fmt.Errorf("asking the relay at %s: %w", addr, err))
	}
	if err := ReadReply(nc); err != nil {
		return fail(fmt.Errorf("relay at %s: %w", addr, err))
	}
	nc.SetDeadline(time.Time{})
	return nc, nil
}

// Tune sets the options of a relayed connection: no Nagle, large
// buffers, and keepalive plus TCP_USER_TIMEOUT so that a vanished peer is
// noticed within about timeout.
func Tune(c *net.TCPConn, timeout time.Duration) {
	c.SetNoDelay(true)
	c.SetReadBuffer(sockBuf)
	c.SetWriteBuffer(sockBuf)
	idle := max(timeout/3, time.Second)
	c.SetKeepAliveConfig(net.KeepAliveConfig{Enable: true, Idle: idle, Interval: max(idle/4, time.Second), Count: 4})
	if rc, err := c.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) {
			unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, int(timeout/time.Millisecond))
		})
	}
}

const sockBuf = 4 << 20
