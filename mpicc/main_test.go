package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gmpi/runtime/param"
)

func env(m map[string]string) *param.Values {
	p, err := param.Map(m)
	if err != nil {
		panic(err)
	}
	return p
}

func TestParse(t *testing.T) {
	const p = "/opt/gmpi"
	inc := "-I/opt/gmpi/include"
	link := []string{"-L/opt/gmpi/lib", "-Wl,-rpath,/opt/gmpi/lib", "-lmpi", "-lpthread"}
	cat := func(parts ...any) []string {
		var out []string
		for _, x := range parts {
			switch v := x.(type) {
			case string:
				out = append(out, v)
			case []string:
				out = append(out, v...)
			}
		}
		return out
	}
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		argv    []string
		show    bool
		linking bool
		version bool
	}{
		{name: "link", args: []string{"a.c", "-o", "a"},
			argv: cat("cc", "a.c", "-o", "a", inc, link), linking: true},
		{name: "compile only", args: []string{"-c", "a.c", "-o", "a.o"},
			argv: cat("cc", "-c", "a.c", "-o", "a.o", inc)},
		{name: "preprocess", args: []string{"-E", "a.c"}, argv: cat("cc", "-E", "a.c", inc)},
		{name: "assemble", args: []string{"-S", "a.c"}, argv: cat("cc", "-S", "a.c", inc)},
		{name: "deps", args: []string{"-M", "a.c"}, argv: cat("cc", "-M", "a.c", inc)},
		{name: "deps MM", args: []string{"-MM", "a.c"}, argv: cat("cc", "-MM", "a.c", inc)},
		{name: "MD still links", args: []string{"-MD", "a.c"},
			argv: cat("cc", "-MD", "a.c", inc, link), linking: true},
		{name: "show", args: []string{"-show", "a.c"},
			argv: cat("cc", "a.c", inc, link), show: true, linking: true},
		{name: "show compile", args: []string{"-show", "-c", "a.c"},
			argv: cat("cc", "-c", "a.c", inc), show: true},
		{name: "compile-info", args: []string{"-compile-info"},
			argv: cat("cc", inc), show: true},
		{name: "link-info", args: []string{"-link-info"},
			argv: cat("cc", inc, link), show: true, linking: true},
		{name: "link_info spelling", args: []string{"-link_info", "ignored.c"},
			argv: cat("cc", inc, link), show: true, linking: true},
		{name: "GMPI_CC wins", args: []string{"a.c"},
			env:  map[string]string{"GMPI_CC": "clang", "MPICH_CC": "gcc"},
			argv: cat("clang", "a.c", inc, link), linking: true},
		{name: "MPICH_CC", args: []string{"a.c"}, env: map[string]string{"MPICH_CC": "gcc-12"},
			argv: cat("gcc-12", "a.c", inc, link), linking: true},
		{name: "compiler with words", args: []string{"-c", "a.c"},
			env:  map[string]string{"GMPI_CC": "ccache gcc"},
			argv: cat("ccache", "gcc", "-c", "a.c", inc)},
		{name: "-cc= overrides env", args: []string{"-cc=tcc", "-c", "a.c"},
			env:  map[string]string{"GMPI_CC": "clang"},
			argv: cat("tcc", "-c", "a.c", inc)},
		{name: "version alone", args: []string{"-v"},
			argv: cat("cc", "-v", inc), version: true},
		{name: "version with build", args: []string{"-v", "a.c"},
			argv: cat("cc", "-v", "a.c", inc, link), version: true, linking: true},
		{name: "pass through", args: []string{"-O2", "-Wall", "-DX=1", "a.c", "-lm"},
			argv: cat("cc", "-O2", "-Wall", "-DX=1", "a.c", "-lm", inc, link), linking: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inv, err := parse(tc.args, env(tc.env), p, "mpich")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(inv.argv, tc.argv) {
				t.Errorf("argv\n got %q\nwant %q", inv.argv, tc.argv)
			}
			if inv.show != tc.show || inv.linking != tc.linking || inv.version != tc.version {
				t.Errorf("show/linking/version = %v/%v/%v, want %v/%v/%v",
					inv.show, inv.linking, inv.version, tc.show, tc.linking, tc.version)
			}
		})
	}
}

func TestParseEmptyCC(t *testing.T) {
	if _, err := parse([]string{"-cc="}, env(nil), "/p", "mpich"); err == nil {
		t.Error("-cc= with no compiler: want an error")
	}
}

