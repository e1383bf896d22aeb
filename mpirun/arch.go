package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"gmpi/mpirun/grid"

	"golang.org/x/sys/unix"
)

// Machines of another architecture (issue 21): a grid machine with
// `arch` other than this computer's runs `executable`, or the program's
// path with ".ARCH" appended; when this computer cannot run that
// architecture, through qemu-ARCH-static (Debian's qemu-user-static)
// with the cross sysroot /usr/ARCH-linux-gnu.

// hostArch is this computer's architecture as uname -m prints it.
func hostArch() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Machine[:])
}

// archAliases are names of one architecture.
var archAliases = map[string]string{"amd64": "x86_64", "arm64": "aarch64", "i386": "i686"}

func canonArch(a string) string {
	if c, ok := archAliases[a]; ok {
		return c
	}
	return a
}

// archProgram is the argv a slot's process runs for the program argv:
// argv itself on a machine of this computer's architecture (or its
// `executable`), else the machine's executable or PROG.ARCH, behind
// qemu-ARCH-static when the architecture is not this computer's (and the
// machine's launcher runs it here: ssh machines run theirs natively). It
// fails, naming what is missing, when that program or the emulator is
// not there.
func archProgram(s *slot, argv []string) ([]string, error) {
	if len(argv) == 0 {
		return argv, nil
	}
	host := canonArch(hostArch())
	if s.arch == "" || canonArch(s.arch) == host {
		if s.executable != "" {
			return append([]string{s.executable}, argv[1:]...), nil
		}
		return argv, nil
	}
	exe := s.executable
	if exe == "" {
		prog := argv[0]
		if !strings.Contains(prog, "/") {
			if p, err := exec.LookPath(prog); err == nil {
				prog = p
			}
		}
		exe = prog + "." + s.arch
	}
	if s.launcher.Kind == grid.SSH {
		// The machine itself runs it, natively, where ssh logs in.
		return append([]string{exe}, argv[1:]...), nil
	}
	if fi, err := os.Stat(exe); err != nil || fi.IsDir() {
		return nil, fmt.Errorf("machine %s (arch %s): its program %s is missing (build it for %s, e.g. with build/%s/bin/mpicc from `make cross ARCH=%s`, or set the machine's executable)",
			s.machine, s.arch, exe, s.arch, s.arch, s.arch)
	}
	out := append([]string{exe}, argv[1:]...)
	qemu := "qemu-" + s.arch + "-static"
	path, err := exec.LookPath(qemu)
	if err != nil {
		return nil, fmt.Errorf("machine %s (arch %s): this %s computer runs %s programs only through %s (Debian package qemu-user-static), which is not installed",
			s.machine, s.arch, host, s.arch, qemu)
	}
	sysroot := filepath.Join("/usr", s.arch+"-linux-gnu")
	if _, err := os.Stat(sysroot); err != nil {
		return nil, fmt.Errorf("machine %s (arch %s): the cross sysroot %s is missing (Debian package libc6-dev-%s-cross)",
			s.machine, s.arch, sysroot, debArch(s.arch))
	}
	return append([]string{path, "-L", sysroot}, out...), nil
}

// debArch is Debian's name of an architecture (package names).
func debArch(a string) string {
	switch canonArch(a) {
	case "x86_64":
		return "amd64"
	case "aarch64":
		return "arm64"
	}
	return a
}
