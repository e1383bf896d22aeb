package pmi_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"gmpi/internal/fuzzseed"
	"gmpi/runtime/pmi"
	"gmpi/runtime/pmi/server"
)

// clearPMIEnv empties every variable FromEnv reads, so tests do not depend
// on the launcher that runs them.
func clearPMIEnv(t *testing.T) {
	t.Helper()
	for _, v := range []string{"PMI_FD", "PMI_PORT", "PMI_ID", "PMI_RANK", "PMI_SIZE",
		"PMI_JOBID", "PMI2_SUN_PATH", "GMPI_PMI", "GMPI_PMI_AUTH"} {
		t.Setenv(v, "")
	}
}

// fake2 is a small PMI-2 server in the manner of Slurm's pmi2 plugin:
// puts are staged per rank and become visible at the fence, fullinit
// requires pmirank and threaded, appnum is -1.
type fake2 struct {
	n int
	// hydraFence makes the server behave like hydra's (MPICH 4.0): puts
	// are visible at once, kvs-fence returns at once, and a get of a
	// missing key is answered only once every rank has fenced as often
	// as the asker.
	hydraFence bool

	mu      sync.Mutex
	kvs     map[string]string
	staged  map[string]string
	fenceIn int
	fenceCh chan struct{}
	aborts  []map[string]string
	inits   []map[string]string
	epochs  map[string]int // hydraFence: fences per pmirank
	cond    *sync.Cond
}

func newFake2(n int) *fake2 {
	s := &fake2{n: n, kvs: map[string]string{}, staged: map[string]string{}, fenceCh: make(chan struct{}), epochs: map[string]int{}}
	s.cond = sync.NewCond(&s.mu)
	return s
}

func reply2(w io.Writer, cmd string, kv ...string) {
	io.WriteString(w, pmi.FormatCommand2(cmd, kv...))
}

