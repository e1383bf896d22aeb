package mpirt

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"unsafe"
)

var allOps = []Handle{OpMax, OpMin, OpSum, OpProd, OpLand, OpBand, OpLor, OpBor, OpLxor, OpBxor, OpMinloc, OpMaxloc, OpReplace, OpNoOp}

// Type groups as the standard lists them (MPI-4.1 §6.9.2), by name,
// written out independently of datatype.go.
var (
	stdCInteger = []string{"MPI_INT", "MPI_LONG", "MPI_SHORT", "MPI_UNSIGNED_SHORT", "MPI_UNSIGNED",
		"MPI_UNSIGNED_LONG", "MPI_LONG_LONG_INT", "MPI_UNSIGNED_LONG_LONG", "MPI_SIGNED_CHAR",
		"MPI_UNSIGNED_CHAR", "MPI_INT8_T", "MPI_INT16_T", "MPI_INT32_T", "MPI_INT64_T", "MPI_UINT8_T",
		"MPI_UINT16_T", "MPI_UINT32_T", "MPI_UINT64_T",
		"MPI_CHAR"} // MPICH extension
	stdFortranInteger = []string{"MPI_INTEGER", "MPI_INTEGER1", "MPI_INTEGER2", "MPI_INTEGER4", "MPI_INTEGER8"}
	stdFloat          = []string{"MPI_FLOAT", "MPI_DOUBLE", "MPI_REAL", "MPI_DOUBLE_PRECISION", "MPI_LONG_DOUBLE",
		"MPI_REAL4", "MPI_REAL8", "MPI_REAL16", "MPIX_C_FLOAT16"}
	stdLogical = []string{"MPI_LOGICAL", "MPI_C_BOOL", "MPI_CXX_BOOL"}
	stdComplex = []string{"MPI_COMPLEX", "MPI_C_COMPLEX", "MPI_C_DOUBLE_COMPLEX", "MPI_C_LONG_DOUBLE_COMPLEX",
		"MPI_CXX_FLOAT_COMPLEX", "MPI_CXX_DOUBLE_COMPLEX", "MPI_CXX_LONG_DOUBLE_COMPLEX", "MPI_DOUBLE_COMPLEX",
		"MPI_COMPLEX8", "MPI_COMPLEX16", "MPI_COMPLEX32"}
	stdByte  = []string{"MPI_BYTE"}
	stdMulti = []string{"MPI_AINT", "MPI_OFFSET", "MPI_COUNT"}
	stdPair  = []string{"MPI_FLOAT_INT", "MPI_DOUBLE_INT", "MPI_LONG_INT", "MPI_2INT", "MPI_SHORT_INT",
		"MPI_LONG_DOUBLE_INT", "MPI_2REAL", "MPI_2DOUBLE_PRECISION", "MPI_2INTEGER"}
)

func stdAllows(op Handle, name string) bool {
	in := func(groups ...[]string) bool {
		for _, g := range groups {
			if slices.Contains(g, name) {
				return true
			}
		}
		return false
	}
	switch op {
	case OpMax, OpMin:
		return in(stdCInteger, stdFortranInteger, stdFloat, stdMulti)
	case OpSum, OpProd:
		return in(stdCInteger, stdFortranInteger, stdFloat, stdComplex, stdMulti)
	case OpLand, OpLor, OpLxor:
		return in(stdCInteger, stdLogical, stdFloat) // floating: an MPICH extension
	case OpBand, OpBor, OpBxor:
		return in(stdCInteger, stdFortranInteger, stdByte, stdMulti)
	case OpMinloc, OpMaxloc:
		return in(stdPair)
	case OpReplace, OpNoOp:
		return true
	}
	return false
}

