package mpirt

import (
	"encoding/binary"
	"unsafe"
)

// external32 (MPI-4.1 §13.5.2): big-endian, IEEE formats, and the sizes of
// the standard's table (MPI_LONG and MPI_UNSIGNED_LONG are 4 bytes,
// MPI_WCHAR 2, long double is IEEE binary128).

// extKind says how one component of a predefined type is converted.
type extKind uint8

const (
	extSwap   extKind = iota // same size, byte order reversed
	extSigned                // a signed integer narrowed (sign-extended back)
	extUnsigned
	extF80 // x87 80-bit extended <-> binary128
)

// extComp is one component of a predefined element: native bytes at off,
// size native bytes, ext bytes in external32.
type extComp struct {
	off, size, ext int
	kind           extKind
}

// extComps is indexed like builtinTypes/directTypes through the datatype.
var extComps = map[*Datatype][]extComp{}

func init() {
	narrow := map[Handle]extComp{
		TypeLong:         {0, 8, 4, extSigned},
		TypeUnsignedLong: {0, 8, 4, extUnsigned},
		TypeWchar:        {0, 4, 2, extUnsigned},
	}
	for _, d := range PredefinedDatatypes() {
		var cs []extComp
		switch b := d.basic; {
		case d.size == 0:
		case narrow[d.Handle].size != 0:
			cs = []extComp{narrow[d.Handle]}
		case b == BasicLongDouble:
			cs = []extComp{{0, 16, 16, extF80}}
		case b == BasicLongDoubleComplex:
			cs = []extComp{{0, 16, 16, extF80}, {16, 16, 16, extF80}}
		case b == BasicLongDoubleInt:
			cs = []extComp{{0, 16, 16, extF80}, {16, 4, 4, extSwap}}
		case b == BasicLongInt:
			cs = []extComp{{0, 8, 4, extSigned}, {8, 4, 4, extSwap}}
		case b.IsPair():
			ps := pairSizes[b]
			cs = []extComp{{0, ps[0], ps[0], extSwap}, {d.Blocks[len(d.Blocks)-1].Off + d.Blocks[len(d.Blocks)-1].Len - ps[1], ps[1], ps[1], extSwap}}
		case b == BasicComplex64 || b == BasicComplex128 || b == BasicComplex256:
			h := d.size / 2
			cs = []extComp{{0, h, h, extSwap}, {h, h, h, extSwap}}
		default:
			cs = []extComp{{0, d.size, d.size, extSwap}}
		}
		extComps[d] = cs
		for _, c := range cs {
			d.extSize += c.ext
		}
	}
}

// eachPredefined calls f for the predefined elements of count elements
// of d at p, in type-map order; f gets n elements of pre, stride bytes
// apart.
func (d *Datatype) eachPredefined(p unsafe.Pointer, count int, f func(pre *Datatype, at unsafe.Pointer, n, stride int) bool) bool {
	return d.eachPredefinedAt(p, 0, count, f)
}

// eachPredefinedAt is eachPredefined for the elements at byte offset off
// from p. Offsets are summed as integers and turned into a pointer only at
// a predefined element: intermediate sums may lie outside the buffer
// (negative displacements), which must never become pointers.
func (d *Datatype) eachPredefinedAt(p unsafe.Pointer, off, count int, f func(pre *Datatype, at unsafe.Pointer, n, stride int) bool) bool {
	if d.predefined {
		if d.size == 0 || count == 0 {
			return true
		}
		return f(d, unsafe.Add(p, off), count, d.extent)
	}
	for i := 0; i < count; i++ {
		base := off + i*d.extent
		for _, pt := range d.parts {
			for r := 0; r < pt.reps; r++ {
				if !pt.t.eachPredefinedAt(p, base+pt.disp+r*pt.stride, pt.n, f) {
					return false
				}
			}
		}
	}
	return true
}

// PackExternal writes count elements of d at p into out in external32 and
// returns the bytes written; out must hold count*ExternalSize() bytes.
func (d *Datatype) PackExternal(out []byte, p unsafe.Pointer, count int) int {
	w := 0
	d.eachPredefined(p, count, func(pre *Datatype, at unsafe.Pointer, n, stride int) bool {
		cs := extComps[pre]
		for j := range n {
			e := unsafe.Add(at, j*stride)
			for _, c := range cs {
				encodeExt(out[w:w+c.ext], unsafe.Slice((*byte)(unsafe.Add(e, c.off)), c.size), c.kind)
				w += c.ext
			}
		}
		return true
	})
	return w
}

// UnpackExternal reads count elements of d from external32 data in into
// memory at p and returns the bytes consumed; in must hold
// count*ExternalSize() bytes.
func (d *Datatype) UnpackExternal(p unsafe.Pointer, in []byte, count int) int {
	r := 0
	d.eachPredefined(p, count, func(pre *Datatype, at unsafe.Pointer, n, stride int) bool {
		cs := extComps[pre]
		for j := range n {
			e := unsafe.Add(at, j*stride)
			for _, c := range cs {
				decodeExt(unsafe.Slice((*byte)(unsafe.Add(e, c.off)), c.size), in[r:r+c.ext], c.kind)
				r += c.ext
			}
		}
		return true
	})
	return r
}

func encodeExt(out, mem []byte, k extKind) {
	switch k {
	case extSwap:
		for i := range mem {
			out[len(mem)-1-i] = mem[i]
		}
	case extSigned, extUnsigned:
		// Little-endian native: the low bytes are the first ones.
		for i := range out {
			out[len(out)-1-i] = mem[i]
		}
	case extF80:
		mant := binary.LittleEndian.Uint64(mem[0:8])
		se := uint64(binary.LittleEndian.Uint16(mem[8:10]))
		frac := mant << 1 // drop the explicit integer bit
		binary.BigEndian.PutUint64(out[0:8], se<<48|frac>>16)
		binary.BigEndian.PutUint64(out[8:16], frac<<48)
	}
}

func decodeExt(mem, in []byte, k extKind) {
	switch k {
	case extSwap:
		for i := range in {
			mem[len(in)-1-i] = in[i]
		}
	case extSigned, extUnsigned:
		for i := range in {
			mem[i] = in[len(in)-1-i]
		}
		fill := byte(0)
		if k == extSigned && in[0]&0x80 != 0 {
			fill = 0xff
		}
		for i := len(in); i < len(mem); i++ {
			mem[i] = fill
		}
	case extF80:
		hi := binary.BigEndian.Uint64(in[0:8])
		lo := binary.BigEndian.Uint64(in[8:16])
		se := hi >> 48
		frac := hi<<16 | lo>>48
		mant := frac >> 1
		if se&0x7fff != 0 {
			mant |= 1 << 63
		}
		binary.LittleEndian.PutUint64(mem[0:8], mant)
		binary.LittleEndian.PutUint16(mem[8:10], uint16(se))
		for i := 10; i < 16; i++ {
			mem[i] = 0
		}
	}
}
