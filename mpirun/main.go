// Command mpirun (also installed as mpiexec) launches the processes of a
// gmpi job - on this host, on the hosts of -H/--hostfile, or as a grid
// file places them (--grid; see launch.go for the launchers) - and is
// their PMI-1 server.
//
// Each rank is started in its own process group with:
//
//	fd 3                 one end of a socketpair to mpirun's PMI server
//	PMI_FD=3             PMI-1 "simple" protocol over that fd
//	PMI_PORT, PMI_ID     instead of PMI_FD for ranks started where no fd can
//	                     be inherited (ssh): mpirun's TCP PMI port and the rank
//	GMPI_PMI_AUTH=1      with PMI_PORT: authenticate with the job secret first
//	GMPI_JOB_SECRET      the job's random secret (hex); every TCP connection of
//	                     the job proves it (runtime/auth); ssh ranks read it
//	                     from stdin, never from a command line
//	PMI_RANK, PMI_SIZE   rank and job size
//	GMPI_JOBID           <mpirun pid>-<16 hex random digits>; file-name safe;
//	                     the library names its /dev/shm entries gmpi-<GMPI_JOBID>-*
//	GMPI_HOSTNAME        the host the launch placed the rank on
//	GMPI_SITE, GMPI_MACHINE  the rank's site and machine in the grid file ("" without)
//	GMPI_VMPI            the machine's name if it has a vendor MPI, else ""
//	GMPI_TCP_IF          the address the rank listens on (grid file "listen",
//	                     or the emulated host's address), when there is one
//	GMPI_TCP_PORT_RANGE  the host's port range (grid file "port_range")
//	GMPI_TCP_SOURCE_PORT_RANGE  the host's source port range (grid file "source_port_range")
//	GMPI_TCP_ADVERTISE   the address peers dial (grid file "advertise")
//	GMPI_TCP_RELAYS      the relays of the private sites (relay.go)
//	GMPI_LOCAL_RANK      rank among the job's processes on that host
//	GMPI_LOCAL_SIZE      number of the job's processes on that host
//	GMPI_UNIVERSE_SIZE   universe size
//	GMPI_APPNUM          index of the rank's program in an MPMD launch
//	MPI_LOCALRANKID, MPI_LOCALNRANKS  hydra's names for local rank and size
//
// The ranks of a grid machine with a vendor MPI are started together by
// the vendor's launcher instead, and reach PMI over a Unix socket
// (vmpi.go).
//
// Inherited PMI_* variables (PMI_PORT, PMI_ID, ...) are removed. The KVS
// holds PMI_process_mapping (vector form, one node per host) for MPICH clients.
//
// stdout and stderr of the ranks go to mpirun's (tagged and line-atomic
// with --tag-output); rank 0 reads mpirun's stdin, the others /dev/null.
// If a rank fails (non-zero exit, signal, exit without PMI finalize after
// PMI init) or calls abort, mpirun prints one line saying which and why,
// sends SIGTERM to every rank's process group, then SIGKILL 2 s later.
// SIGINT, SIGTERM and SIGHUP do the same; SIGUSR1/SIGUSR2 are forwarded.
// mpirun is a child subreaper: when the job ends every remaining
// descendant is killed and reaped, and every /dev/shm/gmpi-<jobid>-* entry
// is removed.
package main

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"gmpi/mpirun/emu"
	"gmpi/mpirun/grid"
	"gmpi/runtime/auth"
	"gmpi/runtime/param"
	"gmpi/runtime/pmi/server"
)

// version is gmpi's version as printed by --version; release builds may
// set it with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// Timing of the kill sequence.
const (
	termGrace   = 2 * time.Second        // SIGTERM -> SIGKILL
	drainWait   = 500 * time.Millisecond // wait for a dead rank's PMI/output before judging it
	reapTimeout = 3 * time.Second        // final sweep of left-over descendants
)

var progName = "mpirun"

