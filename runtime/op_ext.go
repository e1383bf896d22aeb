package mpirt

import (
	"encoding/binary"
	"math/big"
	"slices"
	"unsafe"
)

// Reductions on the 16-byte floating types, done in software with
// math/big and rounded exactly as the hardware (x87) or libgcc (binary128)
// would, round-to-nearest-even, subnormals included:
//
//   - C long double on x86-64: x87 80-bit extended (64-bit significand
//     with an explicit integer bit, 15-bit exponent) in the low 10 bytes
//     of 16; results are stored with the 6 padding bytes zeroed.
//   - Fortran REAL*16 (MPI_REAL16, and MPI_COMPLEX32's parts), and C
//     long double where it is binary128 (s390x, aarch64): IEEE binary128
//     (113-bit significand), in the machine's byte order (big-endian on
//     s390x).
//
// SUM and PROD round once per operation; complex PROD is
// (ac-bd) + (ad+bc)i with each product rounded and C99 Annex G's recovery
// of infinities, as __mulxc3/__multc3 do. MAX/MIN copy
// the winning operand bit for bit. NaN results follow the x87 rule: the
// operand NaN (the one with the larger significand when both are), made
// quiet; invalid operations give the default NaN.
//
// These are slow (a few hundred ns per element); long double reductions
// are rare.

type extFormat struct {
	prec     int  // significand bits, leading bit included
	explicit bool // the leading bit is stored (x87)
	// be: stored big-endian (binary128 on s390x). The methods work on
	// little-endian bytes: decode reads the stored order, out turns a
	// result back into it.
	be bool
}

var (
	formatX87  = extFormat{prec: 64, explicit: true}
	formatQuad = extFormat{prec: 113}
)

const (
	extBias = 16383
	extEmin = 1 - extBias // exponent of the smallest normal
	extEmax = extBias     // exponent of the largest finite
)

// extNum is a decoded 16-byte float: a NaN (kept as its bits) or a value
// (finite or infinite) in f.
type extNum struct {
	nan  bool
	bits [16]byte
	f    big.Float
}

func (x *extNum) isInf() bool { return !x.nan && x.f.IsInf() }

// nanPayload returns the stored significand bits below the integer bit
// (for ordering NaNs).
func (fm extFormat) nanPayload(b *[16]byte) (hi, lo uint64) {
	lo = binary.LittleEndian.Uint64(b[0:8])
	if fm.explicit {
		return 0, lo &^ (1 << 63)
	}
	return binary.LittleEndian.Uint64(b[8:16]) & (1<<48 - 1), lo
}

// decode reads a value stored in fm's byte order.
func (fm extFormat) decode(b []byte, x *extNum) {
	if !fm.be {
		fm.decodeLE(b, x)
		return
	}
	var le [16]byte
	copy(le[:], b[:16])
	slices.Reverse(le[:])
	fm.decodeLE(le[:], x)
}

// out is result bytes b (little-endian) in fm's byte order.
func (fm extFormat) out(b [16]byte) [16]byte {
	if fm.be {
		slices.Reverse(b[:])
	}
	return b
}

// decodeLE reads a value stored little-endian.
func (fm extFormat) decodeLE(b []byte, x *extNum) {
	copy(x.bits[:], b[:16])
	lo := binary.LittleEndian.Uint64(b[0:8])
	var neg bool
	var exp int
	var mant big.Int
	if fm.explicit {
		se := binary.LittleEndian.Uint16(b[8:10])
		neg, exp = se>>15 != 0, int(se&0x7fff)
		intBit := lo>>63 != 0
		switch {
		case exp == 0x7fff:
			if lo<<1 == 0 && intBit {
				x.nan = false
				x.f.SetInf(neg)
				return
			}
			x.nan = true // NaN, or pseudo-infinity/pseudo-NaN: invalid
			if !intBit {
				x.bits = fm.defaultNaN()
			}
			return
		case exp != 0 && !intBit: // unnormal: invalid operand
			x.nan, x.bits = true, fm.defaultNaN()
			return
		case exp == 0: // zero, denormal or pseudo-denormal
			exp = 1
		}
		mant.SetUint64(lo)
	} else {
		hi := binary.LittleEndian.Uint64(b[8:16])
		neg, exp = hi>>63 != 0, int(hi>>48&0x7fff)
		m := hi & (1<<48 - 1)
		switch {
		case exp == 0x7fff:
			if m == 0 && lo == 0 {
				x.nan = false
				x.f.SetInf(neg)
				return
			}
			x.nan = true
			return
		case exp == 0:
			exp = 1
		default:
			m |= 1 << 48
		}
		mant.SetUint64(m)
		mant.Lsh(&mant, 64)
		mant.Or(&mant, new(big.Int).SetUint64(lo))
	}
	x.nan = false
	x.f.SetPrec(uint(fm.prec)).SetInt(&mant)
	x.f.SetMantExp(&x.f, exp-extBias-(fm.prec-1))
	if neg {
		x.f.Neg(&x.f)
	}
}

