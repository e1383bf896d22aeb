// Package hier is the multilevel, topology-aware collective component
// (MagPIe's wide-area rules on MPICH-G2's levels). It serves every
// intracommunicator whose members span more than one group at the top
// level where they differ: sites (the wide area), else machines, else
// hosts. The members of each group form a level sub-communicator ("lo",
// created without communication on first use, freed with the
// communicator), whose own collectives come from the other components:
// tuned and shm inside a site, or hier again one level down when a site
// spans several machines or hosts. Between groups, hier's own algorithms
// run on the communicator itself, from group coordinators:
//
//   - every sender->receiver path crosses at most one link between groups,
//     no item is sent to a group twice, and an operation costs one
//     latency between groups: a flat tree from the root (or the root's
//     coordinator) to the coordinators, all-pairs exchanges between
//     coordinators for barrier, allreduce and allgather;
//   - a large broadcast is cut into one piece per receiving group, each
//     sent to its group, which relays it to the others segment by
//     segment as it arrives, so every link between groups carries a
//     share (and the root sends a last part, about a bandwidth-delay
//     product, to every group directly); a large allreduce is a
//     pipelined reduce-scatter and allgather between coordinators, whose
//     result segments go on to the members of a small group as they
//     come; an allgather between sites has no gather inside a site:
//     every process sends its block to its counterpart in each other
//     site, which forwards each segment inside its site as it arrives;
//   - small operations on small communicators (bcast, allreduce,
//     allgather) end with a fan-out from the coordinators (or the root)
//     to every process, so they cost one latency between groups and no
//     hop inside a group after it; a barrier there is one all-pairs
//     round of every process, without a hop inside a group at all;
//   - transfers to several groups are cut into segments interleaved
//     over the links (GMPI_HIER_SEGMENT), so all links carry data at
//     once;
//   - reductions are done per group first when the operator is
//     commutative, or when the user asserts associativity
//     (GMPI_ASSOCIATIVE=1 or the info key gmpi_assert_associative) and
//     every group holds consecutive ranks; otherwise every operand
//     travels (still once per link) and the reduction is folded in rank
//     order, ((x0 op x1) op x2)..., with the same result on every rank.
//
// A call is a plan of phases (group collectives on lo, exchanges between
// coordinators, local steps). Blocking calls run the phases in turn, lo's
// through its blocking entries (so shm's segment serves them); nonblocking
// and persistent calls get the same phases as one schedule, lo's phases
// inlined from the schedules lo's components build. Scan, exscan and the
// v- and w- forms without a hierarchical form here keep the flat
// components' entries; all-to-all at the wide-area level is the one-round
// direct exchange (every pair once, one latency).
package hier

import (
	"sync"
	"unsafe"

	"gmpi/coll"
	"gmpi/coll/basic"
	mpirt "gmpi/runtime"
	"gmpi/runtime/param"
)

// Priority is the component's default priority: above shm (60) and tuned
// (30), which then serve the groups.
const Priority = 80

// Component is the hier component.
type Component struct{}

var _ coll.Component = Component{}

func (Component) Name() string { return "hier" }

// GMPI_COLL_HIER_PRIORITY overrides Priority (the selector reads it).
var _ = coll.PriorityParam("hier", Priority)

// Describe implements coll.Component.
func (Component) Describe(*param.Values) coll.Description {
	var names [mpirt.NumCollOps]string
	for op, n := range map[mpirt.CollOp]string{
		mpirt.CollBarrier: "direct|group_barrier+allpairs", mpirt.CollBcast: "fanout|flat_tree|split_relay_pipelined",
		mpirt.CollReduce: "group_reduce+flat_tree|canonical_fold", mpirt.CollAllreduce: "group_reduce+fanout|group_reduce+allpairs|pipelined_reduce_scatter_allgather(+pipelined_forward)|canonical_fold",
		mpirt.CollAllgather: "pairs+pipelined_forward|group_gather+allpairs", mpirt.CollAllgatherv: "pairs+pipelined_forward|group_gather+allpairs",
		mpirt.CollGather: "group_gather+flat_tree", mpirt.CollScatter: "flat_tree+group_scatter",
		mpirt.CollReduceScatter: "allreduce+block", mpirt.CollReduceScatterBlock: "allreduce+block",
		mpirt.CollAlltoall: "direct (sites only)", mpirt.CollAlltoallv: "direct (sites only)", mpirt.CollAlltoallw: "direct (sites only)",
	} {
		names[op] = n
	}
	return coll.Description{Name: "hier", Priority: Priority,
		Serves: "intracommunicators spanning several sites, or several machines or hosts one of which holds two members",
		Ops:    coll.OneEach(names, "")}
}

// Query serves intracommunicators that span several sites, or several
// machines or hosts of which at least one holds two members. Its inputs
// (the group, the topology every process learned at startup) are the
// same on every rank.
func (Component) Query(c *mpirt.Comm) (int, coll.Module) {
	if c.IsInter() || c.Size() < 2 {
		return -1, nil
	}
	t := newTopo(c)
	if t == nil {
		return -1, nil
	}
	return Priority, &module{t: t}
}

// Levels of the grouping.
const (
	levelSite = 1 + iota
	levelMachine
	levelHost
)

// topo is a communicator's grouping at its level.
type topo struct {
	level      int
	groups     [][]int // ranks of each group, ascending; groups in order of their first rank
	groupOf    []int   // rank -> group
	idx        []int   // rank -> its rank in its group's sub-communicator
	contiguous bool    // every group holds consecutive ranks
}

func newTopo(c *mpirt.Comm) *topo {
	w := c.World()
	gt, hs := w.GridTopology(), w.Hosts()
	if gt == nil {
		return nil
	}
	n := c.Size()
	for r := range n {
		wr := c.WorldRank(r)
		if wr < 0 || wr >= len(gt.Colors) || hs != nil && wr >= len(hs) {
			return nil // a process of another job
		}
	}
	hostIdx := map[string]int{}
	key := func(level, wr int) int {
		switch level {
		case levelSite:
			return gt.Colors[wr][mpirt.LevelLAN]
		case levelMachine:
			return gt.Colors[wr][mpirt.LevelSAN]
		}
		if hs == nil {
			return 0
		}
		i, ok := hostIdx[hs[wr]]
		if !ok {
			i = len(hostIdx)
			hostIdx[hs[wr]] = i
		}
		return i
	}
	for level := levelSite; level <= levelHost; level++ {
		t := &topo{level: level, groupOf: make([]int, n), idx: make([]int, n), contiguous: true}
		ids := map[int]int{}
		plural := false
		for r := range n {
			k := key(level, c.WorldRank(r))
			g, ok := ids[k]
			if !ok {
				g = len(t.groups)
				ids[k] = g
				t.groups = append(t.groups, nil)
			}
			t.groupOf[r], t.idx[r] = g, len(t.groups[g])
			t.groups[g] = append(t.groups[g], r)
			plural = plural || len(t.groups[g]) > 1
			if r > 0 && g < t.groupOf[r-1] {
				t.contiguous = false
			}
		}
		if len(t.groups) < 2 {
			continue
		}
		// Below the wide area, groups of one process each gain nothing
		// from a hierarchy: the flat components serve them.
		if level != levelSite && !plural {
			return nil
		}
		return t
	}
	return nil
}

