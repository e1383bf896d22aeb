// Package tcp is gmpi's inter-host transport: one TCP connection per peer
// pair, used in both directions, opened on the first Send to the peer.
//
// Every connection is authenticated (auth.Handshake with the job secret,
// context "tcp") before anything else is read; then the dialler states
// its world rank and job (wire.go) and the acceptor decides whether the
// connection carries the pair's frames. When both ranks dial at once the
// connection dialled by the lower world rank wins: an acceptor refuses a
// connection from a higher rank while its own dial to that rank is under
// way, and every other duplicate; the loser's dialler then uses the
// winner. Frames travel only on the winning connection, so none is lost
// or reordered by the race.
//
// The device owns its sockets' descriptors (taken out of Go's netpoller
// once a connection is installed, so no goroutine is woken per packet).
// Incoming bytes are parsed by whichever thread drains a connection: each
// frame is read (a rendezvous data payload straight into the matched
// receive buffer, through the runtime's DataSink), queued in the device's
// inbox, and the process Waker is rung. Poll hands the queued frames to
// the Handler, so the runtime sees frames on its own threads only.
//
// Two kinds of thread drain:
//   - the drainer goroutine, blocked in epoll_wait on every connection,
//     drains while nobody inside MPI does: two ranks that send large
//     messages to each other never deadlock on full socket buffers, and
//     messages progress while the application computes;
//   - with Config.PollSockets (every peer is a tcp peer), the thread
//     waiting inside MPI: Poll reads the sockets itself (one non-blocking
//     read per connection), and once it has spun long enough it sleeps in
//     the kernel on the sockets and the doorbell at once (Sleeper). The
//     drainer then stands aside (it stays out of epoll_wait while an MPI
//     thread polled within the last standAside), so the critical path of
//     a message is one wake-up of the waiting thread, no hand-off.
//
// Without PollSockets, Poll costs one atomic load when nothing came (no
// TCP work on the shared-memory fast path). Send writes header and
// payload with one writev from the caller's buffer; when the socket is
// full it waits in poll(2) for room and drains incoming data meanwhile.
//
// Failures: a connection that ends without the peer's orderly close
// (kindBye) fails the peer: Poll reports it to the runtime
// (FailureReporter), whose requests that need the peer fail. A peer that
// stops answering (keepalive or TCP_USER_TIMEOUT, Config.Timeout) is an
// unreachable host: Config.Unreachable ends the job.
//
// Lifecycle:
//
//	Listen (card published) → New (accepting) → Start(h) → Send / Poll → Close
//	Close: kindBye and shutdown(SHUT_WR) on every connection, wait (bounded)
//	for every peer's own bye and EOF, close.
package tcp

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"gmpi/devices/relay"
	mpirt "gmpi/runtime"
	"gmpi/runtime/auth"
	"gmpi/runtime/param"
	"gmpi/runtime/ports"
)

// Config describes this rank's place in the job.
type Config struct {
	Rank, Size int
	// JobID names the job; a connection from another job is refused.
	JobID string
	// Secret is the job secret every connection proves (raw bytes).
	Secret []byte
	// Listener is this rank's socket from Listen; New starts accepting on
	// it and Close closes it.
	Listener net.Listener
	// Peers are the world ranks this device reaches.
	Peers []int
	// Card returns the card ("ip:port") of a peer; called on first dial.
	Card func(peer int) (string, error)
	// Hops returns the relays ("host:port", devices/relay) a connection
	// to peer passes, in order; nil (or a nil Hops): dial the card.
	Hops func(peer int) []string
	// Hosts is the host name of every world rank (for messages).
	Hosts []string
	// Waker is the process doorbell, rung when a frame arrives.
	Waker mpirt.Waker
	// Timeout bounds dialling and the handshake, and is how long an
	// unanswered connection lives (keepalive, TCP_USER_TIMEOUT).
	// 0: GMPI_TCP_TIMEOUT seconds, else DefaultTimeout.
	Timeout time.Duration
	// EagerLimit is the device's eager threshold; 0: GMPI_TCP_EAGER_LIMIT,
	// else the world's.
	EagerLimit int
	// Unreachable ends the job when a peer's host stops answering; nil:
	// the loss is reported like a closed connection.
	Unreachable func(peer int, msg string)
	// PollSockets makes Poll read the sockets itself (one non-blocking
	// read per connection) before it delivers what the goroutines
	// queued: the waiting thread then sees a frame as soon as it
	// arrives. Without it Poll does no TCP work (one atomic load), the
	// right choice when shared-memory peers share the polling loop.
	PollSockets bool
	// Log receives diagnostics (refused connections); may be nil.
	Log func(format string, args ...any)
	// Params are the tunables (GMPI_TCP_TIMEOUT, GMPI_TCP_EAGER_LIMIT,
	// GMPI_TCP_CONGESTION); nil: New reads the process environment.
	Params *param.Values
	// Congestion is the congestion control of every connection: "auto"
	// (see congestion), "system" (the kernel's default) or an algorithm
	// name. "": GMPI_TCP_CONGESTION.
	Congestion string
}

// DefaultTimeout is Config.Timeout when neither it nor GMPI_TCP_TIMEOUT
// says otherwise.
const DefaultTimeout = 30 * time.Second

// maxPayload is the largest frame payload (rendezvous data frames are cut
// at this size; an eager frame is at most the eager limit).
const maxPayload = 4 << 20

