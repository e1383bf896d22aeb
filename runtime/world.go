package mpirt

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"gmpi/runtime/param"
)

// Config is what the capi layer learned at MPI_Init and hands to NewWorld.
type Config struct {
	Rank     int    // this process's rank in MPI_COMM_WORLD
	Size     int    // size of MPI_COMM_WORLD
	Hostname string // the host the launch placed this rank on
	// Hosts, when it has Size entries, is the host name of every world
	// rank (what the launch said); otherwise World.ExchangeHosts learns it.
	Hosts []string
	// Locations, when it has Size entries, is the grid location of every
	// world rank (site, machine, host, vendor MPI job); otherwise the
	// locations are the hosts, in one site and one machine.
	Locations []Location
	AppNum    int // MPI_APPNUM, -1 when unknown
	Universe  int // MPI_UNIVERSE_SIZE, 0 when unknown
	// LocalRanks is the number of ranks of the job on this host (this one
	// included); 0 when unknown. When it exceeds the CPUs this process
	// may run on, waiting yields the CPU after every empty poll
	// (GMPI_OVERSUBSCRIBED=1/0 forces the choice).
	LocalRanks int
	// LocalCPUs is the number of CPUs the local ranks may run on together
	// (the union of their affinity masks); 0 means unknown, and this
	// process's own affinity stands in.
	LocalCPUs int
	// EagerLimit is the largest message sent eagerly (bytes); larger
	// messages use rendezvous. 0 selects the default.
	EagerLimit int
	// Abort terminates the whole job (PMI abort); it does not return.
	Abort func(code int, msg string)
	// Log receives diagnostics (may be nil).
	Log func(format string, args ...any)
	// Params are the tunables of this world, read once from the
	// environment (package param); nil: NewWorld reads the process
	// environment.
	Params *param.Values
}

// DefaultEagerLimit is the eager/rendezvous threshold when Config and the
// environment say nothing.
const DefaultEagerLimit = 64 << 10

