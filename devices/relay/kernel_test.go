package relay

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"gmpi/runtime/ports"
)

// needKernel skips when this process may not use BPF sockmaps (not root,
// unprivileged BPF off, an old kernel), saying why.
func needKernel(t *testing.T) *kfwd {
	t.Helper()
	k, err := kernelForwarder()
	if err != nil {
		t.Skipf("in-kernel forwarding refused here, only the splice pump is tested: %v", err)
	}
	return k
}

// waitIdle waits until no pair is in the kernel's maps or watched.
func waitIdle(t *testing.T, k *kfwd) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		k.mu.Lock()
		n := len(k.pairs)
		k.mu.Unlock()
		f, a := mapLen(k.fwd), mapLen(k.act)
		if n == 0 && f == 0 && a == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the pairs ended: %d sockets watched, %d in fwd, %d in act", n, f, a)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// startTalker accepts one connection, sends banner at once (before the
// relay has handed the pair to the kernel: those bytes wait in the
// socket and must still arrive, first), then sends out while it reads
// everything until the end of stream, and answers on got what it read.
// It half-closes after sending and closes when both ways ended.
func startTalker(t *testing.T, banner, out []byte) (string, chan []byte, chan *net.TCPConn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 1)
	conns := make(chan *net.TCPConn, 1)
	var wg sync.WaitGroup
	t.Cleanup(func() { l.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		c, err := l.Accept()
		if err != nil {
			got <- nil
			return
		}
		tc := c.(*net.TCPConn)
		conns <- tc
		defer tc.Close()
		tc.Write(banner)
		wg.Add(1)
		go func() {
			defer wg.Done()
			tc.Write(out)
			tc.CloseWrite()
		}()
		b, _ := io.ReadAll(tc)
		got <- b
	}()
	return l.Addr().String(), got, conns
}

func random(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// TestKernelStream: a large random stream both ways at once through a
// relay that forwards in the kernel, the target speaking first; both
// ends get every byte in order and then the end of stream; afterwards
// the pair is out of the maps.
func TestKernelStream(t *testing.T) {
	k := needKernel(t)
	s, r := startRelayMode(t, "k", 0, KernelOn)
	banner := []byte("target speaks first")
	down := random(24<<20 + 13)
	up := random(24<<20 + 7)
	target, got, _ := startTalker(t, banner, down)
	c, err := Dial([]string{r}, target, secret, 42, 1, 2, ports.Range{}, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(60 * time.Second))
	errc := make(chan error, 1)
	go func() {
		_, err := c.Write(up)
		if err == nil {
			err = c.CloseWrite()
		}
		errc <- err
	}()
	back, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("reading through the relay: %v (after %d bytes)", err, len(back))
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	want := append(append([]byte(nil), banner...), down...)
	if !bytes.Equal(back, want) {
		t.Fatalf("target to client: %d bytes of %d, equal prefix %v", len(back), len(want), bytes.Equal(back, want[:min(len(back), len(want))]))
	}
	if g := <-got; !bytes.Equal(g, up) {
		t.Fatalf("client to target: %d bytes of %d, equal prefix %v", len(g), len(up), bytes.Equal(g, up[:min(len(g), len(up))]))
	}
	if s.KernelPaths() != 1 {
		t.Errorf("kernel paths %d, want 1", s.KernelPaths())
	}
	waitIdle(t, k)
}

// TestKernelTeardown: a reset on one side, or the relay closing, ends
// the other side at once (an error or end of stream, not a hang), and
// the pair leaves the maps.
func TestKernelTeardown(t *testing.T) {
	k := needKernel(t)
	for _, how := range []string{"target resets", "client resets", "relay closes"} {
		t.Run(how, func(t *testing.T) {
			s, r := startRelayMode(t, "k", 0, KernelOn)
			target, _, conns := startTalker(t, []byte("hi"), random(32<<20)) // more than the buffers on the way hold: it stays sending
			c, err := Dial([]string{r}, target, secret, 42, 1, 2, ports.Range{}, 3*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			tc := <-conns
			var hi [2]byte
			if _, err := io.ReadFull(c, hi[:]); err != nil || string(hi[:]) != "hi" {
				t.Fatalf("banner %q, %v", hi, err)
			}
			c.Write([]byte("some bytes up"))
			t0 := time.Now()
			defer func() { t.Logf("ended %v after the %s", time.Since(t0), how) }()
			switch how {
			case "target resets":
				tc.SetLinger(0)
				tc.Close()
			case "client resets":
				c.SetLinger(0)
				c.Close()
			case "relay closes":
				s.Close()
			}
			if how != "client resets" {
				c.SetDeadline(time.Now().Add(10 * time.Second))
				_, err := io.Copy(io.Discard, c)
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					t.Fatalf("the client did not notice the end within 10 s")
				}
			} else {
				tc.SetDeadline(time.Now().Add(10 * time.Second))
				_, err := io.Copy(io.Discard, tc)
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					t.Fatalf("the target did not notice the end within 10 s")
				}
			}
			waitIdle(t, k)
		})
	}
}

