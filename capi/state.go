package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"gmpi/coll"
	"gmpi/coll/components"
	"gmpi/devices/shm"
	mpirt "gmpi/runtime"
	"gmpi/runtime/param"
	"gmpi/runtime/pmi"

	"golang.org/x/sys/unix"
)

// The process's single MPI instance: the only mutable package-level state
// of gmpi (STYLE practice 3).
var (
	world       *mpirt.World
	pmiClient   *pmi.Client
	shmDevice   *shm.Device
	initialized atomic.Bool // MPI_Init was called
	finalized   atomic.Bool // MPI_Finalize was called
	worldUp     atomic.Bool // the world is usable (MPI_Init or a session)
	worldRefs   int         // MPI_Init until MPI_Finalize, plus live sessions (initMu)
	worldDown   bool        // the world was shut down for good (initMu)
	initMu      sync.Mutex
	threadLevel int32
	mainThread  int64 // OS thread id that called MPI_Init
	startTime   = time.Now()
	allocs      allocTable // MPI_Alloc_mem blocks (api_mem.go)
	mpit        mpitState  // the tool interface (api_mpit.go)
)

// Thread levels (MPI_THREAD_*).
const (
	threadSingle     = 0
	threadFunneled   = 1
	threadSerialized = 2
	threadMultiple   = 3
)

// initWorld bootstraps through PMI (or as a singleton) and builds the
// devices and the runtime. It returns a runtime error for the caller to
// raise.
func initWorld() error {
	// The tunables of this world, read once (a new world after a
	// finalize reads them again).
	params, err := param.Env()
	if err != nil {
		return mpirt.Errorf(mpirt.ErrArg, "MPI_Init", "bad tunable: %v", err)
	}
	c, err := pmi.Connect(params)
	if err != nil {
		return mpirt.Errorf(mpirt.ErrOther, "MPI_Init", "PMI bootstrap failed: %v", err)
	}
	pmiClient = c
	cfg := mpirt.Config{Rank: 0, Size: 1, AppNum: 0, Universe: 1, Params: params}
	cfg.Hostname = param.Hostname.Get(params)
	if cfg.Hostname == "" {
		cfg.Hostname, _ = os.Hostname()
	}
	debugSignal(param.DebugSignal.Get(params))
	if param.Debug.Get(params) {
		cfg.Log = func(f string, a ...any) {
			fmt.Fprintf(os.Stderr, "gmpi[%d]: "+f+"\n", append([]any{cfg.Rank}, a...)...)
		}
	}
	cfg.Abort = abortJob
	var routes []mpirt.Route
	var waker mpirt.Waker
	jobName := "" // the shm collective component declines everything without a job id
	if c != nil {
		cfg.Rank, cfg.Size, cfg.AppNum, cfg.Universe = c.Rank(), c.Size(), c.AppNum(), c.UniverseSize()
		if cfg.Log != nil {
			cfg.Log("PMI-%d: rank %d of %d, key-value space %s", c.Version(), cfg.Rank, cfg.Size, c.KVSName())
		}
		vendor, err := startVendor(c, params, cfg.Rank)
		if err != nil {
			return mpirt.Errorf(mpirt.ErrOther, "MPI_Init", "vmpi device: %v", err)
		}
		tl, err := publishTCP(c, params, cfg.Rank)
		if err != nil {
			return mpirt.Errorf(mpirt.ErrOther, "MPI_Init", "tcp device: %v", err)
		}
		locs, err := exchangeLocations(c, cfg.Rank, cfg.Size, myLocation(params, cfg.Hostname))
		if err != nil {
			tl.Close()
			return mpirt.Errorf(mpirt.ErrOther, "MPI_Init", "exchanging host names: %v", err)
		}
		cfg.Locations = locs
		hosts := make([]string, len(locs))
		for r, l := range locs {
			hosts[r] = l.Host
		}
		peers, remote, err := splitPeers(params, hosts, locs, cfg.Rank)
		if err != nil {
			tl.Close()
			return err
		}
		var vpeers []int
		peers, remote, vmpiDevice, err = splitVendor(c, vendor, cfg, peers, remote)
		if err != nil {
			tl.Close()
			return mpirt.Errorf(mpirt.ErrOther, "MPI_Init", "vmpi device: %v", err)
		}
		if vmpiDevice != nil {
			vpeers = vmpiDevice.Peers()
			if cfg.Log != nil {
				cfg.Log("vmpi device (%v, vendor rank %d of %d): ranks %v", vendor.ABI, vendor.Rank, vendor.Size, vpeers)
			}
		}
		cfg.Hosts = hosts
		local := localRanks(hosts, cfg.Hostname)
		cfg.LocalRanks = len(local)
		cfg.LocalCPUs = localCPUs(c, local)
		// Single-copy rendezvous (cross-memory attach, both processes
		// copying) for messages of GMPI_RMA_MIN bytes and more, unless
		// GMPI_SHM_CMA=0 or the device's probe finds it not permitted;
		// smaller ones stream through the ring (see bench/README.md).
		jobName = jobID(params, c)
		d, err := shm.New(shm.Config{JobID: jobName, Rank: cfg.Rank, Peers: peers, KVS: c,
			SingleCopy: param.ShmCMA.Get(params), Params: params})
		if err != nil {
			tl.Close()
			return mpirt.Errorf(mpirt.ErrOther, "MPI_Init", "shared memory device: %v", err)
		}
		shmDevice = d
		waker = d.Waker()
		for _, p := range peers {
			routes = append(routes, mpirt.Route{Peer: p, Device: d})
		}
		td, err := startTCP(c, cfg, tl, remote, hosts, waker)
		if err != nil {
			return mpirt.Errorf(mpirt.ErrOther, "MPI_Init", "tcp device: %v", err)
		}
		for _, p := range remote {
			routes = append(routes, mpirt.Route{Peer: p, Device: td})
		}
		tcpRemote = remote
		for _, p := range vpeers {
			routes = append(routes, mpirt.Route{Peer: p, Device: vmpiDevice})
		}
	}
	comps, err := components.List(params, jobName)
	if err != nil {
		return mpirt.Errorf(mpirt.ErrOther, "MPI_Init", "collective components: %v", err)
	}
	w, err := mpirt.NewWorld(cfg, routes, waker, coll.NewSelector(comps...))
	if err != nil {
		return mpirt.Errorf(mpirt.ErrOther, "MPI_Init", "%v", err)
	}
	w.SetLinker(dynLinker)
	world = w
	startProfile(params, cfg.Rank)
	return nil
}