// TestOpAllTypes runs every predefined op on every predefined datatype:
// disallowed pairs must fail with MPI_ERR_OP, allowed ones must match the
// element-by-element reference.
func TestOpAllTypes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const count = 257
	for _, d := range PredefinedDatatypes() {
		for _, op := range allOps {
			allowed := stdAllows(op, d.Name())
			in := randomElems(rng, d, count)
			inout := randomElems(rng, d, count)
			got := slices.Clone(inout)
			err := ReduceLocal(op, d, in, got, count)
			if !allowed {
				if !errors.Is(err, &Error{Class: ErrOp}) {
					t.Errorf("%s on %s: err = %v, want MPI_ERR_OP", OpName(op), d, err)
				}
				if CheckOp(op, d) == nil {
					t.Errorf("CheckOp(%s, %s) = nil", OpName(op), d)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s on %s: %v", OpName(op), d, err)
				continue
			}
			if CheckOp(op, d) != nil {
				t.Errorf("CheckOp(%s, %s) != nil", OpName(op), d)
			}
			if d.Size() == 0 {
				continue
			}
			ext := d.Extent()
			for i := range count {
				a, b := in[i*ext:i*ext+ext], inout[i*ext:i*ext+ext]
				want, ok := refOp(op, d, a, b)
				if !ok {
					continue // checked elsewhere (long double vs C)
				}
				g := got[i*ext : i*ext+ext]
				if !sameData(d, g, want) {
					t.Errorf("%s on %s, element %d: in % x inout % x: got % x, want % x", OpName(op), d, i, a, b, g, want)
					break
				}
			}
		}
	}
}

// sameData compares the data bytes of one element (padding ignored), NaN
// payloads included.
func sameData(d *Datatype, a, b []byte) bool {
	for _, blk := range d.Blocks {
		n := blk.Len
		if d.Basic() == BasicLongDouble || d.Basic() == BasicLongDoubleInt && blk.Off == 0 {
			n = min(n, 10) // x87 uses 10 of 16 bytes
		}
		if string(a[blk.Off:blk.Off+n]) != string(b[blk.Off:blk.Off+n]) {
			return false
		}
		if d.Basic() == BasicLongDouble || d.Basic() == BasicLongDoubleComplex {
			break
		}
	}
	if d.Basic() == BasicLongDoubleComplex {
		return string(a[0:10]) == string(b[0:10]) && string(a[16:26]) == string(b[16:26])
	}
	if d.Basic() == BasicLongDoubleInt {
		return string(a[0:10]) == string(b[0:10]) && string(a[16:20]) == string(b[16:20])
	}
	return true
}

var float64Specials = []float64{0, math.Copysign(0, -1), 1, -1, 2, 0.5, math.Inf(1), math.Inf(-1), math.NaN(), 3}

