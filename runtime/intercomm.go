package mpirt

import (
	"encoding/binary"
	"sort"
	"unsafe"
)

// Intercommunicators.
//
// An intercommunicator joins two disjoint groups. Each process sees its
// own group as the local group (MPI_Comm_rank/size/group) and the other
// as the remote group (c.remote): point-to-point ranks name remote
// processes, and the frame header's Source, the sender's rank in its own
// group, is exactly the receiver's remote rank, so matching (wildcards
// included) needs nothing special once both groups use the same context
// ids.
//
// Every intercommunicator carries a hidden intracommunicator over its
// local group (c.local, without a handle), with context ids of its own:
// the intercommunicator collectives and the construction calls run their
// local phases on it. The rank-0 processes of the two local groups, the
// leaders, talk to each other on the intercommunicator's collective
// context.
//
// Context ids: an intercommunicator needs a pair that is free on every
// process of both groups, and its hidden communicator a pair free on
// every local process. agreePairs does both in one agreement: each group
// ANDs its free bitmaps towards its leader, the leaders swap and AND the
// two results, each leader broadcasts the common bitmap to its group, and
// everybody takes the same n lowest common free pairs (then the claim
// flags go the same way, as in allocContext, and a failed claim retries).
// Both groups' hidden communicators get the same pair, which is harmless:
// their members are disjoint and ids are per process.

// Internal tags (on a local intracommunicator's, or the
// intercommunicator's, collective context); see commops.go for the
// others.
const (
	tagSysInterAnd = -120 - iota
	tagSysInterBcast
	tagSysInterLeader
)

// IsInter reports whether c is an intercommunicator.
func (c *Comm) IsInter() bool { return c.remote != nil }

// RemoteSize is the size of c's remote group (0 on an intracommunicator).
func (c *Comm) RemoteSize() int { return len(c.remote) }

// RemoteGroup returns the remote group of intercommunicator c.
func (c *Comm) RemoteGroup() *Group { return NewGroup(c.remote) }

// LocalComm returns the hidden intracommunicator over the local group of
// intercommunicator c (nil on an intracommunicator). It has no handle;
// collective components use it for their local phases.
func (c *Comm) LocalComm() *Comm { return c.local }

// PeerSize is the number of processes point-to-point ranks on c can
// name: the remote group's size on an intercommunicator.
func (c *Comm) PeerSize() int {
	if c.remote != nil {
		return len(c.remote)
	}
	return len(c.group)
}

func errIntercomm(arg string) error {
	return Errorf(ErrComm, "", "invalid communicator argument %s: the operation is not defined on an intercommunicator", arg)
}

// IntercommCreate is MPI_Intercomm_create, collective over l (the
// local_comm argument): leader is the local leader's rank in l; peer,
// remoteLeader and tag are significant only at the leader, where lerr,
// when not nil, is an argument error found there: it then fails the call
// on every member of l instead of leaving them waiting.
func (l *Comm) IntercommCreate(leader int, peer *Comm, remoteLeader, tag int, lerr error) (*Comm, error) {
	if l.IsInter() {
		return nil, Errorf(ErrComm, "", "invalid communicator argument local_comm: it is an intercommunicator")
	}
	if leader < 0 || leader >= l.Size() {
		return nil, Errorf(ErrRank, "", "invalid rank argument local_leader: %d (communicator size %d)", leader, l.Size())
	}
	return l.inOrder(func() (*Comm, error) { return l.intercommCreate(leader, peer, remoteLeader, tag, lerr) })
}

func (l *Comm) intercommCreate(leader int, peer *Comm, remoteLeader, tag int, lerr error) (*Comm, error) {
	var xchg func([]byte) ([]byte, error)
	var out []byte
	if l.rank == leader && lerr == nil {
		xchg = exchangeOn(peer, peer.ctx, remoteLeader, tag)
		if l.hasWorldRank(peer.peerOf(remoteLeader)) {
			lerr = Errorf(ErrRank, "", "invalid rank argument remote_leader: %d is a member of the local group (the two groups must be disjoint)", remoteLeader)
		} else if theirs, err := xchg(encodeInts(l.group)); err != nil {
			lerr = err
		} else {
			out = theirs
			if _, err := l.checkRemoteGroup(theirs); err != nil {
				lerr = err
			}
		}
	}
	b, err := l.leaderBcast(leader, out, lerr)
	if err != nil {
		return nil, err
	}
	remote, err := l.checkRemoteGroup(b)
	if err != nil {
		return nil, err
	}
	group := append([]int(nil), l.group...)
	pairs, err := agreePairs(l, leader, 2, interSeed(group, remote, 0), xchg)
	if err != nil {
		return nil, err
	}
	return l.deriveInter(group, remote, pairs)
}