// World is one MPI process's engine: its peers, devices, communicators,
// matching engine and progress. It holds no global state; capi keeps the
// single *World of the process, tests may build several in one process.
type World struct {
	cfg   Config
	waker Waker
	// mustPoll: some device delivers only when polled (Polled), so
	// waiters never sleep on the Waker.
	mustPoll bool

	// OnConcurrent, when set, runs once when the engine starts a
	// goroutine of its own that communicates (goConcurrent).
	OnConcurrent func()

	routes  []Device // routes[worldRank] carries frames to that peer
	devices []Device // distinct devices, polled by progress

	// rmaDev is the device that serves frames of windows spanning hosts
	// from its own receive path (AsyncReceiver; rmaSend is the same
	// device); rmaWins maps a window's context id to its *rmaNet.
	rmaDev  AsyncReceiver
	rmaSend Device
	rmaWins sync.Map

	match matcher // posted and unexpected queues, under match.mu

	sched schedules  // running collective schedules (sched.go)
	bg    bgProgress // their background progress (bgprogress.go)

	p2px p2pExtra // buffered sends, matched-probe messages, send cancels (persist.go)

	// pending maps protocol request ids (rendezvous, synchronous sends) to
	// requests waiting for a reply frame.
	pendingMu sync.Mutex
	pending   map[uint64]*Request
	nextID    atomic.Uint64

	// outbox holds control frames produced inside the Handler; they are
	// sent from progress, never from the Handler itself.
	outboxMu sync.Mutex
	outbox   []outFrame
	// outboxLen is len(outbox), read without the lock. It points at
	// outboxWord unless SetOutboxWord moved it to memory that code outside
	// Go reads (capi's express lane sends only while it is 0).
	outboxLen  *atomic.Int32
	outboxWord atomic.Int32
	flushing   atomic.Bool

	// spinPolls is how many empty polls a waiter makes before it starts
	// yielding the CPU: many on a dedicated core, one when the host is
	// oversubscribed (the peer we wait for may need our core).
	spinPolls int
	// yield: waiters give the CPU away between polls (oversubscribed
	// hosts only; with a core per rank, yielding only hands our core to
	// unrelated processes and makes our latency theirs).
	yield bool
	// sleeper is the process's only device when it can put waiters to
	// sleep itself (Sleeper).
	sleeper Sleeper

	// partInits counts partitioned inits per (communicator, direction,
	// peer, tag), under partMu (partitioned.go).
	partMu    sync.Mutex
	partInits map[partKey]uint32

	// spare is a recycled request for blocking calls (single-threaded
	// processes only; see pooledRequest).
	spare *Request
	// free holds recycled user requests (single-threaded processes; the
	// others use reqPool). See newRequest and ReleaseRequest.
	free []*Request

	// remote[peer] reads the peer's memory for single-copy rendezvous,
	// nil when its device cannot or should not.
	remote []RemoteReader
	// rmaOut[peer] counts this process's rendezvous sends to peer that
	// offered their buffer for single copy and are not done: while it is
	// nonzero, peer has copying of its own to do for us (reading them,
	// or streaming them if it chose so), and a message from peer is best
	// read here whole rather than shared or streamed (deliver).
	rmaOut []atomic.Int32
	rmaMin int // smallest message read single-copy from an idle peer when remote[peer] is set
	// pushMin is the smallest single-copy message whose copy the receiver
	// shares with the sender (FrameRMAPush), GMPI_PUSH_MIN: below it one
	// process_vm_readv is cheaper than the extra round of frames.
	pushMin uint64
	// spinFor is how long a waiter polls before it sleeps on the doorbell
	// (GMPI_SPIN_NS).
	spinFor time.Duration

	// eagerTo[peer] is the largest message sent eagerly to peer: the eager
	// limit, or less when the device's frames are smaller.
	eagerTo []int

	comms    HandleTable[*Comm]
	requests HandleTable[Request] // AddPtr/GetPtr: requests are not copied
	// ReplaceForeign makes proxy what a request handle outside the table
	// names (capi's express requests, ExpressSent); false: h names none.
	ReplaceForeign func(h Handle, proxy *Request) bool
	commWorld      *Comm
	commSelf       *Comm
	coll           CollSelector

	// ctx hands out context-id pairs by agreement (commops.go).
	ctx ctxPool
	// creating counts communicator creations running in the background
	// (MPI_Comm_idup) and deferred releases of communicators freed while
	// one ran on them; MPI_Finalize waits for them (WaitCreations).
	creating atomic.Int32

	groups      HandleTable[*Group]
	keyvals     HandleTable[*Keyval]
	errhandlers HandleTable[*Errhandler]
	types       HandleTable[*Datatype] // derived datatypes (dtcreate.go)
	f90         f90Cache               // MPI_Type_create_f90_* (dtf90.go)
	gpoll       pollers                // generalized requests to poll (greq.go)
	greqClasses HandleTable[any]       // MPIX_Grequest_class objects (greq.go)
	sessions    HandleTable[*Session]  // MPI_Session objects (session.go)

	hostsMu  sync.Mutex
	hosts    []string      // host name of every world rank, nil until known
	locs     []Location    // grid location of every world rank, nil until known
	rep      Rep           // this process's data representation (hetero.go)
	reps     []*Rep        // per world rank, its representation where it differs from rep; nil when none does
	gridTopo *GridTopology // computed from locs on first use
	infoEnv  *Info         // MPI_INFO_ENV, built on first use

	finalized atomic.Bool

	// dyn holds the processes of other jobs this one is connected to
	// (world ranks Size and up; dynamic.go).
	dyn dynState
}

type outFrame struct {
	peer    int
	hdr     Header
	payload []byte
	// after, when set, runs once the frame was sent (rendezvous data),
	// with the device's error when it could not be.
	after func(err error)
	// choose, when set, is a receive's rendezvous choice made at flush
	// time instead of a frame (deliver's deferred choice): nothing is
	// sent for it.
	choose func()
}

