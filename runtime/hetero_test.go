package mpirt

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand"
	goruntime "runtime"
	"syscall"
	"testing"
	"time"

	"gmpi/internal/fuzzseed"
)

var (
	repX86  = Rep{LongDouble: LongDoubleX87, Long: 8, Wchar: 4}
	repZ    = Rep{BigEndian: true, LongDouble: LongDoubleBinary128, Long: 8, Wchar: 4}
	repArm  = Rep{LongDouble: LongDoubleBinary128, Long: 8, Wchar: 4}
	repILP  = Rep{LongDouble: LongDoubleX87, Long: 4, Wchar: 2} // a 32-bit-long ABI
	allReps = []Rep{repX86, repZ, repArm}
)

func TestRepEncode(t *testing.T) {
	for _, r := range append(allReps, repILP, Rep{Long: 8, Wchar: 4}) {
		got, err := ParseRep(r.Encode())
		if err != nil || got != r {
			t.Errorf("%v: round trip gave %v, %v", r, got, err)
		}
	}
	for _, bad := range []string{"", "le", "xe,x87,long8,wchar4", "le,ibm,long8,wchar4", "le,x87,long3,wchar4",
		"le,x87,wchar4,long8", "le,x87,long8,wchar4,extra"} {
		if _, err := ParseRep(bad); err == nil {
			t.Errorf("ParseRep(%q) accepted", bad)
		}
	}
	if z, ok := ArchRep("s390x"); !ok || z != repZ {
		t.Errorf("ArchRep(s390x) = %v, %v", z, ok)
	}
	if NativeRep() != repX86 && NativeRep() != repZ && NativeRep() != repArm {
		t.Logf("native representation %v", NativeRep())
	}
}

// f64ToX87 and f64To128 encode a float64 in the two long double formats
// independently of the converter (exact for normal float64 values).
func f64ToX87(v float64) (se uint16, mant uint64) {
	b := math.Float64bits(v)
	sign := uint16(b>>63) << 15
	e := int(b >> 52 & 0x7ff)
	if e == 0 {
		return sign, 0 // zero (no float64 subnormals in these tests)
	}
	return sign | uint16(e-1023+16383), 1<<63 | (b&(1<<52-1))<<11
}

func f64To128(v float64) (hi, lo uint64) {
	b := math.Float64bits(v)
	sign := b >> 63 << 63
	e := b >> 52 & 0x7ff
	if e == 0 {
		return sign, 0
	}
	frac := b & (1<<52 - 1)
	return sign | (e-1023+16383)<<48 | frac>>4, frac << 60
}

func putLD(b []byte, r Rep, v float64) {
	var hi, lo uint64
	if r.LongDouble == LongDoubleX87 {
		se, m := f64ToX87(v)
		hi, lo = uint64(se), m
	} else {
		hi, lo = f64To128(v)
	}
	if r.BigEndian {
		binary.BigEndian.PutUint64(b, hi)
		binary.BigEndian.PutUint64(b[8:], lo)
	} else {
		binary.LittleEndian.PutUint64(b, lo)
		binary.LittleEndian.PutUint64(b[8:], hi)
	}
}

