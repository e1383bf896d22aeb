// Package emu emulates a grid on one machine (needs root): one network
// namespace per host (own hostname, own address, own /etc/hosts), the
// hosts of a site on one bridge, and traffic between sites routed through
// a user-space router that adds each site pair's one-way latency and
// bandwidth (this kernel has no netem). See ../../../shared/GRID-EMULATION.md
// for the facts measured on these machines.
//
// The API below is the contract mpirun (--grid FILE --emulate) uses.
//
// # Layout
//
// Each emulated host is a holder process (this program re-executed as
// "PROG __emu-helper host ...") started in its own network, UTS and mount
// namespaces. It sets its hostname, makes its mounts private, bind-mounts
// a generated /etc/hosts naming every emulated host and its own
// /proc/sys/kernel/random/boot_id, mounts an empty read-only tmpfs over
// each directory the host must not see (Topology.Hidden), mounts the sysfs of its network
// namespace on /sys, bind-mounts an /etc/resolv.conf that fails at once
// (no DNS server is reachable from inside), raises the TCP buffer maxima to 32 MiB, and then
// waits for its stdin to close. Its eth0 is a veth whose peer is a port of
// its site's bridge. Site s (0-based) is the subnet 10.77.(s+1).0/24 with
// the gateway .1 on the bridge; the hosts of a site get .10, .11, ... in
// the order the Topology lists them.
//
// The router is a second kind of helper process ("PROG __emu-helper
// router ...") in its own network namespace, which holds the site bridges
// and a TUN device. Policy routing sends every packet forwarded between
// sites into the TUN device; the router delays it and writes it back, and
// the main table delivers it to the destination bridge. Traffic inside a
// site is switched by its bridge and never reaches the router. The router
// runs SCHED_FIFO, pinned to one CPU, in its own process so that its
// priority never leaks into the program that called Start.
//
// Both helpers exit when the program that started them dies (parent-death
// signal, and the end of their stdin pipe). The namespaces are also named
// for ip(8): "gmpi-<pid>-<tag>-<host>" and "gmpi-<pid>-<tag>.router", so
// "ip netns exec" and "ip -n" work on a running grid; Start removes names
// left over by runs whose process is gone.
//
// The program that calls Start must call HelperMain when its first
// argument is HelperArg (see there); mpirun does, and so does this
// package's test binary. "mpirun __emu-helper shell" is a standalone way
// to try a grid (see shellMain), WriteSSH an ssh look-alike for vendor
// launchers.
//
// Environment: GMPI_EMU_SITE_DOWN=SITE@DELAY[,...] cuts a site off that
// long after Start (failure tests under "mpirun --emulate");
// GMPI_EMU_DEBUG=1 makes the router print its drops and how late delayed
// packets left when the grid closes.
//
// The helpers are children of the caller: one that reaps with wait4(-1)
// may collect them (Close copes). Start and Close run ip(8); SetSiteDown
// and Command run nothing but the command itself.
package emu

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"gmpi/runtime/param"
)

// Site is one site of the emulated grid and the hosts on its bridge.
type Site struct {
	Name  string
	Hosts []string
	// Firewall, when not empty, is the site's border firewall: from other
	// sites it admits new TCP connections (and UDP) only to these ports,
	// and echo requests not at all; everything else is dropped silently.
	// Connections the site's hosts open go out and are answered as usual.
	Firewall []PortRange
	// Egress, when not empty, is the site's egress rule: new TCP
	// connections from its hosts to other sites may leave only from these
	// source ports; others are dropped silently.
	Egress []PortRange
	// Private puts the site's hosts on a private network behind Gateway
	// (one of Hosts; empty: the first): from other sites only the gateway
	// is reachable, and the other hosts reach no other site; their packets
	// are dropped silently at the border. Inside the site all is open.
	Private bool
	Gateway string
}

// PortRange is an inclusive range of ports.
type PortRange struct{ Lo, Hi int }

// Link is the one-way latency and bandwidth between two sites, applied in
// each direction independently. Rate is in bytes per second; 0 means
// unlimited.
type Link struct {
	A, B  string
	Delay time.Duration
	Rate  float64
}

