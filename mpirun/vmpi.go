package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"gmpi/devices/vmpi/vendorlib"
	"gmpi/mpirun/grid"
	"gmpi/runtime/param"
)

// Vendor MPI machines (vMPI). The ranks of a grid machine with a vendor
// MPI are started together by the vendor's launcher, so that they form one
// vendor job (the vmpi device carries their traffic over the vendor's
// point-to-point calls), and still join the gmpi job:
//
//	mpirun ── LAUNCHER [vendor options] -n K  mpirun __vmpi-exec  PROG ARGS
//	                     └─ K × (mpirun __vmpi-exec → exec PROG)
//
// The vendor launcher runs where the machine's host is (on this computer,
// or in the emulated host's namespaces with --emulate); the vendor's
// processes cannot inherit a PMI socket (vendor launchers close extra
// descriptors), so they reach mpirun's PMI server over a Unix socket in a
// private directory (network namespaces do not separate Unix sockets that
// have a path) and prove the job secret first, like ssh-started ranks.
// __vmpi-exec finds the process's vendor rank in the launcher's
// variables (OMPI_COMM_WORLD_RANK, or PMI_RANK under MPICH's hydra),
// makes it the gmpi rank GMPI_VMPI_RANKS lists at that index, moves the
// vendor launcher's own PMI variables aside (GMPI_VMPI_ENV; the vmpi
// device restores them before it initializes the vendor) and execs the
// program.
//
// mpirun supervises the vendor launcher as the process of all K ranks:
// its exit is each of theirs.

// vmpiExecArg is the first argument of mpirun's vendor-rank wrapper.
const vmpiExecArg = "__vmpi-exec"

// vendorGroup is the ranks of one vendor MPI machine.
type vendorGroup struct {
	machine  string
	host     string
	lib      string
	abi      vendorlib.ABI
	launcher []string // the vendor launcher's command words
	ranks    []int
}

// vendorGroups gathers the vendor MPI machines of the grid into
// j.slots[r].group.
func (j *job) vendorGroups(g *grid.Grid) {
	groups := map[*grid.Machine]*vendorGroup{}
	for r, rk := range g.Ranks() {
		m := rk.Host.Machine
		if m.VMPI == nil {
			continue
		}
		vg := groups[m]
		if vg == nil {
			vg = &vendorGroup{machine: m.Name, host: rk.Host.Name, lib: m.VMPI.Lib, launcher: strings.Fields(m.VMPI.Launcher)}
			if len(vg.launcher) == 0 {
				vg.launcher = []string{"mpiexec"}
			}
			groups[m] = vg
		}
		vg.ranks = append(vg.ranks, r)
		j.slots[r].group = vg
	}
}

// checkVendors refuses, before anything starts, a vendor MPI machine that
// cannot run: a library that cannot be loaded, lacks a symbol the device
// needs or has an ABI gmpi does not know, a launcher that is not found, a
// machine of several hosts or started remotely.
func (j *job) checkVendors() error {
	seen := map[*vendorGroup]bool{}
	for i := range j.slots {
		vg := j.slots[i].group
		if vg == nil || seen[vg] {
			continue
		}
		seen[vg] = true
		abi, err := vendorlib.Inspect(vg.lib)
		if err != nil {
			return fmt.Errorf("machine %s: vendor MPI: %v; nothing started", vg.machine, err)
		}
		vg.abi = abi
		for _, r := range vg.ranks {
			if j.slots[r].host != vg.host {
				return fmt.Errorf("machine %s: a vendor MPI machine of more than one host (%s, %s) is not supported yet; nothing started", vg.machine, vg.host, j.slots[r].host)
			}
		}
		if j.emu == nil && j.slots[vg.ranks[0]].launcher.Kind != grid.Local {
			return fmt.Errorf("machine %s: a vendor MPI machine is started by its vendor's launcher on this computer (launcher %q is not supported for it yet); nothing started", vg.machine, launcherName(j.slots[vg.ranks[0]].launcher))
		}
		if _, err := exec.LookPath(vg.launcher[0]); err != nil {
			return fmt.Errorf("machine %s: vendor MPI launcher: %v; nothing started", vg.machine, err)
		}
	}
	return nil
}

// vendorCommand is the argv that starts vendor group vg: the vendor's
// launcher around mpirun's wrapper around the program.
func (j *job) vendorCommand(vg *vendorGroup, prog, env []string) ([]string, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	argv := append([]string{}, vg.launcher...)
	n := strconv.Itoa(len(vg.ranks))
	switch vg.abi {
	case vendorlib.OpenMPI:
		// Root is allowed (tests run as root); the shared-memory transport
		// only; its run-time channel on loopback (an emulated host has no
		// other interface it may use for that); no binding (gmpi's
		// ranks share the CPUs with other jobs).
		argv = append(argv, "--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
			"--mca", "btl", "self,vader", "--mca", "pml", "ob1", "--mca", "oob_tcp_if_include", "lo", "-np", n)
		for _, kv := range env {
			if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GMPI_") || strings.HasPrefix(k, "MPI_LOCAL") {
				argv = append(argv, "-x", k)
			}
		}
	default: // MPICH's hydra passes the whole environment on
		argv = append(argv, "-genvall", "-n", n)
	}
	argv = append(argv, self, vmpiExecArg)
	return lookPath(append(argv, prog...))
}

