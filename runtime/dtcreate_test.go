package mpirt

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unsafe"
)

func pre(t testing.TB, h Handle) *Datatype {
	d, ok := PredefinedDatatype(h)
	if !ok {
		t.Fatalf("no predefined %v", h)
	}
	return d
}

// refPack packs through the parts tree, one predefined element at a time:
// the reference the compiled program must agree with.
func refPack(d *Datatype, p unsafe.Pointer, count int) []byte {
	var out []byte
	d.eachPredefined(p, count, func(pt *Datatype, at unsafe.Pointer, n, stride int) bool {
		for j := range n {
			for _, b := range pt.Blocks {
				out = append(out, unsafe.Slice((*byte)(unsafe.Add(at, j*stride+b.Off)), b.Len)...)
			}
		}
		return true
	})
	return out
}

// randomType builds a random nested derived type of depth <= depth.
func randomType(t *testing.T, rng *rand.Rand, depth int) *Datatype {
	leaves := []Handle{TypeInt, TypeDouble, TypeChar, TypeShortInt, TypeDoubleInt, TypeShort}
	if depth == 0 || rng.IntN(4) == 0 {
		return pre(t, leaves[rng.IntN(len(leaves))])
	}
	old := randomType(t, rng, depth-1)
	var d *Datatype
	var err error
	switch rng.IntN(9) {
	case 0:
		d, err = TypeContiguous(rng.IntN(4), old, false)
	case 1:
		d, err = TypeVector(rng.IntN(4)+1, rng.IntN(3)+1, rng.IntN(7)-2, old, false, false)
	case 2:
		d, err = TypeVector(rng.IntN(4)+1, rng.IntN(3), rng.IntN(64)-16, old, true, true)
	case 3:
		n := rng.IntN(4) + 1
		bl, ds := make([]int, n), make([]int, n)
		for i := range n {
			bl[i], ds[i] = rng.IntN(3), rng.IntN(20)-4
		}
		d, err = TypeIndexed(bl, ds, old, rng.IntN(2) == 0, false)
	case 4:
		n := rng.IntN(4) + 1
		ds := make([]int, n)
		for i := range n {
			ds[i] = rng.IntN(10) * 3
		}
		d, err = TypeIndexedBlock(rng.IntN(3)+1, ds, old, rng.IntN(2) == 0, false)
	case 5:
		n := rng.IntN(3) + 1
		bl, ds, ts := make([]int, n), make([]int, n), make([]*Datatype, n)
		at := 0
		for i := range n {
			ts[i] = randomType(t, rng, depth-1)
			bl[i] = rng.IntN(3)
			ds[i] = at + rng.IntN(8)
			at = ds[i] + bl[i]*max(ts[i].Extent(), 0) + 8
		}
		d, err = TypeStruct(bl, ds, ts, false)
	case 6:
		d, err = TypeResized(old, rng.IntN(8)-4, old.Extent()+rng.IntN(16), false)
	case 7:
		d, err = TypeSubarray([]int{4, 5}, []int{rng.IntN(4) + 1, rng.IntN(5) + 1}, []int{0, 0}, OrderC+rng.IntN(2), old, false)
	default:
		d, err = TypeDup(old)
	}
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// span returns the offsets [lo, hi) that count elements of d touch.
func span(d *Datatype, count int) (lo, hi int) {
	lo, hi = 0, 0
	first := true
	d.eachBlock(0, count, func(off, n int) {
		if first || off < lo {
			lo = off
		}
		if first || off+n > hi {
			hi = off + n
		}
		first = false
	})
	return lo, hi
}

func TestDatatypePackProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 3000 {
		d := randomType(t, rng, 3)
		count := rng.IntN(4)
		lo, hi := span(d, count)
		lo, hi = min(lo, 0), max(hi, 0)
		mem := make([]byte, hi-lo+16)
		for i := range mem {
			mem[i] = byte(rng.IntN(256))
		}
		p := unsafe.Pointer(&mem[8-lo])
		want := refPack(d, p, count)
		if len(want) != count*d.Size() {
			t.Fatalf("iter %d: reference packs %d bytes, size says %d", iter, len(want), count*d.Size())
		}
		got := make([]byte, count*d.Size())
		if n := d.Pack(got, p, count); n != len(got) || !bytes.Equal(got, want) {
			t.Fatalf("iter %d: Pack differs from the type map (%d bytes)", iter, n)
		}
		// Unpack into a zeroed buffer and pack again.
		mem2 := make([]byte, len(mem))
		p2 := unsafe.Add(unsafe.Pointer(&mem2[0]), uintptr(p)-uintptr(unsafe.Pointer(&mem[0])))
		if n := d.Unpack(p2, got, count); n != len(got) {
			t.Fatalf("iter %d: Unpack consumed %d of %d", iter, n, len(got))
		}
		again := make([]byte, len(got))
		d.Pack(again, p2, count)
		if !bytes.Equal(again, got) {
			t.Fatalf("iter %d: pack(unpack(x)) != x", iter)
		}
		// Bytes outside the type map stay untouched (no overlap case).
		// external32 round trip.
		ext := make([]byte, count*d.ExternalSize())
		if n := d.PackExternal(ext, p, count); n != len(ext) {
			t.Fatalf("iter %d: PackExternal wrote %d of %d", iter, n, len(ext))
		}
		mem3 := make([]byte, len(mem))
		p3 := unsafe.Add(unsafe.Pointer(&mem3[0]), uintptr(p)-uintptr(unsafe.Pointer(&mem[0])))
		d.UnpackExternal(p3, ext, count)
		d.Pack(again, p3, count)
		if d.Elem == nil || d.Elem.basic != BasicLongDouble {
			// Types with MPI_LONG etc. narrow; our leaves all round-trip.
			if !bytes.Equal(again, got) {
				t.Fatalf("iter %d: external32 round trip differs", iter)
			}
		}
		// Elements of the whole message.
		if e, ok := d.Elements(len(got)); !ok || e != count*d.nelems {
			t.Fatalf("iter %d: Elements(%d) = %d, %v", iter, len(got), e, ok)
		}
	}
}