// Topology is what to emulate. Site pairs without a Link are connected
// without added delay or rate limit.
type Topology struct {
	Sites []Site
	Links []Link

	// Hidden maps a host to directories it must not see: each gets an
	// empty read-only tmpfs mounted over it in the host's mount namespace
	// (a file system the host's machine has no access to). The
	// directories must exist; the other hosts see them as they are.
	Hidden map[string][]string

	// Helper is the program started for the router and the host holders
	// with HelperArg as its first argument; empty means this program
	// (os.Executable).
	Helper string
}

// The address plan: site s (0-based) is 10.77.<s+1>.0/24, its k-th host
// 10.77.<s+1>.<10+k>.
const (
	plan0, plan1    = 10, 77
	maxSites        = 250
	maxHostsPerSite = 240
	firstHostOctet  = 10
)

// Timeouts of the set-up steps.
const (
	readyTimeout = 20 * time.Second
	ipTimeout    = 20 * time.Second
	exitGrace    = 2 * time.Second
)

// Grid is a running emulation.
type Grid struct {
	prefix string   // "gmpi-<pid>-<tag>"
	border []string // the router's -firewall and -private arguments
	hidden map[string][]string
	helper string
	nsent  string // path of nsenter

	sites  []siteState
	hosts  map[string]*hostState
	order  []*hostState // in Topology order
	router *helperProc
	spawn  *spawner

	attached bool // opened with Attach: the grid is someone else's

	mu     sync.Mutex
	closed bool
	timers []*time.Timer // GMPI_EMU_SITE_DOWN
}

type siteState struct {
	name  string
	hosts []*hostState
}

type hostState struct {
	name string
	site int
	addr netip.Addr
	proc *helperProc
}

// helperProc is a helper process started by Start: it lives until its
// stdin (held here) closes.
type helperProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	netns string // ip-netns name, once attached
	nsIno uint64 // inode of its network namespace
	done  chan struct{}

	readyCh chan error
	replies chan string // lines it printed after "ready"
}

// gateway is site s's address on its bridge.
func gateway(s int) netip.Addr { return netip.AddrFrom4([4]byte{plan0, plan1, byte(s + 1), 1}) }

// hostAddr is the address of the k-th host of site s.
func hostAddr(s, k int) netip.Addr {
	return netip.AddrFrom4([4]byte{plan0, plan1, byte(s + 1), byte(firstHostOctet + k)})
}