// module is one communicator's state.
type module struct {
	t *topo
	c *mpirt.Comm

	assocEnv  bool // GMPI_ASSOCIATIVE=1
	splitMin  int  // bytes from which large vectors are split between groups
	seg       int  // bytes per message between groups (GMPI_HIER_SEGMENT)
	direct    int  // bytes of a split bcast sent to every group directly
	fanoutMax int  // GMPI_HIER_FANOUT

	mu     sync.Mutex
	loDone bool
	lo     *mpirt.Comm // this process's group (nil when it is alone in it)
	loErr  error
	// vlo is the vendor's communicator of the group when the group is
	// one vendor MPI job (vMPI) and GMPI_HIER_VENDOR allows the handoff.
	vlo mpirt.VendorGroup
}

// builder adds one call's phases to a plan.
type builder func(p *plan, a *mpirt.CollArgs)

var byteType, _ = mpirt.PredefinedDatatype(mpirt.TypeByte)

func (m *module) Enable(c *mpirt.Comm, t *mpirt.CollTable) error {
	m.c = c
	params := c.World().Params()
	m.assocEnv = param.Associative.Get(params)
	m.splitMin = max(1, int(param.HierSplitMin.Get(params)))
	m.seg = param.HierSegment.Get(params)
	m.fanoutMax = param.HierFanout.Get(params)
	if m.t.level != levelSite {
		m.seg = 1 << 30 // fast links between machines or hosts: whole messages
	}
	if d, set := param.HierDirect.Lookup(params); set {
		m.direct = d
	} else if bdp := param.WANBDP.Get(params); bdp > 0 && m.t.level == levelSite {
		// The relayed pieces take one latency more than the direct
		// part, during which a link carries a bandwidth-delay product,
		// and one segment more.
		m.direct = bdp + m.seg
	}
	ops := map[mpirt.CollOp]builder{
		mpirt.CollBarrier:            m.barrier,
		mpirt.CollBcast:              m.bcast,
		mpirt.CollReduce:             m.reduce,
		mpirt.CollAllreduce:          m.allreduce,
		mpirt.CollAllgather:          m.allgather,
		mpirt.CollAllgatherv:         m.allgather,
		mpirt.CollGather:             m.gather,
		mpirt.CollScatter:            m.scatter,
		mpirt.CollReduceScatter:      m.reduceScatter,
		mpirt.CollReduceScatterBlock: m.reduceScatter,
	}
	for op, b := range ops {
		op, b := op, b
		t.Sched[op] = func(_ *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) { return m.schedule(op, b, a) }
		t.Blocking[op] = func(_ *mpirt.Comm, a *mpirt.CollArgs) error { return m.blocking(op, b, a) }
	}
	t.Barrier = func(*mpirt.Comm) error { return m.blocking(mpirt.CollBarrier, m.barrier, &mpirt.CollArgs{}) }
	t.Bcast = func(_ *mpirt.Comm, buf unsafe.Pointer, count int, dt *mpirt.Datatype, root int) error {
		return m.blocking(mpirt.CollBcast, m.bcast, &mpirt.CollArgs{Rbuf: buf, Rcount: count, Rdt: dt, Root: root})
	}
	t.Reduce = func(_ *mpirt.Comm, sbuf, rbuf unsafe.Pointer, count int, dt *mpirt.Datatype, op mpirt.Handle, root int) error {
		return m.blocking(mpirt.CollReduce, m.reduce, &mpirt.CollArgs{Sbuf: sbuf, Rbuf: rbuf, Rcount: count, Rdt: dt, Op: op, Root: root})
	}
	t.Allreduce = func(_ *mpirt.Comm, sbuf, rbuf unsafe.Pointer, count int, dt *mpirt.Datatype, op mpirt.Handle) error {
		return m.blocking(mpirt.CollAllreduce, m.allreduce, &mpirt.CollArgs{Sbuf: sbuf, Rbuf: rbuf, Rcount: count, Rdt: dt, Op: op})
	}
	if m.t.level == levelSite {
		// All-to-all between sites: every pair exchanges its blocks
		// directly in one round (one wide-area latency, each block over
		// one link once), rather than tuned's multi-round algorithms.
		for _, op := range []mpirt.CollOp{mpirt.CollAlltoall, mpirt.CollAlltoallv, mpirt.CollAlltoallw} {
			t.Sched[op] = basic.SchedFuncs[op]
			t.Blocking[op] = nil
		}
	}
	return nil
}

// getLo returns this process's group sub-communicator, creating it on
// first use (no communication: runtime.SubComm).
func (m *module) getLo() (*mpirt.Comm, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.loDone {
		m.loDone = true
		g := m.t.groups[m.t.groupOf[m.c.Rank()]]
		if len(g) > 1 {
			wr := make([]int, len(g))
			for i, r := range g {
				wr[i] = m.c.WorldRank(r)
			}
			m.lo, m.loErr = m.c.SubComm(1, wr)
			if m.loErr == nil && m.oneVendorJob(wr) {
				vc := m.c.World().VendorColls()
				m.vlo, m.loErr = vc.VendorGroup(wr)
				if vlo := m.vlo; vlo != nil {
					m.c.OnFree(func() { vlo.Free() })
				}
			}
		}
	}
	return m.lo, m.loErr
}

// oneVendorJob reports whether the world ranks wr form one vendor MPI
// job whose collectives the group may use.
func (m *module) oneVendorJob(wr []int) bool {
	w := m.c.World()
	gt := w.GridTopology()
	if !param.HierVendor.Get(w.Params()) || w.VendorColls() == nil || gt == nil {
		return false
	}
	var color int
	for i, r := range wr {
		if len(gt.Colors[r]) <= mpirt.LevelVMPI {
			return false
		}
		if c := gt.Colors[r][mpirt.LevelVMPI]; i == 0 {
			color = c
		} else if c != color {
			return false
		}
	}
	return true
}

