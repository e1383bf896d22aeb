package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gmpi/mpirun/grid"
)

// TestArchProgram: a machine of this computer's architecture runs the
// program (or its executable); another architecture runs PROG.ARCH,
// through qemu-ARCH-static when installed, and a missing program or
// emulator is an error naming it.
func TestArchProgram(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "prog")
	argv := []string{prog, "-x"}
	local := grid.Launcher{Kind: grid.Local}
	s := slot{machine: "m", launcher: local}
	if got, err := archProgram(&s, argv); err != nil || strings.Join(got, " ") != prog+" -x" {
		t.Errorf("same arch: %v %v", got, err)
	}
	s.arch = hostArch()
	s.executable = "/bin/true"
	if got, err := archProgram(&s, argv); err != nil || strings.Join(got, " ") != "/bin/true -x" {
		t.Errorf("executable: %v %v", got, err)
	}
	other := "s390x"
	if canonArch(hostArch()) == "s390x" {
		other = "x86_64"
	}
	s = slot{machine: "z", arch: other, launcher: local}
	if _, err := archProgram(&s, argv); err == nil || !strings.Contains(err.Error(), prog+"."+other) {
		t.Errorf("missing PROG.ARCH: %v", err)
	}
	if err := os.WriteFile(prog+"."+other, []byte("#!/bin/true\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := archProgram(&s, argv)
	if q, lerr := exec.LookPath("qemu-" + other + "-static"); lerr != nil {
		if err == nil || !strings.Contains(err.Error(), "qemu-user-static") {
			t.Errorf("no qemu: %v %v", got, err)
		}
	} else if _, serr := os.Stat("/usr/" + other + "-linux-gnu"); serr == nil {
		if err != nil || strings.Join(got, " ") != q+" -L /usr/"+other+"-linux-gnu "+prog+"."+other+" -x" {
			t.Errorf("qemu: %v %v", got, err)
		}
	}
	// ssh machines run PROG.ARCH natively, where ssh logs in.
	s.launcher = grid.Launcher{Kind: grid.SSH}
	if got, err := archProgram(&s, argv); err != nil || got[0] != prog+"."+other {
		t.Errorf("ssh: %v %v", got, err)
	}
}