// checkRemoteGroup decodes a remote group (world ranks) received from the
// other leader: non-empty, valid world ranks, no repeats, disjoint from
// l's group.
func (l *Comm) checkRemoteGroup(b []byte) ([]int, error) {
	rs, ok := decodeInts(b)
	if !ok || len(rs) == 0 {
		return nil, Errorf(ErrIntern, "", "malformed remote group from the remote leader (%d bytes)", len(b))
	}
	seen := make(map[int]bool, len(rs))
	for _, r := range rs {
		if r < 0 || r >= l.w.cfg.Size || seen[r] {
			return nil, Errorf(ErrIntern, "", "malformed remote group from the remote leader (world rank %d)", r)
		}
		seen[r] = true
	}
	for _, r := range l.group {
		if seen[r] {
			return nil, Errorf(ErrComm, "", "invalid communicator arguments: the local and remote groups overlap (world rank %d is in both)", r)
		}
	}
	return rs, nil
}

// deriveInter builds the intercommunicator (group, remote) with the
// context pairs[0] and its hidden local communicator with pairs[1],
// inheriting c's error handler. The pairs are released on failure.
func (c *Comm) deriveInter(group, remote []int, pairs []int) (*Comm, error) {
	return c.deriveInterInto(nil, group, remote, pairs)
}

// deriveInterInto is deriveInter building into (with its handle and
// error handler) instead of a new communicator when into is not nil.
func (c *Comm) deriveInterInto(into *Comm, group, remote []int, pairs []int) (*Comm, error) {
	w := c.w
	release := func() {
		for _, p := range pairs {
			w.ctx.release(p)
		}
	}
	hidden, err := w.setupComm(&Comm{group: group, ctx: uint32(2 * pairs[1]), name: "(local group of an intercommunicator)"}, HandleCommNull)
	if err != nil {
		release()
		return nil, err
	}
	hidden.errhandler = HandleErrorsReturn
	nc, h := into, Handle(0)
	if nc == nil {
		nc = &Comm{}
	} else {
		h = nc.handle
	}
	nc.group, nc.remote, nc.local, nc.ctx = group, remote, hidden, uint32(2*pairs[0])
	nc, err = w.setupComm(nc, h)
	if err != nil {
		release()
		return nil, err
	}
	if into == nil {
		c.mu.Lock()
		nc.errhandler, nc.userEH = c.errhandler, c.userEH
		c.mu.Unlock()
	}
	if c.IsInter() {
		nc.dynSeed, nc.dynFirst = c.dynSeed, c.dynFirst
	}
	return nc, nil
}

// pairSeed is interSeed for the agreements on intercommunicator c.
func (c *Comm) pairSeed() uint64 {
	if c.dynSeed != 0 {
		return c.dynSeed + uint64(c.ctx)*0x9e3779b97f4a7c15
	}
	return interSeed(c.group, c.remote, c.ctx)
}

// interSeed is a value both groups compute alike, to spread the retries
// of the context agreement.
func interSeed(group, remote []int, ctx uint32) uint64 {
	lo := func(rs []int) uint64 {
		m := rs[0]
		for _, r := range rs {
			m = min(m, r)
		}
		return uint64(m)
	}
	return lo(group) + lo(remote) + uint64(ctx)*0x9e3779b97f4a7c15
}

// leaderXchg swaps a message between the two leaders (local rank 0) of
// intercommunicator c, on its collective context.
func (c *Comm) leaderXchg() func([]byte) ([]byte, error) {
	return exchangeOn(c, c.ctx+1, 0, tagSysInterLeader)
}

// exchangeOn returns a function that sends a message to rank peer of c
// and receives one from it (of any length), on context ctx with tag.
func exchangeOn(c *Comm, ctx uint32, peer, tag int) func([]byte) ([]byte, error) {
	return func(out []byte) ([]byte, error) {
		w := c.w
		s, err := w.Isend(c, ctx, out, peer, tag, ModeStandard)
		if err != nil {
			return nil, err
		}
		st := w.Probe(c, ctx, peer, tag)
		in := make([]byte, st.Count)
		rerr := w.Wait(w.Irecv(c, ctx, in, peer, tag))
		if err := w.Wait(s); err != nil {
			return nil, err
		}
		return in, rerr
	}
}