// Route says which device carries traffic to one peer.
type Route struct {
	Peer   int
	Device Device
}

// NewWorld builds the engine. routes gives a device for every world rank
// except this process's own (self traffic never touches a device); waker
// is the process doorbell every device rings.
func NewWorld(cfg Config, routes []Route, waker Waker, coll CollSelector) (*World, error) {
	if cfg.Size <= 0 || cfg.Rank < 0 || cfg.Rank >= cfg.Size {
		return nil, fmt.Errorf("gmpi: bad world rank %d of size %d", cfg.Rank, cfg.Size)
	}
	params, err := param.OrEnv(cfg.Params)
	if err != nil {
		return nil, fmt.Errorf("gmpi: %w", err)
	}
	cfg.Params = params
	if cfg.EagerLimit <= 0 {
		cfg.EagerLimit = param.EagerLimit.Get(params)
	}
	if waker == nil {
		waker = NewLocalWaker()
	}
	w := &World{cfg: cfg, waker: waker, coll: coll, pending: make(map[uint64]*Request)}
	w.comms.Init(ObjComm)
	w.requests.Init(ObjRequest)
	w.groups.Init(ObjGroup)
	w.keyvals.Init(ObjKeyval)
	w.errhandlers.Init(ObjErrhandler)
	w.greqClasses.Init(ObjGreqClass)
	w.sessions.Init(ObjSession)
	w.types.Init(ObjDatatype)
	w.ctx.init()
	if len(cfg.Locations) == cfg.Size {
		w.locs = cfg.Locations
		w.hosts = make([]string, cfg.Size)
		for r, l := range cfg.Locations {
			w.hosts[r] = l.Host
		}
	} else if len(cfg.Hosts) == cfg.Size {
		w.hosts = cfg.Hosts
	} else if cfg.Size == 1 {
		w.hosts = []string{cfg.Hostname}
	}
	w.routes = make([]Device, cfg.Size, cfg.Size+dynCap)
	seen := map[Device]bool{}
	for _, r := range routes {
		if r.Peer < 0 || r.Peer >= cfg.Size || r.Peer == cfg.Rank {
			return nil, fmt.Errorf("gmpi: route to bad peer %d", r.Peer)
		}
		w.routes[r.Peer] = r.Device
		if !seen[r.Device] {
			seen[r.Device] = true
			w.devices = append(w.devices, r.Device)
		}
	}
	for p, d := range w.routes {
		if d == nil && p != cfg.Rank {
			return nil, fmt.Errorf("gmpi: no device reaches rank %d", p)
		}
	}
	if err := w.setupReps(); err != nil {
		return nil, fmt.Errorf("gmpi: %w", err)
	}
	w.setupDeviceExtras()
	if len(w.devices) == 1 {
		w.sleeper, _ = w.devices[0].(Sleeper)
	}
	for _, d := range w.devices {
		if err := d.Start(w.handlerFor(d)); err != nil {
			return nil, fmt.Errorf("gmpi: starting device %s: %w", d.Name(), err)
		}
	}
	w.spinPolls = 128
	cpus := cfg.LocalCPUs
	if cpus <= 0 {
		cpus = usableCPUs()
	}
	over := cfg.LocalRanks > cpus
	if v, ok := param.Oversubscribed.Lookup(cfg.Params); ok {
		over = v
	}
	if over {
		w.spinPolls, w.yield = 1, true
	}
	// Single copy from GMPI_RMA_MIN bytes, shared with the sender from
	// GMPI_PUSH_MIN; unset, the device's copy probe picks both for this
	// machine (devices/shm/probe.go), else 512 and 256 KiB. Smaller
	// messages go eagerly or stream through the device (bench/README.md).
	w.rmaMin = max(1, param.RMAMin.Get(cfg.Params))
	w.pushMin = uint64(param.PushMin.Get(cfg.Params))
	if param.DebugRequests.Get(cfg.Params) {
		checkRequests = true
	}
	w.spinFor = param.SpinNS.Get(cfg.Params)
	w.bg.off = !param.AsyncProgress.Get(cfg.Params)
	w.remote = make([]RemoteReader, cfg.Size+dynCap)
	w.rmaOut = make([]atomic.Int32, cfg.Size+dynCap)
	for p, d := range w.routes {
		if rr, ok := d.(RemoteReader); ok && rr.RemoteReadable() {
			w.remote[p] = rr
		}
	}
	w.tuneSingleCopy(cfg)
	// Processes of other jobs get world ranks past the job's own
	// (dynamic.go): their entries exist from the start, so the data
	// path reads these tables without a lock.
	w.routes = w.routes[:cfg.Size+dynCap]
	w.outboxLen = &w.outboxWord
	w.eagerTo = make([]int, cfg.Size+dynCap)
	for p := range w.eagerTo[:cfg.Size] {
		w.eagerTo[p] = cfg.EagerLimit
		if d := w.routes[p]; d != nil {
			w.eagerTo[p] = w.eagerLimitOf(d)
		}
		// A message worth a single copy is never sent eagerly: one rule
		// for the Go path and the express lane, which both read eagerTo.
		if w.remote[p] != nil && p != cfg.Rank {
			w.eagerTo[p] = min(w.eagerTo[p], w.rmaMin-1)
		}
	}
	all := make([]int, cfg.Size)
	for i := range all {
		all[i] = i
	}
	// Context ids 0/1 belong to MPI_COMM_WORLD, 2/3 to MPI_COMM_SELF.
	if w.commWorld, err = w.newComm(HandleCommWorld, all, 0, "MPI_COMM_WORLD"); err != nil {
		return nil, err
	}
	if w.commSelf, err = w.newComm(HandleCommSelf, []int{cfg.Rank}, 2, "MPI_COMM_SELF"); err != nil {
		return nil, err
	}
	return w, nil
}

