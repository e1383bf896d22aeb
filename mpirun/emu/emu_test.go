package emu

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The test binary is also the emulator's helper and the tools the tests
// run inside emulated hosts (ping, TCP source and sink).
const testToolArg = "__emu-test-tool"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == HelperArg {
		os.Exit(HelperMain(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == testToolArg {
		if err := testTool(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "test tool:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// testTool runs one tool: "ping ADDR COUNT INTERVAL TIMEOUT" prints one RTT in ns
// (or "timeout") per echo; "sink PORT WINDOW SKIP" accepts one TCP
// connection and, after its first SKIP bytes, prints for every WINDOW
// bytes received the bytes and the ns they took; "source ADDR BYTES" sends
// BYTES.
func testTool(args []string) error {
	if len(args) < 1 {
		return errors.New("no tool")
	}
	// Real-time, like the router, so that the measuring side is not what
	// a loaded machine delays.
	if args[0] == "ping" {
		setRealtime(rtPriority - 10)
	}
	switch args[0] {
	case "ping":
		count, _ := strconv.Atoi(args[2])
		interval, _ := time.ParseDuration(args[3])
		timeout, _ := time.ParseDuration(args[4])
		return ping(args[1], count, interval, timeout)
	case "sink":
		// A receive window of about 3 × the bandwidth-delay product keeps
		// the link busy without overflowing the router's queue: no loss,
		// so TCP's recovery does not blur the rate.
		lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
			return c.Control(func(fd uintptr) { unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUF, 128<<10) })
		}}
		ln, err := lc.Listen(context.Background(), "tcp4", ":"+args[1])
		if err != nil {
			return err
		}
		fmt.Println("listening")
		window, _ := strconv.Atoi(args[2])
		skip, _ := strconv.Atoi(args[3])
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		defer c.Close()
		buf := make([]byte, 1<<16)
		total, mark := 0, skip
		var last time.Time
		for {
			k, err := c.Read(buf)
			total += k
			if total >= mark {
				now := time.Now()
				if !last.IsZero() {
					fmt.Println(total-(mark-window), now.Sub(last).Nanoseconds())
				}
				last, mark = now, total+window
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	case "listen": // listen PORT...: accept (and close) until killed
		for _, port := range args[1:] {
			ln, err := net.Listen("tcp4", ":"+port)
			if err != nil {
				return err
			}
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					c.Close()
				}
			}()
		}
		fmt.Println("listening")
		select {}
	case "connect": // connect ADDR TIMEOUT [SRCPORT]: "ok", "refused" or "timeout"
		d, _ := time.ParseDuration(args[2])
		dl := net.Dialer{Timeout: d}
		if len(args) > 3 {
			sp, _ := strconv.Atoi(args[3])
			dl.LocalAddr = &net.TCPAddr{Port: sp}
		}
		c, err := dl.Dial("tcp4", args[1])
		switch {
		case err == nil:
			c.Close()
			fmt.Println("ok")
		case errors.Is(err, syscall.ECONNREFUSED):
			fmt.Println("refused")
		case errors.Is(err, os.ErrDeadlineExceeded) || strings.Contains(err.Error(), "timeout"):
			fmt.Println("timeout")
		default:
			fmt.Println("error:" + strings.ReplaceAll(err.Error(), " ", "_"))
		}
		return nil
	case "source":
		n, _ := strconv.Atoi(args[2])
		c, err := net.DialTimeout("tcp4", args[1], 5*time.Second)
		if err != nil {
			return err
		}
		c.SetDeadline(time.Now().Add(20 * time.Second))
		if _, err := c.Write(make([]byte, n)); err != nil {
			return err
		}
		return c.Close()
	}
	return fmt.Errorf("unknown tool %q", args[0])
}

// ping sends ICMP echo requests from a raw socket, one at a time.
func ping(addr string, count int, interval, timeout time.Duration) error {
	c, err := net.ListenPacket("ip4:icmp", "0.0.0.0")
	if err != nil {
		return err
	}
	defer c.Close()
	dst := &net.IPAddr{IP: net.ParseIP(addr)}
	id := uint16(os.Getpid())
	buf := make([]byte, 1500)
	for seq := 0; seq < count; seq++ {
		msg := make([]byte, 64) // 84 bytes on the wire, as ping(8) sends
		msg[0] = 8              // echo request
		binary.BigEndian.PutUint16(msg[4:], id)
		binary.BigEndian.PutUint16(msg[6:], uint16(seq))
		binary.BigEndian.PutUint16(msg[2:], icmpChecksum(msg))
		sent := time.Now()
		if _, err := c.WriteTo(msg, dst); err != nil {
			return err
		}
		c.SetReadDeadline(sent.Add(timeout))
		for {
			n, _, err := c.ReadFrom(buf)
			if err != nil {
				fmt.Println("timeout")
				break
			}
			if n >= 8 && buf[0] == 0 && binary.BigEndian.Uint16(buf[4:]) == id && binary.BigEndian.Uint16(buf[6:]) == uint16(seq) {
				fmt.Println(time.Since(sent).Nanoseconds())
				break
			}
		}
		time.Sleep(interval)
	}
	return nil
}

func icmpChecksum(b []byte) uint16 {
	var s uint32
	for i := 0; i+1 < len(b); i += 2 {
		s += uint32(b[i])<<8 | uint32(b[i+1])
	}
	for s > 0xffff {
		s = s>>16 + s&0xffff
	}
	return ^uint16(s)
}

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("grid emulation needs root (network namespaces, bridges, TUN); skipped")
	}
	if _, err := exec.LookPath("nsenter"); err != nil {
		t.Skip("nsenter not found; skipped")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("ip (iproute2) not found; skipped")
	}
}