// Device is one rank's end of the TCP transport. It implements
// mpirt.Device, mpirt.DataSinkUser, mpirt.FailureReporter and
// mpirt.EagerLimiter.
type Device struct {
	cfg   Config
	job   uint64
	src   ports.Range // where connections to peers leave from
	peers []*peer     // indexed by world rank; nil for ranks not reached here

	handler mpirt.Handler
	// sink and failed are set by NewWorld, possibly after the first
	// connection was accepted.
	sink atomic.Pointer[mpirt.DataSink]
	// async consumes frames as they are read (mpirt.AsyncReceiver).
	async  atomic.Pointer[func(peer int, hdr *mpirt.Header, payload []byte) bool]
	failed atomic.Pointer[func(peer int, err error)]

	// inbox holds frames read by the connection goroutines until Poll
	// hands them to the Handler; n is len(items), read without the lock.
	inMu    sync.Mutex
	inbox   []inFrame
	spare   []inFrame
	n       atomic.Int32
	pollMu  sync.Mutex
	handled int // frames dispatch handed over (under pollMu)
	closing atomic.Bool
	readers sync.WaitGroup

	hsMu    sync.Mutex
	pending map[net.Conn]bool // connections still in their handshake
	// authTO is GMPI_AUTH_TIMEOUT: an incoming connection proves the
	// secret and introduces itself within min(authTO, Timeout).
	authTO time.Duration
	// gate bounds the connections that have not proved the secret and
	// introduced themselves yet (the oldest is dropped when full).
	gate *auth.Gate

	// conns lists the installed connections (copy on write, under connMu,
	// only appended: an epoll event names a connection by its index).
	connMu sync.Mutex
	conns  atomic.Pointer[[]peerConn]

	// ep is the drainer's epoll instance; stop, an eventfd in it, is
	// rung by Close. bell is the eventfd a thread in Sleep waits on
	// besides the sockets, rung by every Wake of the Waker.
	ep, stop, bell int
	// polls counts the times an MPI thread drained the sockets itself
	// (a counter, not a clock: a clock read per poll costs more than
	// the rest of an empty poll but the read); inside counts MPI threads
	// sleeping on the sockets. The drainer stands aside while either
	// moves (see drainer).
	polls    atomic.Uint64
	inside   atomic.Int32
	sleepMu  sync.Mutex // one thread at a time sleeps on the sockets
	canSleep bool       // the Waker calls kickWake on Wake

	// xinbox mirrors n for the C express lane's reader, xpolls counts
	// its polls of the sockets (SetExpressWords, express.go).
	xinbox atomic.Pointer[int32]
	xpolls atomic.Pointer[uint32]
}

// standAside is how long after an MPI thread last drained the sockets the
// drainer goroutine keeps out of epoll_wait.
const standAside = 2 * time.Millisecond

type peerConn struct {
	p *peer
	c *conn
}

var (
	_ mpirt.Device          = (*Device)(nil)
	_ mpirt.DataSinkUser    = (*Device)(nil)
	_ mpirt.FailureReporter = (*Device)(nil)
	_ mpirt.EagerLimiter    = (*Device)(nil)
	_ mpirt.AsyncReceiver   = (*Device)(nil)
)

// inFrame is a frame (or, with err set, the loss of a peer) waiting for
// Poll.
type inFrame struct {
	peer    int
	hdr     mpirt.Header
	payload []byte
	pool    *[]byte // payload came from bufPool, through pool
	err     error
}

// peer is the state of one pair.
type peer struct {
	rank int
	host string

	mu       sync.Mutex
	dialling bool
	conn     atomic.Pointer[conn] // the pair's connection, set once
	ready    chan struct{}        // closed when conn is set or err is
	err      error                // the pair is lost (under mu)
	// xlock, xfd and xrd are a C caller's (SetExpress), under mu.
	xlock *uint32
	xfd   *int32
	xrd   ExpressReader
}

// conn is the pair's connection.
type conn struct {
	fd  int // owned (non-blocking); closed by Device.Close
	idx int // index in Device.conns
	wmu sync.Mutex
	// xlock, when set (SetExpress), is a lock word that a C caller
	// takes to write small frames itself: every writer holds it too,
	// after wmu (lockW).
	xlock atomic.Pointer[uint32]
	hdr   [headerSize]byte
	vec   [2][]byte
	iov   [2]unix.Iovec // sendmsg's, under wmu
	// small frames are copied behind the header and sent with one write.
	small [headerSize + smallFrame]byte
	bye   atomic.Bool // the peer announced its orderly close
	lost  atomic.Bool // lost ran
	done  chan struct{}
	rx    rx
}

// wouldBlock waits until c's socket takes more bytes, draining every
// connection meanwhile (the peer may itself be blocked writing to us).
func (d *Device) wouldBlock(c *conn) error {
	conns := *d.conns.Load()
	fds := make([]unix.PollFd, 0, len(conns)+1)
	fds = append(fds, unix.PollFd{Fd: int32(c.fd), Events: unix.POLLOUT | unix.POLLIN})
	for _, pc := range conns {
		if pc.c != c && !pc.c.lost.Load() {
			fds = append(fds, unix.PollFd{Fd: int32(pc.c.fd), Events: unix.POLLIN})
		}
	}
	_, err := unix.Poll(fds, 1000)
	if err != nil && err != unix.EINTR {
		return err
	}
	d.drainAll(false, false)
	return nil
}

// writev writes bufs (consumed) completely.
func (d *Device) writev(c *conn, bufs [][]byte) error {
	for len(bufs) > 0 {
		// MSG_NOSIGNAL: a peer that reset the connection is an error
		// of this send, never a SIGPIPE.
		n, err := sendmsg(c.fd, bufs, &c.iov)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			if err := d.wouldBlock(c); err != nil {
				return err
			}
			continue
		case err != nil:
			return err
		}
		for n > 0 && len(bufs) > 0 {
			if n < len(bufs[0]) {
				bufs[0] = bufs[0][n:]
				n = 0
			} else {
				n -= len(bufs[0])
				bufs = bufs[1:]
			}
		}
		for len(bufs) > 0 && len(bufs[0]) == 0 {
			bufs = bufs[1:]
		}
	}
	return nil
}

