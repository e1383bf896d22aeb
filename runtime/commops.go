package mpirt

import (
	"encoding/binary"
	"math/bits"
	"sort"
	"strings"
	"sync"
)

// Communicator construction: context ids by agreement, the internal
// exchanges creation needs, and dup/split/create/free.
//
// Context ids come in pairs: an even id for point-to-point and the next
// odd one for collectives. Pair 0 is MPI_COMM_WORLD's, pair 1
// MPI_COMM_SELF's. Every process keeps a bitmap of its free pairs; a new
// communicator takes a pair that is free on every member, agreed as:
//
//  1. allreduce(BAND) the free bitmaps over the parent's collective
//     context; all members compute the same candidate from the result
//     (the lowest common free pair on the first attempt);
//  2. each member claims the candidate locally, under its pool lock, if it
//     is still free (another thread of the process, creating a
//     communicator from a different parent, may have taken it meanwhile);
//  3. allreduce(BAND) the claim flags: if every member claimed it, the
//     pair is the new communicator's; otherwise the members that claimed
//     it release it and all retry, starting the search at an offset
//     derived from the parent and the attempt, so that concurrent
//     creations on different parents drift apart instead of colliding
//     again.
//
// No pair is ever in use twice on one process, so two communicators a
// process belongs to never share a context id. Freed communicators return
// their pair.

// ctxPairs is the number of context-id pairs (ids 0..2*ctxPairs-1).
const ctxPairs = 4096

type ctxPool struct {
	mu   sync.Mutex
	free [ctxPairs / 64]uint64 // bit set: pair free
}

func (p *ctxPool) init() {
	for i := range p.free {
		p.free[i] = ^uint64(0)
	}
	p.free[0] &^= 3 // pairs 0 and 1: MPI_COMM_WORLD, MPI_COMM_SELF
}

func (p *ctxPool) snapshot() []uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]uint64(nil), p.free[:]...)
}

func (p *ctxPool) claim(pair int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	w, b := pair/64, uint64(1)<<(pair%64)
	if p.free[w]&b == 0 {
		return false
	}
	p.free[w] &^= b
	return true
}

func (p *ctxPool) release(pair int) {
	if pair < 2 || pair >= ctxPairs {
		return
	}
	p.mu.Lock()
	p.free[pair/64] |= 1 << (pair % 64)
	p.mu.Unlock()
}

// FreeContexts is the number of context-id pairs this process has free.
func (w *World) FreeContexts() int {
	n := 0
	for _, x := range w.ctx.snapshot() {
		n += bits.OnesCount64(x)
	}
	return n
}

// pickPair returns the first set bit of mask at or after start (cyclic),
// -1 when none.
func pickPair(mask []uint64, start int) int {
	for i := 0; i < ctxPairs; i++ {
		p := (start + i) % ctxPairs
		if mask[p/64]&(1<<(p%64)) != 0 {
			return p
		}
	}
	return -1
}

// Internal tags on a communicator's collective context. User collectives
// use small positive tags; these are negative so they never match them
// (MPI_ANY_TAG is -1 and is never used on the collective context).
const (
	tagSysAllreduce = -100 - iota
	tagSysGather
	tagSysBcast
	// tagSysUser is the base of the tag offsets derived from a user tag
	// (MPI_Comm_create_group): tagSysUser - 4*(tag&0x0fffffff).
	tagSysUser = -1 << 29
)

// sysGroup is the set of processes that take part in an internal
// exchange on c's collective context: every member of c, or (for
// MPI_Comm_create_group) a subset of them. Members are named by their
// rank in c on the wire, so every message carries the sender's rank in c:
// exchanges of different subsets that share c's context (and the tag)
// never take each other's messages, as they would if each subset
// numbered its members from 0.
type sysGroup struct {
	c     *Comm
	ranks []int // member i is rank ranks[i] of c; nil: rank i of c
	me    int   // this process's index among the members
}

// sys is the exchange group of every member of c.
func (c *Comm) sys() sysGroup { return sysGroup{c: c, me: c.rank} }

func (g sysGroup) size() int {
	if g.ranks == nil {
		return g.c.Size()
	}
	return len(g.ranks)
}

func (g sysGroup) rankInC(i int) int {
	if g.ranks == nil {
		return i
	}
	return g.ranks[i]
}

