// Package names is gmpi's name service (MPI_Publish_name,
// MPI_Lookup_name, MPI_Unpublish_name) in two scopes:
//
//   - Host: the jobs of one user on one host, with no server to start.
//     A published name is a listening socket in Linux's abstract socket
//     namespace, named after the user and a hash of the service name,
//     held by the publishing process: it vanishes when the process ends
//     (nothing on disk). Both ends check the other's user id
//     (SO_PEERCRED), so another user can neither read nor fake a name.
//     Abstract sockets belong to a network namespace, which is what an
//     emulated host is.
//   - Server: `mpirun --serve-names HOST:PORT` runs Serve; jobs started
//     with `mpirun --nameserver HOST:PORT` use it through Client. Every
//     connection proves a shared key first (runtime/auth, context
//     "names"); the server keeps the names in memory only, bounds every
//     request in size and time, and drops what it cannot parse.
package names

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"gmpi/runtime/auth"
	"gmpi/runtime/ports"
)

// Errors the callers map to MPI error classes.
var (
	ErrNotFound  = errors.New("service name not published")        // MPI_ERR_NAME
	ErrNotMine   = errors.New("service name not published here")   // MPI_ERR_SERVICE
	ErrPublished = errors.New("service name is already published") // MPI_ERR_SERVICE
	ErrFull      = fmt.Errorf("the name server holds its maximum of %d names", MaxNames)
)

// MaxNames bounds the names a name server holds (each at most 2*maxLen
// bytes): a client that publishes without end is refused with ErrFull
// beyond it, and the server's memory stays bounded.
const MaxNames = 1 << 16

// maxLen bounds service and port names.
const maxLen = 1024

func abstractName(service string) string {
	h := sha256.Sum256([]byte(service))
	return fmt.Sprintf("@gmpi-names-%d-%s", os.Getuid(), hex.EncodeToString(h[:16]))
}

// peerUID is the user id of the process at the other end of c.
func peerUID(c *net.UnixConn) (int, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	uid := -1
	var cerr error
	err = rc.Control(func(fd uintptr) {
		cred, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
		if err != nil {
			cerr = err
			return
		}
		uid = int(cred.Uid)
	})
	if err == nil {
		err = cerr
	}
	return uid, err
}

// Local is a name published on this host.
type Local struct {
	Service, Port string
	l             *net.UnixListener
}

// PublishLocal publishes service as port on this host until Close.
func PublishLocal(service, port string) (*Local, error) {
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: abstractName(service), Net: "unix"})
	if err != nil {
		if errors.Is(err, unix.EADDRINUSE) {
			return nil, ErrPublished
		}
		return nil, err
	}
	p := &Local{Service: service, Port: port, l: l}
	go p.serve()
	return p, nil
}

func (p *Local) serve() {
	for {
		c, err := p.l.AcceptUnix()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		go func() {
			defer c.Close()
			if uid, err := peerUID(c); err != nil || uid != os.Getuid() {
				return
			}
			c.SetDeadline(time.Now().Add(5 * time.Second))
			c.Write([]byte(hex.EncodeToString([]byte(p.Service)) + " " + hex.EncodeToString([]byte(p.Port)) + "\n"))
		}()
	}
}

// Close unpublishes the name.
func (p *Local) Close() { p.l.Close() }

// LookupLocal finds service among the names published on this host.
func LookupLocal(service string) (string, error) {
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: abstractName(service), Net: "unix"})
	if err != nil {
		return "", ErrNotFound
	}
	defer c.Close()
	if uid, err := peerUID(c); err != nil || uid != os.Getuid() {
		return "", ErrNotFound // someone else's socket under our name
	}
	c.SetDeadline(time.Now().Add(5 * time.Second))
	line, err := readLine(bufio.NewReaderSize(c, 4*maxLen))
	if err != nil {
		return "", ErrNotFound
	}
	f := strings.Fields(line)
	if len(f) != 2 {
		return "", ErrNotFound
	}
	svc, err1 := hex.DecodeString(f[0])
	port, err2 := hex.DecodeString(f[1])
	if err1 != nil || err2 != nil || string(svc) != service {
		return "", ErrNotFound
	}
	return string(port), nil
}

// The server's protocol, after the handshake: one request line, one
// answer line, then the server closes.
//
//	publish SVC PORT   -> ok | err published
//	lookup SVC         -> ok PORT | err name
//	unpublish SVC      -> ok | err service
//
// SVC and PORT travel hex-encoded.

// Server holds the names of a name server.
type Server struct {
	key   []byte
	mu    sync.Mutex
	names map[string]string
	Log   func(format string, args ...any)
	// Timeout bounds a connection's handshake and then its request (10 s).
	Timeout time.Duration
	gate    *auth.Gate // connections in their handshake
	// Max bounds the names held (0: MaxNames).
	Max int
}

func (s *Server) maxNames() int {
	if s.Max > 0 {
		return s.Max
	}
	return MaxNames
}

// NewServer makes a server for clients that prove key.
func NewServer(key []byte) *Server {
	return &Server{key: key, names: map[string]string{}, gate: auth.NewGate(0), Timeout: 10 * time.Second}
}

// maxConns bounds the connections served at once.
const maxConns = 256

// Serve answers the connections of l until it is closed.
func (s *Server) Serve(l net.Listener) error {
	sem := make(chan struct{}, maxConns)
	for {
		c, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		select {
		case sem <- struct{}{}:
		default:
			c.Close() // too many at once: a flood, not clients
			continue
		}
		s.gate.Enter(c)
		go func() {
			defer func() { <-sem }()
			s.serveConn(c)
		}()
	}
}