// TestLongDoubleFormats converts values exact in both formats both ways,
// and checks the rounding of binary128 values that x87 cannot hold.
func TestLongDoubleFormats(t *testing.T) {
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -1.5, math.Pi, 1e300, -1e-300, math.MaxFloat64, math.SmallestNonzeroFloat64 * (1 << 52)} {
		for _, a := range allReps {
			for _, b := range allReps {
				in, want, got := make([]byte, 16), make([]byte, 16), make([]byte, 16)
				putLD(in, a, v)
				putLD(want, b, v)
				ld, _ := PredefinedDatatype(TypeLongDouble)
				if _, n, err := ConvertPacked(ld, 1, got, in, &a, &b); err != nil || n != 16 || !bytes.Equal(got, want) {
					t.Errorf("%g %v -> %v: got % x want % x (%v)", v, a, b, got, want, err)
				}
			}
		}
	}
	// Rounding binary128 -> x87 (63 fraction bits kept of 112).
	one := uint64(16383) << 48
	cases := []struct {
		name           string
		hi, lo         uint64
		wantSE         uint16
		wantMant       uint64
		wantInfOrExact bool
	}{
		{"below half", one, 1<<48 - 1, 16383, 1 << 63, false},
		{"tie to even (down)", one, 1 << 48, 16383, 1 << 63, false},
		{"tie to even (up)", one, 1<<49 | 1<<48, 16383, 1<<63 | 2, false},
		{"above half", one, 1<<48 + 1, 16383, 1<<63 | 1, false},
		{"carry into exponent", one | (1<<48 - 1), ^uint64(0), 16384, 1 << 63, false},
		{"overflow to infinity", uint64(0x7ffe)<<48 | (1<<48 - 1), ^uint64(0), 0x7fff, 1 << 63, true},
		{"negative", 1<<63 | one, 3 << 48, 0x8000 | 16383, 1<<63 | 2, false},
		{"subnormal", 0, 1 << 49, 0, 1, false},
		{"subnormal to normal", 1<<48 - 1, ^uint64(0), 1, 1 << 63, false},
		{"infinity", 0x7fff << 48, 0, 0x7fff, 1 << 63, true},
		{"NaN with low payload", 0x7fff << 48, 1, 0x7fff, 1<<63 | 1<<62, true},
	}
	for _, c := range cases {
		se, m := f128ToX87(c.hi, c.lo)
		if se != c.wantSE || m != c.wantMant {
			t.Errorf("%s: got %#x %#x want %#x %#x", c.name, se, m, c.wantSE, c.wantMant)
		}
	}
	// x87 oddities: a pseudo-denormal is the value with exponent 1; an
	// unnormal becomes a NaN.
	if hi, lo := x87To128(0, 1<<63); hi != 1<<48 || lo != 0 {
		t.Errorf("pseudo-denormal: %#x %#x", hi, lo)
	}
	if hi, _ := x87To128(16383, 1<<62); hi>>48&0x7fff != 0x7fff || hi&(1<<48-1) == 0 {
		t.Errorf("unnormal: %#x is not a NaN", hi)
	}
}

// swapComps is the expected bytes of one element converted between
// byte orders: each component reversed (an independent description of
// the C layouts, from the standard's type table).
func expectSwapped(t *testing.T, d *Datatype, le []byte) []byte {
	t.Helper()
	out := make([]byte, len(le))
	var parts []int // component sizes in packed order
	switch d.Handle {
	case TypeFloatInt, Type2Int, Type2Real, Type2Integer:
		parts = []int{4, 4}
	case TypeDoubleInt, TypeLongInt:
		parts = []int{8, 4}
	case TypeShortInt:
		parts = []int{2, 4}
	case Type2DoublePrecision:
		parts = []int{8, 8}
	case TypeComplex, TypeCFloatComplex, TypeCxxFloatComplex, TypeComplex8:
		parts = []int{4, 4}
	case TypeDoubleComplex, TypeCDoubleComplex, TypeCxxDoubleComplex, TypeComplex16:
		parts = []int{8, 8}
	case TypeComplex32:
		parts = []int{16, 16}
	default:
		parts = []int{d.Size()}
	}
	off := 0
	for off < len(le) {
		for _, s := range parts {
			for i := 0; i < s; i++ {
				out[off+i] = le[off+s-1-i]
			}
			off += s
		}
	}
	return out
}

// TestEveryPredefinedType converts count elements of every predefined
// type (bytes all different) between the byte orders both ways.
func TestEveryPredefinedType(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, d := range PredefinedDatatypes() {
		if d.Size() == 0 {
			continue
		}
		const count = 37
		switch d.Basic() {
		case BasicLongDouble, BasicLongDoubleComplex, BasicLongDoubleInt:
			continue // TestLongDoubleTypes
		}
		le := make([]byte, count*d.Size())
		for i := range le {
			le[i] = byte(i*7 + 1)
		}
		rng.Read(le[:3]) // different per type
		want := le
		if d.Basic() != BasicByte && d.Basic() != BasicChar && d.Basic() != BasicBool && d.Size() > 1 {
			want = expectSwapped(t, d, le)
		}
		be := make([]byte, len(le))
		if _, n, err := ConvertPacked(d, count, be, le, &repX86, &repZ); err != nil || n != len(le) || !bytes.Equal(be, want) {
			t.Errorf("%v le->be: n=%d err=%v\n got % x\nwant % x", d, n, err, be[:16], want[:16])
			continue
		}
		back := make([]byte, len(le))
		if _, n, err := ConvertPacked(d, count, back, be, &repZ, &repX86); err != nil || n != len(le) || !bytes.Equal(back, le) {
			t.Errorf("%v be->le: n=%d err=%v", d, n, err)
		}
		// In place, as a contiguous receive converts.
		cp := append([]byte(nil), le...)
		if _, _, err := ConvertPacked(d, count, cp, cp, &repX86, &repZ); err != nil || !bytes.Equal(cp, want) {
			t.Errorf("%v in place: %v", d, err)
		}
		// Agreeing byte orders copy.
		same := make([]byte, len(le))
		if _, _, err := ConvertPacked(d, count, same, le, &repX86, &repArm); err != nil || !bytes.Equal(same, le) {
			t.Errorf("%v le->le changed the bytes", d)
		}
	}
}