// sendmsg sends bufs (at most len(iov) of them) with one sendmsg(2) (one
// buffer: send(2)),
// MSG_NOSIGNAL: a peer that reset the connection is an error of this
// send, never a SIGPIPE. Like readFD it is a raw system call (the
// socket is non-blocking) and builds no slices.
func sendmsg(fd int, bufs [][]byte, iov *[2]unix.Iovec) (int, error) {
	if len(bufs) == 1 && len(bufs[0]) > 0 {
		// One buffer (a small frame, or the rest of one): send(2) skips
		// the message header and the I/O vector the kernel copies in
		// and checks for sendmsg.
		b := bufs[0]
		r, _, e := syscall.RawSyscall6(unix.SYS_SENDTO, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), unix.MSG_NOSIGNAL, 0, 0)
		if e != 0 {
			return 0, e
		}
		return int(r), nil
	}
	k := 0
	for _, b := range bufs {
		if len(b) > 0 && k < len(iov) {
			iov[k].Base = &b[0]
			iov[k].SetLen(len(b))
			k++
		}
	}
	if k == 0 {
		return 0, nil
	}
	var msg unix.Msghdr
	msg.Iov = &iov[0]
	msg.SetIovlen(k)
	r, _, e := syscall.RawSyscall(unix.SYS_SENDMSG, uintptr(fd), uintptr(unsafe.Pointer(&msg)), unix.MSG_NOSIGNAL)
	iov[0].Base, iov[1].Base = nil, nil
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// smallFrame is the largest payload copied next to its header.
const smallFrame = 1024

// New builds the device and starts accepting connections.
func New(cfg Config) (*Device, error) {
	if cfg.Listener == nil || cfg.Card == nil || cfg.Waker == nil || len(cfg.Secret) == 0 {
		return nil, errors.New("tcp: incomplete Config (Listener, Card, Waker and Secret are required)")
	}
	params, err := param.OrEnv(cfg.Params)
	if err != nil {
		return nil, fmt.Errorf("tcp: %w", err)
	}
	if cfg.Timeout <= 0 {
		if cfg.Timeout = param.TCPTimeout.Get(params); cfg.Timeout <= 0 {
			cfg.Timeout = DefaultTimeout
		}
	}
	if cfg.EagerLimit <= 0 {
		cfg.EagerLimit = param.TCPEagerLimit.Get(params)
	}
	if cfg.Congestion == "" {
		cfg.Congestion = param.TCPCongestion.Get(params)
	}
	src, err := ports.SourceFromParams(params)
	if err != nil {
		return nil, fmt.Errorf("tcp: %w", err)
	}
	d := &Device{cfg: cfg, job: jobHash(cfg.JobID), peers: make([]*peer, cfg.Size), pending: map[net.Conn]bool{},
		gate: auth.NewGate(0), authTO: param.AuthTimeout.Get(params), src: src}
	if d.authTO <= 0 {
		d.authTO = 10 * time.Second
	}
	d.conns.Store(new([]peerConn))
	for _, r := range cfg.Peers {
		if r < 0 || r >= cfg.Size || r == cfg.Rank {
			return nil, fmt.Errorf("tcp: bad peer %d", r)
		}
		p := &peer{rank: r, ready: make(chan struct{}), host: "?"}
		if r < len(cfg.Hosts) {
			p.host = cfg.Hosts[r]
		}
		d.peers[r] = p
	}
	// The connection goroutines need a P of their own while a waiter
	// spins on (or sleeps in a system call holding) another: with one P
	// (a rank pinned to one CPU), a frame would wait for the scheduler's
	// monitor, up to 10 ms.
	if runtime.GOMAXPROCS(0) < 2 {
		runtime.GOMAXPROCS(2)
	}
	if d.ep, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC); err != nil {
		return nil, fmt.Errorf("tcp: epoll_create1: %w", err)
	}
	d.stop, err = unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err == nil {
		d.bell, err = unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	}
	if err == nil {
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: -1}
		err = unix.EpollCtl(d.ep, unix.EPOLL_CTL_ADD, d.stop, &ev)
	}
	if err != nil {
		d.closeFDs()
		return nil, fmt.Errorf("tcp: eventfd: %w", err)
	}
	if hw, ok := cfg.Waker.(interface{ OnWake(func()) }); ok && cfg.PollSockets {
		hw.OnWake(d.kickWake)
		d.canSleep = true
	}
	d.readers.Add(1)
	go d.drainer()
	go d.accept()
	return d, nil
}

// kickWake rings the eventfd a thread in Sleep waits on.
func (d *Device) kickWake() { ring(d.bell) }

func ring(efd int) {
	var one = [8]byte{1}
	unix.Write(efd, one[:])
}

// closeFDs closes the device's epoll instance and eventfds.
func (d *Device) closeFDs() {
	for _, fd := range []int{d.ep, d.stop, d.bell} {
		if fd > 0 {
			unix.Close(fd)
		}
	}
}

func (d *Device) Name() string { return "tcp" }

func (d *Device) logf(format string, args ...any) {
	if d.cfg.Log != nil {
		d.cfg.Log(format, args...)
	}
}

// Start records the Handler.
func (d *Device) Start(h mpirt.Handler) error {
	if h == nil {
		return errors.New("tcp: nil handler")
	}
	d.pollMu.Lock()
	d.handler = h
	d.pollMu.Unlock()
	return nil
}

// SetDataSink is mpirt.DataSinkUser.
func (d *Device) SetDataSink(s mpirt.DataSink) { d.sink.Store(&s) }