// randomElems makes count elements of d, with many small values and ties
// so comparisons and MINLOC/MAXLOC tie-breaking get exercised.
func randomElems(rng *rand.Rand, d *Datatype, count int) []byte {
	buf := make([]byte, count*d.Extent())
	if d.Size() == 0 {
		return buf
	}
	small := func() uint64 { return uint64(rng.IntN(7)) - 3 }
	putInt := func(b []byte, size int) {
		v := rng.Uint64()
		if rng.IntN(2) == 0 {
			v = small()
		}
		for i := range size {
			b[i] = byte(v >> (8 * i))
		}
	}
	f64 := func() float64 {
		if rng.IntN(3) == 0 {
			return float64Specials[rng.IntN(len(float64Specials))]
		}
		return rng.NormFloat64() * math.Pow(2, float64(rng.IntN(20)-10))
	}
	for i := range count {
		e := buf[i*d.Extent():]
		switch d.Basic() {
		case BasicFloat32, BasicComplex64:
			for j := 0; j < d.Size(); j += 4 {
				binary.LittleEndian.PutUint32(e[j:], math.Float32bits(float32(f64())))
			}
		case BasicFloat64, BasicComplex128:
			for j := 0; j < d.Size(); j += 8 {
				binary.LittleEndian.PutUint64(e[j:], math.Float64bits(f64()))
			}
		case BasicFloat16:
			binary.LittleEndian.PutUint16(e, uint16(rng.Uint32()))
			if rng.IntN(2) == 0 {
				binary.LittleEndian.PutUint16(e, uint16(toFloat16(float32(f64()))))
			}
		case BasicLongDouble, BasicLongDoubleComplex, BasicFloat128, BasicComplex256:
			fm := formatX87
			if d.Basic() == BasicFloat128 || d.Basic() == BasicComplex256 {
				fm = formatQuad
			}
			for j := 0; j < d.Size(); j += 16 {
				v := randomExt(rng, fm)
				copy(e[j:], v[:])
			}
		case BasicFloatInt, Basic2Float:
			binary.LittleEndian.PutUint32(e, math.Float32bits(float32(small())))
			binary.LittleEndian.PutUint32(e[4:], uint32(small()))
			if d.Basic() == Basic2Float {
				binary.LittleEndian.PutUint32(e[4:], math.Float32bits(float32(int64(small()))))
			}
		case BasicDoubleInt, Basic2Double:
			binary.LittleEndian.PutUint64(e, math.Float64bits(float64(int64(small()))))
			binary.LittleEndian.PutUint32(e[8:], uint32(small()))
			if d.Basic() == Basic2Double {
				binary.LittleEndian.PutUint64(e[8:], math.Float64bits(float64(int64(small()))))
			}
		case BasicLongInt:
			binary.LittleEndian.PutUint64(e, small())
			binary.LittleEndian.PutUint32(e[8:], uint32(small()))
		case BasicShortInt:
			binary.LittleEndian.PutUint16(e, uint16(small()))
			binary.LittleEndian.PutUint32(e[4:], uint32(small()))
		case Basic2Int:
			binary.LittleEndian.PutUint32(e, uint32(small()))
			binary.LittleEndian.PutUint32(e[4:], uint32(small()))
		case BasicLongDoubleInt:
			v := formatX87.encode(newFloat(float64(int64(small()))))
			copy(e, v[:])
			binary.LittleEndian.PutUint32(e[16:], uint32(small()))
		default:
			putInt(e, d.Size())
		}
	}
	return buf
}