// vendorGroup runs op over the group with the vendor's collective when it
// can (a blocking barrier, bcast, reduce or allreduce of predefined
// types): it reports whether it did.
func (p *plan) vendorGroup(op mpirt.CollOp, a *mpirt.CollArgs) bool {
	v := p.m.vlo
	if v == nil || !p.blocking {
		return false
	}
	w := p.c.World()
	var r mpirt.VendorRequest
	var err error
	switch op {
	case mpirt.CollBarrier:
		r, err = v.Ibarrier()
	case mpirt.CollBcast:
		k := mpirt.NewPacked(a.Rbuf, a.Rcount, a.Rdt)
		me := p.lo.Rank()
		if me == a.Root {
			k.Load()
		}
		if r, err = v.Ibcast(k.Data, a.Root); err == nil {
			if err = w.WaitVendor(r); err == nil && me != a.Root {
				k.Store()
			}
		}
		if err == mpirt.ErrVendorUnknown {
			return false
		}
		p.err = err
		return true
	case mpirt.CollReduce, mpirt.CollAllreduce:
		if !v.Known(a.Rdt, a.Op) {
			return false
		}
		root := -1
		if op == mpirt.CollReduce {
			root = a.Root
		}
		sbuf := a.Sbuf
		if mpirt.IsInPlace(sbuf) {
			sbuf = mpirt.TempBuffer(a.Rcount, a.Rdt)
			mpirt.CopyTyped(sbuf, a.Rcount, a.Rdt, a.Rbuf, a.Rcount, a.Rdt)
		}
		r, err = v.Ireduce(sbuf, a.Rbuf, a.Rcount, a.Rdt, a.Op, root)
	default:
		return false
	}
	if err == mpirt.ErrVendorUnknown {
		return false
	}
	if err == nil {
		err = w.WaitVendor(r)
	}
	p.err = err
	return true
}

// schedule builds one nonblocking or persistent call.
func (m *module) schedule(_ mpirt.CollOp, b builder, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	lo, err := m.getLo()
	if err != nil {
		return nil, err
	}
	p := &plan{m: m, c: m.c, lo: lo, s: m.c.NewSchedule()}
	b(p, a)
	if p.err != nil {
		return nil, p.err
	}
	return p.s, nil
}

// blocking runs one blocking call.
func (m *module) blocking(_ mpirt.CollOp, b builder, a *mpirt.CollArgs) error {
	lo, err := m.getLo()
	if err != nil {
		return err
	}
	p := &plan{m: m, c: m.c, lo: lo, s: m.c.NewSchedule(), blocking: true}
	b(p, a)
	return p.err
}

// plan is one call being built (a schedule) or run (blocking).
type plan struct {
	m        *module
	c, lo    *mpirt.Comm
	s        *mpirt.Schedule // carries the call's tag on c in both modes
	blocking bool
	err      error
}

// local adds a local step.
func (p *plan) local(fn func() error) {
	if p.err != nil {
		return
	}
	if p.blocking {
		p.err = fn()
		return
	}
	p.s.Local(fn)
}

// group runs op over this process's group (nothing when it is alone).
func (p *plan) group(op mpirt.CollOp, a *mpirt.CollArgs) {
	if p.err != nil || p.lo == nil {
		return
	}
	if p.vendorGroup(op, a) {
		return
	}
	if p.blocking {
		p.err = p.lo.CollRun(op, a)
		return
	}
	ch, err := p.lo.CollSchedule(op, a)
	if err != nil {
		p.err = err
		return
	}
	p.s.Inline(ch)
}

// xchg adds one round of messages between groups, on c: f adds the
// sends and receives (of buffers read and filled when the round runs).
func (p *plan) xchg(f func(s *mpirt.Schedule)) {
	if p.err != nil {
		return
	}
	if !p.blocking {
		p.s.Round()
		f(p.s)
		p.s.Round()
		return
	}
	p.s.Reset()
	f(p.s)
	p.err = p.s.RunBlocking()
}

// coord is the coordinator of group g: the root when g holds it, else
// the group's first rank.
func (m *module) coord(g, root int) int {
	if root >= 0 && m.t.groupOf[root] == g {
		return root
	}
	return m.t.groups[g][0]
}

// ptr is the address of b's first byte (nil when empty).
func ptr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

// pieces cuts n elements into k near-equal ranges: [off[i], off[i+1]).
func pieces(n, k int) []int {
	off := make([]int, k+1)
	for i := range k {
		off[i+1] = off[i] + n/k
		if i < n%k {
			off[i+1]++
		}
	}
	return off
}

// segments cuts b into messages of at most seg bytes (one empty message
// for an empty b).
func segments(b []byte, seg int) [][]byte {
	if len(b) <= seg {
		return [][]byte{b}
	}
	out := make([][]byte, 0, (len(b)+seg-1)/seg)
	for len(b) > seg {
		out = append(out, b[:seg])
		b = b[seg:]
	}
	return append(out, b)
}

// sendSpread adds the sends of bufs[i] to peers[i] on c, each cut into
// segments and interleaved over the peers: a send that waits for room in
// one socket holds back the others by one segment only, so all links
// between groups carry data at once (and no message needs a rendezvous).
// recvSpread is its receiving side (the same cut).
func (m *module) sendSpread(s *mpirt.Schedule, bufs [][]byte, peers []int) {
	m.spread(bufs, peers, func(b []byte, peer int) { s.Send(m.c, b, peer) })
}

func (m *module) recvSpread(s *mpirt.Schedule, bufs [][]byte, peers []int) {
	m.spread(bufs, peers, func(b []byte, peer int) { s.Recv(m.c, b, peer) })
}

func (m *module) spread(bufs [][]byte, peers []int, add func([]byte, int)) {
	segs := make([][][]byte, len(bufs))
	most := 0
	for i, b := range bufs {
		segs[i] = segments(b, m.seg)
		most = max(most, len(segs[i]))
	}
	for k := range most {
		for i, ss := range segs {
			if k < len(ss) {
				add(ss[k], peers[i])
			}
		}
	}
}

// Small operations on communicators of at most fanoutRanks processes
// end with a fan-out: a coordinator sends its group's result (an arrival,
// a partial, a block) to every process of the other groups and to its
// own members at once, rather than to the other coordinators, which
// would forward it inside their groups. The data is small, so sending it
// to a group more than once costs nothing, and the operation ends one
// wide-area latency after the coordinators are ready, without a hop (and
// a wake-up) inside the group behind it.
const fanoutRanks = 64