// tuneSingleCopy takes rmaMin and pushMin from the first device that
// measured them (SingleCopyTuner) when GMPI_RMA_MIN and GMPI_PUSH_MIN are
// not set; a variable that is set wins.
func (w *World) tuneSingleCopy(cfg Config) {
	_, rmaSet := param.RMAMin.Lookup(cfg.Params)
	_, pushSet := param.PushMin.Lookup(cfg.Params)
	if rmaSet && pushSet {
		return
	}
	for _, d := range w.devices {
		t, ok := d.(SingleCopyTuner)
		if !ok {
			continue
		}
		rma, push, ok := t.SingleCopyMin(w.eagerLimitOf(d))
		if param.Debug.Get(cfg.Params) {
			w.logf("gmpi: rank %d: %s: single copy from %d, shared from %d (ok %v)", cfg.Rank, t.CopyProbe(), rma, push, ok)
		}
		if !ok {
			continue
		}
		if !rmaSet {
			w.rmaMin = max(1, rma)
		}
		if !pushSet {
			w.pushMin = uint64(push)
		}
		return
	}
}

// SetThreadLevel tells the engine the thread support level the process
// runs with (MPI_THREAD_SINGLE=0 … MPI_THREAD_MULTIPLE=3). Below
// MULTIPLE, at most one thread is inside the library at a time, so the
// matching engine's data path runs without its lock. Call it before any
// communication.
func (w *World) SetThreadLevel(level int) {
	w.match.single = level < 3
	w.bg.multi = level >= 3
	w.requests.SetSingleThreaded(level < 3)
	for _, d := range w.devices {
		if s, ok := d.(interface{ SetSingleThreaded(bool) }); ok {
			s.SetSingleThreaded(level < 3)
		}
	}
}

