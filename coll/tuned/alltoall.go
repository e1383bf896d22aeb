package tuned

import (
	"gmpi/coll/basic"
	mpirt "gmpi/runtime"
)

// alltoallPairwise: p-1 rounds; in round k each process sends to rank
// me+k and receives from rank me-k, one exchange at a time, so no
// process is flooded. Cost (p-1) (alpha + b beta) for blocks of b
// bytes: for large blocks. Not in place (the in-place form stages every
// block first: the basic algorithm).
func alltoallPairwise(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	s := c.NewSchedule()
	n, me := c.Size(), c.Rank()
	s.Local(func() error {
		mpirt.CopyTyped(basic.BlockAt(a.Rbuf, me*a.Rcount, a.Rdt), a.Rcount, a.Rdt,
			basic.BlockAt(a.Sbuf, me*a.Scount, a.Sdt), a.Scount, a.Sdt)
		return nil
	})
	for k := 1; k < n; k++ {
		to, from := (me+k)%n, (me-k+n)%n
		s.RecvTyped(c, basic.BlockAt(a.Rbuf, from*a.Rcount, a.Rdt), a.Rcount, a.Rdt, from)
		s.SendTyped(c, basic.BlockAt(a.Sbuf, to*a.Scount, a.Sdt), a.Scount, a.Sdt, to)
		s.Round()
	}
	return s, nil
}

// alltoallBruck: ceil(log2 p) rounds for any p. Blocks are packed
// rotated (position i holds the block for rank me+i); in round k every
// block whose position has bit k set goes to rank me+2^k and is
// replaced by the one from rank me-2^k; at the end position i holds the
// block from rank me-i. Cost ceil(log2 p) alpha + (m/2) log2 p beta for
// m bytes per process: for small blocks. In place works (everything is
// packed before anything is received).
func alltoallBruck(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	s := c.NewSchedule()
	n, me := c.Size(), c.Rank()
	sbuf, scount, sdt := a.Sbuf, a.Scount, a.Sdt
	if mpirt.IsInPlace(sbuf) {
		sbuf, scount, sdt = a.Rbuf, a.Rcount, a.Rdt
	}
	bs := a.Rcount * a.Rdt.Size()
	tmp := uniform(make([]byte, n*bs), n, bs)
	s.Local(func() error {
		for i := range n {
			sdt.Pack(tmp.blk(i), basic.BlockAt(sbuf, (me+i)%n*scount, sdt), scount)
		}
		return nil
	})
	for k := 1; k < n; k <<= 1 {
		var pos []int
		for i := range n {
			if i&k != 0 {
				pos = append(pos, i)
			}
		}
		out := make([]byte, len(pos)*bs)
		in := make([]byte, len(pos)*bs)
		s.Local(func() error {
			for j, i := range pos {
				copy(out[j*bs:], tmp.blk(i))
			}
			return nil
		})
		s.Send(c, out, (me+k)%n)
		s.Recv(c, in, (me-k+n)%n)
		s.Round()
		s.Local(func() error {
			for j, i := range pos {
				copy(tmp.blk(i), in[j*bs:(j+1)*bs])
			}
			return nil
		})
	}
	s.Local(func() error {
		for i := range n {
			a.Rdt.Unpack(basic.BlockAt(a.Rbuf, (me-i+n)%n*a.Rcount, a.Rdt), tmp.blk(i), a.Rcount)
		}
		return nil
	})
	return s, nil
}
