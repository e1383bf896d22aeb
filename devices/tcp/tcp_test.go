package tcp_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gmpi/coll"
	"gmpi/coll/basic"
	"gmpi/devices/tcp"
	mpirt "gmpi/runtime"
	"gmpi/runtime/auth"
)

var secret = []byte("test secret of the tcp device")

// rank is one rank of a test job: its world, device and card.
type rank struct {
	w    *mpirt.World
	dev  *tcp.Device
	card string
	logs *logBuf
}

type logBuf struct {
	mu    sync.Mutex
	lines []string
}

func (l *logBuf) logf(f string, a ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(f, a...))
}

func (l *logBuf) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.lines)
}

// newJob builds n worlds in this process, each with a tcp device over
// loopback, eager limit eager (0: default).
func newJob(t *testing.T, n, eager int, poll ...bool) []*rank {
	t.Helper()
	ranks := make([]*rank, n)
	wakers := make([]mpirt.Waker, n)
	for i := range ranks {
		wakers[i] = mpirt.NewLocalWaker()
		l, card, err := tcp.Listen("127.0.0.1")
		if err != nil {
			t.Fatal(err)
		}
		ranks[i] = &rank{card: card, logs: &logBuf{}}
		ranks[i].dev, err = tcp.New(tcp.Config{Rank: i, Size: n, JobID: "test", Secret: secret, Listener: l,
			Peers: others(i, n), Card: func(p int) (string, error) { return ranks[p].card, nil },
			Hosts: jobHosts(n), Waker: wakers[i], EagerLimit: eager, Timeout: 5 * time.Second,
			Log: ranks[i].logs.logf, PollSockets: len(poll) > 0 && poll[0]})
		if err != nil {
			t.Fatal(err)
		}
	}
	for i, r := range ranks {
		var routes []mpirt.Route
		for _, p := range others(i, n) {
			routes = append(routes, mpirt.Route{Peer: p, Device: r.dev})
		}
		w, err := mpirt.NewWorld(mpirt.Config{Rank: i, Size: n, Hosts: jobHosts(n)}, routes, wakers[i],
			coll.NewSelector(basic.Component{}))
		if err != nil {
			t.Fatal(err)
		}
		r.w = w
	}
	return ranks
}

func others(i, n int) []int {
	var o []int
	for p := 0; p < n; p++ {
		if p != i {
			o = append(o, p)
		}
	}
	return o
}

// jobHosts names the hosts of newJob's ranks (a test may set it, and
// must restore it).
var jobHosts = hosts

func hosts(n int) []string {
	h := make([]string, n)
	for i := range h {
		h[i] = "host" + string(rune('A'+i))
	}
	return h
}

// run runs body on every rank at once and closes the worlds.
func run(t *testing.T, ranks []*rank, body func(t *testing.T, r *rank, c *mpirt.Comm)) {
	t.Helper()
	var wg sync.WaitGroup
	for _, r := range ranks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body(t, r, r.w.CommWorld())
		}()
	}
	wg.Wait()
	closeAll(ranks)
}

func closeAll(ranks []*rank) {
	var wg sync.WaitGroup
	for _, r := range ranks {
		wg.Add(1)
		go func() { defer wg.Done(); r.w.Close() }()
	}
	wg.Wait()
}

func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) ^ seed
	}
	return b
}

// Every rank sends many messages of mixed sizes (eager and rendezvous)
// to every other at once; each stream must arrive complete and in order,
// whoever dialled first.
func TestOrderingAllPairs(t *testing.T) {
	for _, poll := range []bool{false, true} {
		testOrdering(t, newJob(t, 4, 4096, poll))
	}
}

