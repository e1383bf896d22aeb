package shm

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	mpirt "gmpi/runtime"
)

// memKVS is an in-memory KVS shared by n goroutines playing ranks.
type memKVS struct {
	mu      sync.Mutex
	cond    *sync.Cond
	n       int
	kv      map[string]string
	arrived int
	gen     int
}

func newMemKVS(n int) *memKVS {
	k := &memKVS{n: n, kv: map[string]string{}}
	k.cond = sync.NewCond(&k.mu)
	return k
}

func (k *memKVS) Put(key, value string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, dup := k.kv[key]; dup {
		return fmt.Errorf("duplicate key %q", key)
	}
	k.kv[key] = value
	return nil
}

func (k *memKVS) Barrier() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	g := k.gen
	k.arrived++
	if k.arrived == k.n {
		k.arrived = 0
		k.gen++
		k.cond.Broadcast()
		return nil
	}
	for g == k.gen {
		k.cond.Wait()
	}
	return nil
}

func (k *memKVS) Get(key string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	v, ok := k.kv[key]
	if !ok {
		return "", fmt.Errorf("no key %q", key)
	}
	return v, nil
}

var jobSeq atomic.Int32

// testJobID is unique per test run and per call.
func testJobID(t testing.TB) string {
	name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())
	return fmt.Sprintf("test%d-%s-%d", os.Getpid(), name, jobSeq.Add(1))
}

// leftovers lists what job left in /dev/shm.
func leftovers(job string) []string {
	m, _ := filepath.Glob("/dev/shm/gmpi-" + job + "-*")
	return m
}

// cleanupJob removes job's segments at the end of the test, even on failure.
func cleanupJob(t testing.TB, job string) {
	t.Cleanup(func() {
		for _, f := range leftovers(job) {
			os.Remove(f)
		}
	})
}

// newRanks builds n devices of one job, ranks 0..n-1 all on one host, each
// New called from its own goroutine. The devices are closed at cleanup.
func newRanks(t testing.TB, n, ringBytes int) (string, []*Device) {
	t.Helper()
	job := testJobID(t)
	cleanupJob(t, job)
	kvs := newMemKVS(n)
	devs := make([]*Device, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := 0; r < n; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var peers []int
			for p := 0; p < n; p++ {
				if p != r {
					peers = append(peers, p)
				}
			}
			devs[r], errs[r] = New(Config{JobID: job, Rank: r, Peers: peers, KVS: kvs, RingBytes: ringBytes})
		}()
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, d := range devs {
			if d != nil {
				d.Close()
			}
		}
	})
	for r, err := range errs {
		if err != nil {
			t.Fatalf("New rank %d: %v", r, err)
		}
	}
	return job, devs
}

// fill writes the deterministic pattern of frame (src, dst, seq).
func fill(b []byte, src, dst, seq int) {
	x := byte(src*31 + dst*17 + seq*7)
	for i := range b {
		b[i] = x + byte(i) + byte(i>>8)*3
	}
}

func checkPattern(b []byte, src, dst, seq int) bool {
	x := byte(src*31 + dst*17 + seq*7)
	for i := range b {
		if b[i] != x+byte(i)+byte(i>>8)*3 {
			return false
		}
	}
	return true
}

// checker verifies FIFO order and content of frames arriving at one rank.
// It is only touched by the Handler, which Poll serializes.
type checker struct {
	t        testing.TB
	me       int
	next     []int // next expected seq per source
	got      atomic.Int64
	failures atomic.Int64
}

func newChecker(t testing.TB, me, n int) *checker {
	return &checker{t: t, me: me, next: make([]int, n)}
}

func (c *checker) handle(peer int, h *mpirt.Header, payload []byte) {
	seq := int(h.Tag)
	switch {
	case int(h.Source) != peer:
		c.failf("rank %d: frame from %d says source %d", c.me, peer, h.Source)
	case seq != c.next[peer]:
		c.failf("rank %d: from %d got seq %d, want %d", c.me, peer, seq, c.next[peer])
	case h.Len != uint64(len(payload)) || h.Kind != mpirt.FrameEager || h.SendID != uint64(seq)*3+1:
		c.failf("rank %d: from %d seq %d: bad header %+v (payload %d bytes)", c.me, peer, seq, *h, len(payload))
	case !checkPattern(payload, peer, c.me, seq):
		c.failf("rank %d: from %d seq %d: payload of %d bytes corrupted", c.me, peer, seq, len(payload))
	}
	c.next[peer] = seq + 1
	c.got.Add(1)
}