func (g sysGroup) send(buf []byte, i, tag int) error { return g.c.sysSend(buf, g.rankInC(i), tag) }

func (g sysGroup) recv(buf []byte, i, tag int) error { return g.c.sysRecv(buf, g.rankInC(i), tag) }

func (g sysGroup) probe(i, tag int) Status {
	return g.c.w.Probe(g.c, g.c.CollContext(), g.rankInC(i), tag)
}

// allreduceAnd replaces words with their bitwise AND over every member
// (gather to member 0, then broadcast).
func (g sysGroup) allreduceAnd(words []uint64, tagOff int) error {
	buf := make([]byte, 8*len(words))
	for i, x := range words {
		binary.LittleEndian.PutUint64(buf[8*i:], x)
	}
	n, me := g.size(), g.me
	if n == 1 {
		return nil
	}
	if me != 0 {
		if err := g.send(buf, 0, tagSysAllreduce+tagOff); err != nil {
			return err
		}
	} else {
		tmp := make([]byte, len(buf))
		for r := 1; r < n; r++ {
			if err := g.recv(tmp, r, tagSysAllreduce+tagOff); err != nil {
				return err
			}
			for i := range words {
				words[i] &= binary.LittleEndian.Uint64(tmp[8*i:])
			}
		}
		for i, x := range words {
			binary.LittleEndian.PutUint64(buf[8*i:], x)
		}
	}
	if err := g.bcast(buf, tagOff); err != nil {
		return err
	}
	for i := range words {
		words[i] = binary.LittleEndian.Uint64(buf[8*i:])
	}
	return nil
}

// bcast broadcasts buf (same length everywhere) from member 0 over a
// binomial tree.
func (g sysGroup) bcast(buf []byte, tagOff int) error {
	n, me := g.size(), g.me
	mask := 1
	for ; mask < n; mask <<= 1 {
		if me&mask != 0 {
			if err := g.recv(buf, me-mask, tagSysBcast+tagOff); err != nil {
				return err
			}
			break
		}
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if me+mask < n {
			if err := g.send(buf, me+mask, tagSysBcast+tagOff); err != nil {
				return err
			}
		}
	}
	return nil
}

// sysAllgather returns every member's mine, indexed by rank. The pieces
// may differ in length.
func (c *Comm) sysAllgather(mine []byte, tagOff int) ([][]byte, error) {
	return c.sys().allgather(mine, tagOff)
}

func (g sysGroup) allgather(mine []byte, tagOff int) ([][]byte, error) {
	n, me := g.size(), g.me
	out := make([][]byte, n)
	if n == 1 {
		out[0] = mine
		return out, nil
	}
	var all []byte
	if me != 0 {
		if err := g.send(mine, 0, tagSysGather+tagOff); err != nil {
			return nil, err
		}
	} else {
		out[0] = mine
		for r := 1; r < n; r++ {
			st := g.probe(r, tagSysGather+tagOff)
			b := make([]byte, st.Count)
			if err := g.recv(b, r, tagSysGather+tagOff); err != nil {
				return nil, err
			}
			out[r] = b
		}
		for _, b := range out {
			all = binary.LittleEndian.AppendUint64(all, uint64(len(b)))
			all = append(all, b...)
		}
	}
	var lenBuf [8]byte
	binary.LittleEndian.PutUint64(lenBuf[:], uint64(len(all)))
	if err := g.bcast(lenBuf[:], tagOff); err != nil {
		return nil, err
	}
	if me != 0 {
		all = make([]byte, binary.LittleEndian.Uint64(lenBuf[:]))
	}
	if err := g.bcast(all, tagOff); err != nil {
		return nil, err
	}
	if me == 0 {
		return out, nil
	}
	for r := 0; r < n; r++ {
		if len(all) < 8 {
			return nil, Errorf(ErrIntern, "", "short internal allgather message")
		}
		l := binary.LittleEndian.Uint64(all)
		all = all[8:]
		if uint64(len(all)) < l {
			return nil, Errorf(ErrIntern, "", "short internal allgather message")
		}
		out[r], all = all[:l:l], all[l:]
	}
	return out, nil
}

func (c *Comm) sysSend(buf []byte, dest, tag int) error {
	r, err := c.w.Isend(c, c.ctx+1, buf, dest, tag, ModeStandard)
	if err != nil {
		return err
	}
	return c.w.Wait(r)
}