var validName = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9.-]{0,62})$`)

// validate checks t and returns the directed link table, indexed
// [from*n+to].
func validate(t Topology) ([]Link, error) {
	n := len(t.Sites)
	if n == 0 {
		return nil, errors.New("emu: the topology has no site")
	}
	if n > maxSites {
		return nil, fmt.Errorf("emu: %d sites, at most %d can be emulated", n, maxSites)
	}
	siteIdx := map[string]int{}
	hostSeen := map[string]string{}
	for i, s := range t.Sites {
		if s.Name == "" {
			return nil, fmt.Errorf("emu: site %d has no name", i)
		}
		if _, dup := siteIdx[s.Name]; dup {
			return nil, fmt.Errorf("emu: site %q is listed twice", s.Name)
		}
		siteIdx[s.Name] = i
		if len(s.Hosts) == 0 {
			return nil, fmt.Errorf("emu: site %q has no host", s.Name)
		}
		if len(s.Hosts) > maxHostsPerSite {
			return nil, fmt.Errorf("emu: site %q has %d hosts, at most %d can be emulated", s.Name, len(s.Hosts), maxHostsPerSite)
		}
		for _, h := range s.Hosts {
			if !validName.MatchString(h) {
				return nil, fmt.Errorf("emu: host name %q (site %q) is not a valid hostname (letters, digits, '.', '-'; at most 63 characters)", h, s.Name)
			}
			if prev, dup := hostSeen[h]; dup {
				return nil, fmt.Errorf("emu: host %q is in site %q and in site %q", h, prev, s.Name)
			}
			hostSeen[h] = s.Name
		}
		if s.Private && s.Gateway != "" && !slices.Contains(s.Hosts, s.Gateway) {
			return nil, fmt.Errorf("emu: site %q: gateway %q is not one of its hosts", s.Name, s.Gateway)
		}
		for _, r := range append(slices.Clip(s.Firewall), s.Egress...) {
			if r.Lo < 1 || r.Hi > 65535 || r.Lo > r.Hi {
				return nil, fmt.Errorf("emu: site %q: bad firewall port range %d:%d", s.Name, r.Lo, r.Hi)
			}
		}
	}
	for h, dirs := range t.Hidden {
		if _, ok := hostSeen[h]; !ok {
			return nil, fmt.Errorf("emu: hidden directories for %q, which is not a host of the topology", h)
		}
		for _, d := range dirs {
			if !filepath.IsAbs(d) || filepath.Clean(d) == "/" {
				return nil, fmt.Errorf("emu: host %s: cannot hide %q (want an absolute path below /)", h, d)
			}
			if st, err := os.Stat(d); err != nil || !st.IsDir() {
				return nil, fmt.Errorf("emu: host %s must not see %s, which is not a directory here: create it first (it is hidden by mounting an empty file system over it)", h, d)
			}
		}
	}
	links := make([]Link, n*n)
	set := make([]bool, n*n)
	for _, l := range t.Links {
		a, okA := siteIdx[l.A]
		b, okB := siteIdx[l.B]
		switch {
		case !okA:
			return nil, fmt.Errorf("emu: link %s-%s: no site %q", l.A, l.B, l.A)
		case !okB:
			return nil, fmt.Errorf("emu: link %s-%s: no site %q", l.A, l.B, l.B)
		case a == b:
			return nil, fmt.Errorf("emu: link %s-%s: a link joins two different sites (nothing is added inside a site)", l.A, l.B)
		case l.Delay < 0:
			return nil, fmt.Errorf("emu: link %s-%s: negative delay %v", l.A, l.B, l.Delay)
		case l.Rate < 0 || l.Rate != l.Rate:
			return nil, fmt.Errorf("emu: link %s-%s: bad rate %v bytes/s", l.A, l.B, l.Rate)
		case set[a*n+b]:
			return nil, fmt.Errorf("emu: link %s-%s is given twice", l.A, l.B)
		}
		set[a*n+b], set[b*n+a] = true, true
		links[a*n+b], links[b*n+a] = l, l
	}
	return links, nil
}

// Start builds the namespaces, bridges and the router. On error nothing
// is left behind.
func Start(t Topology) (*Grid, error) {
	links, err := validate(t)
	if err != nil {
		return nil, err
	}
	if os.Geteuid() != 0 {
		return nil, errors.New("emu: grid emulation needs root (network namespaces, bridges, a TUN device)")
	}
	nsent, err := exec.LookPath("nsenter")
	if err != nil {
		return nil, fmt.Errorf("emu: nsenter (util-linux) is needed to run commands in emulated hosts: %w", err)
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return nil, fmt.Errorf("emu: ip (iproute2) is needed to build the emulated network: %w", err)
	}
	helper := t.Helper
	if helper == "" {
		if helper, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("emu: cannot find this program to start the emulator's helpers: %w", err)
		}
	}
	sweepStale()

	var tag [2]byte
	rand.Read(tag[:])
	g := &Grid{
		prefix: fmt.Sprintf("gmpi-%d-%s", os.Getpid(), hex.EncodeToString(tag[:])),
		helper: helper,
		nsent:  nsent,
		hosts:  map[string]*hostState{},
		spawn:  newSpawner(),
	}
	g.border = borderArgs(t)
	g.hidden = t.Hidden
	for si, s := range t.Sites {
		st := siteState{name: s.Name}
		for k, h := range s.Hosts {
			hs := &hostState{name: h, site: si, addr: hostAddr(si, k)}
			st.hosts = append(st.hosts, hs)
			g.hosts[h] = hs
			g.order = append(g.order, hs)
		}
		g.sites = append(g.sites, st)
	}
	down, err := param.EmuSiteDown.Env()
	if err != nil {
		return nil, err
	}
	failures, err := g.parseFailures(down)
	if err != nil {
		return nil, err
	}
	if err := g.build(links); err != nil {
		g.Close()
		return nil, err
	}
	for _, f := range failures {
		site := f.site
		g.timers = append(g.timers, time.AfterFunc(f.after, func() {
			if err := g.SetSiteDown(site, true); err != nil {
				fmt.Fprintf(os.Stderr, "emu: GMPI_EMU_SITE_DOWN: %v\n", err)
				return
			}
			fmt.Fprintf(os.Stderr, "emu: site %s cut off from the other sites (GMPI_EMU_SITE_DOWN)\n", site)
		}))
	}
	return g, nil
}

type failure struct {
	site  string
	after time.Duration
}

// parseFailures reads GMPI_EMU_SITE_DOWN, "SITE@DELAY[,SITE@DELAY...]"
// (DELAY a Go duration such as 2s): DELAY after Start, every wide-area
// path of SITE is cut as SetSiteDown does, for failure tests of programs
// that run under "mpirun --emulate".
func (g *Grid) parseFailures(spec string) ([]failure, error) {
	if spec == "" {
		return nil, nil
	}
	var fs []failure
	for _, item := range strings.Split(spec, ",") {
		site, after, ok := strings.Cut(item, "@")
		d, err := time.ParseDuration(after)
		if !ok || err != nil || d < 0 {
			return nil, fmt.Errorf("emu: GMPI_EMU_SITE_DOWN: %q is not SITE@DELAY (e.g. site1@2s)", item)
		}
		if !slices.ContainsFunc(g.sites, func(s siteState) bool { return s.name == site }) {
			return nil, fmt.Errorf("emu: GMPI_EMU_SITE_DOWN: no site %q", site)
		}
		fs = append(fs, failure{site, d})
	}
	return fs, nil
}

func (g *Grid) build(links []Link) error {
	dir, err := os.MkdirTemp("", g.prefix+"-")
	if err != nil {
		return fmt.Errorf("emu: %w", err)
	}
	// The holders bind-mount the files; the mounts keep them alive.
	defer os.RemoveAll(dir)

	var hosts strings.Builder
	hosts.WriteString("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n")
	for _, h := range g.order {
		fmt.Fprintf(&hosts, "%s\t%s\n", h.addr, h.name)
	}
	hostsFile := filepath.Join(dir, "hosts")
	if err := os.WriteFile(hostsFile, []byte(hosts.String()), 0o644); err != nil {
		return fmt.Errorf("emu: %w", err)
	}
	// No DNS server is reachable from the emulation: a lookup that /etc/hosts
	// cannot answer (say, an IPv6 address of a host) must fail at once, not
	// after the resolver's timeouts.
	resolvFile := filepath.Join(dir, "resolv.conf")
	if err := os.WriteFile(resolvFile, []byte("nameserver 127.0.0.1\noptions timeout:1 attempts:1\n"), 0o644); err != nil {
		return fmt.Errorf("emu: %w", err)
	}

	// The router: its own network namespace holds the bridges and the TUN.
	n := len(g.sites)
	rargs := append([]string{"router", "-sites", strconv.Itoa(n)}, g.border...)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if l := links[i*n+j]; i != j && (l.Delay > 0 || l.Rate > 0) {
				rargs = append(rargs, "-link", fmt.Sprintf("%d,%d,%d,%g", i, j, l.Delay.Nanoseconds(), l.Rate))
			}
		}
	}
	if g.router, err = g.startHelper(unix.CLONE_NEWNET, rargs); err != nil {
		return fmt.Errorf("emu: starting the router: %w", err)
	}
	for _, h := range g.order {
		boot := filepath.Join(dir, "boot_id-"+h.name)
		if err := os.WriteFile(boot, []byte(newUUID()+"\n"), 0o444); err != nil {
			return fmt.Errorf("emu: %w", err)
		}
		hargs := []string{"host", "-name", h.name, "-hosts", hostsFile, "-resolv", resolvFile, "-boot-id", boot}
		for _, d := range g.hidden[h.name] {
			hargs = append(hargs, "-hide", d)
		}
		if h.proc, err = g.startHelper(unix.CLONE_NEWNET|unix.CLONE_NEWUTS|unix.CLONE_NEWNS, hargs); err != nil {
			return fmt.Errorf("emu: starting host %s: %w", h.name, err)
		}
	}
	if err := g.router.waitReady(); err != nil {
		return fmt.Errorf("emu: router: %w", err)
	}
	for _, h := range g.order {
		if err := h.proc.waitReady(); err != nil {
			return fmt.Errorf("emu: host %s: %w", h.name, err)
		}
	}

	// Names for ip(8).
	rns := g.prefix + ".router"
	if err := g.attach(g.router, rns); err != nil {
		return err
	}
	for _, h := range g.order {
		if err := g.attach(h.proc, g.prefix+"-"+h.name); err != nil {
			return err
		}
	}

	// The router's namespace: bridges with the gateways, a veth per host
	// (its peer becomes the host's eth0), policy routing into the TUN.
	var b strings.Builder
	fmt.Fprintf(&b, "link set lo up\nlink set %s up\n", tunName)
	fmt.Fprintf(&b, "route add default dev %s table %d\n", tunName, tunTable)
	for si, s := range g.sites {
		br := fmt.Sprintf("br%d", si)
		fmt.Fprintf(&b, "link add %s type bridge forward_delay 0\n", br)
		fmt.Fprintf(&b, "addr add %s/24 dev %s\n", gateway(si), br)
		fmt.Fprintf(&b, "link set %s up\n", br)
		fmt.Fprintf(&b, "rule add pref %d iif %s lookup %d\n", rulePrefRoute, br, tunTable)
		for k, h := range s.hosts {
			v := fmt.Sprintf("v%d.%d", si, k)
			fmt.Fprintf(&b, "link add %s type veth peer name eth0 netns %d\n", v, h.proc.cmd.Process.Pid)
			fmt.Fprintf(&b, "link set %s master %s up\n", v, br)
		}
	}
	if err := ipBatch(rns, b.String()); err != nil {
		return err
	}
	for _, h := range g.order {
		script := fmt.Sprintf("link set lo up\naddr add %s/24 dev eth0\nlink set eth0 up\nroute add default via %s\n",
			h.addr, gateway(h.site))
		if err := ipBatch(h.proc.netns, script); err != nil {
			return fmt.Errorf("emu: host %s: %w", h.name, err)
		}
	}
	return nil
}

// borderArgs are the router's arguments for the sites' firewalls and
// private networks: "-firewall SITE,LO,HI" per admitted range,
// "-egress SITE,LO,HI" per admitted source range and
// "-private SITE,OCTET" (the gateway's last address octet).
func borderArgs(t Topology) []string {
	var args []string
	for si, s := range t.Sites {
		for _, r := range s.Firewall {
			args = append(args, "-firewall", fmt.Sprintf("%d,%d,%d", si, r.Lo, r.Hi))
		}
		for _, r := range s.Egress {
			args = append(args, "-egress", fmt.Sprintf("%d,%d,%d", si, r.Lo, r.Hi))
		}
		if s.Private {
			k := max(slices.Index(s.Hosts, s.Gateway), 0)
			args = append(args, "-private", fmt.Sprintf("%d,%d", si, firstHostOctet+k))
		}
	}
	return args
}

// Names and numbers inside the router's namespace.
const (
	tunName       = "gtun0"
	tunTable      = 100
	rulePrefRoute = 100
)

// startHelper starts the helper program in new namespaces (cloneflags)
// with args; it is ready when it has printed "ready".
func (g *Grid) startHelper(cloneflags uintptr, args []string) (*helperProc, error) {
	cmd := exec.Command(g.helper, append([]string{HelperArg}, args...)...)
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: cloneflags,
		Pdeathsig:  syscall.SIGKILL,
		Setpgid:    true, // a Ctrl-C for the job is the job's business, not the emulator's
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := g.spawn.start(cmd); err != nil {
		return nil, err
	}
	ready := make(chan error, 1)
	p := &helperProc{cmd: cmd, stdin: stdin, done: make(chan struct{}), readyCh: ready, replies: make(chan string, 16)}
	go func() {
		r := bufio.NewReader(stdout)
		line, err := r.ReadString('\n')
		if err == nil && line != "ready\n" {
			err = fmt.Errorf("unexpected %q", line)
		}
		ready <- err
		for err == nil {
			if line, err = r.ReadString('\n'); err == nil {
				p.replies <- strings.TrimSuffix(line, "\n")
			}
		}
		close(p.replies)
		cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

func (p *helperProc) waitReady() error {
	select {
	case err := <-p.readyCh:
		if err != nil {
			return fmt.Errorf("did not start (%v)", err)
		}
	case <-time.After(readyTimeout):
		return fmt.Errorf("not ready after %v", readyTimeout)
	}
	var st unix.Stat_t
	if err := unix.Stat(fmt.Sprintf("/proc/%d/ns/net", p.cmd.Process.Pid), &st); err != nil {
		return err
	}
	p.nsIno = st.Ino
	return nil
}

func (g *Grid) attach(p *helperProc, name string) error {
	if err := runIP("netns", "attach", name, strconv.Itoa(p.cmd.Process.Pid)); err != nil {
		return err
	}
	p.netns = name
	return nil
}

// runIP runs ip(8) with args.
func runIP(args ...string) error {
	return ipWithInput("", args...)
}

// ipBatch runs the commands of script (one per line) in namespace ns.
func ipBatch(ns, script string) error {
	return ipWithInput(script, "-n", ns, "-batch", "-")
}

func ipWithInput(input string, args ...string) error {
	cmd := exec.Command("ip", args...)
	cmd.Stdin = strings.NewReader(input)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("emu: ip: %w", err)
	}
	t := time.AfterFunc(ipTimeout, func() { cmd.Process.Kill() })
	err := cmd.Wait()
	t.Stop()
	if err != nil {
		what := strings.Join(args, " ")
		if input != "" {
			what += " <<" + strings.ReplaceAll(strings.TrimSpace(input), "\n", "; ")
		}
		return fmt.Errorf("emu: ip %s: %v: %s", what, err, strings.TrimSpace(out.String()))
	}
	return nil
}

func newUUID() string {
	var u [16]byte
	rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	h := hex.EncodeToString(u[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// Addr is host's address inside the emulation (the zero Addr for a host
// that is not in the grid).
func (g *Grid) Addr(host string) netip.Addr {
	if h := g.hosts[host]; h != nil {
		return h.addr
	}
	return netip.Addr{}
}

// Hosts lists the emulated hosts in the order of the Topology.
func (g *Grid) Hosts() []string {
	names := make([]string, len(g.order))
	for i, h := range g.order {
		names[i] = h.name
	}
	return names
}

// NetNS is the ip-netns name of host's network namespace ("" for a host
// that is not in the grid), for "ip netns exec NAME ...".
func (g *Grid) NetNS(host string) string {
	if h := g.hosts[host]; h != nil && h.proc != nil {
		return h.proc.netns
	}
	return ""
}

// Command returns a command that runs name with args inside host's
// namespaces (network, UTS, mount), through nsenter(1), which execs the
// program in place: the command's process is the program itself. The
// caller may set Env, ExtraFiles, Stdin/Stdout/Stderr and SysProcAttr
// before starting it; inherited file descriptors stay usable, and Dir
// works as usual. name is looked up in the command's PATH inside the
// host. For a host not in the grid, Start returns an error.
func (g *Grid) Command(host, name string, args ...string) *exec.Cmd {
	h := g.hosts[host]
	if h == nil || h.proc == nil {
		cmd := exec.Command(name, args...)
		cmd.Err = fmt.Errorf("emu: no emulated host %q", host)
		return cmd
	}
	// "--wd=." opens the directory nsenter starts in (Dir, or the
	// caller's) before it enters the mount namespace, which would reset
	// it, and returns there afterwards.
	return exec.Command(g.nsent, append([]string{
		"--target", strconv.Itoa(h.proc.cmd.Process.Pid),
		"--net", "--uts", "--mount", "--wd=.", "--", name}, args...)...)
}

// Shell returns a command that runs the shell command line in host, as
// ssh(1) would: "sh -c line".
func (g *Grid) Shell(host, line string) *exec.Cmd {
	return g.Command(host, "sh", "-c", line)
}

// SetSiteDown cuts (down=true) or restores every wide-area path of site,
// as if its router stopped: the emulator's router drops every packet from
// or to the site, including those it holds already. Traffic inside the
// site goes on. It runs no process, so it is safe while the caller reaps
// children with wait4(-1).
func (g *Grid) SetSiteDown(site string, down bool) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return errors.New("emu: SetSiteDown on a closed grid")
	}
	if g.attached {
		return errors.New("emu: SetSiteDown: only the program that started the grid can cut a site off")
	}
	si := -1
	for i, s := range g.sites {
		if s.name == site {
			si = i
		}
	}
	if si < 0 {
		return fmt.Errorf("emu: SetSiteDown: no site %q", site)
	}
	verb := "up"
	if down {
		verb = "down"
	}
	if _, err := fmt.Fprintf(g.router.stdin, "%s %d\n", verb, si); err != nil {
		return fmt.Errorf("emu: SetSiteDown: the router is gone: %w", err)
	}
	select {
	case reply, ok := <-g.router.replies:
		if !ok {
			return errors.New("emu: SetSiteDown: the router is gone")
		}
		if reply != "ok" {
			return fmt.Errorf("emu: SetSiteDown: router: %s", reply)
		}
	case <-time.After(readyTimeout):
		return errors.New("emu: SetSiteDown: the router does not answer")
	}
	return nil
}

// Close tears everything down: every process still running in an
// emulated host's network namespace, the helper processes, the names of
// the namespaces; the kernel then frees the namespaces with their links
// and bridges. Safe to call more than once. A grid opened with Attach
// releases nothing (it is its starter's).
func (g *Grid) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil
	}
	g.closed = true
	if g.attached {
		return nil // the grid is its starter's
	}
	for _, t := range g.timers {
		t.Stop()
	}
	var errs []error
	procs := []*helperProc{}
	for _, h := range g.order {
		if h.proc != nil {
			procs = append(procs, h.proc)
		}
	}
	if g.router != nil {
		procs = append(procs, g.router)
	}
	// Processes the caller started in the hosts (and anything they left).
	inos := map[uint64]bool{}
	for _, p := range procs {
		if p.nsIno != 0 {
			inos[p.nsIno] = true
		}
	}
	killInNamespaces(inos, procs)
	// Helpers exit when their stdin closes; SIGKILL for any that lingers.
	for _, p := range procs {
		p.stdin.Close()
	}
	grace := time.After(exitGrace)
	for _, p := range procs {
		select {
		case <-p.done:
		case <-grace:
			p.cmd.Process.Kill()
		}
	}
	// Once more: a process may have been entering a host (nsenter)
	// during the first sweep.
	killInNamespaces(inos, procs)
	for _, p := range procs {
		p.cmd.Process.Kill()
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			errs = append(errs, fmt.Errorf("emu: helper process %d did not exit", p.cmd.Process.Pid))
		}
		if p.netns != "" {
			if err := deleteNetns(p.netns); err != nil {
				errs = append(errs, err)
			}
		}
	}
	g.spawn.stop() // its thread may go now: the helpers are gone
	return errors.Join(errs...)
}

// spawner starts the helper processes from one locked OS thread that
// lives until the grid closes: the parent-death signal is sent when the
// thread that forked a child exits, and Go ends a thread whose locked
// goroutine returns.
type spawner struct{ req chan func() }

func newSpawner() *spawner {
	s := &spawner{req: make(chan func())}
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with stop
		for f := range s.req {
			f()
		}
	}()
	return s
}

func (s *spawner) start(cmd *exec.Cmd) error {
	var err error
	done := make(chan struct{})
	s.req <- func() { err = cmd.Start(); close(done) }
	<-done
	return err
}

func (s *spawner) stop() { close(s.req) }

// killInNamespaces sends SIGKILL to every process whose network namespace
// is one of inos, other than the helpers.
func killInNamespaces(inos map[uint64]bool, helpers []*helperProc) {
	if len(inos) == 0 {
		return
	}
	skip := map[int]bool{os.Getpid(): true}
	for _, p := range helpers {
		skip[p.cmd.Process.Pid] = true
	}
	// Two rounds: a process may fork while we look.
	for round := 0; round < 2; round++ {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || skip[pid] {
				continue
			}
			var st unix.Stat_t
			if unix.Stat("/proc/"+e.Name()+"/ns/net", &st) == nil && inos[st.Ino] {
				unix.Kill(pid, unix.SIGKILL)
			}
		}
	}
}

// deleteNetns removes the name of a network namespace (what "ip netns
// delete" does, without its refusal when the namespace is still in use).
func deleteNetns(name string) error {
	path := filepath.Join("/run/netns", name)
	if err := unix.Unmount(path, unix.MNT_DETACH); err != nil && err != unix.EINVAL && err != unix.ENOENT {
		return fmt.Errorf("emu: unmounting %s: %w", path, err)
	}
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("emu: %w", err)
	}
	return nil
}

var staleName = regexp.MustCompile(`^gmpi-([0-9]+)-[0-9a-f]{4}[-.]`)

// sweepStale removes namespace names left by emulations whose process is
// gone (killed before it could Close), and kills what still runs in them.
func sweepStale() {
	ents, _ := os.ReadDir("/run/netns")
	for _, e := range ents {
		m := staleName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		pid, _ := strconv.Atoi(m[1])
		if pid == os.Getpid() || unix.Kill(pid, 0) != unix.ESRCH {
			continue
		}
		var st unix.Stat_t
		if unix.Stat(filepath.Join("/run/netns", e.Name()), &st) == nil {
			killInNamespaces(map[uint64]bool{st.Ino: true}, nil)
		}
		deleteNetns(e.Name())
	}
}