func TestLongDoubleTypes(t *testing.T) {
	ldi, _ := PredefinedDatatype(TypeLongDoubleInt)
	ldc, _ := PredefinedDatatype(TypeCLongDoubleComplex)
	// MPI_LONG_DOUBLE_INT packs 20 bytes: the long double, then the int.
	in := make([]byte, 20)
	putLD(in, repX86, -2.25)
	binary.LittleEndian.PutUint32(in[16:], 0x01020304)
	want := make([]byte, 20)
	putLD(want, repZ, -2.25)
	binary.BigEndian.PutUint32(want[16:], 0x01020304)
	got := make([]byte, 20)
	if _, n, err := ConvertPacked(ldi, 1, got, in, &repX86, &repZ); err != nil || n != 20 || !bytes.Equal(got, want) {
		t.Errorf("long double int: got % x want % x", got, want)
	}
	in = make([]byte, 32)
	putLD(in, repZ, 3.5)
	putLD(in[16:], repZ, -0.125)
	want = make([]byte, 32)
	putLD(want, repX86, 3.5)
	putLD(want[16:], repX86, -0.125)
	got = make([]byte, 32)
	if _, _, err := ConvertPacked(ldc, 1, got, in, &repZ, &repX86); err != nil || !bytes.Equal(got, want) {
		t.Errorf("long double complex: got % x want % x", got, want)
	}
}

// TestDerivedAndShort converts a struct with padding through its type
// map, and a truncated stream ends at the last whole basic element.
func TestDerivedAndShort(t *testing.T) {
	dc, _ := PredefinedDatatype(TypeChar)
	dd, _ := PredefinedDatatype(TypeDouble)
	di, _ := PredefinedDatatype(TypeInt)
	st, err := TypeStruct([]int{1, 1, 2}, []int{0, 8, 16}, []*Datatype{dc, dd, di}, false)
	if err != nil {
		t.Fatal(err)
	}
	vec, _ := TypeVector(3, 1, 2, st, false, false)
	// Packed: char, double, int, int = 17 bytes per struct.
	le := make([]byte, 3*17)
	for i := range le {
		le[i] = byte(i + 1)
	}
	want := make([]byte, len(le))
	for k := 0; k < 3; k++ {
		e := le[17*k:]
		w := want[17*k:]
		w[0] = e[0]
		for i := 0; i < 8; i++ {
			w[1+i] = e[8-i]
		}
		for j := 0; j < 2; j++ {
			for i := 0; i < 4; i++ {
				w[9+4*j+i] = e[9+4*j+3-i]
			}
		}
	}
	got := make([]byte, len(le))
	if _, n, err := ConvertPacked(vec, 1, got, le, &repX86, &repZ); err != nil || n != len(le) || !bytes.Equal(got, want) {
		t.Fatalf("vector of structs: n=%d err=%v\n got % x\nwant % x", n, err, got, want)
	}
	// 17+11 bytes: the second struct's char, double and the first 2 bytes
	// of its int: conversion stops after the double.
	got = make([]byte, len(le))
	used, n, err := ConvertPacked(vec, 1, got, le[:28], &repX86, &repZ)
	if err != nil || used != 26 || n != 26 || !bytes.Equal(got[:26], want[:26]) {
		t.Errorf("truncated: used %d, wrote %d, %v", used, n, err)
	}
}

// TestIntegerWidths narrows and widens long and wchar_t: values that fit
// convert exactly, one that does not is MPI_ERR_CONVERSION.
func TestIntegerWidths(t *testing.T) {
	dl, _ := PredefinedDatatype(TypeLong)
	du, _ := PredefinedDatatype(TypeUnsignedLong)
	dw, _ := PredefinedDatatype(TypeWchar)
	if dl.repSize(&repILP) != 4 || dw.repSize(&repILP) != 2 {
		t.Fatal("repSize")
	}
	in := make([]byte, 16)
	binary.LittleEndian.PutUint64(in, uint64(0xffffffff80000000)) // -2^31
	binary.LittleEndian.PutUint64(in[8:], 0x7fffffff)
	out := make([]byte, 8)
	if _, n, err := ConvertPacked(dl, 2, out, in, &repX86, &repILP); err != nil || n != 8 ||
		int32(binary.LittleEndian.Uint32(out)) != math.MinInt32 || binary.LittleEndian.Uint32(out[4:]) != 0x7fffffff {
		t.Errorf("narrow long: % x %v", out, err)
	}
	// Widening sign-extends (long) and zero-extends (unsigned long).
	back := make([]byte, 16)
	if _, n, err := ConvertPacked(dl, 2, back, out, &repILP, &repX86); err != nil || n != 16 || !bytes.Equal(back, in) {
		t.Errorf("widen long: % x %v", back, err)
	}
	if _, _, err := ConvertPacked(du, 2, back, []byte{0xff, 0xff, 0xff, 0xff, 1, 0, 0, 0}, &repILP, &repZ); err != nil ||
		binary.BigEndian.Uint64(back) != 0xffffffff || binary.BigEndian.Uint64(back[8:]) != 1 {
		t.Errorf("widen unsigned long: % x %v", back, err)
	}
	binary.LittleEndian.PutUint64(in, 1<<31)
	_, _, err := ConvertPacked(dl, 2, out, in, &repX86, &repILP)
	var e *Error
	if err == nil || !asError(err, &e) || e.Class != ErrConversion {
		t.Errorf("overflow: %v", err)
	}
	if _, n, err := ConvertPacked(dw, 1, out, []byte{0x41, 0, 0, 0}, &repX86, &repILP); err != nil || n != 2 || out[0] != 0x41 {
		t.Errorf("wchar: %v", err)
	}
}

func asError(err error, e **Error) bool {
	x, ok := err.(*Error)
	*e = x
	return ok
}

// FuzzConvertPacked feeds arbitrary bytes of arbitrary length through
// the converter for every predefined type and a few derived types,
// between every pair of representations: it must never panic, never
// read or write out of bounds, and a round trip between byte orders of
// what it accepted must give the same bytes back (for types without long
// double, whose conversion is exact).
func FuzzConvertPacked(f *testing.F) {
	fuzzseed.Add(f, []any{uint8(0), uint8(1), uint16(7), []byte{1, 2, 3, 4, 5, 6, 7, 8, 9}},
		[]any{uint8(13), uint8(2), uint16(3), make([]byte, 48)},
		[]any{uint8(28), uint8(5), uint16(2), bytes.Repeat([]byte{0xff}, 40)},
		[]any{uint8(40), uint8(9), uint16(4), bytes.Repeat([]byte{0x7f, 0}, 40)},
		[]any{uint8(3), uint8(17), uint16(63), []byte{1}})
	types := PredefinedDatatypes()
	dd, _ := PredefinedDatatype(TypeDouble)
	di, _ := PredefinedDatatype(TypeShortInt)
	st, _ := TypeStruct([]int{2, 1}, []int{0, 16}, []*Datatype{dd, di}, false)
	vec, _ := TypeVector(2, 2, 3, st, false, false)
	types = append(types, st, vec)
	reps := append(allReps, repILP)
	f.Fuzz(func(t *testing.T, ti, pair uint8, count uint16, in []byte) {
		d := types[int(ti)%len(types)]
		from, to := &reps[int(pair)%len(reps)], &reps[int(pair/8)%len(reps)]
		n := int(count % 64)
		out := make([]byte, n*d.repSize(to))
		used, wrote, err := ConvertPacked(d, n, out, in, from, to)
		if used > len(in) || wrote > len(out) || used < 0 || wrote < 0 {
			t.Fatalf("used %d of %d, wrote %d of %d", used, len(in), wrote, len(out))
		}
		if err != nil || !sameSizes(from, to) || from.LongDouble != to.LongDouble || hasLD(d) {
			return
		}
		back := make([]byte, used)
		if _, w2, _ := ConvertPacked(d, n, back, out[:wrote], to, from); w2 != used || !bytes.Equal(back, in[:used]) {
			t.Fatalf("%v %v->%v: round trip differs", d, from, to)
		}
	})
}

