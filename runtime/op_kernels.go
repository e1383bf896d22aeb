package mpirt

import "unsafe"

// The reduction kernels, each written once over a type set. Every kernel
// computes inout[i] = in[i] op inout[i]; len(in) >= len(inout).
// Which MPI types may use which op is decided by TypeGroup (op.go); the
// constraints here only say which machine types a kernel compiles for.

type signed interface {
	~int8 | ~int16 | ~int32 | ~int64
}

type unsigned interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64
}

// integer covers C and Fortran integers, logicals stored as integers
// (C _Bool, Fortran LOGICAL) and bytes.
type integer interface{ signed | unsigned }

type floating interface{ ~float32 | ~float64 }

type complexNum interface{ ~complex64 | ~complex128 }

// ordered types take MPI_MAX and MPI_MIN.
type ordered interface{ integer | floating }

// arith types take MPI_SUM and MPI_PROD.
type arith interface {
	integer | floating | complexNum
}

func opSum[T arith](inout, in []T) {
	in = in[:len(inout)]
	for i := range inout {
		inout[i] += in[i]
	}
}

func opProd[T arith](inout, in []T) {
	in = in[:len(inout)]
	for i := range inout {
		inout[i] *= in[i]
	}
}

// opMax keeps inout[i] when it is greater, else takes in[i], as MPICH's
// MPL_MAX(inout, in) does (a NaN in inout is replaced by in[i]).
func opMax[T ordered](inout, in []T) {
	in = in[:len(inout)]
	for i := range inout {
		if !(inout[i] > in[i]) {
			inout[i] = in[i]
		}
	}
}

// opMin is opMax's mirror.
func opMin[T ordered](inout, in []T) {
	in = in[:len(inout)]
	for i := range inout {
		if !(inout[i] < in[i]) {
			inout[i] = in[i]
		}
	}
}

func truth[T ordered](b bool) T {
	if b {
		return 1
	}
	return 0
}

// Logical ops treat nonzero as true and store 1 or 0 (also the value of
// .TRUE. for gfortran's LOGICAL). On floating types (an MPICH extension)
// NaN counts as true.
func opLand[T ordered](inout, in []T) {
	in = in[:len(inout)]
	for i := range inout {
		inout[i] = truth[T](inout[i] != 0 && in[i] != 0)
	}
}

func opLor[T ordered](inout, in []T) {
	in = in[:len(inout)]
	for i := range inout {
		inout[i] = truth[T](inout[i] != 0 || in[i] != 0)
	}
}

func opLxor[T ordered](inout, in []T) {
	in = in[:len(inout)]
	for i := range inout {
		inout[i] = truth[T]((inout[i] != 0) != (in[i] != 0))
	}
}

func opBand[T integer](inout, in []T) {
	in = in[:len(inout)]
	for i := range inout {
		inout[i] &= in[i]
	}
}

func opBor[T integer](inout, in []T) {
	in = in[:len(inout)]
	for i := range inout {
		inout[i] |= in[i]
	}
}

func opBxor[T integer](inout, in []T) {
	in = in[:len(inout)]
	for i := range inout {
		inout[i] ^= in[i]
	}
}

// pair is the C struct {V value; I index} of the MINLOC/MAXLOC types. Go
// lays it out as C does for every pair type but MPI_LONG_DOUBLE_INT
// (whose 16-byte alignment Go cannot express; see op_ext.go).
type pair[V ordered, I ordered] struct {
	V V
	I I
}

// opMinloc: the smaller value wins; on equal values the smaller index.
func opMinloc[V, I ordered](inout, in []pair[V, I]) {
	in = in[:len(inout)]
	for i := range inout {
		a, b := &in[i], &inout[i]
		if a.V < b.V || a.V == b.V && a.I < b.I {
			*b = *a
		}
	}
}

// opMaxloc: the larger value wins; on equal values the smaller index.
func opMaxloc[V, I ordered](inout, in []pair[V, I]) {
	in = in[:len(inout)]
	for i := range inout {
		a, b := &in[i], &inout[i]
		if a.V > b.V || a.V == b.V && a.I < b.I {
			*b = *a
		}
	}
}

// typed turns a kernel on []T into a kernel on raw memory: one indirect
// call per buffer, the loop itself is the instantiated generic.
func typed[T any](f func(inout, in []T)) kernel {
	return func(inout, in unsafe.Pointer, n int) {
		f(unsafe.Slice((*T)(inout), n), unsafe.Slice((*T)(in), n))
	}
}

// wordwise runs a bitwise op, which ignores element boundaries, on 8-byte
// words and then on the remaining bytes, whatever the element size.
func wordwise(size int, words func(inout, in []uint64), bytes func(inout, in []uint8)) kernel {
	return func(inout, in unsafe.Pointer, n int) {
		nb := n * size
		nw := nb / 8
		if nw > 0 {
			words(unsafe.Slice((*uint64)(inout), nw), unsafe.Slice((*uint64)(in), nw))
		}
		if t := nw * 8; t < nb {
			bytes(unsafe.Slice((*uint8)(unsafe.Add(inout, t)), nb-t), unsafe.Slice((*uint8)(unsafe.Add(in, t)), nb-t))
		}
	}
}