func (fm extFormat) defaultNaN() (b [16]byte) {
	if fm.explicit {
		binary.LittleEndian.PutUint64(b[0:8], 0xc000000000000000)
		binary.LittleEndian.PutUint16(b[8:10], 0xffff)
		return b
	}
	binary.LittleEndian.PutUint64(b[8:16], 0xffff800000000000)
	return b
}

// quiet returns NaN bits with the quiet bit set.
func (fm extFormat) quiet(b [16]byte) [16]byte {
	if fm.explicit {
		b[7] |= 0x40 // bit 62
	} else {
		b[13] |= 0x80 // bit 111 of the significand = bit 47 of the high word
	}
	return b
}

// pickNaN returns the NaN result of an operation on a and b, one of which
// is a NaN.
func (fm extFormat) pickNaN(a, b *extNum) [16]byte {
	if a.nan && b.nan {
		ah, al := fm.nanPayload(&a.bits)
		bh, bl := fm.nanPayload(&b.bits)
		if bh > ah || bh == ah && bl > al {
			return fm.quiet(b.bits)
		}
		return fm.quiet(a.bits)
	}
	if a.nan {
		return fm.quiet(a.bits)
	}
	return fm.quiet(b.bits)
}

// round rounds x (exact, or already rounded to prec bits when it is at
// least the smallest normal) to the format: prec bits in the normal range,
// multiples of the smallest subnormal below it, ±Inf above the largest
// finite.
func (fm extFormat) round(x *big.Float) *big.Float {
	if x.IsInf() || x.Sign() == 0 {
		return x
	}
	e := x.MantExp(nil) - 1 // x = 1.f * 2^e
	if e >= extEmin {
		r := new(big.Float).SetMode(big.ToNearestEven).SetPrec(uint(fm.prec)).Set(x)
		if r.MantExp(nil)-1 > extEmax {
			return r.SetInf(r.Signbit())
		}
		return r
	}
	q := extEmin - (fm.prec - 1) // exponent of the smallest subnormal
	t := new(big.Float).SetMantExp(x, -q)
	te := t.MantExp(nil) // |t| in [2^(te-1), 2^te)
	switch {
	case te >= 1:
		t = new(big.Float).SetMode(big.ToNearestEven).SetPrec(uint(te)).Set(t)
	case te == 0 && new(big.Float).Abs(t).Cmp(big.NewFloat(0.5)) > 0:
		t.SetInt64(int64(t.Sign()))
	default: // rounds to zero, keeping the sign
		neg := t.Signbit()
		t.SetInt64(0)
		if neg {
			t.Neg(t)
		}
		return t
	}
	return t.SetMantExp(t, q)
}

func (fm extFormat) encode(x *big.Float) (b [16]byte) {
	neg := x.Signbit()
	var exp int
	var s big.Int
	switch {
	case x.IsInf():
		exp = 0x7fff
		if fm.explicit {
			s.SetUint64(1 << 63)
		}
	case x.Sign() == 0:
	default:
		a := new(big.Float).Abs(x)
		e := a.MantExp(nil) - 1
		if e >= extEmin {
			exp = e + extBias
			a.SetMantExp(a, fm.prec-1-e)
		} else {
			a.SetMantExp(a, fm.prec-1-extEmin)
		}
		a.Int(&s)
		if !fm.explicit && exp != 0 {
			s.SetBit(&s, fm.prec-1, 0)
		}
	}
	words := s.Bits() // little-endian machine words (64-bit on amd64)
	var w0, w1 uint64
	if len(words) > 0 {
		w0 = uint64(words[0])
	}
	if len(words) > 1 {
		w1 = uint64(words[1])
	}
	sign := 0
	if neg {
		sign = 1
	}
	if fm.explicit {
		binary.LittleEndian.PutUint64(b[0:8], w0)
		binary.LittleEndian.PutUint16(b[8:10], uint16(sign<<15|exp))
		return b
	}
	binary.LittleEndian.PutUint64(b[0:8], w0)
	binary.LittleEndian.PutUint64(b[8:16], uint64(sign)<<63|uint64(exp)<<48|w1&(1<<48-1))
	return b
}