func TestDatatypeVectorBounds(t *testing.T) {
	di := pre(t, TypeInt)
	v, err := TypeVector(3, 2, 4, di, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if v.Size() != 24 || v.LB() != 0 || v.Extent() != 40 || v.TrueExtent() != 40 || v.IsContiguous() {
		t.Fatalf("vector: size %d lb %d extent %d", v.Size(), v.LB(), v.Extent())
	}
	if len(v.prog) != 1 || v.prog[0].count != 3 || v.prog[0].n != 8 {
		t.Fatalf("vector program %+v", v.prog)
	}
	neg, _ := TypeVector(3, 1, -2, di, false, false)
	if neg.LB() != -16 || neg.Extent() != 20 || neg.TrueLB() != -16 {
		t.Fatalf("negative stride: lb %d extent %d", neg.LB(), neg.Extent())
	}
	big, _ := TypeVector(1<<20, 1, 2, pre(t, TypeDouble), false, false)
	if len(big.prog) != 1 || big.prog[0].body != nil {
		t.Fatalf("1M vector is not one strided leaf: %d loops", len(big.prog))
	}
	c, _ := TypeContiguous(10, di, false)
	if !c.IsContiguous() || c.Elem != di {
		t.Fatal("contiguous of int is not contiguous")
	}
}

func TestDatatypeStructPaddingAndMarkers(t *testing.T) {
	s, err := TypeStruct([]int{1, 1}, []int{0, 8}, []*Datatype{pre(t, TypeDouble), pre(t, TypeChar)}, false)
	if err != nil {
		t.Fatal(err)
	}
	if s.Size() != 9 || s.Extent() != 16 || s.TrueExtent() != 9 {
		t.Fatalf("struct {double; char}: size %d extent %d", s.Size(), s.Extent())
	}
	m, _ := TypeStruct([]int{1, 1, 1}, []int{-4, 0, 20}, []*Datatype{pre(t, TypeLB), pre(t, TypeInt), pre(t, TypeUB)}, false)
	if m.LB() != -4 || m.Extent() != 24 || m.Size() != 4 {
		t.Fatalf("LB/UB markers: lb %d extent %d", m.LB(), m.Extent())
	}
	// Markers are sticky: a contiguous of m keeps lb from the marker.
	c, _ := TypeContiguous(2, m, false)
	if c.LB() != -4 || c.Extent() != 48 {
		t.Fatalf("contiguous of marked type: lb %d extent %d", c.LB(), c.Extent())
	}
	r, _ := TypeResized(pre(t, TypeInt), -2, 10, false)
	if r.LB() != -2 || r.Extent() != 10 || r.TrueLB() != 0 || r.IsContiguous() {
		t.Fatalf("resized: %d %d", r.LB(), r.Extent())
	}
}

func TestDatatypeSubarrayDarray(t *testing.T) {
	di := pre(t, TypeInt)
	// 4x5x6 ints, subarray 2x3x2 at (1,1,3), C order.
	s, err := TypeSubarray([]int{4, 5, 6}, []int{2, 3, 2}, []int{1, 1, 3}, OrderC, di, false)
	if err != nil {
		t.Fatal(err)
	}
	if s.Size() != 48 || s.LB() != 0 || s.Extent() != 480 {
		t.Fatalf("subarray: size %d lb %d extent %d", s.Size(), s.LB(), s.Extent())
	}
	arr := make([]int32, 120)
	for i := range arr {
		arr[i] = int32(i)
	}
	out := make([]int32, 12)
	s.Pack(unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), 48), unsafe.Pointer(&arr[0]), 1)
	k := 0
	for i := 1; i < 3; i++ {
		for j := 1; j < 4; j++ {
			for l := 3; l < 5; l++ {
				if out[k] != int32(i*30+j*6+l) {
					t.Fatalf("subarray element %d = %d", k, out[k])
				}
				k++
			}
		}
	}
	f, _ := TypeSubarray([]int{4, 5}, []int{2, 2}, []int{1, 3}, OrderFortran, di, false)
	out2 := make([]int32, 4)
	f.Pack(unsafe.Slice((*byte)(unsafe.Pointer(&out2[0])), 16), unsafe.Pointer(&arr[0]), 1)
	if want := []int32{13, 14, 17, 18}; out2[0] != want[0] || out2[1] != want[1] || out2[2] != want[2] || out2[3] != want[3] {
		t.Fatalf("fortran subarray %v, want %v", out2, want)
	}
	// darray: 8 elements cyclic(2) over 2 processes, rank 1 owns 2,3,6,7.
	d, err := TypeDarray(2, 1, []int{8}, []int{DistributeCyclic}, []int{2}, []int{2}, OrderC, di, false)
	if err != nil {
		t.Fatal(err)
	}
	out3 := make([]int32, 4)
	d.Pack(unsafe.Slice((*byte)(unsafe.Pointer(&out3[0])), 16), unsafe.Pointer(&arr[0]), 1)
	if out3[0] != 2 || out3[1] != 3 || out3[2] != 6 || out3[3] != 7 || d.Extent() != 32 {
		t.Fatalf("darray cyclic: %v extent %d", out3, d.Extent())
	}
	// Every element of a 2-D block x cyclic darray is owned exactly once.
	seen := make([]int, 7*9)
	for r := range 6 {
		dd, err := TypeDarray(6, r, []int{7, 9}, []int{DistributeBlock, DistributeCyclic}, []int{DistributeDfltDarg, 2}, []int{2, 3}, OrderC, di, false)
		if err != nil {
			t.Fatal(err)
		}
		dd.eachBlock(0, 1, func(off, n int) {
			for b := off; b < off+n; b += 4 {
				seen[b/4]++
			}
		})
	}
	for i, n := range seen {
		if n != 1 {
			t.Fatalf("darray element %d owned %d times", i, n)
		}
	}
	if _, err := TypeSubarray([]int{4}, []int{5}, []int{0}, OrderC, di, false); err == nil {
		t.Fatal("subsize larger than size accepted")
	}
}

