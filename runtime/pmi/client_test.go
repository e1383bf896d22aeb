package pmi_test

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gmpi/runtime/auth"
	"gmpi/runtime/pmi"
	"gmpi/runtime/pmi/server"
)

// Client must satisfy mpirt.KVS (gmpi/runtime/device.go). The interface is
// repeated here so this package's tests do not depend on the runtime
// package building.
var _ interface {
	Put(key, value string) error
	Barrier() error
	Get(key string) (string, error)
} = (*pmi.Client)(nil)

// job starts an in-process server for n ranks and returns connected
// clients plus the channel of server events.
func job(t *testing.T, n int, cfg server.Config) ([]*pmi.Client, *server.Server, chan server.Event) {
	t.Helper()
	events := make(chan server.Event, 1000)
	cfg.Size = n
	if cfg.KVSName == "" {
		cfg.KVSName = "kvs_test"
	}
	cfg.OnEvent = func(ev server.Event) { events <- ev }
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	clients := make([]*pmi.Client, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := 0; r < n; r++ {
		a, b := net.Pipe()
		go srv.Serve(r, a)
		wg.Add(1)
		go func() {
			defer wg.Done()
			clients[r], errs[r] = pmi.NewClient(b, r, n)
		}()
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	t.Cleanup(func() {
		for _, c := range clients {
			c.Close()
		}
	})
	return clients, srv, events
}

// parallel runs f for every rank concurrently and fails on any error.
func parallel(t *testing.T, clients []*pmi.Client, f func(r int, c *pmi.Client) error) {
	t.Helper()
	errs := make([]error, len(clients))
	var wg sync.WaitGroup
	for r, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[r] = f(r, c)
		}()
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

func TestInitInfo(t *testing.T) {
	clients, _, _ := job(t, 3, server.Config{KVSName: "kvs_abc", UniverseSize: 5, AppNum: func(r int) int { return r / 2 }})
	for r, c := range clients {
		if c.Rank() != r || c.Size() != 3 || c.KVSName() != "kvs_abc" || c.UniverseSize() != 5 || c.AppNum() != r/2 {
			t.Errorf("rank %d: got rank=%d size=%d kvs=%q usize=%d app=%d", r, c.Rank(), c.Size(), c.KVSName(), c.UniverseSize(), c.AppNum())
		}
	}
}

func TestPutBarrierGet(t *testing.T) {
	clients, _, _ := job(t, 4, server.Config{Preput: map[string]string{"PMI_process_mapping": "(vector,(0,1,4))"}})
	weird := "sp ace=eq%pct\n\x00\xff#"
	parallel(t, clients, func(r int, c *pmi.Client) error {
		if err := c.Put("card-"+strconv.Itoa(r), fmt.Sprintf("rank %d %s", r, weird)); err != nil {
			return err
		}
		if err := c.Put("empty-"+strconv.Itoa(r), ""); err != nil {
			return err
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		for p := 0; p < 4; p++ {
			v, err := c.Get("card-" + strconv.Itoa(p))
			if err != nil {
				return err
			}
			if want := fmt.Sprintf("rank %d %s", p, weird); v != want {
				return fmt.Errorf("card of %d: got %q want %q", p, v, want)
			}
			if v, err := c.Get("empty-" + strconv.Itoa(p)); err != nil || v != "" {
				return fmt.Errorf("empty of %d: got %q, %v", p, v, err)
			}
		}
		if v, err := c.Get("PMI_process_mapping"); err != nil || v != "(vector,(0,1,4))" {
			return fmt.Errorf("process mapping: %q, %v", v, err)
		}
		return c.Barrier()
	})
}

func TestLongValueSplit(t *testing.T) {
	clients, _, _ := job(t, 2, server.Config{ValLenMax: 64})
	long := strings.Repeat("0123456789 ", 100) // 1100 bytes, spaces escaped
	parallel(t, clients, func(r int, c *pmi.Client) error {
		if r == 0 {
			if err := c.Put("big", long); err != nil {
				return err
			}
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		v, err := c.Get("big")
		if err != nil {
			return err
		}
		if v != long {
			return fmt.Errorf("got %d bytes, want %d", len(v), len(long))
		}
		return nil
	})
}

func TestKeyValidation(t *testing.T) {
	clients, _, _ := job(t, 1, server.Config{KeyLenMax: 16, ValLenMax: 32})
	c := clients[0]
	for _, k := range []string{"", "a b", "a=b", "a#1", "x\n", strings.Repeat("k", 17)} {
		if err := c.Put(k, "v"); err == nil {
			t.Errorf("Put(%q) succeeded", k)
		}
	}
	// Too many pieces for the key length.
	if err := c.Put(strings.Repeat("k", 15), strings.Repeat("v", 100)); err == nil {
		t.Error("split with too long piece keys succeeded")
	}
	// The client is still usable after refused puts.
	if err := c.Put("ok", "fine"); err != nil {
		t.Fatal(err)
	}
	if v, err := c.Get("ok"); err != nil || v != "fine" {
		t.Fatalf("Get(ok) = %q, %v", v, err)
	}
}

func TestGetMissing(t *testing.T) {
	clients, _, _ := job(t, 1, server.Config{})
	_, err := clients[0].Get("nosuchkey")
	if err == nil || !errors.Is(err, pmi.ErrNotFound) || !strings.Contains(err.Error(), "nosuchkey") {
		t.Fatalf("got %v, want not-found error naming the key", err)
	}
	// Still usable.
	if err := clients[0].Barrier(); err != nil {
		t.Fatal(err)
	}
}

func waitEvent(t *testing.T, events chan server.Event, kind server.EventKind) server.Event {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.Kind == kind {
				return ev
			}
		case <-timeout:
			t.Fatalf("no %v event", kind)
		}
	}
}

func TestAbortAndFinalize(t *testing.T) {
	clients, srv, events := job(t, 2, server.Config{})
	if err := clients[1].Abort(7, "bad thing: x=1"); err != nil {
		t.Fatal(err)
	}
	ev := waitEvent(t, events, server.EventAbort)
	if ev.Rank != 1 || ev.Code != 7 || ev.Message != "bad thing: x=1" {
		t.Fatalf("abort event %+v", ev)
	}
	if err := clients[1].Barrier(); !errors.Is(err, pmi.ErrClosed) {
		t.Errorf("request after Abort: %v", err)
	}
	if err := clients[0].Finalize(); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, events, server.EventFinalize)
	if st := srv.State(0); !st.Initialized || !st.Finalized || st.Aborted {
		t.Errorf("state 0: %+v", st)
	}
	if st := srv.State(1); !st.Aborted || st.AbortCode != 7 || st.Finalized {
		t.Errorf("state 1: %+v", st)
	}
	if _, err := clients[0].Get("x"); err == nil {
		t.Error("Get after Finalize succeeded")
	}
}

func TestConcurrentUse(t *testing.T) {
	clients, _, _ := job(t, 2, server.Config{})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				k := fmt.Sprintf("g%d-%d", g, i)
				if err := clients[0].Put(k, k); err != nil {
					t.Error(err)
					return
				}
				if v, err := clients[0].Get(k); err != nil || v != k {
					t.Errorf("Get(%s) = %q, %v", k, v, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestEncodeDecode(t *testing.T) {
	for _, s := range []string{"", "plain", "a b", "%", "%41", "=", "\x00\x01\xff", "x%-y"} {
		e := pmi.EncodeValue(s)
		if e == "" || strings.ContainsAny(e, " =\n") {
			t.Errorf("EncodeValue(%q) = %q is not wire-safe", s, e)
		}
		if d := pmi.DecodeValue(e); d != s {
			t.Errorf("round trip %q -> %q -> %q", s, e, d)
		}
	}
	// Foreign values without escapes pass through.
	for _, s := range []string{"(vector,(0,1,2))", "50%", "a%zz"} {
		if d := pmi.DecodeValue(s); d != s {
			t.Errorf("DecodeValue(%q) = %q", s, d)
		}
	}
}

func TestFromEnvSingleton(t *testing.T) {
	t.Setenv("PMI_FD", "")
	t.Setenv("PMI_PORT", "")
	c, err := pmi.FromEnv()
	if c != nil || err != nil {
		t.Fatalf("FromEnv() = %v, %v; want nil, nil", c, err)
	}
}

func TestFromEnvFD(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	srvEnd := os.NewFile(uintptr(fds[0]), "srv")
	sc, err := net.FileConn(srvEnd)
	srvEnd.Close()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Size: 2, KVSName: "kvs_fd"})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(1, sc)
	clearPMIEnv(t)
	t.Setenv("PMI_FD", strconv.Itoa(fds[1]))
	t.Setenv("PMI_RANK", "1")
	t.Setenv("PMI_SIZE", "2")
	c, err := pmi.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Rank() != 1 || c.Size() != 2 || c.KVSName() != "kvs_fd" {
		t.Fatalf("rank=%d size=%d kvs=%q", c.Rank(), c.Size(), c.KVSName())
	}
	if _, ok := os.LookupEnv("PMI_FD"); ok {
		t.Error("PMI_FD still set")
	}
	if err := syscall.Close(fds[1]); err != syscall.EBADF {
		t.Errorf("inherited fd not closed by FromEnv (close: %v)", err)
	}
	if err := c.Put("k", "v"); err != nil {
		t.Fatal(err)
	}
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
}

func TestFromEnvPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	srv, err := server.New(server.Config{Size: 3, KVSName: "kvs_port"})
	if err != nil {
		t.Fatal(err)
	}
	go srv.ServeListener(l)
	clearPMIEnv(t)
	t.Setenv("PMI_PORT", l.Addr().String())
	t.Setenv("PMI_ID", "2")
	c, err := pmi.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Rank() != 2 || c.Size() != 3 || c.KVSName() != "kvs_port" {
		t.Fatalf("rank=%d size=%d kvs=%q", c.Rank(), c.Size(), c.KVSName())
	}
	if err := c.Put("k", "v w"); err != nil {
		t.Fatal(err)
	}
	if v, err := c.Get("k"); err != nil || v != "v w" {
		t.Fatalf("Get = %q, %v", v, err)
	}
}

// rawConn talks the wire protocol by hand, as a foreign client would.
func rawConn(t *testing.T, srv *server.Server, rank int) (net.Conn, *bufio.Reader) {
	a, b := net.Pipe()
	go srv.Serve(rank, a)
	t.Cleanup(func() { b.Close() })
	b.SetDeadline(time.Now().Add(5 * time.Second))
	return b, bufio.NewReader(b)
}

func TestServerUnknownAndPMI2(t *testing.T) {
	events := make(chan server.Event, 100)
	srv, err := server.New(server.Config{Size: 2, KVSName: "kvs_x", OnEvent: func(ev server.Event) { events <- ev }})
	if err != nil {
		t.Fatal(err)
	}
	c, r := rawConn(t, srv, 0)
	fmt.Fprintf(c, "cmd=frobnicate a=b\n")
	line, err := r.ReadString('\n')
	if err != nil || !strings.Contains(line, "rc=-1") {
		t.Fatalf("unknown command reply %q, %v", line, err)
	}
	// Connection still usable.
	fmt.Fprintf(c, "cmd=get_my_kvsname\n")
	if line, err = r.ReadString('\n'); err != nil || !strings.Contains(line, "kvsname=kvs_x") {
		t.Fatalf("reply %q, %v", line, err)
	}

	c2, r2 := rawConn(t, srv, 1)
	body := "cmd=fullinit;pmirank=1;threaded=FALSE;"
	fmt.Fprintf(c2, "%-6d%s", len(body), body)
	buf := make([]byte, 200)
	n, _ := r2.Read(buf)
	if !strings.Contains(string(buf[:n]), "fullinit-response") || !strings.Contains(string(buf[:n]), "rc=-1") {
		t.Fatalf("PMI-2 reply %q", buf[:n])
	}
	waitEvent(t, events, server.EventPMI2)
}

// TestDialSecret: over PMI_PORT with GMPI_PMI_AUTH=1 the client proves the
// job secret before any PMI byte; a client with a wrong secret is refused
// and a server that does not know the secret is not trusted.
func TestDialSecret(t *testing.T) {
	srv, err := server.New(server.Config{Size: 1, KVSName: "kvs_auth"})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	secret := []byte("0123456789abcdef")
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				if auth.Handshake(c, secret, false, "pmi", 5*time.Second) != nil {
					c.Close()
					return
				}
				srv.Serve(-1, c)
			}()
		}
	}()
	if _, err := pmi.DialSecret(l.Addr().String(), 0, []byte("wrong")); err == nil || !errors.Is(err, auth.ErrDenied) {
		t.Errorf("wrong secret: %v", err)
	}
	if _, err := pmi.Dial(l.Addr().String(), 0); err == nil {
		t.Error("a client without the secret got through")
	}
	t.Setenv("PMI_PORT", l.Addr().String())
	t.Setenv("PMI_ID", "0")
	t.Setenv("GMPI_PMI_AUTH", "1")
	t.Setenv("GMPI_JOB_SECRET", string(secret))
	c, err := pmi.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if c.Rank() != 0 || c.Size() != 1 || c.KVSName() != "kvs_auth" {
		t.Errorf("rank %d size %d kvs %q", c.Rank(), c.Size(), c.KVSName())
	}
	if err := c.Finalize(); err != nil {
		t.Error(err)
	}
	t.Setenv("GMPI_JOB_SECRET", "")
	if _, err := pmi.FromEnv(); err == nil {
		t.Error("GMPI_PMI_AUTH=1 without a secret accepted")
	}
}