func (c *Comm) sysRecv(buf []byte, src, tag int) error {
	return c.w.Wait(c.w.Irecv(c, c.ctx+1, buf, src, tag))
}

// allocContext agrees on a free context-id pair with every member of c
// and returns its point-to-point id.
func (c *Comm) allocContext() (uint32, error) { return c.sys().allocContext(0) }

// allocContext agrees on a free context-id pair with every member of g
// and returns its point-to-point id. tagOff separates concurrent
// agreements on the same context (MPI_Comm_create_group).
func (g sysGroup) allocContext(tagOff int) (uint32, error) {
	w := g.c.w
	for attempt := 0; ; attempt++ {
		mask := w.ctx.snapshot()
		if err := g.allreduceAnd(mask, tagOff); err != nil {
			return 0, err
		}
		start := 0
		if attempt > 0 {
			// Same on every member: derived from the context, the tag
			// offset and the attempt, so that agreements running at the
			// same time (an MPI_Comm_idup in progress, MPI_Comm_create_group
			// on other tags) drift apart instead of colliding again.
			h := uint64(g.c.ctx)*0x9e3779b97f4a7c15 + uint64(int64(tagOff))*0x94d049bb133111eb + uint64(attempt)*0xbf58476d1ce4e5b9
			start = int(h >> 52 % ctxPairs)
		}
		pair := pickPair(mask, start)
		if pair < 0 {
			return 0, Errorf(ErrOther, "", "no free context id is common to the %d processes (too many communicators)", g.size())
		}
		ok := w.ctx.claim(pair)
		flag := []uint64{0}
		if ok {
			flag[0] = 1
		}
		if err := g.allreduceAnd(flag, tagOff); err != nil {
			if ok {
				w.ctx.release(pair)
			}
			return 0, err
		}
		if flag[0] == 1 {
			return uint32(2 * pair), nil
		}
		if ok {
			w.ctx.release(pair)
		}
	}
}

// derive builds a communicator over group (world ranks) with context ctx,
// inheriting c's error handler. Members only.
func (c *Comm) derive(group []int, ctx uint32) (*Comm, error) {
	return c.deriveInto(nil, group, ctx)
}

// deriveInto is derive building into (with its handle and error
// handler) instead of a new communicator when into is not nil.
func (c *Comm) deriveInto(into *Comm, group []int, ctx uint32) (*Comm, error) {
	var nc *Comm
	var err error
	if into == nil {
		nc, err = c.w.newComm(0, group, ctx, "")
	} else {
		into.group, into.ctx = group, ctx
		nc, err = c.w.setupComm(into, into.handle)
	}
	if err != nil {
		c.w.ctx.release(int(ctx / 2))
		return nil, err
	}
	if into == nil {
		c.mu.Lock()
		nc.errhandler, nc.userEH = c.errhandler, c.userEH
		c.mu.Unlock()
	}
	return nc, nil
}

// Communicator creation is collective over the parent, and every member
// calls the creations on one parent in the same order (MPI's rule for
// collectives). An MPI_Comm_idup may still be running in the background
// when the next creation on its parent starts, so each creation takes a
// ticket in call order and runs once the one before it has finished:
// their internal messages (same context, same tags) never mix, and they
// do not compete for context ids on this process.

// ticket queues a creation on c: it returns the previous creation's done
// channel (nil if none is pending) and this one's, to close when done.
func (c *Comm) ticket() (prev, mine chan struct{}) {
	mine = make(chan struct{})
	c.mu.Lock()
	prev, c.createTail = c.createTail, mine
	c.mu.Unlock()
	return prev, mine
}

// inOrder runs creation f on c after the creations started before it.
func (c *Comm) inOrder(f func() (*Comm, error)) (*Comm, error) {
	prev, mine := c.ticket()
	defer close(mine)
	if prev != nil {
		<-prev
	}
	return f()
}

// Dup is MPI_Comm_dup (info nil) and MPI_Comm_dup_with_info: a new
// communicator with the same group, c's error handler, the attributes
// that the copy callbacks keep, and c's hints (or info's).
func (c *Comm) Dup(info *Info) (*Comm, error) {
	return c.inOrder(func() (*Comm, error) {
		nc, err := c.dupGroup(nil)
		if err != nil {
			return nil, err
		}
		nc.info = c.hintsFor(info)
		if err := c.Attrs.CopyTo(c.handle, &nc.Attrs); err != nil {
			nc.Attrs.DeleteAll(nc.handle)
			c.w.destroy(nc)
			return nil, err
		}
		return nc, nil
	})
}

