package tcp

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"gmpi/runtime/auth"
	"gmpi/runtime/param"
	"gmpi/runtime/ports"
)

// Ports (MPI_Open_port): a listening socket and a secret. The port name
// carries every address of this host a peer may dial and the secret:
//
//	gmpi1;ADDR,ADDR,...;PORT;SECRET(hex)
//
// A connection to the port proves the secret both ways (auth.Handshake,
// context "port") before anything else; one that does not is dropped
// and the port goes on serving. Authenticated connections wait in a
// queue for MPI_Comm_accept. Over a connection both ends exchange
// length-prefixed messages (MsgConn).

const (
	portPrefix  = "gmpi1;"
	portContext = "port"
	// maxPortName is MPI_MAX_PORT_NAME minus the terminating NUL.
	maxPortName = 255
	portSecret  = 16
	// portBacklog is how many authenticated connections wait for
	// MPI_Comm_accept; later ones are refused.
	portBacklog = 64
)

// portAuthTimeout bounds the handshake of a connection to a port
// (GMPI_AUTH_TIMEOUT).
func portAuthTimeout() time.Duration {
	if p, err := param.Env(); err == nil {
		if t := param.AuthTimeout.Get(p); t > 0 {
			return t
		}
	}
	return 10 * time.Second
}

// ErrBadPort is wrapped by the errors of a malformed port name.
var ErrBadPort = errors.New("not a gmpi port name")

// Port is an open port.
type Port struct {
	Name   string
	secret []byte
	l      net.Listener
	queue  chan net.Conn
	done   chan struct{}
	once   sync.Once
	log    func(format string, args ...any)
	// gate bounds the connections in their handshake.
	gate   *auth.Gate
	authTO time.Duration
}

// OpenPort opens a port on the addresses spec selects (GMPI_TCP_IF, as
// Listen). log receives refused connections (may be nil).
func OpenPort(spec string, log func(string, ...any)) (*Port, error) {
	l, card, err := Listen(spec)
	if err != nil {
		return nil, err
	}
	host, port, _ := net.SplitHostPort(card)
	secret := make([]byte, portSecret)
	if _, err := rand.Read(secret); err != nil {
		l.Close()
		return nil, err
	}
	tail := ";" + port + ";" + hex.EncodeToString(secret)
	addrs := []string{host}
	if ip := l.Addr().(*net.TCPAddr).IP; ip.IsUnspecified() {
		// Bound to every address: name the others too, loopback last.
		if as, err := localAddrs(); err == nil {
			for _, a := range as {
				if s := a.ip.String(); s != host && !a.ip.IsLoopback() && !a.ip.IsLinkLocalUnicast() && a.ip.To4() != nil {
					addrs = append(addrs, s)
				}
			}
		}
		if host != "127.0.0.1" {
			addrs = append(addrs, "127.0.0.1")
		}
	}
	name := portPrefix + addrs[0]
	for _, a := range addrs[1:] {
		if len(name)+1+len(a)+len(tail) > maxPortName {
			break
		}
		name += "," + a
	}
	p := &Port{Name: name + tail, secret: secret, l: l, queue: make(chan net.Conn, portBacklog),
		done: make(chan struct{}), log: log, gate: auth.NewGate(0),
		authTO: portAuthTimeout()}
	go p.serve()
	return p, nil
}

func (p *Port) logf(format string, args ...any) {
	if p.log != nil {
		p.log(format, args...)
	}
}

