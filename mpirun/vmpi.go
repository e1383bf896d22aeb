package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"gmpi/devices/vmpi/vendorlib"
	"gmpi/mpirun/grid"
	"gmpi/runtime/auth"
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
//
// Output: a vendor launcher forwards its ranks' output its own way (hydra
// may join two ranks' lines), so __vmpi-exec does not keep the stdout and
// stderr the launcher gave it. It asks mpirun for the ones a rank of its
// own gets, over a second Unix socket beside the PMI one ("io": prove the
// job secret, send the gmpi rank, receive two descriptors with
// SCM_RIGHTS): mpirun's own stdout and stderr, or with --tag-output the
// write ends of the rank's pipes, forwarded line by line with its tag.
// The vendor launcher's own messages still come through its output.

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
		// Open MPI's launcher passes on only the variables named with
		// -x: gmpi's, and those the user named with -x.
		user := map[string]bool{}
		for _, kv := range j.opts.genv {
			k, _, _ := strings.Cut(kv, "=")
			user[k] = true
		}
		for _, a := range j.opts.apps {
			for _, kv := range a.env {
				k, _, _ := strings.Cut(kv, "=")
				user[k] = true
			}
		}
		for _, kv := range env {
			if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GMPI_") || strings.HasPrefix(k, "MPI_LOCAL") || user[k] {
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
	il, err := net.Listen("unix", filepath.Join(dir, "io"))
	if err != nil {
		l.Close()
		os.RemoveAll(dir)
		return fmt.Errorf("vendor ranks' output socket: %w", err)
	}
	j.pmiUnix, j.pmiUnixDir = path, dir
	j.vlogf("PMI over Unix socket %s", path)
	gate := auth.NewGate(0)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			gate.Enter(c)
			go j.servePMIConn(gate, c)
		}
	}()
	ioGate := auth.NewGate(0)
	go func() {
		for {
			c, err := il.Accept()
			if err != nil {
				return
			}
			ioGate.Enter(c)
			go j.serveVendorIO(ioGate, c.(*net.UnixConn))
		}
	}()
	j.pmiUnixClose = func() { l.Close(); il.Close(); os.RemoveAll(dir) }
	return nil
}

// vendorIO is what mpirun hands a vendor-launched rank as its stdout and
// stderr (see the top of this file).
type vendorIO struct {
	mu    sync.Mutex
	files map[int][2]*os.File // rank -> (stdout, stderr) not handed over yet
	owned bool                // the files are pipe ends of mpirun's (--tag-output): closed once handed over
}

// prepareVendorIO readies the output of vendor group vg's ranks: with
// --tag-output a pipe pair per rank forwarded like a rank of mpirun's own,
// else mpirun's own stdout and stderr.
func (j *job) prepareVendorIO(vg *vendorGroup) error {
	v := &j.vio
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.files == nil {
		v.files = map[int][2]*os.File{}
	}
	v.owned = j.opts.tagOutput
	for _, r := range vg.ranks {
		if !j.opts.tagOutput {
			v.files[r] = [2]*os.File{os.Stdout, os.Stderr}
			continue
		}
		var pair [2]*os.File
		var readers [2]*os.File
		for i := range pair {
			pr, pw, err := os.Pipe()
			if err != nil {
				for _, f := range append(pair[:i:i], readers[:i]...) {
					f.Close()
				}
				return err
			}
			readers[i], pair[i] = pr, pw
		}
		v.files[r] = pair
		p := j.procs[r]
		p.ioDone.Add(2)
		go j.forward(p, readers[0], false)
		go j.forward(p, readers[1], true)
	}
	return nil
}

// releaseVendorIO drops what rank r was never handed (its process ended
// first), so its forwarders see the end of their pipes.
func (j *job) releaseVendorIO(r int) {
	v := &j.vio
	v.mu.Lock()
	defer v.mu.Unlock()
	if f, ok := v.files[r]; ok {
		delete(v.files, r)
		if v.owned {
			f[0].Close()
			f[1].Close()
		}
	}
}

// vendorIOTimeout bounds one rank's output handoff.
const vendorIOTimeout = 10 * time.Second

// serveVendorIO hands one vendor-launched rank its stdout and stderr: the
// peer proves the job secret and names its rank ("RANK\n"); the answer is
// one byte carrying the two descriptors. A rank is served once.
func (j *job) serveVendorIO(gate *auth.Gate, c *net.UnixConn) {
	defer c.Close()
	if err := gate.Pass(c, []byte(j.secret), "vmpi-io", authTimeout(j.params)); err != nil {
		j.vlogf("refused output connection: %v", err)
		return
	}
	c.SetDeadline(time.Now().Add(vendorIOTimeout))
	line, err := bufioLine(c)
	if err != nil {
		j.vlogf("vendor rank output connection: %v", err)
		return
	}
	r, err := strconv.Atoi(line)
	v := &j.vio
	v.mu.Lock()
	defer v.mu.Unlock()
	f, ok := v.files[r]
	if err != nil || !ok {
		j.vlogf("vendor rank output connection: rank %q is not a vendor rank waiting for its output", line)
		return
	}
	if _, _, err := c.WriteMsgUnix([]byte{1}, unix.UnixRights(int(f[0].Fd()), int(f[1].Fd())), nil); err != nil {
		j.vlogf("rank %d: handing over its output: %v", r, err)
		return
	}
	delete(v.files, r)
	if v.owned {
		f[0].Close()
		f[1].Close()
	}
}

// bufioLine reads one short line ("\n" excluded) byte by byte, so that
// nothing after it is consumed.
func bufioLine(c net.Conn) (string, error) {
	var b []byte
	one := make([]byte, 1)
	for len(b) < 32 {
		if _, err := c.Read(one); err != nil {
			return "", err
		}
		if one[0] == '\n' {
			return string(b), nil
		}
		b = append(b, one[0])
	}
	return "", fmt.Errorf("line too long")
}

// vendorRankOutput replaces this process's stdout and stderr with the
// ones mpirun hands it over the "io" socket beside pmiSock.
func vendorRankOutput(pmiSock string, gmpiRank string) error {
	secret, _ := param.JobSecret.Env()
	nc, err := net.DialTimeout("unix", filepath.Join(filepath.Dir(pmiSock), "io"), vendorIOTimeout)
	if err != nil {
		return err
	}
	c := nc.(*net.UnixConn)
	defer c.Close()
	if err := auth.Handshake(c, []byte(secret), true, "vmpi-io", vendorIOTimeout); err != nil {
		return err
	}
	c.SetDeadline(time.Now().Add(vendorIOTimeout))
	if _, err := c.Write([]byte(gmpiRank + "\n")); err != nil {
		return err
	}
	buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(2*4))
	n, oobn, _, _, err := c.ReadMsgUnix(buf, oob)
	if err != nil {
		return err
	}
	var fds []int
	if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
		for _, m := range msgs {
			if got, err := unix.ParseUnixRights(&m); err == nil {
				fds = append(fds, got...)
			}
		}
	}
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	if n != 1 || len(fds) != 2 {
		return fmt.Errorf("mpirun did not hand over the output (rank %s)", gmpiRank)
	}
	for i, fd := range fds {
		if err := unix.Dup3(fd, 1+i, 0); err != nil {
			return err
		}
	}
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
	if err := vendorRankOutput(pmiSock, ranks[vr]); err != nil {
		return fail("rank %s: taking over its output from mpirun: %v", ranks[vr], err)
	}
	path, err := exec.LookPath(args[0])
	if err != nil {
		return fail("%v", err)
	}
	err = syscall.Exec(path, args, os.Environ())
	return fail("exec %s: %v", path, err)
}