// dupGroup agrees on the context of a duplicate of c and builds it, with
// c's topology, without attributes and hints: a new communicator, or into
// (MPI_Comm_idup's placeholder, keeping its handle and error handler)
// when into is not nil.
func (c *Comm) dupGroup(into *Comm) (*Comm, error) {
	var nc *Comm
	var err error
	if c.IsInter() {
		nc, err = c.interDup(into)
	} else {
		var ctx uint32
		if ctx, err = c.allocContext(); err == nil {
			nc, err = c.deriveInto(into, append([]int(nil), c.group...), ctx)
		}
	}
	if err != nil {
		return nil, err
	}
	nc.topo = c.topo
	return nc, nil
}

// hintsFor is the hints a duplicate of c gets: info's when given, else
// c's.
func (c *Comm) hintsFor(info *Info) *Info {
	if info != nil {
		return commHints(info)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.info != nil {
		return c.info.Dup()
	}
	return nil
}

// Idup starts MPI_Comm_idup (info nil) or MPI_Comm_idup_with_info. The
// attributes are copied (their copy callbacks run) and the hints taken
// now, in the caller; the context agreement runs in the background, after
// the creations started on c before it, so that ranks may start it at
// different times and do other communication meanwhile.
//
// The new communicator's handle exists at once, as MPICH's does: publish
// gets it before Idup returns. Until the agreement is done the handle
// names a pending communicator (World.PendingComm) that has c's error
// handler, the copied attributes and the hints, and that the program may
// give another error handler, a name, attributes or hints (mpi4py sets
// the error handler right after MPI_Comm_idup); it is not yet usable for
// anything else. The agreement then builds the communicator in place, in
// that same object and under that same handle, so everything keyed by
// the handle (the C lanes' registrations, capi's caches) is made for the
// final handle. finish gets the new communicator (nil and the error on
// failure, the handle then freed) before the returned request completes.
func (c *Comm) Idup(info *Info, publish func(Handle), finish func(*Comm, error)) (*Request, error) {
	var attrs Attrs
	if err := c.Attrs.CopyTo(c.handle, &attrs); err != nil {
		return nil, err
	}
	hints := c.hintsFor(info)
	w := c.w
	w.goConcurrent()
	nc := &Comm{w: w, rank: -1, info: hints}
	c.mu.Lock()
	nc.errhandler, nc.userEH = c.errhandler, c.userEH
	c.mu.Unlock()
	nc.Attrs.list = attrs.list
	nc.pending.Store(true)
	nc.handle = w.comms.Add(nc)
	publish(nc.handle)
	r := &Request{w: w, comm: c}
	r.Status = Status{Source: AnySource, Tag: AnyTag}
	prev, mine := c.ticket()
	w.creating.Add(1)
	go func() {
		defer w.doneCreating()
		var err error
		func() {
			defer close(mine)
			defer func() {
				if p := recover(); p != nil {
					err = Errorf(ErrIntern, "", "internal error in the background of MPI_Comm_idup: %v", p)
				}
			}()
			if prev != nil {
				<-prev
			}
			_, err = c.dupGroup(nc)
		}()
		done := nc
		if err == nil {
			nc.pending.Store(false)
		} else {
			w.comms.Remove(nc.handle)
			done = nil
		}
		finish(done, err)
		r.Err = err
		if err != nil {
			r.Status.Error = ErrorClassOf(err)
		}
		w.complete(r)
	}()
	return r, nil
}

// Split is MPI_Comm_split: the members with the same color form a new
// communicator, ordered by key then by rank in c. It returns nil for
// color Undefined. Any other negative color is an ordinary color, as
// MPICH takes it (the MPICH-G2 topology example splits by -1).
func (c *Comm) Split(color, key int) (*Comm, error) {
	return c.inOrder(func() (*Comm, error) { return c.split(color, key) })
}

func (c *Comm) split(color, key int) (*Comm, error) {
	if c.IsInter() {
		return c.interSplit(color, key)
	}
	var mine [8]byte
	binary.LittleEndian.PutUint32(mine[:], uint32(int32(color)))
	binary.LittleEndian.PutUint32(mine[4:], uint32(int32(key)))
	all, err := c.sysAllgather(mine[:], 0)
	if err != nil {
		return nil, err
	}
	type member struct{ key, rank int }
	var ms []member
	for r, b := range all {
		if len(b) != 8 {
			return nil, Errorf(ErrIntern, "", "bad split record from rank %d", r)
		}
		col := int(int32(binary.LittleEndian.Uint32(b)))
		if color != Undefined && col == color {
			ms = append(ms, member{int(int32(binary.LittleEndian.Uint32(b[4:]))), r})
		}
	}
	ctx, err := c.allocContext()
	if err != nil {
		return nil, err
	}
	if color == Undefined {
		c.w.ctx.release(int(ctx / 2))
		return nil, nil
	}
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].key < ms[j].key })
	group := make([]int, len(ms))
	for i, m := range ms {
		group[i] = c.group[m.rank]
	}
	return c.derive(group, ctx)
}