func testOrdering(t *testing.T, ranks []*rank) {
	sizes := []int{0, 1, 100, 4096, 4097, 70000, 3}
	const rounds = 20
	run(t, ranks, func(t *testing.T, r *rank, c *mpirt.Comm) {
		me, n := c.Rank(), c.Size()
		var reqs []*mpirt.Request
		var bufs [][]byte
		var want [][]byte
		for k := 0; k < rounds; k++ {
			for p := 0; p < n; p++ {
				if p == me {
					continue
				}
				size := sizes[k%len(sizes)]
				rq, err := r.w.Isend(c, c.Context(), pattern(size, byte(me*16+k)), p, 5, mpirt.ModeStandard)
				if err != nil {
					t.Error(err)
					return
				}
				reqs = append(reqs, rq)
				b := make([]byte, size)
				bufs = append(bufs, b)
				want = append(want, pattern(size, byte(p*16+k)))
				reqs = append(reqs, r.w.Irecv(c, c.Context(), b, p, 5))
			}
		}
		if err := r.w.WaitAll(reqs); err != nil {
			t.Error(err)
		}
		for i := range bufs {
			if !bytes.Equal(bufs[i], want[i]) {
				t.Errorf("rank %d: message %d arrived wrong or out of order", me, i)
				return
			}
		}
	})
}

// Two ranks send large messages to each other at the same time
// (with and without PollSockets; rendezvous both ways at once, and bursts of blocking eager sends far
// larger than the socket buffers): the draining goroutines keep both
// moving.
func TestLargeBothWays(t *testing.T) {
	for _, eager := range []int{1 << 20, 16 << 10} {
		ranks := newJob(t, 2, eager, eager < 1<<20)
		run(t, ranks, func(t *testing.T, r *rank, c *mpirt.Comm) {
			me := c.Rank()
			other := 1 - me
			for _, size := range []int{1 << 20, 10 << 20} {
				out := pattern(size, byte(me))
				in := make([]byte, size)
				rq, err := r.w.Isend(c, c.Context(), out, other, 1, mpirt.ModeStandard)
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := c.Recv(in, other, 1); err != nil {
					t.Error(err)
				}
				if err := r.w.Wait(rq); err != nil {
					t.Error(err)
				}
				if !bytes.Equal(in, pattern(size, byte(other))) {
					t.Errorf("rank %d: %d bytes arrived wrong", me, size)
				}
			}
			// Buffered sends of the same kind: eager frames bigger
			// than the socket buffers in both directions.
			if eager >= 1<<20 {
				out := pattern(900<<10, byte(me+5))
				for k := 0; k < 8; k++ {
					if err := c.Send(out, other, 2, mpirt.ModeStandard); err != nil {
						t.Error(err)
					}
				}
				in := make([]byte, 900<<10)
				for k := 0; k < 8; k++ {
					if _, err := c.Recv(in, other, 2); err != nil || !bytes.Equal(in, pattern(900<<10, byte(other+5))) {
						t.Errorf("rank %d: eager burst %d wrong (%v)", me, k, err)
					}
				}
			}
		})
	}
}

// A rendezvous receive whose buffer is shorter than the message gets the
// part that fits and MPI_ERR_TRUNCATE.
func TestTruncatedRendezvous(t *testing.T) {
	ranks := newJob(t, 2, 1024, true)
	run(t, ranks, func(t *testing.T, r *rank, c *mpirt.Comm) {
		if c.Rank() == 0 {
			if err := c.Send(pattern(50000, 9), 1, 0, mpirt.ModeStandard); err != nil {
				t.Error(err)
			}
			return
		}
		in := make([]byte, 30000)
		_, err := c.Recv(in, 0, 0)
		var me *mpirt.Error
		if !errors.As(err, &me) || me.Class != mpirt.ErrTruncate {
			t.Errorf("truncated receive: got %v", err)
		}
		if !bytes.Equal(in, pattern(50000, 9)[:30000]) {
			t.Error("truncated receive: wrong bytes")
		}
	})
}

// hostile dials the card of a rank and does something other than a
// proper handshake; the connection must be closed by the rank.
func hostile(t *testing.T, card string, act func(c net.Conn)) {
	c, err := net.Dial("tcp", card)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	act(c)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	// EOF or a reset (unread bytes when the rank closed): both are a
	// closed connection; only the deadline is not.
	if _, err := io.Copy(io.Discard, c); err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("expected the rank to close the connection, got %v", err)
	}
}

