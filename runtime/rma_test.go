package mpirt

import (
	"testing"
	"unsafe"
)

func TestTargetSegs(t *testing.T) {
	vec, err := TypeVector(3, 2, 4, pre(t, TypeInt), false, false) // ints 0,1 4,5 8,9
	if err != nil {
		t.Fatal(err)
	}
	vec.Commit()
	var local [256]byte // larger than any span below (checkptr under -race)
	base := unsafe.Pointer(&local[0])
	packed := targetSegs(vec, 2, base, true, nil)
	// Element 1 starts at extent 10 ints; its first block follows
	// element 0's last one (ints 8,9 then 10,11): merged when the local
	// side is contiguous too.
	wantOff := []int64{0, 16, 32, 56, 72}
	wantN := []int{8, 8, 16, 8, 8}
	if len(packed) != len(wantOff) {
		t.Fatalf("packed segments %+v", packed)
	}
	pos := 0
	for i, s := range packed {
		if s.off != wantOff[i] || s.n != wantN[i] || s.loc != unsafe.Add(base, pos) {
			t.Errorf("packed segment %d = %+v, want off %d n %d at %d", i, s, wantOff[i], wantN[i], pos)
		}
		pos += s.n
	}
	// Laid out like the target: local offsets equal target offsets.
	for _, s := range targetSegs(vec, 2, base, false, nil) {
		if uintptr(s.loc)-uintptr(base) != uintptr(s.off) {
			t.Errorf("layout segment %+v not at its offset", s)
		}
	}
	var one [1]rmaSeg
	c := targetSegs(pre(t, TypeInt), 5, base, true, one[:])
	if len(c) != 1 || c[0].n != 20 || &c[0] != &one[0] {
		t.Errorf("contiguous segments %+v", c)
	}
	if rmaSpan(vec, 2) != (10+10)*4 || rmaSpan(vec, 0) != 0 {
		t.Errorf("span %d", rmaSpan(vec, 2))
	}
}

func TestWinLayout(t *testing.T) {
	sizes := []int64{10, 0, 4097}
	l := newWinLayout(3, FlavorShared, sizes, false)
	if l.parts[1] != l.parts[0]+10 || l.parts[2] != l.parts[1] || l.data%pageSize != 0 || l.total < l.parts[2]+4097 {
		t.Errorf("contiguous shared layout %+v", l)
	}
	l = newWinLayout(3, FlavorShared, sizes, true)
	for r, p := range l.parts {
		if p%pageSize != 0 {
			t.Errorf("noncontiguous part %d at %d", r, p)
		}
	}
	l = newWinLayout(4, FlavorDynamic, nil, false)
	if l.regions+4*maxRegions*regionSize > l.data || l.complete+16*4 > l.regions || l.parts != nil {
		t.Errorf("dynamic layout %+v", l)
	}
}

// TestCopyPieces: copyPieces is copy for sizes around its piece, with
// and without overlap in either direction.
func TestCopyPieces(t *testing.T) {
	const max = 3*copyPiece + 77
	buf := make([]byte, 2*max+4096)
	fill := func() {
		for i := range buf {
			buf[i] = byte(i*7 + i/251)
		}
	}
	for _, n := range []int{0, 1, copyPiece - 1, copyPiece, copyPiece + 1, 2 * copyPiece, max} {
		for _, c := range []struct{ d, s int }{{max + 64, 3}, {3, max + 64}, {1000, 0}, {0, 1000}, {5, 5}} {
			fill()
			want := append([]byte(nil), buf...)
			copy(want[c.d:c.d+n], want[c.s:c.s+n])
			copyPieces(buf[c.d:c.d+n], buf[c.s:c.s+n])
			if string(buf) != string(want) {
				t.Errorf("n %d dst %d src %d: wrong bytes", n, c.d, c.s)
			}
		}
	}
}