// SetFailureHandler is mpirt.FailureReporter.
func (d *Device) SetFailureHandler(f func(peer int, err error)) { d.failed.Store(&f) }

// EagerLimit is mpirt.EagerLimiter.
func (d *Device) EagerLimit() int { return d.cfg.EagerLimit }

// MaxPayload is the largest payload of one frame.
func (d *Device) MaxPayload() int { return maxPayload }

// Send writes one frame to peer, header and payload in one writev, from
// the caller's buffer. It opens the pair's connection on first use.
func (d *Device) Send(rank int, hdr mpirt.Header, payload []byte) error {
	if uint(rank) >= uint(len(d.peers)) || d.peers[rank] == nil {
		return fmt.Errorf("tcp: rank %d is not reached by rank %d's tcp device", rank, d.cfg.Rank)
	}
	if len(payload) > maxPayload {
		return fmt.Errorf("tcp: payload of %d bytes exceeds %d", len(payload), maxPayload)
	}
	p := d.peers[rank]
	c := p.conn.Load()
	if c == nil {
		var err error
		if c, err = d.connect(p); err != nil {
			return err
		}
	}
	if err := d.write(c, &hdr, payload); err != nil {
		return d.lostError(p, err)
	}
	return nil
}

// Watch opens the connection to rank in the background when there is
// none yet, so that its loss is noticed without traffic (runtime.Watcher).
func (d *Device) Watch(rank int) {
	if uint(rank) >= uint(len(d.peers)) || d.peers[rank] == nil || d.closing.Load() {
		return
	}
	if p := d.peers[rank]; p.conn.Load() == nil {
		go d.connect(p)
	}
}

func (d *Device) write(c *conn, h *mpirt.Header, payload []byte) error {
	c.lockW()
	defer c.unlockW()
	if len(payload) <= smallFrame {
		putHeader(c.small[:], h, len(payload))
		n := copy(c.small[headerSize:], payload)
		c.vec[0] = c.small[:headerSize+n]
		return d.writev(c, c.vec[:1])
	}
	putHeader(c.hdr[:], h, len(payload))
	c.vec[0], c.vec[1] = c.hdr[:], payload
	err := d.writev(c, c.vec[:])
	c.vec[1] = nil
	return err
}

// lostError is the error of a send to a peer whose connection failed.
func (d *Device) lostError(p *peer, err error) error {
	p.mu.Lock()
	if p.err != nil {
		err = p.err
	}
	p.mu.Unlock()
	return mpirt.Errorf(mpirt.ErrOther, "", "connection to rank %d on host %q: %v", p.rank, p.host, err)
}

// connect returns the pair's connection, dialling it when nobody has.
func (d *Device) connect(p *peer) (*conn, error) {
	p.mu.Lock()
	if c := p.conn.Load(); c != nil {
		p.mu.Unlock()
		return c, nil
	}
	if p.err != nil {
		p.mu.Unlock()
		return nil, d.lostError(p, p.err)
	}
	dial := !p.dialling
	p.dialling = true
	p.mu.Unlock()
	if dial {
		nc, won, err := d.dial(p)
		p.mu.Lock()
		p.dialling = false
		switch {
		case err != nil:
			d.failLocked(p, err)
		case won:
			d.installLocked(p, nc)
		}
		p.mu.Unlock()
	}
	// Lost the race (or another goroutine dials): the winner arrives
	// through accept.
	select {
	case <-p.ready:
	case <-time.After(d.cfg.Timeout):
		p.mu.Lock()
		d.failLocked(p, fmt.Errorf("no connection within %v", d.cfg.Timeout))
		p.mu.Unlock()
	}
	if c := p.conn.Load(); c != nil {
		return c, nil
	}
	return nil, d.lostError(p, errors.New("not connected"))
}

// dialAttempts bounds the dials of a pair whose connections p closes
// before its verdict.
const dialAttempts = 8

// dial connects to p, authenticates and introduces this rank. won is
// false when p refused the connection because the pair has another. A
// connection that p closes before its verdict (its port's auth gate,
// full during a flood of strangers, dropped the oldest waiting one, or
// the handshake outlasted GMPI_AUTH_TIMEOUT on a loaded host) was not
// taken: it is dialled again, a few times within the device's timeout.
func (d *Device) dial(p *peer) (nc *net.TCPConn, won bool, err error) {
	card, err := d.cfg.Card(p.rank)
	if err != nil {
		return nil, false, fmt.Errorf("reading its address: %w", err)
	}
	var hops []string
	if d.cfg.Hops != nil {
		hops = d.cfg.Hops(p.rank)
	}
	deadline := time.Now().Add(d.cfg.Timeout)
	for attempt := 1; ; attempt++ {
		var again bool
		nc, won, again, err = d.dialOnce(p, card, hops)
		if err == nil || !again || attempt == dialAttempts || time.Until(deadline) < time.Second {
			return nc, won, err
		}
		d.logf("tcp: rank %d closed the connection before its verdict (%v): dialing again", p.rank, err)
		time.Sleep(time.Duration(attempt) * 50 * time.Millisecond)
	}
}