// TestKVSBound: a rank that puts more keys, or more bytes, than its part
// of the key-value space allows gets an error naming the bound, its
// connection stays usable, overwriting its own keys costs nothing more,
// and the other ranks are not affected.
func TestKVSBound(t *testing.T) {
	clients, _, events := job(t, 2, server.Config{MaxKeys: 10, MaxBytes: 400})
	c := clients[0]
	for i := 0; i < 10; i++ {
		if err := c.Put("k"+strconv.Itoa(i), "v"); err != nil {
			t.Fatalf("put %d of 10: %v", i, err)
		}
	}
	err := c.Put("k10", "v")
	if err == nil || !strings.Contains(err.Error(), "kvs_bound") || !strings.Contains(err.Error(), "rank_0") || !strings.Contains(err.Error(), "at_most_10_per_rank") {
		t.Fatalf("the 11th key: %v", err)
	}
	if ev := waitEvent(t, events, server.EventProtocolError); ev.Rank != 0 || !strings.Contains(ev.Message, "kvs bound") {
		t.Errorf("event %+v", ev)
	}
	for i := 0; i < 20; i++ { // overwrites of its own keys
		if err := c.Put("k3", strconv.Itoa(i)); err != nil {
			t.Fatalf("overwrite %d: %v", i, err)
		}
	}
	if v, err := c.Get("k3"); err != nil || v != "19" {
		t.Fatalf("k3 = %q, %v", v, err)
	}
	// Rank 1 has its own bound: bytes first.
	d := clients[1]
	if err := d.Put("big", strings.Repeat("x", 300)); err != nil {
		t.Fatal(err)
	}
	err = d.Put("big2", strings.Repeat("y", 100))
	if err == nil || !strings.Contains(err.Error(), "kvs_bound") || !strings.Contains(err.Error(), "rank_1") || !strings.Contains(err.Error(), "bytes") {
		t.Fatalf("bytes beyond the bound: %v", err)
	}
	if err := d.Put("big", strings.Repeat("z", 350)); err != nil { // replaces its 300 bytes
		t.Fatalf("overwrite with a longer value within the bound: %v", err)
	}
	// Rank 1 takes over one of rank 0's keys: rank 0 may put one more.
	if err := d.Put("k0", "w"); err != nil {
		t.Fatal(err)
	}
	if err := c.Put("k10", "v"); err != nil {
		t.Fatalf("rank 0 after rank 1 took over k0: %v", err)
	}
	parallel(t, clients, func(r int, c *pmi.Client) error {
		if err := c.Barrier(); err != nil {
			return err
		}
		if v, err := c.Get("k0"); err != nil || v != "w" {
			return fmt.Errorf("k0 = %q, %v", v, err)
		}
		return nil
	})
}