func TestParseKernel(t *testing.T) {
	for in, want := range map[string]Kernel{"": KernelOff, "auto": KernelAuto, "0": KernelOff, "1": KernelOn, " ON ": KernelOn} {
		if got, err := ParseKernel(in); err != nil || got != want {
			t.Errorf("ParseKernel(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseKernel("2"); err == nil {
		t.Error("ParseKernel(\"2\") accepted")
	}
}

// kernelPath opens a path through a relay that forwards in the kernel
// (skipping the test when this process may not): c is the client's end,
// tc the target's; both are closed when the test ends.
func kernelPath(t *testing.T) (k *kfwd, c, tc *net.TCPConn) {
	t.Helper()
	k = needKernel(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan *net.TCPConn, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c.(*net.TCPConn)
	}()
	_, r := startRelayMode(t, "k", 0, KernelOn)
	c, err = Dial([]string{r}, l.Addr().String(), secret, 42, 1, 2, ports.Range{}, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	tc = <-accepted
	if tc == nil {
		t.Fatal("no connection at the target")
	}
	t.Cleanup(func() { tc.Close() })
	return k, c, tc
}

// TestKernelFlowControl: a receiver that stops reading stops the sender
// after a bounded amount (the kernel's redirect alone would queue
// without limit in the relay), and once it reads again every byte
// arrives, in order.
func TestKernelFlowControl(t *testing.T) {
	k, c, tc := kernelPath(t)
	pauses := k.pauses.Load()
	chunk := random(1 << 20)
	sent := 0
	// Less than the 3 s of TCP_USER_TIMEOUT the test's sockets have: a
	// zero window held longer ends the connection (by design).
	c.SetWriteDeadline(time.Now().Add(1500 * time.Millisecond))
	for {
		n, err := c.Write(chunk)
		sent += n
		if err != nil {
			break
		}
	}
	// Sockets buffers on the way (4 MB each, doubled by the kernel) plus
	// flowHigh and a tick's worth: well under 100 MB (without flow
	// control it was 249 MB in 2 s here, and growing).
	t.Logf("a stalled receiver took %d MB, %d pauses", sent>>20, k.pauses.Load()-pauses)
	if sent > 100<<20 {
		t.Errorf("a stalled receiver let the sender write %d MB in 1.5 s: no flow control", sent>>20)
	}
	c.SetWriteDeadline(time.Time{})
	go func() {
		c.Write(chunk[sent%len(chunk):]) // the rest of a chunk cut by the deadline
		c.CloseWrite()
	}()
	tc.SetDeadline(time.Now().Add(30 * time.Second))
	buf := make([]byte, len(chunk))
	total := 0
	for {
		_, err := io.ReadFull(tc, buf)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("after %d bytes: %v", total, err)
		}
		if !bytes.Equal(buf, chunk) {
			t.Fatalf("chunk at %d differs", total)
		}
		total += len(buf)
	}
	if want := (sent + len(chunk) - 1) / len(chunk) * len(chunk); total != want {
		t.Fatalf("got %d bytes, sent %d", total, want)
	}
}

// TestKernelFinWhilePaused: the sender's last bytes and its end of stream
// reach the relay while flow control holds that direction back (they
// wait in the socket, which cannot enter the sockmap again after a FIN):
// the relay moves them itself, after what the kernel took, and the
// receiver gets every byte and then the end.
func TestKernelFinWhilePaused(t *testing.T) {
	k, c, tc := kernelPath(t)
	pauses, copied := k.pauses.Load(), k.copied.Load()
	first, last := random(20<<20), random(2<<20)
	errc := make(chan error, 1)
	go func() {
		_, err := c.Write(first) // fills the target's side: the relay pauses
		if err == nil {
			time.Sleep(300 * time.Millisecond)
			_, err = c.Write(last) // waits in the relay's socket, with the FIN
		}
		if err == nil {
			err = c.CloseWrite()
		}
		errc <- err
	}()
	time.Sleep(time.Second)
	tc.SetDeadline(time.Now().Add(30 * time.Second))
	got, err := io.ReadAll(tc)
	if err != nil {
		t.Fatalf("after %d bytes: %v", len(got), err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if want := append(first, last...); !bytes.Equal(got, want) {
		t.Fatalf("got %d bytes of %d, equal prefix %v", len(got), len(want), bytes.Equal(got, want[:min(len(got), len(want))]))
	}
	t.Logf("%d pauses, %d bytes moved by the relay itself", k.pauses.Load()-pauses, k.copied.Load()-copied)
	if k.pauses.Load() == pauses {
		t.Error("the stalled receiver did not pause the direction")
	}
	tc.Close()
	waitIdle(t, k)
}
