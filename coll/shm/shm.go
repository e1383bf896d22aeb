// Package shm is the intra-host collective component: when every rank of
// an intracommunicator runs on one host, its collectives go through one
// shared-memory segment per communicator instead of point-to-point
// messages. The segment holds, per rank, a step counter, a futex word and
// a ring of data slots (segment_unsafe.go); there are no matching queues
// and no message headers.
//
// Synchronisation. Every rank counts the steps of the collectives it has
// run on the communicator; all ranks run the same operations with the same
// arguments, so all of them compute the same step numbers (m.pv.step,
// kept in the rank's private block of the segment, which capi's C express
// lane shares: express.go). A rank publishes its own counter when it
// finishes a step, and waits for other ranks' counters to reach a step.
// A rank whose counter is at least s has finished reading everything
// published at steps up to s. The data slots form a ring allocated
// identically on every rank; a slot is reused only once every rank's
// counter has passed the last step that used it, so a fast rank runs
// ahead of slow ones by up to a ring of slots (a loop of small broadcasts
// costs the root little more than a copy).
//
// Nonblocking calls of barrier, bcast, reduce and allreduce run the same
// steps as state machines that progress polls (nonblocking.go); large
// blocks of gather, allgather, scatter and alltoall are read straight from
// their owner's memory (cross-memory attach, cma.go).
//
// Lifecycle. The segment is created lazily by the first collective on the
// communicator (collectively, with the entries this module replaced): rank
// 0 creates /dev/shm/gmpi-<job>-coll-<context>-<world rank of rank 0> with
// mode 0600, the others map it, and it is unlinked as soon as every rank
// has it mapped. It is unmapped when the communicator is freed (and by the
// exit of the process otherwise). When setting it up fails on any rank,
// every rank keeps using the replaced entries.
package shm

import (
	"fmt"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"gmpi/coll"
	mpirt "gmpi/runtime"
	"gmpi/runtime/param"
)

// Priority is the component's default priority: above basic (0) and any
// algorithmic component that works over point-to-point.
const Priority = 60

// GMPI_COLL_SHM_PRIORITY overrides Priority (the selector reads it).
var _ = coll.PriorityParam("shm", Priority)

// Component is the shared-memory collective component. JobID names the
// job in segment names (mpirun removes /dev/shm/gmpi-<JobID>-* after the
// job, whatever happened to it); the component declines every
// communicator when it is empty.
type Component struct {
	JobID string
}

var _ coll.Component = Component{}

func (Component) Name() string { return "shm" }

// Describe implements coll.Component.
func (Component) Describe(p *param.Values) coll.Description {
	d := coll.Description{Name: "shm", Priority: Priority,
		Serves: "intracommunicators of at least two processes on this host"}
	list := param.CollShmOps.Get(p)
	on := enabledOps(list)
	for _, op := range allOps {
		o := coll.OpAlgorithms{Op: op, Algorithms: []string{"shared_segment"}, Control: param.CollShmOps.Name()}
		if alg, ok := singleCopyAlgorithms[op]; ok {
			o.Algorithms = append(o.Algorithms, alg)
			o.Control = param.CollShmSingleCopy.Name()
			o.Choice = singleCopyChoice[op]
		}
		if !on[op] {
			o.Off = "not in GMPI_COLL_SHM_OPS=" + strings.Join(list, ",")
		}
		d.Ops = append(d.Ops, o)
	}
	return d
}

// singleCopyAlgorithms names the single-copy algorithm of the operations
// that have one (cma.go), and singleCopyChoice says when it runs
// (GMPI_COLL_SHM_SINGLE_COPY=1/0 forces it or the segment).
var (
	singleCopyAlgorithms = map[string]string{
		"gather": "single_copy_push", "allgather": "single_copy", "scatter": "single_copy",
		"alltoall": "single_copy", "reduce": "single_copy_slices", "allreduce": "single_copy_slices",
	}
	singleCopyChoice = map[string]string{
		"gather":    "size (single_copy_push from blocks above 256 KiB with cross-memory attach, not oversubscribed)",
		"allgather": "size (single_copy from blocks above 256 KiB with cross-memory attach, not oversubscribed)",
		"scatter":   "size (single_copy from blocks above max(256 KiB/processes, 32 KiB) with cross-memory attach, not oversubscribed)",
		"alltoall":  "size (single_copy from blocks above max(256 KiB/processes, 32 KiB), not in place, with cross-memory attach, not oversubscribed)",
		"reduce":    "size (single_copy_slices from 64 KiB with cross-memory attach, not oversubscribed)",
		"allreduce": "size (single_copy_slices from 64 KiB with cross-memory attach, not oversubscribed)",
	}
)