// closedByPeer reports whether err says the other end closed the
// connection.
func closedByPeer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// dialOnce is one attempt of dial; again says that the connection was
// made and then closed by p before its verdict.
func (d *Device) dialOnce(p *peer, card string, hops []string) (nc *net.TCPConn, won, again bool, err error) {
	if len(hops) > 0 {
		nc, err = relay.Dial(hops, card, d.cfg.Secret, d.job, d.cfg.Rank, p.rank, d.src, d.cfg.Timeout)
	} else {
		var c net.Conn
		if c, err = ports.Dial(card, d.src, d.cfg.Timeout, "the tcp device", param.TCPSourcePortRange.Name()); err == nil {
			nc = c.(*net.TCPConn)
		}
	}
	if err != nil {
		return nil, false, false, d.diagnose(p, card, hops, err)
	}
	tune(nc, d.cfg.Timeout)
	fail := func(err error) (*net.TCPConn, bool, bool, error) {
		nc.Close()
		return nil, false, closedByPeer(err), err
	}
	if err := auth.Handshake(nc, d.cfg.Secret, true, "tcp", d.cfg.Timeout); err != nil {
		return fail(fmt.Errorf("authenticating to %s: %w", card, err))
	}
	var hello [helloSize]byte
	putHello(hello[:], d.cfg.Rank, d.job)
	nc.SetDeadline(time.Now().Add(d.cfg.Timeout))
	if _, err := nc.Write(hello[:]); err != nil {
		return fail(fmt.Errorf("introducing to %s: %w", card, err))
	}
	var v [1]byte
	if _, err := io.ReadFull(nc, v[:]); err != nil {
		return fail(fmt.Errorf("waiting for %s to accept: %w", card, err))
	}
	nc.SetDeadline(time.Time{})
	if v[0] != verdictYes {
		nc.Close()
		return nil, false, false, nil
	}
	return nc, true, false, nil
}

// installLocked makes nc the pair's connection and starts its reader.
// Must hold p.mu.
//
// The socket leaves Go's netpoller: the device keeps a duplicate of its
// descriptor and closes nc, so that only the device's own threads are
// woken by its traffic.
func (d *Device) installLocked(p *peer, nc *net.TCPConn) {
	fd, err := ownFD(nc)
	if err != nil {
		d.failLocked(p, err)
		return
	}
	d.congestion(p, fd)
	c := &conn{fd: fd, done: make(chan struct{})}
	c.rx.fd = fd
	c.rx.buf = make([]byte, 64<<10)
	c.rx.setReader(p.xrd) // before any reader can see c
	d.connMu.Lock()
	old := *d.conns.Load()
	c.idx = len(old)
	all := append(old[:len(old):len(old)], peerConn{p, c})
	d.conns.Store(&all)
	d.connMu.Unlock()
	p.conn.Store(c)
	close(p.ready)
	d.publishLocked(p, c)
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(c.idx)}
	if err := unix.EpollCtl(d.ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		d.lost(p, c, fmt.Errorf("epoll_ctl: %w", err))
	}
}

// ownFD returns a non-blocking duplicate of nc's descriptor and closes nc.
func ownFD(nc *net.TCPConn) (int, error) {
	rc, err := nc.SyscallConn()
	if err != nil {
		nc.Close()
		return -1, err
	}
	fd := -1
	if cerr := rc.Control(func(f uintptr) { fd, err = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0) }); cerr != nil {
		err = cerr
	}
	nc.Close()
	if err == nil {
		err = unix.SetNonblock(fd, true)
	}
	if err != nil {
		if fd >= 0 {
			unix.Close(fd)
		}
		return -1, fmt.Errorf("taking the socket's descriptor: %w", err)
	}
	return fd, nil
}

// failLocked records that p is lost. Must hold p.mu.
func (d *Device) failLocked(p *peer, err error) {
	if p.err != nil {
		return
	}
	p.err = err
	if p.conn.Load() == nil {
		close(p.ready)
	}
}

// accept takes connections until the listener closes.
func (d *Device) accept() {
	for {
		c, err := d.cfg.Listener.Accept()
		if err != nil {
			if d.closing.Load() || errors.Is(err, net.ErrClosed) {
				return
			}
			d.logf("tcp: accept: %v", err)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		// Into the gate in accept order, so that a full gate drops the
		// connection that has waited longest.
		d.gate.Enter(c)
		go d.admit(c.(*net.TCPConn))
	}
}

// admit authenticates an incoming connection and, if it is a peer's and
// wins the pair, installs it. Anything else is closed at once.
func (d *Device) admit(nc *net.TCPConn) {
	d.hsMu.Lock()
	if d.closing.Load() {
		d.hsMu.Unlock()
		d.gate.Leave(nc)
		nc.Close()
		return
	}
	d.pending[nc] = true
	d.hsMu.Unlock()
	keep := false
	defer func() {
		d.hsMu.Lock()
		delete(d.pending, nc)
		d.hsMu.Unlock()
		if !keep {
			nc.Close()
		}
	}()
	from := nc.RemoteAddr()
	tune(nc, d.cfg.Timeout)
	// A stranger is dropped within authTimeout of connecting (the
	// handshake and the hello together), whatever it sends or not (it
	// entered the gate in accept).
	deadline := time.Now().Add(d.authTimeout())
	err := auth.Handshake(nc, d.cfg.Secret, false, "tcp", time.Until(deadline))
	if err != nil {
		d.gate.Leave(nc)
		d.logf("tcp: refused connection from %v: %v", from, err)
		return
	}
	var hello [helloSize]byte
	nc.SetDeadline(deadline)
	_, err = io.ReadFull(nc, hello[:])
	d.gate.Leave(nc)
	if err != nil {
		d.logf("tcp: refused connection from %v: reading hello: %v", from, err)
		return
	}
	nc.SetDeadline(time.Time{})
	rank, err := parseHello(hello[:], d.cfg.Size, d.job)
	if err == nil && (rank == d.cfg.Rank || d.peers[rank] == nil) {
		err = fmt.Errorf("rank %d is not a tcp peer of rank %d", rank, d.cfg.Rank)
	}
	if err != nil {
		d.logf("tcp: refused connection from %v: %v", from, err)
		return
	}
	p := d.peers[rank]
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn.Load() != nil || p.err != nil || d.closing.Load() || (p.dialling && rank > d.cfg.Rank) {
		nc.Write([]byte{verdictNo})
		return
	}
	// The verdict goes out before the connection is published, so no
	// frame can precede it.
	if _, err := nc.Write([]byte{verdictYes}); err != nil {
		return
	}
	keep = true
	d.installLocked(p, nc)
}

// authTimeout bounds how long an incoming connection may take to
// authenticate and introduce itself: Timeout, at most maxAuthTimeout.
func (d *Device) authTimeout() time.Duration { return min(d.cfg.Timeout, d.authTO) }

// bufPool recycles eager payload buffers.
var bufPool = sync.Pool{New: func() any { return new([]byte) }}

// rx is the receiving side of a connection: a frame parser fed by
// non-blocking reads, run under mu by the connection's goroutine and,
// when Config.PollSockets is set, by Poll.
type rx struct {
	mu   sync.Mutex
	fd   int
	dead bool   // the connection ended; fd may be closed
	buf  []byte // staging for headers and small payloads
	r, w int    // buf[r:w] is read but not parsed
	hdr  bool   // f.hdr is parsed; its payload is being read
	f    inFrame
	got  int // payload bytes of f in place
	// xl and xp are a C reader's words (ExpressReader): whoever parses
	// or reads this connection holds xl (Go after mu, lockX), and xp
	// says whether buf or hdr hold bytes of the socket.
	xl atomic.Pointer[uint32]
	xp atomic.Pointer[int32]
}

// errAgain: the socket has nothing more for now.
var errAgain = errors.New("tcp: would block")

// direct is the payload size from which bytes are read straight into
// the destination rather than through the staging buffer.
const direct = 16 << 10

// fill reads more bytes into the staging buffer.
func (x *rx) fill() error {
	if x.r > 0 {
		x.w = copy(x.buf, x.buf[x.r:x.w])
		x.r = 0
	}
	n, err := readFD(x.fd, x.buf[x.w:])
	x.w += n
	return err
}

// readFD reads the non-blocking socket fd. It is a raw system call: the
// read never blocks, so the scheduler need not hear of it (entersyscall
// and exitsyscall cost a tenth of the call on a thread that spins on
// its sockets), and errno is compared as a number.
func readFD(fd int, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		switch {
		case e == syscall.EINTR:
			continue
		case e == syscall.EAGAIN:
			return 0, errAgain
		case e != 0:
			return 0, e
		case r == 0:
			return 0, io.EOF
		}
		return int(r), nil
	}
}