// serve runs one connection until finalize, abort or EOF.
func (s *fake2) serve(conn net.Conn) {
	defer conn.Close()
	r := bufio.NewReader(conn)
	line, err := pmi.ReadLine(r)
	if err != nil {
		return
	}
	if f, err := pmi.ParseLine(line); err != nil || f["cmd"] != "init" || f["pmi_version"] != "2" {
		io.WriteString(conn, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1\n")
		return
	}
	io.WriteString(conn, "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n")
	me := ""
	for {
		body, err := pmi.ReadCommand2(r)
		if err != nil {
			return
		}
		f, err := pmi.ParseCommand2(body)
		if err != nil {
			return
		}
		switch f["cmd"] {
		case "fullinit":
			s.mu.Lock()
			s.inits = append(s.inits, f)
			me = f["pmirank"]
			s.mu.Unlock()
			if f["pmirank"] == "" || f["threaded"] == "" {
				reply2(conn, "fullinit-response", "rc", "-1", "errmsg", "pmirank or threaded missing")
				continue
			}
			reply2(conn, "fullinit-response", "rc", "0", "pmi-version", "2", "pmi-subversion", "0",
				"rank", f["pmirank"], "size", strconv.Itoa(s.n), "appnum", "-1", "debugged", "FALSE", "pmiverbose", "FALSE")
		case "job-getid":
			reply2(conn, "job-getid-response", "rc", "0", "jobid", "fake.0")
		case "info-getjobattr":
			switch f["key"] {
			case "universeSize":
				reply2(conn, "info-getjobattr-response", "rc", "0", "found", "TRUE", "value", "8")
			case "PMI_process_mapping":
				reply2(conn, "info-getjobattr-response", "rc", "0", "found", "TRUE", "value", "(vector,(0,1,4))")
			default:
				reply2(conn, "info-getjobattr-response", "rc", "0", "found", "FALSE")
			}
		case "kvs-put":
			s.mu.Lock()
			if s.hydraFence {
				s.kvs[f["key"]] = f["value"]
			} else {
				s.staged[f["key"]] = f["value"]
			}
			s.mu.Unlock()
			reply2(conn, "kvs-put-response", "rc", "0")
		case "kvs-fence":
			if s.hydraFence {
				s.mu.Lock()
				s.epochs[me]++
				s.cond.Broadcast()
				s.mu.Unlock()
				reply2(conn, "kvs-fence-response", "rc", "0")
				continue
			}
			s.mu.Lock()
			ch := s.fenceCh
			if s.fenceIn++; s.fenceIn == s.n {
				for k, v := range s.staged {
					s.kvs[k] = v
				}
				clear(s.staged)
				s.fenceIn = 0
				s.fenceCh = make(chan struct{})
				close(ch)
			}
			s.mu.Unlock()
			<-ch
			reply2(conn, "kvs-fence-response", "rc", "0")
		case "kvs-get":
			s.mu.Lock()
			v, ok := s.kvs[f["key"]]
			for s.hydraFence && !ok && !s.allReachedLocked(s.epochs[me]) {
				s.cond.Wait()
				v, ok = s.kvs[f["key"]]
			}
			s.mu.Unlock()
			if ok {
				reply2(conn, "kvs-get-response", "rc", "0", "found", "TRUE", "value", v)
			} else {
				reply2(conn, "kvs-get-response", "rc", "0", "found", "FALSE")
			}
		case "finalize":
			reply2(conn, "finalize-response", "rc", "0")
			return
		case "abort":
			s.mu.Lock()
			s.aborts = append(s.aborts, f)
			s.mu.Unlock()
			return
		default:
			reply2(conn, f["cmd"]+"-response", "rc", "-1", "errmsg", "unknown command")
		}
	}
}

// allReachedLocked says whether every rank has fenced at least e times.
func (s *fake2) allReachedLocked(e int) bool {
	if len(s.epochs) < s.n {
		return e == 0
	}
	for _, got := range s.epochs {
		if got < e {
			return false
		}
	}
	return true
}

// job2 connects n PMI-2 clients to a fake2 server.
func job2(t *testing.T, n int) ([]*pmi.Client, *fake2) {
	return job2With(t, newFake2(n))
}

func job2With(t *testing.T, s *fake2) ([]*pmi.Client, *fake2) {
	t.Helper()
	n := s.n
	clients := make([]*pmi.Client, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := 0; r < n; r++ {
		a, b := net.Pipe()
		go s.serve(a)
		wg.Add(1)
		go func() {
			defer wg.Done()
			clients[r], errs[r] = pmi.NewClient2(b, r, "17.0")
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
	return clients, s
}

func TestPMI2PutFenceGet(t *testing.T) {
	clients, s := job2(t, 4)
	for r, c := range clients {
		if c.Version() != 2 || c.Rank() != r || c.Size() != 4 || c.KVSName() != "fake.0" || c.UniverseSize() != 8 || c.AppNum() != 0 {
			t.Errorf("rank %d: got version=%d rank=%d size=%d kvs=%q usize=%d app=%d", r, c.Version(), c.Rank(), c.Size(), c.KVSName(), c.UniverseSize(), c.AppNum())
		}
	}
	for _, f := range s.inits {
		if f["pmijobid"] != "17.0" || f["threaded"] != "FALSE" {
			t.Errorf("fullinit fields %v: want pmijobid=17.0 threaded=FALSE", f)
		}
	}
	weird := "semi;colon sp ace=eq%pct\n\x00\xff#"
	long := strings.Repeat("0123456789;", 300) // 3300 bytes, split over several keys
	parallel(t, clients, func(r int, c *pmi.Client) error {
		if err := c.Put("card-"+strconv.Itoa(r), fmt.Sprintf("rank %d %s", r, weird)); err != nil {
			return err
		}
		if err := c.Put("empty-"+strconv.Itoa(r), ""); err != nil {
			return err
		}
		if r == 0 {
			if err := c.Put("big", long); err != nil {
				return err
			}
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
		if v, err := c.Get("big"); err != nil || v != long {
			return fmt.Errorf("big: got %d bytes, %v; want %d", len(v), err, len(long))
		}
		if _, err := c.Get("nosuchkey"); !errors.Is(err, pmi.ErrNotFound) || !strings.Contains(err.Error(), "nosuchkey") {
			return fmt.Errorf("missing key: got %v, want ErrNotFound naming the key", err)
		}
		if v, ok, err := c.JobAttr("PMI_process_mapping"); err != nil || !ok || v != "(vector,(0,1,4))" {
			return fmt.Errorf("PMI_process_mapping: %q %v %v", v, ok, err)
		}
		if _, ok, err := c.JobAttr("nosuchattr"); err != nil || ok {
			return fmt.Errorf("nosuchattr: %v %v", ok, err)
		}
		// The connection stays usable after a missing key.
		if err := c.Barrier(); err != nil {
			return err
		}
		return c.Finalize()
	})
	if err := clients[0].Barrier(); !errors.Is(err, pmi.ErrClosed) {
		t.Errorf("barrier after finalize: %v, want ErrClosed", err)
	}
}

// TestPMI2BarrierHydra checks that Barrier is a barrier even on a server
// whose fence does not wait (hydra's).
func TestPMI2BarrierHydra(t *testing.T) {
	s := newFake2(4)
	s.hydraFence = true
	clients, _ := job2With(t, s)
	var entered atomic.Int32
	parallel(t, clients, func(r int, c *pmi.Client) error {
		for round := 1; round <= 3; round++ {
			time.Sleep(time.Duration((r*7+round*3)%5) * 10 * time.Millisecond)
			if err := c.Put(fmt.Sprintf("k-%d-%d", round, r), "v"); err != nil {
				return err
			}
			entered.Add(1)
			if err := c.Barrier(); err != nil {
				return err
			}
			if got := entered.Load(); got < int32(4*round) {
				return fmt.Errorf("round %d: left the barrier when only %d of %d had entered", round, got, 4*round)
			}
			for p := 0; p < 4; p++ {
				if _, err := c.Get(fmt.Sprintf("k-%d-%d", round, p)); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

func TestPMI2Abort(t *testing.T) {
	clients, s := job2(t, 1)
	if err := clients[0].Abort(7, "it broke; badly\nreally"); err != nil {
		t.Fatal(err)
	}
	if err := clients[0].Barrier(); !errors.Is(err, pmi.ErrClosed) {
		t.Errorf("barrier after abort: %v, want ErrClosed", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.mu.Lock()
		n := len(s.aborts)
		s.mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.aborts) != 1 {
		t.Fatalf("server saw %d aborts", len(s.aborts))
	}
	f := s.aborts[0]
	if f["isworld"] != "TRUE" || f["exitcode"] != "7" || f["message"] != "it broke  badly really" {
		t.Errorf("abort fields %v", f)
	}
}

// scripted answers the PMI-1 init line with initReply, then every framed
// request with the next of replies (raw bytes), then closes the
// connection.
func scripted(conn net.Conn, initReply string, replies ...string) {
	defer conn.Close()
	r := bufio.NewReader(conn)
	if _, err := pmi.ReadLine(r); err != nil {
		return
	}
	io.WriteString(conn, initReply)
	for _, rep := range replies {
		if _, err := pmi.ReadCommand2(r); err != nil {
			return
		}
		io.WriteString(conn, rep)
	}
}

func frame(body string) string { return fmt.Sprintf("%6d%s", len(body), body) }

// TestPMI2Malformed feeds the client broken servers: each must give an
// error that says what is wrong, never a panic or a hang.
func TestPMI2Malformed(t *testing.T) {
	okInit := "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n"
	okFull := frame("cmd=fullinit-response;rc=0;rank=0;size=2;appnum=0;")
	okID := frame("cmd=job-getid-response;rc=0;jobid=j1;")
	okAttr := frame("cmd=info-getjobattr-response;rc=0;found=FALSE;")
	cases := []struct {
		name     string
		init     string
		replies  []string
		op       func(*pmi.Client) error // after a successful init
		wantText string
	}{
		{name: "pmi1 only", init: "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n", wantText: "does not speak PMI-2"},
		{name: "init refused", init: "cmd=response_to_init pmi_version=1 rc=-1 msg=no\n", wantText: "refused PMI-2 (pmi: response_to_init failed: rc=-1: no; it offers pmi_version=\"1\"): GMPI_PMI=1 selects PMI-1"},
		{name: "init garbage", init: "hello world\n", wantText: "without cmd"},
		{name: "init eof", init: "", wantText: "EOF"},
		{name: "bad length", init: okInit, replies: []string{"abcdefcmd=fullinit-response;"}, wantText: "length prefix"},
		{name: "zero length", init: okInit, replies: []string{"     0"}, wantText: "length prefix"},
		{name: "negative length", init: okInit, replies: []string{"    -5cmd=x"}, wantText: "length prefix"},
		{name: "huge length", init: okInit, replies: []string{"999999cmd=x;"}, wantText: "length prefix"},
		{name: "short body", init: okInit, replies: []string{"    50cmd=fullinit-response;"}, wantText: "unexpected EOF"},
		{name: "short prefix", init: okInit, replies: []string{"  1"}, wantText: "EOF"},
		{name: "no cmd", init: okInit, replies: []string{frame("rank=0;cmd=fullinit-response;")}, wantText: "does not start with cmd="},
		{name: "empty field key", init: okInit, replies: []string{frame("cmd=fullinit-response;=3;")}, wantText: "malformed field"},
		{name: "only separators", init: okInit, replies: []string{frame(";;;")}, wantText: "empty PMI-2 message"},
		{name: "wrong reply", init: okInit, replies: []string{frame("cmd=kvs-get-response;rc=0;")}, wantText: "expected cmd=fullinit-response"},
		{name: "fullinit rc", init: okInit, replies: []string{frame("cmd=fullinit-response;rc=14;errmsg=go away;")}, wantText: "go away"},
		{name: "no rank", init: okInit, replies: []string{frame("cmd=fullinit-response;rc=0;size=2;appnum=0;")}, wantText: "rank"},
		{name: "bad size", init: okInit, replies: []string{frame("cmd=fullinit-response;rc=0;rank=0;size=two;appnum=0;")}, wantText: "size"},
		{name: "rank out of range", init: okInit, replies: []string{frame("cmd=fullinit-response;rc=0;rank=5;size=2;appnum=0;"), okID, okAttr}, wantText: "out of range"},
		{name: "empty jobid", init: okInit, replies: []string{okFull, frame("cmd=job-getid-response;rc=0;"), okAttr}, wantText: "empty kvsname"},
		{name: "bad found", init: okInit, replies: []string{okFull, okID, okAttr, frame("cmd=kvs-get-response;rc=0;found=MAYBE;value=x;")},
			op: func(c *pmi.Client) error { _, err := c.Get("k"); return err }, wantText: "bad found"},
		{name: "found without value", init: okInit, replies: []string{okFull, okID, okAttr, frame("cmd=kvs-get-response;rc=0;found=TRUE;")},
			op: func(c *pmi.Client) error { _, err := c.Get("k"); return err }, wantText: "without value"},
		{name: "fence rc", init: okInit, replies: []string{okFull, okID, okAttr, frame("cmd=kvs-fence-response;rc=3;errmsg=lost a node;")},
			op: func(c *pmi.Client) error { return c.Barrier() }, wantText: "lost a node"},
		{name: "eof at fence", init: okInit, replies: []string{okFull, okID, okAttr},
			op: func(c *pmi.Client) error { return c.Barrier() }, wantText: "kvs-fence"},
		{name: "put refused", init: okInit, replies: []string{okFull, okID, okAttr, frame("cmd=kvs-put-response;rc=1;errmsg=full;")},
			op: func(c *pmi.Client) error { return c.Put("k", "v") }, wantText: "full"},
		{name: "encoded errmsg", init: okInit, replies: []string{okFull, okID, okAttr, frame("cmd=kvs-put-response;rc=1;errmsg=no%20such%20machine;")},
			op: func(c *pmi.Client) error { return c.Put("k", "v") }, wantText: "rc=1: no such machine"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, b := net.Pipe()
			go scripted(a, tc.init, tc.replies...)
			done := make(chan error, 1)
			go func() {
				c, err := pmi.NewClient2(b, 0, "")
				if err == nil {
					if tc.op == nil {
						err = errors.New("init succeeded")
					} else {
						err = tc.op(c)
						c.Close()
					}
				} else if tc.op != nil {
					err = fmt.Errorf("init failed: %w", err)
				}
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tc.wantText) {
					t.Errorf("got %v, want an error containing %q", err, tc.wantText)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("client hung")
			}
		})
	}
}

// TestFromEnvVersion checks how FromEnv picks the protocol over PMI_FD.
func TestFromEnvVersion(t *testing.T) {
	cases := []struct {
		gmpiPMI, jobid, sunPath string
		want                    int
	}{
		{"", "", "", 1},
		{"auto", "", "", 1},
		{"", "33.0", "", 2},      // Slurm's pmi2 plugin
		{"", "", "/tmp/sock", 2}, // ditto
		{"2", "", "", 2},
		{"1", "33.0", "", 1},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("GMPI_PMI=%s,PMI_JOBID=%s,PMI2_SUN_PATH=%s", tc.gmpiPMI, tc.jobid, tc.sunPath), func(t *testing.T) {
			fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			srvFile := fdConn(t, fds[0])
			if tc.want == 2 {
				go newFake2(2).serve(srvFile)
			} else {
				srv, err := server.New(server.Config{Size: 2, KVSName: "kvs_v1"})
				if err != nil {
					t.Fatal(err)
				}
				go srv.Serve(1, srvFile)
			}
			clearPMIEnv(t)
			t.Setenv("GMPI_PMI", tc.gmpiPMI)
			t.Setenv("PMI_JOBID", tc.jobid)
			t.Setenv("PMI2_SUN_PATH", tc.sunPath)
			t.Setenv("PMI_FD", strconv.Itoa(fds[1]))
			t.Setenv("PMI_RANK", "1")
			t.Setenv("PMI_SIZE", "2")
			c, err := pmi.FromEnv()
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if c.Version() != tc.want || c.Rank() != 1 || c.Size() != 2 {
				t.Errorf("got version %d rank %d size %d, want version %d rank 1 size 2", c.Version(), c.Rank(), c.Size(), tc.want)
			}
		})
	}
	clearPMIEnv(t)
	t.Setenv("GMPI_PMI", "3")
	t.Setenv("PMI_FD", "1000")
	if _, err := pmi.FromEnv(); err == nil || !strings.Contains(err.Error(), `GMPI_PMI="3"`) {
		t.Errorf("GMPI_PMI=3: got %v, want an error naming it", err)
	}
}

// fdConn wraps a socket descriptor as a net.Conn (closing the original).
func fdConn(t *testing.T, fd int) net.Conn {
	t.Helper()
	f := os.NewFile(uintptr(fd), "pmi-test")
	defer f.Close()
	c, err := net.FileConn(f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestPMI2OverPort runs PMI-2 over a TCP connection (the PMI_PORT form).
func TestPMI2OverPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	s := newFake2(1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			s.serve(c)
		}
	}()
	clearPMIEnv(t)
	t.Setenv("GMPI_PMI", "2")
	t.Setenv("PMI_PORT", l.Addr().String())
	t.Setenv("PMI_ID", "0")
	c, err := pmi.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if c.Version() != 2 || c.Rank() != 0 || c.Size() != 1 {
		t.Errorf("got version %d rank %d size %d", c.Version(), c.Rank(), c.Size())
	}
	if err := c.Finalize(); err != nil {
		t.Error(err)
	}
}

func FuzzParseCommand2(f *testing.F) {
	for _, s := range []string{"cmd=kvs-get-response;rc=0;found=TRUE;value=x;", ";;", "cmd=;", "=;", "cmd=a;b;c=d=e;"} {
		fuzzseed.Add(f, []any{s})
	}
	f.Fuzz(func(t *testing.T, body string) {
		fields, err := pmi.ParseCommand2(body)
		if err == nil && fields["cmd"] == "" {
			t.Errorf("%q parsed without cmd", body)
		}
	})
}

func FuzzReadCommand2(f *testing.F) {
	for _, s := range []string{"     5cmd=x", "5     cmd=x", "abcdef", "-00001x", "000000", "   100short", "    40cmd=fullinit;pmijobid=1;pmirank=0;threaded=FALSE;",
		"    38cmd=kvs-put;key=k;value=v%3b;", "999999" + strings.Repeat("x", 10)} {
		fuzzseed.Add(f, []any{[]byte(s)})
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		body, err := pmi.ReadCommand2(strings.NewReader(string(in)))
		if err == nil && (len(body) == 0 || len(body) > len(in)) {
			t.Errorf("%q gave body of %d bytes", in, len(body))
		}
	})
}
