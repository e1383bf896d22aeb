// Package hostile attacks a listening port of gmpi the way a stranger on
// the network could, for the tests of every port: a connection that
// sends garbage, one that sends nothing (half-open), one that sends a
// byte at a time, and a flood of silent connections. Check then verifies
// that the port dropped every one of them within a bound. Authed adds
// connections that know the port's secret and then misbehave.
package hostile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"gmpi/runtime/auth"
)

// Attack is a set of hostile connections to one address.
type Attack struct {
	Addr  string
	start time.Time
	conns []net.Conn
	kinds []string
	stop  chan struct{}
	wg    sync.WaitGroup
}

// Start opens the garbage, half-open and slow connections and flood
// silent ones to addr (host:port, or the path of a Unix socket). The
// slow one writes a byte every slow.
func Start(addr string, flood int, slow time.Duration) (*Attack, error) {
	a := &Attack{Addr: addr, start: time.Now(), stop: make(chan struct{})}
	network := "tcp"
	if strings.HasPrefix(addr, "/") {
		network = "unix"
	}
	dial := func(kind string) (net.Conn, error) {
		c, err := net.DialTimeout(network, addr, 5*time.Second)
		if err != nil {
			return nil, fmt.Errorf("%s connection to %s: %w", kind, addr, err)
		}
		a.conns, a.kinds = append(a.conns, c), append(a.kinds, kind)
		return c, nil
	}
	g, err := dial("garbage")
	if err != nil {
		a.Close()
		return nil, err
	}
	g.Write(bytes.Repeat([]byte("GET / HTTP/1.0\r\n\x00\xff"), 200))
	if _, err := dial("half-open"); err != nil {
		a.Close()
		return nil, err
	}
	s, err := dial("slow")
	if err != nil {
		a.Close()
		return nil, err
	}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		t := time.NewTicker(slow)
		defer t.Stop()
		for i := 0; ; i++ {
			select {
			case <-a.stop:
				return
			case <-t.C:
			}
			if _, err := s.Write([]byte{"GMPI\x01I"[i%6]}); err != nil {
				return
			}
		}
	}()
	for i := 0; i < flood; i++ {
		if _, err := dial("flood"); err != nil {
			// The listen backlog may be full for a moment: a flood
			// that is refused is not a failure of the port.
			break
		}
	}
	return a, nil
}

// Authed adds connections that prove secret (for context, as a port's
// clients do) and then misbehave: one sends garbage, one a message cut
// short (then nothing), one a message longer than any the port takes,
// one nothing at all. For context "port" messages are the length-prefixed
// ones of an MPI port (4-byte little-endian length, then the bytes); for
// any other (the name server's "names") lines. Check then verifies that
// the port dropped them too.
func (a *Attack) Authed(secret []byte, context string) error {
	kinds := []string{"authenticated garbage", "authenticated truncated", "authenticated oversized", "authenticated idle"}
	msgs := [][]byte{
		append(bytes.Repeat([]byte("\x00\xffGMPI garbage\r"), 300), '\n'),
		[]byte("lookup 6162"), // no newline
		bytes.Repeat([]byte("a"), 64<<10),
		nil,
	}
	if context == "port" {
		msgs[1] = append(binary.LittleEndian.AppendUint32(nil, 100), "connect"...) // 7 of 100 bytes
		msgs[2] = binary.LittleEndian.AppendUint32(nil, 0xfffffff0)
	}
	network := "tcp"
	if strings.HasPrefix(a.Addr, "/") {
		network = "unix"
	}
	for i, kind := range kinds {
		c, err := net.DialTimeout(network, a.Addr, 5*time.Second)
		if err != nil {
			return fmt.Errorf("%s connection to %s: %w", kind, a.Addr, err)
		}
		a.conns, a.kinds = append(a.conns, c), append(a.kinds, kind)
		if err := auth.Handshake(c, secret, true, context, 10*time.Second); err != nil {
			return fmt.Errorf("%s connection to %s: %w", kind, a.Addr, err)
		}
		if msgs[i] != nil {
			// The port may drop it before all is written.
			c.Write(msgs[i])
		}
	}
	return nil
}

// Conns is the number of hostile connections opened.
func (a *Attack) Conns() int { return len(a.conns) }

// Check waits until every hostile connection is closed by the port and
// fails if one is still open within of the attack's start.
func (a *Attack) Check(within time.Duration) error {
	deadline := a.start.Add(within)
	var errs []error
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64)
	for i, c := range a.conns {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c.SetReadDeadline(deadline)
			buf := make([]byte, 4096)
			for {
				_, err := c.Read(buf)
				if err == nil {
					continue // the handshake's hello: read on
				}
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					mu.Lock()
					errs = append(errs, fmt.Errorf("%s connection %d to %s still open %v after the attack began", a.kinds[i], i, a.Addr, within))
					mu.Unlock()
				}
				return
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		return fmt.Errorf("%d of %d hostile connections not dropped; first: %w", len(errs), len(a.conns), errs[0])
	}
	return nil
}

// Close ends the attack.
func (a *Attack) Close() {
	select {
	case <-a.stop:
	default:
		close(a.stop)
	}
	for _, c := range a.conns {
		c.Close()
	}
	a.wg.Wait()
}