// tool runs the test tool in host and returns its stdout lines.
func tool(t *testing.T, g *Grid, host string, args ...string) []string {
	t.Helper()
	exe, _ := os.Executable()
	cmd := g.Command(host, exe, append([]string{testToolArg}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s in %s: %v: %s", args, host, err, stderr.String())
	}
	return strings.Fields(string(out))
}

func pingRTTs(t *testing.T, g *Grid, from, to string, count int, timeout time.Duration) (rtts []time.Duration, timeouts int) {
	t.Helper()
	for _, f := range tool(t, g, from, "ping", g.Addr(to).String(), strconv.Itoa(count), "5ms", timeout.String()) {
		if f == "timeout" {
			timeouts++
			continue
		}
		ns, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			t.Fatalf("ping output %q", f)
		}
		rtts = append(rtts, time.Duration(ns))
	}
	return rtts, timeouts
}

func median[T int64 | float64 | time.Duration](x []T) T {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[len(s)/2]
}

var topo2x2 = Topology{
	Sites: []Site{{Name: "A", Hosts: []string{"a1", "a2"}}, {Name: "B", Hosts: []string{"b1", "b2"}}},
	Links: []Link{{A: "A", B: "B", Delay: 10 * time.Millisecond, Rate: 1e6}},
}

// TestGrid builds the 2-site × 2-host grid of examples/grid-2x2.toml and
// checks identity, delay, rate, a site going down and coming back, and
// that Close leaves nothing behind.
func TestGrid(t *testing.T) {
	needRoot(t)
	g, err := Start(topo2x2)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	helpers := []int{g.router.cmd.Process.Pid}
	inos := map[uint64]bool{g.router.nsIno: true}
	for _, h := range g.order {
		helpers = append(helpers, h.proc.cmd.Process.Pid)
		inos[h.proc.nsIno] = true
	}

	t.Run("identity", func(t *testing.T) {
		bootIDs := map[string]bool{}
		for _, h := range g.Hosts() {
			out, err := g.Shell(h, "hostname; cat /proc/sys/kernel/random/boot_id; getent hosts b2; ls /sys/class/net").Output()
			if err != nil {
				t.Fatalf("%s: %v", h, err)
			}
			f := strings.Fields(string(out))
			if len(f) < 4 || f[0] != h {
				t.Fatalf("%s: hostname etc. %q", h, out)
			}
			bootIDs[f[1]] = true
			if f[2] != g.Addr("b2").String() || f[3] != "b2" {
				t.Errorf("%s: b2 resolves as %q, want %s", h, f[2:4], g.Addr("b2"))
			}
			if !slices.Equal(f[4:], []string{"eth0", "lo"}) {
				t.Errorf("%s: /sys/class/net has %q, want eth0 and lo", h, f[4:])
			}
		}
		dir := t.TempDir()
		cmd := g.Command("b1", "/bin/pwd")
		cmd.Dir = dir
		if out, err := cmd.Output(); err != nil || string(out) != dir+"\n" {
			t.Errorf("Command with Dir %s ran in %q (%v)", dir, out, err)
		}
		ssh := dir + "/ssh"
		if err := g.WriteSSH(ssh); err != nil {
			t.Fatal(err)
		}
		out, err := g.Command("a1", ssh, "-x", "-o", "X=y", "root@"+g.Addr("b2").String(), "hostname;", "echo", "$((6*7))").Output()
		if err != nil || string(out) != "b2\n42\n" {
			t.Errorf("ssh wrapper from a1 to b2: %q, %v", out, err)
		}
		if err := exec.Command(ssh, "nosuch", "true").Run(); err == nil {
			t.Errorf("ssh wrapper to a host not in the grid succeeded")
		}
		if len(bootIDs) != 4 {
			t.Errorf("boot ids not distinct: %v", bootIDs)
		}
		if a := g.Addr("nosuch"); a.IsValid() {
			t.Errorf("Addr(nosuch) = %v", a)
		}
		if err := g.Command("nosuch", "true").Run(); err == nil {
			t.Errorf("Command on a host not in the grid ran")
		}
	})

	t.Run("delay", func(t *testing.T) {
		const n, warm = 25, 5
		cross, lost := pingRTTs(t, g, "a1", "b2", n, time.Second)
		if lost > 0 || len(cross) != n {
			t.Fatalf("a1->b2: %d of %d echoes lost", lost, n)
		}
		local, lost := pingRTTs(t, g, "a1", "a2", n, time.Second)
		if lost > 0 || len(local) != n {
			t.Fatalf("a1->a2: %d of %d echoes lost", lost, n)
		}
		oneWay := median(cross[warm:]) / 2
		t.Logf("a1->b2 RTT median %v (one way %v; configured 10ms), min %v, max %v; a1->a2 RTT median %v",
			2*oneWay, oneWay, slices.Min(cross[warm:]), slices.Max(cross[warm:]), median(local[warm:]))
		if oneWay < 9*time.Millisecond || oneWay > 11*time.Millisecond {
			t.Errorf("one-way delay A->B %v, want 10ms ± 10%%", oneWay)
		}
		if m := median(local[warm:]); m > 5*time.Millisecond {
			t.Errorf("RTT inside site A %v: nothing is added there", m)
		}
	})

	t.Run("rate", func(t *testing.T) {
		// One transfer; the rate over each window of 150 KB after the first
		// 100 KB (TCP's start).
		const size, window, skip = 850 << 10, 150 << 10, 100 << 10
		exe, _ := os.Executable()
		sink := g.Command("b1", exe, testToolArg, "sink", "5001", strconv.Itoa(window), strconv.Itoa(skip))
		sink.Stderr = os.Stderr
		out, _ := sink.StdoutPipe()
		if err := sink.Start(); err != nil {
			t.Fatal(err)
		}
		defer sink.Process.Kill()
		r := bufio.NewReader(out)
		if line, err := r.ReadString('\n'); err != nil || line != "listening\n" {
			t.Fatalf("sink: %q %v", line, err)
		}
		tool(t, g, "a2", "source", g.Addr("b1").String()+":5001", strconv.Itoa(size))
		var rates []float64
		for {
			var bytes, ns int64
			if _, err := fmt.Fscan(r, &bytes, &ns); err != nil {
				break
			}
			rates = append(rates, float64(bytes)/(float64(ns)/1e9))
		}
		sink.Wait()
		if len(rates) < 3 {
			t.Fatalf("sink measured %d windows", len(rates))
		}
		// The rate counts IP bytes: 1500 per segment of 1448 payload bytes
		// (MTU 1500, TCP timestamps).
		goodput := median(rates)
		wire := goodput * 1500 / 1448
		t.Logf("A->B TCP goodput median %.0f B/s (windows %.0f), wire rate %.0f B/s (configured 1e6)", goodput, rates, wire)
		if wire < 0.9e6 || wire > 1.1e6 {
			t.Errorf("rate A->B %.0f B/s, want 1e6 ± 10%%", wire)
		}
	})

	t.Run("site down", func(t *testing.T) {
		if err := g.SetSiteDown("B", true); err != nil {
			t.Fatal(err)
		}
		if _, lost := pingRTTs(t, g, "a1", "b1", 2, 300*time.Millisecond); lost != 2 {
			t.Errorf("site B down: %d of 2 echoes lost", lost)
		}
		if _, lost := pingRTTs(t, g, "b2", "a2", 2, 300*time.Millisecond); lost != 2 {
			t.Errorf("site B down: %d of 2 echoes from B lost", lost)
		}
		if _, lost := pingRTTs(t, g, "b1", "b2", 2, 300*time.Millisecond); lost != 0 {
			t.Errorf("site B down: %d of 2 echoes inside B lost", lost)
		}
		if err := g.SetSiteDown("B", false); err != nil {
			t.Fatal(err)
		}
		if _, lost := pingRTTs(t, g, "a1", "b1", 3, 300*time.Millisecond); lost != 0 {
			t.Errorf("site B back: %d of 3 echoes lost", lost)
		}
		if err := g.SetSiteDown("C", true); err == nil {
			t.Errorf("SetSiteDown of an unknown site: no error")
		}
	})

	// A process left running in a host must not outlive the grid.
	stray := g.Command("a1", "sleep", "60")
	if err := stray.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 500; i++ { // until nsenter has entered a1
		var st unix.Stat_t
		if unix.Stat(fmt.Sprintf("/proc/%d/ns/net", stray.Process.Pid), &st) == nil && st.Ino == g.hosts["a1"].proc.nsIno {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	stray.Wait()
	if err := g.SetSiteDown("A", true); err == nil {
		t.Errorf("SetSiteDown after Close: no error")
	}
	checkGone(t, g.prefix, helpers, inos)
}

// checkGone fails if a namespace name, helper process or process inside
// the grid's namespaces remains.
func checkGone(t *testing.T, prefix string, helpers []int, inos map[uint64]bool) {
	t.Helper()
	ents, _ := os.ReadDir("/run/netns")
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), prefix) {
			t.Errorf("namespace name %s remains", e.Name())
		}
	}
	for _, pid := range helpers {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			t.Errorf("helper process %d remains", pid)
		}
	}
	procs, _ := os.ReadDir("/proc")
	for _, e := range procs {
		var st unix.Stat_t
		if unix.Stat("/proc/"+e.Name()+"/ns/net", &st) == nil && inos[st.Ino] {
			t.Errorf("process %s remains in an emulated namespace", e.Name())
		}
	}
	mi, _ := os.ReadFile("/proc/self/mountinfo")
	if bytes.Contains(mi, []byte(prefix)) {
		t.Errorf("a mount of %s remains", prefix)
	}
	// The grid creates no link in this namespace.
	out, _ := exec.Command("ip", "-o", "link").Output()
	if regexp.MustCompile(`(?m)^\d+: (gtun0|v\d+\.\d+)[@:]`).Match(out) {
		t.Errorf("a link of the grid remains in the root namespace:\n%s", out)
	}
}