// fanout reports whether a small operation of n bytes per item fans out
// (up to GMPI_HIER_FANOUT bytes).
func (m *module) fanout(n int) bool {
	return m.t.level == levelSite && m.c.Size() <= fanoutRanks && m.fanoutMax > 0 && n <= m.fanoutMax
}

// barrier: on small communicators every process tells every other one
// it arrived, in one round (one latency between groups, and no hop
// inside a group before it: a member's arrival does not wait for its
// coordinator to wake up and pass it on; each link between groups
// carries one empty message per pair of processes). Else the group's
// barrier, an all-pairs exchange of empty messages between coordinators
// (one latency), the group's barrier again.
func (m *module) barrier(p *plan, a *mpirt.CollArgs) {
	me := m.c.Rank()
	g := m.t.groupOf[me]
	if m.fanout(0) {
		p.xchg(func(s *mpirt.Schedule) {
			for r := range m.c.Size() {
				if r != me {
					s.Recv(m.c, nil, r)
					s.Send(m.c, nil, r)
				}
			}
		})
		return
	}
	p.group(mpirt.CollBarrier, a)
	if me == m.coord(g, -1) {
		p.xchg(func(s *mpirt.Schedule) {
			for h := range m.t.groups {
				if h != g {
					s.Recv(m.c, nil, m.coord(h, -1))
					s.Send(m.c, nil, m.coord(h, -1))
				}
			}
		})
	}
	p.group(mpirt.CollBarrier, a)
}

// bcast: the root sends the vector to every other group's coordinator
// (flat tree). A large vector with three groups or more is split: the
// root sends each receiving group one piece, which its coordinator
// relays to the other receiving groups segment by segment as it arrives
// (every link carries a share; relaying adds one latency and one
// segment), and the last m.direct bytes to every group directly (they
// fill the links during the relay's extra latency). Each group then
// broadcasts from its coordinator.
func (m *module) bcast(p *plan, a *mpirt.CollArgs) {
	me, root := m.c.Rank(), a.Root
	g, gr := m.t.groupOf[me], m.t.groupOf[root]
	k := mpirt.NewPacked(a.Rbuf, a.Rcount, a.Rdt)
	n := len(k.Data)
	var others, coords []int // the groups without the root, their coordinators
	mine := -1               // this group's index in others
	for h := range m.t.groups {
		if h != gr {
			if h == g {
				mine = len(others)
			}
			others = append(others, h)
			coords = append(coords, m.coord(h, root))
		}
	}
	direct := n
	if len(others) >= 2 && n >= m.splitMin && n > m.direct {
		direct = m.direct
	}
	off := pieces(n-direct, len(others))
	piece := func(j int) []byte { return k.Data[off[j]:off[j+1]] }
	rest := k.Data[n-direct:]
	if n > 0 && m.fanout(n) {
		// Small: from the root to every process at once.
		if me == root {
			p.local(k.Load)
		}
		p.xchg(func(s *mpirt.Schedule) {
			if me != root {
				s.Recv(m.c, k.Data, root)
				return
			}
			for r := range m.c.Size() {
				if r != me {
					s.Send(m.c, k.Data, r)
				}
			}
		})
		if me != root {
			p.local(k.Store)
		}
		return
	}
	switch {
	case n == 0:
	case me == root:
		p.local(k.Load)
		p.xchg(func(s *mpirt.Schedule) {
			bufs := make([][]byte, 0, 2*len(others))
			peers := make([]int, 0, 2*len(others))
			for j := range others {
				if len(piece(j)) > 0 {
					bufs, peers = append(bufs, piece(j)), append(peers, coords[j])
				}
			}
			m.sendSpread(s, bufs, peers)
			if len(rest) > 0 {
				bufs, peers = bufs[:0], peers[:0]
				for j := range others {
					bufs, peers = append(bufs, rest), append(peers, coords[j])
				}
				m.sendSpread(s, bufs, peers)
			}
		})
	case me == m.coord(g, root):
		var relay []int // the other receiving coordinators
		for j, co := range coords {
			if j != mine {
				relay = append(relay, co)
			}
		}
		segs := segments(piece(mine), m.seg)
		if len(piece(mine)) == 0 {
			segs = nil
		}
		for i := 0; i <= len(segs); i++ {
			// Round i: segment i arrives while segment i-1 goes on.
			p.xchg(func(s *mpirt.Schedule) {
				if i > 0 {
					for _, co := range relay {
						s.Send(m.c, segs[i-1], co)
					}
				}
				if i < len(segs) {
					s.Recv(m.c, segs[i], root)
					return
				}
				if len(rest) > 0 {
					m.recvSpread(s, [][]byte{rest}, []int{root})
				}
				for j, co := range coords {
					if j != mine && len(piece(j)) > 0 {
						m.recvSpread(s, [][]byte{piece(j)}, []int{co})
					}
				}
			})
		}
		p.local(k.Store)
	}
	p.group(mpirt.CollBcast, &mpirt.CollArgs{Rbuf: a.Rbuf, Rcount: a.Rcount, Rdt: a.Rdt, Root: m.t.idx[m.coord(g, root)]})
}

// perGroupFirst reports whether a reduction may combine each group's
// operands first: a commutative operator, or an asserted associative one
// on groups of consecutive ranks.
func (m *module) perGroupFirst(op mpirt.Handle) bool {
	if op.IsCommutative() {
		return true
	}
	if !m.t.contiguous {
		return false
	}
	if m.assocEnv {
		return true
	}
	v, _ := m.c.Hint("gmpi_assert_associative")
	return v == "true"
}

// operand is the address of this process's contribution to a reduction.
func operand(a *mpirt.CollArgs) unsafe.Pointer {
	if mpirt.IsInPlace(a.Sbuf) {
		return a.Rbuf
	}
	return a.Sbuf
}