// jobID names this job in shared-memory segment names.
func jobID(p *param.Values, c *pmi.Client) string {
	if id := param.JobID.Get(p); id != "" {
		return id
	}
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, c.KVSName())
}

// myLocation is this process's place in the grid, as the launcher said
// (GMPI_SITE, GMPI_MACHINE, GMPI_VMPI; all empty without a grid file).
func myLocation(p *param.Values, host string) mpirt.Location {
	return mpirt.Location{Host: host, Site: param.Site.Get(p),
		Machine: param.Machine.Get(p), VMPI: param.VMPI.Get(p), Rep: mpirt.NativeRep().Encode()}
}

// exchangeLocations publishes this rank's location (host name, site,
// machine, vendor MPI job) and returns every rank's.
func exchangeLocations(c *pmi.Client, rank, size int, me mpirt.Location) ([]mpirt.Location, error) {
	if err := c.Put(fmt.Sprintf("gmpi-host-%d", rank), me.Encode()); err != nil {
		return nil, err
	}
	// The CPUs this rank may run on, for localCPUs (after the barrier).
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) == nil {
		var cpus []string
		for cpu := 0; cpu < 8*int(unsafe.Sizeof(set)); cpu++ {
			if set.IsSet(cpu) {
				cpus = append(cpus, strconv.Itoa(cpu))
			}
		}
		if err := c.Put(fmt.Sprintf("gmpi-cpus-%d", rank), strings.Join(cpus, ",")); err != nil {
			return nil, err
		}
	}
	if err := c.Barrier(); err != nil {
		return nil, err
	}
	locs := make([]mpirt.Location, size)
	for r := range locs {
		if r == rank {
			locs[r] = me
			continue
		}
		v, err := c.Get(fmt.Sprintf("gmpi-host-%d", r))
		if err != nil {
			return nil, err
		}
		if locs[r], err = mpirt.DecodeLocation(v); err != nil {
			return nil, fmt.Errorf("rank %d: %v", r, err)
		}
	}
	return locs, nil
}

// localRanks lists the ranks the launch placed on host.
func localRanks(hosts []string, host string) []int {
	var rs []int
	for r, h := range hosts {
		if h == host {
			rs = append(rs, r)
		}
	}
	return rs
}

// localCPUs counts the CPUs that the given ranks (this host's) may run
// on together: the union of their affinity masks, as exchangeHosts
// published them; 0 when some rank's mask is unknown. Ranks pinned to one
// CPU each are then not mistaken for an oversubscribed host.
func localCPUs(c *pmi.Client, ranks []int) int {
	var union unix.CPUSet
	for _, r := range ranks {
		v, err := c.Get(fmt.Sprintf("gmpi-cpus-%d", r))
		if err != nil {
			return 0
		}
		for _, s := range strings.Split(v, ",") {
			cpu, err := strconv.Atoi(s)
			if err != nil {
				return 0
			}
			union.Set(cpu)
		}
	}
	return union.Count()
}

// finalizeWorld is MPI_Finalize's work: a barrier so that no peer still
// needs us, then the devices and PMI are shut down.
func finalizeWorld() error {
	defer stopProfile()
	w := world
	w.FinalizeBuffers() // MPI_Finalize detaches the buffered-send buffer
	w.WaitCreations()   // and completes pending MPI_Comm_idup operations
	closePorts()
	unpublishAll()
	cw := w.CommWorld()
	if err := cw.Coll.Barrier(cw); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return mpirt.Errorf(mpirt.ErrOther, "MPI_Finalize", "%v", err)
	}
	if pmiClient != nil {
		if err := pmiClient.Finalize(); err != nil {
			return mpirt.Errorf(mpirt.ErrOther, "MPI_Finalize", "PMI finalize: %v", err)
		}
	}
	return nil
}

// abortJob ends the whole job: through the launcher when there is one.
func abortJob(code int, msg string) {
	if msg != "" {
		fmt.Fprintln(os.Stderr, msg)
	}
	if pmiClient != nil {
		pmiClient.Abort(code, msg)
		// The launcher kills us; do not linger if it does not.
		time.Sleep(2 * time.Second)
	}
	os.Exit(code)
}
