package emu

import (
	"bufio"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Sharing a running grid with other programs (a second mpirun job, the
// nested mpirun of MPI_Comm_spawn): the program that started the grid
// writes a description with Share; another one opens it with Attach and
// starts commands in the same hosts. The grid still belongs to its
// starter: it lives as long as the starter (whose Close kills whatever
// runs in the hosts, attached programs' processes too), and an attached
// Grid's Close releases nothing.
//
// The description is a small text file (mode 0600, only root can use it
// anyway):
//
//	gmpi-emu-grid 1
//	prefix PREFIX
//	site NAME                          one per site, in order
//	host NAME SITE-INDEX ADDR PID NETNS  one per host, in order
//
// PID is the host's holder process; Attach checks that its network
// namespace is still the one named NETNS (a recycled pid is refused).

const shareMagic = "gmpi-emu-grid 1"

// Share writes the grid's description to path for Attach.
func (g *Grid) Share(path string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nprefix %s\n", shareMagic, g.prefix)
	for _, s := range g.sites {
		fmt.Fprintf(&b, "site %s\n", s.name)
	}
	for _, h := range g.order {
		fmt.Fprintf(&b, "host %s %d %s %d %s\n", h.name, h.site, h.addr, h.proc.cmd.Process.Pid, h.proc.netns)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("emu: sharing the grid: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("emu: sharing the grid: %w", err)
	}
	return nil
}

// Attach opens the grid that Share described in path. The result runs
// commands in the grid's hosts (Command, Shell, WriteSSH) and answers
// Addr, Hosts, NetNS, Site; SetSiteDown is the starter's alone.
func Attach(path string) (*Grid, error) {
	if os.Geteuid() != 0 {
		return nil, errors.New("emu: using an emulated grid needs root (entering its namespaces)")
	}
	nsent, err := exec.LookPath("nsenter")
	if err != nil {
		return nil, fmt.Errorf("emu: nsenter (util-linux) is needed to run commands in emulated hosts: %w", err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("emu: attaching to a running grid: %w", err)
	}
	defer f.Close()
	g := &Grid{nsent: nsent, hosts: map[string]*hostState{}, attached: true}
	sc := bufio.NewScanner(f)
	bad := func(n int, why string) error {
		return fmt.Errorf("emu: %s line %d: %s (is this a file written by mpirun --emulate-share?)", path, n, why)
	}
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		fs := strings.Fields(line)
		switch {
		case n == 1:
			if line != shareMagic {
				return nil, bad(n, "not a grid description")
			}
		case len(fs) == 2 && fs[0] == "prefix":
			g.prefix = fs[1]
		case len(fs) == 2 && fs[0] == "site":
			g.sites = append(g.sites, siteState{name: fs[1]})
		case len(fs) == 6 && fs[0] == "host":
			si, err1 := strconv.Atoi(fs[2])
			addr, err2 := netip.ParseAddr(fs[3])
			pid, err3 := strconv.Atoi(fs[4])
			if err1 != nil || err2 != nil || err3 != nil || si < 0 || si >= len(g.sites) || pid <= 0 || g.hosts[fs[1]] != nil {
				return nil, bad(n, "malformed host")
			}
			if err := checkHolder(pid, fs[5]); err != nil {
				return nil, fmt.Errorf("emu: %s: host %s: %w", path, fs[1], err)
			}
			proc, _ := os.FindProcess(pid)
			hs := &hostState{name: fs[1], site: si, addr: addr,
				proc: &helperProc{cmd: &exec.Cmd{Process: proc}, netns: fs[5]}}
			g.hosts[hs.name] = hs
			g.order = append(g.order, hs)
			g.sites[si].hosts = append(g.sites[si].hosts, hs)
		default:
			return nil, bad(n, "unknown line")
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("emu: %s: %w", path, err)
	}
	if len(g.order) == 0 {
		return nil, fmt.Errorf("emu: %s describes no host", path)
	}
	return g, nil
}

// checkHolder makes sure pid is still the holder of the namespace named
// netns (the grid is up, the pid not reused).
func checkHolder(pid int, netns string) error {
	var a, b unix.Stat_t
	if err := unix.Stat(filepath.Join("/run/netns", netns), &a); err != nil {
		return fmt.Errorf("the grid is gone (namespace %s: %v)", netns, err)
	}
	if err := unix.Stat(fmt.Sprintf("/proc/%d/ns/net", pid), &b); err != nil || a.Ino != b.Ino || a.Dev != b.Dev {
		return fmt.Errorf("the grid is gone (its holder process %d no longer holds namespace %s)", pid, netns)
	}
	return nil
}

// Site names host's site ("" for a host that is not in the grid).
func (g *Grid) Site(host string) string {
	if h := g.hosts[host]; h != nil {
		return g.sites[h.site].name
	}
	return ""
}

// Attached reports whether g was opened with Attach.
func (g *Grid) Attached() bool { return g.attached }