// Query serves intracommunicators of at least two ranks that all run on
// this host. Every input is the same on every rank: the group, and the
// host placement every rank learned at startup.
func (cp Component) Query(c *mpirt.Comm) (int, coll.Module) {
	if cp.JobID == "" || c.IsInter() || c.Size() < 2 || !sameHost(c) {
		return -1, nil
	}
	return Priority, &module{job: cp.JobID}
}

// sameHost reports whether every rank of c runs on this process's host.
func sameHost(c *mpirt.Comm) bool {
	w := c.World()
	cfg := w.Config()
	for r := range c.Size() {
		if wr := c.WorldRank(r); wr < 0 || wr >= cfg.Size {
			return false // a process of another job (connect, spawn)
		}
	}
	if cfg.LocalRanks == cfg.Size && cfg.Size > 0 {
		return true // the whole job is on this host
	}
	hs := w.Hosts()
	if len(hs) != cfg.Size {
		return false
	}
	for r := range c.Size() {
		if hs[c.WorldRank(r)] != cfg.Hostname {
			return false
		}
	}
	return true
}

// module is one communicator's state.
type module struct {
	job  string
	c    *mpirt.Comm
	prev mpirt.CollTable // the entries this module replaced (fallback)

	state int // stateNew, stateOn, stateOff
	seg   *segment
	me, n int

	pv           *private // step counter and small ring state (in the segment)
	small, large ring     // the two rings of data slots
	seen         []uint64 // seen[r]: a step rank r is known to have completed (in the segment)
	largeNext    uint64
	largeUse     [largeSlots]uint64

	// Waiting.
	spinFor time.Duration
	yield   bool // oversubscribed host: give the CPU away between polls

	ops     [mpirt.NumCollOps]bool // the operations the module takes
	scratch [][]byte               // private buffers (buf)
	stack   []part                 // combineRange's stack of partial results
	spare   [][]byte               // combineRange's free private buffers

	nb   nbQueue // nonblocking operations (nonblocking.go)
	cma  bool    // every rank reads every other's memory: single-copy blocks (cma.go)
	push bool    // cma, and every rank writes into every other's memory (gatherPush)
	// forceCMA: GMPI_COLL_SHM_SINGLE_COPY=1: single copy whenever cma
	// (push) allows, whatever the size
	forceCMA bool
}

const (
	stateNew = iota
	stateOn
	stateOff
)

func (m *module) Enable(c *mpirt.Comm, t *mpirt.CollTable) error {
	m.c, m.prev = c, *t
	m.me, m.n = c.Rank(), c.Size()
	params := c.World().Params()
	m.spinFor = param.SpinNS.Get(params)
	m.yield = c.World().SpinPolls() <= 1
	ops := enabledOps(param.CollShmOps.Get(params))
	for op := range mpirt.NumCollOps {
		m.ops[op] = ops[op.String()]
	}
	if ops["barrier"] {
		t.Barrier = m.barrier
		t.Start[mpirt.CollBarrier] = m.ibarrier
	}
	if ops["bcast"] {
		t.Bcast = m.bcast
		t.Start[mpirt.CollBcast] = m.ibcast
	}
	if ops["reduce"] {
		t.Reduce = m.reduce
		t.Start[mpirt.CollReduce] = m.ireduce
	}
	if ops["allreduce"] {
		t.Allreduce = m.allreduce
		t.Start[mpirt.CollAllreduce] = m.iallreduce
	}
	if ops["allgather"] {
		t.Blocking[mpirt.CollAllgather] = m.gatherOp(mpirt.CollAllgather, true)
	}
	if ops["gather"] {
		t.Blocking[mpirt.CollGather] = m.gatherOp(mpirt.CollGather, false)
	}
	if ops["scatter"] {
		t.Blocking[mpirt.CollScatter] = m.scatter
	}
	if ops["alltoall"] {
		t.Blocking[mpirt.CollAlltoall] = m.alltoall
	}
	if ops["scan"] {
		t.Blocking[mpirt.CollScan] = m.scanOp(mpirt.CollScan, false)
	}
	if ops["exscan"] {
		t.Blocking[mpirt.CollExscan] = m.scanOp(mpirt.CollExscan, true)
	}
	if ops["reduce_scatter_block"] {
		t.Blocking[mpirt.CollReduceScatterBlock] = m.reduceScatterBlock
	}
	c.OnFree(m.release)
	return nil
}

// The component takes every operation it implements by default
// (param.CollShmOps). Its reductions associate operands exactly as the
// point-to-point algorithms of coll/basic do (ops.go, scan.go), so a sum
// has the same bits whichever of the two computes it; a wrong residual
// in ScaLAPACK's xdsep at 4 ranks, once seen with the segment's
// reductions, came from a different association and is gone (12 of 12
// runs passed).

