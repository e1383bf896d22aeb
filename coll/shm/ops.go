package shm

import (
	"fmt"
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
// completed the last step that used it. The small ring's state lives in
// this rank's private block of the segment (the C express lane allocates
// from it too, capi/cshm.c); the large ring's in Go memory.
type ring struct {
	off, slot, n int      // where it starts in a rank's data, slot size, slots
	next         *uint64  // next slot to hand out
	lastUse      []uint64 // last step at which each slot was used
}

func newRing(off, slot, n int, next *uint64, lastUse []uint64) ring {
	return ring{off: off, slot: slot, n: n, next: next, lastUse: lastUse}
}

// alloc reserves consecutive slots for bytes (at most the ring) for a
// round that ends at step end. It returns the first slot and the step
// every rank must have completed before the slots may be written.
func (g *ring) alloc(bytes int, end uint64) (first int, free uint64) {
	k := max(1, (bytes+g.slot-1)/g.slot)
	next := int(*g.next)
	if next+k > g.n {
		next = 0
	}
	first = next
	*g.next = uint64(next + k)
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

// Private buffers of the module, reused between calls (bufTree and up:
// the partial results of a reduction tree).
const (
	bufStage = iota
	bufIn
	bufOut
	bufAcc
	bufTree
)

// buf returns private buffer i with n bytes.
func (m *module) buf(i, n int) []byte {
	for len(m.scratch) <= i {
		m.scratch = append(m.scratch, nil)
	}
	if cap(m.scratch[i]) < n {
		m.scratch[i] = make([]byte, n)
	}
	return m.scratch[i][:n]
}

// stage returns a private buffer of n bytes (reused between calls).
func (m *module) stage(n int) []byte { return m.buf(bufStage, n) }

// barrier: every rank completes one step and waits for all others to.
func (m *module) barrier(c *mpirt.Comm) error {
	if !m.ready() {
		return m.prev.Barrier(c)
	}
	m.pv.step++
	m.publish(m.pv.step)
	m.waitAll(m.pv.step)
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
		m.pv.step++
		g := m.ringFor(len(part))
		first, free := g.alloc(len(part), m.pv.step)
		if m.me == root {
			m.waitAll(free)
			copy(seg.slots(root, g, first, len(part)), part)
		} else {
			m.waitRank(root, m.pv.step)
			copy(part, seg.slots(root, g, first, len(part)))
		}
		m.publish(m.pv.step)
	}
}

// redArgs are a reduction's operands as packed streams (the data bytes
// in type-map order): processes may describe the operands with different
// datatypes of one type signature, so everything that decides how the
// data moves (rounds, slots, slices) depends on packed sizes only, and
// partial results are combined in packed form (mpirt.ReducePacked).
type redArgs struct {
	in, out []byte // out is nil where the result is not wanted
	dt      *mpirt.Datatype
	op      mpirt.Handle
	unit    int // bytes of the smallest independently reducible piece
	all     bool
	root    int
}

// reducible reports whether the shared-memory reduction handles op on dt
// (the same answer on every process: it depends on the type signature).
func reducible(op mpirt.Handle, dt *mpirt.Datatype) bool {
	return mpirt.PackedReduceUnit(op, dt) <= roundBytes
}

func (m *module) reduce(c *mpirt.Comm, sbuf, rbuf unsafe.Pointer, count int, dt *mpirt.Datatype, op mpirt.Handle, root int) error {
	if count <= 0 || dt.Size() == 0 {
		return nil
	}
	if err := mpirt.CheckOp(op, dt); err != nil {
		return err
	}
	if !reducible(op, dt) || !m.ready() {
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
	if !reducible(op, dt) || !m.ready() {
		return m.prev.Allreduce(c, sbuf, rbuf, count, dt, op)
	}
	return m.reduction(sbuf, rbuf, count, dt, op, 0, true)
}

// reduction is Reduce (all false) and Allreduce (all true). The packed
// data goes in rounds of at most roundBytes. In a round every rank copies
// its operand into its slots; then the operands are combined over the
// binomial tree of the point-to-point reduction (coll/basic): ranks
// 2i and 2i+1 first, then pairs of pairs, ..., always the lower ranks'
// partial result on the left,
//
//	n = 4:  (b0 op b1) op (b2 op b3)     n = 3:  (b0 op b1) op b2
//
// which keeps the rank order MPI requires for non-commutative operators,
// gives the same bits on every rank, and the same bits as the
// point-to-point reductions (a program may compute one sum with Reduce
// on some processes and Allreduce on others, or on communicators served
// by different components, and rely on equal results: ScaLAPACK's
// eigensolvers lose orthogonality otherwise). Small rounds are combined
// by the root (Reduce) or by every rank into its own output (Allreduce);
// large ones are split into one slice per rank, each rank combines its
// slice into its own slots, and the result is copied out from there.
func (m *module) reduction(sbuf, rbuf unsafe.Pointer, count int, dt *mpirt.Datatype, op mpirt.Handle, root int, all bool) error {
	src := sbuf
	if mpirt.IsInPlace(sbuf) {
		src = rbuf
	}
	total := count * dt.Size()
	a := redArgs{dt: dt, op: op, unit: mpirt.PackedReduceUnit(op, dt), all: all, root: root}
	wantOut := all || m.me == root
	if dt.IsContiguous() {
		a.in = unsafe.Slice((*byte)(unsafe.Add(src, dt.TrueLB())), total)
		if wantOut {
			a.out = unsafe.Slice((*byte)(unsafe.Add(rbuf, dt.TrueLB())), total)
		}
	} else {
		a.in = m.buf(bufIn, total)
		dt.Pack(a.in, src, count)
		if wantOut {
			a.out = m.buf(bufOut, total)
		}
	}
	if m.useCMARed(total, a.unit) {
		if err := m.reductionCMA(&a, mpirt.IsInPlace(sbuf)); err != nil {
			return err
		}
	} else {
		per := roundBytes / a.unit * a.unit
		for off := 0; off < total; off += per {
			m.round(&a, off, min(per, total-off))
		}
	}
	if wantOut && !dt.IsContiguous() {
		dt.Unpack(rbuf, a.out, count)
	}
	return nil
}

// round reduces the packed bytes [off, off+bytes).
func (m *module) round(a *redArgs, off, bytes int) {
	seg := m.seg
	s1 := m.pv.step + 1
	end := m.pv.step + 3
	m.pv.step = end
	g := m.ringFor(bytes)
	first, free := g.alloc(bytes, end)
	slot := func(r int) []byte { return seg.slots(r, g, first, bytes) }
	m.waitAll(free)
	copy(slot(m.me), a.in[off:off+bytes])
	wantOut := a.all || m.me == a.root
	units := bytes / a.unit
	if bytes < splitMin || units < m.n {
		if !wantOut {
			m.publish(end)
			return
		}
		if a.all {
			m.publish(s1)
			m.waitAll(s1)
		} else {
			// Reduce: no rank waits for the root's s1, so it
			// publishes end only.
			m.waitOthers(s1)
		}
		m.combine(a, a.out[off:off+bytes], 0, slot)
		m.publish(end)
		return
	}
	m.publish(s1)
	m.waitAll(s1)
	// Rank r's slice: units [k*r/n, k*(r+1)/n) of the round; only rank
	// r reads the slice of anyone's slots, so it may overwrite its own.
	slice := func(r int) (lo, hi int) { return units * r / m.n * a.unit, units * (r + 1) / m.n * a.unit }
	if lo, hi := slice(m.me); hi > lo {
		acc := m.buf(bufAcc, hi-lo)
		m.combine(a, acc, lo, slot)
		copy(slot(m.me)[lo:hi], acc)
	}
	if !wantOut {
		m.publish(end)
		return
	}
	m.publish(s1 + 1)
	m.waitAll(s1 + 1)
	out := a.out[off : off+bytes]
	for r := range m.n {
		lo, hi := slice(r)
		copy(out[lo:hi], slot(r)[lo:hi])
	}
	m.publish(end)
}

// combine sets dst to the reduction of the len(dst) bytes at offset so of
// every rank's slots, over the binomial tree (see reduction).
func (m *module) combine(a *redArgs, dst []byte, so int, slot func(int) []byte) {
	m.combineRange(a, dst, so, 0, m.n, slot)
}

// combineRange sets dst to the reduction of the len(dst) bytes at offset
// so of the slots of ranks lo..lo+k-1, over the binomial tree of those
// k leaves. Partial results of complete subtrees wait on a stack, as
// digits of a binary counter; every combination is right = left op
// right, the form the point-to-point algorithms use. The subtree that
// ends with the last leaf is always the right operand, so it is
// accumulated in dst itself.
func (m *module) combineRange(a *redArgs, dst []byte, so, lo, k int, slot func(int) []byte) {
	n := len(dst)
	leaf := func(r int) []byte { return slot(r)[so : so+n] }
	last := lo + k - 1
	if k == 1 {
		copy(dst, leaf(lo))
		return
	}
	// The stack holds at most one part per bit of k, plus one.
	if len(m.stack) < 66 {
		m.stack = make([]part, 66)
		m.spare = make([][]byte, 0, 66)
	}
	stack := m.stack
	top := 0
	spare := m.spare[:0] // private buffers free again
	temps := 0
	// own returns a private buffer holding leaf r (dst for the last).
	own := func(r int) []byte {
		var b []byte
		switch {
		case r == last:
			b = dst
		case len(spare) > 0:
			b = spare[len(spare)-1]
			spare = spare[:len(spare)-1]
		default:
			b = m.buf(bufTree+temps, n)
			temps++
		}
		copy(b, leaf(r))
		return b
	}
	// join computes left op right into right's buffer (made private).
	join := func(left part, right part, rightRank int) part {
		if right.size == 1 {
			right.data = own(rightRank)
		}
		// Validated by CheckOp before the collective started.
		_ = mpirt.ReducePacked(a.op, a.dt, left.data, right.data)
		if left.size > 1 {
			spare = append(spare, left.data)
		}
		return part{right.data, left.size + right.size}
	}
	for r := lo; r <= last; r++ {
		cur := part{leaf(r), 1}
		for top > 0 && stack[top-1].size == cur.size {
			top--
			cur = join(stack[top], cur, r)
		}
		stack[top] = cur
		top++
	}
	for top > 1 {
		top--
		right := stack[top]
		top--
		stack[top] = join(stack[top], right, last)
		top++
	}
}

// part is a partial result of combineRange: the reduction of size leaves.
type part struct {
	data []byte
	size int
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
		var err error
		switch {
		case m.useCMA(blk, roundBytes) && m.push && !all && 8*m.n <= smallBytes:
			err = m.gatherPush(src, dst, inPlace && stage == nil, a.Root)
		case m.useCMA(blk, roundBytes):
			err = m.gatherCMA(src, dst, wantOut, all, inPlace && stage == nil, a.Root)
		default:
			m.gatherSeg(src, dst, blk, wantOut, all, inPlace && stage == nil)
		}
		if stage != nil {
			for r := range m.n {
				rdt.Unpack(at(r), dst(r), a.Rcount)
			}
		}
		return err
	}
}

// gatherCMA is gatherOp's single-copy path (cma.go): the ranks that want
// the blocks read every other rank's block from its memory. ownInPlace:
// this rank's block is already where it goes.
func (m *module) gatherCMA(src []byte, dst func(int) []byte, wantOut, all, ownInPlace bool, root int) error {
	g, first, s1, end := m.cmaPost(src)
	var err error
	if wantOut {
		for d := 1; d < m.n; d++ {
			r := (m.me + d) % m.n
			if e := m.cmaRead(r, g, first, s1, dst(r), 0); e != nil && err == nil {
				err = e
			}
		}
		if !ownInPlace {
			copy(dst(m.me), src)
		}
	}
	m.publish(end)
	// Readers may still read src until they are done.
	if all {
		m.waitAll(end)
	} else if m.me != root {
		m.waitRank(root, end)
	}
	return err
}

// gatherPush is Gather's single-copy path (cma.go), pushed: the root
// publishes where every other rank's block goes (its packed output), each
// of them writes its block there itself (process_vm_writev) while the
// root copies its own, and the root completes once every writer has. The
// copies run in parallel on the ranks that own the data, and a writer
// returns as soon as its block is in place (pulled, the root would copy
// every block in turn while the others wait for it). A writer's status
// word in its own slot tells the root whether the write succeeded.
// ownInPlace: the root's block is already where it goes.
func (m *module) gatherPush(src []byte, dst func(int) []byte, ownInPlace bool, root int) error {
	s1, end := m.pv.step+1, m.pv.step+2
	m.pv.step = end
	g := &m.small
	bytes := 8 * m.n
	first, free := g.alloc(bytes, end)
	m.waitAll(free)
	mine := m.seg.slots(m.me, g, first, bytes)
	if m.me != root {
		m.waitRank(root, s1)
		var err error
		if addr := getAddr(m.seg.slots(root, g, first, bytes)[8*m.me:]); addr == 0 {
			err = fmt.Errorf("coll/shm: the root published no place for rank %d's block", m.me)
		} else if e := m.c.World().WriteRemote(m.c.WorldRank(root), src, addr); e != nil {
			err = fmt.Errorf("coll/shm: writing this rank's block to the root: %w", e)
		}
		mine[0] = 0
		if err == nil {
			mine[0] = 1
		}
		m.publish(end)
		return err
	}
	for r := range m.n {
		var d []byte
		if r != root {
			d = dst(r)
		}
		putAddr(mine[8*r:], d)
	}
	m.publish(s1)
	if !ownInPlace {
		copy(dst(root), src)
	}
	var err error
	for d := 1; d < m.n; d++ {
		r := (root + d) % m.n
		m.waitRank(r, end)
		if m.seg.slots(r, g, first, bytes)[0] != 1 && err == nil {
			err = fmt.Errorf("coll/shm: rank %d could not write its block to the root", r)
		}
	}
	m.publish(end)
	return err
}

// gatherSeg is gatherOp's path through the segment. Gather's root (not
// all) neither fills its slots nor publishes s1: no rank reads them or
// waits for it.
func (m *module) gatherSeg(src []byte, dst func(int) []byte, blk int, wantOut, all, ownInPlace bool) {
	seg := m.seg
	for off := 0; off < blk; off += roundBytes {
		n := min(roundBytes, blk-off)
		s1, end := m.pv.step+1, m.pv.step+2
		m.pv.step = end
		g := m.ringFor(n)
		first, free := g.alloc(n, end)
		if all || !wantOut {
			m.waitAll(free)
			copy(seg.slots(m.me, g, first, n), src[off:off+n])
		}
		if !wantOut {
			m.publish(end)
			continue
		}
		if all {
			m.publish(s1)
		}
		for r := range m.n {
			if r == m.me {
				if !ownInPlace {
					copy(dst(r)[off:off+n], src[off:off+n])
				}
				continue
			}
			m.waitRank(r, s1)
			copy(dst(r)[off:off+n], seg.slots(r, g, first, n))
		}
		m.publish(end)
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
