package relay

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"gmpi/runtime/auth"
	"gmpi/runtime/ports"
)

// Server is a relay: it accepts hops on Listener and forwards them.
type Server struct {
	Listener net.Listener
	Secret   []byte
	// Job is the job hash requests must carry (0: any).
	Job uint64
	// Timeout bounds a client's handshake and request, each onward dial
	// and handshake, and how long a silent peer lives (keepalive).
	Timeout time.Duration
	// Name says where the relay runs, in refusals ("relay on host s2h0").
	Name string
	// Log receives diagnostics (refused clients, failed paths); may be nil.
	Log func(format string, args ...any)
	// MaxPending bounds the connections in their handshake at once
	// (0: 64); when a new one comes, the one that waited longest is
	// closed (auth.Gate), so a flood costs bounded memory and a real
	// client still gets in.
	MaxPending int
	// Source is the port range onward connections leave from (the
	// gateway's source_port_range; zero: any port).
	Source ports.Range
	// AuthTimeout bounds a client's handshake (0: Timeout, at most 10 s).
	AuthTimeout time.Duration
	// Kernel chooses how paths are forwarded once open: in the kernel
	// (BPF sockmap, kernel.go) or by splicing (pump.go). KernelAuto uses
	// the kernel when this process may, KernelOn makes Serve fail when it
	// may not.
	Kernel Kernel

	gate   *auth.Gate
	wg     sync.WaitGroup
	mu     sync.Mutex
	open   map[io.Closer]bool
	closed bool
	paths  atomic.Int64 // paths opened so far
	kf     *kfwd        // nil: splice
	kpaths atomic.Int64 // paths forwarded in the kernel
}

// Forwarding says how the server forwards (after Serve started): for -v.
func (s *Server) Forwarding() string {
	if s.Kernel == KernelOff {
		return "splice (GMPI_RELAY_KERNEL=0)"
	}
	if err := KernelError(); err != nil {
		return fmt.Sprintf("splice (in-kernel sockmap forwarding refused: %v)", err)
	}
	return "in the kernel (BPF sockmap stream verdict)"
}

// KernelPaths is how many paths were forwarded in the kernel so far.
func (s *Server) KernelPaths() int64 { return s.kpaths.Load() }

// Serve accepts connections until the listener is closed.
func (s *Server) Serve() error {
	if s.Timeout <= 0 {
		s.Timeout = 30 * time.Second
	}
	if s.MaxPending <= 0 {
		s.MaxPending = 64
	}
	s.gate = auth.NewGate(s.MaxPending)
	if s.Kernel != KernelOff {
		kf, err := kernelForwarder()
		if err != nil && s.Kernel == KernelOn {
			s.Listener.Close()
			return fmt.Errorf("in-kernel forwarding (GMPI_RELAY_KERNEL=1): %w", err)
		}
		s.kf = kf
	}
	for {
		c, err := s.Listener.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			s.logf("accept: %v", err)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if !s.track(c, true) {
			c.Close()
			return nil
		}
		s.gate.Enter(c) // in accept order: a full gate drops the oldest
		s.wg.Add(1)
		go s.serve(c.(*net.TCPConn))
	}
}

// Paths is how many paths the relay opened so far.
func (s *Server) Paths() int64 { return s.paths.Load() }

// Close stops accepting and ends every forwarded connection.
func (s *Server) Close() {
	s.Listener.Close()
	s.mu.Lock()
	s.closed = true
	for c := range s.open {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *Server) track(c io.Closer, add bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if add {
		if s.closed {
			return false
		}
		if s.open == nil {
			s.open = map[io.Closer]bool{}
		}
		s.open[c] = true
	} else {
		delete(s.open, c)
	}
	return true
}

func (s *Server) logf(format string, args ...any) {
	if s.Log != nil {
		s.Log(format, args...)
	}
}

// serve runs one client: handshake, request, onward path, forwarding.
func (s *Server) serve(c *net.TCPConn) {
	defer s.wg.Done()
	defer s.track(c, false)
	defer c.Close()
	from := c.RemoteAddr()
	Tune(c, s.Timeout)
	hs := s.AuthTimeout
	if hs <= 0 {
		hs = min(s.Timeout, 10*time.Second)
	}
	if err := auth.Handshake(c, s.Secret, false, Context, hs); err != nil {
		s.gate.Leave(c)
		s.logf("refused %v: %v", from, err)
		return
	}
	c.SetDeadline(time.Now().Add(s.Timeout))
	req, err := ReadRequest(c)
	s.gate.Leave(c)
	if err == nil && s.Job != 0 && req.Job != s.Job {
		err = errors.New("request of another job")
	}
	if err != nil {
		s.logf("refused %v: %v", from, err)
		return
	}
	out, err := s.onward(req)
	if err != nil {
		err = fmt.Errorf("%s, for rank %d to rank %d: %v", s.Name, req.From, req.To, err)
		s.logf("%v", err)
		writeReply(c, err)
		return
	}
	defer out.Close()
	if !s.track(out, true) {
		return
	}
	defer s.track(out, false)
	var kp *kpair
	if s.kf != nil {
		if kp, err = s.kf.prepare(c, out); err != nil {
			s.logf("rank %d to rank %d: splicing, the kernel refused the pair: %v", req.From, req.To, err)
		}
	}
	if err := writeReply(c, nil); err != nil {
		if kp != nil {
			kp.release()
		}
		return
	}
	c.SetDeadline(time.Time{})
	s.paths.Add(1)
	if kp != nil {
		pump, err := kp.start(c, out)
		if err == nil {
			s.kpaths.Add(1)
			kp.log = s.Log
			if s.track(kp, true) {
				kp.run()
				s.track(kp, false)
			} else {
				kp.abort()
			}
			return
		}
		s.logf("rank %d to rank %d: kernel forwarding failed: %v", req.From, req.To, err)
		if !pump {
			return
		}
	}
	forward(c, out)
}

// onward opens the rest of req's path: the target directly, or the next
// relay with the remaining addresses.
func (s *Server) onward(req *Request) (*net.TCPConn, error) {
	next := req.Addrs[0]
	if len(req.Addrs) > 1 {
		rest := *req
		rest.Addrs = req.Addrs[1:]
		return dialHop(next, &rest, s.Secret, s.Source, s.Timeout)
	}
	c, err := ports.Dial(next, s.Source, s.Timeout, s.Name, sourceSetting)
	if err != nil {
		return nil, fmt.Errorf("dialling %s: %w", next, err)
	}
	nc := c.(*net.TCPConn)
	Tune(nc, s.Timeout)
	return nc, nil
}

// forward copies both ways until both directions ended: an end of stream
// is passed on as a half-close, an error ends both directions.
func forward(a, b *net.TCPConn) {
	var once sync.Once
	abort := func() {
		once.Do(func() {
			a.SetLinger(0)
			b.SetLinger(0)
			a.Close()
			b.Close()
		})
	}
	done := make(chan struct{}, 2)
	run := func(dst, src *net.TCPConn) {
		err := pump(dst, src)
		if err != nil {
			abort()
		} else {
			dst.CloseWrite()
		}
		done <- struct{}{}
	}
	go run(a, b)
	go run(b, a)
	<-done
	<-done
}
