package mpirt

import (
	"unsafe"
)

// external32 (MPI-4.1 §13.5.2): big-endian, IEEE formats, and the sizes of
// the standard's table (MPI_LONG and MPI_UNSIGNED_LONG are 4 bytes,
// MPI_WCHAR 2, long double is IEEE binary128).

// ext32Rep is external32 as a data representation: conversion to and
// from it is the heterogeneous converter's (hetero.go), so it is right on
// a machine of any representation. (MPI_AINT, MPI_OFFSET and MPI_COUNT
// stay 8 bytes: they are not long in the standard's table.)
var ext32Rep = Rep{BigEndian: true, LongDouble: LongDoubleBinary128, Long: 4, Wchar: 2}

// nativeRep is the representation of this build, for external32.
var nativeRep = NativeRep()

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
// returns the bytes written; out must hold count*ExternalSize() bytes. A
// long that does not fit external32's 4 bytes keeps its low bytes.
func (d *Datatype) PackExternal(out []byte, p unsafe.Pointer, count int) int {
	tmp := make([]byte, max(count, 0)*d.size)
	d.Pack(tmp, p, count)
	_, n, _ := ConvertPacked(d, count, out, tmp, &nativeRep, &ext32Rep)
	return n
}

// UnpackExternal reads count elements of d from external32 data in into
// memory at p and returns the bytes consumed; in must hold
// count*ExternalSize() bytes.
func (d *Datatype) UnpackExternal(p unsafe.Pointer, in []byte, count int) int {
	tmp := make([]byte, max(count, 0)*d.size)
	used, n, _ := ConvertPacked(d, count, tmp, in, &ext32Rep, &nativeRep)
	d.Unpack(p, tmp[:n], count)
	return used
}
