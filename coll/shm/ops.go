package shm

import (
	"unsafe"

	mpirt "gmpi/runtime"
)

// Tunables of the algorithms (bytes).
const (
	// bcastChunk: a broadcast moves its data through the root's slots in
	// chunks of this many bytes, so readers copy one chunk out while the
	// root copies the next one in.
	bcastChunk = 2 * largeSlot
	// roundBytes: a reduction handles at most this much data per round
	// (half the large ring, so the next round's copy-in overlaps the
	// previous round's copy-out).
	roundBytes = largeBytes / 2
	// bcastMax: from this many bytes on, Bcast uses the replaced entry:
	// point-to-point between shared-memory peers copies such messages
	// once (cross-memory attach, GMPI_RMA_MIN), where the segment takes
	// two copies.
	bcastMax = 512 << 10
	// splitMin: from this many bytes per round, every rank reduces a
	// slice of the round (in parallel) instead of one rank (reduce) or
	// each rank (allreduce) reducing all of it.
	splitMin = 8 << 10
)

// ring allocates the slots of one of the two rings of every rank's data
// (the same way on every rank). A slot is reused once every rank has
// completed the last step that used it.
type ring struct {
	off, slot, n int      // where it starts in a rank's data, slot size, slots
	next         int      // next slot to hand out
	lastUse      []uint64 // last step at which each slot was used
}

func newRing(off, slot, n int) ring {
	return ring{off: off, slot: slot, n: n, lastUse: make([]uint64, n)}
}

// alloc reserves consecutive slots for bytes (at most the ring) for a
// round that ends at step end. It returns the first slot and the step
// every rank must have completed before the slots may be written.
func (g *ring) alloc(bytes int, end uint64) (first int, free uint64) {
	k := max(1, (bytes+g.slot-1)/g.slot)
	if g.next+k > g.n {
		g.next = 0
	}
	first = g.next
	g.next += k
	for i := first; i < first+k; i++ {
		free = max(free, g.lastUse[i])
		g.lastUse[i] = end
	}
	return first, free
}

// ringFor is the ring that carries rounds of bytes.
func (m *module) ringFor(bytes int) *ring {
	if bytes <= smallSlot {
		return &m.small
	}
	return &m.large
}

// stage returns a private buffer of n bytes (reused between calls).
func (m *module) stage(n int) []byte {
	if cap(m.scratch) < n {
		m.scratch = make([]byte, n)
	}
	return m.scratch[:n]
}

// barrier: every rank completes one step and waits for all others to.
func (m *module) barrier(c *mpirt.Comm) error {
	if !m.ready() {
		return m.prev.Barrier(c)
	}
	m.step++
	m.publish(m.step)
	m.waitAll(m.step)
	return nil
}

// bcast moves the data through the root's slots; non-contiguous data is
// packed at the root and unpacked at the others (the ranks may use
// different datatypes with the same type signature).
func (m *module) bcast(c *mpirt.Comm, buf unsafe.Pointer, count int, dt *mpirt.Datatype, root int) error {
	bytes := count * dt.Size()
	if bytes <= 0 {
		return nil
	}
	if bytes >= bcastMax || !m.ready() {
		return m.prev.Bcast(c, buf, count, dt, root)
	}
	if dt.IsContiguous() {
		m.bcastBytes(unsafe.Slice((*byte)(unsafe.Add(buf, dt.TrueLB())), bytes), root)
		return nil
	}
	tmp := m.stage(bytes)
	if m.me == root {
		dt.Pack(tmp, buf, count)
	}
	m.bcastBytes(tmp, root)
	if m.me != root {
		dt.Unpack(buf, tmp, count)
	}
	return nil
}

// bcastBytes pipelines data in chunks through the root's slots, one step
// per chunk: the root writes chunk k once every rank has left the round
// that last used its slots; the others copy it out once the root has
// completed the step.
func (m *module) bcastBytes(data []byte, root int) {
	seg := m.seg
	for off := 0; off < len(data); off += bcastChunk {
		part := data[off:min(off+bcastChunk, len(data))]
		m.step++
		g := m.ringFor(len(part))
		first, free := g.alloc(len(part), m.step)
		if m.me == root {
			m.waitAll(free)
			copy(seg.slots(root, g, first, len(part)), part)
		} else {
			m.waitRank(root, m.step)
			copy(part, seg.slots(root, g, first, len(part)))
		}
		m.publish(m.step)
	}
}