func main() {
	if len(os.Args) > 1 && os.Args[1] == emu.HelperArg { // the grid emulator's router and hosts
		os.Exit(emu.HelperMain(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == vmpiExecArg { // a vendor MPI's rank (vmpi.go)
		os.Exit(vmpiExecMain(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == relayArg { // a private site's relay (relay.go)
		os.Exit(relayMain(os.Args[2:]))
	}
	// Pdeathsig is delivered when the thread that forked the child exits:
	// keep the forking (main) goroutine on one thread for good.
	runtime.LockOSThread()
	progName = filepath.Base(os.Args[0])
	if progName != "mpiexec" {
		progName = "mpirun"
	}
	os.Exit(run(os.Args[1:]))
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, progName+": "+format+"\n", args...)
}

// rankProc is one launched rank.
type rankProc struct {
	rank    int
	app     int
	pid     int // 0 if not started
	exited  bool
	status  syscall.WaitStatus
	pmiDone chan struct{} // closed when its PMI connection is closed
	pmiOnce sync.Once
	ioDone  sync.WaitGroup
	stdinW  *os.File // ssh ranks: the secret, then the rank's lifeline
}

// pmiClosed records that the rank's PMI connection is gone.
func (p *rankProc) pmiClosed() { p.pmiOnce.Do(func() { close(p.pmiDone) }) }

// exitNote is the reaper's report of a rank's exit.
type exitNote struct {
	rank   int
	status syscall.WaitStatus
}

// job is the running job.
type job struct {
	opts    *options
	params  *param.Values // mpirun's tunables
	jobID   string
	host    string
	size    int
	procs   []*rankProc
	cpus    []int // CPU of each rank (bind.go), nil when unbound
	srv     *server.Server
	verbose bool

	slots []slot     // where each rank runs and how it starts (place.go)
	grid  *grid.Grid // --grid, nil without
	emu   *emu.Grid  // --emulate, nil without
	// emuShared describes emu for other mpiruns (--emulate-share,
	// --emulate-attach, or a temporary file for spawns); emuOwnShare: we
	// wrote it and remove it at the end.
	emuMu       sync.Mutex
	emuShared   string
	emuOwnShare bool
	pmiTCP      *pmiListener
	// The Unix PMI socket of vendor-launched ranks (vmpi.go).
	pmiUnix, pmiUnixDir string
	pmiUnixClose        func()
	vio                 vendorIO // vendor ranks' stdout and stderr (vmpi.go)
	secret              string   // GMPI_JOB_SECRET
	checkins            *checkins
	relays              []*relayProc // the private sites' relays (relay.go)
	relayEnv            string       // GMPI_TCP_RELAYS

	spawned spawns // nested mpiruns of spawned children (spawn.go)

	outMu, errMu sync.Mutex // serialize tagged lines per destination
	outBroken    bool       // mpirun's stdout is gone (EPIPE): drop output
	errBroken    bool
}

func run(args []string) int {
	opts, err := parseArgs(args)
	if err != nil {
		logf("%v", err)
		return 2
	}
	if opts.help {
		fmt.Printf(usage, progName)
		return 0
	}
	if opts.serveNames != "" {
		return serveNames(opts.serveNames)
	}
	if opts.version {
		fmt.Printf("%s (gmpi) %s\nPMI-1 process manager, local launcher\n", progName, version)
		return 0
	}
	// mpirun's tunables, read once; the ranks read the library's
	// themselves.
	params, err := param.Env()
	if opts.info {
		if err := printInfo(os.Stdout, opts.infoAll, opts.parsable, params, err); err != nil {
			logf("%v", err)
			return 1
		}
		return 0
	}
	if err != nil {
		logf("%v", err)
		return 2
	}
	if opts.timeout == 0 {
		opts.timeout = param.MpiexecTimeout.Get(params)
	}
	if opts.nameServer != "" {
		opts.genv = append(opts.genv, param.NameServer.Name()+"="+opts.nameServer)
	}
	j := &job{opts: opts, params: params, verbose: opts.verbose || param.MpirunVerbose.Get(params)}
	if j.host, err = os.Hostname(); err != nil || j.host == "" {
		j.host = "localhost"
	}
	if err := j.place(); err != nil {
		logf("%v", err)
		return 2
	}
	if opts.showTopo {
		j.showTopology()
		return 0
	}
	if j.cpus, err = bindPlan(opts.bind, param.Bind.Get(params), j.size); err != nil {
		logf("%v", err)
		return 2
	}
	for a := range opts.apps {
		if err := j.resolve(a); err != nil {
			logf("%v", err)
			return 2
		}
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	j.jobID = strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(rnd[:])
	if j.secret, err = auth.NewSecret(); err != nil {
		logf("job secret: %v", err)
		return 1
	}
	if err := j.checkVendors(); err != nil {
		logf("%v", err)
		return 2
	}
	if opts.emulate {
		if err := j.startEmulation(); err != nil {
			logf("%v", err)
			return 1
		}
		defer j.emu.Close()
		defer func() {
			if j.emuOwnShare {
				os.Remove(j.emuShared)
			}
		}()
	}
	defer j.removeShm()
	return j.run()
}

func isLocalHost(name, self string) bool {
	short, _, _ := strings.Cut(self, ".")
	switch name {
	case "localhost", "127.0.0.1", "::1", self, short:
		return true
	}
	return false
}

// resolve finds the executable of app a (PATH search for bare names, as
// execvp does; names with a '/' are relative to the working directory).
func (j *job) resolve(a int) error {
	ap := &j.opts.apps[a]
	prog := ap.argv[0]
	wdir := j.wdirOf(a)
	if wdir != "" {
		if st, err := os.Stat(wdir); err != nil || !st.IsDir() {
			return fmt.Errorf("working directory %q: not a directory", wdir)
		}
	}
	path := prog
	if !strings.Contains(prog, "/") {
		found := ""
		for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
			if dir == "" {
				dir = "."
			}
			p := filepath.Join(dir, prog)
			if isExecutable(p) {
				found = p
				break
			}
		}
		if found == "" {
			return fmt.Errorf("%s: command not found", prog)
		}
		if abs, err := filepath.Abs(found); err == nil {
			found = abs
		}
		path = found
	} else if !filepath.IsAbs(prog) && wdir != "" {
		path = filepath.Join(wdir, prog)
	}
	if !isExecutable(path) {
		return fmt.Errorf("%s: not an executable file", prog)
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	ap.argv = append([]string{path}, ap.argv[1:]...)
	return nil
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && unix.Access(p, unix.X_OK) == nil
}

func (j *job) wdirOf(a int) string {
	if w := j.opts.apps[a].wdir; w != "" {
		return w
	}
	return j.opts.wdir
}

func (j *job) vlogf(format string, args ...any) {
	if j.verbose {
		logf(format, args...)
	}
}

// env builds the environment of a rank of app a: mpirun's own without
// PMI variables, then -genv/-x, then the app's -env, then extra.
func (j *job) env(a int, extra []string) []string {
	vals := map[string]string{}
	var order []string
	set := func(kv string) {
		k, v, _ := strings.Cut(kv, "=")
		if _, ok := vals[k]; !ok {
			order = append(order, k)
		}
		vals[k] = v
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "PMI_") || strings.HasPrefix(k, "PMI2_") {
			continue
		}
		set(kv)
	}
	for _, kv := range j.opts.genv {
		set(kv)
	}
	for _, kv := range j.opts.apps[a].env {
		set(kv)
	}
	for _, kv := range extra {
		set(kv)
	}
	env := make([]string, 0, len(order))
	for _, k := range order {
		env = append(env, k+"="+vals[k])
	}
	return env
}

// run launches the job and supervises it until every process is gone. It
// returns mpirun's exit status.
func (j *job) run() int {
	// Orphaned descendants of the ranks are re-parented to us, so we can
	// kill and reap them at the end.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		j.vlogf("cannot become a child subreaper: %v", err)
	}
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGUSR1, syscall.SIGUSR2)
	// Catch (not ignore) SIGPIPE so writes to a closed stdout fail with
	// EPIPE instead of killing mpirun; caught signals revert to default in
	// the ranks.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	defer signal.Stop(sigs)

	events := make(chan server.Event, 4*j.size+64)
	appOf := make([]int, 0, j.size)
	for a, ap := range j.opts.apps {
		for k := 0; k < ap.n; k++ {
			appOf = append(appOf, a)
		}
	}
	cfg := server.Config{
		Size:    j.size,
		KVSName: "kvs_" + strings.ReplaceAll(j.jobID, "-", "_"),
		AppNum:  func(r int) int { return appOf[r] },
		Preput:  map[string]string{"PMI_process_mapping": j.processMapping()},
		OnEvent: func(ev server.Event) { j.onPMIEvent(ev, events) },
		Spawn:   j.spawn,

		UniverseSize: j.universeSize(),
	}
	j.spawned.pids, j.spawned.ev = map[int]int{}, make(chan spawnNote, 1024)
	if j.verbose {
		cfg.Logf = func(format string, args ...any) { logf(format, args...) }
	}
	var err error
	if j.srv, err = server.New(cfg); err != nil {
		logf("%v", err)
		return 1
	}
	j.vlogf("job %s: %d process(es) on %s, kvs %s", j.jobID, j.size, strings.Join(j.hostNames(), ","), cfg.KVSName)

	j.procs = make([]*rankProc, j.size)
	for r := range j.procs {
		j.procs[r] = &rankProc{rank: r, app: appOf[r], pmiDone: make(chan struct{})}
	}
	j.checkins = newCheckins(j.size)
	for _, s := range j.slots {
		if s.remote() && j.emu == nil && j.pmiTCP == nil {
			if err := j.listenPMI(); err != nil {
				logf("%v", err)
				return 1
			}
			defer j.pmiTCP.l.Close()
		}
	}
	for _, s := range j.slots {
		if s.group != nil && j.pmiUnix == "" {
			if err := j.listenPMIUnix(); err != nil {
				logf("%v", err)
				return 1
			}
			defer j.pmiUnixClose()
		}
	}
	relayDied := make(chan relayDeath, 16)
	defer j.stopRelays()
	if err := j.startRelays(relayDied); err != nil {
		logf("%v", err)
		return 1
	}
	defer j.closeStdins()
	stdin, closeStdin := j.stdinForRank0()
	defer closeStdin()
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		logf("%v", err)
		return 1
	}
	defer devnull.Close()

	exits := make(chan exitNote, j.size)
	reaped := make(chan struct{})
	status := 0
	failed := false
	var killTimer <-chan time.Time
	// fail records the first failure, prints its line and starts the
	// kill sequence.
	fail := func(code int, format string, args ...any) {
		if failed {
			return
		}
		failed, status = true, code
		logf(format, args...)
		j.signalAll(syscall.SIGTERM)
		j.closeStdins()
		killTimer = time.After(termGrace)
	}

	started := 0
	for r, p := range j.procs {
		in := devnull
		if r == 0 {
			in = stdin
		}
		if vg := j.slots[r].group; vg != nil && vg.ranks[0] != r {
			// Started with the group's first rank, by the vendor's launcher.
			if lead := j.procs[vg.ranks[0]]; lead.pid > 0 {
				p.pid = lead.pid
				started++
			}
			continue
		}
		if err := j.start(p, in); err != nil {
			fail(127, "cannot start rank %d (%s) on host %s: %v; terminating the job", r, j.opts.apps[p.app].argv[0], j.slots[r].host, err)
			break
		}
		started++
	}
	go j.reap(exits, reaped)

	var timeout <-chan time.Time
	if j.opts.timeout > 0 {
		timeout = time.After(j.opts.timeout)
	}
	// The startup barrier's deadline (multi-host jobs): armed at the first
	// check-in, disarmed when all ranks are in.
	var firstIn, allIn <-chan struct{}
	var startup <-chan time.Time
	startupLimit := param.StartupTimeout.Get(j.params)
	if startupLimit > 0 && len(j.hostNames()) > 1 {
		firstIn = j.checkins.first
	}
	for live := started; live > 0; {
		select {
		case <-firstIn:
			firstIn, allIn = nil, j.checkins.all
			startup = time.After(startupLimit)
		case <-allIn:
			allIn, startup = nil, nil
			j.vlogf("all %d ranks checked in", j.size)
		case <-startup:
			startup = nil
			if miss := j.checkins.missing(); len(miss) > 0 && !failed {
				fail(1, "startup: rank(s) %s on host(s) %s did not check in within %v of the first rank; terminating the job",
					rankList(miss), j.hostsOf(miss), startupLimit)
			}
		case sn := <-j.spawned.ev:
			if sn.start {
				live++
				continue
			}
			live--
			ok := sn.pid < 0 || sn.status.Exited() && sn.status.ExitStatus() == 0
			if !ok && !failed {
				code := 1
				if sn.status.Exited() {
					code = sn.status.ExitStatus()
				}
				fail(code, "the job of spawned processes (mpirun pid %d) failed: %s; terminating the job", sn.pid, describeStatus(sn.status))
			}
		case ex := <-exits:
			live--
			p := j.procs[ex.rank]
			p.exited, p.status = true, ex.status
			if j.slots[ex.rank].group != nil {
				j.releaseVendorIO(ex.rank)
			}
			j.vlogf("rank %d (pid %d) exited: %v", p.rank, p.pid, describeStatus(ex.status))
			if failed {
				continue
			}
			if code, why := j.judge(p); why != "" {
				fail(code, "%s; terminating the job", why)
			}
		case ev := <-events:
			switch ev.Kind {
			case server.EventAbort:
				pid := 0
				if ev.Rank >= 0 && ev.Rank < len(j.procs) {
					pid = j.procs[ev.Rank].pid
				}
				line := abortLine(ev.Rank, pid, ev.Code, ev.Message)
				if ev.Rank >= 0 && ev.Rank < len(j.slots) && len(j.hostNames()) > 1 {
					line = strings.Replace(line, fmt.Sprintf("rank %d", ev.Rank), fmt.Sprintf("rank %d on host %s", ev.Rank, j.slots[ev.Rank].host), 1)
				}
				fail(abortStatus(ev.Code), "%s; terminating the job", line)
			case server.EventPMI2:
				logf("rank %d tried PMI-2: %s", ev.Rank, ev.Message)
			case server.EventProtocolError:
				if !failed {
					logf("rank %d: PMI: %s", ev.Rank, ev.Message)
				}
			}
		case sig := <-sigs:
			s := sig.(syscall.Signal)
			switch s {
			case syscall.SIGUSR1, syscall.SIGUSR2:
				j.vlogf("forwarding signal %d (%s)", int(s), sigName(s))
				j.signalAll(s)
			default:
				if failed {
					// A second interrupt: stop waiting for a clean exit.
					j.signalAll(syscall.SIGKILL)
					continue
				}
				fail(128+int(s), "received signal %d (%s); terminating the job", int(s), sigName(s))
			}
		case d := <-relayDied:
			msg := fmt.Sprintf("the relay of site %s on host %s (pid %d) ended while the job ran; the ranks of site %s cannot reach the other sites without it",
				d.r.site, d.r.host, d.r.pid, d.r.site)
			if !failed {
				fail(1, "%s; terminating the job", msg)
			} else {
				// A rank that lost its peers may have ended the job
				// first: the relay is still the cause to name.
				logf("%s", msg)
			}
		case <-timeout:
			fail(124, "job timed out after %v; terminating the job", j.opts.timeout)
		case <-killTimer:
			killTimer = nil
			j.vlogf("processes still alive %v after SIGTERM; sending SIGKILL", termGrace)
			j.signalAll(syscall.SIGKILL)
		}
	}
	j.sweep(reaped)
	j.waitIO(time.Second)
	return status
}

// judge decides, once rank p has exited, whether the job failed. It returns
// mpirun's exit status and the reason line, or "" if the exit is normal.
// Unless the rank already finalized and exited 0, it first lets the rank's
// PMI connection drain (bounded by drainWait) so that an abort or finalize
// sent just before exiting is seen; before reporting a failure it also
// lets the rank's tagged output drain, so the reason comes after it.
func (j *job) judge(p *rankProc) (int, string) {
	ws := p.status
	if ws.Exited() && ws.ExitStatus() == 0 && j.srv.State(p.rank).Finalized {
		return 0, ""
	}
	deadline := time.After(drainWait)
	select {
	case <-p.pmiDone:
	case <-deadline:
	}
	st := j.srv.State(p.rank)
	var code int
	var why string
	s := &j.slots[p.rank]
	switch {
	case !st.Initialized && s.launcher.Kind != grid.Local && j.emu == nil && !(ws.Exited() && ws.ExitStatus() == 0):
		code, why = 1, fmt.Sprintf("host %s failed to start rank %d: the %s launcher (pid %d) ended with %s", s.host, p.rank, launcherName(s.launcher), p.pid, describeStatus(ws))
		if ws.Exited() && ws.ExitStatus() != 0 {
			code = ws.ExitStatus()
		}
	case st.Aborted:
		code, why = abortStatus(st.AbortCode), abortLine(p.rank, p.pid, st.AbortCode, st.AbortMsg)
	case ws.Signaled():
		code, why = 128+int(ws.Signal()), fmt.Sprintf("rank %d (pid %d) killed by signal %d (%s)", p.rank, p.pid, int(ws.Signal()), sigName(ws.Signal()))
	case ws.Exited() && ws.ExitStatus() > 128 && ws.ExitStatus() < 128+65 && s.launcher.Kind == grid.SSH && j.emu == nil:
		// The remote shell reports a signal as 128+signal.
		sig := syscall.Signal(ws.ExitStatus() - 128)
		code, why = ws.ExitStatus(), fmt.Sprintf("rank %d (ssh pid %d) killed by signal %d (%s)", p.rank, p.pid, int(sig), sigName(sig))
	case ws.Exited() && ws.ExitStatus() != 0:
		code, why = ws.ExitStatus(), fmt.Sprintf("rank %d (pid %d) exited with code %d", p.rank, p.pid, ws.ExitStatus())
	case st.Initialized && !st.Finalized:
		code, why = 1, fmt.Sprintf("rank %d (pid %d) exited with code 0 without finalizing (MPI_Finalize not called)", p.rank, p.pid)
	default:
		return 0, ""
	}
	if len(j.hostNames()) > 1 && !strings.HasPrefix(why, "host ") {
		why = strings.Replace(why, fmt.Sprintf("rank %d", p.rank), fmt.Sprintf("rank %d on host %s", p.rank, s.host), 1)
	}
	drained := make(chan struct{})
	go func() { p.ioDone.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-deadline:
	}
	return code, why
}

// abortStatus is mpirun's exit status for an abort with code: the code's
// low 8 bits (what exit(code) would give), or 1 if those are 0 (an
// aborted job did not succeed).
func abortStatus(code int) int {
	if code&0xff == 0 {
		return 1
	}
	return code & 0xff
}

func abortLine(rank, pid, code int, msg string) string {
	s := fmt.Sprintf("rank %d", rank)
	if pid > 0 {
		s += fmt.Sprintf(" (pid %d)", pid)
	}
	s += fmt.Sprintf(" called MPI_Abort with error code %d", code)
	if msg = strings.TrimSpace(msg); msg != "" {
		s += ": " + strings.ReplaceAll(msg, "\n", " ")
	}
	return s
}

// sigName is the capitalized description of a signal ("Killed").
func sigName(s syscall.Signal) string {
	d := s.String()
	if d == "" {
		return "signal " + strconv.Itoa(int(s))
	}
	return strings.ToUpper(d[:1]) + d[1:]
}

func describeStatus(ws syscall.WaitStatus) string {
	if ws.Signaled() {
		return fmt.Sprintf("killed by signal %d (%s)", int(ws.Signal()), sigName(ws.Signal()))
	}
	return fmt.Sprintf("exit code %d", ws.ExitStatus())
}

// stdinForRank0 returns the file rank 0 reads as stdin. A terminal is not
// handed over (rank 0 is in a background process group and would be
// stopped by SIGTTIN): mpirun copies it through a pipe instead.
func (j *job) stdinForRank0() (*os.File, func()) {
	if _, err := unix.IoctlGetTermios(0, unix.TCGETS); err != nil {
		return os.Stdin, func() {}
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return os.Stdin, func() {}
	}
	go func() {
		io.Copy(pw, os.Stdin)
		pw.Close()
	}()
	return pr, func() { pr.Close() }
}

// start launches rank p with stdin in, through its slot's launcher
// (launch.go).
func (j *job) start(p *rankProc, in *os.File) error {
	s := &j.slots[p.rank]
	argv, err := j.command(p)
	if err != nil {
		return err
	}
	var conn net.Conn // mpirun's end of the PMI socket (fd mode)
	var theirs *os.File
	if (!s.remote() || j.emu != nil) && s.group == nil {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("socketpair: %w", err)
		}
		mine := os.NewFile(uintptr(fds[0]), "pmi")
		theirs = os.NewFile(uintptr(fds[1]), "pmi-rank")
		defer theirs.Close()
		conn, err = net.FileConn(mine)
		mine.Close()
		if err != nil {
			return fmt.Errorf("pmi socket: %w", err)
		}
	}
	var closers []*os.File // closed if the start fails
	undo := func() {
		if conn != nil {
			conn.Close()
		}
		for _, f := range closers {
			f.Close()
		}
	}
	if s.launcher.Kind == grid.SSH && j.emu == nil {
		// The secret, then the lifeline (remoteScript).
		r, w, err := os.Pipe()
		if err != nil {
			undo()
			return err
		}
		defer r.Close()
		in = r
		closers = append(closers, w)
		p.stdinW = w
	}
	out, errw := os.Stdout, os.Stderr
	var readers []*os.File
	if j.opts.tagOutput {
		var outR, errR *os.File
		if outR, out, err = os.Pipe(); err != nil {
			undo()
			return err
		}
		closers = append(closers, outR)
		if errR, errw, err = os.Pipe(); err != nil {
			out.Close()
			undo()
			return err
		}
		closers = append(closers, errR)
		defer out.Close()
		defer errw.Close()
		readers = []*os.File{outR, errR}
	}
	files := []*os.File{in, out, errw}
	if theirs != nil {
		files = append(files, theirs)
	}
	env := j.rankEnv(p.rank, p.app)
	if s.group != nil {
		env = j.vendorLauncherEnv(s.group, p.rank, p.app)
		argv, err = j.vendorCommand(s.group, j.opts.apps[p.app].argv, env)
		if err == nil {
			err = j.prepareVendorIO(s.group)
		}
		if err != nil {
			undo()
			return err
		}
	}
	cpu := -1
	if j.cpus != nil && !s.remote() {
		cpu = j.cpus[p.rank]
	}
	var pid int
	if j.emu != nil {
		pid, err = j.startEmulated(p, argv, env, files)
	} else {
		fds := make([]uintptr, len(files))
		for i, f := range files {
			fds[i] = f.Fd()
		}
		attr := &syscall.ProcAttr{
			Dir:   j.wdirOf(p.app),
			Env:   env,
			Files: fds,
			Sys: &syscall.SysProcAttr{
				Setpgid:   true,
				Pdeathsig: syscall.SIGKILL,
			},
		}
		pid, err = forkExec(cpu, argv, attr)
	}
	if err != nil {
		undo()
		p.stdinW = nil
		return err
	}
	p.pid = pid
	j.vlogf("rank %d on %s: pid %d (cpu %d, -1: unbound): %s", p.rank, s.host, pid, cpu, strings.Join(argv, " "))
	if p.stdinW != nil {
		// A pipe holds far more than one line: this does not block.
		if _, err := io.WriteString(p.stdinW, j.secret+"\n"); err != nil {
			j.vlogf("rank %d: writing the secret to its launcher: %v", p.rank, err)
		}
	}
	if conn != nil {
		go func() {
			j.srv.Serve(p.rank, conn)
			p.pmiClosed()
		}()
	}
	if len(readers) == 2 {
		p.ioDone.Add(2)
		go j.forward(p, readers[0], false)
		go j.forward(p, readers[1], true)
	}
	return nil
}

// closeStdins closes the lifelines of ssh-started ranks: their remote
// shells kill them (after a failure, and at the end as a safety net).
func (j *job) closeStdins() {
	for _, p := range j.procs {
		if p != nil && p.stdinW != nil {
			p.stdinW.Close()
		}
	}
}

// forward copies the lines of one rank's stdout or stderr pipe to
// mpirun's, each prefixed with "[rank] " and written with one write under
// the destination's lock, so lines of different ranks never mix. A last
// line without newline gets one.
func (j *job) forward(p *rankProc, r *os.File, stderr bool) {
	defer p.ioDone.Done()
	defer r.Close()
	dst, mu, broken := os.Stdout, &j.outMu, &j.outBroken
	if stderr {
		dst, mu, broken = os.Stderr, &j.errMu, &j.errBroken
	}
	prefix := "[" + strconv.Itoa(p.rank) + "] "
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			if line[len(line)-1] != '\n' {
				line = append(line, '\n')
			}
			buf := make([]byte, 0, len(prefix)+len(line))
			buf = append(append(buf, prefix...), line...)
			mu.Lock()
			if !*broken {
				if _, werr := dst.Write(buf); werr != nil && errors.Is(werr, syscall.EPIPE) {
					*broken = true
				}
			}
			mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// waitIO waits up to d for every output forwarder to finish.
func (j *job) waitIO(d time.Duration) {
	done := make(chan struct{})
	go func() {
		for _, p := range j.procs {
			p.ioDone.Wait()
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(d):
	}
}

// signalAll sends sig to the process group of every started rank
// (including exited ranks, whose children may live on).
func (j *job) signalAll(sig syscall.Signal) {
	for _, p := range j.procs {
		if p.pid > 0 {
			syscall.Kill(-p.pid, sig)
		}
	}
	j.signalSpawned(sig)
}

// reap waits for every child of mpirun (ranks and re-parented orphans),
// reports ranks' exits on exits, and closes reaped once mpirun has no
// children left.
func (j *job) reap(exits chan<- exitNote, reaped chan<- struct{}) {
	byPid := make(map[int][]int, len(j.procs)) // a vendor launcher is several ranks
	for _, p := range j.procs {
		if p.pid > 0 {
			byPid[p.pid] = append(byPid[p.pid], p.rank)
		}
	}
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil { // ECHILD: nothing left
			close(reaped)
			return
		}
		if rs, ok := byPid[pid]; ok && (ws.Exited() || ws.Signaled()) {
			for _, r := range rs {
				exits <- exitNote{rank: r, status: ws}
			}
		} else if ws.Exited() || ws.Signaled() {
			j.spawnedExit(pid, ws)
		}
	}
}

// sweep runs once every rank has exited: it kills whatever the ranks left
// behind (their process groups, and any re-parented descendant) and waits
// until the reaper saw the last child go, for at most reapTimeout.
func (j *job) sweep(reaped <-chan struct{}) {
	deadline := time.After(reapTimeout)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		j.signalAll(syscall.SIGKILL)
		for _, pid := range childrenOf(os.Getpid()) {
			j.vlogf("killing left-over process %d", pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
		select {
		case <-reaped:
			return
		case <-deadline:
			logf("warning: some processes of the job could not be reaped")
			return
		case <-tick.C:
		}
	}
}

// childrenOf lists the pids whose parent is ppid, from /proc.
func childrenOf(ppid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var kids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may contain spaces and parens.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) >= 2 && f[1] == strconv.Itoa(ppid) {
			kids = append(kids, pid)
		}
	}
	return kids
}

// removeShm removes every /dev/shm entry of the job (gmpi-<jobid>-*).
func (j *job) removeShm() {
	matches, _ := filepath.Glob("/dev/shm/gmpi-" + j.jobID + "-*")
	for _, m := range matches {
		if err := os.RemoveAll(m); err != nil {
			logf("cannot remove %s: %v", m, err)
		} else {
			j.vlogf("removed %s", m)
		}
	}
}