func TestDatatypeElementsPartial(t *testing.T) {
	s, _ := TypeStruct([]int{2, 1}, []int{0, 8}, []*Datatype{pre(t, TypeInt), pre(t, TypeDouble)}, false)
	for _, c := range []struct {
		n, e int
		ok   bool
	}{{0, 0, true}, {4, 1, true}, {8, 2, true}, {10, 0, false}, {16, 3, true}, {20, 4, true}, {32, 6, true}} {
		e, ok := s.Elements(c.n)
		if ok != c.ok || ok && e != c.e {
			t.Errorf("Elements(%d) = %d, %v; want %d, %v", c.n, e, ok, c.e, c.ok)
		}
	}
	if e, ok := pre(t, TypeDoubleInt).Elements(8); !ok || e != 1 {
		t.Errorf("DOUBLE_INT partial: %d %v", e, ok)
	}
}

// ElementBytes is the inverse of Elements: k basic elements take bytes
// that Elements counts as k again, for random types and for k beyond 2^31.
func TestDatatypeElementBytes(t *testing.T) {
	s, _ := TypeStruct([]int{2, 1}, []int{0, 8}, []*Datatype{pre(t, TypeInt), pre(t, TypeDouble)}, false)
	for k, want := range []int64{0, 4, 8, 16, 20, 24, 32} {
		if n, ok := s.ElementBytes(int64(k)); !ok || n != want {
			t.Errorf("struct ElementBytes(%d) = %d, %v; want %d", k, n, ok, want)
		}
	}
	if n, ok := pre(t, TypeDoubleInt).ElementBytes(3); !ok || n != 12+8 {
		t.Errorf("DOUBLE_INT ElementBytes(3) = %d %v", n, ok)
	}
	if n, ok := pre(t, TypeInt).ElementBytes(1<<31 + 1); !ok || n != 4<<31+4 {
		t.Errorf("INT ElementBytes(2^31+1) = %d %v", n, ok)
	}
	if _, ok := pre(t, TypeInt).ElementBytes(1 << 62); ok {
		t.Error("INT ElementBytes(2^62) fits in 63 bits?")
	}
	if n, ok := pre(t, TypeByte).ElementBytes(1<<63 - 1); !ok || n != 1<<63-1 {
		t.Errorf("BYTE ElementBytes(2^63-1) = %d %v", n, ok)
	}
	rng := rand.New(rand.NewPCG(24, 5))
	for range 300 {
		d := randomType(t, rng, 3)
		if d.nelems == 0 {
			continue
		}
		for _, k := range []int64{0, 1, int64(rng.IntN(3 * d.nelems)), 1<<31 + int64(rng.IntN(d.nelems))} {
			n, ok := d.ElementBytes(k)
			if !ok {
				t.Fatalf("ElementBytes(%d) of a %d-byte type failed", k, d.size)
			}
			if e, ok := d.Elements(int(n)); !ok || int64(e) != k {
				t.Fatalf("Elements(ElementBytes(%d) = %d) = %d, %v", k, n, e, ok)
			}
		}
	}
}