func (fm extFormat) add(a, b *extNum) [16]byte {
	if a.nan || b.nan {
		return fm.pickNaN(a, b)
	}
	if a.isInf() && b.isInf() && a.f.Signbit() != b.f.Signbit() {
		return fm.defaultNaN()
	}
	z := new(big.Float).SetMode(big.ToNearestEven).SetPrec(uint(fm.prec)).Add(&a.f, &b.f)
	return fm.encode(fm.round(z))
}

func (fm extFormat) mul(a, b *extNum) [16]byte {
	if a.nan || b.nan {
		return fm.pickNaN(a, b)
	}
	if a.isInf() && b.f.Sign() == 0 || b.isInf() && a.f.Sign() == 0 {
		return fm.defaultNaN()
	}
	z := new(big.Float).SetPrec(uint(2*fm.prec)).Mul(&a.f, &b.f) // exact
	return fm.encode(fm.round(z))
}

// Helpers on decoded values for cmul: each operation rounds.
func (fm extFormat) val(b [16]byte) *extNum {
	x := new(extNum)
	fm.decodeLE(b[:], x)
	return x
}

func (fm extFormat) mulN(x, y *extNum) *extNum { return fm.val(fm.mul(x, y)) }
func (fm extFormat) addN(x, y *extNum) *extNum { return fm.val(fm.add(x, y)) }

func (fm extFormat) subN(x, y *extNum) *extNum {
	if y.nan {
		return fm.val(fm.add(x, y))
	}
	ny := new(extNum)
	ny.f.Neg(&y.f)
	return fm.val(fm.add(x, ny))
}

// signbit of any value, NaNs included (the sign is the top bit of byte 9
// for x87 and of byte 15 for binary128).
func (fm extFormat) signbit(x *extNum) bool {
	if !x.nan {
		return x.f.Signbit()
	}
	if fm.explicit {
		return x.bits[9]&0x80 != 0
	}
	return x.bits[15]&0x80 != 0
}

// signed returns copysign(v, x) for v = 0 or 1.
func (fm extFormat) signed(v int64, x *extNum) *extNum {
	r := new(extNum)
	r.f.SetInt64(v)
	if fm.signbit(x) {
		r.f.Neg(&r.f)
	}
	r.bits = fm.encode(&r.f)
	return r
}

// box maps an infinity to ±1 and anything else to ±0.
func (fm extFormat) box(x *extNum) *extNum {
	if x.isInf() {
		return fm.signed(1, x)
	}
	return fm.signed(0, x)
}

// zeroNaN maps a NaN to ±0 and leaves anything else.
func (fm extFormat) zeroNaN(x *extNum) *extNum {
	if x.nan {
		return fm.signed(0, x)
	}
	return x
}

// cmul is C's complex product (a+bi)(c+di): x = ac-bd, y = ad+bc, each
// product and sum rounded, and when both come out NaN the recovery of
// infinities of C99 Annex G (what libgcc's __mulxc3/__multc3 do).
func (fm extFormat) cmul(a, b, c, d *extNum) (re, im [16]byte) {
	ac, bd, ad, bc := fm.mulN(a, c), fm.mulN(b, d), fm.mulN(a, d), fm.mulN(b, c)
	x, y := fm.subN(ac, bd), fm.addN(ad, bc)
	if x.nan && y.nan {
		recalc := false
		if a.isInf() || b.isInf() {
			a, b = fm.box(a), fm.box(b)
			c, d = fm.zeroNaN(c), fm.zeroNaN(d)
			recalc = true
		}
		if c.isInf() || d.isInf() {
			c, d = fm.box(c), fm.box(d)
			a, b = fm.zeroNaN(a), fm.zeroNaN(b)
			recalc = true
		}
		if !recalc && (ac.isInf() || bd.isInf() || ad.isInf() || bc.isInf()) {
			a, b, c, d = fm.zeroNaN(a), fm.zeroNaN(b), fm.zeroNaN(c), fm.zeroNaN(d)
			recalc = true
		}
		if recalc {
			inf := new(extNum)
			inf.f.SetInf(false)
			x = fm.mulN(inf, fm.subN(fm.mulN(a, c), fm.mulN(b, d)))
			y = fm.mulN(inf, fm.addN(fm.mulN(a, d), fm.mulN(b, c)))
		}
	}
	return x.bits, y.bits
}

// greater reports a > b; false when either is a NaN.
func greater(a, b *extNum) bool { return !a.nan && !b.nan && a.f.Cmp(&b.f) > 0 }

func equal(a, b *extNum) bool { return !a.nan && !b.nan && a.f.Cmp(&b.f) == 0 }