func (s *Server) logf(format string, args ...any) {
	if s.Log != nil {
		s.Log(format, args...)
	}
}

func (s *Server) serveConn(c net.Conn) {
	defer c.Close()
	if err := s.gate.Pass(c, s.key, "names", s.Timeout); err != nil {
		s.logf("refused %s: %v", c.RemoteAddr(), err)
		return
	}
	c.SetDeadline(time.Now().Add(s.Timeout))
	line, err := readLine(bufio.NewReaderSize(c, 4*maxLen))
	if err != nil {
		// A line longer than any request, one cut short, or none
		// within the deadline.
		s.logf("dropped %s: no request: %v", c.RemoteAddr(), err)
		return
	}
	a := s.answer(line)
	if a == "err request" {
		s.logf("dropped %s: malformed request %.40q", c.RemoteAddr(), line)
	}
	c.Write([]byte(a + "\n"))
}

// answer executes one request line.
func (s *Server) answer(line string) string {
	f := strings.Fields(line)
	dec := func(i int) (string, bool) {
		if i >= len(f) {
			return "", false
		}
		b, err := hex.DecodeString(f[i])
		return string(b), err == nil && len(b) > 0 && len(b) <= maxLen
	}
	if len(f) == 0 {
		return "err request"
	}
	svc, ok := dec(1)
	if !ok {
		return "err request"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case f[0] == "publish" && len(f) == 3:
		port, ok := dec(2)
		if !ok {
			return "err request"
		}
		if _, dup := s.names[svc]; dup {
			return "err published"
		}
		if len(s.names) >= s.maxNames() {
			return "err full"
		}
		s.names[svc] = port
		return "ok"
	case f[0] == "lookup" && len(f) == 2:
		port, ok := s.names[svc]
		if !ok {
			return "err name"
		}
		return "ok " + hex.EncodeToString([]byte(port))
	case f[0] == "unpublish" && len(f) == 2:
		if _, ok := s.names[svc]; !ok {
			return "err service"
		}
		delete(s.names, svc)
		return "ok"
	}
	return "err request"
}

// Client talks to a name server.
type Client struct {
	Addr string
	Key  []byte
}

func (cl *Client) do(req string) (string, error) {
	c, err := ports.DialConfigured(nil, cl.Addr, 10*time.Second, "the name server's client")
	if err != nil {
		return "", fmt.Errorf("name server %s: %v", cl.Addr, err)
	}
	defer c.Close()
	if err := auth.Handshake(c, cl.Key, true, "names", 10*time.Second); err != nil {
		return "", fmt.Errorf("name server %s: %v", cl.Addr, err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte(req + "\n")); err != nil {
		return "", fmt.Errorf("name server %s: %v", cl.Addr, err)
	}
	line, err := readLine(bufio.NewReaderSize(c, 4*maxLen))
	if err != nil {
		return "", fmt.Errorf("name server %s: %v", cl.Addr, err)
	}
	return parseAnswer(cl.Addr, line)
}

// readLine reads one line of the protocol: at most 4*maxLen bytes
// (hex of a name and a port and the words), so that a peer sending an
// endless line costs a bounded buffer.
func readLine(r *bufio.Reader) (string, error) {
	line, err := r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return "", errors.New("line too long")
	}
	return string(line), err
}

// parseAnswer reads the server's answer line.
func parseAnswer(addr, line string) (string, error) {
	f := strings.Fields(line)
	switch {
	case len(f) == 1 && f[0] == "ok":
		return "", nil
	case len(f) == 2 && f[0] == "ok":
		b, err := hex.DecodeString(f[1])
		if err != nil || len(b) > maxLen {
			return "", fmt.Errorf("name server %s: malformed answer", addr)
		}
		return string(b), nil
	case len(f) == 2 && f[0] == "err" && f[1] == "name":
		return "", ErrNotFound
	case len(f) == 2 && f[0] == "err" && f[1] == "service":
		return "", ErrNotMine
	case len(f) == 2 && f[0] == "err" && f[1] == "published":
		return "", ErrPublished
	case len(f) == 2 && f[0] == "err" && f[1] == "full":
		return "", ErrFull
	}
	return "", fmt.Errorf("name server %s: malformed answer %.40q", addr, line)
}

func hx(s string) string { return hex.EncodeToString([]byte(s)) }

// Publish publishes service as port.
func (cl *Client) Publish(service, port string) error {
	_, err := cl.do("publish " + hx(service) + " " + hx(port))
	return err
}

// Lookup finds service.
func (cl *Client) Lookup(service string) (string, error) {
	return cl.do("lookup " + hx(service))
}

// Unpublish removes service.
func (cl *Client) Unpublish(service string) error {
	_, err := cl.do("unpublish " + hx(service))
	return err
}

// DefaultKeyFile is where the name server's key lives when
// GMPI_NAMESERVER_KEY names no file: ~/.gmpi/nameserver.key.
func DefaultKeyFile() string {
	home, err := os.UserHomeDir()
	if err != nil {
		home = "/"
	}
	return filepath.Join(home, ".gmpi", "nameserver.key")
}

// LoadKey reads the key file (hex of at least 16 bytes); with create, a
// missing file is made (mode 0600) with a fresh random key.
func LoadKey(path string, create bool) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && create {
		s, err := auth.NewSecret()
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, []byte(s+"\n"), 0o600); err != nil {
			return nil, err
		}
		b = []byte(s)
	} else if err != nil {
		return nil, fmt.Errorf("name server key: %v", err)
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) < 16 {
		return nil, fmt.Errorf("name server key %s: not hex of at least 16 bytes", path)
	}
	return key, nil
}