// refOp computes one element of in op inout by the book. ok is false for
// the 16-byte float types, which TestOpExtFloatAgainstC checks against C.
func refOp(op Handle, d *Datatype, in, inout []byte) (res []byte, ok bool) {
	res = slices.Clone(inout)
	if op == OpNoOp {
		return res, true
	}
	if op == OpReplace {
		return slices.Clone(in), true
	}
	switch b := d.Basic(); b {
	case BasicInt8, BasicInt16, BasicInt32, BasicInt64, BasicUint8, BasicUint16, BasicUint32, BasicUint64,
		BasicChar, BasicByte, BasicBool, BasicLogical:
		size := d.Size()
		signed := b == BasicInt8 || b == BasicInt16 || b == BasicInt32 || b == BasicInt64 || b == BasicChar || b == BasicLogical
		get := func(p []byte) (u uint64, s int64) {
			for i := size - 1; i >= 0; i-- {
				u = u<<8 | uint64(p[i])
			}
			s = int64(u<<(64-8*size)) >> (64 - 8*size)
			return u, s
		}
		ua, sa := get(in)
		ub, sb := get(inout)
		less, bLess := ua < ub, ub < ua
		if signed {
			less, bLess = sa < sb, sb < sa
		}
		bool2 := func(x bool) uint64 {
			if x {
				return 1
			}
			return 0
		}
		var r uint64
		switch op {
		case OpSum:
			r = ua + ub
		case OpProd:
			r = ua * ub
		case OpMax: // inout > in ? inout : in
			r = ua
			if less {
				r = ub
			}
		case OpMin: // inout < in ? inout : in
			r = ua
			if bLess {
				r = ub
			}
		case OpLand:
			r = bool2(ua != 0 && ub != 0)
		case OpLor:
			r = bool2(ua != 0 || ub != 0)
		case OpLxor:
			r = bool2((ua != 0) != (ub != 0))
		case OpBand:
			r = ua & ub
		case OpBor:
			r = ua | ub
		case OpBxor:
			r = ua ^ ub
		}
		for i := range size {
			res[i] = byte(r >> (8 * i))
		}
	case BasicFloat32, BasicComplex64, BasicFloat64, BasicComplex128:
		n := 4
		if b == BasicFloat64 || b == BasicComplex128 {
			n = 8
		}
		get := func(p []byte) float64 {
			if n == 4 {
				return float64(math.Float32frombits(binary.LittleEndian.Uint32(p)))
			}
			return math.Float64frombits(binary.LittleEndian.Uint64(p))
		}
		put := func(p []byte, v float64) {
			if n == 4 {
				binary.LittleEndian.PutUint32(p, math.Float32bits(float32(v)))
			} else {
				binary.LittleEndian.PutUint64(p, math.Float64bits(v))
			}
		}
		ar, br := get(in), get(inout)
		if b == BasicComplex64 || b == BasicComplex128 {
			ai, bi := get(in[n:]), get(inout[n:])
			switch op {
			case OpSum:
				if math.IsNaN(ar+br) || math.IsNaN(ai+bi) {
					return res, false
				}
				put(res, ar+br)
				put(res[n:], ai+bi)
			case OpProd:
				if math.IsNaN(ar*br-ai*bi) || math.IsNaN(ar*bi+ai*br) {
					return res, false
				}
				if n == 4 {
					// Go's complex64 product, in float32 arithmetic.
					p := complex(float32(br), float32(bi)) * complex(float32(ar), float32(ai))
					put(res, float64(real(p)))
					put(res[n:], float64(imag(p)))
				} else {
					put(res, br*ar-bi*ai)
					put(res[n:], br*ai+bi*ar)
				}
			}
			return res, true
		}
		switch op {
		case OpLand, OpLor, OpLxor:
			put(res, refLogical(op, br != 0, ar != 0))
		case OpSum:
			put(res, ar+br)
		case OpProd:
			put(res, ar*br)
		case OpMax: // MPICH: inout > in ? inout : in
			if !(br > ar) {
				copy(res, in[:n])
			}
		case OpMin:
			if !(br < ar) {
				copy(res, in[:n])
			}
		}
		if (op == OpSum || op == OpProd) && math.IsNaN(get(res)) {
			return res, false // which NaN payload survives is the hardware's choice
		}
	case BasicFloat16:
		a := float64(float16(binary.LittleEndian.Uint16(in)).float32())
		c := float64(float16(binary.LittleEndian.Uint16(inout)).float32())
		var r float64
		switch op {
		case OpLand, OpLor, OpLxor:
			r = refLogical(op, c != 0, a != 0)
		case OpSum:
			r = c + a
		case OpProd:
			r = c * a
		case OpMax:
			if !(c > a) {
				copy(res, in[:2])
			}
			return res, true
		case OpMin:
			if !(c < a) {
				copy(res, in[:2])
			}
			return res, true
		}
		if math.IsNaN(r) {
			return res, false
		}
		binary.LittleEndian.PutUint16(res, refFloat16(r))
	case BasicFloatInt, BasicDoubleInt, BasicLongInt, BasicShortInt, Basic2Int, Basic2Float, Basic2Double, BasicLongDoubleInt:
		var va, vb, ia, ib float64
		switch b {
		case BasicFloatInt:
			va, vb = float64(math.Float32frombits(binary.LittleEndian.Uint32(in))), float64(math.Float32frombits(binary.LittleEndian.Uint32(inout)))
			ia, ib = float64(int32(binary.LittleEndian.Uint32(in[4:]))), float64(int32(binary.LittleEndian.Uint32(inout[4:])))
		case Basic2Float:
			va, vb = float64(math.Float32frombits(binary.LittleEndian.Uint32(in))), float64(math.Float32frombits(binary.LittleEndian.Uint32(inout)))
			ia, ib = float64(math.Float32frombits(binary.LittleEndian.Uint32(in[4:]))), float64(math.Float32frombits(binary.LittleEndian.Uint32(inout[4:])))
		case BasicDoubleInt:
			va, vb = math.Float64frombits(binary.LittleEndian.Uint64(in)), math.Float64frombits(binary.LittleEndian.Uint64(inout))
			ia, ib = float64(int32(binary.LittleEndian.Uint32(in[8:]))), float64(int32(binary.LittleEndian.Uint32(inout[8:])))
		case Basic2Double:
			va, vb = math.Float64frombits(binary.LittleEndian.Uint64(in)), math.Float64frombits(binary.LittleEndian.Uint64(inout))
			ia, ib = math.Float64frombits(binary.LittleEndian.Uint64(in[8:])), math.Float64frombits(binary.LittleEndian.Uint64(inout[8:]))
		case BasicLongInt:
			va, vb = float64(int64(binary.LittleEndian.Uint64(in))), float64(int64(binary.LittleEndian.Uint64(inout)))
			ia, ib = float64(int32(binary.LittleEndian.Uint32(in[8:]))), float64(int32(binary.LittleEndian.Uint32(inout[8:])))
		case BasicShortInt:
			va, vb = float64(int16(binary.LittleEndian.Uint16(in))), float64(int16(binary.LittleEndian.Uint16(inout)))
			ia, ib = float64(int32(binary.LittleEndian.Uint32(in[4:]))), float64(int32(binary.LittleEndian.Uint32(inout[4:])))
		case Basic2Int:
			va, vb = float64(int32(binary.LittleEndian.Uint32(in))), float64(int32(binary.LittleEndian.Uint32(inout)))
			ia, ib = float64(int32(binary.LittleEndian.Uint32(in[4:]))), float64(int32(binary.LittleEndian.Uint32(inout[4:])))
		case BasicLongDoubleInt:
			var x, y extNum
			formatX87.decode(in, &x)
			formatX87.decode(inout, &y)
			va, _ = x.f.Float64()
			vb, _ = y.f.Float64()
			ia, ib = float64(int32(binary.LittleEndian.Uint32(in[16:]))), float64(int32(binary.LittleEndian.Uint32(inout[16:])))
		}
		takeIn := false
		switch {
		case va == vb:
			takeIn = ia < ib
		case op == OpMinloc:
			takeIn = va < vb
		case op == OpMaxloc:
			takeIn = va > vb
		}
		if takeIn {
			copy(res, in)
		}
	default:
		return nil, false
	}
	return res, true
}

