package tuned

import (
	"unsafe"

	mpirt "gmpi/runtime"
)

// The reduction algorithms work on packed buffers (count elements of dt,
// runtime.LoadPacked; processes may use different datatypes of one type
// signature). Every result block is
// computed by one process and copied to the others, so floating-point
// results are bit-identical on every rank. m is the vector's bytes.

type redArgs struct {
	count int
	dt    *mpirt.Datatype
	op    mpirt.Handle
}

// combine sets acc to the reduction of the packed buffers acc and
// other, the one covering lower ranks on the left (otherIsLower tells
// which), overwriting other.
func (r redArgs) combine(acc, other []byte, otherIsLower bool) error {
	if otherIsLower {
		return mpirt.ReducePacked(r.op, r.dt, other, acc)
	}
	if err := mpirt.ReducePacked(r.op, r.dt, acc, other); err != nil {
		return err
	}
	copy(acc, other[:len(acc)])
	return nil
}

// fold is the reduction of p processes onto p' = 2^floor(log2 p): with
// x = p - p', the first x even ranks send their operand to the next odd
// rank and sit out; virtual rank i < x is rank 2i+1 and covers ranks 2i
// and 2i+1, virtual i >= x is rank i+x. Virtual ranks cover increasing,
// contiguous rank ranges, so combining lower virtual ranks on the left
// keeps the canonical order.
type fold struct {
	p, x int
	me   int // virtual rank, -1 for a process that sits out
}

func newFold(n, rank int) fold {
	p := 1
	for p*2 <= n {
		p *= 2
	}
	f := fold{p: p, x: n - p, me: -1}
	switch {
	case rank >= 2*f.x:
		f.me = rank - f.x
	case rank%2 == 1:
		f.me = rank / 2
	}
	return f
}

func (f fold) real(v int) int {
	if v < f.x {
		return 2*v + 1
	}
	return v + f.x
}

// lo is the first rank virtual rank v covers (lo(p) = n).
func (f fold) lo(v int) int {
	if v < f.x {
		return 2 * v
	}
	return v + f.x
}

// appendFoldIn adds the folding step: sitting-out ranks send acc, their
// partners combine it on the left.
func appendFoldIn(s *mpirt.Schedule, c *mpirt.Comm, f fold, r redArgs, acc []byte) {
	me := c.Rank()
	switch {
	case me >= 2*f.x:
	case f.me < 0:
		s.Send(c, acc, me+1)
		s.Round()
	default:
		tmp := make([]byte, len(acc))
		s.Recv(c, tmp, me-1)
		s.Round()
		s.Local(func() error { return r.combine(acc, tmp, true) })
	}
}

// allreduceRecursiveDoubling: fold to a power of two, log2 p' rounds of
// exchanging the whole vector with rank xor 2^k (the lower partner's
// value on the left, so partners compute the same bytes and the order
// is canonical), then unfold. Cost (log2 p' + 2) (alpha + m beta) at
// most; any operator, any p: the default for small vectors.
func allreduceRecursiveDoubling(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	s := c.NewSchedule()
	r := redArgs{a.Rcount, a.Rdt, a.Op}
	acc := operand(s, a.Sbuf, a.Rbuf, r)
	f := newFold(c.Size(), c.Rank())
	appendFoldIn(s, c, f, r, acc)
	if f.me >= 0 {
		tmp := make([]byte, len(acc))
		for mask := 1; mask < f.p; mask <<= 1 {
			peer := f.me ^ mask
			s.Send(c, acc, f.real(peer))
			s.Recv(c, tmp, f.real(peer))
			s.Round()
			lower := peer < f.me
			s.Local(func() error { return r.combine(acc, tmp, lower) })
		}
	}
	appendFoldOut(s, c, f, acc)
	store(s, a.Rbuf, r, acc)
	return s, nil
}

// appendFoldOut sends the result back to the ranks that sat out.
func appendFoldOut(s *mpirt.Schedule, c *mpirt.Comm, f fold, data []byte) {
	me := c.Rank()
	switch {
	case me >= 2*f.x:
		return
	case f.me < 0:
		s.Recv(c, data, me+1)
	default:
		s.Send(c, data, me-1)
	}
	s.Round()
}