// goConcurrent readies the engine for a goroutine of its own that
// communicates next to the application's threads (a nonblocking operation
// run in the background, MPI_Comm_idup). Below MPI_THREAD_MULTIPLE the
// data path runs without locks; this turns them on for good and calls
// OnConcurrent, which turns off the front's paths that assume one thread
// (capi's express lane). It must be called by the one thread inside the
// library, so nothing else runs on the data path while it switches.
func (w *World) goConcurrent() {
	if !w.match.single {
		return
	}
	w.SetThreadLevel(3)
	if w.OnConcurrent != nil {
		w.OnConcurrent()
	}
}

// Rank is this process's rank in MPI_COMM_WORLD.
func (w *World) Rank() int { return w.cfg.Rank }

// Size is the size of MPI_COMM_WORLD.
func (w *World) Size() int { return w.cfg.Size }

// Config returns the configuration the world was built with.
func (w *World) Config() Config { return w.cfg }

// Params returns the world's tunables (read once when it was built).
func (w *World) Params() *param.Values { return w.cfg.Params }

// CommWorld returns MPI_COMM_WORLD.
func (w *World) CommWorld() *Comm { return w.commWorld }

// CommSelf returns MPI_COMM_SELF.
func (w *World) CommSelf() *Comm { return w.commSelf }

// Abort terminates the job with code; msg says why.
func (w *World) Abort(code int, msg string) {
	if w.cfg.Abort != nil {
		w.cfg.Abort(code, msg)
	}
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(code)
}

