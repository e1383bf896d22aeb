package tuned

import mpirt "gmpi/runtime"

// bcastScatterAllgather is van de Geijn's broadcast: the root's m bytes
// are cut into p chunks, scattered down a binomial tree (each process
// gets its chunk, ceil(log2 p) rounds, m(p-1)/p bytes from the root),
// then a ring allgather gives every process every chunk (p-1 rounds of
// m/p bytes). Cost about (log2 p + p-1) alpha + 2 m (p-1)/p beta, against
// log2 p (alpha + m beta) for the binomial tree: for large messages.
// Any p, any datatype (the chunks are of the packed bytes).
func bcastScatterAllgather(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	s := c.NewSchedule()
	k := mpirt.NewPacked(a.Rbuf, a.Rcount, a.Rdt)
	r := newRing(c, a.Root)
	if r.me == 0 {
		s.Local(k.Load)
	}
	v := chunks(k.Data, r.n)
	appendScatterTree(s, r, v)
	appendRingAllgather(s, r, v)
	if r.me != 0 {
		s.Local(k.Store)
	}
	return s, nil
}

// appendScatterTree adds a binomial scatter of the blocks of v from
// virtual rank 0: virtual rank i ends with block i, and each process
// receives its whole subtree's blocks [i, i+lowbit(i)) from its parent.
func appendScatterTree(s *mpirt.Schedule, r ring, v vecbuf) {
	mask := 1
	for mask < r.n && r.me&mask == 0 {
		mask <<= 1
	}
	if r.me != 0 {
		s.Recv(r.c, v.rng(r.me, min(r.me+mask, r.n)), r.rank(r.me-mask))
		s.Round()
	}
	for m := mask >> 1; m > 0; m >>= 1 {
		if r.me+m < r.n {
			s.Send(r.c, v.rng(r.me+m, min(r.me+2*m, r.n)), r.rank(r.me+m))
		}
	}
	s.Round()
}