func (c *checker) failf(format string, args ...any) {
	if c.failures.Add(1) <= 10 {
		c.t.Errorf(format, args...)
	}
}

func header(me, seq, n int) mpirt.Header {
	return mpirt.Header{Kind: mpirt.FrameEager, Context: 7, Source: int32(me), Tag: int32(seq), Len: uint64(n), SendID: uint64(seq)*3 + 1}
}

// waitFor runs f in a goroutine and fails the test if it takes too long
// (a hang would otherwise only end at the test binary's timeout).
func waitFor(t testing.TB, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s: still running after %v", what, d)
	}
}

// allToAll makes every rank send frames of random sizes 0..MaxPayload to
// every other rank and checks everything arrives, in order and intact.
func allToAll(t *testing.T, devs []*Device, frames int) {
	n := len(devs)
	checks := make([]*checker, n)
	for r, d := range devs {
		checks[r] = newChecker(t, r, n)
		if err := d.Start(checks[r].handle); err != nil {
			t.Fatal(err)
		}
	}
	want := int64(frames * (n - 1))
	waitFor(t, 60*time.Second, "all-to-all", func() {
		var wg sync.WaitGroup
		for r, d := range devs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(r), 42))
				buf := make([]byte, d.MaxPayload())
				for seq := 0; seq < frames; seq++ {
					for p := 0; p < n; p++ {
						if p == r {
							continue
						}
						size := rng.IntN(d.MaxPayload() + 1)
						if seq%5 == 0 {
							size = rng.IntN(64) // many small ones too
						}
						b := buf[:size]
						fill(b, r, p, seq)
						h := header(r, seq, size)
						if err := d.Send(p, h, b); err != nil {
							t.Errorf("rank %d send to %d: %v", r, p, err)
							return
						}
					}
					poll(d)
				}
				for checks[r].got.Load() < want && !t.Failed() {
					poll(d)
				}
			}()
		}
		wg.Wait()
	})
	for r, c := range checks {
		if got := c.got.Load(); got != want {
			t.Errorf("rank %d received %d frames, want %d", r, got, want)
		}
	}
}

func TestAllToAll(t *testing.T) {
	for _, tc := range []struct {
		name string
		ring int
		gate bool
	}{
		{"default-ring", 0, false},
		{"small-ring", 8 << 10, false},
		{"small-ring-gated", 8 << 10, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, devs := newRanks(t, 4, tc.ring)
			for _, d := range devs {
				d.gate = tc.gate // as with gateMin or more peers
			}
			frames := 300
			if testing.Short() {
				frames = 50
			}
			allToAll(t, devs, frames)
		})
	}
}