// A wrong secret, garbage, a right secret with a bad hello, and a
// hello naming a rank not reached are all refused; the job is unaffected.
func TestRefusesStrangers(t *testing.T) {
	ranks := newJob(t, 2, 0)
	card := ranks[1].card
	hostile(t, card, func(c net.Conn) { c.Write([]byte("GET / HTTP/1.0\r\n\r\n" + strings.Repeat("x", 100))) })
	hostile(t, card, func(c net.Conn) {
		if err := auth.Handshake(c, []byte("wrong secret"), true, "tcp", 5*time.Second); err == nil {
			t.Error("handshake with a wrong secret succeeded")
		}
	})
	hostile(t, card, func(c net.Conn) {
		if err := auth.Handshake(c, secret, true, "tcp", 5*time.Second); err != nil {
			t.Fatal(err)
		}
		garbage := make([]byte, 16)
		rand.Read(garbage)
		c.Write(garbage)
	})
	hostile(t, card, func(c net.Conn) {
		if err := auth.Handshake(c, secret, true, "tcp", 5*time.Second); err != nil {
			t.Fatal(err)
		}
		c.Write([]byte("GTCP\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")) // rank 1: itself, wrong job
	})
	if n := ranks[1].logs.count(); n != 4 {
		t.Errorf("rank 1 logged %d refusals, want 4", n)
	}
	run(t, ranks, func(t *testing.T, r *rank, c *mpirt.Comm) {
		buf := []byte("hello")
		if c.Rank() == 0 {
			if err := c.Send(buf, 1, 0, mpirt.ModeStandard); err != nil {
				t.Error(err)
			}
		} else if _, err := c.Recv(buf, 0, 0); err != nil || string(buf) != "hello" {
			t.Errorf("after the refusals: %q, %v", buf, err)
		}
	})
}

// A peer whose connection closes in the middle of a message makes the
// receive that waited for it fail with MPI_ERR_OTHER naming the rank and
// host; later receives from it fail at once.
func TestPeerClosesMidMessage(t *testing.T) {
	ranks := newJob(t, 2, 0)
	defer closeAll(ranks)
	c := ranks[0].w.CommWorld()
	// Rank 1 is impersonated by a raw connection that sends half of an
	// eager frame and closes.
	raw := impersonate(t, ranks[0].card)
	hdr := make([]byte, 56)
	hdr[0] = byte(mpirt.FrameEager)
	hdr[8] = 1 // source rank 1
	hdr[16] = 100
	hdr[48] = 100
	copy(hdr[52:], "GTCF")
	raw.Write(append(hdr, make([]byte, 40)...))
	raw.Close()
	buf := make([]byte, 100)
	_, err := c.Recv(buf, 1, 0)
	var me *mpirt.Error
	if !errors.As(err, &me) || me.Class != mpirt.ErrOther || !strings.Contains(err.Error(), "rank 1") || !strings.Contains(err.Error(), "hostB") {
		t.Fatalf("receive from the lost peer: %v", err)
	}
	if _, err := c.Recv(buf, 1, 0); err == nil {
		t.Fatal("a later receive from the lost peer succeeded")
	}
	if err := c.Send(buf, 1, 0, mpirt.ModeStandard); err == nil {
		t.Fatal("a send to the lost peer succeeded")
	}
}

// impersonate connects to card as rank 1 of job "test" and returns the
// connection once it carries the pair's frames.
func impersonate(t *testing.T, card string) net.Conn {
	t.Helper()
	raw, err := net.Dial("tcp", card)
	if err != nil {
		t.Fatal(err)
	}
	if err := auth.Handshake(raw, secret, true, "tcp", 5*time.Second); err != nil {
		t.Fatal(err)
	}
	hello := []byte("GTCP\x01\x00\x00\x00")
	hello = append(hello, jobHashLE("test")...)
	raw.Write(hello)
	v := make([]byte, 1)
	if _, err := io.ReadFull(raw, v); err != nil || v[0] != 'Y' {
		t.Fatalf("verdict %q, %v", v, err)
	}
	return raw
}

