package emu

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// HelperArg is the first argument with which Start re-executes the
// program (Topology.Helper) to run the router and the host holders. The
// program must hand such a run to HelperMain before doing anything else:
//
//	if len(os.Args) > 1 && os.Args[1] == emu.HelperArg {
//		os.Exit(emu.HelperMain(os.Args[2:]))
//	}
const HelperArg = "__emu-helper"

// HelperMain runs one of the emulator's helper processes ("router" or
// "host", args[0]), or the standalone "shell" (see shellMain), and
// returns its exit status.
func HelperMain(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "emu: helper: no role given")
		return 2
	}
	var err error
	switch args[0] {
	case "router":
		err = routerMain(args[1:])
	case "host":
		err = hostMain(args[1:])
	case "shell":
		err = shellMain(args[1:])
	default:
		err = fmt.Errorf("unknown role %q", args[0])
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "emu: %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

// hostMain is the holder of an emulated host's namespaces. It was started
// in new network, UTS and mount namespaces; it gives them the host's
// identity, says "ready" and waits for its stdin to close.
func hostMain(args []string) error {
	fs := flag.NewFlagSet("host", flag.ContinueOnError)
	name := fs.String("name", "", "host name")
	hosts := fs.String("hosts", "", "file to bind-mount on /etc/hosts")
	resolv := fs.String("resolv", "", "file to bind-mount on /etc/resolv.conf")
	bootID := fs.String("boot-id", "", "file to bind-mount on /proc/sys/kernel/random/boot_id")
	var hide listFlag
	fs.Var(&hide, "hide", "directory to hide under an empty read-only tmpfs (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := unix.Sethostname([]byte(*name)); err != nil {
		return fmt.Errorf("sethostname: %w", err)
	}
	// Nothing mounted here may propagate back to the caller's namespace.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making mounts private: %w", err)
	}
	// Copies of other namespaces' ip-netns names would keep those
	// namespaces alive as long as this one.
	for _, m := range mountPoints() {
		if strings.HasPrefix(m, "/run/netns/") || strings.HasPrefix(m, "/var/run/netns/") {
			unix.Unmount(m, unix.MNT_DETACH)
		}
	}
	if err := unix.Mount(*hosts, "/etc/hosts", "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind-mounting /etc/hosts: %w", err)
	}
	bindOver(*resolv, "/etc/resolv.conf") // optional: only makes failed lookups fast
	if err := unix.Mount(*bootID, "/proc/sys/kernel/random/boot_id", "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind-mounting boot_id: %w", err)
	}
	// Directories of file systems this host's machine does not see.
	for _, d := range hide {
		if err := unix.Mount("gmpi-unseen", d, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0755"); err != nil {
			return fmt.Errorf("hiding %s: %w", d, err)
		}
	}
	// /sys of this network namespace (what "ip netns exec" does).
	unix.Unmount("/sys", unix.MNT_DETACH)
	if err := unix.Mount(*name, "/sys", "sysfs", 0, ""); err != nil {
		return fmt.Errorf("mounting sysfs: %w", err)
	}
	unix.Mount("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, "") // for hwloc and friends; optional
	// One TCP flow must be able to fill the bandwidth-delay product;
	// IPv6 stays on lo only.
	for _, s := range [][2]string{
		{"net/ipv4/tcp_rmem", "4096 131072 33554432"},
		{"net/ipv4/tcp_wmem", "4096 16384 33554432"},
		{"net/ipv6/conf/default/disable_ipv6", "1"},
	} {
		if err := writeSysctl(s[0], s[1]); err != nil {
			return err
		}
	}
	return serveUntilEOF(nil)
}

// serveUntilEOF says "ready" on stdout, then runs loop (if any) or waits
// until stdin reaches its end (the parent closed it or died).
func serveUntilEOF(loop func() error) error {
	if _, err := os.Stdout.WriteString("ready\n"); err != nil {
		return err
	}
	if loop != nil {
		return loop()
	}
	io.Copy(io.Discard, os.Stdin)
	return nil
}

func writeSysctl(key, value string) error {
	if err := os.WriteFile("/proc/sys/"+key, []byte(value), 0); err != nil {
		return fmt.Errorf("sysctl %s: %w", strings.ReplaceAll(key, "/", "."), err)
	}
	return nil
}

// mountPoints lists this process's mount points, deepest last.
func mountPoints() []string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	defer f.Close()
	var mps []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) > 4 {
			mps = append(mps, unescapeMount(fields[4]))
		}
	}
	return mps
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var c byte
			if _, err := fmt.Sscanf(s[i+1:i+4], "%3o", &c); err == nil {
				b.WriteByte(c)
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// bindOver bind-mounts file on target, replacing a symbolic link at
// target (resolv.conf often is one) by the target it points to.
func bindOver(file, target string) error {
	if real, err := filepath.EvalSymlinks(target); err == nil {
		target = real
	}
	if err := unix.Mount(file, target, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind-mounting %s: %w", target, err)
	}
	return nil
}