// groupPartial reduces the group's operands into acc (a packed buffer)
// on the group's coordinator for root (root -1: the first rank).
func (m *module) groupPartial(p *plan, a *mpirt.CollArgs, root int, acc []byte) {
	me := m.c.Rank()
	g := m.t.groupOf[me]
	co := m.coord(g, root)
	src := operand(a)
	if p.lo == nil {
		p.local(func() error { mpirt.LoadPacked(acc, src, a.Rcount, a.Rdt); return nil })
		return
	}
	var tmp unsafe.Pointer
	if me == co {
		tmp = mpirt.TempBuffer(a.Rcount, a.Rdt)
	}
	p.group(mpirt.CollReduce, &mpirt.CollArgs{Sbuf: src, Rbuf: tmp, Rcount: a.Rcount, Rdt: a.Rdt, Op: a.Op, Root: m.t.idx[co]})
	if me == co {
		p.local(func() error { mpirt.LoadPacked(acc, tmp, a.Rcount, a.Rdt); return nil })
	}
}

// foldInto combines parts (packed operands, in canonical order): it
// returns the buffer holding parts[0] op parts[1] op ... (each
// ReducePacked puts in op inout into inout).
func foldInto(op mpirt.Handle, dt *mpirt.Datatype, parts [][]byte) ([]byte, error) {
	acc := parts[0]
	for _, x := range parts[1:] {
		if err := mpirt.ReducePacked(op, dt, acc, x); err != nil {
			return nil, err
		}
		acc = x
	}
	return acc, nil
}

// reduce: per group first (see perGroupFirst), the coordinators send
// their partials to the root, which folds them in group order; else the
// canonical fold at the root of every operand.
func (m *module) reduce(p *plan, a *mpirt.CollArgs) {
	if !m.perGroupFirst(a.Op) {
		m.canonicalReduce(p, a, a.Root)
		return
	}
	me, root := m.c.Rank(), a.Root
	g := m.t.groupOf[me]
	span := mpirt.PackedLen(a.Rcount, a.Rdt)
	if me != m.coord(g, root) {
		m.groupPartial(p, a, root, nil)
		return
	}
	parts := make([][]byte, len(m.t.groups))
	for h := range parts {
		parts[h] = make([]byte, span)
	}
	m.groupPartial(p, a, root, parts[g])
	if me != root {
		p.xchg(func(s *mpirt.Schedule) { m.sendSpread(s, [][]byte{parts[g]}, []int{root}) })
		return
	}
	p.xchg(func(s *mpirt.Schedule) {
		var in [][]byte
		var from []int
		for h := range m.t.groups {
			if h != g {
				in, from = append(in, parts[h]), append(from, m.coord(h, root))
			}
		}
		m.recvSpread(s, in, from)
	})
	p.local(func() error {
		acc, err := foldInto(a.Op, a.Rdt, parts)
		if err != nil {
			return err
		}
		mpirt.StorePacked(a.Rbuf, a.Rcount, a.Rdt, acc)
		return nil
	})
}

// allreduce: per group first, then the coordinators exchange their
// partials all-pairs (or, for large vectors and three groups or more,
// reduce-scatter and allgather them piecewise) and fold them in group
// order, so every coordinator holds the same bytes; each group
// broadcasts its coordinator's result. Else the canonical fold of every
// operand on every process.
func (m *module) allreduce(p *plan, a *mpirt.CollArgs) {
	if !m.perGroupFirst(a.Op) {
		m.canonicalReduce(p, a, -1)
		return
	}
	me := m.c.Rank()
	g := m.t.groupOf[me]
	G := len(m.t.groups)
	span := mpirt.PackedLen(a.Rcount, a.Rdt)
	if m.fanout(span) {
		// Every coordinator's partial to every process; each folds
		// them in group order.
		parts := make([][]byte, G)
		for h := range parts {
			parts[h] = make([]byte, span)
		}
		co := m.coord(g, -1)
		if me == co {
			m.groupPartial(p, a, -1, parts[g])
		} else {
			m.groupPartial(p, a, -1, nil)
		}
		p.xchg(func(s *mpirt.Schedule) {
			if me == co {
				for r := range m.c.Size() {
					if r != me {
						s.Send(m.c, parts[g], r)
					}
				}
			}
			for h := range G {
				if c := m.coord(h, -1); c != me {
					s.Recv(m.c, parts[h], c)
				}
			}
		})
		p.local(func() error {
			acc, err := foldInto(a.Op, a.Rdt, parts)
			if err != nil {
				return err
			}
			mpirt.StorePacked(a.Rbuf, a.Rcount, a.Rdt, acc)
			return nil
		})
		return
	}
	dt := a.Rdt
	split := G >= 3 && a.Rcount >= G && a.Rcount*dt.Size() >= m.splitMin
	mem := m.t.groups[g]
	forward := split && len(mem) > 1 && len(mem) <= splitForwardMax
	if me == m.coord(g, -1) {
		parts := make([][]byte, G)
		for h := range parts {
			parts[h] = make([]byte, span)
		}
		m.groupPartial(p, a, -1, parts[g])
		if split {
			var members []int
			if forward {
				members = mem[1:]
			}
			m.splitAllreduce(p, a, parts, members)
		} else {
			p.xchg(func(s *mpirt.Schedule) {
				var in, out [][]byte
				var peers []int
				for h := range G {
					if h != g {
						in, out, peers = append(in, parts[h]), append(out, parts[g]), append(peers, m.coord(h, -1))
					}
				}
				m.recvSpread(s, in, peers)
				m.sendSpread(s, out, peers)
			})
			// Folding overwrites the partials: parts[g] is sent before
			// this round starts (the exchange round completed).
			p.local(func() error {
				acc, err := foldInto(a.Op, dt, parts)
				if err != nil {
					return err
				}
				mpirt.StorePacked(a.Rbuf, a.Rcount, dt, acc)
				return nil
			})
		}
	} else {
		m.groupPartial(p, a, -1, nil)
		if forward {
			// The result segment by segment from the coordinator.
			res := make([]byte, span)
			co := m.coord(g, -1)
			p.xchg(func(s *mpirt.Schedule) {
				for _, b := range m.forwardOrder(res, a.Rcount, dt, g) {
					s.Recv(m.c, b, co)
				}
			})
			p.local(func() error { mpirt.StorePacked(a.Rbuf, a.Rcount, dt, res); return nil })
			return
		}
	}
	if forward {
		return
	}
	p.group(mpirt.CollBcast, &mpirt.CollArgs{Rbuf: a.Rbuf, Rcount: a.Rcount, Rdt: a.Rdt, Root: 0})
}