// Close releases the devices. The caller has made sure no traffic is in
// flight (MPI_Finalize runs a barrier first).
func (w *World) Close() error {
	if !w.finalized.CompareAndSwap(false, true) {
		return nil
	}
	w.stopBackground()
	if w.bg.multi {
		// The goroutine polls without a baton: let it see stop.
		for i := 0; i < 1000 && w.bg.running.Load(); i++ {
			time.Sleep(time.Millisecond)
		}
	}
	w.closeDynamic()
	var first error
	for _, d := range w.devices {
		if err := d.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (w *World) logf(format string, args ...any) {
	if w.cfg.Log != nil {
		w.cfg.Log(format, args...)
	}
}

// SetOutboxWord moves the outbox length to *p, which must stay valid for
// the World's lifetime (capi passes a word in C memory). Call it before
// any communication.
func (w *World) SetOutboxWord(p *atomic.Int32) {
	p.Store(w.outboxLen.Load())
	w.outboxLen = p
}

// SetQueuedWord moves the matching engine's count of posted receives and
// unexpected messages (all contexts) to *p, which must stay valid for the
// World's lifetime. Call it before any communication.
func (w *World) SetQueuedWord(p *int32) {
	m := &w.match
	m.lock()
	*p = *m.queuedPtr()
	m.queued = p
	for _, q := range m.queues {
		if q != nil {
			q.queued = p
		}
	}
	for _, q := range m.part {
		q.queued = p
	}
	m.unlock()
}

// SpinPolls is how many empty polls a waiter makes before it starts
// timing its spin (1 on an oversubscribed host).
func (w *World) SpinPolls() int { return w.spinPolls }

// Yields reports whether waiters give the CPU away between polls (an
// oversubscribed host, or GMPI_OVERSUBSCRIBED=1).
func (w *World) Yields() bool { return w.yield }

// EagerLimit is the largest message that a send to world rank peer
// carries in one eager frame.
func (w *World) EagerLimit(peer int) int { return w.eagerTo[peer] }

// progress polls every device once and sends queued control frames.
// It returns how many events it handled.
func (w *World) progress() int {
	n := 0
	for _, d := range w.devices {
		n += d.Poll()
	}
	if w.outboxLen.Load() != 0 {
		n += w.flush()
	}
	if w.sched.n.Load() != 0 {
		n += w.advanceSchedules()
	}
	if w.gpoll.n.Load() != 0 {
		n += w.pollGeneralized()
	}
	if w.dyn.n.Load() != 0 {
		n += w.pollDynamic()
	}
	return n
}

// Progress makes one pass of progress (MPI_Iprobe/MPI_Test use it).
func (w *World) Progress() int { return w.progress() }

// completer is anything waitFor can wait on; *Request is one (and
// converts to the interface without allocating). waitFor calls Done until
// it first reports true and never again after that: Done may have an
// effect when it succeeds (Mprobe's takes the matched message).
type completer interface{ Done() bool }

type doneFunc func() bool

func (f doneFunc) Done() bool { return f() }

// waitUntil makes progress until done() is true.
func (w *World) waitUntil(done func() bool) { w.waitFor(doneFunc(done)) }

// waitFor makes progress until c is done: it polls for up to spinFor
// (yielding the CPU between polls on an oversubscribed host), then sleeps
// on the doorbell (armed before the last check, so a Ring from a device
// or a completing thread wakes it).
func (w *World) waitFor(c completer) {
	if c.Done() {
		return
	}
	var start time.Time
	for i := 0; ; i++ {
		if w.progress() > 0 {
			i = 0
			if c.Done() {
				return
			}
			continue
		}
		if c.Done() {
			return
		}
		if i < w.spinPolls {
			continue
		}
		if i == w.spinPolls {
			start = time.Now()
		}
		if i&15 != 0 || time.Since(start) < w.spinFor {
			if w.yield {
				osyield()
			}
			continue
		}
		if w.gpoll.n.Load() != 0 || w.mustPoll {
			// A generalized request completes only when its poll hook
			// runs, and a Polled device's frames only when it is polled:
			// no device event would wake us.
			osyield()
			i = 0
			continue
		}
		if r, ok := c.(*Request); ok && r.psleep != nil && w.sched.polled.Load() == int32(w.sched.n.Load()) &&
			w.outboxLen.Load() == 0 {
			// Only polled collectives run, and c is one that sleeps
			// on its peers' steps: sleep there, not in the slices
			// below. Point-to-point traffic still gets its progress
			// every slice.
			r.psleep.Sleep(polledSlice)
			w.progress()
			if c.Done() {
				return
			}
			i = 0
			continue
		}
		e := w.waker.Arm()
		if done, moved := w.armedPoll(c); moved {
			w.waker.Disarm()
			if done {
				return
			}
			i = 0
			continue
		}
		// A polled collective (StartPolled) moves when its peers publish
		// steps in shared memory, which rings nothing here: sleep in
		// short slices while one runs.
		limit := 100 * time.Millisecond
		if w.sched.polled.Load() != 0 {
			limit = polledSlice
		}
		// The device sleeps for a lone thread only: with several waiting
		// threads the doorbell's futex serves them better (measured:
		// p2p_threads over tcp 8x slower with the device's sleep).
		if w.sleeper == nil || !w.match.single || !w.sleeper.Sleep(w.waker, e, limit) {
			w.waker.SleepArmed(e, limit)
		}
		i = 0
	}
}

// armedWindow is how long an armed waiter keeps polling before it sleeps.
// A device may publish a frame with a plain store and read the sleeper
// count before that store is visible to us (shm on amd64 does, to avoid a
// fence per message); such a store lands within nanoseconds, so polling
// for a moment after arming catches what that device's Ring missed.
const armedWindow = 2 * time.Microsecond

// armedPoll polls for armedWindow; moved reports that c completed (done)
// or anything arrived.
func (w *World) armedPoll(c completer) (done, moved bool) {
	deadline := time.Now().Add(armedWindow)
	for {
		if w.progress() > 0 {
			return false, true
		}
		// Once Done reports true the caller must return: a completer's
		// Done may act (MPI_Mprobe's takes the message it reports), so
		// calling it again after true would take a second message and
		// drop the first.
		if c.Done() {
			return true, true
		}
		if time.Now().After(deadline) {
			return false, false
		}
	}
}
