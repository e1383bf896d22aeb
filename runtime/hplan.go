package mpirt

import (
	"math/bits"
	"unsafe"
)

// A conversion plan is one element of a datatype's type signature
// flattened into runs of copies and byte swaps (adjacent runs of one kind
// merged), compiled once per datatype and pair of representations, so
// that ConvertPacked runs tight loops instead of walking the type map per
// element (issue 21's throughput target). Components that change size or
// format (long double between formats, integers of other widths) stay
// single steps done by convComp.

type hopKind uint8

const (
	opCopy    hopKind = iota // n bytes as they are
	opSwap                   // n elements of size bytes, each byte-reversed
	opGeneric                // one component converted by convComp
	// Single elements, for the per-element loop (set after merging).
	opCopy1
	opSwap2
	opSwap4
	opSwap8
)

type hop struct {
	kind    hopKind
	size    int // element size (opSwap), component size in from (opGeneric)
	osize   int // opGeneric: component size in to
	n       int // bytes (opCopy) or elements (opSwap)
	cls     hclass
	pre     *Datatype
	in, out int // byte offsets of this step in one packed element
}

type hplan struct {
	from, to Rep
	ops      []hop
	in, out  int // packed sizes of one element in from and to
}

// maxPlanOps bounds a plan: a type whose flattened signature needs more
// steps converts by walking its type map.
const maxPlanOps = 4096

// planFor returns d's plan from from to to, compiling it when the cached
// one is for another pair; nil when d is too irregular for a plan.
func (d *Datatype) planFor(from, to *Rep) *hplan {
	if p := d.hplan.Load(); p != nil && p.from == *from && p.to == *to {
		return p
	}
	p := &hplan{from: *from, to: *to}
	swap := from.BigEndian != to.BigEndian
	add := func(o hop) {
		if k := len(p.ops); k > 0 {
			last := &p.ops[k-1]
			switch {
			case o.kind == opCopy && last.kind == opCopy:
				last.n += o.n
				return
			case o.kind == opSwap && last.kind == opSwap && last.size == o.size:
				last.n += o.n
				return
			}
		}
		o.in, o.out = p.in, p.out
		p.ops = append(p.ops, o)
	}
	ok := d.eachSig(1, func(pre *Datatype, n int) bool {
		for _, c := range hcomps[pre] {
			s, t := c.sizeIn(from), c.sizeIn(to)
			if s == t && c.cls != hLD {
				if len(hcomps[pre]) == 1 {
					// A run of n elements of one component.
					if swap && c.cls != hRaw && s > 1 {
						add(hop{kind: opSwap, size: s, n: n})
					} else {
						add(hop{kind: opCopy, n: n * s})
					}
					p.in += n * s
					p.out += n * t
					return len(p.ops) <= maxPlanOps
				}
			}
		}
		for j := 0; j < n; j++ {
			for _, c := range hcomps[pre] {
				s, t := c.sizeIn(from), c.sizeIn(to)
				switch {
				case s == t && c.cls != hLD && (!swap || c.cls == hRaw || s == 1):
					add(hop{kind: opCopy, n: s})
				case s == t && c.cls != hLD:
					add(hop{kind: opSwap, size: s, n: 1})
				default:
					add(hop{kind: opGeneric, size: s, osize: t, cls: c.cls, pre: pre})
				}
				p.in += s
				p.out += t
			}
			if len(p.ops) > maxPlanOps {
				return false
			}
		}
		return true
	})
	if !ok {
		return nil
	}
	for i := range p.ops {
		if len(p.ops) == 1 {
			break // run moves a one-step plan as one run over all elements
		}
		o := &p.ops[i]
		switch {
		case o.kind == opCopy && o.n == 1:
			o.kind = opCopy1
		case o.kind == opSwap && o.n == 1 && o.size == 2:
			o.kind = opSwap2
		case o.kind == opSwap && o.n == 1 && o.size == 4:
			o.kind = opSwap4
		case o.kind == opSwap && o.n == 1 && o.size == 8:
			o.kind = opSwap8
		}
	}
	d.hplan.Store(p)
	return p
}

