package mpirt

import (
	"encoding/binary"
	"fmt"
	goruntime "runtime"
	"strconv"
	"strings"
)

// Rep is a process's data representation: what a receiver must know to
// read the bytes of a sender on another kind of machine (issue 21). Every
// process publishes its own in its business card (Location.Rep); a pair
// whose representations are equal moves bytes untouched, a pair that
// differs converts at the receiver, by the type map of the receive
// datatype (hetero.go).
type Rep struct {
	BigEndian bool
	// LongDouble is the format of C long double.
	LongDouble LongDoubleFormat
	// Long and Wchar are sizeof(long) and sizeof(wchar_t) in bytes: the C
	// types whose size differs between the ABIs we know.
	Long, Wchar int
}

// LongDoubleFormat is the layout of C long double.
type LongDoubleFormat uint8

const (
	// LongDoubleX87 is the x87 80-bit extended format (64-bit significand
	// with an explicit integer bit) in 16 bytes of storage (x86-64).
	LongDoubleX87 LongDoubleFormat = iota + 1
	// LongDoubleBinary128 is IEEE binary128 (s390x, aarch64).
	LongDoubleBinary128
)

var ldNames = map[LongDoubleFormat]string{LongDoubleX87: "x87", LongDoubleBinary128: "binary128"}

// archReps are the representations of the architectures we build for,
// by GOARCH and by the names a grid file uses (`arch`).
var archReps = map[string]Rep{
	"amd64":   {LongDouble: LongDoubleX87, Long: 8, Wchar: 4},
	"x86_64":  {LongDouble: LongDoubleX87, Long: 8, Wchar: 4},
	"s390x":   {BigEndian: true, LongDouble: LongDoubleBinary128, Long: 8, Wchar: 4},
	"arm64":   {LongDouble: LongDoubleBinary128, Long: 8, Wchar: 4},
	"aarch64": {LongDouble: LongDoubleBinary128, Long: 8, Wchar: 4},
}

// ArchRep returns the representation of an architecture named as GOARCH
// or as uname -m prints it.
func ArchRep(arch string) (Rep, bool) {
	r, ok := archReps[arch]
	return r, ok
}

// NativeRep is the representation of the machine this library was built
// for.
func NativeRep() Rep {
	if r, ok := archReps[goruntime.GOARCH]; ok {
		return r
	}
	// Unknown architectures say what they can without cgo: the byte
	// order and LP64; long double stays unknown (0), so a pair with such
	// a process converts nothing of it and says so.
	big := binary.NativeEndian.Uint16([]byte{0, 1}) == 1
	return Rep{BigEndian: big, Long: 8, Wchar: 4}
}

// Encode is the form a Rep takes in the business card, e.g.
// "le,x87,long8,wchar4".
func (r Rep) Encode() string {
	order := "le"
	if r.BigEndian {
		order = "be"
	}
	ld := ldNames[r.LongDouble]
	if ld == "" {
		ld = "unknown"
	}
	return fmt.Sprintf("%s,%s,long%d,wchar%d", order, ld, r.Long, r.Wchar)
}

func (r Rep) String() string { return r.Encode() }

// ParseRep reads what Encode wrote. Unknown formats or sizes other than
// the ones conversion handles are errors: a peer we could not convert
// for must not be taken for one we can.
func ParseRep(s string) (Rep, error) {
	f := strings.Split(s, ",")
	if len(f) != 4 {
		return Rep{}, fmt.Errorf("malformed data representation %q", s)
	}
	var r Rep
	switch f[0] {
	case "le":
	case "be":
		r.BigEndian = true
	default:
		return Rep{}, fmt.Errorf("data representation %q: unknown byte order %q", s, f[0])
	}
	switch f[1] {
	case "x87":
		r.LongDouble = LongDoubleX87
	case "binary128":
		r.LongDouble = LongDoubleBinary128
	case "unknown":
	default:
		return Rep{}, fmt.Errorf("data representation %q: unknown long double format %q", s, f[1])
	}
	size := func(field, prefix string, allowed ...int) (int, error) {
		v, err := strconv.Atoi(strings.TrimPrefix(field, prefix))
		if err == nil && strings.HasPrefix(field, prefix) {
			for _, a := range allowed {
				if v == a {
					return v, nil
				}
			}
		}
		return 0, fmt.Errorf("data representation %q: bad %s size %q", s, prefix, field)
	}
	var err error
	if r.Long, err = size(f[2], "long", 4, 8); err != nil {
		return Rep{}, err
	}
	if r.Wchar, err = size(f[3], "wchar", 2, 4); err != nil {
		return Rep{}, err
	}
	return r, nil
}