// drain parses every complete frame the socket holds and queues it (with
// now, hands it to the Handler at once: see Poll); it returns errAgain
// when the socket is empty, another error when the connection is
// unusable. Must hold x.mu.
func (d *Device) drain(p *peer, c *conn, now bool) error {
	x := &c.rx
	for {
		if !x.hdr {
			if x.w-x.r < headerSize {
				if err := x.fill(); err != nil {
					return err
				}
				continue
			}
			x.f = inFrame{peer: p.rank}
			got := 0
			n, err := parseHeader(x.buf[x.r:x.r+headerSize], &x.f.hdr, maxPayload)
			if err != nil {
				return fmt.Errorf("%w (connection dropped)", err)
			}
			x.r += headerSize
			if x.f.hdr.Kind == kindBye {
				c.bye.Store(true)
				continue
			}
			if c.bye.Load() {
				return errors.New("frame after the orderly close")
			}
			if n > 0 {
				var dst []byte
				if sink := d.sink.Load(); x.f.hdr.Kind == mpirt.FrameData && sink != nil {
					dst = (*sink)(x.f.hdr.RecvID, x.f.hdr.Offset, n)
				}
				if dst == nil && now && n <= x.w-x.r {
					// Handed over before the staging buffer is
					// read into again: the payload stays there.
					dst = x.buf[x.r : x.r+n : x.r+n]
					x.r += n
					got = n
				} else if dst == nil {
					bp := bufPool.Get().(*[]byte)
					if cap(*bp) < n {
						*bp = make([]byte, n)
					}
					dst = (*bp)[:n]
					x.f.pool = bp
				}
				x.f.payload = dst
			}
			x.hdr, x.got = true, got
		}
		dst := x.f.payload
		k := copy(dst[x.got:], x.buf[x.r:x.w])
		x.got += k
		x.r += k
		for x.got < len(dst) {
			if len(dst)-x.got < direct {
				if err := x.fill(); err != nil {
					return err
				}
				k := copy(dst[x.got:], x.buf[x.r:x.w])
				x.got += k
				x.r += k
				continue
			}
			n, err := readFD(x.fd, dst[x.got:])
			if err != nil {
				return err
			}
			x.got += n
		}
		x.hdr = false
		if now {
			d.dispatch(&x.f)
		} else {
			d.deliver(x.f)
		}
		x.f = inFrame{}
		if x.r == x.w {
			// Nothing buffered: hand the frame over now rather than
			// after one more read(2) that most often finds the socket
			// empty. The socket is level-triggered in epoll: whatever
			// it still holds is reported again.
			return errAgain
		}
	}
}

// drainOne drains c if no other thread does; it reports whether it did.
// A connection found unusable is ended (lost).
func (d *Device) drainOne(pc peerConn, wait, now bool) {
	c := pc.c
	if wait {
		c.rx.mu.Lock()
	} else if !c.rx.mu.TryLock() {
		return
	}
	var err error
	l := c.rx.lockX()
	if !c.rx.dead {
		// Frames of this connection queued earlier go first: only
		// with nothing queued may its frames skip the queue (any that
		// were pushed were pushed under c.rx.mu, so are seen here).
		if err = d.drain(pc.p, c, now && d.n.Load() == 0); err != errAgain {
			c.rx.dead = true
		}
	}
	c.rx.unlockX(l)
	c.rx.mu.Unlock()
	if err != nil && err != errAgain {
		d.lost(pc.p, c, err)
	}
}