func (p *Port) serve() {
	for {
		c, err := p.l.Accept()
		if err != nil {
			select {
			case <-p.done:
				return
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			time.Sleep(10 * time.Millisecond) // EMFILE and the like
			continue
		}
		p.gate.Enter(c)
		go p.admit(c)
	}
}

// admit authenticates a connection that entered the gate and queues it
// for accept.
func (p *Port) admit(c net.Conn) {
	if err := p.gate.Pass(c, p.secret, portContext, p.authTO); err != nil {
		p.logf("port: refused a connection from %s: %v", c.RemoteAddr(), err)
		return
	}
	select {
	case p.queue <- c:
		select {
		case <-p.done: // closed meanwhile: Close may have drained already
			p.drain()
		default:
		}
	default:
		p.logf("port: refused a connection from %s: %d connections already wait for MPI_Comm_accept", c.RemoteAddr(), portBacklog)
		c.Close()
	}
}

// AcceptClient returns the next connection whose client still waits in
// MPI_Comm_connect: each connection Accept gives is sent "accept" and
// must answer "connect" within the handshake's deadline
// (GMPI_AUTH_TIMEOUT, at most timeout), as a waiting client does at once.
// One that does not (a client that gave up, or a peer that knows the
// secret and sends anything else, a longer message, or nothing) is
// dropped with a message and the next one taken. The connection returned
// has timeout as its deadline.
func (p *Port) AcceptClient(timeout time.Duration) (*MsgConn, error) {
	for {
		m, err := p.Accept()
		if err != nil {
			return nil, err
		}
		m.SetDeadline(time.Now().Add(min(timeout, p.authTO)))
		err = m.Send([]byte("accept"))
		var b []byte
		if err == nil {
			b, err = m.recvMax(len("connect"))
		}
		if err == nil && string(b) == "connect" {
			m.SetDeadline(time.Now().Add(timeout))
			return m, nil
		}
		if err == nil {
			err = fmt.Errorf("answer %.20q instead of \"connect\"", b)
		}
		p.logf("port: dropped a connection from %s: %v", m.c.RemoteAddr(), err)
		m.Close()
	}
}

// Secret is the port's secret (the key from which the link secret of a
// connection through it is derived).
func (p *Port) Secret() []byte { return p.secret }

// Accept returns the next authenticated connection (blocking), or an
// error once the port is closed.
func (p *Port) Accept() (*MsgConn, error) {
	select {
	case c := <-p.queue:
		return NewMsgConn(c), nil
	case <-p.done:
		return nil, errors.New("the port was closed")
	}
}

// Close stops listening and drops the connections still waiting.
func (p *Port) Close() {
	p.once.Do(func() {
		close(p.done)
		p.l.Close()
		p.drain()
	})
}

func (p *Port) drain() {
	for {
		select {
		case c := <-p.queue:
			c.Close()
		default:
			return
		}
	}
}

// ParsePortName returns the addresses ("ip:port") and the secret a port
// name carries.
func ParsePortName(name string) (addrs []string, secret []byte, err error) {
	if !strings.HasPrefix(name, portPrefix) {
		return nil, nil, fmt.Errorf("%w: %.40q", ErrBadPort, name)
	}
	f := strings.Split(name[len(portPrefix):], ";")
	if len(f) != 3 {
		return nil, nil, fmt.Errorf("%w: %.40q (wrong number of fields)", ErrBadPort, name)
	}
	if secret, err = hex.DecodeString(f[2]); err != nil || len(secret) != portSecret {
		return nil, nil, fmt.Errorf("%w: %.40q (bad secret)", ErrBadPort, name)
	}
	for _, a := range strings.Split(f[0], ",") {
		if net.ParseIP(a) == nil {
			return nil, nil, fmt.Errorf("%w: %.40q (bad address %q)", ErrBadPort, name, a)
		}
		addrs = append(addrs, net.JoinHostPort(a, f[1]))
	}
	if _, err := net.LookupPort("tcp", f[1]); err != nil {
		return nil, nil, fmt.Errorf("%w: %.40q (bad port)", ErrBadPort, name)
	}
	return addrs, secret, nil
}

// DialPort connects to the port name and proves its secret, trying its
// addresses in turn until deadline. A listener at one of the addresses
// that does not prove the secret (another port on another host's
// loopback) is skipped.
func DialPort(name string, deadline time.Time) (*MsgConn, error) {
	addrs, secret, err := ParsePortName(name)
	if err != nil {
		return nil, err
	}
	var last error
	for {
		for _, a := range addrs {
			left := time.Until(deadline)
			if left <= 0 {
				break
			}
			c, err := ports.DialConfigured(nil, a, min(left, 5*time.Second), "MPI_Comm_connect")
			if err != nil {
				last = err
				continue
			}
			if err := auth.Handshake(c, secret, true, portContext, min(left, 10*time.Second)); err != nil {
				c.Close()
				last = err
				continue
			}
			return NewMsgConn(c), nil
		}
		if time.Until(deadline) <= 0 {
			return nil, fmt.Errorf("no answer at %s: %v", strings.Join(addrs, ", "), last)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// maxMsg bounds a message between roots.
const maxMsg = 64 << 20

// MsgConn carries length-prefixed messages over a connection.
type MsgConn struct {
	c        net.Conn
	deadline time.Time
}

// NewMsgConn wraps c.
func NewMsgConn(c net.Conn) *MsgConn { return &MsgConn{c: c} }

// SetDeadline bounds every later Send and Recv (zero: none).
func (m *MsgConn) SetDeadline(t time.Time) { m.deadline = t; m.c.SetDeadline(t) }

// Send writes one message.
func (m *MsgConn) Send(b []byte) error {
	if len(b) > maxMsg {
		return fmt.Errorf("message of %d bytes is too long", len(b))
	}
	buf := binary.LittleEndian.AppendUint32(make([]byte, 0, 4+len(b)), uint32(len(b)))
	_, err := m.c.Write(append(buf, b...))
	return err
}

// Recv reads one message.
func (m *MsgConn) Recv() ([]byte, error) { return m.recvMax(maxMsg) }

// recvMax reads one message of at most limit bytes.
func (m *MsgConn) recvMax(limit int) ([]byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(m.c, h[:]); err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint32(h[:])
	if uint64(n) > uint64(limit) {
		return nil, fmt.Errorf("message of %d bytes announced, at most %d expected", n, limit)
	}
	// The buffer grows with what arrives: a peer that announces maxMsg
	// and sends nothing costs a chunk, not the announced length.
	b := make([]byte, 0, min(n, msgChunk))
	for uint32(len(b)) < n {
		k := min(n-uint32(len(b)), msgChunk)
		b = append(b, make([]byte, k)...)
		if _, err := io.ReadFull(m.c, b[len(b)-int(k):]); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// msgChunk is how much Recv reads at a time.
const msgChunk = 1 << 20

// Close closes the connection.
func (m *MsgConn) Close() error { return m.c.Close() }
