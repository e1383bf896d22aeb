package tuned

import (
	"gmpi/coll/basic"
	mpirt "gmpi/runtime"
)

// vecbuf is a buffer cut into n consecutive blocks: block i is
// data[off[i]:off[i+1]] (offsets clipped to len(data)), and a range of
// blocks [i, j) is contiguous.
type vecbuf struct {
	data []byte
	off  []int // n+1 offsets
}

func (v vecbuf) rng(i, j int) []byte {
	l := len(v.data)
	return v.data[min(v.off[i], l):min(v.off[j], l)]
}

func (v vecbuf) blk(i int) []byte { return v.rng(i, i+1) }

// uniform cuts data into n blocks of bs bytes.
func uniform(data []byte, n, bs int) vecbuf {
	off := make([]int, n+1)
	for i := range off {
		off[i] = i * bs
	}
	return vecbuf{data, off}
}

// chunks cuts data into n blocks of ceil(len/n) bytes (the last ones
// shorter or empty).
func chunks(data []byte, n int) vecbuf {
	return uniform(data, n, (len(data)+n-1)/n)
}

// packedBlocks cuts a packed buffer of sum(counts) elements of dt into
// blocks of counts[i] elements.
func packedBlocks(data []byte, counts []int, dt *mpirt.Datatype) vecbuf {
	off := make([]int, len(counts)+1)
	for i, k := range counts {
		off[i+1] = off[i] + k*dt.Size()
	}
	return vecbuf{data, off}
}

func sum(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}

func uniformCounts(n, k int) []int {
	cs := make([]int, n)
	for i := range cs {
		cs[i] = k
	}
	return cs
}

// ring maps virtual ranks to ranks of c: virtual v is rank (v+root)%n.
type ring struct {
	c       *mpirt.Comm
	n, me   int // size and this process's virtual rank
	rootOff int
}

func newRing(c *mpirt.Comm, root int) ring {
	n := c.Size()
	return ring{c: c, n: n, me: (c.Rank() - root + n) % n, rootOff: root}
}

func (r ring) rank(v int) int { return ((v+r.n)%r.n + r.rootOff) % r.n }

// appendRingAllgather adds the ring allgather of the blocks of v over
// the virtual ranks of r (virtual rank i owns block i): n-1 rounds, each
// process sends one block to its right and receives one from its left.
// Cost (n-1)(alpha + beta*m/n) for m bytes in all.
func appendRingAllgather(s *mpirt.Schedule, r ring, v vecbuf) {
	for i := 0; i < r.n-1; i++ {
		s.Send(r.c, v.blk((r.me-i+r.n)%r.n), r.rank(r.me+1))
		s.Recv(r.c, v.blk((r.me-i-1+r.n)%r.n), r.rank(r.me-1))
		s.Round()
	}
}

// packAll returns the receive vector of an allgather-like call as n
// blocks of packed bytes (the user memory itself when rdt is
// contiguous), loading this process's block first (from sbuf, or from
// its place in rbuf in place), and the step that stores the result.
func packAll(s *mpirt.Schedule, n, me int, a *mpirt.CollArgs) (vecbuf, func() error) {
	k := mpirt.NewPacked(a.Rbuf, n*a.Rcount, a.Rdt)
	bs := a.Rcount * a.Rdt.Size()
	v := uniform(k.Data, n, bs)
	mine := v.blk(me)
	if mpirt.IsInPlace(a.Sbuf) {
		if !a.Rdt.IsContiguous() {
			p := basic.BlockAt(a.Rbuf, me*a.Rcount, a.Rdt)
			s.Local(func() error { a.Rdt.Pack(mine, p, a.Rcount); return nil })
		}
	} else {
		s.Local(func() error { a.Sdt.Pack(mine, a.Sbuf, a.Scount); return nil })
	}
	return v, k.Store
}
