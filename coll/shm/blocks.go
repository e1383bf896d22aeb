package shm

import (
	"unsafe"

	mpirt "gmpi/runtime"
)

// Scatter and Alltoall through the segment. Like the other operations,
// they move packed streams: count elements of a datatype as their data
// bytes (the user memory itself when the datatype is contiguous, else a
// private buffer packed before and unpacked after), so processes may use
// different datatypes of one type signature and every decision depends on
// packed sizes only.

// packedIn is count elements of dt at p as packed bytes: the memory
// itself when dt is contiguous, else private buffer i packed from it.
func (m *module) packedIn(i int, p unsafe.Pointer, count int, dt *mpirt.Datatype) []byte {
	n := count * dt.Size()
	if dt.IsContiguous() {
		return unsafe.Slice((*byte)(unsafe.Add(p, dt.TrueLB())), n)
	}
	b := m.buf(i, n)
	dt.Pack(b, p, count)
	return b
}

// packedOut is where count elements of dt at p are written as packed
// bytes, and whether they must be unpacked afterwards (into p).
func (m *module) packedOut(i int, p unsafe.Pointer, count int, dt *mpirt.Datatype) ([]byte, bool) {
	n := count * dt.Size()
	if dt.IsContiguous() {
		return unsafe.Slice((*byte)(unsafe.Add(p, dt.TrueLB())), n), false
	}
	return m.buf(i, n), true
}

// blockRounds is how many bytes of each of k blocks one round moves
// (at least 1).
func blockRounds(k int) int { return max(1, roundBytes/k) }

// scatter: in rounds, the root copies a piece of every other rank's block
// into its slots (block j at j*piece) and completes the round's first
// step; every other rank copies its piece out.
func (m *module) scatter(c *mpirt.Comm, a *mpirt.CollArgs) error {
	root := a.Root
	var blk int
	if m.me == root {
		blk = a.Scount * a.Sdt.Size()
	} else {
		blk = a.Rcount * a.Rdt.Size()
	}
	if blk <= 0 {
		return nil
	}
	if !m.ready() {
		return m.fallback(mpirt.CollScatter, c, a)
	}
	var src, dst []byte
	unpack := false
	if m.me == root {
		src = m.packedIn(bufIn, a.Sbuf, a.Scount*m.n, a.Sdt)
		if !mpirt.IsInPlace(a.Rbuf) {
			dst, unpack = m.packedOut(bufOut, a.Rbuf, a.Rcount, a.Rdt)
		}
	} else {
		dst, unpack = m.packedOut(bufOut, a.Rbuf, a.Rcount, a.Rdt)
	}
	if m.useCMA(blk, blockRounds(m.n)) {
		// Single copy (cma.go): every other rank reads its block from
		// the root's memory; the root copies its own block meanwhile
		// (after it published its data, so the copies overlap).
		g, first, s1, end := m.cmaPost(src)
		var err error
		if m.me != root {
			err = m.cmaRead(root, g, first, s1, dst, m.me*blk)
		} else if dst != nil {
			copy(dst, src[root*blk:(root+1)*blk])
		}
		m.publish(end)
		if m.me == root {
			m.waitAll(end)
		}
		if unpack {
			a.Rdt.Unpack(a.Rbuf, dst, a.Rcount)
		}
		return err
	}
	if m.me == root && dst != nil {
		copy(dst, src[root*blk:(root+1)*blk])
	}
	seg := m.seg
	per := blockRounds(m.n)
	for off := 0; off < blk; off += per {
		k := min(per, blk-off)
		s1, end := m.pv.step+1, m.pv.step+2
		m.pv.step = end
		g := m.ringFor(k * m.n)
		first, free := g.alloc(k*m.n, end)
		if m.me == root {
			m.waitAll(free)
			slots := seg.slots(root, g, first, k*m.n)
			for j := range m.n {
				if j != root {
					copy(slots[j*k:(j+1)*k], src[j*blk+off:j*blk+off+k])
				}
			}
			m.publish(end)
			continue
		}
		m.waitRank(root, s1)
		copy(dst[off:off+k], seg.slots(root, g, first, k*m.n)[m.me*k:(m.me+1)*k])
		m.publish(end)
	}
	if unpack {
		a.Rdt.Unpack(a.Rbuf, dst, a.Rcount)
	}
	return nil
}

// alltoall: in rounds, every rank copies a piece of each of its outgoing
// blocks into its slots (the block for rank j at j*piece), completes the
// round's first step, then copies the piece meant for it out of every
// other rank's slots. In place, the outgoing blocks are the receive
// buffer's; a round reads its pieces into the slots before it overwrites
// them.
func (m *module) alltoall(c *mpirt.Comm, a *mpirt.CollArgs) error {
	blk := a.Rcount * a.Rdt.Size()
	if blk <= 0 {
		return nil
	}
	if !m.ready() {
		return m.fallback(mpirt.CollAlltoall, c, a)
	}
	inPlace := mpirt.IsInPlace(a.Sbuf)
	dst, unpack := m.packedOut(bufOut, a.Rbuf, a.Rcount*m.n, a.Rdt)
	var src []byte
	switch {
	case !inPlace:
		src = m.packedIn(bufIn, a.Sbuf, a.Scount*m.n, a.Sdt)
		copy(dst[m.me*blk:(m.me+1)*blk], src[m.me*blk:(m.me+1)*blk])
	case unpack:
		a.Rdt.Pack(dst, a.Rbuf, a.Rcount*m.n)
		src = dst
	default:
		src = dst
	}
	if m.useCMA(blk, blockRounds(m.n)) && !inPlace {
		// Single copy (cma.go): every rank reads the block meant for it
		// from every other rank's memory (not in place: there a rank's
		// blocks are overwritten while others read them).
		g, first, s1, end := m.cmaPost(src)
		var err error
		for d := 1; d < m.n; d++ {
			r := (m.me + d) % m.n
			if e := m.cmaRead(r, g, first, s1, dst[r*blk:(r+1)*blk], m.me*blk); e != nil && err == nil {
				err = e
			}
		}
		m.publish(end)
		m.waitAll(end)
		if unpack {
			a.Rdt.Unpack(a.Rbuf, dst, a.Rcount*m.n)
		}
		return err
	}
	seg := m.seg
	per := blockRounds(m.n)
	for off := 0; off < blk; off += per {
		k := min(per, blk-off)
		s1, end := m.pv.step+1, m.pv.step+2
		m.pv.step = end
		g := m.ringFor(k * m.n)
		first, free := g.alloc(k*m.n, end)
		m.waitAll(free)
		mine := seg.slots(m.me, g, first, k*m.n)
		for j := range m.n {
			if j != m.me {
				copy(mine[j*k:(j+1)*k], src[j*blk+off:j*blk+off+k])
			}
		}
		m.publish(s1)
		// Start with the next rank: ranks do not all read rank 0 first.
		for d := 1; d < m.n; d++ {
			r := (m.me + d) % m.n
			m.waitRank(r, s1)
			copy(dst[r*blk+off:r*blk+off+k], seg.slots(r, g, first, k*m.n)[m.me*k:(m.me+1)*k])
		}
		m.publish(end)
	}
	if unpack {
		a.Rdt.Unpack(a.Rbuf, dst, a.Rcount*m.n)
	}
	return nil
}