// redArgs are a reduction's operands in memory layout (see
// mpirt.CollView): element i starts at byte i*ext.
type redArgs struct {
	in, out   []byte // out is nil where the result is not wanted
	count     int
	dt        *mpirt.Datatype
	op        mpirt.Handle
	ext, span int // extent, and bytes of one element (true extent)
	all       bool
	root      int
}

// spanOf is the bytes k elements occupy in memory layout.
func (a *redArgs) spanOf(k int) int { return (k-1)*a.ext + a.span }

// fits reports whether the shared-memory reduction handles dt: one
// element must fit in a round, and elements must follow each other.
func fits(dt *mpirt.Datatype) bool {
	return dt.Extent() > 0 && dt.TrueExtent() > 0 && dt.TrueExtent() <= roundBytes
}

func (m *module) reduce(c *mpirt.Comm, sbuf, rbuf unsafe.Pointer, count int, dt *mpirt.Datatype, op mpirt.Handle, root int) error {
	if count <= 0 || dt.Size() == 0 {
		return nil
	}
	if err := mpirt.CheckOp(op, dt); err != nil {
		return err
	}
	if !fits(dt) || !m.ready() {
		return m.prev.Reduce(c, sbuf, rbuf, count, dt, op, root)
	}
	return m.reduction(sbuf, rbuf, count, dt, op, root, false)
}

func (m *module) allreduce(c *mpirt.Comm, sbuf, rbuf unsafe.Pointer, count int, dt *mpirt.Datatype, op mpirt.Handle) error {
	if count <= 0 || dt.Size() == 0 {
		return nil
	}
	if err := mpirt.CheckOp(op, dt); err != nil {
		return err
	}
	if !fits(dt) || !m.ready() {
		return m.prev.Allreduce(c, sbuf, rbuf, count, dt, op)
	}
	return m.reduction(sbuf, rbuf, count, dt, op, 0, true)
}

// reduction is Reduce (all false) and Allreduce (all true). The data goes
// in rounds of at most roundBytes. In a round every rank copies its
// operand into its slots; then the result is folded from the right,
//
//	r = b[n-1];  r = b[i] op r  for i = n-2 ... 0,
//
// which keeps the rank order MPI requires for non-commutative operators
// and gives the same bits on every rank. Small rounds are folded by the
// root (Reduce) or by every rank into its own output (Allreduce); large
// ones are split into one slice per rank, each rank folds its slice into
// rank n-1's slots, and the result is copied out from there.
func (m *module) reduction(sbuf, rbuf unsafe.Pointer, count int, dt *mpirt.Datatype, op mpirt.Handle, root int, all bool) error {
	src := sbuf
	if mpirt.IsInPlace(sbuf) {
		src = rbuf
	}
	in, _, err := mpirt.CollView(src, count, dt, false)
	if err != nil {
		return err
	}
	a := redArgs{in: in, count: count, dt: dt, op: op, ext: dt.Extent(), span: dt.TrueExtent(), all: all, root: root}
	done := func() error { return nil }
	if all || m.me == root {
		if a.out, done, err = mpirt.CollView(rbuf, count, dt, true); err != nil {
			return err
		}
	}
	per := (roundBytes-a.span)/a.ext + 1
	for e0 := 0; e0 < count; e0 += per {
		m.round(&a, e0, min(per, count-e0))
	}
	return done()
}

// round reduces elements [e0, e0+k).
func (m *module) round(a *redArgs, e0, k int) {
	seg := m.seg
	off, bytes := e0*a.ext, a.spanOf(k)
	s1 := m.step + 1
	end := m.step + 3
	m.step = end
	g := m.ringFor(bytes)
	first, free := g.alloc(bytes, end)
	slot := func(r int) []byte { return seg.slots(r, g, first, bytes) }
	m.waitAll(free)
	copy(slot(m.me), a.in[off:off+bytes])
	wantOut := a.all || m.me == a.root
	if bytes < splitMin || k < m.n {
		if !wantOut {
			m.publish(end)
			return
		}
		m.publish(s1)
		m.waitAll(s1)
		out := a.out[off : off+bytes]
		copy(out, slot(m.n-1))
		m.fold(a, out, k, 0, slot)
		m.publish(end)
		return
	}
	m.publish(s1)
	m.waitAll(s1)
	// This rank's slice: elements [lo, hi) of the round.
	lo, hi := k*m.me/m.n, k*(m.me+1)/m.n
	if hi > lo {
		so, sb := lo*a.ext, a.spanOf(hi-lo)
		m.fold(a, slot(m.n - 1)[so:so+sb], hi-lo, so, slot)
	}
	if !wantOut {
		m.publish(end)
		return
	}
	m.publish(s1 + 1)
	m.waitAll(s1 + 1)
	copy(a.out[off:off+bytes], slot(m.n-1))
	m.publish(end)
}

