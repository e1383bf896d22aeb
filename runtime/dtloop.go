package mpirt

import (
	"unsafe"
)

// The compiled form of a datatype: a short program of nested strided
// loops over contiguous byte blocks, built once by the constructors
// (dtcreate.go) and walked by Pack/Unpack and the reductions. A vector of
// a million doubles is one leaf {count 1e6, stride, 8 bytes}, so moving it
// is a tight loop of 8-byte copies, not a walk over a type map.

// loop is one node of a compiled datatype. A leaf (body nil) is count
// blocks of n contiguous bytes, the first at off and each stride after
// the previous one. An inner node repeats body count times, the i-th
// repetition's offsets shifted by off + i*stride.
//
// Invariants kept by the builders: count >= 1; a leaf with count > 1 has
// stride != n (such a leaf is one block of count*n bytes); n > 0.
type loop struct {
	off    int
	count  int
	stride int
	n      int
	body   []loop
}

// prog is the loops of one element of a datatype, in type-map order.
type prog []loop

// shift returns p with every top-level offset moved by d (p when d is 0).
func (p prog) shift(d int) prog {
	if d == 0 || len(p) == 0 {
		return p
	}
	q := make(prog, len(p))
	copy(q, p)
	for i := range q {
		q[i].off += d
	}
	return q
}

// leafLoop builds a normalized leaf.
func leafLoop(off, count, stride, n int) loop {
	if count > 1 && stride == n {
		return loop{off: off, count: 1, n: count * n}
	}
	if count == 1 {
		stride = 0
	}
	return loop{off: off, count: count, stride: stride, n: n}
}

// repeat returns the program of reps copies of p, stride bytes apart.
func repeat(p prog, reps, stride int) prog {
	if reps <= 0 || len(p) == 0 {
		return nil
	}
	if reps == 1 {
		return p
	}
	if len(p) == 1 {
		l := p[0]
		switch {
		case l.body == nil && l.count == 1:
			return prog{leafLoop(l.off, reps, stride, l.n)}
		case l.count*l.stride == stride:
			// The copies continue l's own stride: one longer loop.
			if l.body == nil {
				return prog{leafLoop(l.off, l.count*reps, l.stride, l.n)}
			}
			return prog{{off: l.off, count: l.count * reps, stride: l.stride, body: l.body}}
		case l.count == 1:
			// An inner node run once: repeat its body directly.
			return prog{{off: l.off, count: reps, stride: stride, body: l.body}}
		}
	}
	return prog{{off: 0, count: reps, stride: stride, body: p}}
}

// appendProg appends q to p, merging the loops where they meet when the
// result is one regular loop (adjacent blocks, or equal blocks at a
// constant stride).
func appendProg(p, q prog) prog {
	for _, l := range q {
		p = appendLoop(p, l)
	}
	return p
}

func appendLoop(p prog, l loop) prog {
	if len(p) == 0 || l.body != nil {
		return append(p, l)
	}
	last := &p[len(p)-1]
	if last.body != nil {
		return append(p, l)
	}
	if l.count == 1 {
		switch {
		case last.count == 1 && last.off+last.n == l.off:
			last.n += l.n
			return p
		case last.count == 1 && last.n == l.n && l.off != last.off:
			*last = leafLoop(last.off, 2, l.off-last.off, l.n)
			return p
		case last.count > 1 && last.n == l.n && last.off+last.count*last.stride == l.off:
			last.count++
			return p
		}
	}
	return append(p, l)
}

// mover copies between user memory and a packed buffer.
type mover struct {
	buf    []byte // packed bytes
	pos    int    // next byte of buf
	unpack bool   // buf -> memory instead of memory -> buf
}

// run moves the data of p at byte offset off from base, stopping (and
// returning false) when buf is exhausted, possibly in the middle of a
// block. Offsets stay integers until they name a data block: partial sums
// may lie outside the buffer (negative displacements) and must never
// become pointers.
func (m *mover) run(p prog, base unsafe.Pointer, off int) bool {
	for i := range p {
		l := &p[i]
		if l.body != nil {
			for j := 0; j < l.count; j++ {
				if !m.run(l.body, base, off+l.off+j*l.stride) {
					return false
				}
			}
			continue
		}
		at := unsafe.Add(base, off+l.off)
		if l.count == 1 && m.pos+l.n <= len(m.buf) {
			m.block(at, l.n)
			continue
		}
		if !m.leaf(at, l.count, l.stride, l.n) {
			return false
		}
	}
	return true
}