// refFloat16 rounds v to the nearest binary16 (ties to even) by search
// over every finite binary16 value.
func refFloat16(v float64) uint16 {
	if math.IsInf(v, 0) {
		return uint16(toFloat16(float32(v)))
	}
	vals := float16Table()
	mag := math.Abs(v)
	i := sort.Search(len(vals), func(i int) bool { return vals[i].v >= mag })
	var bits uint16
	switch {
	case i == len(vals):
		// above the largest finite: Inf unless it rounds down to max
		maxv := vals[len(vals)-1].v
		if mag-maxv < (maxv-vals[len(vals)-2].v)/2 {
			bits = vals[len(vals)-1].bits
		} else {
			bits = 0x7c00
		}
	case vals[i].v == mag || i == 0:
		bits = vals[i].bits
	default:
		lo, hi := vals[i-1], vals[i]
		switch dl, dh := mag-lo.v, hi.v-mag; {
		case dl < dh:
			bits = lo.bits
		case dh < dl:
			bits = hi.bits
		case lo.bits&1 == 0:
			bits = lo.bits
		default:
			bits = hi.bits
		}
	}
	if math.Signbit(v) {
		bits |= 0x8000
	}
	return bits
}

type f16val struct {
	v    float64
	bits uint16
}

var f16tab []f16val

func float16Table() []f16val {
	if f16tab == nil {
		for b := uint16(0); b < 0x7c00; b++ {
			e, m := int(b>>10), float64(b&0x3ff)
			v := math.Ldexp(m, -24)
			if e != 0 {
				v = math.Ldexp(1024+m, e-25)
			}
			f16tab = append(f16tab, f16val{v, b})
		}
	}
	return f16tab
}