// run converts k whole elements of the plan from in to out.
func (p *hplan) run(out, in []byte, k int, ce *convError) {
	if k == 0 {
		return
	}
	if len(p.ops) == 1 && (p.ops[0].kind == opCopy || p.ops[0].kind == opSwap) {
		// One run per element: all k elements are one run.
		if o := p.ops[0]; o.kind == opCopy {
			copy(out[:k*p.out], in[:k*p.in])
		} else {
			swapRun(out[:k*p.out], in[:k*p.in], o.size)
		}
		return
	}
	_, _ = in[k*p.in-1], out[k*p.out-1] // every access below is inside
	src, dst := unsafe.Pointer(unsafe.SliceData(in)), unsafe.Pointer(unsafe.SliceData(out))
	// Step by step over a block of elements (one tight loop per step,
	// not a dispatch per step and element); blocks of planBlock elements
	// stay in the first-level cache between the steps. Steps touch
	// disjoint bytes of an element, so their order does not matter (also
	// when out is in).
	for e0 := 0; e0 < k; e0 += planBlock {
		n := min(planBlock, k-e0)
		for i := range p.ops {
			o := &p.ops[i]
			ib, ob := unsafe.Add(src, e0*p.in+o.in), unsafe.Add(dst, e0*p.out+o.out)
			si, so := p.in, p.out
			switch o.kind {
			case opCopy1:
				for e := range n {
					*(*byte)(unsafe.Add(ob, e*so)) = *(*byte)(unsafe.Add(ib, e*si))
				}
			case opSwap8:
				for e := range n {
					*(*uint64)(unsafe.Add(ob, e*so)) = bits.ReverseBytes64(*(*uint64)(unsafe.Add(ib, e*si)))
				}
			case opSwap4:
				for e := range n {
					*(*uint32)(unsafe.Add(ob, e*so)) = bits.ReverseBytes32(*(*uint32)(unsafe.Add(ib, e*si)))
				}
			case opSwap2:
				for e := range n {
					*(*uint16)(unsafe.Add(ob, e*so)) = bits.ReverseBytes16(*(*uint16)(unsafe.Add(ib, e*si)))
				}
			case opCopy:
				for e := range n {
					copy(unsafe.Slice((*byte)(unsafe.Add(ob, e*so)), o.n), unsafe.Slice((*byte)(unsafe.Add(ib, e*si)), o.n))
				}
			case opSwap:
				for e := range n {
					is, os := unsafe.Add(ib, e*si), unsafe.Add(ob, e*so)
					switch {
					case o.size == 4 && o.n <= 8: // int[2] of a struct: in line
						for j := range o.n {
							*(*uint32)(unsafe.Add(os, 4*j)) = bits.ReverseBytes32(*(*uint32)(unsafe.Add(is, 4*j)))
						}
					case o.size == 8 && o.n <= 8:
						for j := range o.n {
							*(*uint64)(unsafe.Add(os, 8*j)) = bits.ReverseBytes64(*(*uint64)(unsafe.Add(is, 8*j)))
						}
					default:
						swapRun(unsafe.Slice((*byte)(os), o.n*o.size), unsafe.Slice((*byte)(is), o.n*o.size), o.size)
					}
				}
			default:
				for e := range n {
					is, os := unsafe.Add(ib, e*si), unsafe.Add(ob, e*so)
					convComp(unsafe.Slice((*byte)(os), o.osize), unsafe.Slice((*byte)(is), o.size), o.cls, &p.from, &p.to, o.pre, ce)
				}
			}
		}
	}
}

// planBlock is how many elements run sees step by step at a time.
const planBlock = 64

// swapRun reverses the bytes of each s-byte element of in into out (the
// same length; out may be in). Eight bytes at a time: two 4-byte or four
// 2-byte elements per load.
func swapRun(out, in []byte, s int) {
	n := len(in)
	if n == 0 {
		return
	}
	src, dst := unsafe.Pointer(unsafe.SliceData(in)), unsafe.Pointer(unsafe.SliceData(out))
	ld := func(i int) uint64 { return *(*uint64)(unsafe.Add(src, i)) }
	st := func(i int, v uint64) { *(*uint64)(unsafe.Add(dst, i)) = v }
	i := 0
	switch s {
	case 8:
		for ; i+32 <= n; i += 32 {
			a, b, c, d := ld(i), ld(i+8), ld(i+16), ld(i+24)
			st(i, bits.ReverseBytes64(a))
			st(i+8, bits.ReverseBytes64(b))
			st(i+16, bits.ReverseBytes64(c))
			st(i+24, bits.ReverseBytes64(d))
		}
		for ; i+8 <= n; i += 8 {
			st(i, bits.ReverseBytes64(ld(i)))
		}
	case 4:
		// Reversing 8 bytes reverses both words and swaps them: rotate back.
		for ; i+32 <= n; i += 32 {
			a, b, c, d := ld(i), ld(i+8), ld(i+16), ld(i+24)
			st(i, bits.RotateLeft64(bits.ReverseBytes64(a), 32))
			st(i+8, bits.RotateLeft64(bits.ReverseBytes64(b), 32))
			st(i+16, bits.RotateLeft64(bits.ReverseBytes64(c), 32))
			st(i+24, bits.RotateLeft64(bits.ReverseBytes64(d), 32))
		}
		for ; i+8 <= n; i += 8 {
			st(i, bits.RotateLeft64(bits.ReverseBytes64(ld(i)), 32))
		}
		if i+4 <= n {
			*(*uint32)(unsafe.Add(dst, i)) = bits.ReverseBytes32(*(*uint32)(unsafe.Add(src, i)))
			i += 4
		}
	case 2:
		const m = 0x00ff00ff00ff00ff
		for ; i+8 <= n; i += 8 {
			v := ld(i)
			st(i, v>>8&m|v&m<<8)
		}
		for ; i+2 <= n; i += 2 {
			*(*uint16)(unsafe.Add(dst, i)) = bits.ReverseBytes16(*(*uint16)(unsafe.Add(src, i)))
		}
	case 16:
		for ; i+16 <= n; i += 16 {
			a, b := ld(i), ld(i+8)
			st(i, bits.ReverseBytes64(b))
			st(i+8, bits.ReverseBytes64(a))
		}
	default:
		var tmp [32]byte
		for ; i+s <= n; i += s {
			copy(tmp[:s], in[i:i+s])
			for j := range s {
				out[i+j] = tmp[s-1-j]
			}
		}
	}
}