// BenchmarkConvert measures conversion between the byte orders (the
// swaps; MPI_LONG_DOUBLE between formats), in bytes per second.
func BenchmarkConvert(b *testing.B) {
	dc, _ := PredefinedDatatype(TypeChar)
	dd, _ := PredefinedDatatype(TypeDouble)
	di, _ := PredefinedDatatype(TypeInt)
	st, _ := TypeStruct([]int{1, 1, 2}, []int{0, 8, 16}, []*Datatype{dc, dd, di}, false)
	ld, _ := PredefinedDatatype(TypeLongDouble)
	for _, c := range []struct {
		name string
		d    *Datatype
	}{{"double", dd}, {"int", di}, {"struct", st}, {"longdouble", ld}} {
		b.Run(c.name, func(b *testing.B) {
			const bytesPer = 1 << 20
			count := bytesPer / c.d.Size()
			in := make([]byte, count*c.d.Size())
			for i := 0; i < count; i++ {
				if c.d == ld {
					putLD(in[16*i:], repX86, float64(i)+0.5)
				}
			}
			out := make([]byte, len(in))
			b.SetBytes(int64(len(in)))
			// GB/s per core: bytes over this thread's CPU time, which the
			// other processes of a loaded machine do not inflate.
			goruntime.LockOSThread()
			defer goruntime.UnlockOSThread()
			cpu0 := threadCPU()
			b.ResetTimer()
			for range b.N {
				ConvertPacked(c.d, count, out, in, &repX86, &repZ)
			}
			b.StopTimer()
			if t := threadCPU() - cpu0; t > 0 {
				b.ReportMetric(float64(b.N)*float64(len(in))/t.Seconds()/1e9, "GB/s-cpu")
			}
		})
	}
}

func hasLD(d *Datatype) bool {
	for _, c := range hcomps[d] {
		if c.cls == hLD {
			return true
		}
	}
	return false
}

// threadCPU is the CPU time of the calling OS thread.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestPlanMatchesWalk: a conversion plan (run step by step over blocks
// of elements) gives the bytes walking the type map gives, for counts
// across block boundaries, into another buffer and in place.
func TestPlanMatchesWalk(t *testing.T) {
	dc, _ := PredefinedDatatype(TypeChar)
	dd, _ := PredefinedDatatype(TypeDouble)
	di, _ := PredefinedDatatype(TypeInt)
	ds, _ := PredefinedDatatype(TypeShort)
	dl, _ := PredefinedDatatype(TypeLongDouble)
	dsi, _ := PredefinedDatatype(TypeShortInt)
	st, _ := TypeStruct([]int{1, 1, 2, 3, 1}, []int{0, 8, 16, 24, 32}, []*Datatype{dc, dd, di, ds, dl}, false)
	st2, _ := TypeStruct([]int{1, 12, 1}, []int{0, 4, 56}, []*Datatype{di, di, dsi}, false)
	vec, _ := TypeVector(3, 2, 5, st2, false, false)
	for _, d := range []*Datatype{st, st2, vec, dsi} {
		for _, count := range []int{1, 63, 64, 65, 200} {
			for _, pair := range [][2]*Rep{{&repX86, &repZ}, {&repZ, &repX86}} {
				from, to := pair[0], pair[1]
				in := make([]byte, count*d.repSize(from))
				for i := range in {
					in[i] = byte(i*7 + 3)
				}
				if d.planFor(from, to) == nil {
					t.Fatalf("%v: no plan", d)
				}
				want := make([]byte, count*d.repSize(to))
				var ce convError
				convertWalk(d, count, want, in, from, to, &ce)
				got := make([]byte, len(want))
				if _, _, err := ConvertPacked(d, count, got, in, from, to); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%v count %d %v->%v: the plan differs from the walk", d, count, from, to)
				}
				if sameSizes(from, to) {
					inplace := append([]byte(nil), in...)
					ConvertPacked(d, count, inplace, inplace, from, to)
					if !bytes.Equal(inplace, want) {
						t.Errorf("%v count %d %v->%v: in place differs", d, count, from, to)
					}
				}
			}
		}
	}
}