// splitAllreduce combines the coordinators' partials (parts[h] is group
// h's, parts[g] this group's, filled) into the user's receive buffer:
// piece h of the vector (a share of the elements, cut in segments) is
// reduced at group h - every coordinator sends its partial's pieces to
// their groups, interleaved, in one round - and each reduced segment
// goes to every other coordinator as soon as it is folded, while the
// next one arrives (a pipelined reduce-scatter and allgather: each link
// carries two pieces, the second following the first).
//
// With members (the other processes of this group, when it is small),
// each reduced segment goes on to them as soon as this process has it,
// rather than in a broadcast of the whole vector at the end: the call
// ends a small hop inside the group after the last wide-area segment
// (the order of these sends is forwardOrder's).
func (m *module) splitAllreduce(p *plan, a *mpirt.CollArgs, parts [][]byte, members []int) {
	me := m.c.Rank()
	g := m.t.groupOf[me]
	G := len(m.t.groups)
	dt := a.Rdt
	seg := m.splitSegs(a.Rcount, dt)
	res := make([]byte, mpirt.PackedLen(a.Rcount, dt))
	var peers []int
	for h := range G {
		if h != g {
			peers = append(peers, m.coord(h, -1))
		}
	}
	mySegs := seg(res, g)
	fold := func(t int) func() error {
		return func() error {
			in := make([][]byte, G)
			for h := range G {
				in[h] = seg(parts[h], g)[t]
			}
			acc, err := foldInto(a.Op, dt, in)
			if err != nil {
				return err
			}
			copy(mySegs[t], acc)
			return nil
		}
	}
	for t := 0; t <= len(mySegs); t++ {
		p.xchg(func(s *mpirt.Schedule) {
			if t == 0 {
				// Every piece of this partial to its group, segments
				// interleaved over the groups.
				out := make([][][]byte, G)
				most := 0
				for h := range G {
					if h != g {
						out[h] = seg(parts[g], h)
						most = max(most, len(out[h]))
					}
				}
				for i := range most {
					for h := range G {
						if i < len(out[h]) {
							s.Send(m.c, out[h][i], m.coord(h, -1))
						}
					}
				}
			} else {
				s.Local(fold(t - 1))
				for _, co := range peers {
					s.Send(m.c, mySegs[t-1], co)
				}
				for _, q := range members {
					s.Send(m.c, mySegs[t-1], q)
				}
			}
			if t < len(mySegs) {
				for h := range G {
					if h != g {
						s.Recv(m.c, seg(parts[h], g)[t], m.coord(h, -1))
					}
				}
				return
			}
			if len(members) > 0 {
				return
			}
			for h := range G {
				if h != g {
					for _, b := range seg(res, h) {
						s.Recv(m.c, b, m.coord(h, -1))
					}
				}
			}
		})
	}
	if len(members) > 0 {
		// Round u receives segment u of every other group's reduced
		// piece and passes segment u-1 on to the members.
		most := 0
		for h := range G {
			most = max(most, len(seg(res, h)))
		}
		for u := 0; u <= most; u++ {
			p.xchg(func(s *mpirt.Schedule) {
				for h := range G {
					if h == g {
						continue
					}
					ss := seg(res, h)
					if u < len(ss) {
						s.Recv(m.c, ss[u], m.coord(h, -1))
					}
					if u > 0 && u-1 < len(ss) {
						for _, q := range members {
							s.Send(m.c, ss[u-1], q)
						}
					}
				}
			})
		}
	}
	p.local(func() error { mpirt.StorePacked(a.Rbuf, a.Rcount, dt, res); return nil })
}

// splitSegs cuts a packed vector of count elements of dt for the split
// allreduce: seg(b, h) is the list of segments of piece h of b.
func (m *module) splitSegs(count int, dt *mpirt.Datatype) func(b []byte, h int) [][]byte {
	G := len(m.t.groups)
	es := dt.Size()
	segElems := max(1, m.seg/es)
	off := pieces(count, G)
	return func(b []byte, h int) [][]byte {
		var out [][]byte
		for lo := off[h]; lo < off[h+1]; lo += segElems {
			hi := min(off[h+1], lo+segElems)
			out = append(out, b[lo*es:hi*es])
		}
		return out
	}
}

// forwardOrder lists the segments of the split allreduce's result res
// in the order group g's coordinator passes them on to its members: its
// own piece's, then round by round segment u of every other group's
// piece, in group order.
func (m *module) forwardOrder(res []byte, count int, dt *mpirt.Datatype, g int) [][]byte {
	seg := m.splitSegs(count, dt)
	G := len(m.t.groups)
	out := seg(res, g)
	for u := 0; ; u++ {
		more := false
		for h := range G {
			if ss := seg(res, h); h != g && u < len(ss) {
				out, more = append(out, ss[u]), true
			}
		}
		if !more {
			return out
		}
	}
}

// splitForwardMax is the largest group whose coordinator passes the
// split allreduce's result on to each member segment by segment (larger
// groups broadcast it at the end).
const splitForwardMax = 4

// canonicalReduce gathers every operand (packed, each over each
// link once) to root (-1: to every process) and folds them in rank order
// there: the canonical result, identical on every rank.
func (m *module) canonicalReduce(p *plan, a *mpirt.CollArgs, root int) {
	span := mpirt.PackedLen(a.Rcount, a.Rdt)
	n := m.c.Size()
	sizes := make([]int, n)
	for r := range sizes {
		sizes[r] = span
	}
	mine := make([]byte, span)
	src := operand(a)
	p.local(func() error { mpirt.LoadPacked(mine, src, a.Rcount, a.Rdt); return nil })
	bl := m.gatherBlob(p, root, mine, sizes)
	if root >= 0 && m.c.Rank() != root {
		return
	}
	p.local(func() error {
		parts := make([][]byte, n)
		for r := range n {
			parts[r] = bl.block(r)
		}
		acc, err := foldInto(a.Op, a.Rdt, parts)
		if err != nil {
			return err
		}
		mpirt.StorePacked(a.Rbuf, a.Rcount, a.Rdt, acc)
		return nil
	})
}

// blob is every rank's bytes, group after group, each group's members in
// rank order.
type blob struct {
	data   []byte
	off    []int // rank -> offset of its bytes
	sizes  []int // rank -> size
	gstart []int // group -> offset; gstart[G] = len(data)
}

func (b *blob) block(r int) []byte { return b.data[b.off[r] : b.off[r]+b.sizes[r]] }
func (b *blob) group(g int) []byte { return b.data[b.gstart[g]:b.gstart[g+1]] }

func (m *module) newBlob(sizes []int) *blob {
	G := len(m.t.groups)
	b := &blob{off: make([]int, len(sizes)), sizes: sizes, gstart: make([]int, G+1)}
	at := 0
	for g, mem := range m.t.groups {
		b.gstart[g] = at
		for _, r := range mem {
			b.off[r] = at
			at += sizes[r]
		}
	}
	b.gstart[G] = at
	b.data = make([]byte, at)
	return b
}