func TestOpFloat16Conversions(t *testing.T) {
	for b := range 1 << 16 {
		h := float16(b)
		f := h.float32()
		if f != f { // NaN: must stay a NaN
			if g := toFloat16(f); g.float32() == g.float32() {
				t.Fatalf("NaN %#x round-trips to %#x", b, g)
			}
			continue
		}
		if g := toFloat16(f); g != h {
			t.Fatalf("%#x -> %v -> %#x", b, f, g)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		v := float32(rng.NormFloat64() * math.Pow(2, float64(rng.IntN(50)-30)))
		if got, want := uint16(toFloat16(v)), refFloat16(float64(v)); got != want {
			t.Fatalf("toFloat16(%g) = %#x, want %#x", v, got, want)
		}
	}
}

// TestOpReduceLocalDerived uses types made of one predefined type: a
// contiguous of pairs (one run) and a strided vector of ints (runs with
// gaps), and REPLACE on a type that mixes predefined types.
func TestOpReduceLocalDerived(t *testing.T) {
	dint, _ := PredefinedDatatype(TypeDoubleInt)
	// contiguous(3, MPI_DOUBLE_INT)
	c3, err := TypeContiguous(3, dint, false)
	if err != nil || c3.Size() != 36 || c3.Extent() != 48 || c3.TrueExtent() != 44 {
		t.Fatalf("contiguous(3, MPI_DOUBLE_INT): %v %+v", err, c3)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	in, inout := randomElems(rng, dint, 12), randomElems(rng, dint, 12)
	want := slices.Clone(inout)
	if err := ReduceLocal(OpMinloc, dint, in, want, 12); err != nil {
		t.Fatal(err)
	}
	got := slices.Clone(inout)
	if err := ReduceLocal(OpMinloc, c3, in, got, 4); err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		if !sameData(dint, got[16*i:16*i+16], want[16*i:16*i+16]) {
			t.Fatalf("contiguous MINLOC differs at %d", i)
		}
	}

	// vector(2 blocks of 2 ints, stride 3 ints): data at ints 0,1,3,4; extent 5 ints.
	di, _ := PredefinedDatatype(TypeInt)
	vec0, err := TypeVector(2, 2, 3, di, false, false)
	if err != nil {
		t.Fatal(err)
	}
	vec, _ := TypeResized(vec0, 0, 20, false)
	const n = 3
	a := make([]int32, 5*n)
	b := make([]int32, 5*n)
	for i := range a {
		a[i], b[i] = int32(i), int32(100*i)
	}
	ab := unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), 4*len(a))
	bb := unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), 4*len(b))
	if err := ReduceLocal(OpSum, vec, ab, bb, n); err != nil {
		t.Fatal(err)
	}
	for i := range b {
		want := int32(100 * i)
		if i%5 != 2 {
			want += int32(i)
		}
		if b[i] != want {
			t.Fatalf("vector SUM: b[%d] = %d, want %d", i, b[i], want)
		}
	}
	if err := CheckOp(OpSum, vec); err != nil {
		t.Fatal(err)
	}

	// A struct {int; double} has no single element type: only REPLACE/NO_OP.
	dd, _ := PredefinedDatatype(TypeDouble)
	mixed, err := TypeStruct([]int{1, 1}, []int{0, 8}, []*Datatype{di, dd}, false)
	if err != nil || mixed.Size() != 12 || mixed.Extent() != 16 {
		t.Fatalf("struct {int; double}: %v %+v", err, mixed)
	}
	if err := ReduceLocal(OpSum, mixed, make([]byte, 32), make([]byte, 32), 2); !errors.Is(err, &Error{Class: ErrOp}) {
		t.Fatalf("SUM on mixed: %v", err)
	}
	src := make([]byte, 32)
	for i := range src {
		src[i] = byte(i + 1)
	}
	dst := make([]byte, 32)
	if err := ReduceLocal(OpReplace, mixed, src, dst, 2); err != nil {
		t.Fatal(err)
	}
	for i := range dst {
		inData := i%16 < 4 || i%16 >= 8
		if inData && dst[i] != src[i] || !inData && dst[i] != 0 {
			t.Fatalf("REPLACE on mixed: byte %d = %d", i, dst[i])
		}
	}
}

