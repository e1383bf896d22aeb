package mpirt

import "math"

// MPIX_C_FLOAT16 (IEEE binary16, stored as uint16). Each op widens both
// operands to float32, computes there and rounds back to nearest-even:
// binary32 has more than 2*11+2 significand bits, so the double rounding
// gives the correctly rounded binary16 result for + and *.

type float16 uint16

func (h float16) float32() float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // Inf or NaN; keep the payload, quiet stays quiet
		return math.Float32frombits(sign | 0xff<<23 | man<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+127-15)<<23 | man<<13)
	case man == 0:
		return math.Float32frombits(sign)
	}
	// subnormal: value man * 2^-24, normalize
	e := uint32(127 - 15 + 1)
	for man&0x400 == 0 {
		man <<= 1
		e--
	}
	return math.Float32frombits(sign | e<<23 | (man&0x3ff)<<13)
}

func toFloat16(f float32) float16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	man := b & 0x7fffff
	if exp == 0xff {
		if man == 0 {
			return float16(sign | 0x7c00)
		}
		return float16(sign | 0x7e00 | uint16(man>>13)) // quiet NaN
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return float16(sign | 0x7c00) // overflow
	}
	if e <= 0 {
		// subnormal or zero in binary16: value = m * 2^-24 after rounding
		if e < -10 {
			return float16(sign) // below half the smallest subnormal
		}
		m := man | 0x800000 // 24-bit significand
		shift := uint(14 - e)
		r := m >> shift
		rem := m & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || rem == half && r&1 == 1 {
			r++
		}
		return float16(sign | uint16(r))
	}
	r := uint32(e)<<10 | man>>13
	rem := man & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && r&1 == 1 {
		r++ // may carry into the exponent, up to Inf: still correct
	}
	return float16(sign | uint16(r))
}

func f16Sum(inout, in []float16) {
	in = in[:len(inout)]
	for i := range inout {
		inout[i] = toFloat16(inout[i].float32() + in[i].float32())
	}
}

func f16Prod(inout, in []float16) {
	in = in[:len(inout)]
	for i := range inout {
		inout[i] = toFloat16(inout[i].float32() * in[i].float32())
	}
}

func f16Max(inout, in []float16) {
	in = in[:len(inout)]
	for i := range inout {
		if !(inout[i].float32() > in[i].float32()) {
			inout[i] = in[i]
		}
	}
}

func f16Min(inout, in []float16) {
	in = in[:len(inout)]
	for i := range inout {
		if !(inout[i].float32() < in[i].float32()) {
			inout[i] = in[i]
		}
	}
}

func registerFloat16Kernels() {
	kernels[opIndex(OpSum)][BasicFloat16] = typed(f16Sum)
	kernels[opIndex(OpProd)][BasicFloat16] = typed(f16Prod)
	kernels[opIndex(OpMax)][BasicFloat16] = typed(f16Max)
	kernels[opIndex(OpMin)][BasicFloat16] = typed(f16Min)
	// Logical: every bit pattern but the two zeros is true; 1.0 is 0x3c00.
	setLogicalBy(BasicFloat16, 2, func(e []byte) bool { return (uint16(e[0])|uint16(e[1])<<8)&0x7fff != 0 },
		[]byte{0x00, 0x3c}, []byte{0, 0})
}
