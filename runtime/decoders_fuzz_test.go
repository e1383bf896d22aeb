package mpirt

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
	"unsafe"

	"gmpi/internal/fuzzseed"
)

// FuzzLocation: the location card a process publishes through the PMI
// key-value space (DecodeLocation) and the data representation it
// carries (ParseRep) accept what Encode wrote and fail on anything else
// with an error, never a panic.
func FuzzLocation(f *testing.F) {
	native := NativeRep().Encode()
	fuzzseed.Add(f,
		[]any{"node1"},
		[]any{Location{Host: "h", Site: "s", Machine: "m", VMPI: "v"}.Encode()},
		[]any{Location{Host: "h", Site: "s", Machine: "m", Rep: native}.Encode()},
		[]any{Location{Host: "h", Rep: "be,binary128,long8,ptr8"}.Encode()},
		[]any{"h\ns"},
		[]any{"h\ns\nm\nv\nle,x87,long9,ptr8"},
		[]any{"h\ns\nm\nv\nmi,x87,long8,ptr8\nextra"},
		[]any{"h\n\n\n\nle,unknown,long4,ptr4"},
		[]any{"h\n\n\n\n,,,"},
	)
	f.Fuzz(func(t *testing.T, s string) {
		l, err := DecodeLocation(s)
		if err != nil {
			return
		}
		if strings.Contains(s, "\n") && l.Encode() != s && l.Encode() != s+"\n" {
			t.Fatalf("%q decoded to %+v, which encodes to %q", s, l, l.Encode())
		}
		if l.Rep == "" {
			return
		}
		r, err := ParseRep(l.Rep)
		if err != nil {
			return
		}
		if back, err := ParseRep(r.Encode()); err != nil || back != r {
			t.Fatalf("representation %q parsed to %v, which does not round-trip (%v)", l.Rep, r, err)
		}
	})
}

// fakeRoot is the other job's root as rootHello sees it: it sent in.
type fakeRoot struct{ in []byte }

func (r *fakeRoot) Send(b []byte) error   { return nil }
func (r *fakeRoot) Recv() ([]byte, error) { return r.in, nil }

func helloFrom(role byte, cards ...string) []byte {
	b := append([]byte{role}, bytes.Repeat([]byte{7}, 32)...)
	var blobs [][]byte
	for _, c := range cards {
		blobs = append(blobs, []byte(c))
	}
	b = appendBlobs(b, blobs)
	return appendBlobs(b, [][]byte{[]byte("job-1")})
}

// FuzzRootHello: the hello the other job's root sends through an
// MPI_Open_port connection (its role, nonce and cards). Whatever it
// holds, rootHello returns an error or a link description that
// decodeLink reads back with one card per process, without panicking or
// allocating more than the message holds.
func FuzzRootHello(f *testing.F) {
	long := binary.LittleEndian.AppendUint32(helloFrom(RoleConnect), 1)
	long = binary.LittleEndian.AppendUint32(long[:len(long)-8], 0xffffffff)
	fuzzseed.Add(f,
		[]any{uint8(RoleAccept), helloFrom(RoleConnect, "h0\n127.0.0.1:5000")},
		[]any{uint8(RoleConnect), helloFrom(RoleAccept, "h0\n127.0.0.1:5000", "h1\n[::1]:6000")},
		[]any{uint8(RoleEither), helloFrom(RoleEither, "h0\n127.0.0.1:5000")},
		[]any{uint8(RoleAccept), helloFrom(RoleAccept, "h0\nc")},
		[]any{uint8(RoleAccept), helloFrom(RoleConnect, "no newline")},
		[]any{uint8(RoleAccept), helloFrom(RoleConnect)},
		[]any{uint8(RoleAccept), helloFrom(9, "h\nc")},
		[]any{uint8(RoleAccept), []byte{1, 2, 3}},
		[]any{uint8(RoleAccept), long},
		[]any{uint8(RoleAccept), append(helloFrom(RoleConnect, "h\nc"), 0)},
	)
	f.Fuzz(func(t *testing.T, role uint8, in []byte) {
		r := int(role % 3)
		out, err := rootHello(&fakeRoot{in: in}, r, []byte("key"), [][]byte{[]byte("me\ncard")}, "job-0")
		if err != nil {
			return
		}
		lk, err := decodeLink(out)
		if err != nil {
			t.Fatalf("rootHello's output does not decode: %v", err)
		}
		if len(lk.cards) == 0 || len(lk.cards) != len(lk.hosts) || len(lk.cards) > len(in)/4 {
			t.Fatalf("%d cards, %d hosts from %d bytes", len(lk.cards), len(lk.hosts), len(in))
		}
	})
}