// fold computes acc = b[0] op (b[1] op (... op acc)) over ranks n-2..0,
// where acc holds k elements that start at byte so of the round and
// initially b[n-1]'s.
func (m *module) fold(a *redArgs, acc []byte, k, so int, slot func(int) []byte) {
	for r := m.n - 2; r >= 0; r-- {
		// Validated by CheckOp before the collective started.
		_ = mpirt.ReduceLocal(a.op, a.dt, slot(r)[so:so+len(acc)], acc, k)
	}
}

// gatherOp is Allgather (all true) and Gather: in rounds of at most
// roundBytes of each rank's block, every rank copies its part into its
// slots, and every rank (Allgather) or the root (Gather) copies every
// rank's part out. Non-contiguous blocks are packed and unpacked (the
// ranks may use different datatypes with the same type signature, so
// the choice of path never depends on them).
func (m *module) gatherOp(op mpirt.CollOp, all bool) mpirt.BlockingFunc {
	return func(c *mpirt.Comm, a *mpirt.CollArgs) error {
		inPlace := mpirt.IsInPlace(a.Sbuf)
		wantOut := all || m.me == a.Root
		var blk int
		if wantOut {
			blk = a.Rcount * a.Rdt.Size()
		} else {
			blk = a.Scount * a.Sdt.Size()
		}
		if blk <= 0 {
			return nil
		}
		if !m.ready() {
			return m.fallback(op, c, a)
		}
		rdt := a.Rdt
		at := func(r int) unsafe.Pointer { return unsafe.Add(a.Rbuf, r*a.Rcount*rdt.Extent()) }
		// src: this rank's block as bytes.
		var src []byte
		switch {
		case inPlace && rdt.IsContiguous():
			src = unsafe.Slice((*byte)(unsafe.Add(at(m.me), rdt.TrueLB())), blk)
		case inPlace:
			src = make([]byte, blk)
			rdt.Pack(src, at(m.me), a.Rcount)
		case a.Sdt.IsContiguous():
			src = unsafe.Slice((*byte)(unsafe.Add(a.Sbuf, a.Sdt.TrueLB())), blk)
		default:
			src = make([]byte, blk)
			a.Sdt.Pack(src, a.Sbuf, a.Scount)
		}
		// dst(r): where rank r's block goes (a staging buffer for a
		// non-contiguous receive type, unpacked at the end).
		var stage []byte
		if wantOut && !rdt.IsContiguous() {
			stage = make([]byte, m.n*blk)
		}
		dst := func(r int) []byte {
			if stage != nil {
				return stage[r*blk : (r+1)*blk]
			}
			return unsafe.Slice((*byte)(unsafe.Add(at(r), rdt.TrueLB())), blk)
		}
		seg := m.seg
		for off := 0; off < blk; off += roundBytes {
			n := min(roundBytes, blk-off)
			s1, end := m.step+1, m.step+2
			m.step = end
			g := m.ringFor(n)
			first, free := g.alloc(n, end)
			m.waitAll(free)
			copy(seg.slots(m.me, g, first, n), src[off:off+n])
			if !wantOut {
				m.publish(end)
				continue
			}
			m.publish(s1)
			for r := range m.n {
				if r == m.me {
					if !inPlace || stage != nil {
						copy(dst(r)[off:off+n], src[off:off+n])
					}
					continue
				}
				m.waitRank(r, s1)
				copy(dst(r)[off:off+n], seg.slots(r, g, first, n))
			}
			m.publish(end)
		}
		if stage != nil {
			for r := range m.n {
				rdt.Unpack(at(r), dst(r), a.Rcount)
			}
		}
		return nil
	}
}

// fallback runs op with the entries this module replaced.
func (m *module) fallback(op mpirt.CollOp, c *mpirt.Comm, a *mpirt.CollArgs) error {
	if f := m.prev.Blocking[op]; f != nil {
		return f(c, a)
	}
	f := m.prev.Sched[op]
	if f == nil {
		return mpirt.Errorf(mpirt.ErrUnsupportedOperation, "", "no collective component provides %s on this communicator", op)
	}
	s, err := f(c, a)
	if err != nil {
		return err
	}
	r, err := s.Start()
	if err != nil {
		return err
	}
	return c.World().Wait(r)
}