// andTo leaves the bitwise AND of every member's words in root's words
// (linear: the root receives from every other member).
func (l *Comm) andTo(words []uint64, root int) error {
	buf := encodeWords(words)
	if l.rank != root {
		return l.sysSend(buf, root, tagSysInterAnd)
	}
	for r := 0; r < l.Size(); r++ {
		if r == root {
			continue
		}
		if err := l.sysRecv(buf, r, tagSysInterAnd); err != nil {
			return err
		}
		for i := range words {
			words[i] &= binary.LittleEndian.Uint64(buf[8*i:])
		}
	}
	return nil
}

// bcastBlob broadcasts blob (of any length, significant at root) from
// root over a binomial tree and returns it on every member.
func (l *Comm) bcastBlob(root int, blob []byte) ([]byte, error) {
	n, me := l.Size(), l.rank
	v := (me - root + n) % n
	mask := 1
	for ; mask < n; mask <<= 1 {
		if v&mask != 0 {
			src := (v - mask + root) % n
			st := l.w.Probe(l, l.ctx+1, src, tagSysInterBcast)
			blob = make([]byte, st.Count)
			if err := l.sysRecv(blob, src, tagSysInterBcast); err != nil {
				return nil, err
			}
			break
		}
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if v+mask < n {
			if err := l.sysSend(blob, (v+mask+root)%n, tagSysInterBcast); err != nil {
				return nil, err
			}
		}
	}
	return blob, nil
}

// leaderBcast broadcasts the outcome of the leader's step from root: the
// payload, or lerr, which then becomes every member's error.
func (l *Comm) leaderBcast(root int, payload []byte, lerr error) ([]byte, error) {
	var msg []byte
	if l.rank == root {
		if lerr != nil {
			msg = binary.LittleEndian.AppendUint32(nil, uint32(ErrorClassOf(lerr)))
			text := lerr.Error()
			if e, ok := lerr.(*Error); ok {
				text = e.Msg
			}
			msg = append(msg, text...)
		} else {
			msg = binary.LittleEndian.AppendUint32(nil, 0)
			msg = append(msg, payload...)
		}
	}
	b, err := l.bcastBlob(root, msg)
	if err != nil {
		return nil, err
	}
	if l.rank == root && lerr != nil {
		return nil, lerr
	}
	if len(b) < 4 {
		return nil, Errorf(ErrIntern, "", "short internal broadcast message")
	}
	if class := int(binary.LittleEndian.Uint32(b)); class != 0 {
		return nil, Errorf(class, "", "failed at the local leader: %s", b[4:])
	}
	return b[4:], nil
}

// agreePairs agrees on n context-id pairs that are free on every process
// of two groups and claims them on this one: l is the local group's
// intracommunicator and leader its member that reaches the other group's
// leader through xchg (called only there). Both groups must call it with
// the same n and seed.
func agreePairs(l *Comm, leader, n int, seed uint64, xchg func([]byte) ([]byte, error)) ([]int, error) {
	w := l.w
	// and2 ANDs words over both groups: towards the leader, across, back.
	and2 := func(words []uint64) error {
		if err := l.andTo(words, leader); err != nil {
			return err
		}
		var lerr error
		if l.rank == leader {
			theirs, err := xchg(encodeWords(words))
			switch {
			case err != nil:
				lerr = err
			case len(theirs) != 8*len(words):
				lerr = Errorf(ErrIntern, "", "malformed context agreement message from the remote leader (%d bytes)", len(theirs))
			default:
				for i := range words {
					words[i] &= binary.LittleEndian.Uint64(theirs[8*i:])
				}
			}
		}
		b, err := l.leaderBcast(leader, encodeWords(words), lerr)
		if err != nil {
			return err
		}
		if len(b) != 8*len(words) {
			return Errorf(ErrIntern, "", "short internal broadcast message")
		}
		for i := range words {
			words[i] = binary.LittleEndian.Uint64(b[8*i:])
		}
		return nil
	}
	for attempt := 0; ; attempt++ {
		mask := w.ctx.snapshot()
		if err := and2(mask); err != nil {
			return nil, err
		}
		start := 0
		if attempt > 0 {
			start = int((seed + uint64(attempt)*0xbf58476d1ce4e5b9) >> 52 % ctxPairs)
		}
		var pairs []int
		for i := 0; i < ctxPairs && len(pairs) < n; i++ {
			p := (start + i) % ctxPairs
			if mask[p/64]&(1<<(p%64)) != 0 {
				pairs = append(pairs, p)
			}
		}
		if len(pairs) < n {
			return nil, Errorf(ErrOther, "", "no %d free context ids are common to the processes of both groups (too many communicators)", n)
		}
		claimed := 0
		for _, p := range pairs {
			if !w.ctx.claim(p) {
				break
			}
			claimed++
		}
		flag := []uint64{0}
		if claimed == n {
			flag[0] = 1
		}
		err := and2(flag)
		if err == nil && flag[0] == 1 {
			return pairs, nil
		}
		for _, p := range pairs[:claimed] {
			w.ctx.release(p)
		}
		if err != nil {
			return nil, err
		}
	}
}