func TestShellJoin(t *testing.T) {
	got := shellJoin([]string{"cc", "-DMSG=hello world", "it's", "", "-I/a/b"})
	want := `cc '-DMSG=hello world' 'it'\''s' '' -I/a/b`
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// buildMpicc builds this command into dir/bin/mpicc.
func buildMpicc(t *testing.T, dir string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(dir, "bin", "mpicc")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestBinaryShow runs the real binary with -show, through a symlink in
// another directory, and checks that the prefix is the one above the
// binary's real directory.
func TestBinaryShow(t *testing.T) {
	dir := t.TempDir()
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(dir, "prefix")
	bin := buildMpicc(t, prefix)
	link := filepath.Join(dir, "elsewhere", "mpicc")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	for _, exe := range []string{bin, link} {
		cmd := exec.Command(exe, "-show", "x.c", "-o", "x")
		cmd.Env = append(os.Environ(), "GMPI_CC=gcc")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s -show: %v", exe, err)
		}
		want := "gcc x.c -o x -I" + prefix + "/include -L" + prefix + "/lib -Wl,-rpath," +
			prefix + "/lib -lmpi -lpthread"
		if got := strings.TrimSpace(string(out)); got != want {
			t.Errorf("%s -show:\n got %s\nwant %s", exe, got, want)
		}
	}
}

// TestBinaryExitStatus checks that mpicc returns the compiler's status and
// that -v prints the gmpi version.
func TestBinaryExitStatus(t *testing.T) {
	dir := t.TempDir()
	bin := buildMpicc(t, dir)
	script := filepath.Join(dir, "fakecc")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho fakecc \"$@\"\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-c", "x.c")
	cmd.Env = append(os.Environ(), "GMPI_CC="+script)
	out, err := cmd.Output()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 3 {
		t.Fatalf("exit: %v, want status 3", err)
	}
	if !strings.Contains(string(out), "fakecc -c x.c -I") {
		t.Errorf("compiler not run with the arguments: %q", out)
	}

	cmd = exec.Command(bin, "-v")
	cmd.Env = append(os.Environ(), "GMPI_CC="+script)
	out, _ = cmd.Output()
	if !strings.Contains(string(out), "gmpi version "+Version) || !strings.Contains(string(out), "fakecc -v") {
		t.Errorf("-v output %q: want the gmpi version then the compiler's -v", out)
	}

	cmd = exec.Command(bin, "x.c")
	cmd.Env = append(os.Environ(), "GMPI_CC="+filepath.Join(dir, "no-such-cc"))
	if err := cmd.Run(); err == nil {
		t.Error("a missing compiler must fail")
	}
}

func TestParseABI(t *testing.T) {
	for _, tc := range []struct {
		by, flag, inc, lib, l string
	}{
		{"mpich", "", "/p/include", "/p/lib", "-lmpi"},
		{"openmpi", "", "/p/openmpi/include", "/p/openmpi/lib", "-lmpi"},
		{"mpich", "--abi=openmpi", "/p/openmpi/include", "/p/openmpi/lib", "-lmpi"},
		{"standard", "", "/p/abi/include", "/p/abi/lib", "-lmpi_abi"},
		{"openmpi", "--abi=mpich", "/p/include", "/p/lib", "-lmpi"},
	} {
		args := []string{"a.c"}
		if tc.flag != "" {
			args = append([]string{tc.flag}, args...)
		}
		inv, err := parse(args, env(nil), "/p", tc.by)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"cc", "a.c", "-I" + tc.inc, "-L" + tc.lib, "-Wl,-rpath," + tc.lib, tc.l, "-lpthread"}
		if !reflect.DeepEqual(inv.argv, want) {
			t.Errorf("%s %s: argv %q, want %q", tc.by, tc.flag, inv.argv, want)
		}
	}
	if _, err := parse([]string{"--abi=lam", "a.c"}, env(nil), "/p", "mpich"); err == nil {
		t.Error("--abi=lam: want an error")
	}
	for arg0, want := range map[string]string{"/x/bin/mpicc": "mpich", "/x/bin/mpicc_abi": "standard",
		"/x/openmpi/bin/mpicc": "openmpi"} {
		if got := abiByName(arg0); got != want {
			t.Errorf("abiByName(%s) = %s, want %s", arg0, got, want)
		}
	}
}
