package shm

import (
	"unsafe"

	mpirt "gmpi/runtime"
)

// Scan, Exscan and Reduce_scatter_block through the segment: every rank
// copies its packed operand into its slots, then combines from the
// other ranks' slots what its own result needs, with the association
// of the point-to-point algorithms (coll/basic), so the bits are the
// same as theirs and the rank order is MPI's for non-commutative
// operators.

// scanOp is Scan (exclusive false) and Exscan.
func (m *module) scanOp(op mpirt.CollOp, exclusive bool) mpirt.BlockingFunc {
	return func(c *mpirt.Comm, a *mpirt.CollArgs) error {
		dt := a.Rdt
		total := a.Rcount * dt.Size()
		if total <= 0 {
			return nil
		}
		if !reducible(a.Op, dt) || !m.ready() {
			return m.fallback(op, c, a)
		}
		src := a.Sbuf
		if mpirt.IsInPlace(src) {
			src = a.Rbuf
		}
		r := redArgs{dt: dt, op: a.Op, unit: mpirt.PackedReduceUnit(a.Op, dt)}
		r.in = m.packedIn(bufIn, src, a.Rcount, dt)
		wantOut := !exclusive || m.me > 0
		unpack := false
		if wantOut {
			r.out, unpack = m.packedOut(bufOut, a.Rbuf, a.Rcount, dt)
		}
		per := roundBytes / r.unit * r.unit
		seg := m.seg
		for off := 0; off < total; off += per {
			bytes := min(per, total-off)
			s1, end := m.pv.step+1, m.pv.step+2
			m.pv.step = end
			g := m.ringFor(bytes)
			first, free := g.alloc(bytes, end)
			slot := func(q int) []byte { return seg.slots(q, g, first, bytes) }
			m.waitAll(free)
			copy(slot(m.me), r.in[off:off+bytes])
			// Only the ranks above wait for s1, and rank 0 waits for
			// none: the top rank and rank 0 publish end alone.
			if m.me > 0 && m.me < m.n-1 {
				m.publish(s1)
			}
			if wantOut {
				for q := range m.me {
					m.waitRank(q, s1)
				}
				m.prefix(&r, r.out[off:off+bytes], exclusive, slot)
			}
			m.publish(end)
		}
		if unpack {
			dt.Unpack(a.Rbuf, r.out, a.Rcount)
		}
		return nil
	}
}

// prefix sets dst to this rank's (exclusive) prefix reduction of the
// slots, associated as the recursive-doubling scan of coll/basic: at the
// step of bit b, a rank with b set combines on its left the partial
// result of the aligned block of 2^b ranks just below its own block,
// itself reduced over the binomial tree of that block.
func (m *module) prefix(a *redArgs, dst []byte, exclusive bool, slot func(int) []byte) {
	have := !exclusive
	if have {
		copy(dst, slot(m.me))
	}
	tmp := m.buf(bufAcc, len(dst))
	for mask := 1; mask < m.n; mask <<= 1 {
		if m.me&mask == 0 {
			continue
		}
		lo := (m.me ^ mask) &^ (mask - 1)
		if !have {
			m.combineRange(a, dst, 0, lo, mask, slot)
			have = true
			continue
		}
		m.combineRange(a, tmp, 0, lo, mask, slot)
		_ = mpirt.ReducePacked(a.op, a.dt, tmp, dst)
	}
}

// reduceScatterBlock: in rounds of a piece of every block, every rank
// copies its pieces into its slots (block j's at j*piece); rank j then
// combines the pieces of block j of every rank over the binomial tree
// (the association of coll/basic's reduce-then-scatter) into its result.
func (m *module) reduceScatterBlock(c *mpirt.Comm, a *mpirt.CollArgs) error {
	dt := a.Rdt
	blk := a.Rcount * dt.Size()
	if blk <= 0 {
		return nil
	}
	unit := mpirt.PackedReduceUnit(a.Op, dt)
	per := blockRounds(m.n) / unit * unit
	if per == 0 || !m.ready() {
		return m.fallback(mpirt.CollReduceScatterBlock, c, a)
	}
	var in []byte
	if mpirt.IsInPlace(a.Sbuf) {
		in = m.packedIn(bufIn, a.Rbuf, a.Rcount*m.n, dt)
	} else {
		in = m.packedIn(bufIn, a.Sbuf, a.Rcount*m.n, dt)
	}
	var out []byte
	unpack := false
	if mpirt.IsInPlace(a.Sbuf) {
		// The result goes to the start of the receive buffer, which
		// also holds this rank's operand: reduce into a private buffer.
		out, unpack = m.buf(bufOut, blk), true
	} else {
		out, unpack = m.packedOut(bufOut, a.Rbuf, a.Rcount, dt)
	}
	r := redArgs{dt: dt, op: a.Op, unit: unit}
	seg := m.seg
	for off := 0; off < blk; off += per {
		k := min(per, blk-off)
		s1, end := m.pv.step+1, m.pv.step+2
		m.pv.step = end
		g := m.ringFor(k * m.n)
		first, free := g.alloc(k*m.n, end)
		slot := func(q int) []byte { return seg.slots(q, g, first, k*m.n) }
		m.waitAll(free)
		mine := slot(m.me)
		for j := range m.n {
			copy(mine[j*k:(j+1)*k], in[j*blk+off:j*blk+off+k])
		}
		m.publish(s1)
		m.waitAll(s1)
		m.combine(&r, out[off:off+k], m.me*k, slot)
		m.publish(end)
	}
	if unpack {
		if dt.IsContiguous() {
			copy(unsafe.Slice((*byte)(unsafe.Add(a.Rbuf, dt.TrueLB())), blk), out)
		} else {
			dt.Unpack(a.Rbuf, out, a.Rcount)
		}
	}
	return nil
}