// Split types (MPI_COMM_TYPE_*).
const (
	CommTypeShared     = 1
	CommTypeHWGuided   = 2
	CommTypeHWUnguided = 3
)

// SplitType is MPI_Comm_split_type. Shared memory domains are hosts (the
// host names the launch gave). MPI_COMM_TYPE_HW_GUIDED understands the
// info key mpi_hw_resource_type with the values mpi_shared_memory (host),
// gmpi_machine (the grid's machine) and gmpi_site (the grid's site); other
// values, and MPI_COMM_TYPE_HW_UNGUIDED, give MPI_COMM_NULL (nil). The
// value must be the same on every process.
func (c *Comm) SplitType(typ, key int, info *Info) (*Comm, error) {
	if c.IsInter() {
		return nil, errIntercomm("comm")
	}
	color := Undefined
	switch typ {
	case Undefined:
	case CommTypeShared:
		color = -2
	case CommTypeHWGuided:
		v, _ := info.Get("mpi_hw_resource_type")
		switch v {
		case "mpi_shared_memory":
			color = -2
		case "gmpi_machine", "gmpi_site":
			level := LevelSAN
			if v == "gmpi_site" {
				level = LevelLAN
			}
			if t := c.w.GridTopology(); t != nil {
				color = t.Colors[c.group[c.rank]][level]
			} else if level == LevelSAN {
				color = -2 // no grid known: a machine per host
			} else {
				color = 0
			}
		}
	case CommTypeHWUnguided:
	default:
		return nil, Errorf(ErrArg, "", "invalid argument split_type: %d", typ)
	}
	return c.inOrder(func() (*Comm, error) {
		if color == -2 {
			hosts, err := c.hostsOf()
			if err != nil {
				return nil, err
			}
			me := hosts[c.rank]
			for i, h := range hosts {
				if h == me {
					color = i
					break
				}
			}
		}
		return c.split(color, key)
	})
}

// hostsOf returns the host name of every member of c, from the world's
// table when known, else by an exchange over c (collective).
func (c *Comm) hostsOf() ([]string, error) {
	if hs := c.w.Hosts(); hs != nil {
		out := make([]string, len(c.group))
		for i, g := range c.group {
			if g >= len(hs) {
				out = nil // a process of another job: ask everybody
				break
			}
			out[i] = hs[g]
		}
		if out != nil {
			return out, nil
		}
	}
	all, err := c.sysAllgather([]byte(c.w.cfg.Hostname), 0)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(all))
	for i, b := range all {
		out[i] = string(b)
	}
	return out, nil
}

// Hosts returns the host name of every world rank, nil when not known
// yet (see ExchangeHosts).
func (w *World) Hosts() []string {
	w.hostsMu.Lock()
	defer w.hostsMu.Unlock()
	return w.hosts
}

// ExchangeHosts makes every process learn every world rank's host name,
// with an allgather over MPI_COMM_WORLD; it is collective over the world
// unless the names were given in Config.Hosts (then it does nothing).
func (w *World) ExchangeHosts() error {
	if w.Hosts() != nil {
		return nil
	}
	all, err := w.commWorld.sysAllgather([]byte(w.cfg.Hostname), 0)
	if err != nil {
		return err
	}
	hs := make([]string, len(all))
	for i, b := range all {
		hs[i] = string(b)
	}
	w.hostsMu.Lock()
	w.hosts = hs
	w.hostsMu.Unlock()
	return nil
}

