package shm

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	mpirt "gmpi/runtime"
)

// fileKVS is a KVS shared by processes through a directory.
type fileKVS struct {
	dir     string
	rank, n int
	gen     int
}

func (k *fileKVS) Put(key, value string) error {
	tmp := filepath.Join(k.dir, fmt.Sprintf(".tmp-%d", k.rank))
	if err := os.WriteFile(tmp, []byte(value), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(k.dir, "kv-"+key))
}

func (k *fileKVS) Get(key string) (string, error) {
	b, err := os.ReadFile(filepath.Join(k.dir, "kv-"+key))
	return string(b), err
}

func (k *fileKVS) Barrier() error {
	k.gen++
	mark := func(r int) string { return filepath.Join(k.dir, fmt.Sprintf("barrier-%d-%d", k.gen, r)) }
	if err := os.WriteFile(mark(k.rank), nil, 0o600); err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for r := 0; r < k.n; r++ {
		for {
			if _, err := os.Stat(mark(r)); err == nil {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("barrier %d: rank %d never came", k.gen, r)
			}
			time.Sleep(50 * time.Microsecond)
		}
	}
	return nil
}

// Frames the parent sends to the child (rank 1) in Tag.
const (
	tagEcho = iota // send the frame back as it is
	tagRead        // RTS: read Len bytes at Offset with ReadRemote, answer tagReadOK/tagReadBad
	tagExit
	tagReadOK
	tagReadBad
)

// TestHelperProcess is rank 1 of a two-process job when run by
// startChild; otherwise it does nothing.
func TestHelperProcess(t *testing.T) {
	if os.Getenv("GMPI_SHM_CHILD") == "" {
		t.Skip("helper process for the cross-process tests")
	}
	os.Exit(childMain())
}

func childMain() int {
	kvs := &fileKVS{dir: os.Getenv("GMPI_SHM_DIR"), rank: 1, n: 2}
	sleep := os.Getenv("GMPI_SHM_SLEEP") != ""
	d, err := New(Config{JobID: os.Getenv("GMPI_SHM_JOB"), Rank: 1, Peers: []int{0}, KVS: kvs})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	defer d.Close()
	var (
		pending bool
		out     mpirt.Header
		buf     = make([]byte, d.MaxPayload())
		n       int
		big     []byte
	)
	d.Start(func(peer int, h *mpirt.Header, p []byte) {
		pending, out = true, *h
		switch h.Tag {
		case tagEcho:
			n = copy(buf, p)
		case tagRead:
			big = make([]byte, h.Len)
			out.Tag, n = tagReadOK, 0
			if err := d.ReadRemote(peer, big, uintptr(h.Offset)); err != nil || !checkPattern(big, 0, 1, 0) {
				fmt.Fprintln(os.Stderr, "child: ReadRemote:", err)
				out.Tag = tagReadBad
			}
		}
	})
	w := d.Waker()
	for {
		if !sleep {
			if d.Poll() == 0 {
				continue
			}
		} else if e := w.Arm(); d.Poll() == 0 {
			w.SleepArmed(e, time.Second)
			continue
		} else {
			w.Disarm()
		}
		if !pending {
			continue
		}
		pending = false
		if out.Tag == tagExit {
			return 0
		}
		if err := d.Send(0, out, buf[:n]); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			return 1
		}
	}
}

// startChild starts rank 1 in a new process and builds rank 0 here.
func startChild(t testing.TB, sleep bool) (*Device, string) {
	t.Helper()
	job := testJobID(t)
	cleanupJob(t, job)
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), "GMPI_SHM_CHILD=1", "GMPI_SHM_DIR="+dir, "GMPI_SHM_JOB="+job)
	if sleep {
		cmd.Env = append(cmd.Env, "GMPI_SHM_SLEEP=1")
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("child: %v", err)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Error("child did not exit")
		}
	})
	d, err := New(Config{JobID: job, Rank: 0, Peers: []int{1}, KVS: &fileKVS{dir: dir, rank: 0, n: 2}})
	if err != nil {
		cmd.Process.Kill()
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, job
}