// A rendezvous send whose receiver dies while the data flows fails with
// MPI_ERR_OTHER naming the rank and its host, not success.
func TestPeerDiesMidRendezvous(t *testing.T) {
	ranks := newJob(t, 2, 16<<10, true)
	defer closeAll(ranks)
	c := ranks[0].w.CommWorld()
	raw := impersonate(t, ranks[0].card)
	defer raw.Close()
	const size = 64 << 20
	rq, err := ranks[0].w.Isend(c, c.Context(), make([]byte, size), 1, 0, mpirt.ModeStandard)
	if err != nil {
		t.Fatal(err)
	}
	// The sender waits (and so makes progress) while its peer reads the
	// RTS, answers with a CTS, reads a little of the data and dies.
	done := make(chan error, 1)
	go func() { done <- ranks[0].w.Wait(rq) }()
	hdr := make([]byte, 56)
	raw.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.ReadFull(raw, hdr); err != nil || mpirt.FrameKind(hdr[0]) != mpirt.FrameRTS {
		t.Fatalf("expected an RTS, got kind %d (%v)", hdr[0], err)
	}
	cts := make([]byte, 56)
	cts[0] = byte(mpirt.FrameCTS)
	copy(cts[24:32], hdr[24:32]) // the sender's request
	cts[32] = 7                  // our receive request
	copy(cts[52:], "GTCF")
	if _, err := raw.Write(cts); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(raw, make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	raw.(*net.TCPConn).SetLinger(0) // a reset, as when the process dies
	raw.Close()
	err = <-done
	var me *mpirt.Error
	if !errors.As(err, &me) || me.Class != mpirt.ErrOther || !strings.Contains(err.Error(), "rank 1") || !strings.Contains(err.Error(), "hostB") {
		t.Fatalf("send to a receiver that died: %v", err)
	}
}

func jobHashLE(job string) []byte {
	// FNV-1a, as the device computes it.
	h := uint64(14695981039346656037)
	for i := 0; i < len(job); i++ {
		h ^= uint64(job[i])
		h *= 1099511628211
	}
	b := make([]byte, 8)
	for i := range b {
		b[i] = byte(h >> (8 * i))
	}
	return b
}

// An orderly close (both sides' Close after their traffic) reports no
// failure.
func TestOrderlyClose(t *testing.T) {
	ranks := newJob(t, 3, 0)
	run(t, ranks, func(t *testing.T, r *rank, c *mpirt.Comm) {
		if err := c.Coll.Barrier(c); err != nil {
			t.Error(err)
		}
	})
	for i, r := range ranks {
		if n := r.logs.count(); n != 0 {
			t.Errorf("rank %d logged %v", i, r.logs.lines)
		}
	}
}

// GMPI_TCP_CONGESTION: auto takes a loss-based algorithm (here on
// loopback), system keeps the kernel's default, a name is taken as is
// (reno is always allowed), on both ends of the connection.
func TestCongestionControl(t *testing.T) {
	def, err := os.ReadFile("/proc/sys/net/ipv4/tcp_congestion_control")
	if err != nil {
		t.Skip("no /proc/sys/net/ipv4/tcp_congestion_control")
	}
	for _, tc := range []struct {
		set  string
		want []string
	}{
		{"", []string{"cubic", "reno"}},
		{"system", []string{strings.TrimSpace(string(def))}},
		{"reno", []string{"reno"}},
	} {
		t.Run("GMPI_TCP_CONGESTION="+tc.set, func(t *testing.T) {
			t.Setenv("GMPI_TCP_CONGESTION", tc.set)
			ranks := newJob(t, 2, 1024, true)
			run(t, ranks, func(t *testing.T, r *rank, c *mpirt.Comm) {
				// A rendezvous message each way: both ends installed
				// the connection once it is back.
				buf := make([]byte, 100000)
				if c.Rank() == 0 {
					if err := c.Send(pattern(len(buf), 1), 1, 0, mpirt.ModeStandard); err != nil {
						t.Error(err)
					}
					if _, err := c.Recv(buf, 1, 0); err != nil {
						t.Error(err)
					}
				} else {
					if _, err := c.Recv(buf, 0, 0); err != nil {
						t.Error(err)
					}
					if err := c.Send(buf, 0, 0, mpirt.ModeStandard); err != nil {
						t.Error(err)
					}
				}
				got := tcp.CongestionOf(r.dev, 1-c.Rank())
				if !slices.Contains(tc.want, got) {
					t.Errorf("rank %d: congestion control %q, want one of %q", c.Rank(), got, tc.want)
				}
			})
		})
	}
}