// HostIndex returns, for world rank r, the index of its host among the
// distinct hosts in order of first appearance in MPI_COMM_WORLD (0 when
// the hosts are unknown).
func (w *World) HostIndex(r int) int {
	hs := w.Hosts()
	if hs == nil || r < 0 || r >= len(hs) {
		return 0
	}
	idx := map[string]int{}
	for _, h := range hs {
		if _, ok := idx[h]; !ok {
			idx[h] = len(idx)
		}
	}
	return idx[hs[r]]
}

// Create is MPI_Comm_create: collective over c; the members of g (which
// must be a subset of c) get the new communicator, the others nil.
func (c *Comm) Create(g *Group) (*Comm, error) {
	for i, wr := range g.ranks {
		if !c.hasWorldRank(wr) {
			return nil, Errorf(ErrGroup, "", "invalid group argument group: its rank %d (world rank %d) is not in the communicator", i, wr)
		}
	}
	return c.inOrder(func() (*Comm, error) {
		if c.IsInter() {
			return c.interCreate(g)
		}
		ctx, err := c.allocContext()
		if err != nil {
			return nil, err
		}
		if g.RankOf(c.w.cfg.Rank) < 0 {
			c.w.ctx.release(int(ctx / 2))
			return nil, nil
		}
		return c.derive(append([]int(nil), g.ranks...), ctx)
	})
}

func (c *Comm) hasWorldRank(wr int) bool { return c.rankOfWorld(wr) >= 0 }

// rankOfWorld is world rank wr's rank in c's (local) group, -1 if none.
func (c *Comm) rankOfWorld(wr int) int {
	for i, x := range c.group {
		if x == wr {
			return i
		}
	}
	return -1
}

// CreateGroup is MPI_Comm_create_group: collective over the members of g
// only (a subset of c that includes the caller); tag tells concurrent
// calls on c apart.
func (c *Comm) CreateGroup(g *Group, tag int) (*Comm, error) {
	if c.IsInter() {
		return nil, errIntercomm("comm")
	}
	for i, wr := range g.ranks {
		if !c.hasWorldRank(wr) {
			return nil, Errorf(ErrGroup, "", "invalid group argument group: its rank %d (world rank %d) is not in the communicator", i, wr)
		}
	}
	me := g.RankOf(c.w.cfg.Rank)
	if me < 0 {
		return nil, Errorf(ErrGroup, "", "invalid group argument group: the calling process is not a member")
	}
	// The members agree on c's collective context, named by their ranks
	// in c, with tags derived from the user's tag.
	ranks := make([]int, len(g.ranks))
	for i, wr := range g.ranks {
		ranks[i] = c.rankOfWorld(wr)
	}
	ctx, err := sysGroup{c: c, ranks: ranks, me: me}.allocContext(tagSysUser - 4*(tag&0x0fffffff))
	if err != nil {
		return nil, err
	}
	return c.derive(append([]int(nil), g.ranks...), ctx)
}

// CompareComms is MPI_Comm_compare.
func CompareComms(a, b *Comm) int {
	if a == b {
		return Ident
	}
	if a.IsInter() || b.IsInter() {
		return compareInter(a, b)
	}
	switch CompareGroups(a.Group(), b.Group()) {
	case Ident:
		return Congruent
	case Similar:
		return Similar
	}
	return Unequal
}

// Free is MPI_Comm_free: the attributes' delete callbacks run (newest
// first; a failing one stops the free and its error is returned), then
// the handle and the context ids are released.
//
// An MPI_Comm_idup still running on c in the background keeps using c's
// context: freeing c is legal then (the idup completes), so the handle
// goes at once and the rest of c is released when the creations started
// on it are done.
func (c *Comm) Free() error {
	w := c.w
	if c == w.commWorld || c == w.commSelf {
		return Errorf(ErrComm, "", "invalid communicator argument comm: %s cannot be freed", c.name)
	}
	if err := c.Attrs.DeleteAll(c.handle); err != nil {
		return err
	}
	c.mu.Lock()
	tail := c.createTail
	c.mu.Unlock()
	if tail != nil {
		select {
		case <-tail:
		default:
			w.comms.Remove(c.handle)
			w.creating.Add(1)
			go func() {
				defer w.doneCreating()
				<-tail
				w.release(c)
			}()
			return nil
		}
	}
	w.destroy(c)
	return nil
}