// vendorEnv is what the vendor launcher's environment adds to the group's
// first rank's: where PMI is, the gmpi ranks and local ranks in vendor
// rank order, the library.
func (j *job) vendorEnv(vg *vendorGroup) []string {
	var ranks, locals []string
	for _, r := range vg.ranks {
		ranks = append(ranks, strconv.Itoa(r))
		locals = append(locals, strconv.Itoa(j.slots[r].localRank))
	}
	return []string{
		"GMPI_VMPI_PMI=" + j.pmiUnix,
		"GMPI_VMPI_RANKS=" + strings.Join(ranks, ","),
		"GMPI_VMPI_LOCAL=" + strings.Join(locals, ","),
		"GMPI_VMPI_LIB=" + vg.lib,
	}
}

// vendorLauncherEnv is the vendor launcher's environment: rank's (the
// group's first), without PMI variables (the launcher is a PMI server of
// its own), with vendorEnv's.
func (j *job) vendorLauncherEnv(vg *vendorGroup, rank, app int) []string {
	var env []string
	for _, kv := range j.rankEnv(rank, app) {
		if !strings.HasPrefix(kv, "PMI_") {
			env = append(env, kv)
		}
	}
	return append(env, j.vendorEnv(vg)...)
}

// listenPMIUnix opens the Unix PMI socket of vendor-launched ranks.
func (j *job) listenPMIUnix() error {
	dir, err := os.MkdirTemp("", "gmpi-"+j.jobID+"-")
	if err != nil {
		return fmt.Errorf("PMI socket: %w", err)
	}
	path := filepath.Join(dir, "pmi")
	l, err := net.Listen("unix", path)
	if err != nil {
		os.RemoveAll(dir)
		return fmt.Errorf("PMI socket: %w", err)
	}
	j.pmiUnix, j.pmiUnixDir = path, dir
	j.vlogf("PMI over Unix socket %s", path)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go j.servePMIConn(c)
		}
	}()
	j.pmiUnixClose = func() { l.Close(); os.RemoveAll(dir) }
	return nil
}

// vendorPMIVars are the PMI variables a vendor launcher may set for its
// own processes (hydra: PMI_FD, PMI_RANK, PMI_SIZE; or PMI_PORT/PMI_ID).
var vendorPMIVars = []string{"PMI_FD", "PMI_PORT", "PMI_ID", "PMI_RANK", "PMI_SIZE", "PMI_SPAWNED"}

// vmpiExecMain is the wrapper a vendor launcher starts (see the top of
// this file). It returns only on failure.
func vmpiExecMain(args []string) int {
	fail := func(f string, a ...any) int {
		fmt.Fprintf(os.Stderr, "mpirun %s: "+f+"\n", append([]any{vmpiExecArg}, a...)...)
		return 127
	}
	if len(args) == 0 {
		return fail("no program")
	}
	vs := os.Getenv("OMPI_COMM_WORLD_RANK")
	if vs == "" {
		vs = os.Getenv("PMI_RANK")
	}
	vr, err := strconv.Atoi(vs)
	rs, _ := param.VMPIRanks.Env()
	ls, _ := param.VMPILocal.Env()
	pmiSock, _ := param.VMPIPMI.Env()
	ranks, locals := strings.Split(rs, ","), strings.Split(ls, ",")
	if err != nil || vr < 0 || vr >= len(ranks) || len(locals) != len(ranks) {
		return fail("vendor rank %q does not name one of the ranks %q (was this started by the vendor's launcher?)", vs, ranks)
	}
	var saved []string
	for _, k := range vendorPMIVars {
		if v, ok := os.LookupEnv(k); ok {
			saved = append(saved, k+"="+v)
			os.Unsetenv(k)
		}
	}
	set := map[string]string{
		"PMI_PORT": pmiSock, "PMI_ID": ranks[vr], "PMI_RANK": ranks[vr],
		"GMPI_PMI_AUTH": "1", "GMPI_LOCAL_RANK": locals[vr], "MPI_LOCALRANKID": locals[vr],
		"GMPI_VMPI_ENV": strings.Join(saved, "\n"),
	}
	for k, v := range set {
		os.Setenv(k, v)
	}
	path, err := exec.LookPath(args[0])
	if err != nil {
		return fail("%v", err)
	}
	err = syscall.Exec(path, args, os.Environ())
	return fail("exec %s: %v", path, err)
}