func operand(s *mpirt.Schedule, sbuf, rbuf unsafe.Pointer, r redArgs) []byte {
	src := sbuf
	if mpirt.IsInPlace(sbuf) {
		src = rbuf
	}
	acc := make([]byte, mpirt.PackedLen(r.count, r.dt))
	s.Local(func() error { mpirt.LoadPacked(acc, src, r.count, r.dt); return nil })
	return acc
}

func store(s *mpirt.Schedule, rbuf unsafe.Pointer, r redArgs, acc []byte) {
	s.Local(func() error { mpirt.StorePacked(rbuf, r.count, r.dt, acc); return nil })
}

// appendHalving adds a recursive-halving reduce-scatter of the packed
// vector v (n blocks, one per rank) after a fold: the virtual ranks
// split their range of blocks in halves log2 p' times, each keeping the
// half its own blocks are in and sending the other half to its partner,
// so virtual rank i ends with blocks [lo(i), lo(i+1)) fully reduced.
// Cost log2 p' alpha + m (p'-1)/p' beta. Commutative operators only
// (the partners' operands are combined in rank order, but blocks are
// not reduced in one left-to-right sweep).
func appendHalving(s *mpirt.Schedule, c *mpirt.Comm, f fold, r redArgs, v vecbuf, counts []int) {
	if f.me < 0 {
		return
	}
	tmp := vecbuf{make([]byte, len(v.data)), v.off}
	vlo, vhi := 0, f.p
	for mask := f.p / 2; mask > 0; mask >>= 1 {
		peer := f.me ^ mask
		mid := vlo + mask
		keepLo, keepHi, sendLo, sendHi := vlo, mid, mid, vhi
		if f.me >= mid {
			keepLo, keepHi, sendLo, sendHi = mid, vhi, vlo, mid
		}
		a, b := f.lo(keepLo), f.lo(keepHi)
		s.Send(c, v.rng(f.lo(sendLo), f.lo(sendHi)), f.real(peer))
		s.Recv(c, tmp.rng(a, b), f.real(peer))
		s.Round()
		lower := peer < f.me
		s.Local(func() error { return r.combine(v.rng(a, b), tmp.rng(a, b), lower) })
		vlo, vhi = keepLo, keepHi
	}
}

// appendRingReduceScatter adds the ring reduce-scatter of the packed
// vector v (block i to rank i): p-1 rounds, in round k each process
// sends its partial of block me-k-1 to its right and adds the one of
// block me-k-2 from its left; rank i ends with block i. Cost
// (p-1) alpha + m (p-1)/p beta. Commutative operators only.
func appendRingReduceScatter(s *mpirt.Schedule, c *mpirt.Comm, r redArgs, v vecbuf, counts []int) {
	n, me := c.Size(), c.Rank()
	tmp := vecbuf{make([]byte, len(v.data)), v.off}
	for k := 0; k < n-1; k++ {
		sb, rb := (me-k-1+2*n)%n, (me-k-2+2*n)%n
		s.Send(c, v.blk(sb), (me+1)%n)
		s.Recv(c, tmp.blk(rb), (me-1+n)%n)
		s.Round()
		s.Local(func() error { return mpirt.ReducePacked(r.op, r.dt, tmp.blk(rb), v.blk(rb)) })
	}
}

// rankCounts splits count elements into one block per rank.
func rankCounts(n, count int) []int {
	cs := make([]int, n)
	for i := range cs {
		cs[i] = count / n
		if i < count%n {
			cs[i]++
		}
	}
	return cs
}