// interDup is MPI_Comm_dup's agreement on an intercommunicator: a new
// intercommunicator over the same two groups.
func (c *Comm) interDup(into *Comm) (*Comm, error) {
	pairs, err := agreePairs(c.local, 0, 2, c.pairSeed(), c.leaderXchg())
	if err != nil {
		return nil, err
	}
	return c.deriveInterInto(into, append([]int(nil), c.group...), append([]int(nil), c.remote...), pairs)
}

// interSplit is MPI_Comm_split on an intercommunicator (MPI-2): the local
// and the remote processes with the same color form a new
// intercommunicator, each side ordered by key then by old rank. A process
// gets nil when its color is Undefined or no remote process has it.
func (c *Comm) interSplit(color, key int) (*Comm, error) {
	l := c.local
	var mine [8]byte
	binary.LittleEndian.PutUint32(mine[:], uint32(int32(color)))
	binary.LittleEndian.PutUint32(mine[4:], uint32(int32(key)))
	all, err := l.sysAllgather(mine[:], 0)
	if err != nil {
		return nil, err
	}
	var local []byte
	for _, b := range all {
		local = append(local, b...)
	}
	var out []byte
	var lerr error
	if l.rank == 0 {
		out, lerr = c.leaderXchg()(local)
	}
	remote, err := l.leaderBcast(0, out, lerr)
	if err != nil {
		return nil, err
	}
	if len(local) != 8*len(c.group) || len(remote) != 8*len(c.remote) {
		return nil, Errorf(ErrIntern, "", "malformed split records")
	}
	pairs, err := agreePairs(l, 0, 2, c.pairSeed(), c.leaderXchg())
	if err != nil {
		return nil, err
	}
	lg, rg := pick(local, c.group, color), pick(remote, c.remote, color)
	if color == Undefined || len(rg) == 0 {
		for _, p := range pairs {
			c.w.ctx.release(p)
		}
		return nil, nil
	}
	return c.deriveInter(lg, rg, pairs)
}

// pick returns the world ranks (from ranks) of the split records (color,
// key per rank) with color col, ordered by key then rank.
func pick(recs []byte, ranks []int, col int) []int {
	type member struct{ key, rank int }
	var ms []member
	for r := range ranks {
		b := recs[8*r:]
		if col != Undefined && int(int32(binary.LittleEndian.Uint32(b))) == col {
			ms = append(ms, member{int(int32(binary.LittleEndian.Uint32(b[4:]))), r})
		}
	}
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].key < ms[j].key })
	out := make([]int, len(ms))
	for i, m := range ms {
		out[i] = ranks[m.rank]
	}
	return out
}

// interCreate is MPI_Comm_create on an intercommunicator (MPI-2): g is a
// subgroup of the local group (the caller checked); the result joins it
// to the subgroup the remote side passed, in the groups' orders. Processes
// outside g, and everyone when either subgroup is empty, get nil.
func (c *Comm) interCreate(g *Group) (*Comm, error) {
	color, key := Undefined, 0
	if r := g.RankOf(c.w.cfg.Rank); r >= 0 {
		color, key = 0, r
	}
	return c.interSplit(color, key)
}

// Merge is MPI_Intercomm_merge: an intracommunicator over both groups,
// the group whose processes passed high=false first. When both passed the
// same value, the group whose leader has the lower MPI_COMM_WORLD rank
// comes first. The leader's high stands for its whole group.
func (c *Comm) Merge(high bool) (*Comm, error) {
	if !c.IsInter() {
		return nil, Errorf(ErrComm, "", "invalid communicator argument intercomm: not an intercommunicator")
	}
	return c.inOrder(func() (*Comm, error) { return c.merge(high) })
}