func TestDatatypeExternal32(t *testing.T) {
	v := []int64{-2, 300}
	out := make([]byte, 8)
	n := pre(t, TypeLong).PackExternal(out, unsafe.Pointer(&v[0]), 2)
	if n != 8 || !bytes.Equal(out, []byte{0xff, 0xff, 0xff, 0xfe, 0, 0, 1, 0x2c}) {
		t.Fatalf("MPI_LONG external32: % x", out)
	}
	back := make([]int64, 2)
	pre(t, TypeLong).UnpackExternal(unsafe.Pointer(&back[0]), out, 2)
	if back[0] != -2 || back[1] != 300 {
		t.Fatalf("back %v", back)
	}
	f := []float64{1.5}
	out8 := make([]byte, 8)
	pre(t, TypeDouble).PackExternal(out8, unsafe.Pointer(&f[0]), 1)
	if !bytes.Equal(out8, []byte{0x3f, 0xf8, 0, 0, 0, 0, 0, 0}) {
		t.Fatalf("double external32: % x", out8)
	}
	// long double 1.5 (x87) is binary128 0x3fff8000...
	ld := make([]byte, 16)
	ld[7], ld[8], ld[9] = 0xc0, 0xff, 0x3f
	e := make([]byte, 16)
	pre(t, TypeLongDouble).PackExternal(e, unsafe.Pointer(&ld[0]), 1)
	if !bytes.Equal(e[:3], []byte{0x3f, 0xff, 0x80}) {
		t.Fatalf("long double external32: % x", e)
	}
	ld2 := make([]byte, 16)
	pre(t, TypeLongDouble).UnpackExternal(unsafe.Pointer(&ld2[0]), e, 1)
	if !bytes.Equal(ld2, ld) {
		t.Fatalf("long double round trip: % x", ld2)
	}
}

func TestUserOpReduceLocal(t *testing.T) {
	di := pre(t, TypeInt)
	v, _ := TypeVector(2, 1, 2, di, false, false)
	calls := 0
	h := AddUserOp(&UserOp{Fn: func(in, inout uintptr, count int, dt Handle) {
		calls++
		for i := range count * 3 {
			a := (*int32)(unsafe.Add(addrPtr(in), 4*i))
			b := (*int32)(unsafe.Add(addrPtr(inout), 4*i))
			*b = *a*10 + *b // non-commutative
		}
	}})
	defer FreeOp(h)
	if h.IsCommutative() || LookupUserOp(h) == nil {
		t.Fatal("user op flags")
	}
	in := []int32{1, 2, 3}
	io := []int32{4, 5, 6}
	b := func(s []int32) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), 12) }
	if err := ReduceLocal(h, v, b(in), b(io), 1); err != nil {
		t.Fatal(err)
	}
	if calls != 1 || io[0] != 14 || io[2] != 36 {
		t.Fatalf("user op: calls %d io %v", calls, io)
	}
	if err := FreeOp(h); err != nil {
		t.Fatal(err)
	}
	if err := FreeOp(h); err == nil {
		t.Fatal("double free accepted")
	}
}

// Vector of 1M doubles: pack throughput (compare with bench/pack.c).
func BenchmarkPackVector(b *testing.B) {
	dd, _ := PredefinedDatatype(TypeDouble)
	v, _ := TypeVector(1<<20, 1, 2, dd, false, false)
	mem := make([]float64, 2<<20)
	out := make([]byte, 8<<20)
	b.SetBytes(8 << 20)
	for b.Loop() {
		v.Pack(out, unsafe.Pointer(&mem[0]), 1)
	}
}

// addrPtr turns an address the runtime handed out as uintptr back into a
// pointer (what capi's C shim does).
func addrPtr(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }
