package tuned

import mpirt "gmpi/runtime"

// The allgather algorithms work on the receive vector as p blocks of
// packed bytes (the user buffer itself for contiguous types), so any
// datatype and MPI_IN_PLACE work the same way. m is the total bytes.

// allgatherRing: p-1 rounds, each process passes one block to its
// right. Cost (p-1) alpha + m (p-1)/p beta; any p; for large messages.
func allgatherRing(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	s := c.NewSchedule()
	r := newRing(c, 0)
	v, store := packAll(s, r.n, r.me, a)
	appendRingAllgather(s, r, v)
	s.Local(store)
	return s, nil
}

// allgatherRecursiveDoubling: log2 p rounds; in round k a process and
// its partner (rank xor 2^k) swap the 2^k blocks each has. Cost
// log2 p alpha + m (p-1)/p beta. Requires p a power of two (else ring).
func allgatherRecursiveDoubling(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	s := c.NewSchedule()
	n, me := c.Size(), c.Rank()
	v, store := packAll(s, n, me, a)
	appendDoublingAllgather(s, c, v, n, me, func(i int) int { return i }, func(i int) int { return i })
	s.Local(store)
	return s, nil
}

// appendDoublingAllgather is recursive doubling over p (a power of two)
// virtual ranks: virtual rank i owns the blocks [lo(i), lo(i+1)) of v
// and is process real(i).
func appendDoublingAllgather(s *mpirt.Schedule, c *mpirt.Comm, v vecbuf, p, me int, lo, real func(int) int) {
	for mask := 1; mask < p; mask <<= 1 {
		base := me &^ (mask - 1)
		peer := me ^ mask
		pbase := base ^ mask
		s.Send(c, v.rng(lo(base), lo(base+mask)), real(peer))
		s.Recv(c, v.rng(lo(pbase), lo(pbase+mask)), real(peer))
		s.Round()
	}
}

// allgatherBruck: ceil(log2 p) rounds for any p. Blocks are kept
// rotated (position i holds rank me+i's block); in round k a process
// sends its first min(2^k, p-2^k) blocks to rank me-2^k and appends
// those of rank me+2^k; a final local rotation puts them in place. Cost
// ceil(log2 p) alpha + m (p-1)/p beta plus one local copy: for small
// messages on any p.
func allgatherBruck(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	s := c.NewSchedule()
	n, me := c.Size(), c.Rank()
	v, store := packAll(s, n, me, a)
	bs := a.Rcount * a.Rdt.Size()
	tmp := uniform(make([]byte, n*bs), n, bs)
	s.Local(func() error { copy(tmp.blk(0), v.blk(me)); return nil })
	for mask := 1; mask < n; mask <<= 1 {
		cnt := min(mask, n-mask)
		s.Send(c, tmp.rng(0, cnt), (me-mask+n)%n)
		s.Recv(c, tmp.rng(mask, mask+cnt), (me+mask)%n)
		s.Round()
	}
	s.Local(func() error {
		for i := 1; i < n; i++ {
			copy(v.blk((me+i)%n), tmp.blk(i))
		}
		return store()
	})
	return s, nil
}
