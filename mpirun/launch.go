package main

import (
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"gmpi/mpirun/emu"
	"gmpi/mpirun/grid"
	"gmpi/runtime/auth"
	"gmpi/runtime/param"
	"gmpi/runtime/pmi/server"
	"gmpi/runtime/ports"

	"golang.org/x/sys/unix"
)

// Launching. Every rank is started by its slot's launcher:
//
//	local     fork/exec on this computer; PMI over an inherited socket (fd 3)
//	template  the grid file's command line with {host} and {cmd} filled in,
//	          run on this computer; PMI over fd 3 (pmi = "fd", for commands
//	          that exec the rank here, such as "ip netns exec {host} {cmd}")
//	          or over TCP (pmi = "tcp")
//	          ({gateway}: the gateway of a private site's host, see below)
//	ssh       ssh HOST 'sh -c SCRIPT' (ssh -J GATEWAY for a host of a private
//	          site other than its gateway): the script reads the job secret from
//	          its stdin (never on a command line), starts the rank with the
//	          job's environment in mpirun's working directory, and kills it
//	          when its stdin closes (mpirun ended or ssh died), so a remote
//	          rank never outlives the job; PMI over TCP
//	emulated  (--emulate) inside the host's namespaces (emu.Grid.Command);
//	          PMI over fd 3
//
// Ranks that use PMI over TCP find mpirun through PMI_PORT/PMI_ID and
// prove the job secret (GMPI_JOB_SECRET, runtime/auth, context "pmi")
// before their first PMI byte (GMPI_PMI_AUTH=1 tells gmpi's client to).
// mpirun closes every other connection at once, without disturbing the
// job.

// Startup: once one rank has checked in (PMI init), every rank must do so
// within GMPI_STARTUP_TIMEOUT, or the job is ended naming the hosts that did
// not (co-allocation: the ranks that made it wait in MPI_Init's PMI
// barrier, which releases them together).

// authTimeout bounds the authentication of a connection to one of
// mpirun's ports (GMPI_AUTH_TIMEOUT).
func authTimeout(params *param.Values) time.Duration {
	if t := param.AuthTimeout.Get(params); t > 0 {
		return t
	}
	return 10 * time.Second
}

// pmiListener serves PMI over TCP to ranks that cannot inherit a socket.
type pmiListener struct {
	l    net.Listener
	port string
	bind string     // GMPI_PMI_ADDR's host, "" when not set
	gate *auth.Gate // connections in their handshake
}

// listenPMI opens the TCP PMI port: on GMPI_PMI_ADDR (host or host:port)
// when set, else on every address; a port GMPI_PMI_ADDR does not give
// comes from GMPI_TCP_PORT_RANGE.
func (j *job) listenPMI() error {
	addr := param.PMIAddr.Get(j.params)
	bind := ""
	var l net.Listener
	var err error
	if h, p, perr := net.SplitHostPort(addr); addr != "" && perr == nil && p != "0" {
		bind = h
		l, err = net.Listen("tcp", net.JoinHostPort(h, p))
	} else {
		if bind = addr; perr == nil {
			bind = h
		}
		l, err = ports.ListenConfigured(j.params, bind, "mpirun's PMI port")
	}
	if err != nil {
		return fmt.Errorf("PMI port: %w", err)
	}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	j.pmiTCP = &pmiListener{l: l, port: port, bind: bind, gate: auth.NewGate(0)}
	j.vlogf("PMI over TCP on %s", l.Addr())
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			j.pmiTCP.gate.Enter(c)
			go j.servePMIConn(j.pmiTCP.gate, c)
		}
	}()
	return nil
}

// servePMIConn authenticates one PMI connection (TCP, or the vendor
// ranks' Unix socket) that entered its listener's gate and serves it; a
// peer that does not prove the job secret is dropped.
func (j *job) servePMIConn(gate *auth.Gate, c net.Conn) {
	if err := gate.Pass(c, []byte(j.secret), "pmi", authTimeout(j.params)); err != nil {
		j.vlogf("refused PMI connection from %s: %v", c.RemoteAddr(), err)
		return
	}
	j.srv.Serve(-1, c)
}

// pmiAddrFor is the PMI_PORT a rank on host dials.
func (j *job) pmiAddrFor(host string) string {
	p := j.pmiTCP
	if p.bind != "" && p.bind != "0.0.0.0" && p.bind != "::" {
		return net.JoinHostPort(p.bind, p.port)
	}
	if isLocalHost(host, j.host) || j.emu != nil {
		return net.JoinHostPort("127.0.0.1", p.port)
	}
	// The address this computer would send from to reach host (a UDP
	// "connection" sends nothing).
	if c, err := net.Dial("udp", net.JoinHostPort(host, "9")); err == nil {
		ip := c.LocalAddr().(*net.UDPAddr).IP.String()
		c.Close()
		return net.JoinHostPort(ip, p.port)
	}
	return net.JoinHostPort(j.host, p.port)
}