func TestConcurrentSenders(t *testing.T) {
	_, devs := newRanks(t, 2, 8<<10)
	const senders, frames = 4, 2000
	var next [senders]int
	var got atomic.Int64
	devs[0].Start(func(int, *mpirt.Header, []byte) {})
	devs[1].Start(func(peer int, h *mpirt.Header, p []byte) {
		g := int(h.Source)
		if int(h.Tag) != next[g] || !checkPattern(p, g, 1, int(h.Tag)) {
			t.Errorf("sender %d: got seq %d, want %d (or bad payload)", g, h.Tag, next[g])
		}
		next[g] = int(h.Tag) + 1
		got.Add(1)
	})
	waitFor(t, 60*time.Second, "concurrent senders", func() {
		var wg sync.WaitGroup
		for g := 0; g < senders; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				buf := make([]byte, 600)
				for seq := 0; seq < frames; seq++ {
					b := buf[:(seq*37)%len(buf)]
					fill(b, g, 1, seq)
					h := header(g, seq, len(b))
					if err := devs[0].Send(1, h, b); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		for got.Load() < senders*frames && !t.Failed() {
			poll(devs[1])
		}
		wg.Wait()
	})
}

// TestWrapAround streams many frames of odd sizes through a small ring, so
// it wraps (with skip markers) many times.
func TestWrapAround(t *testing.T) {
	_, devs := newRanks(t, 2, MinRingBytes)
	frames := 20000
	c := newChecker(t, 1, 2)
	devs[0].Start(func(int, *mpirt.Header, []byte) {})
	devs[1].Start(c.handle)
	sizes := []int{0, 1, 7, 8, 9, 56, 57, 100, 500, devs[0].MaxPayload() - 1, devs[0].MaxPayload()}
	waitFor(t, 60*time.Second, "wrap-around", func() {
		go func() {
			buf := make([]byte, devs[0].MaxPayload())
			for seq := 0; seq < frames; seq++ {
				b := buf[:sizes[seq%len(sizes)]]
				fill(b, 0, 1, seq)
				h := header(0, seq, len(b))
				if err := devs[0].Send(1, h, b); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		for c.got.Load() < int64(frames) && !t.Failed() {
			poll(devs[1])
		}
	})
	p := devs[0].byRank[1]
	p.mu.Lock()
	laps := p.tx.tail / (p.mask + 1)
	p.mu.Unlock()
	if laps < 100 {
		t.Errorf("ring wrapped only %d times", laps)
	}
}

// TestCrossSendDeadlock: two ranks each send far more than a ring holds to
// the other before polling; Send must make progress on incoming frames.
func TestCrossSendDeadlock(t *testing.T) {
	_, devs := newRanks(t, 2, 8<<10)
	ring := 8 << 10
	frames := 50 * ring / devs[0].MaxPayload()
	checks := []*checker{newChecker(t, 0, 2), newChecker(t, 1, 2)}
	for r := range devs {
		devs[r].Start(checks[r].handle)
	}
	waitFor(t, 60*time.Second, "cross send", func() {
		var wg sync.WaitGroup
		for r := range devs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				buf := make([]byte, devs[r].MaxPayload())
				for seq := 0; seq < frames; seq++ {
					fill(buf, r, 1-r, seq)
					h := header(r, seq, len(buf))
					if err := devs[r].Send(1-r, h, buf); err != nil {
						t.Error(err)
						return
					}
				}
				for checks[r].got.Load() < int64(frames) && !t.Failed() {
					poll(devs[r])
				}
			}()
		}
		wg.Wait()
	})
}

// TestSenderSleepsForSpace: the consumer is slow, so the producer ends up
// sleeping on its doorbell and must be woken when space frees up.
func TestSenderSleepsForSpace(t *testing.T) {
	_, devs := newRanks(t, 2, MinRingBytes)
	frames := 200
	c := newChecker(t, 1, 2)
	devs[0].Start(func(int, *mpirt.Header, []byte) {})
	devs[1].Start(c.handle)
	waitFor(t, 60*time.Second, "slow consumer", func() {
		go func() {
			buf := make([]byte, devs[0].MaxPayload())
			for seq := 0; seq < frames; seq++ {
				fill(buf, 0, 1, seq)
				h := header(0, seq, len(buf))
				if err := devs[0].Send(1, h, buf); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		for c.got.Load() < int64(frames) && !t.Failed() {
			if devs[1].Poll() == 0 {
				time.Sleep(2 * time.Millisecond)
			}
		}
	})
}

func TestSleepWake(t *testing.T) {
	_, devs := newRanks(t, 2, 0)
	var got atomic.Int32
	devs[0].Start(func(int, *mpirt.Header, []byte) {})
	devs[1].Start(func(int, *mpirt.Header, []byte) { got.Add(1) })
	w := devs[1].Waker()
	woke := make(chan time.Time, 1)
	go func() {
		for got.Load() == 0 {
			e := w.Arm()
			if devs[1].Poll() > 0 {
				w.Disarm()
				break
			}
			w.SleepArmed(e, 10*time.Second)
		}
		woke <- time.Now()
	}()
	// Wait until the receiver really sleeps in the futex.
	deadline := time.Now().Add(10 * time.Second)
	for atomic.LoadUint32(u32(devs[1].own, offWaiters)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("receiver never went to sleep")
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(10 * time.Millisecond)
	h := header(0, 0, 8)
	sent := time.Now()
	if err := devs[0].Send(1, h, make([]byte, 8)); err != nil {
		t.Fatal(err)
	}
	select {
	case at := <-woke:
		// Not a timing assertion: a lost wake-up would take the full
		// 10 s sleep timeout.
		if d := at.Sub(sent); d > 5*time.Second {
			t.Errorf("receiver woke %v after the send", d)
		} else {
			t.Logf("receiver woke %v after the send", d)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("receiver never woke")
	}
}

func TestReadRemote(t *testing.T) {
	_, devs := newRanks(t, 2, 0)
	for r, d := range devs {
		if !d.CanReadRemote() {
			t.Errorf("rank %d: CanReadRemote is false", r)
		}
	}
	src := make([]byte, 3<<20+5)
	fill(src, 1, 0, 3)
	dst := make([]byte, len(src))
	if err := devs[0].ReadRemote(1, dst, addrOf(src)); err != nil {
		t.Fatal(err)
	}
	if !checkPattern(dst, 1, 0, 3) {
		t.Error("ReadRemote copied wrong bytes")
	}
	// Reading from ourselves works too.
	clear(dst)
	if err := devs[0].ReadRemote(0, dst[:100], addrOf(src[1000:])); err != nil || string(dst[:100]) != string(src[1000:1100]) {
		t.Errorf("self read: %v", err)
	}
	if err := devs[0].ReadRemote(1, dst[:8], 8); !errors.Is(err, unix.EFAULT) {
		t.Errorf("reading address 8: got %v, want EFAULT", err)
	}
	if err := devs[0].ReadRemote(5, dst[:8], addrOf(src)); err == nil {
		t.Error("reading from a non-peer succeeded")
	}
}

func TestNothingLeftInDevShm(t *testing.T) {
	job, devs := newRanks(t, 3, 0)
	if l := leftovers(job); len(l) != 0 {
		t.Errorf("after New: %v still in /dev/shm", l)
	}
	for _, d := range devs {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
	}
	if l := leftovers(job); len(l) != 0 {
		t.Errorf("after Close: %v still in /dev/shm", l)
	}
}

func TestSegmentExists(t *testing.T) {
	job := testJobID(t)
	cleanupJob(t, job)
	if err := os.WriteFile(SegmentPath(job, 0), []byte("squatter"), 0o600); err != nil {
		t.Fatal(err)
	}
	kvs := newMemKVS(2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := New(Config{JobID: job, Rank: r, Peers: []int{1 - r}, KVS: kvs})
			if d != nil {
				d.Close()
			}
			errs[r] = err
		}()
	}
	wg.Wait()
	if errs[0] == nil || !strings.Contains(errs[0].Error(), "already exists") || !errors.Is(errs[0], unix.EEXIST) {
		t.Errorf("rank 0: got %v, want an 'already exists' error", errs[0])
	}
	if errs[1] == nil || !strings.Contains(errs[1].Error(), "local rank 0") {
		t.Errorf("rank 1: got %v, want an error naming rank 0", errs[1])
	}
	t.Logf("rank 0: %v\nrank 1: %v", errs[0], errs[1])
	if b, _ := os.ReadFile(SegmentPath(job, 0)); string(b) != "squatter" {
		t.Error("the existing segment was touched")
	}
	if _, err := os.Stat(SegmentPath(job, 1)); !os.IsNotExist(err) {
		t.Error("rank 1's segment left behind")
	}
}

// TestMixedHosts: ranks alone on their host still take part in the
// barriers (same count for everyone) and get a working, empty device.
func TestMixedHosts(t *testing.T) {
	job := testJobID(t)
	cleanupJob(t, job)
	kvs := newMemKVS(4)
	peers := [][]int{{2}, nil, {0}, nil} // ranks 0 and 2 share a host
	devs := make([]*Device, 4)
	errs := make([]error, 4)
	var wg sync.WaitGroup
	for r := range devs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			devs[r], errs[r] = New(Config{JobID: job, Rank: r, Peers: peers[r], KVS: kvs})
		}()
	}
	waitFor(t, 20*time.Second, "New", wg.Wait)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
		defer devs[r].Close()
	}
	if err := devs[1].Send(0, mpirt.Header{}, nil); err == nil {
		t.Error("send from a lone rank succeeded")
	}
	if !devs[1].CanReadRemote() {
		t.Error("lone rank: self probe failed")
	}
	var got int
	devs[0].Start(func(int, *mpirt.Header, []byte) {})
	devs[2].Start(func(peer int, h *mpirt.Header, p []byte) { got++ })
	h := header(0, 0, 0)
	if err := devs[0].Send(2, h, nil); err != nil {
		t.Fatal(err)
	}
	if n := devs[2].Poll(); n != 1 || got != 1 {
		t.Errorf("Poll delivered %d (%d), want 1", n, got)
	}
}

func TestClose(t *testing.T) {
	_, devs := newRanks(t, 2, 0)
	devs[0].Start(func(int, *mpirt.Header, []byte) {})
	devs[1].Start(func(int, *mpirt.Header, []byte) { t.Error("handler called after Close") })
	h := header(0, 0, 0)
	if err := devs[0].Send(1, h, nil); err != nil {
		t.Fatal(err)
	}
	w := devs[1].Waker()
	devs[1].Close()
	if devs[1].Poll() != 0 {
		t.Error("Poll after Close delivered")
	}
	if err := devs[1].Send(0, h, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Send after Close: %v", err)
	}
	// The Waker survives Close.
	e := w.Epoch()
	w.Wake()
	if w.Epoch() == e {
		t.Error("Waker does not count after Close")
	}
	w.Sleep(e, time.Millisecond)
	// A sender blocked on the closed peer's full ring gives up.
	var err error
	waitFor(t, 20*time.Second, "send to closed peer", func() {
		buf := make([]byte, devs[0].MaxPayload())
		for i := 0; i < 100 && err == nil; i++ {
			err = devs[0].Send(1, h, buf)
		}
	})
	if err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("send to a closed peer: %v", err)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{JobID: "a/b", Peers: []int{1}}, "bad job id"},
		{Config{JobID: "x", Rank: 1, Peers: []int{2, 0}}, "sorted"},
		{Config{JobID: "x", Rank: 1, Peers: []int{1}}, "sorted"},
		{Config{JobID: "x", Peers: []int{1}, RingBytes: -5}, "out of range"},
	} {
		_, err := New(Config{JobID: tc.cfg.JobID, Rank: tc.cfg.Rank, Peers: tc.cfg.Peers, RingBytes: tc.cfg.RingBytes, KVS: newMemKVS(1)})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.cfg, err, tc.want)
		}
	}
}