// leaf moves count blocks of n bytes, stride apart, starting at at.
func (m *mover) leaf(at unsafe.Pointer, count, stride, n int) bool {
	room := len(m.buf) - m.pos
	if count*n > room {
		// The buffer ends inside this leaf: move whole blocks, then the
		// part of the last one that fits.
		full := room / n
		if full > 0 {
			m.leaf(at, full, stride, n)
		}
		if rest := room - full*n; rest > 0 {
			m.block(unsafe.Add(at, full*stride), rest)
		}
		return false
	}
	if count == 1 {
		m.block(at, n)
		return true
	}
	b := m.buf[m.pos : m.pos+count*n]
	pb := unsafe.Pointer(unsafe.SliceData(b))
	switch {
	case n == 8 && !m.unpack:
		for j := range count {
			*(*uint64)(unsafe.Add(pb, j*8)) = *(*uint64)(unsafe.Add(at, j*stride))
		}
	case n == 8:
		for j := range count {
			*(*uint64)(unsafe.Add(at, j*stride)) = *(*uint64)(unsafe.Add(pb, j*8))
		}
	case n == 4 && !m.unpack:
		for j := range count {
			*(*uint32)(unsafe.Add(pb, j*4)) = *(*uint32)(unsafe.Add(at, j*stride))
		}
	case n == 4:
		for j := range count {
			*(*uint32)(unsafe.Add(at, j*stride)) = *(*uint32)(unsafe.Add(pb, j*4))
		}
	case n == 16 && !m.unpack:
		for j := range count {
			*(*[2]uint64)(unsafe.Add(pb, j*16)) = *(*[2]uint64)(unsafe.Add(at, j*stride))
		}
	case n == 16:
		for j := range count {
			*(*[2]uint64)(unsafe.Add(at, j*stride)) = *(*[2]uint64)(unsafe.Add(pb, j*16))
		}
	case n%8 == 0 && n <= 64 && !m.unpack:
		w := n / 8
		for j := range count {
			src, dst := unsafe.Add(at, j*stride), unsafe.Add(pb, j*n)
			for k := range w {
				*(*uint64)(unsafe.Add(dst, 8*k)) = *(*uint64)(unsafe.Add(src, 8*k))
			}
		}
	case n%8 == 0 && n <= 64:
		w := n / 8
		for j := range count {
			dst, src := unsafe.Add(at, j*stride), unsafe.Add(pb, j*n)
			for k := range w {
				*(*uint64)(unsafe.Add(dst, 8*k)) = *(*uint64)(unsafe.Add(src, 8*k))
			}
		}
	case !m.unpack:
		for j := range count {
			copy(b[j*n:j*n+n], unsafe.Slice((*byte)(unsafe.Add(at, j*stride)), n))
		}
	default:
		for j := range count {
			copy(unsafe.Slice((*byte)(unsafe.Add(at, j*stride)), n), b[j*n:j*n+n])
		}
	}
	m.pos += count * n
	return true
}

func (m *mover) block(at unsafe.Pointer, n int) {
	if n <= 16 {
		// Small blocks (indexed types): byte-exact moves without memmove.
		b := unsafe.Pointer(unsafe.SliceData(m.buf[m.pos : m.pos+n]))
		src, dst := at, b
		if m.unpack {
			src, dst = b, at
		}
		switch {
		case n == 8:
			*(*uint64)(dst) = *(*uint64)(src)
		case n == 4:
			*(*uint32)(dst) = *(*uint32)(src)
		case n == 16:
			*(*[2]uint64)(dst) = *(*[2]uint64)(src)
		case n > 8:
			*(*uint64)(dst) = *(*uint64)(src)
			*(*uint64)(unsafe.Add(dst, n-8)) = *(*uint64)(unsafe.Add(src, n-8))
		case n > 4:
			*(*uint32)(dst) = *(*uint32)(src)
			*(*uint32)(unsafe.Add(dst, n-4)) = *(*uint32)(unsafe.Add(src, n-4))
		default:
			for i := range n {
				*(*byte)(unsafe.Add(dst, i)) = *(*byte)(unsafe.Add(src, i))
			}
		}
		m.pos += n
		return
	}
	mem := unsafe.Slice((*byte)(at), n)
	if m.unpack {
		copy(mem, m.buf[m.pos:m.pos+n])
	} else {
		copy(m.buf[m.pos:m.pos+n], mem)
	}
	m.pos += n
}

// move runs the mover over count elements of d at p.
func (d *Datatype) move(m *mover, p unsafe.Pointer, count int) int {
	if count <= 0 || d.size == 0 {
		return 0
	}
	if d.contiguous {
		n := min(count*d.size, len(m.buf)-m.pos)
		if n > 0 {
			m.block(unsafe.Add(p, d.trueLB), n)
		}
		return n
	}
	start := m.pos
	if len(d.prog) == 1 && d.prog[0].body == nil && d.prog[0].count == 1 {
		// One block per element: a single strided leaf over the elements.
		l := d.prog[0]
		m.leaf(unsafe.Add(p, l.off), count, d.extent, l.n)
		return m.pos - start
	}
	for i := 0; i < count; i++ {
		if !m.run(d.prog, p, i*d.extent) {
			break
		}
	}
	return m.pos - start
}

// Pack copies count elements of d at user address p into out, densely, in
// type-map order; it returns the number of bytes written. out should hold
// count*Size() bytes; Pack stops early (possibly inside a block) when it
// does not.
func (d *Datatype) Pack(out []byte, p unsafe.Pointer, count int) int {
	m := mover{buf: out}
	return d.move(&m, p, count)
}

// Unpack copies packed data from in into count elements of d at user
// address p, the inverse of Pack; it returns the number of bytes
// consumed. When in is shorter than count*Size() (a truncated message),
// Unpack fills what it can, ending possibly inside an element.
func (d *Datatype) Unpack(p unsafe.Pointer, in []byte, count int) int {
	m := mover{buf: in, unpack: true}
	return d.move(&m, p, count)
}

// eachBlock calls f for every contiguous data block of count elements of d
// at offset base (relative to the buffer origin), in type-map order.
func (d *Datatype) eachBlock(base, count int, f func(off, n int)) {
	d.prog.each(base, count, d.extent, f)
}

// each calls f for every contiguous block of count repetitions of p, the
// repetitions extent bytes apart from base, in type-map order.
func (p prog) each(base, count, extent int, f func(off, n int)) {
	var walk func(p prog, base int)
	walk = func(p prog, base int) {
		for i := range p {
			l := &p[i]
			for j := 0; j < l.count; j++ {
				if l.body != nil {
					walk(l.body, base+l.off+j*l.stride)
				} else {
					f(base+l.off+j*l.stride, l.n)
				}
			}
		}
	}
	for i := 0; i < count; i++ {
		walk(p, base+i*extent)
	}
}