// doneCreating ends one of the background jobs WaitCreations waits for.
func (w *World) doneCreating() {
	w.creating.Add(-1)
	w.waker.Ring()
}

// WaitCreations makes progress until no communicator creation runs in the
// background and no release waits for one (MPI_Finalize completes pending
// MPI_Comm_idup operations first, as MPICH does).
func (w *World) WaitCreations() {
	w.waitUntil(func() bool { return w.creating.Load() == 0 })
}

// destroy releases c's handle, hooks and context pair.
func (w *World) destroy(c *Comm) {
	if w.release(c) {
		w.comms.Remove(c.handle)
	}
}

// release releases c's hooks, matching queues and context pair (not its
// handle); it reports whether it did (false: c was released before).
func (w *World) release(c *Comm) bool {
	c.mu.Lock()
	if c.freed {
		c.mu.Unlock()
		return false
	}
	c.freed = true
	hooks := c.onFree
	c.onFree = nil
	c.mu.Unlock()
	for _, f := range hooks {
		f()
	}
	// Drop the matching queues of the two contexts when they are empty,
	// so that a reused id starts clean.
	m := &w.match
	m.mu.Lock()
	m.dropIfEmptyLocked(c.ctx)
	m.dropIfEmptyLocked(c.ctx + 1)
	m.mu.Unlock()
	if c.subDepth == 0 {
		w.ctx.release(int(c.ctx / 2))
	}
	if c.local != nil {
		w.destroy(c.local)
	}
	return true
}

// CommCount is the number of live communicator handles besides
// MPI_COMM_WORLD and MPI_COMM_SELF (leak checks).
func (w *World) CommCount() int { return w.comms.Len() }

// Info returns a copy of c's hints (MPI_Comm_get_info).
func (c *Comm) Info() *Info {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := NewInfo()
	for _, k := range commAssertKeys {
		v := "false"
		if c.info != nil {
			if s, ok := c.info.Get(k); ok {
				v = s
			}
		}
		out.Set(k, v)
	}
	if c.info != nil {
		for _, k := range gmpiCommKeys {
			if v, ok := c.info.Get(k); ok {
				out.Set(k, v)
			}
		}
	}
	return out
}

// Hint returns the value of the hint key on c (one of commAssertKeys or
// gmpiCommKeys, normalized to "true" or "false"), false when not set.
func (c *Comm) Hint(key string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.info == nil {
		return "", false
	}
	return c.info.Get(key)
}

// SetInfo replaces c's hints (MPI_Comm_set_info). Keys gmpi does not know
// are ignored, so MPI_Comm_get_info reports only the hints in force.
func (c *Comm) SetInfo(in *Info) {
	d := commHints(in)
	c.mu.Lock()
	c.info = d
	c.mu.Unlock()
}

// commAssertKeys are the communicator hints gmpi knows (MPI 4.0's
// assertions); MPI_Comm_get_info reports each, "false" when not set, as
// MPICH does.
var commAssertKeys = []string{"mpi_assert_no_any_tag", "mpi_assert_no_any_source",
	"mpi_assert_exact_length", "mpi_assert_allow_overtaking"}

// gmpiCommKeys are gmpi's own boolean communicator hints, reported by
// MPI_Comm_get_info only when set: gmpi_assert_associative (the user's
// reduction operators are associative, so coll/hier may reduce per site
// first even when an operator is not commutative).
var gmpiCommKeys = []string{"gmpi_assert_associative"}

// commHints keeps the known hints of in whose value is a boolean,
// normalized to "true" or "false".
func commHints(in *Info) *Info {
	out := NewInfo()
	if in == nil {
		return out
	}
	for _, k := range append(commAssertKeys[:len(commAssertKeys):len(commAssertKeys)], gmpiCommKeys...) {
		if v, ok := in.Get(k); ok {
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "true":
				out.Set(k, "true")
			case "false":
				out.Set(k, "false")
			}
		}
	}
	return out
}

// DoneRequest returns a request that is already complete, for operations
// that finish at once but must hand out a request (MPI_Comm_idup).
func (w *World) DoneRequest(c *Comm) *Request {
	r := &Request{w: w, comm: c}
	r.Status = Status{Source: AnySource, Tag: AnyTag}
	r.done.Store(true)
	return r
}