// rankEnv is the environment of rank r of app a, as VAR=VALUE entries.
func (j *job) rankEnv(r, a int) []string {
	s := &j.slots[r]
	itoa := strconv.Itoa
	extra := []string{
		"PMI_RANK=" + itoa(r),
		"PMI_SIZE=" + itoa(j.size),
		"GMPI_JOBID=" + j.jobID,
		"GMPI_HOSTNAME=" + s.host,
		"GMPI_LOCAL_RANK=" + itoa(s.localRank),
		"GMPI_LOCAL_SIZE=" + itoa(s.localSize),
		"GMPI_UNIVERSE_SIZE=" + itoa(j.size),
		"GMPI_APPNUM=" + itoa(a),
		"MPI_LOCALRANKID=" + itoa(s.localRank),
		"MPI_LOCALNRANKS=" + itoa(s.localSize),
	}
	if j.grid != nil {
		// Without a grid file these pass through from mpirun's environment
		// or -env, which lets a test fake a topology on one host.
		extra = append(extra, "GMPI_SITE="+s.site, "GMPI_MACHINE="+s.machine, "GMPI_VMPI="+s.vmpi)
		if w := j.grid.WAN; w.Latency > 0 && w.Bandwidth > 0 && !math.IsInf(w.Bandwidth, 0) {
			// The wide area's bandwidth-delay product (coll/hier).
			extra = append(extra, "GMPI_WAN_BDP="+strconv.Itoa(int(w.Latency.Seconds()*w.Bandwidth)))
		}
	}
	if len(s.unseen) > 0 {
		extra = append(extra, param.IOUnseen.Name()+"="+strings.Join(s.unseen, ":"))
	}
	if s.remote() && j.emu == nil {
		extra = append(extra, "PMI_PORT="+j.pmiAddrFor(s.host), "PMI_ID="+itoa(r), "GMPI_PMI_AUTH=1")
	} else {
		extra = append(extra, "PMI_FD=3")
	}
	if s.launcher.Kind != grid.SSH || j.emu != nil {
		extra = append(extra, "GMPI_JOB_SECRET="+j.secret)
	}
	if j.emu != nil {
		extra = append(extra, "GMPI_TCP_IF="+j.emu.Addr(s.host).String())
		if n := emuCPUs(); n > 0 && j.size > n && !j.userSets(a, param.Oversubscribed.Name()) {
			// The emulated hosts share this machine's CPUs: a rank alone
			// on its emulated host is not alone on a core, and waiters
			// that spin without yielding delay the ranks that have work
			// (bench/README.md, "Wide-area collectives").
			extra = append(extra, param.Oversubscribed.Name()+"=1")
		}
	} else if s.listen != "" {
		extra = append(extra, "GMPI_TCP_IF="+s.listen)
	}
	if s.ports != "" {
		extra = append(extra, "GMPI_TCP_PORT_RANGE="+s.ports)
	}
	if s.sourcePorts != "" {
		extra = append(extra, "GMPI_TCP_SOURCE_PORT_RANGE="+s.sourcePorts)
	}
	if s.advertise != "" && j.emu == nil { // an emulated host has one address
		extra = append(extra, "GMPI_TCP_ADVERTISE="+s.advertise)
	}
	if j.relayEnv != "" {
		extra = append(extra, "GMPI_TCP_RELAYS="+j.relayEnv)
	}
	return j.env(a, extra)
}

// emuCPUs is the number of CPUs the emulated hosts' ranks share (those
// mpirun may run on), 0 when unknown.
func emuCPUs() int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return 0
	}
	return set.Count()
}

// userSets reports whether the user gave rank processes of app a the
// variable key (mpirun's environment, -genv/-x, the app's -env).
func (j *job) userSets(a int, key string) bool {
	if _, ok := os.LookupEnv(key); ok {
		return true
	}
	for _, kvs := range [][]string{j.opts.genv, j.opts.apps[a].env} {
		for _, kv := range kvs {
			if k, _, _ := strings.Cut(kv, "="); k == key {
				return true
			}
		}
	}
	return false
}