// allreduceRabenseifner: recursive-halving reduce-scatter then
// recursive-doubling allgather of the reduced blocks, around a fold to
// a power of two. Cost 2 log2 p' alpha + 2 m (p'-1)/p' beta (+ 2 m beta
// for the fold): for large vectors. Commutative operators only.
func allreduceRabenseifner(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	s := c.NewSchedule()
	r := redArgs{a.Rcount, a.Rdt, a.Op}
	acc := operand(s, a.Sbuf, a.Rbuf, r)
	counts := rankCounts(c.Size(), r.count)
	v := packedBlocks(acc, counts, r.dt)
	f := newFold(c.Size(), c.Rank())
	appendFoldIn(s, c, f, r, acc)
	appendHalving(s, c, f, r, v, counts)
	if f.me >= 0 {
		appendDoublingAllgather(s, c, v, f.p, f.me, f.lo, f.real)
	}
	appendFoldOut(s, c, f, acc)
	store(s, a.Rbuf, r, acc)
	return s, nil
}

// allreduceRing: ring reduce-scatter then ring allgather. Cost
// 2 (p-1) alpha + 2 m (p-1)/p beta: bandwidth-optimal for any p, for
// the largest vectors. Commutative operators only.
func allreduceRing(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	s := c.NewSchedule()
	r := redArgs{a.Rcount, a.Rdt, a.Op}
	acc := operand(s, a.Sbuf, a.Rbuf, r)
	counts := rankCounts(c.Size(), r.count)
	v := packedBlocks(acc, counts, r.dt)
	appendRingReduceScatter(s, c, r, v, counts)
	appendRingAllgather(s, newRing(c, 0), v)
	store(s, a.Rbuf, r, acc)
	return s, nil
}

// reduceRabenseifner: recursive-halving reduce-scatter (after a fold),
// then every virtual rank sends its reduced blocks to the root. Cost
// (log2 p' + 1) alpha + 2 m (p'-1)/p' beta: for large vectors.
// Commutative operators only.
func reduceRabenseifner(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	s := c.NewSchedule()
	r := redArgs{a.Rcount, a.Rdt, a.Op}
	acc := operand(s, a.Sbuf, a.Rbuf, r)
	counts := rankCounts(c.Size(), r.count)
	v := packedBlocks(acc, counts, r.dt)
	f := newFold(c.Size(), c.Rank())
	appendFoldIn(s, c, f, r, acc)
	appendHalving(s, c, f, r, v, counts)
	me := c.Rank()
	if me == a.Root {
		for i := range f.p {
			if i != f.me {
				s.Recv(c, v.rng(f.lo(i), f.lo(i+1)), f.real(i))
			}
		}
		s.Round()
		store(s, a.Rbuf, r, acc)
	} else if f.me >= 0 {
		s.Send(c, v.rng(f.lo(f.me), f.lo(f.me+1)), a.Root)
	}
	return s, nil
}

// reduceScatter builds a reduce-scatter with per-rank counts: the
// vector reduced by the ring or by recursive halving, then each rank
// stores its block (a rank that sat out the halving gets it from its
// partner).
func reduceScatter(c *mpirt.Comm, a *mpirt.CollArgs, counts []int, halving bool) *mpirt.Schedule {
	s := c.NewSchedule()
	me := c.Rank()
	r := redArgs{sum(counts), a.Rdt, a.Op}
	acc := operand(s, a.Sbuf, a.Rbuf, r)
	v := packedBlocks(acc, counts, r.dt)
	if halving {
		f := newFold(c.Size(), me)
		appendFoldIn(s, c, f, r, acc)
		appendHalving(s, c, f, r, v, counts)
		switch {
		case me >= 2*f.x:
		case f.me < 0:
			s.Recv(c, v.blk(me), me+1)
			s.Round()
		default:
			s.Send(c, v.blk(me-1), me-1)
			s.Round()
		}
	} else {
		appendRingReduceScatter(s, c, r, v, counts)
	}
	mine := v.blk(me)
	s.Local(func() error {
		mpirt.StorePacked(a.Rbuf, counts[me], r.dt, mine)
		return nil
	})
	return s
}

func reduceScatterRing(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return reduceScatter(c, a, a.Rcounts, false), nil
}

func reduceScatterHalving(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return reduceScatter(c, a, a.Rcounts, true), nil
}

func reduceScatterBlockRing(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return reduceScatter(c, a, uniformCounts(c.Size(), a.Rcount), false), nil
}

func reduceScatterBlockHalving(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return reduceScatter(c, a, uniformCounts(c.Size(), a.Rcount), true), nil
}