// gatherBlob gathers mine (sizes[r] bytes on rank r, filled when the
// plan runs) into a blob on root, or on every process for root -1: each
// group gathers to its coordinator, coordinators send their group's
// bytes to the root (or all-pairs to each other), and each group
// broadcasts the whole blob (root -1). The blob is valid only where it
// was gathered to.
func (m *module) gatherBlob(p *plan, root int, mine []byte, sizes []int) *blob {
	me := m.c.Rank()
	g := m.t.groupOf[me]
	co := m.coord(g, root)
	b := m.newBlob(sizes)
	if p.lo == nil {
		p.local(func() error { copy(b.block(me), mine); return nil })
	} else {
		mem := m.t.groups[g]
		counts, displs := make([]int, len(mem)), make([]int, len(mem))
		for i, r := range mem {
			counts[i], displs[i] = sizes[r], b.off[r]-b.gstart[g]
		}
		p.group(mpirt.CollGatherv, &mpirt.CollArgs{Sbuf: ptr(mine), Scount: len(mine), Sdt: byteType,
			Rbuf: ptr(b.group(g)), Rcounts: counts, Rdispls: displs, Rdt: byteType, Root: m.t.idx[co]})
	}
	if root < 0 && m.fanout(len(b.data)) {
		// Every coordinator's group to every process.
		p.xchg(func(s *mpirt.Schedule) {
			if me == co {
				for r := range m.c.Size() {
					if r != me {
						s.Send(m.c, b.group(g), r)
					}
				}
			}
			for h := range m.t.groups {
				if c := m.coord(h, -1); c != me {
					s.Recv(m.c, b.group(h), c)
				}
			}
		})
		return b
	}
	if me == co {
		p.xchg(func(s *mpirt.Schedule) {
			var in, out [][]byte
			var from, to []int
			for h := range m.t.groups {
				switch {
				case h == g:
				case root < 0:
					in, from = append(in, b.group(h)), append(from, m.coord(h, root))
					out, to = append(out, b.group(g)), append(to, m.coord(h, root))
				case me == root:
					in, from = append(in, b.group(h)), append(from, m.coord(h, root))
				}
			}
			if root >= 0 && me != root {
				out, to = append(out, b.group(g)), append(to, root)
			}
			m.recvSpread(s, in, from)
			m.sendSpread(s, out, to)
		})
	}
	if root < 0 {
		p.group(mpirt.CollBcast, &mpirt.CollArgs{Rbuf: ptr(b.data), Rcount: len(b.data), Rdt: byteType, Root: m.t.idx[co]})
	}
	return b
}

// allgather (and allgatherv): the blob of every rank's packed block on
// every process (one latency between groups, each group's bytes once
// over each link), unpacked into the receive buffer.
func (m *module) allgather(p *plan, a *mpirt.CollArgs) {
	n, me := m.c.Size(), m.c.Rank()
	sizes := make([]int, n)
	at := func(r int) (unsafe.Pointer, int) {
		if a.Rcounts != nil {
			return basic.Block(a.Rbuf, a.Rdispls[r], a.Rcounts[r], a.Rdt), a.Rcounts[r]
		}
		return basic.BlockAt(a.Rbuf, r*a.Rcount, a.Rdt), a.Rcount
	}
	for r := range n {
		_, k := at(r)
		sizes[r] = k * a.Rdt.Size()
	}
	var src *mpirt.Packed
	if mpirt.IsInPlace(a.Sbuf) {
		q, k := at(me)
		src = mpirt.NewPacked(q, k, a.Rdt)
	} else {
		src = mpirt.NewPacked(a.Sbuf, a.Scount, a.Sdt)
	}
	p.local(src.Load)
	if m.t.level == levelSite && !m.fanout(sumInts(sizes)) {
		m.allgatherPairs(p, src.Data, sizes, func(r int, b []byte) {
			if q, k := at(r); k > 0 {
				a.Rdt.Unpack(q, b, k)
			}
		})
		return
	}
	b := m.gatherBlob(p, -1, src.Data, sizes)
	p.local(func() error {
		for r := range n {
			if q, k := at(r); k > 0 {
				a.Rdt.Unpack(q, b.block(r), k)
			}
		}
		return nil
	})
}

func sumInts(v []int) int {
	t := 0
	for _, x := range v {
		t += x
	}
	return t
}

// allgatherPairs is the allgather between sites without a gather inside
// a site before the wide area: every process sends its own block to one
// process of every other site, the one at its own index there (modulo
// that site's size), so each block crosses each wide-area link once and
// the sites' members send in parallel. Each receiver forwards every
// segment it receives to the other members of its site as soon as it
// arrives, so the call ends one small hop inside the site after the last
// wide-area segment, not after a gather and a broadcast of everything.
// Round t receives segment t of the blocks coming over the wide area,
// forwards segment t-1, and sends segment t+lead of this process's own
// block: the sends are clocked by the arrivals (the peers send at the
// same pace), lead segments ahead to cover the latency, so no socket
// holds a deep queue (whose acknowledgements, behind the data of the
// other direction, would slow the flows) and no round waits for a send
// the network has not taken. unpack(r, b) stores rank r's block b; mine
// (sizes[me] bytes) is filled when the plan runs.
func (m *module) allgatherPairs(p *plan, mine []byte, sizes []int, unpack func(r int, b []byte)) {
	n, me := m.c.Size(), m.c.Rank()
	g := m.t.groupOf[me]
	mem := m.t.groups[g]
	k := len(mem)
	// holder(r): the index in this group of the member that receives
	// rank r's block over the wide area (r's own index for this group's
	// ranks).
	holder := func(r int) int {
		if m.t.groupOf[r] == g {
			return m.t.idx[r]
		}
		return m.t.idx[r] % k
	}
	all := make([]byte, sumInts(sizes))
	off := make([]int, n)
	at := 0
	for r := range n {
		off[r] = at
		at += sizes[r]
	}
	block := func(r int) []byte { return all[off[r] : off[r]+sizes[r]] }
	segs := make([][][]byte, n)
	most := 0
	for r := range n {
		segs[r] = segments(block(r), m.seg)
		most = max(most, len(segs[r]))
	}
	// What this process receives over the wide area (by holder index:
	// the blocks the other members receive, which they forward).
	remote := make([][]int, k)
	for r := range n {
		if m.t.groupOf[r] != g {
			remote[holder(r)] = append(remote[holder(r)], r)
		}
	}
	j := m.t.idx[me]
	var to []int // this process's block goes to these processes
	for h, hm := range m.t.groups {
		if h != g {
			to = append(to, hm[j%len(hm)])
		}
	}
	lead := 2
	if bdp := m.direct - m.seg; bdp > 0 {
		lead += (bdp + m.seg - 1) / m.seg
	}
	p.local(func() error { copy(block(me), mine); return nil })
	for t := 0; t <= most; t++ {
		p.xchg(func(s *mpirt.Schedule) {
			lo, hi := t+lead, t+lead
			if t == 0 {
				lo = 0
			}
			for i := lo; i <= hi && i < len(segs[me]); i++ {
				for _, peer := range to {
					s.Send(m.c, segs[me][i], peer)
				}
			}
			for _, r := range remote[j] {
				if t < len(segs[r]) {
					s.Recv(m.c, segs[r][t], r)
				}
				if t > 0 && t-1 < len(segs[r]) {
					for i, q := range mem {
						if i != j {
							s.Send(m.c, segs[r][t-1], q)
						}
					}
				}
			}
			for i, q := range mem {
				if i == j || t == 0 {
					continue
				}
				for _, r := range remote[i] {
					if t-1 < len(segs[r]) {
						s.Recv(m.c, segs[r][t-1], q)
					}
				}
				// This group's own blocks go to every member
				// directly, segment by segment alongside (after q's
				// forwards of the round).
				if t-1 < len(segs[q]) {
					s.Recv(m.c, segs[q][t-1], q)
				}
			}
			// After the forwards, in the order the members receive.
			if t > 0 && t-1 < len(segs[me]) {
				for i, q := range mem {
					if i != j {
						s.Send(m.c, segs[me][t-1], q)
					}
				}
			}
		})
	}
	p.local(func() error {
		for r := range n {
			unpack(r, block(r))
		}
		return nil
	})
}

