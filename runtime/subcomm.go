package mpirt

// Level sub-communicators. A collective component that composes a
// communicator's collectives from those of smaller groups (coll/hier:
// the processes of one site, of one machine) needs communicators over
// those groups, and must create them without communication: the first
// collective call that needs them may be nonblocking. So their contexts
// are derived from the parent's, as MPICH derives its intranode
// communicators: the parent's context with a sub-communicator index in
// the bits above the pool (idx << (ctxBits + subBits*depth)). The groups
// a component forms with one index must be disjoint (every process is in
// at most one of them): then no two communicators a process belongs to
// share a context. Such contexts live in the matcher's map (above
// 2*ctxPairs), are never released to the pool, and nest up to
// maxSubDepth levels.

const (
	subBits     = 3
	maxSubDepth = (31 - ctxBits) / subBits // 6 levels below bit 31 (partBit)
)

// SubComm returns a hidden communicator over group (world ranks, which
// must be members of c and include the caller) with index idx (1..7)
// below c, freed with c. Every member calls it with the same group and
// index; it exchanges no message. Its error handler is
// MPI_ERRORS_RETURN and its collectives are selected as for any
// communicator.
func (c *Comm) SubComm(idx int, group []int) (*Comm, error) {
	if idx < 1 || idx >= 1<<subBits {
		return nil, Errorf(ErrIntern, "", "sub-communicator index %d out of range", idx)
	}
	if int(c.subDepth) >= maxSubDepth || c.ctx >= 1<<31 {
		return nil, Errorf(ErrIntern, "", "sub-communicators nested deeper than %d levels", maxSubDepth)
	}
	for _, wr := range group {
		if !c.hasWorldRank(wr) {
			return nil, Errorf(ErrIntern, "", "sub-communicator member %d is not in the parent", wr)
		}
	}
	ctx := c.ctx | uint32(idx)<<(ctxBits+subBits*uint(c.subDepth))
	nc := &Comm{group: append([]int(nil), group...), ctx: ctx, subDepth: c.subDepth + 1,
		name: c.Name() + " (level sub-communicator)"}
	nc, err := c.w.setupComm(nc, HandleCommNull)
	if err != nil {
		return nil, err
	}
	if nc.rank < 0 {
		return nil, Errorf(ErrIntern, "", "the caller is not a member of its sub-communicator")
	}
	nc.errhandler = HandleErrorsReturn
	c.OnFree(func() { c.w.destroy(nc) })
	return nc, nil
}

// SubDepth is 0 for a communicator with a context of its own, k for a
// sub-communicator k levels below one.
func (c *Comm) SubDepth() int { return int(c.subDepth) }
