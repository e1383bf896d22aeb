// Command mpicc compiles and links C programs against gmpi.
//
// It runs the C compiler named by GMPI_CC, else MPICH_CC, else "cc" (the
// cross compiler for a cross mpicc, see DefaultCC), with
// the user's arguments followed by -I<prefix>/include and, when the
// command links, -L<prefix>/lib -Wl,-rpath,<prefix>/lib -lmpi -lpthread.
// The prefix is the directory above the one holding the mpicc binary
// (symlinks resolved), so the same binary works from build/bin and from
// an install prefix.
//
// Options of its own, as MPICH's mpicc has them:
//
//	-show            print the command instead of running it
//	-compile-info    print the compile command (compiler and -I flags)
//	-link-info       print the link command (compiler, -I, -L and -l flags)
//	-cc=<compiler>   use this compiler for this call
//	-v               print the gmpi version, then run the compiler with -v
//	--abi=<abi>      build for one of gmpi's ABI fronts: mpich (the default,
//	                 <prefix>/include and -lmpi), openmpi (Open MPI 4.x's ABI:
//	                 <prefix>/openmpi/include, <prefix>/openmpi/lib/libmpi.so.40)
//	                 or standard (the MPI-5 ABI: <prefix>/abi/include, -lmpi_abi)
//
// Without --abi the name it is called by chooses: mpicc_abi means the
// standard ABI (MPICH's name for it), a mpicc in <dir>/openmpi/bin the
// Open MPI ABI (build/openmpi/bin/mpicc is a link to build/bin/mpicc).
//
// -c, -E, -S, -M and -MM mean no link step, so no link flags are added.
// Everything else goes to the compiler unchanged. mpicc exits with the
// compiler's exit status.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"gmpi/runtime/param"
)

// Version is gmpi's version, printed by -v. Release builds may set it
// with -ldflags "-X main.Version=...".
var Version = "0.1.0"

// DefaultCC is the compiler when the environment names none; a cross
// mpicc (make cross ARCH=s390x) is built with -ldflags
// "-X main.DefaultCC=s390x-linux-gnu-gcc".
var DefaultCC = "cc"

func main() {
	prefix, err := installPrefix()
	if err != nil {
		fmt.Fprintf(os.Stderr, "mpicc: cannot find the gmpi prefix: %v\n", err)
		os.Exit(1)
	}
	params, err := param.Env()
	if err != nil {
		fmt.Fprintf(os.Stderr, "mpicc: %v\n", err)
		os.Exit(1)
	}
	inv, err := parse(os.Args[1:], params, prefix, abiByName(os.Args[0]))
	if err != nil {
		fmt.Fprintf(os.Stderr, "mpicc: %v\n", err)
		os.Exit(1)
	}
	if inv.version {
		fmt.Printf("mpicc for gmpi version %s\n", Version)
	}
	if inv.show {
		fmt.Println(shellJoin(inv.argv))
		return
	}
	os.Exit(run(inv.argv))
}

// installPrefix returns the directory above the one that holds this
// binary, following symlinks.
func installPrefix() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	exe, err = filepath.EvalSymlinks(exe)
	if err != nil {
		return "", err
	}
	return filepath.Dir(filepath.Dir(exe)), nil
}

// abiByName is the ABI front the name mpicc was called by asks for.
func abiByName(arg0 string) string {
	if filepath.Base(arg0) == "mpicc_abi" {
		return "standard"
	}
	if abs, err := filepath.Abs(arg0); err == nil && filepath.Base(filepath.Dir(filepath.Dir(abs))) == "openmpi" {
		return "openmpi"
	}
	return "mpich"
}

// abiDirs returns the include and library directories and the library
// name of an ABI front under prefix.
func abiDirs(abi, prefix string) (inc, lib, name string, err error) {
	switch abi {
	case "mpich", "":
		return filepath.Join(prefix, "include"), filepath.Join(prefix, "lib"), "mpi", nil
	case "openmpi", "ompi":
		return filepath.Join(prefix, "openmpi", "include"), filepath.Join(prefix, "openmpi", "lib"), "mpi", nil
	case "standard", "abi", "mpi-abi":
		return filepath.Join(prefix, "abi", "include"), filepath.Join(prefix, "abi", "lib"), "mpi_abi", nil
	}
	return "", "", "", fmt.Errorf("unknown ABI %q (mpich, openmpi or standard)", abi)
}

// run executes argv with the standard streams attached and returns the
// exit status to report.
func run(argv []string) int {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if code := ee.ExitCode(); code >= 0 {
			return code
		}
		return 1 // killed by a signal
	}
	fmt.Fprintf(os.Stderr, "mpicc: %v\n", err)
	return 127
}

// invocation is what one mpicc call does: print or run argv.
type invocation struct {
	argv    []string // the compiler command, compiler first
	show    bool     // print argv instead of running it
	version bool     // print gmpi's version first
	linking bool     // argv links (and so carries the link flags)
}

// compiler returns the compiler command (possibly several words, such as
// "ccache gcc") chosen by the environment (GMPI_CC, else MPICH_CC).
func compiler(p *param.Values) []string {
	for _, v := range []param.P[string]{param.CC, param.MPICHCC} {
		if f := strings.Fields(v.Get(p)); len(f) > 0 {
			return f
		}
	}
	return []string{DefaultCC}
}

// parse turns mpicc's arguments into the command to run; p holds the
// environment's tunables.
func parse(args []string, p *param.Values, prefix, abi string) (invocation, error) {
	inv := invocation{linking: true}
	cc := compiler(p)
	var info string // "", "compile" or "link"
	var user []string
	for _, a := range args {
		switch {
		case a == "-show":
			inv.show = true
		case a == "-compile-info" || a == "-compile_info":
			inv.show, info = true, "compile"
		case a == "-link-info" || a == "-link_info":
			inv.show, info = true, "link"
		case strings.HasPrefix(a, "-cc="):
			cc = strings.Fields(strings.TrimPrefix(a, "-cc="))
			if len(cc) == 0 {
				return inv, errors.New("-cc= needs a compiler")
			}
		case strings.HasPrefix(a, "--abi=") || strings.HasPrefix(a, "-abi="):
			abi = a[strings.IndexByte(a, '=')+1:]
		case a == "-v":
			inv.version = true
			user = append(user, a)
		default:
			switch a {
			case "-c", "-E", "-S", "-M", "-MM":
				inv.linking = false
			}
			user = append(user, a)
		}
	}
	// "mpicc -v" alone asks for versions, not for a link of nothing.
	if inv.version && len(user) == 1 {
		inv.linking = false
	}
	inc, lib, name, err := abiDirs(abi, prefix)
	if err != nil {
		return inv, err
	}
	compileFlags := []string{"-I" + inc}
	linkFlags := []string{"-L" + lib, "-Wl,-rpath," + lib, "-l" + name, "-lpthread"}

	inv.argv = append(inv.argv, cc...)
	switch info {
	case "compile":
		inv.argv = append(inv.argv, compileFlags...)
		inv.linking = false
		return inv, nil
	case "link":
		inv.argv = append(inv.argv, compileFlags...)
		inv.argv = append(inv.argv, linkFlags...)
		inv.linking = true
		return inv, nil
	}
	inv.argv = append(inv.argv, user...)
	inv.argv = append(inv.argv, compileFlags...)
	if inv.linking {
		inv.argv = append(inv.argv, linkFlags...)
	}
	return inv, nil
}

// shellJoin renders argv so that a shell would split it back the same way.
func shellJoin(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = shellQuote(a)
	}
	return strings.Join(out, " ")
}

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			strings.ContainsRune("-_./=,:+@%", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