// command is the argv that starts rank p: the program itself (local),
// or the launcher's command around it.
func (j *job) command(p *rankProc) ([]string, error) {
	s := &j.slots[p.rank]
	prog, err := archProgram(s, j.opts.apps[p.app].argv)
	if err != nil {
		return nil, err
	}
	if j.emu != nil {
		return prog, nil
	}
	switch s.launcher.Kind {
	case grid.Template:
		var argv []string
		for _, w := range s.launcher.Command {
			if w == "{cmd}" {
				argv = append(argv, prog...)
			} else {
				argv = append(argv, strings.NewReplacer("{host}", s.host, "{gateway}", s.gateway).Replace(w))
			}
		}
		return lookPath(argv)
	case grid.SSH:
		l := s.launcher
		argv := []string{l.Program}
		if l.User != "" {
			argv = append(argv, "-l", l.User)
		}
		if l.Port != 0 {
			argv = append(argv, "-p", strconv.Itoa(l.Port))
		}
		if s.gateway != "" { // a private host: hop through its site's gateway
			argv = append(argv, "-J", s.gateway)
		}
		argv = append(argv, l.Options...)
		argv = append(argv, s.host, "exec /bin/sh -c "+shQuote(j.remoteScript(p)))
		return lookPath(argv)
	}
	return prog, nil
}

func lookPath(argv []string) ([]string, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("empty launcher command")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("launcher: %w", err)
	}
	return append([]string{path}, argv[1:]...), nil
}

// remoteScript is what an ssh-started rank's shell runs (see the top of
// this file). The secret arrives as the first line of stdin; the rank's
// own stdin is /dev/null; the rest of stdin is the rank's lifeline.
func (j *job) remoteScript(p *rankProc) string {
	var env []string
	for _, kv := range j.rankEnv(p.rank, p.app) {
		k, _, _ := strings.Cut(kv, "=")
		if forwardable(k) {
			env = append(env, shQuote(kv))
		}
	}
	var prog []string
	argv, err := archProgram(&j.slots[p.rank], j.opts.apps[p.app].argv)
	if err != nil {
		argv = j.opts.apps[p.app].argv // placeGrid checked it already
	}
	for _, a := range argv {
		prog = append(prog, shQuote(a))
	}
	wdir := j.wdirOf(p.app)
	if wdir == "" {
		wdir, _ = os.Getwd()
	}
	return "IFS= read -r GMPI_JOB_SECRET || exit 127; export GMPI_JOB_SECRET; " +
		"cd " + shQuote(wdir) + " || exit 127; exec 3<&0; " +
		"env " + strings.Join(env, " ") + " " + strings.Join(prog, " ") + " </dev/null 3<&- & p=$!; " +
		"(cat <&3 >/dev/null; kill -KILL $p 2>/dev/null) & w=$!; exec 3<&-; " +
		"trap 'kill -KILL $p 2>/dev/null' HUP INT TERM; " +
		"wait $p; s=$?; kill $w 2>/dev/null; exit $s"
}

// forwardable says whether an environment variable of mpirun's travels to
// ssh-started ranks: not the ones that describe this login session, not
// the secret (sent on stdin), and only names a shell can assign.
func forwardable(k string) bool {
	switch k {
	case "HOME", "USER", "LOGNAME", "SHELL", "PWD", "OLDPWD", "SHLVL", "TERM", "DISPLAY",
		"MAIL", "HOSTNAME", "_", "GMPI_JOB_SECRET", "TMUX", "STY", "LS_COLORS":
		return false
	}
	if strings.HasPrefix(k, "SSH_") || strings.HasPrefix(k, "XDG_") {
		return false
	}
	for i, c := range k {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return k != ""
}

// shQuote quotes s for a POSIX shell.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// startEmulation builds the emulated grid (--emulate).
func (j *job) startEmulation() error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("--emulate needs root (it creates network namespaces)")
	}
	if j.opts.emuAttach != "" {
		return j.attachEmulation()
	}
	t := emu.Topology{Hidden: map[string][]string{}}
	for _, h := range j.grid.Hosts() {
		if u := j.grid.Unseen(h.Machine); len(u) > 0 {
			t.Hidden[h.Name] = u
		}
	}
	for _, s := range j.grid.Sites {
		site := emu.Site{Name: s.Name, Private: s.Private, Gateway: s.Gateway}
		var err error
		if site.Firewall, err = emuRanges(s.Firewall); err != nil {
			return err
		}
		if site.Egress, err = emuRanges(s.Egress); err != nil {
			return err
		}
		for _, m := range s.Machines {
			for _, h := range m.Hosts {
				site.Hosts = append(site.Hosts, h.Name)
			}
		}
		t.Sites = append(t.Sites, site)
	}
	for i, a := range j.grid.Sites {
		for _, b := range j.grid.Sites[i+1:] {
			l := j.grid.LinkBetween(a.Name, b.Name)
			if l.Latency > 0 || l.Bandwidth > 0 {
				t.Links = append(t.Links, emu.Link{A: a.Name, B: b.Name, Delay: l.Latency, Rate: l.Bandwidth})
			}
		}
	}
	g, err := emu.Start(t)
	if err != nil {
		return fmt.Errorf("--emulate: %w", err)
	}
	j.emu = g
	if j.opts.emuShare != "" {
		if err := g.Share(j.opts.emuShare); err != nil {
			return fmt.Errorf("--emulate-share: %w", err)
		}
		j.emuShared = j.opts.emuShare
		j.emuOwnShare = true
	}
	return nil
}

