package tuned

import (
	"gmpi/coll/basic"
	mpirt "gmpi/runtime"
)

// Binomial gather and scatter of packed blocks. Virtual rank v (rank
// v+root) holds the blocks of its subtree [v, v+lowbit(v)) in a buffer
// of that many blocks. Cost ceil(log2 p) alpha + m (p-1)/p beta for m
// bytes in all, against (p-1) alpha for the linear algorithms: for
// small blocks and many processes. Any p, any datatypes.

// subtree is the number of blocks in virtual rank v's subtree.
func subtree(r ring, v int) int {
	mask := 1
	for mask < r.n && v&mask == 0 {
		mask <<= 1
	}
	return min(mask, r.n-v)
}

func gatherBinomial(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	s := c.NewSchedule()
	r := newRing(c, a.Root)
	root := r.me == 0
	bs := callBytes(mpirt.CollGather, c, a)
	sub := subtree(r, r.me)
	v := uniform(make([]byte, sub*bs), sub, bs)
	switch {
	case !root || !mpirt.IsInPlace(a.Sbuf):
		s.Local(func() error { a.Sdt.Pack(v.blk(0), a.Sbuf, a.Scount); return nil })
	default:
		p := basic.BlockAt(a.Rbuf, a.Root*a.Rcount, a.Rdt)
		s.Local(func() error { a.Rdt.Pack(v.blk(0), p, a.Rcount); return nil })
	}
	for m := 1; m < sub; m <<= 1 {
		s.Recv(c, v.rng(m, min(2*m, sub)), r.rank(r.me+m))
	}
	s.Round()
	if !root {
		s.Send(c, v.data, r.rank(r.me-lowbit(r.me)))
		return s, nil
	}
	s.Local(func() error {
		for i := range r.n {
			k := r.rank(i)
			if i > 0 || !mpirt.IsInPlace(a.Sbuf) {
				a.Rdt.Unpack(basic.BlockAt(a.Rbuf, k*a.Rcount, a.Rdt), v.blk(i), a.Rcount)
			}
		}
		return nil
	})
	return s, nil
}

func scatterBinomial(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	s := c.NewSchedule()
	r := newRing(c, a.Root)
	root := r.me == 0
	bs := callBytes(mpirt.CollScatter, c, a)
	sub := subtree(r, r.me)
	v := uniform(make([]byte, sub*bs), sub, bs)
	if root {
		s.Local(func() error {
			for i := range r.n {
				a.Sdt.Pack(v.blk(i), basic.BlockAt(a.Sbuf, r.rank(i)*a.Scount, a.Sdt), a.Scount)
			}
			return nil
		})
	} else {
		s.Recv(c, v.data, r.rank(r.me-lowbit(r.me)))
		s.Round()
	}
	for m := lowbit(r.me) >> 1; m > 0; m >>= 1 {
		if m < sub {
			s.Send(c, v.rng(m, min(2*m, sub)), r.rank(r.me+m))
		}
	}
	s.Round()
	if !root || !mpirt.IsInPlace(a.Rbuf) {
		s.Local(func() error { a.Rdt.Unpack(a.Rbuf, v.blk(0), a.Rcount); return nil })
	}
	return s, nil
}

// lowbit is v's lowest set bit (for v = 0, a power of two above any rank).
func lowbit(v int) int {
	if v == 0 {
		return 1 << 30
	}
	return v & -v
}