func TestRingSize(t *testing.T) {
	for _, tc := range []struct {
		ring, peers int
		env         string
		want        uint64
	}{
		{0, 1, "", DefaultRingBytes},
		{0, 7, "", DefaultRingBytes},
		{0, 32, "", 256 << 10},
		{0, 64, "", 128 << 10},
		{0, 1000, "", minDefaultRing},
		{5000, 1, "", 8 << 10},
		{1, 1, "", MinRingBytes},
		{0, 3, "1M", 1 << 20},
		{0, 3, "65536", 64 << 10},
	} {
		t.Setenv("GMPI_SHM_RING", tc.env)
		got, err := ringSize(Config{RingBytes: tc.ring, Peers: make([]int, tc.peers)})
		if err != nil || got != tc.want {
			t.Errorf("%+v: got %d, %v; want %d", tc, got, err, tc.want)
		}
	}
	t.Setenv("GMPI_SHM_RING", "lots")
	if _, err := ringSize(Config{}); err == nil {
		t.Error("GMPI_SHM_RING=lots accepted")
	}
}

// poll polls d and lets other goroutines run when nothing arrived (the
// test's ranks share Ps; real ranks are processes).
func poll(d *Device) {
	if d.Poll() == 0 {
		runtime.Gosched()
	}
}