// drainAll drains every live connection (wait: even one another thread
// is draining, after it; now: see drain).
func (d *Device) drainAll(wait, now bool) {
	for _, pc := range *d.conns.Load() {
		if !pc.c.lost.Load() {
			d.drainOne(pc, wait, now)
		}
	}
}

// pollSockets is Poll's reading of the sockets (Config.PollSockets): the
// waiting thread reads its frames itself instead of waiting for the
// drainer, which stands aside meanwhile.
//
// With a few connections it reads each of them (a read of an empty
// socket is one system call; asking epoll first and then reading costs
// two on the path of every frame: 8.3 against 6.3 us one way for a C
// ping-pong over loopback). With more, it asks epoll which are readable
// (epoll_wait with no timeout) and reads only those.
func (d *Device) pollSockets(now bool) {
	if conns := *d.conns.Load(); len(conns) <= pollEach {
		d.drainAll(false, now)
	} else {
		var evs [16]unix.EpollEvent
		n, _ := unix.EpollWait(d.ep, evs[:], 0)
		if n == len(evs) {
			d.drainAll(false, now) // perhaps more are ready than fit
		}
		for _, ev := range evs[:max(n, 0)] {
			if n < len(evs) && ev.Fd >= 0 && int(ev.Fd) < len(conns) && !conns[ev.Fd].c.lost.Load() {
				d.drainOne(conns[ev.Fd], false, now)
			}
		}
	}
	d.polls.Add(1)
}

// pollEach is the number of connections up to which pollSockets reads
// every one rather than asking epoll.
const pollEach = 4