func (c *Comm) merge(high bool) (*Comm, error) {
	l := c.local
	var out []byte
	var lerr error
	if l.rank == 0 {
		var h byte
		if high {
			h = 1
		}
		out, lerr = c.leaderXchg()([]byte{h})
		if lerr == nil && len(out) != 1 {
			lerr = Errorf(ErrIntern, "", "malformed merge message from the remote leader")
		}
		out = append([]byte{h}, out...)
	}
	b, err := l.leaderBcast(0, out, lerr)
	if err != nil {
		return nil, err
	}
	if len(b) != 2 {
		return nil, Errorf(ErrIntern, "", "short internal broadcast message")
	}
	mine, theirs := b[0] != 0, b[1] != 0
	lower := c.group[0] < c.remote[0]
	if c.dynSeed != 0 {
		lower = c.dynFirst // world ranks of two jobs do not compare
	}
	localFirst := !mine && theirs || mine == theirs && lower
	pairs, err := agreePairs(l, 0, 1, c.pairSeed(), c.leaderXchg())
	if err != nil {
		return nil, err
	}
	var group []int
	if localFirst {
		group = append(append(group, c.group...), c.remote...)
	} else {
		group = append(append(group, c.remote...), c.group...)
	}
	return c.derive(group, uint32(2*pairs[0]))
}

// compareInter is MPI_Comm_compare when a or b is an intercommunicator:
// congruent when both local and both remote groups are identical, similar
// when they have the same members.
func compareInter(a, b *Comm) int {
	if !a.IsInter() || !b.IsInter() {
		return Unequal
	}
	lg := CompareGroups(a.Group(), b.Group())
	rg := CompareGroups(a.RemoteGroup(), b.RemoteGroup())
	switch {
	case lg == Ident && rg == Ident:
		return Congruent
	case lg != Unequal && rg != Unequal:
		return Similar
	}
	return Unequal
}

// Helpers for intercommunicator collectives: data crossing between the
// groups is sent packed, so the two sides may use different datatypes
// with the same type signature.

// CollSendTyped sends count elements of dt at buf to rank dest (a remote
// rank on an intercommunicator) on c's collective context.
func (c *Comm) CollSendTyped(buf unsafe.Pointer, count int, dt *Datatype, dest, tag int) error {
	data, m := c.w.sendData(buf, count, dt)
	return c.w.Send(c, c.ctx+1, data, dest, tag, ModeStandard|m)
}

// CollIsendTyped starts CollSendTyped.
func (c *Comm) CollIsendTyped(buf unsafe.Pointer, count int, dt *Datatype, dest, tag int) (*Request, error) {
	data, m := c.w.sendData(buf, count, dt)
	return c.w.Isend(c, c.ctx+1, data, dest, tag, ModeStandard|m)
}

// CollRecvTyped receives count elements of dt into buf from rank src on
// c's collective context.
func (c *Comm) CollRecvTyped(buf unsafe.Pointer, count int, dt *Datatype, src, tag int) error {
	data, unpack := recvView(buf, count, dt)
	return c.w.Wait(c.w.irecvT(c, c.ctx+1, data, src, tag, unpack, recvTarget{dt, count}))
}

// TempBuffer allocates scratch memory for count elements of dt, laid out
// as in a user buffer (for a reduction's intermediate result).
func TempBuffer(count int, dt *Datatype) unsafe.Pointer {
	if count <= 0 || dt.Size() == 0 {
		return nil
	}
	lb := dt.TrueLB()
	span := (count-1)*max(dt.Extent(), 0) + dt.TrueExtent()
	off := max(0, -lb)
	b := make([]byte, off+max(lb, 0)+span+1)
	return unsafe.Pointer(&b[off])
}

func encodeWords(words []uint64) []byte {
	b := make([]byte, 0, 8*len(words))
	for _, x := range words {
		b = binary.LittleEndian.AppendUint64(b, x)
	}
	return b
}

func encodeInts(xs []int) []byte {
	b := make([]byte, 0, 4*len(xs))
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint32(b, uint32(int32(x)))
	}
	return b
}

func decodeInts(b []byte) ([]int, bool) {
	if len(b)%4 != 0 {
		return nil, false
	}
	xs := make([]int, len(b)/4)
	for i := range xs {
		xs[i] = int(int32(binary.LittleEndian.Uint32(b[4*i:])))
	}
	return xs, true
}
