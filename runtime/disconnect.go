package mpirt

// Disconnect is MPI_Comm_disconnect on any communicator: it waits until
// no receive of this process is still posted on c and no send of c waits
// for its receiver (rendezvous, synchronous), then synchronizes with the
// other processes of c (which do the same, so their sends to us were
// issued and, being ordered per pair, arrive before the barrier's) and
// frees c as MPI_Comm_free does.
//
// MPI_COMM_WORLD and MPI_COMM_SELF are accepted as MPICH 4.0 accepts them
// (the caller's handle becomes MPI_COMM_NULL): the waiting and the
// synchronization happen, but the predefined communicator itself stays
// usable (MPICH releases it and then fails in MPI_Finalize; keeping it is
// what a program that disconnects everything before finalizing needs).
func (c *Comm) Disconnect() error {
	w := c.w
	w.waitUntil(func() bool { return !w.hasPendingOn(c) })
	if err := c.Coll.Barrier(c); err != nil {
		return err
	}
	if c == w.commWorld || c == w.commSelf {
		return nil
	}
	return c.Free()
}

// hasPendingOn reports whether a point-to-point operation of this
// process on c is still in progress: a posted receive, or a send waiting
// for an answer from its receiver.
func (w *World) hasPendingOn(c *Comm) bool {
	m := &w.match
	m.lock()
	posted := 0
	if q := m.queuesLocked(c.ctx); q != nil {
		posted = q.nPosted
	}
	m.unlock()
	if posted > 0 {
		return true
	}
	w.pendingMu.Lock()
	defer w.pendingMu.Unlock()
	for _, r := range w.pending {
		if r.comm == c {
			return true
		}
	}
	return false
}
