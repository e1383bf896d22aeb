package shm

import (
	"fmt"
)

// Single-copy blocks. Through the segment a block is copied twice (into
// the sender's slots, out of them). When every rank can read every other
// rank's memory with cross-memory attach (process_vm_readv) and the host
// is not oversubscribed (agreed when the segment is set up, so all ranks
// take the same path), Gather,
// Allgather, Scatter and Alltoall copy each block once when it is at
// least cmaMin bytes and the segment would need several rounds for it
// (useCMA): every rank publishes the address of its packed
// data (the user's memory when contiguous, else a private buffer packed
// first) in a small slot, the ranks that want a block read it straight
// from the owner's memory into their packed output, and the owner keeps
// its data in place until every reader is done. The bytes are the ones
// the segment path moves: the results are identical.
const cmaMin = 32 << 10

// useCMA reports whether blocks of blk bytes go single-copy, where the
// segment moves perRound bytes of each block per round. Within one round
// the segment path lets the writer run ahead (it returns once its data is
// in its slots), where the single copy holds the owner until its readers
// are done: measured at load 30-40 on 2 cores, 64 KiB blocks at 2 ranks
// were 2-4x slower single-copy, 1 MiB blocks 1.4-2.7x faster.
func (m *module) useCMA(blk, perRound int) bool {
	return m.cma && blk >= cmaMin && blk > perRound
}

// cmaPost publishes the address of data (nil: nothing to read here) at
// a new two-step round; it returns the round's slot and steps. Readers
// wait for s1, the owners for end (or for the one reader's end).
func (m *module) cmaPost(data []byte) (g *ring, first int, s1, end uint64) {
	s1, end = m.pv.step+1, m.pv.step+2
	m.pv.step = end
	g = &m.small
	first, free := g.alloc(8, end)
	m.waitAll(free)
	putAddr(m.seg.slots(m.me, g, first, 8), data)
	m.publish(s1)
	return g, first, s1, end
}

// cmaRead copies len(dst) bytes at offset off of what rank r published
// at (g, first, s1) into dst.
func (m *module) cmaRead(r int, g *ring, first int, s1 uint64, dst []byte, off int) error {
	if len(dst) == 0 {
		return nil
	}
	m.waitRank(r, s1)
	addr := getAddr(m.seg.slots(r, g, first, 8))
	if addr == 0 {
		return fmt.Errorf("coll/shm: rank %d published no data", r)
	}
	if err := m.c.World().ReadRemote(m.c.WorldRank(r), dst, addr+uintptr(off)); err != nil {
		return fmt.Errorf("coll/shm: reading rank %d's block: %w", r, err)
	}
	return nil
}