// stopChild tells the child to exit.
func stopChild(t testing.TB, d *Device) {
	h := mpirt.Header{Kind: mpirt.FrameEager, Tag: tagExit}
	if err := d.Send(1, h, nil); err != nil {
		t.Error(err)
	}
}

func TestTwoProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	d, job := startChild(t, true)
	if !d.CanReadRemote() {
		t.Log("process_vm_readv not permitted here; skipping the read test")
	}
	if d.byRank[1].pid == os.Getpid() {
		t.Fatal("child has our pid")
	}
	var got []mpirt.Header
	var data [][]byte
	d.Start(func(peer int, h *mpirt.Header, p []byte) {
		got = append(got, *h)
		data = append(data, append([]byte(nil), p...))
	})
	wait := func(n int) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for len(got) < n {
			if time.Now().After(deadline) {
				t.Fatalf("got %d frames, want %d", len(got), n)
			}
			e := d.Waker().Arm()
			if d.Poll() == 0 {
				d.Waker().SleepArmed(e, 100*time.Millisecond)
			} else {
				d.Waker().Disarm()
			}
		}
	}
	// Echo frames of many sizes (the child sleeps between frames, so
	// every one crosses a futex wake in both directions).
	buf := make([]byte, d.MaxPayload())
	sizes := []int{0, 8, 100, 4000, d.MaxPayload()}
	for i := 0; i < 50; i++ {
		b := buf[:sizes[i%len(sizes)]]
		fill(b, 0, 1, i)
		h := mpirt.Header{Kind: mpirt.FrameEager, Tag: tagEcho, SendID: uint64(i), Len: uint64(len(b))}
		if err := d.Send(1, h, b); err != nil {
			t.Fatal(err)
		}
		wait(i + 1)
		if got[i].SendID != uint64(i) || !checkPattern(data[i], 0, 1, i) || len(data[i]) != len(b) {
			t.Fatalf("echo %d: header %+v, %d bytes", i, got[i], len(data[i]))
		}
		if i == 0 { // the child has returned from New
			if l := leftovers(job); len(l) != 0 {
				t.Errorf("after New: %v still in /dev/shm", l)
			}
		}
	}
	if d.CanReadRemote() {
		big := make([]byte, 5<<20+3)
		fill(big, 0, 1, 0)
		h := mpirt.Header{Kind: mpirt.FrameRTS, Flags: mpirt.FlagRMA, Tag: tagRead, Len: uint64(len(big)), Offset: uint64(addrOf(big))}
		if err := d.Send(1, h, nil); err != nil {
			t.Fatal(err)
		}
		wait(51)
		if got[50].Tag != tagReadOK {
			t.Error("child could not read our buffer with ReadRemote")
		}
		runtime.KeepAlive(big) // the child read it by address only
	}
	stopChild(t, d)
}

// BenchmarkPingPongProcess: 8-byte ping-pong with a second process, both
// spinning (ns/oneway is half a round trip).
func BenchmarkPingPongProcess(b *testing.B) {
	for _, size := range []int{8, 1024, 4096, 16384} {
		b.Run(strconv.Itoa(size), func(b *testing.B) { processPingPong(b, size, false) })
	}
	b.Run("8-sleeping-peer", func(b *testing.B) { processPingPong(b, 8, true) })
}

func processPingPong(b *testing.B, size int, sleep bool) {
	d, _ := startChild(b, sleep)
	got := 0
	d.Start(func(int, *mpirt.Header, []byte) { got++ })
	buf := make([]byte, size)
	h := mpirt.Header{Kind: mpirt.FrameEager, Tag: tagEcho, Len: uint64(size)}
	for i := 0; i < 1000; i++ { // warm up: fault the ring pages in
		d.Send(1, h, buf)
		for got == i {
			d.Poll()
		}
	}
	got = 0
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if err := d.Send(1, h, buf); err != nil {
			b.Fatal(err)
		}
		for got == i {
			d.Poll()
		}
	}
	el := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(el.Nanoseconds())/float64(b.N)/2, "ns/oneway")
	stopChild(b, d)
}