// allOps lists every operation the component implements.
var allOps = []string{"barrier", "bcast", "reduce", "allreduce", "allgather", "gather", "scatter",
	"alltoall", "scan", "exscan", "reduce_scatter_block"}

// enabledOps is the set of operations GMPI_COLL_SHM_OPS names ("all":
// every one; empty: the default).
func enabledOps(list []string) map[string]bool {
	if len(list) == 0 {
		list = param.CollShmOps.Get(nil)
	}
	ops := map[string]bool{}
	for _, o := range list {
		if o == "all" {
			for _, a := range allOps {
				ops[a] = true
			}
		}
		ops[o] = true
	}
	return ops
}

// ready sets the segment up on the first call (collectively: every rank of
// the communicator calls it at the same collective) and reports whether
// the shared-memory path is in use.
func (m *module) ready() bool {
	switch m.state {
	case stateOn:
		m.expressFirst() // the express lane's nonblocking call, then
		m.drain()        // the nonblocking operations started before this one
		return true
	case stateOff:
		return false
	}
	m.state = stateOff
	if err := m.setup(); err != nil {
		if log := m.c.World().Config().Log; log != nil {
			log("coll/shm: communicator %s: %v; using the point-to-point collectives", m.c.Name(), err)
		}
		m.seg.unmap()
		m.seg = nil
		return false
	}
	m.pv, m.seen = m.seg.private(m.me)
	m.small = newRing(0, smallSlot, smallSlots, &m.pv.next, m.pv.lastUse[:])
	m.large = newRing(smallBytes, largeSlot, largeSlots, &m.largeNext, m.largeUse[:])
	m.state = stateOn
	if Ready != nil {
		Ready(m.c, m.expressInfo())
	}
	return true
}

func (m *module) path() string {
	return fmt.Sprintf("/dev/shm/gmpi-%s-coll-%d-%d", m.job, m.c.CollContext(), m.c.WorldRank(0))
}

// setup creates (rank 0) or maps (the others) the segment, then makes sure
// every rank has it before rank 0 unlinks it. It returns an error on every
// rank when any rank failed.
func (m *module) setup() error {
	c := m.c
	path := m.path()
	var err error
	// ok[1]: this rank can read every other rank's memory (cma.go) and
	// its host is not oversubscribed (measured at 4 ranks on 2 cores:
	// 1 MiB blocks 0.7-0.9x single-copy, where one process copies what
	// the segment spreads over all); the minimum over the ranks decides
	// for all.
	// ok[2]: it can also write into every other rank's memory
	// (gatherPush).
	ok := [3]int32{1, 1, 1}
	force, forced := param.CollShmSingleCopy.Lookup(c.World().Params())
	m.forceCMA = forced && force
	if forced && !force || m.yield && !m.forceCMA {
		ok[1] = 0
	}
	for r := range m.n {
		if r != m.me && !c.World().RemoteReadable(c.WorldRank(r)) {
			ok[1] = 0
		}
		if r != m.me && !c.World().RemoteWritable(c.WorldRank(r)) {
			ok[2] = 0
		}
	}
	if m.me == 0 {
		m.seg, err = createSegment(path, m.n)
		if err != nil {
			ok[0] = 0
		}
	}
	byteT, _ := mpirt.PredefinedDatatype(mpirt.TypeByte)
	intT, _ := mpirt.PredefinedDatatype(mpirt.TypeInt)
	created := [1]byte{byte(ok[0])}
	if e := m.prev.Bcast(c, unsafe.Pointer(&created[0]), 1, byteT, 0); e != nil {
		return e
	}
	if created[0] == 0 {
		if err != nil {
			return err
		}
		return fmt.Errorf("rank 0 could not create %s", path)
	}
	if m.me != 0 {
		if m.seg, err = openSegment(path, m.n); err != nil {
			ok[0] = 0
		}
	}
	all := [3]int32{}
	e := m.prev.Allreduce(c, unsafe.Pointer(&ok[0]), unsafe.Pointer(&all[0]), 3, intT, mpirt.OpMin)
	m.cma = all[1] == 1
	m.push = m.cma && all[2] == 1
	if m.me == 0 {
		unix.Unlink(path)
	}
	if e != nil {
		return e
	}
	if err != nil {
		return err
	}
	if all[0] == 0 {
		return fmt.Errorf("some rank could not map %s", path)
	}
	return nil
}

// release unmaps the segment (the communicator is being freed).
func (m *module) release() {
	if m.state == stateOn {
		m.expressFirst()
		m.drain()
	}
	if m.state == stateOn && Released != nil {
		Released(m.c)
	}
	m.seg.unmap()
	m.seg = nil
	m.state = stateOff
}
