package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gmpi/devices/relay"
	"gmpi/mpirun/grid"
	"gmpi/runtime/param"
)

// Relays: every private site of the grid file gets a relay process on
// its gateway host ("mpirun __relay", devices/relay), started through the
// gateway's launcher before the ranks (emulated: inside the gateway's
// namespaces; ssh: "ssh GATEWAY exec MPIRUN __relay", so mpirun must be
// installed at the same path there). It reads the job secret from its
// stdin, prints the port it listens on, and lives until mpirun closes its
// stdin. The ranks learn the relays from GMPI_TCP_RELAYS and decide per
// peer whether to go through them (relay.Routes.Hops). A relay that ends
// while the job runs ends the job, naming it.

// relayArg is the first argument of a relay process.
const relayArg = "__relay"

// relayStartTimeout bounds how long a relay has to say its port.
const relayStartTimeout = 30 * time.Second

// relayProc is one running relay.
type relayProc struct {
	site, host string
	pid        int
	stdin      io.WriteCloser
	addr       string // where other sites dial it
	inside     string // where the site's hosts dial it
}

// relayDeath reports a relay whose output ended (it exited or was killed).
type relayDeath struct{ r *relayProc }

// relayMain runs "mpirun __relay ARGS".
func relayMain(args []string) int {
	if err := relay.Main(args, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "gmpi relay: %v\n", err)
		return 1
	}
	return 0
}

// startRelays starts the relay of every private site and sets
// j.relayEnv (GMPI_TCP_RELAYS); deaths are reported on died.
func (j *job) startRelays(died chan<- relayDeath) error {
	if j.grid == nil {
		return nil
	}
	var rs []relay.Relay
	for _, s := range j.grid.Sites {
		if !s.Relay {
			continue
		}
		var gw *grid.Host
		for _, h := range s.Hosts() {
			if h.Name == s.Gateway {
				gw = h
			}
		}
		if gw == nil {
			return fmt.Errorf("site %s: no gateway host %q", s.Name, s.Gateway)
		}
		rp, err := j.startRelay(s, gw, died)
		if err != nil {
			return fmt.Errorf("starting the relay of site %s on host %s: %w", s.Name, gw.Name, err)
		}
		j.relays = append(j.relays, rp)
		rs = append(rs, relay.Relay{Site: s.Name, Gateway: gw.Name, Inside: rp.inside, Outside: rp.addr})
		j.vlogf("relay of site %s on host %s (pid %d): %s (inside %s)", s.Name, gw.Name, rp.pid, rp.addr, rp.inside)
	}
	j.relayEnv = relay.Format(rs)
	return nil
}

// startRelay starts one relay on gw and waits for its port.
func (j *job) startRelay(s *grid.Site, gw *grid.Host, died chan<- relayDeath) (*relayProc, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	timeout := param.TCPTimeout.Get(j.params)
	args := []string{relayArg, "-site", s.Name, "-name", gw.Name, "-range", gw.PortRange(), "-source", gw.SourcePortRange(), "-timeout", timeout.String()}
	if j.verbose {
		args = append(args, "-v")
	}
	var cmd *exec.Cmd
	switch {
	case j.emu != nil:
		cmd = j.emu.Command(gw.Name, self, args...)
	case gw.Machine.Launcher.Kind == grid.SSH:
		l := gw.Machine.Launcher
		argv := []string{}
		if l.User != "" {
			argv = append(argv, "-l", l.User)
		}
		if l.Port != 0 {
			argv = append(argv, "-p", strconv.Itoa(l.Port))
		}
		argv = append(argv, l.Options...)
		quoted := []string{shQuote(self)}
		for _, a := range args {
			quoted = append(quoted, shQuote(a))
		}
		argv = append(argv, gw.Name, "exec "+strings.Join(quoted, " "))
		cmd = exec.Command(l.Program, argv...)
	case gw.Machine.Launcher.Kind == grid.Template:
		var argv []string
		for _, w := range gw.Machine.Launcher.Command {
			if w == "{cmd}" {
				argv = append(append(argv, self), args...)
			} else {
				argv = append(argv, strings.ReplaceAll(w, "{host}", gw.Name))
			}
		}
		if argv, err = lookPath(argv); err != nil {
			return nil, err
		}
		cmd = exec.Command(argv[0], argv[1:]...)
	default:
		cmd = exec.Command(self, args...)
	}
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	rp := &relayProc{site: s.Name, host: gw.Name, pid: cmd.Process.Pid, stdin: stdin}
	fail := func(err error) (*relayProc, error) {
		stdin.Close()
		syscall.Kill(-rp.pid, syscall.SIGKILL)
		return nil, err
	}
	if _, err := fmt.Fprintln(stdin, j.secret); err != nil {
		return fail(err)
	}
	lines := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		line, err := r.ReadString('\n')
		if err != nil {
			line = ""
		}
		lines <- line
		if err == nil {
			io.Copy(io.Discard, r) // until the relay ends
		}
		died <- relayDeath{rp}
	}()
	var line string
	select {
	case line = <-lines:
	case <-time.After(relayStartTimeout):
		return fail(fmt.Errorf("it did not say its port within %v", relayStartTimeout))
	}
	port, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	if n, err := strconv.Atoi(port); !ok || err != nil || n < 1 || n > 65535 {
		return fail(fmt.Errorf("it ended before it listened (see its message above)"))
	}
	inside, outside := gw.Name, gw.Name
	if gw.Machine.Launcher.Kind == grid.Local { // the gateway is this computer
		inside, outside = "127.0.0.1", "127.0.0.1"
	}
	if j.emu != nil {
		inside = j.emu.Addr(gw.Name).String()
		outside = inside
	} else {
		if ip := net.ParseIP(gw.Listen); ip != nil {
			inside, outside = gw.Listen, gw.Listen
		}
		if gw.Advertise != "" {
			outside = gw.Advertise
		}
	}
	rp.inside = net.JoinHostPort(inside, port)
	rp.addr = net.JoinHostPort(outside, port)
	if _, _, err := net.SplitHostPort(outside); err == nil {
		rp.addr = outside // advertise gave host:port (a forwarded port)
	}
	return rp, nil
}

// stopRelays closes every relay's lifeline and kills what is left.
func (j *job) stopRelays() {
	for _, rp := range j.relays {
		rp.stdin.Close()
		syscall.Kill(-rp.pid, syscall.SIGKILL)
	}
}