// gather: the blob of every block on the root, unpacked there.
func (m *module) gather(p *plan, a *mpirt.CollArgs) {
	n, me := m.c.Size(), m.c.Rank()
	var size int
	if me == a.Root {
		size = a.Rcount * a.Rdt.Size()
	} else {
		size = a.Scount * a.Sdt.Size()
	}
	sizes := make([]int, n)
	for r := range sizes {
		sizes[r] = size
	}
	var src *mpirt.Packed
	if mpirt.IsInPlace(a.Sbuf) {
		src = mpirt.NewPacked(basic.BlockAt(a.Rbuf, me*a.Rcount, a.Rdt), a.Rcount, a.Rdt)
	} else {
		src = mpirt.NewPacked(a.Sbuf, a.Scount, a.Sdt)
	}
	p.local(src.Load)
	b := m.gatherBlob(p, a.Root, src.Data, sizes)
	if me != a.Root {
		return
	}
	p.local(func() error {
		for r := range n {
			if a.Rcount > 0 && !(r == me && mpirt.IsInPlace(a.Sbuf)) {
				a.Rdt.Unpack(basic.BlockAt(a.Rbuf, r*a.Rcount, a.Rdt), b.block(r), a.Rcount)
			}
		}
		return nil
	})
}

// scatter: the root sends each group's blocks to its coordinator in one
// message; each group scatters them from there.
func (m *module) scatter(p *plan, a *mpirt.CollArgs) {
	n, me, root := m.c.Size(), m.c.Rank(), a.Root
	g := m.t.groupOf[me]
	co := m.coord(g, root)
	inPlace := me == root && mpirt.IsInPlace(a.Rbuf)
	var size int
	if me == root {
		size = a.Scount * a.Sdt.Size()
	} else {
		size = a.Rcount * a.Rdt.Size()
	}
	sizes := make([]int, n)
	for r := range sizes {
		sizes[r] = size
	}
	b := m.newBlob(sizes)
	if me == root {
		p.local(func() error {
			for r := range n {
				if size > 0 {
					a.Sdt.Pack(b.block(r), basic.BlockAt(a.Sbuf, r*a.Scount, a.Sdt), a.Scount)
				}
			}
			return nil
		})
		p.xchg(func(s *mpirt.Schedule) {
			var out [][]byte
			var to []int
			for h := range m.t.groups {
				if h != g {
					out, to = append(out, b.group(h)), append(to, m.coord(h, root))
				}
			}
			m.sendSpread(s, out, to)
		})
	} else if me == co {
		p.xchg(func(s *mpirt.Schedule) { m.recvSpread(s, [][]byte{b.group(g)}, []int{root}) })
	}
	mem := m.t.groups[g]
	mineBuf := b.block(me)
	if p.lo != nil {
		counts, displs := make([]int, len(mem)), make([]int, len(mem))
		for i, r := range mem {
			counts[i], displs[i] = sizes[r], b.off[r]-b.gstart[g]
		}
		rb := ptr(mineBuf)
		if me == co {
			rb = ptr(make([]byte, size)) // its block is in the blob already
		}
		p.group(mpirt.CollScatterv, &mpirt.CollArgs{Sbuf: ptr(b.group(g)), Scounts: counts, Sdispls: displs, Sdt: byteType,
			Rbuf: rb, Rcount: size, Rdt: byteType, Root: m.t.idx[co]})
	}
	if inPlace {
		return
	}
	p.local(func() error {
		if a.Rcount > 0 {
			a.Rdt.Unpack(a.Rbuf, mineBuf, a.Rcount)
		}
		return nil
	})
}

// reduceScatter (and reduce_scatter_block): the hierarchical allreduce of
// the whole vector into scratch memory, then this process's block.
func (m *module) reduceScatter(p *plan, a *mpirt.CollArgs) {
	n, me := m.c.Size(), m.c.Rank()
	counts := a.Rcounts
	if counts == nil {
		counts = make([]int, n)
		for r := range counts {
			counts[r] = a.Rcount
		}
	}
	total, first := 0, 0
	for r, k := range counts {
		if r == me {
			first = total
		}
		total += k
	}
	tmp := mpirt.TempBuffer(total, a.Rdt)
	m.allreduce(p, &mpirt.CollArgs{Sbuf: operand(a), Rbuf: tmp, Rcount: total, Rdt: a.Rdt, Op: a.Op})
	p.local(func() error {
		mpirt.CopyTyped(a.Rbuf, counts[me], a.Rdt, basic.BlockAt(tmp, first, a.Rdt), counts[me], a.Rdt)
		return nil
	})
}