// drainer drains the connections the kernel reports readable while no
// MPI thread does (see the package comment); during Close it drains
// until every connection ended.
func (d *Device) drainer() {
	defer d.readers.Done()
	events := make([]unix.EpollEvent, 64)
	// seen is polls when the drainer last looked: an MPI thread that
	// polled since then (or sleeps on the sockets) drains them itself,
	// and the drainer stands aside for standAside before it looks again.
	seen := d.polls.Load()
	inside := func() bool {
		n := d.polls.Load()
		if xp := d.xpolls.Load(); xp != nil {
			n += uint64(atomic.LoadUint32(xp)) // the C lane's reader polls too
		}
		moved := n != seen
		seen = n
		return moved || d.inside.Load() > 0
	}
	for {
		closing := d.closing.Load()
		if closing && d.allEnded() {
			return
		}
		if !closing && d.cfg.PollSockets && inside() {
			time.Sleep(standAside)
			continue
		}
		timeout := -1
		if d.cfg.PollSockets || closing {
			// Wake now and then to stand aside for (or see) a
			// thread that started polling.
			timeout = 100
		}
		n, err := unix.EpollWait(d.ep, events, timeout)
		if err != nil && err != unix.EINTR {
			d.logf("tcp: epoll_wait: %v", err)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if d.cfg.PollSockets && !d.closing.Load() && inside() {
			continue // an MPI thread reads them
		}
		conns := *d.conns.Load()
		for _, ev := range events[:max(n, 0)] {
			if ev.Fd < 0 {
				var b [8]byte
				unix.Read(d.stop, b[:])
				continue
			}
			d.drainOne(conns[ev.Fd], true, false)
		}
	}
}

// allEnded reports whether every installed connection ended.
func (d *Device) allEnded() bool {
	for _, pc := range *d.conns.Load() {
		if !pc.c.lost.Load() {
			return false
		}
	}
	return true
}

// Sleep is mpirt.Sleeper: the waiting thread sleeps in the kernel on
// every socket and the doorbell at once, so that a frame wakes it
// directly. It declines (false) without Config.PollSockets, when the
// Waker cannot ring the device's eventfd, or when another thread sleeps
// here already (that one drains for both).
func (d *Device) Sleep(w mpirt.Waker, epoch uint32, timeout time.Duration) bool {
	if !d.canSleep || d.closing.Load() || !d.sleepMu.TryLock() {
		return false
	}
	defer d.sleepMu.Unlock()
	d.inside.Add(1)
	defer d.inside.Add(-1)
	var b [8]byte
	unix.Read(d.bell, b[:]) // reset: a Wake from now on rings it anew
	conns := *d.conns.Load()
	fds := make([]unix.PollFd, 0, len(conns)+1)
	fds = append(fds, unix.PollFd{Fd: int32(d.bell), Events: unix.POLLIN})
	for _, pc := range conns {
		if !pc.c.lost.Load() {
			fds = append(fds, unix.PollFd{Fd: int32(pc.c.fd), Events: unix.POLLIN})
		}
	}
	if w.Epoch() == epoch && d.n.Load() == 0 {
		ms := int(timeout / time.Millisecond)
		if ms <= 0 {
			ms = 1
		}
		unix.Poll(fds, ms)
	}
	w.Disarm()
	d.drainAll(false, false)
	d.polls.Add(1)
	return true
}

// SetAsyncHandler is mpirt.AsyncReceiver.
func (d *Device) SetAsyncHandler(h func(peer int, hdr *mpirt.Header, payload []byte) bool) {
	d.async.Store(&h)
}

// Reaches is mpirt.AsyncReceiver.
func (d *Device) Reaches(peer int) bool {
	return uint(peer) < uint(len(d.peers)) && d.peers[peer] != nil
}

// release returns f's payload to bufPool if it came from there (and is
// not too large to keep).
func (f *inFrame) release() {
	if f.pool != nil && cap(f.payload) <= 1<<20 {
		*f.pool = f.payload[:0]
		bufPool.Put(f.pool)
	}
	f.pool = nil
}

// deliver hands a frame just read to the async handler, or queues it
// for Poll when the handler does not take it.
func (d *Device) deliver(f inFrame) {
	if h := d.async.Load(); h != nil && f.hdr.Kind == mpirt.FrameRMA && (*h)(f.peer, &f.hdr, f.payload) {
		f.release()
		return
	}
	d.push(f)
}

// push queues f for Poll and rings the doorbell.
func (d *Device) push(f inFrame) {
	d.inMu.Lock()
	d.inbox = append(d.inbox, f)
	d.setN(int32(len(d.inbox)))
	d.inMu.Unlock()
	d.cfg.Waker.Ring()
}

// lost handles the end of c's reading: quiet after an orderly close or
// during Close, else the peer is lost.
func (d *Device) lost(p *peer, c *conn, err error) {
	if !c.lost.CompareAndSwap(false, true) {
		return
	}
	unix.EpollCtl(d.ep, unix.EPOLL_CTL_DEL, c.fd, nil)
	close(c.done)
	if d.closing.Load() || (c.bye.Load() && errors.Is(err, io.EOF)) {
		return
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = errors.New("the connection closed (the process ended or closed it)")
	}
	unreachable := errors.Is(err, syscall.ETIMEDOUT) || errors.Is(err, os.ErrDeadlineExceeded)
	p.mu.Lock()
	d.failLocked(p, err)
	if p.xfd != nil {
		atomic.StoreInt32(p.xfd, 0) // the C caller declines from now on
	}
	p.mu.Unlock()
	// Wakes a writer waiting for room; the descriptor stays open until
	// Close (another thread may still name it).
	unix.Shutdown(c.fd, unix.SHUT_RDWR)
	if unreachable && d.cfg.Unreachable != nil {
		d.cfg.Unreachable(p.rank, fmt.Sprintf("gmpi: rank %d lost host %q (rank %d): no answer within %v (%v)",
			d.cfg.Rank, p.host, p.rank, d.cfg.Timeout, err))
	}
	d.push(inFrame{peer: p.rank, err: err})
}

// Poll hands the frames the connection goroutines queued to the Handler.
//
// With PollSockets it reads the sockets too; a frame it reads while it
// holds pollMu (the Handler's turn) and nothing is queued goes to the
// Handler at once, its payload still in the connection's staging buffer
// (no copy, no queue, no doorbell: the path of a small message).
func (d *Device) Poll() int {
	if d.cfg.PollSockets && !d.closing.Load() {
		if d.handler != nil && d.pollMu.TryLock() {
			n := 0
			if d.n.Load() != 0 {
				n = d.handleQueued()
			}
			d.handled = 0
			d.pollSockets(true)
			n += d.handled
			if d.n.Load() != 0 && !d.closing.Load() {
				n += d.handleQueued()
			}
			d.pollMu.Unlock()
			return n
		}
		d.pollSockets(false)
	}
	if d.n.Load() == 0 || !d.pollMu.TryLock() {
		return 0
	}
	defer d.pollMu.Unlock()
	if d.handler == nil || d.closing.Load() {
		return 0
	}
	return d.handleQueued()
}

// dispatch hands f, just read by the thread that holds pollMu, to the
// async handler or the Handler (Poll).
func (d *Device) dispatch(f *inFrame) {
	d.handled++
	if h := d.async.Load(); h == nil || f.hdr.Kind != mpirt.FrameRMA || !(*h)(f.peer, &f.hdr, f.payload) {
		d.handler(f.peer, &f.hdr, f.payload)
	}
	f.release()
}

// handleQueued hands the queued frames to the Handler. Must hold pollMu.
func (d *Device) handleQueued() int {
	d.inMu.Lock()
	in := d.inbox
	d.inbox = d.spare[:0]
	d.setN(0)
	d.inMu.Unlock()
	for i := range in {
		f := &in[i]
		if f.err != nil {
			if failed := d.failed.Load(); failed != nil {
				(*failed)(f.peer, f.err)
			}
		} else {
			d.handler(f.peer, &f.hdr, f.payload)
		}
		f.release()
		*f = inFrame{}
	}
	d.spare = in[:0]
	return len(in)
}

// Close ends every connection in order: bye and shutdown of our side,
// then (at most Timeout) the peer's bye and end of stream, then close.
func (d *Device) Close() error {
	if d.closing.Swap(true) {
		return nil
	}
	d.cfg.Listener.Close()
	d.hsMu.Lock()
	for nc := range d.pending {
		nc.Close()
	}
	d.hsMu.Unlock()
	var conns []*conn
	for _, p := range d.peers {
		if p == nil {
			continue
		}
		p.mu.Lock()
		c := p.conn.Load()
		p.mu.Unlock()
		if c == nil {
			continue
		}
		conns = append(conns, c)
		c.lockW()
		var b [headerSize]byte
		putHeader(b[:], &mpirt.Header{Kind: kindBye}, 0)
		if !c.lost.Load() {
			d.writev(c, [][]byte{b[:]})
			unix.Shutdown(c.fd, unix.SHUT_WR)
		}
		c.unlockW()
	}
	ring(d.stop)
	deadline := time.After(d.cfg.Timeout)
	for _, c := range conns {
		select {
		case <-c.done:
		case <-deadline:
		}
	}
	// The drainer ends once every connection has: end those that did
	// not (deadline).
	for _, pc := range *d.conns.Load() {
		pc.c.rx.mu.Lock()
		l := pc.c.rx.lockX()
		pc.c.rx.dead = true
		pc.c.rx.unlockX(l)
		pc.c.rx.mu.Unlock()
		d.lost(pc.p, pc.c, io.EOF)
	}
	ring(d.stop)
	d.readers.Wait()
	for _, pc := range *d.conns.Load() {
		unix.Close(pc.c.fd)
	}
	d.closeFDs()
	return nil
}