// attachEmulation runs the job on an emulated grid that another mpirun
// started and described (--emulate-attach): every host of the grid file
// must be there, at the same site.
func (j *job) attachEmulation() error {
	g, err := emu.Attach(j.opts.emuAttach)
	if err != nil {
		return fmt.Errorf("--emulate-attach: %w", err)
	}
	for _, s := range j.grid.Sites {
		for _, m := range s.Machines {
			for _, h := range m.Hosts {
				if site := g.Site(h.Name); site != s.Name {
					return fmt.Errorf("--emulate-attach %s: host %s of site %s in %s is not in that grid (at %q)", j.opts.emuAttach, h.Name, s.Name, j.grid.Path, site)
				}
			}
		}
	}
	j.emu, j.emuShared = g, j.opts.emuAttach
	return nil
}

// emuShareFile is the description of the emulated grid that nested
// mpiruns (spawn) attach to: the shared or attached one, else one written
// now into a temporary file removed at the end.
func (j *job) emuShareFile() (string, error) {
	j.emuMu.Lock()
	defer j.emuMu.Unlock()
	if j.emuShared != "" {
		return j.emuShared, nil
	}
	f, err := os.CreateTemp("", "gmpi-emu-*.grid")
	if err != nil {
		return "", err
	}
	f.Close()
	if err := j.emu.Share(f.Name()); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	j.emuShared, j.emuOwnShare = f.Name(), true
	return f.Name(), nil
}

// startEmulated starts rank p inside its emulated host.
func (j *job) startEmulated(p *rankProc, argv, env []string, files []*os.File) (int, error) {
	cmd := j.emu.Command(j.slots[p.rank].host, argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Dir = j.wdirOf(p.app)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = files[0], files[1], files[2]
	cmd.ExtraFiles = files[3:]
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	return cmd.Process.Pid, nil
}

// checkins tracks which ranks did the PMI init exchange.
type checkins struct {
	mu    sync.Mutex
	in    []bool
	n     int
	first chan struct{} // closed at the first check-in
	all   chan struct{} // closed when every rank checked in
}

func newCheckins(n int) *checkins {
	return &checkins{in: make([]bool, n), first: make(chan struct{}), all: make(chan struct{})}
}

func (c *checkins) add(r int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r < 0 || r >= len(c.in) || c.in[r] {
		return
	}
	c.in[r] = true
	c.n++
	if c.n == 1 {
		close(c.first)
	}
	if c.n == len(c.in) {
		close(c.all)
	}
}

// missing lists the ranks that have not checked in.
func (c *checkins) missing() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	var rs []int
	for r, ok := range c.in {
		if !ok {
			rs = append(rs, r)
		}
	}
	return rs
}

// onPMIEvent is the PMI server's event hook.
func (j *job) onPMIEvent(ev server.Event, events chan<- server.Event) {
	switch ev.Kind {
	case server.EventInit:
		j.checkins.add(ev.Rank)
	case server.EventDisconnect:
		if ev.Rank >= 0 && ev.Rank < len(j.procs) && j.slots[ev.Rank].remote() && j.emu == nil {
			j.procs[ev.Rank].pmiClosed()
		}
	case server.EventAbort, server.EventPMI2, server.EventProtocolError:
		events <- ev
	}
}

// hostsOf names the hosts of ranks rs.
func (j *job) hostsOf(rs []int) string {
	seen := map[string]bool{}
	var hs []string
	for _, r := range rs {
		if h := j.slots[r].host; !seen[h] {
			seen[h] = true
			hs = append(hs, h)
		}
	}
	return strings.Join(hs, ", ")
}

// emuRanges converts a grid file's port ranges for the emulator.
func emuRanges(rs []string) ([]emu.PortRange, error) {
	var out []emu.PortRange
	for _, f := range rs {
		r, err := ports.Parse(f)
		if err != nil {
			return nil, err
		}
		out = append(out, emu.PortRange{Lo: r.Lo, Hi: r.Hi})
	}
	return out, nil
}