// FuzzDecodeLink: the link description a root broadcasts to its group.
func FuzzDecodeLink(f *testing.F) {
	good, _ := rootHello(&fakeRoot{in: helloFrom(RoleConnect, "h0\nc0", "h1\nc1")}, RoleAccept, []byte("k"), [][]byte{[]byte("me\ncard")}, "job-0")
	fuzzseed.Add(f,
		[]any{good},
		[]any{good[:len(good)-1]},
		[]any{[]byte{1}},
		[]any{[]byte{}},
		[]any{append([]byte{0}, appendBlobs(nil, [][]byte{[]byte("s"), []byte("12345678")})...)},
	)
	f.Fuzz(func(t *testing.T, in []byte) {
		lk, err := decodeLink(in)
		if err != nil {
			return
		}
		if len(lk.cards) != len(lk.hosts) || len(lk.cards) == 0 || len(lk.tag) != 8 {
			t.Fatalf("accepted %d cards, %d hosts, tag of %d bytes", len(lk.cards), len(lk.hosts), len(lk.tag))
		}
	})
}

// FuzzUnpackExternal: external32 data of any length unpacked into count
// elements of a predefined or derived type reads only the input it was
// given and writes only the elements' bytes.
func FuzzUnpackExternal(f *testing.F) {
	types := PredefinedDatatypes()
	dd, _ := PredefinedDatatype(TypeDouble)
	di, _ := PredefinedDatatype(TypeInt)
	dc, _ := PredefinedDatatype(TypeChar)
	ld, _ := PredefinedDatatype(TypeLongDouble)
	st, _ := TypeStruct([]int{1, 2, 1}, []int{0, 8, 24}, []*Datatype{dc, dd, di}, false)
	vec, _ := TypeVector(3, 1, 2, st, false, false)
	types = append(types, st, vec)
	idx := func(d *Datatype) uint8 {
		for i, x := range types {
			if x == d {
				return uint8(i)
			}
		}
		return 0
	}
	fuzzseed.Add(f,
		[]any{idx(dd), uint16(2), []byte{0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0xc0, 0, 0, 0, 0, 0, 0, 0}},
		[]any{idx(di), uint16(3), []byte{0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0x80, 0, 0, 0}},
		[]any{idx(ld), uint16(1), bytes.Repeat([]byte{0x7f}, 16)},
		[]any{idx(st), uint16(2), bytes.Repeat([]byte{1, 2, 3}, 14)},
		[]any{idx(vec), uint16(1), bytes.Repeat([]byte{9}, 63)},
		[]any{idx(dd), uint16(5), []byte{1, 2, 3}},
		[]any{idx(di), uint16(0), []byte{}},
	)
	f.Fuzz(func(t *testing.T, ti uint8, count uint16, in []byte) {
		d := types[int(ti)%len(types)]
		n := int(count % 32)
		if len(in) < n*d.ExternalSize() {
			n = len(in) / max(d.ExternalSize(), 1) // the C layer checks the length
		}
		span := max(n*d.Extent(), 0) + 64
		mem := make([]byte, span+64)
		for i := range mem {
			mem[i] = 0xa5
		}
		used := d.UnpackExternal(unsafe.Pointer(&mem[32]), in, n)
		if used < 0 || used > len(in) {
			t.Fatalf("used %d of %d bytes", used, len(in))
		}
		for i := 0; i < 32; i++ {
			if mem[i] != 0xa5 {
				t.Fatalf("wrote before the buffer")
			}
		}
		for i := 32 + max(n*d.Extent(), 0); i < len(mem); i++ {
			if mem[i] != 0xa5 && n > 0 {
				t.Fatalf("wrote past the last element (%d bytes of %d elements of extent %d)", i-32, n, d.Extent())
			}
		}
	})
}

// FuzzPackHeader: the representation header at the start of a buffer
// MPI_Pack wrote on another machine (decodeRep) is accepted only when it
// is one encodeRep writes, and never panics on a short or odd buffer.
func FuzzPackHeader(f *testing.F) {
	native := NativeRep()
	h := encodeRep(&native)
	other := Rep{BigEndian: true, LongDouble: LongDoubleBinary128, Long: 4, Wchar: 2}
	o := encodeRep(&other)
	fuzzseed.Add(f,
		[]any{append(append([]byte("gmpiPK"), h[:]...), 1, 2, 3)},
		[]any{append([]byte("gmpiPK"), o[:]...)},
		[]any{[]byte("gmpiPK\x02\x00\x08\x04")},
		[]any{[]byte("gmpiPK\x00\xff\x08\x04")},
		[]any{[]byte("gmpiPK\x00\x00\x05\x04")},
		[]any{[]byte("gmpiPK\x00")},
		[]any{[]byte("notaheaderatall")},
		[]any{[]byte{}},
	)
	f.Fuzz(func(t *testing.T, buf []byte) {
		r, ok := decodeRep(buf)
		if !ok {
			return
		}
		e := encodeRep(&r)
		if len(buf) < PackHeaderSize || string(buf[:6]) != "gmpiPK" || string(buf[6:PackHeaderSize]) != string(e[:]) {
			t.Fatalf("accepted %q as %+v, which encodes to %q", buf, r, e)
		}
	})
}