// extKernel applies f to n elements of size bytes.
func extKernel(size int, f func(inout, in []byte)) kernel {
	return func(inout, in unsafe.Pointer, n int) {
		io := unsafe.Slice((*byte)(inout), n*size)
		iv := unsafe.Slice((*byte)(in), n*size)
		for i := 0; i < n*size; i += size {
			f(io[i:i+size], iv[i:i+size])
		}
	}
}

func registerExtKernels() {
	// This machine's formats: long double is x87 on x86-64, binary128
	// elsewhere (stored big-endian on s390x, like the 16-byte floats).
	nat := NativeRep()
	quad := formatQuad
	quad.be = nat.BigEndian
	ld := formatX87
	if nat.LongDouble == LongDoubleBinary128 {
		ld = quad
	}
	for _, c := range []struct {
		fm            extFormat
		real, complex Basic
		pair          Basic
	}{
		{ld, BasicLongDouble, BasicLongDoubleComplex, BasicLongDoubleInt},
		{quad, BasicFloat128, BasicComplex256, BasicNone},
	} {
		fm := c.fm
		binop := func(op func(a, b *extNum) [16]byte) func(inout, in []byte) {
			return func(inout, in []byte) {
				var a, b extNum
				fm.decode(in, &a)
				fm.decode(inout, &b)
				r := fm.out(op(&b, &a))
				copy(inout, r[:])
			}
		}
		one, zero := fm.out(fm.encode(big.NewFloat(1))), fm.out(fm.encode(new(big.Float)))
		setLogicalBy(c.real, 16, func(e []byte) bool {
			var x extNum
			fm.decode(e, &x)
			return x.nan || x.f.Sign() != 0
		}, one[:], zero[:])
		kernels[opIndex(OpSum)][c.real] = extKernel(16, binop(fm.add))
		kernels[opIndex(OpProd)][c.real] = extKernel(16, binop(fm.mul))
		kernels[opIndex(OpMax)][c.real] = extKernel(16, func(inout, in []byte) {
			var a, b extNum
			fm.decode(in, &a)
			fm.decode(inout, &b)
			if !greater(&b, &a) { // MPL_MAX(inout, in): inout > in ? inout : in
				copy(inout, in[:16])
			}
		})
		kernels[opIndex(OpMin)][c.real] = extKernel(16, func(inout, in []byte) {
			var a, b extNum
			fm.decode(in, &a)
			fm.decode(inout, &b)
			if !greater(&a, &b) { // MPL_MIN(inout, in): inout < in ? inout : in
				copy(inout, in[:16])
			}
		})
		kernels[opIndex(OpSum)][c.complex] = extKernel(32, func(inout, in []byte) {
			var ar, ai, br, bi extNum
			fm.decode(in[0:16], &ar)
			fm.decode(in[16:32], &ai)
			fm.decode(inout[0:16], &br)
			fm.decode(inout[16:32], &bi)
			re, im := fm.out(fm.add(&br, &ar)), fm.out(fm.add(&bi, &ai))
			copy(inout[0:16], re[:])
			copy(inout[16:32], im[:])
		})
		kernels[opIndex(OpProd)][c.complex] = extKernel(32, func(inout, in []byte) {
			var a, b, cc, d extNum
			fm.decode(inout[0:16], &a)
			fm.decode(inout[16:32], &b)
			fm.decode(in[0:16], &cc)
			fm.decode(in[16:32], &d)
			re, im := fm.cmul(&a, &b, &cc, &d)
			re, im = fm.out(re), fm.out(im)
			copy(inout[0:16], re[:])
			copy(inout[16:32], im[:])
		})
		if c.pair == BasicNone {
			continue
		}
		// {long double; int}: value at 0, index at 16, extent 32 (24
		// where long double is 8-aligned, s390x).
		loc := func(better func(a, b *extNum) bool) func(inout, in []byte) {
			return func(inout, in []byte) {
				var a, b extNum
				fm.decode(in[0:16], &a)
				fm.decode(inout[0:16], &b)
				ai := int32(binary.NativeEndian.Uint32(in[16:20]))
				bi := int32(binary.NativeEndian.Uint32(inout[16:20]))
				if better(&a, &b) || equal(&a, &b) && ai < bi {
					copy(inout[0:20], in[0:20])
				}
			}
		}
		pairExtent := (20 + maxTypeAlign - 1) / maxTypeAlign * maxTypeAlign
		kernels[opIndex(OpMinloc)][c.pair] = extKernel(pairExtent, loc(func(a, b *extNum) bool { return greater(b, a) }))
		kernels[opIndex(OpMaxloc)][c.pair] = extKernel(pairExtent, loc(greater))
	}
}
