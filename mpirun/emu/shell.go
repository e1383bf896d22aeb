package emu

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// WriteSSH writes an executable script at path that works like ssh(1)
// into the grid's hosts, for launchers that take an ssh replacement
// (mpiexec.mpich -launcher-exec, Open MPI's plm_rsh_agent):
//
//	PATH [ssh options] [user@]HOST [COMMAND...]
//
// runs "sh -c 'COMMAND...'" (or an interactive shell) in HOST's
// namespaces, in the caller's working directory. HOST is a host name or
// its address. The script is valid while the grid runs.
func (g *Grid) WriteSSH(path string) error {
	var b strings.Builder
	fmt.Fprintf(&b, `#!/bin/sh
# ssh into the hosts of the gmpi grid emulation %s (written by mpirun/emu).
# usage: %s [ssh options] [user@]HOST [COMMAND...]
while [ $# -gt 0 ]; do
	case $1 in
	-[bcDEeFIiJLlmOopQRSWw]) shift 2 ;;
	--) shift; break ;;
	-*) shift ;;
	*) break ;;
	esac
done
if [ $# -eq 0 ]; then echo "$0: no host given" >&2; exit 255; fi
host=${1#*@}
shift
case $host in
`, g.prefix, filepath.Base(path))
	for _, h := range g.order {
		fmt.Fprintf(&b, "%s|%s) pid=%d ;;\n", h.name, h.addr, h.proc.cmd.Process.Pid)
	}
	fmt.Fprintf(&b, `*) echo "$0: $host is not an emulated host" >&2; exit 255 ;;
esac
if [ $# -eq 0 ]; then
	exec %[1]s --target "$pid" --net --uts --mount --wd=. -- "${SHELL:-/bin/sh}" -i
fi
exec %[1]s --target "$pid" --net --uts --mount --wd=. -- /bin/sh -c "$*"
`, g.nsent)
	return os.WriteFile(path, []byte(b.String()), 0o755)
}

type listFlag []string

func (f *listFlag) String() string     { return strings.Join(*f, " ") }
func (f *listFlag) Set(s string) error { *f = append(*f, s); return nil }

// ParseTopology reads the compact command-line form of a topology:
// sites as "NAME=HOST,HOST,..." and links as "A-B,DELAY,RATE" (a Go
// duration and bytes per second, e.g. "A-B,10ms,1e6").
func ParseTopology(sites, links []string) (Topology, error) {
	var t Topology
	for _, s := range sites {
		name, hosts, ok := strings.Cut(s, "=")
		if !ok || hosts == "" {
			return t, fmt.Errorf("site %q: want NAME=HOST,HOST,...", s)
		}
		t.Sites = append(t.Sites, Site{Name: name, Hosts: strings.Split(hosts, ",")})
	}
	for _, l := range links {
		f := strings.Split(l, ",")
		var a, b string
		var ok bool
		if len(f) == 3 {
			a, b, ok = strings.Cut(f[0], "-")
		}
		if !ok {
			return t, fmt.Errorf("link %q: want A-B,DELAY,RATE", l)
		}
		delay, err := time.ParseDuration(f[1])
		if err != nil {
			return t, fmt.Errorf("link %q: delay: %w", l, err)
		}
		rate, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			return t, fmt.Errorf("link %q: rate (bytes/s): %w", l, err)
		}
		t.Links = append(t.Links, Link{A: a, B: b, Delay: delay, Rate: rate})
	}
	return t, nil
}

// shellMain is "PROG __emu-helper shell -site A=a1,a2 -site B=b1,b2
// -link A-B,10ms,1e6 [COMMAND...]": it starts the grid, runs COMMAND (an
// interactive shell by default) in the first host with an ssh look-alike
// for the others in $PATH as "emussh" (and in $GMPI_EMU_SSH), and tears
// the grid down when COMMAND ends.
func shellMain(args []string) error {
	fs := flag.NewFlagSet("shell", flag.ContinueOnError)
	var sites, links listFlag
	fs.Var(&sites, "site", "NAME=HOST,HOST,... (repeatable)")
	fs.Var(&links, "link", "A-B,DELAY,RATE: one-way delay and bytes/s between sites A and B (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	t, err := ParseTopology(sites, links)
	if err != nil {
		return err
	}
	g, err := Start(t)
	if err != nil {
		return err
	}
	defer g.Close()
	dir, err := os.MkdirTemp("", g.prefix+"-bin-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ssh := filepath.Join(dir, "emussh")
	if err := g.WriteSSH(ssh); err != nil {
		return err
	}
	first := g.order[0].name
	for _, h := range g.order {
		fmt.Fprintf(os.Stderr, "emu: host %-12s %-12s site %-8s netns %s\n", h.name, h.addr, g.sites[h.site].name, h.proc.netns)
	}
	fmt.Fprintf(os.Stderr, "emu: running in %s; \"emussh HOST [COMMAND]\" reaches the others\n", first)
	cmdline := fs.Args()
	if len(cmdline) == 0 {
		cmdline = []string{os.Getenv("SHELL"), "-i"}
		if cmdline[0] == "" {
			cmdline[0] = "/bin/sh"
		}
	}
	cmd := g.Command(first, cmdline[0], cmdline[1:]...)
	cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), "GMPI_EMU_SSH="+ssh)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	signal.Ignore(syscall.SIGINT, syscall.SIGQUIT) // the command's business
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return fmt.Errorf("%s: %v", cmdline[0], err)
	}
	return err
}