// TestStartFailure: a helper that cannot start leaves nothing behind.
// TestBorders: a firewalled site admits connections only on its ports
// and drops the rest silently; a site with an egress rule opens
// connections to other sites only from its source ports; a private
// site's hosts other than its gateway are unreachable from other sites
// and reach none; inside a site everything is open.
func TestBorders(t *testing.T) {
	needRoot(t)
	g, err := Start(Topology{Sites: []Site{
		{Name: "A", Hosts: []string{"a1"}},
		{Name: "F", Hosts: []string{"f1"}, Firewall: []PortRange{{40000, 40015}}},
		{Name: "P", Hosts: []string{"p1", "p2"}, Private: true, Gateway: "p1"},
		{Name: "E", Hosts: []string{"e1", "e2"}, Egress: []PortRange{{61000, 61009}}},
	}, Links: []Link{{A: "A", B: "F", Delay: time.Millisecond}, {A: "A", B: "P", Delay: time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	exe, _ := os.Executable()
	for _, h := range g.Hosts() {
		cmd := g.Command(h, exe, testToolArg, "listen", "40005", "41000")
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil || line != "listening\n" {
			t.Fatalf("listener in %s: %q %v", h, line, err)
		}
	}
	for _, c := range []struct {
		from, to, port, want string
	}{
		{"a1", "f1", "40005", "ok"},
		{"a1", "f1", "41000", "timeout"}, // dropped silently, not refused
		{"a1", "f1", "40006", "refused"}, // admitted, nobody listens
		{"f1", "a1", "41000", "ok"},      // out of the firewalled site
		{"a1", "p1", "41000", "ok"},      // the gateway
		{"a1", "p2", "41000", "timeout"}, // a private host
		{"p2", "a1", "41000", "timeout"}, // a private host reaching out
		{"p1", "a1", "41000", "ok"},
		{"p2", "p1", "41000", "ok"}, // inside the site
		{"p1", "p2", "41000", "ok"},
		{"p2", "f1", "40005", "timeout"},
	} {
		got := tool(t, g, c.from, "connect", g.Addr(c.to).String()+":"+c.port, "1500ms")
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s -> %s:%s: %v, want %s", c.from, c.to, c.port, got, c.want)
		}
	}
	// Egress: from a source port of the rule, or inside the site, or
	// answering a connection from outside.
	for _, c := range []struct {
		from, to, port, src, want string
	}{
		{"e1", "a1", "41000", "61003", "ok"},
		{"e1", "a1", "41000", "43000", "timeout"}, // dropped silently
		{"e1", "a1", "41000", "", "timeout"},      // the kernel picks below 61000
		{"e1", "e2", "41000", "43001", "ok"},      // inside the site
		{"a1", "e1", "41000", "", "ok"},           // inbound is open
	} {
		args := []string{"connect", g.Addr(c.to).String() + ":" + c.port, "1500ms"}
		if c.src != "" {
			args = append(args, c.src)
		}
		got := tool(t, g, c.from, args...)
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s:%s -> %s:%s: %v, want %s", c.from, c.src, c.to, c.port, got, c.want)
		}
	}
}

func TestStartFailure(t *testing.T) {
	needRoot(t)
	top := topo2x2
	top.Helper = "/bin/false"
	before, _ := os.ReadDir("/run/netns")
	g, err := Start(top)
	if err == nil {
		g.Close()
		t.Fatal("Start with a broken helper succeeded")
	}
	after, _ := os.ReadDir("/run/netns")
	for _, e := range after {
		if strings.HasPrefix(e.Name(), fmt.Sprintf("gmpi-%d-", os.Getpid())) {
			if !slices.ContainsFunc(before, func(b os.DirEntry) bool { return b.Name() == e.Name() }) {
				t.Errorf("namespace %s left after a failed Start", e.Name())
			}
		}
	}
}

func TestValidate(t *testing.T) {
	hosts := func(h ...string) []string { return h }
	for _, c := range []struct {
		top  Topology
		want string
	}{
		{Topology{}, "no site"},
		{Topology{Sites: []Site{{Name: "A", Hosts: nil}}}, "no host"},
		{Topology{Sites: []Site{{Name: "A", Hosts: hosts("x"), Private: true, Gateway: "y"}}}, "not one of its hosts"},
		{Topology{Sites: []Site{{Name: "A", Hosts: hosts("x"), Firewall: []PortRange{{10, 5}}}}}, "bad firewall port range"},
		{Topology{Sites: []Site{{Name: "", Hosts: hosts("x")}}}, "no name"},
		{Topology{Sites: []Site{{Name: "A", Hosts: hosts("x")}, {Name: "A", Hosts: hosts("y")}}}, "listed twice"},
		{Topology{Sites: []Site{{Name: "A", Hosts: hosts("x")}, {Name: "B", Hosts: hosts("x")}}}, `host "x" is in site "A" and in site "B"`},
		{Topology{Sites: []Site{{Name: "A", Hosts: hosts("a b")}}}, "not a valid hostname"},
		{Topology{Sites: []Site{{Name: "A", Hosts: hosts("x")}}, Links: []Link{{A: "A", B: "C"}}}, `no site "C"`},
		{Topology{Sites: []Site{{Name: "A", Hosts: hosts("x")}}, Links: []Link{{A: "A", B: "A"}}}, "two different sites"},
		{Topology{Sites: []Site{{Name: "A", Hosts: hosts("x")}, {Name: "B", Hosts: hosts("y")}}, Links: []Link{{A: "A", B: "B", Delay: -1}}}, "negative delay"},
		{Topology{Sites: []Site{{Name: "A", Hosts: hosts("x")}, {Name: "B", Hosts: hosts("y")}}, Links: []Link{{A: "A", B: "B", Rate: -1}}}, "bad rate"},
		{Topology{Sites: []Site{{Name: "A", Hosts: hosts("x")}, {Name: "B", Hosts: hosts("y")}}, Links: []Link{{A: "A", B: "B"}, {A: "B", B: "A"}}}, "given twice"},
		{Topology{Sites: []Site{{Name: "A", Hosts: hosts("x")}}, Hidden: map[string][]string{"z": {"/tmp"}}}, `"z", which is not a host`},
		{Topology{Sites: []Site{{Name: "A", Hosts: hosts("x")}}, Hidden: map[string][]string{"x": {"tmp"}}}, `cannot hide "tmp"`},
		{Topology{Sites: []Site{{Name: "A", Hosts: hosts("x")}}, Hidden: map[string][]string{"x": {"/nonexistent-gmpi-dir"}}}, "not a directory here: create it first"},
	} {
		_, err := validate(c.top)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("validate(%+v) = %v, want an error with %q", c.top, err, c.want)
		}
	}
	links, err := validate(topo2x2)
	if err != nil || links[0*2+1].Delay != 10*time.Millisecond || links[1*2+0].Rate != 1e6 || links[0].Rate != 0 {
		t.Errorf("validate(2x2) = %v, %v", links, err)
	}
}

// TestSerializer checks the FIFO serializer's arithmetic and queue bound.
func TestSerializer(t *testing.T) {
	l := newLink(int64(10*time.Millisecond), 1e6) // 1 byte per µs
	if l.limit != minQueue {
		t.Fatalf("queue bound %v, want %v (2 × BDP is smaller)", l.limit, minQueue)
	}
	due, ok := l.admit(0, 1000)
	if !ok || due != int64(time.Millisecond+10*time.Millisecond) {
		t.Fatalf("first packet due %d", due)
	}
	// A second packet at the same time waits for the first.
	if due, _ = l.admit(0, 500); due != int64(1500*time.Microsecond+10*time.Millisecond) {
		t.Fatalf("second packet due %d", due)
	}
	// After the serializer went idle, a packet starts at once.
	if due, _ = l.admit(int64(time.Second), 100); due != int64(time.Second+100*time.Microsecond+10*time.Millisecond) {
		t.Fatalf("packet after idle due %d", due)
	}
	// Fill the queue: ~minQueue bytes fit, then drops.
	now := int64(2 * time.Second)
	accepted := 0
	for i := 0; i < 200; i++ {
		if _, ok := l.admit(now, 1500); ok {
			accepted++
		}
	}
	if want := minQueue / 1500; accepted != want {
		t.Errorf("%d packets of 1500 accepted at once, want %d", accepted, want)
	}
	if l.drops != uint64(200-accepted) {
		t.Errorf("drops %d", l.drops)
	}
	big := newLink(int64(100*time.Millisecond), 1e8)
	if big.limit != 2e7 {
		t.Errorf("queue bound at 100 MB/s, 100 ms: %v, want 2 × BDP = 2e7", big.limit)
	}
}

func TestWireSize(t *testing.T) {
	mk := func(gsoType byte, gsoSize uint16, ipLen int, proto byte, l4hdr int) []byte {
		p := make([]byte, vnetHdrLen+ipLen)
		p[1] = gsoType
		binary.LittleEndian.PutUint16(p[4:], gsoSize)
		ip := p[vnetHdrLen:]
		ip[0] = 0x45
		ip[9] = proto
		if proto == unix.IPPROTO_TCP {
			ip[20+12] = byte(l4hdr/4) << 4
		}
		return p
	}
	for _, c := range []struct {
		pkt  []byte
		want int
	}{
		{mk(gsoNone, 0, 1500, unix.IPPROTO_TCP, 32), 1500},
		{mk(gsoNone, 0, 84, unix.IPPROTO_ICMP, 0), 84},
		// 10 segments of 1448 with 52 bytes of headers each: 10 × 1500.
		{mk(1, 1448, 52+10*1448, unix.IPPROTO_TCP, 32), 15000},
		// ECN flag, a short last segment: 3 segments, 2 × 1448 + 100.
		{mk(1|gsoECN, 1448, 52+2*1448+100, unix.IPPROTO_TCP, 32), 3*52 + 2*1448 + 100},
		// UDP GSO: 8-byte UDP header.
		{mk(5, 1000, 28+3*1000, unix.IPPROTO_UDP, 0), 3 * 1028},
	} {
		if got := wireSize(c.pkt); got != c.want {
			t.Errorf("wireSize(gso %d, %d bytes) = %d, want %d", c.pkt[1], len(c.pkt)-vnetHdrLen, got, c.want)
		}
	}
}

func TestParseTopology(t *testing.T) {
	top, err := ParseTopology([]string{"A=a1,a2", "B=b1"}, []string{"A-B,10ms,1e6"})
	if err != nil || len(top.Sites) != 2 || top.Sites[0].Hosts[1] != "a2" || top.Links[0] != (Link{A: "A", B: "B", Delay: 10 * time.Millisecond, Rate: 1e6}) {
		t.Errorf("ParseTopology = %+v, %v", top, err)
	}
	for _, bad := range [][2][]string{
		{{"A"}, nil}, {{"A="}, nil}, {{"A=a"}, {"A,10ms,1"}}, {{"A=a"}, {"A-B,10xs,1"}}, {{"A=a"}, {"A-B,10ms,fast"}},
	} {
		if _, err := ParseTopology(bad[0], bad[1]); err == nil {
			t.Errorf("ParseTopology(%q, %q): no error", bad[0], bad[1])
		}
	}
}

// TestSiteDownEnv: GMPI_EMU_SITE_DOWN cuts a site off after a delay.
func TestSiteDownEnv(t *testing.T) {
	needRoot(t)
	for _, bad := range []string{"B", "B@x", "C@1s", "B@-1s"} {
		t.Setenv("GMPI_EMU_SITE_DOWN", bad)
		if g, err := Start(topo2x2); err == nil {
			g.Close()
			t.Errorf("GMPI_EMU_SITE_DOWN=%s: Start succeeded", bad)
		}
	}
	t.Setenv("GMPI_EMU_SITE_DOWN", "B@1500ms")
	g, err := Start(topo2x2)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	start := time.Now()
	if _, lost := pingRTTs(t, g, "a1", "b1", 1, time.Second); lost != 0 {
		t.Errorf("before the delay: echo lost")
	}
	time.Sleep(time.Until(start.Add(1600 * time.Millisecond)))
	if _, lost := pingRTTs(t, g, "a1", "b1", 1, 300*time.Millisecond); lost != 1 {
		t.Errorf("after the delay: echo not lost")
	}
	if _, lost := pingRTTs(t, g, "b1", "b2", 1, 300*time.Millisecond); lost != 0 {
		t.Errorf("after the delay: echo inside site B lost")
	}
}

// TestShareAttach: a grid described with Share is usable through Attach
// (commands run in the same hosts), an attached grid's Close leaves it
// up, and once its starter closes it Attach refuses.
func TestShareAttach(t *testing.T) {
	needRoot(t)
	g, err := Start(Topology{Sites: []Site{{Name: "A", Hosts: []string{"a1"}}, {Name: "B", Hosts: []string{"b1"}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	path := t.TempDir() + "/grid"
	if err := g.Share(path); err != nil {
		t.Fatal(err)
	}
	a, err := Attach(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Hosts(); !slices.Equal(got, []string{"a1", "b1"}) || a.Site("b1") != "B" || a.Addr("b1") != g.Addr("b1") {
		t.Fatalf("attached grid: hosts %v, site of b1 %q, addr %v", got, a.Site("b1"), a.Addr("b1"))
	}
	out, err := a.Command("b1", "hostname").Output()
	if err != nil || strings.TrimSpace(string(out)) != "b1" {
		t.Fatalf("hostname in attached b1: %q %v", out, err)
	}
	if err := a.SetSiteDown("A", true); err == nil {
		t.Error("SetSiteDown on an attached grid succeeded")
	}
	a.Close()
	if out, err := g.Command("a1", "hostname").Output(); err != nil || strings.TrimSpace(string(out)) != "a1" {
		t.Fatalf("the grid is gone after the attached Close: %q %v", out, err)
	}
	if err := os.WriteFile(path+".bad", []byte("something else\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Attach(path + ".bad"); err == nil {
		t.Error("Attach of a foreign file succeeded")
	}
	g.Close()
	if _, err := Attach(path); err == nil || !strings.Contains(err.Error(), "gone") {
		t.Errorf("Attach after Close: %v", err)
	}
}