func TestOpReduceLocalErrors(t *testing.T) {
	di, _ := PredefinedDatatype(TypeInt)
	buf := make([]byte, 16)
	for _, op := range []Handle{HandleOpNull, 0, MakeHandle(KindDirect, ObjOp, 1), 0x5800000f, TypeInt} {
		err := ReduceLocal(op, di, buf, buf, 1)
		if !errors.Is(err, &Error{Class: ErrOp}) {
			t.Errorf("op %v: %v", op, err)
		}
	}
	err := ReduceLocal(OpSum, di, buf[:7], buf, 2)
	if !errors.Is(err, &Error{Class: ErrIntern}) {
		t.Errorf("short buffer: %v", err)
	}
	if err := ReduceLocal(OpSum, di, nil, nil, 0); err != nil {
		t.Errorf("count 0: %v", err)
	}
	var e *Error
	db, _ := PredefinedDatatype(TypeByte)
	if err := ReduceLocal(OpSum, db, buf, buf, 1); !errors.As(err, &e) || e.Msg != "MPI_SUM is not defined on datatype MPI_BYTE" {
		t.Errorf("SUM on MPI_BYTE: %v", err)
	}
}

func TestOpCommutative(t *testing.T) {
	for _, op := range allOps {
		want := op != OpReplace && op != OpNoOp
		if op.IsCommutative() != want {
			t.Errorf("%s.IsCommutative() = %v", OpName(op), !want)
		}
		if op.Kind() != KindBuiltin || op.Type() != ObjOp || !IsPredefinedOp(op) {
			t.Errorf("%s: bad handle", OpName(op))
		}
	}
	if HandleOpNull.IsCommutative() || IsPredefinedOp(HandleOpNull) {
		t.Error("MPI_OP_NULL")
	}
}

func benchReduce(b *testing.B, op, dt Handle) {
	const n = 1 << 20
	d, _ := PredefinedDatatype(dt)
	in := make([]byte, n*d.Extent())
	inout := make([]byte, n*d.Extent())
	b.SetBytes(int64(len(in)))
	b.ResetTimer()
	for range b.N {
		if err := ReduceLocal(op, d, in, inout, n); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSumFloat64(b *testing.B)   { benchReduce(b, OpSum, TypeDouble) }
func BenchmarkSumFloat32(b *testing.B)   { benchReduce(b, OpSum, TypeFloat) }
func BenchmarkSumInt32(b *testing.B)     { benchReduce(b, OpSum, TypeInt) }
func BenchmarkSumInt64(b *testing.B)     { benchReduce(b, OpSum, TypeLong) }
func BenchmarkMaxFloat64(b *testing.B)   { benchReduce(b, OpMax, TypeDouble) }
func BenchmarkMinInt32(b *testing.B)     { benchReduce(b, OpMin, TypeInt) }
func BenchmarkProdComplex(b *testing.B)  { benchReduce(b, OpProd, TypeCDoubleComplex) }
func BenchmarkBxorUint8(b *testing.B)    { benchReduce(b, OpBxor, TypeByte) }
func BenchmarkLandInt32(b *testing.B)    { benchReduce(b, OpLand, TypeInt) }
func BenchmarkMaxlocDouble(b *testing.B) { benchReduce(b, OpMaxloc, TypeDoubleInt) }
func BenchmarkSumFloat16(b *testing.B)   { benchReduce(b, OpSum, TypeXCFloat16) }

func BenchmarkSumLongDouble(b *testing.B) {
	const n = 1 << 12
	d, _ := PredefinedDatatype(TypeLongDouble)
	in := make([]byte, n*16)
	inout := make([]byte, n*16)
	one := formatX87.encode(newFloat(1.5))
	for i := 0; i < len(in); i += 16 {
		copy(in[i:], one[:])
		copy(inout[i:], one[:])
	}
	b.SetBytes(int64(len(in)))
	for range b.N {
		if err := ReduceLocal(OpSum, d, in, inout, n); err != nil {
			b.Fatal(err)
		}
	}
}

// refLogical is the 1.0 or 0.0 a logical op stores on a floating type.
func refLogical(op Handle, inout, in bool) float64 {
	r := map[Handle]bool{OpLand: inout && in, OpLor: inout || in, OpLxor: inout != in}[op]
	if r {
		return 1
	}
	return 0
}