// setInt fills the kernels of an integer machine type T for basic b.
func setInt[T integer](b Basic) {
	kernels[opIndex(OpMax)][b] = typed(opMax[T])
	kernels[opIndex(OpMin)][b] = typed(opMin[T])
	kernels[opIndex(OpSum)][b] = typed(opSum[T])
	kernels[opIndex(OpProd)][b] = typed(opProd[T])
	kernels[opIndex(OpLand)][b] = typed(opLand[T])
	kernels[opIndex(OpLor)][b] = typed(opLor[T])
	kernels[opIndex(OpLxor)][b] = typed(opLxor[T])
	size := int(unsafe.Sizeof(*new(T)))
	kernels[opIndex(OpBand)][b] = wordwise(size, opBand[uint64], opBand[uint8])
	kernels[opIndex(OpBor)][b] = wordwise(size, opBor[uint64], opBor[uint8])
	kernels[opIndex(OpBxor)][b] = wordwise(size, opBxor[uint64], opBxor[uint8])
}

func setFloat[T floating](b Basic) {
	kernels[opIndex(OpMax)][b] = typed(opMax[T])
	kernels[opIndex(OpMin)][b] = typed(opMin[T])
	kernels[opIndex(OpSum)][b] = typed(opSum[T])
	kernels[opIndex(OpProd)][b] = typed(opProd[T])
	kernels[opIndex(OpLand)][b] = typed(opLand[T])
	kernels[opIndex(OpLor)][b] = typed(opLor[T])
	kernels[opIndex(OpLxor)][b] = typed(opLxor[T])
}

// logicalOps are MPI_LAND, MPI_LOR and MPI_LXOR on truth values, for the
// floating types whose truth takes a function (setLogicalBy).
var logicalOps = [...]struct {
	op Handle
	fn func(a, b bool) bool
}{
	{OpLand, func(a, b bool) bool { return a && b }},
	{OpLor, func(a, b bool) bool { return a || b }},
	{OpLxor, func(a, b bool) bool { return a != b }},
}

// setLogicalBy fills the logical kernels of basic b, whose elements are
// size bytes, nonzero tells true, and one and zero are the results.
func setLogicalBy(b Basic, size int, nonzero func(e []byte) bool, one, zero []byte) {
	for _, l := range logicalOps {
		fn := l.fn
		kernels[opIndex(l.op)][b] = func(inout, in unsafe.Pointer, n int) {
			io, ii := unsafe.Slice((*byte)(inout), n*size), unsafe.Slice((*byte)(in), n*size)
			for i := 0; i < n*size; i += size {
				r := zero
				if fn(nonzero(io[i:i+size]), nonzero(ii[i:i+size])) {
					r = one
				}
				copy(io[i:i+size], r)
			}
		}
	}
}

func setComplex[T complexNum](b Basic) {
	kernels[opIndex(OpSum)][b] = typed(opSum[T])
	kernels[opIndex(OpProd)][b] = typed(opProd[T])
}

func setPair[V, I ordered](b Basic) {
	kernels[opIndex(OpMinloc)][b] = typed(opMinloc[V, I])
	kernels[opIndex(OpMaxloc)][b] = typed(opMaxloc[V, I])
}

// registerKernels builds the [op][basic] table. Which entries are reachable
// is decided by TypeGroup (e.g. BasicWchar has kernels, but MPI_WCHAR is
// in no group that allows them).
func registerKernels() {
	setInt[int8](BasicInt8)
	setInt[int16](BasicInt16)
	setInt[int32](BasicInt32)
	setInt[int64](BasicInt64)
	setInt[uint8](BasicUint8)
	setInt[uint16](BasicUint16)
	setInt[uint32](BasicUint32)
	setInt[uint64](BasicUint64)
	setInt[int8](BasicChar)
	setInt[uint8](BasicByte)
	setInt[uint8](BasicBool)
	setInt[int32](BasicLogical)
	setInt[int32](BasicWchar)

	setFloat[float32](BasicFloat32)
	setFloat[float64](BasicFloat64)
	setComplex[complex64](BasicComplex64)
	setComplex[complex128](BasicComplex128)

	setPair[float32, int32](BasicFloatInt)
	setPair[float64, int32](BasicDoubleInt)
	setPair[int64, int32](BasicLongInt)
	setPair[int16, int32](BasicShortInt)
	setPair[int32, int32](Basic2Int)
	setPair[float32, float32](Basic2Float)
	setPair[float64, float64](Basic2Double)

	registerFloat16Kernels()
	registerExtKernels()
}
