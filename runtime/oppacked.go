package mpirt

import (
	goruntime "runtime"
	"unsafe"
)

// Reductions on packed data. Processes may describe the operands of one
// reduction with different datatypes of the same type signature (a
// strided column on one process, a contiguous buffer on another, as
// ScaLAPACK's BLACS does), so an algorithm that moves operands between
// processes must move them packed (Pack's output: the data bytes in
// type-map order) and combine them in that form. For a predefined op on
// a type made of one predefined type without padding, the packed stream
// is an array of that type and the op's kernel runs on it directly; any
// other case is unpacked around ReduceLocal: a pair type with padding
// (MPI_DOUBLE_INT) into an array of pairs, and for a user op into this
// process's own layout, so the user function sees the buffers its
// datatype describes.

// PackedReduceUnit is the granularity, in bytes, at which a packed
// stream of dt may be cut into pieces that ReducePacked combines
// independently: for a predefined op the size of dt's element type
// (every process computes the same unit: it depends only on the type
// signature), for a user op the size of dt (the same on every process
// when all pass the same count, as the standard requires).
func PackedReduceUnit(op Handle, dt *Datatype) int {
	switch {
	case op == OpReplace || op == OpNoOp:
		return 1
	case IsPredefinedOp(op) && dt.Elem != nil:
		return dt.Elem.size
	}
	return dt.size
}

// ReducePacked sets inout = in op inout, both packed streams of the same
// length, a multiple of PackedReduceUnit(op, dt) (in holds the operand
// that comes first in rank order). dt is this process's datatype: a user
// function gets its buffers in dt's layout.
func ReducePacked(op Handle, dt *Datatype, in, inout []byte) error {
	if e := checkOp(op, dt); e != nil {
		return e
	}
	switch {
	case len(inout) == 0 || op == OpNoOp:
		return nil
	case op == OpReplace:
		copy(inout, in)
		return nil
	}
	t := dt
	if IsPredefinedOp(op) {
		t = dt.Elem // predefined ops work element by element
	}
	if t.size == 0 || len(inout)%t.size != 0 || len(in) < len(inout) {
		return Errorf(ErrIntern, "", "packed reduction of %d and %d bytes of %s", len(in), len(inout), t)
	}
	count := len(inout) / t.size
	if t.contiguous {
		// The packed stream is the layout (for a predefined op, an array
		// of a padding-free predefined type).
		return ReduceLocal(op, t, in, inout[:len(inout):len(inout)], count)
	}
	a, b := newLayout(t, count), newLayout(t, count)
	a.unpack(in)
	b.unpack(inout)
	err := ReduceLocal(op, t, a.view, b.view, count)
	b.pack(inout)
	return err
}

// layout is a private buffer holding count elements of dt at their
// memory offsets (gaps included), for ReduceLocal.
type layout struct {
	buf   []byte
	lo    int    // offset of buf[0] from the elements' origin
	view  []byte // from element 0's first data byte, as ReduceLocal wants
	dt    *Datatype
	count int
}

func newLayout(dt *Datatype, count int) *layout {
	span := (count - 1) * dt.extent
	lo := dt.trueLB + min(0, span)
	hi := dt.trueLB + dt.trueExtent + max(0, span)
	l := &layout{buf: make([]byte, hi-lo), lo: lo, dt: dt, count: count}
	l.view = l.buf[dt.trueLB-lo:]
	return l
}

// origin is the address of element 0's origin (possibly outside buf; it
// is never dereferenced there).
func (l *layout) origin() unsafe.Pointer {
	return unsafe.Add(unsafe.Pointer(unsafe.SliceData(l.buf)), -l.lo)
}

func (l *layout) unpack(packed []byte) {
	l.dt.Unpack(l.origin(), packed, l.count)
	goruntime.KeepAlive(l.buf)
}

func (l *layout) pack(packed []byte) {
	l.dt.Pack(packed, l.origin(), l.count)
	goruntime.KeepAlive(l.buf)
}
