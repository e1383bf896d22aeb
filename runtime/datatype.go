package mpirt

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Basic is the machine representation of the elements a datatype is made
// of: it selects the reduction kernel. Two MPI types with the same layout
// share a Basic (MPI_INT and MPI_INTEGER are both BasicInt32); what the
// standard allows to do with them is their TypeGroup.
type Basic uint8

const (
	BasicNone Basic = iota // no elements (MPI_LB, MPI_UB) or mixed elements
	BasicInt8
	BasicInt16
	BasicInt32
	BasicInt64
	BasicUint8
	BasicUint16
	BasicUint32
	BasicUint64
	BasicFloat16    // IEEE binary16 (MPIX_C_FLOAT16)
	BasicFloat32    // float
	BasicFloat64    // double
	BasicLongDouble // x87 80-bit extended in 16 bytes (C long double)
	BasicFloat128   // IEEE binary128 in 16 bytes (Fortran REAL*16)
	BasicComplex64  // float _Complex
	BasicComplex128 // double _Complex
	BasicLongDoubleComplex
	BasicComplex256 // two binary128 (Fortran COMPLEX*32)
	BasicBool       // C _Bool, C++ bool: one byte, 0 or 1
	BasicLogical    // Fortran LOGICAL: a 4-byte int, nonzero is true
	BasicByte       // MPI_BYTE, MPI_PACKED: uninterpreted bytes
	BasicChar       // C char (signed on x86-64), Fortran CHARACTER
	BasicWchar      // wchar_t (4 bytes)
	// Pair types for MINLOC/MAXLOC: {value; index} laid out as the C struct.
	BasicFloatInt      // {float; int}
	BasicDoubleInt     // {double; int}, extent 16
	BasicLongInt       // {long; int}, extent 16
	BasicShortInt      // {short; int}, extent 8
	Basic2Int          // {int; int} (also MPI_2INTEGER)
	BasicLongDoubleInt // {long double; int}, extent 32
	Basic2Float        // {float; float} (MPI_2REAL)
	Basic2Double       // {double; double} (MPI_2DOUBLE_PRECISION)
	basicCount
)

var basicNames = [basicCount]string{
	BasicNone: "none", BasicInt8: "int8", BasicInt16: "int16", BasicInt32: "int32",
	BasicInt64: "int64", BasicUint8: "uint8", BasicUint16: "uint16", BasicUint32: "uint32",
	BasicUint64: "uint64", BasicFloat16: "float16", BasicFloat32: "float32",
	BasicFloat64: "float64", BasicLongDouble: "long double", BasicFloat128: "float128",
	BasicComplex64: "complex64", BasicComplex128: "complex128",
	BasicLongDoubleComplex: "long double complex", BasicComplex256: "complex256",
	BasicBool: "bool", BasicLogical: "logical", BasicByte: "byte", BasicChar: "char",
	BasicWchar: "wchar", BasicFloatInt: "float-int", BasicDoubleInt: "double-int",
	BasicLongInt: "long-int", BasicShortInt: "short-int", Basic2Int: "int-int",
	BasicLongDoubleInt: "long double-int", Basic2Float: "float-float",
	Basic2Double: "double-double",
}

func (b Basic) String() string {
	if b < basicCount {
		return basicNames[b]
	}
	return fmt.Sprintf("basic %d", uint8(b))
}

// IsPair reports whether b is a {value; index} type for MINLOC/MAXLOC.
func (b Basic) IsPair() bool { return b >= BasicFloatInt && b < basicCount }

// TypeGroup is the standard's classification of predefined types that
// says which predefined reduction operations apply (MPI-4.1 §6.9.2).
type TypeGroup uint8

const (
	GroupNone           TypeGroup = iota // no reduction but MPI_REPLACE/MPI_NO_OP
	GroupCInteger                        // MPI_INT, MPI_UINT8_T, ... (and MPI_CHAR, as MPICH allows)
	GroupFortranInteger                  // MPI_INTEGER, MPI_INTEGERn
	GroupFloat                           // MPI_FLOAT, MPI_REAL, MPI_LONG_DOUBLE, ...
	GroupLogical                         // MPI_LOGICAL, MPI_C_BOOL, MPI_CXX_BOOL
	GroupComplex                         // MPI_C_*COMPLEX, MPI_COMPLEX, ...
	GroupByte                            // MPI_BYTE
	GroupMultiLanguage                   // MPI_AINT, MPI_OFFSET, MPI_COUNT
	GroupPair                            // MPI_DOUBLE_INT, MPI_2INT, ...
)

// Block is a contiguous run of bytes in a datatype's type map, at byte
// offset Off from the buffer address, Len bytes long.
type Block struct {
	Off int
	Len int
}

// Datatype is the runtime's compiled form of an MPI datatype: one element
// of it is the bytes Blocks describe, and count elements sit Extent()
// bytes apart. Predefined datatypes are built at init and never change;
// derived ones (contiguous, vector, indexed, struct, resized, ...) are
// built by their constructors, which must fill every field below
// consistently, and are immutable once committed.
type Datatype struct {
	// Handle is the MPI handle (builtin for predefined types).
	Handle Handle
	// name is "MPI_INT" for predefined types, or what MPI_Type_set_name
	// gave; guarded by nameMu.
	nameMu sync.Mutex
	name   string

	size       int  // bytes of data in one element
	lb, extent int  // lower bound and extent, including MPI_LB/MPI_UB and resizing
	trueLB     int  // lowest data byte
	trueExtent int  // span from lowest to highest data byte
	contiguous bool // one Block {0, size} and extent == size
	predefined bool
	alignment  int // C alignment of one element, for struct layout
	committed  bool

	// Blocks are the data bytes of one element of a predefined type, in
	// type-map order. Empty for size-0 types and nil for derived types,
	// whose data is described by prog.
	Blocks []Block

	// prog is the compiled form of one element's data bytes (dtloop.go).
	prog prog
	// eprog covers the Elem elements of one element: its blocks span whole
	// Elem extents (padding of pair types included), so a reduction kernel
	// runs once per leaf block. Nil when Elem is nil.
	eprog prog

	// Elem is the predefined type every element of this type is made of,
	// nil when the type mixes predefined types (reductions then need a
	// user op). For a predefined type Elem is the type itself.
	Elem *Datatype

	// nelems is the number of basic elements in one element
	// (MPI_Get_elements); a pair type counts two.
	nelems int
	// extSize is the size of one element in external32.
	extSize int
	// hplan is the conversion plan last compiled for this type
	// (hplan.go).
	hplan atomic.Pointer[hplan]
	// lbKind and ubKind say where lb and ub come from: no entry, data, or
	// an explicit MPI_LB/MPI_UB marker (also set by MPI_Type_create_resized),
	// which is sticky through constructors.
	lbKind, ubKind boundKind
	// parts are the constructor's children in type-map order (derived
	// types only): what Get_elements and external32 walk.
	parts []part
	// env is what MPI_Type_get_envelope/get_contents return.
	env envelope

	// basic and group describe a predefined type; derived types use
	// Elem's.
	basic Basic
	group TypeGroup

	// attrs caches the attributes of a derived type (MPI_Type_set_attr;
	// predefined types keep theirs per World, datatype_attr.go).
	attrs Attrs
}

// Size returns the number of data bytes in one element (MPI_Type_size).
func (d *Datatype) Size() int { return d.size }

// Extent returns the distance between consecutive elements
// (MPI_Type_get_extent).
func (d *Datatype) Extent() int { return d.extent }

// LB returns the lower bound (MPI_Type_get_extent).
func (d *Datatype) LB() int { return d.lb }

// UB returns lb + extent.
func (d *Datatype) UB() int { return d.lb + d.extent }

// TrueLB returns the offset of the lowest data byte
// (MPI_Type_get_true_extent).
func (d *Datatype) TrueLB() int { return d.trueLB }

// TrueExtent returns the span of the data bytes
// (MPI_Type_get_true_extent).
func (d *Datatype) TrueExtent() int { return d.trueExtent }

// Alignment returns the C alignment of one element.
func (d *Datatype) Alignment() int { return d.alignment }

// IsContiguous reports whether count elements of d are exactly the bytes
// [0, count*Size()) of the buffer, so they can be moved with one copy.
func (d *Datatype) IsContiguous() bool { return d.contiguous }

// IsPredefined reports whether d is one of the MPI_* constants.
func (d *Datatype) IsPredefined() bool { return d.predefined }

// Committed reports whether d may be used for communication. Predefined
// types are always committed.
func (d *Datatype) Committed() bool { return d.committed }

// Basic returns the machine representation of d's elements, or BasicNone
// when d mixes types.
func (d *Datatype) Basic() Basic {
	if d.Elem == nil {
		return BasicNone
	}
	return d.Elem.basic
}

// Group returns the standard's type group of d's elements, GroupNone when
// d mixes types.
func (d *Datatype) Group() TypeGroup {
	if d.Elem == nil {
		return GroupNone
	}
	return d.Elem.group
}

// Name returns the type's name: "MPI_INT" for predefined types, the name
// MPI_Type_set_name gave, or "" (MPI_Type_get_name).
func (d *Datatype) Name() string {
	d.nameMu.Lock()
	defer d.nameMu.Unlock()
	return d.name
}

// SetName sets the type's name (MPI_Type_set_name).
func (d *Datatype) SetName(s string) {
	d.nameMu.Lock()
	d.name = s
	d.nameMu.Unlock()
}

func (d *Datatype) String() string {
	if n := d.Name(); n != "" {
		return n
	}
	return "datatype " + d.Handle.String()
}

// Predefined datatype handles of the MPICH ABI. Builtin handles are
// 0x4c00SSII (SS = size in bytes, II = index); the pair types with
// padding are 0x8c0000II.
const (
	TypeChar                 Handle = 0x4c000101
	TypeSignedChar           Handle = 0x4c000118
	TypeUnsignedChar         Handle = 0x4c000102
	TypeByte                 Handle = 0x4c00010d
	TypeWchar                Handle = 0x4c00040e
	TypeShort                Handle = 0x4c000203
	TypeUnsignedShort        Handle = 0x4c000204
	TypeInt                  Handle = 0x4c000405
	TypeUnsigned             Handle = 0x4c000406
	TypeLong                 Handle = 0x4c000807
	TypeUnsignedLong         Handle = 0x4c000808
	TypeFloat                Handle = 0x4c00040a
	TypeDouble               Handle = 0x4c00080b
	TypeLongDouble           Handle = 0x4c00100c
	TypeLongLongInt          Handle = 0x4c000809
	TypeLongLong             Handle = TypeLongLongInt
	TypeUnsignedLongLong     Handle = 0x4c000819
	TypePacked               Handle = 0x4c00010f
	TypeLB                   Handle = 0x4c000010
	TypeUB                   Handle = 0x4c000011
	TypeFloatInt             Handle = 0x8c000000 - 1<<32
	TypeDoubleInt            Handle = 0x8c000001 - 1<<32
	TypeLongInt              Handle = 0x8c000002 - 1<<32
	TypeShortInt             Handle = 0x8c000003 - 1<<32
	Type2Int                 Handle = 0x4c000816
	TypeLongDoubleInt        Handle = 0x8c000004 - 1<<32
	TypeComplex              Handle = 0x4c00081e
	TypeDoubleComplex        Handle = 0x4c001022
	TypeLogical              Handle = 0x4c00041d
	TypeReal                 Handle = 0x4c00041c
	TypeDoublePrecision      Handle = 0x4c00081f
	TypeInteger              Handle = 0x4c00041b
	Type2Integer             Handle = 0x4c000820
	Type2Real                Handle = 0x4c000821
	Type2DoublePrecision     Handle = 0x4c001023
	TypeCharacter            Handle = 0x4c00011a
	TypeReal4                Handle = 0x4c000427
	TypeReal8                Handle = 0x4c000829
	TypeReal16               Handle = 0x4c00102b
	TypeComplex8             Handle = 0x4c000828
	TypeComplex16            Handle = 0x4c00102a
	TypeComplex32            Handle = 0x4c00202c
	TypeInteger1             Handle = 0x4c00012d
	TypeInteger2             Handle = 0x4c00022f
	TypeInteger4             Handle = 0x4c000430
	TypeInteger8             Handle = 0x4c000831
	TypeInteger16            Handle = HandleDatatypeNull // not available in MPICH's ABI
	TypeInt8                 Handle = 0x4c000137
	TypeInt16                Handle = 0x4c000238
	TypeInt32                Handle = 0x4c000439
	TypeInt64                Handle = 0x4c00083a
	TypeUint8                Handle = 0x4c00013b
	TypeUint16               Handle = 0x4c00023c
	TypeUint32               Handle = 0x4c00043d
	TypeUint64               Handle = 0x4c00083e
	TypeCBool                Handle = 0x4c00013f
	TypeCFloatComplex        Handle = 0x4c000840
	TypeCComplex             Handle = TypeCFloatComplex
	TypeCDoubleComplex       Handle = 0x4c001041
	TypeCLongDoubleComplex   Handle = 0x4c002042
	TypeXCFloat16            Handle = 0x4c000246 // MPIX_C_FLOAT16
	TypeAint                 Handle = 0x4c000843
	TypeOffset               Handle = 0x4c000844
	TypeCount                Handle = 0x4c000845
	TypeCxxBool              Handle = 0x4c000133
	TypeCxxFloatComplex      Handle = 0x4c000834
	TypeCxxDoubleComplex     Handle = 0x4c001035
	TypeCxxLongDoubleComplex Handle = 0x4c002036
)

// predefinedSpec describes one predefined type; pair types give the
// offset of their index field.
type predefinedSpec struct {
	h      Handle
	name   string
	basic  Basic
	group  TypeGroup
	size   int // data bytes
	extent int
	align  int
	blocks []Block // nil: one block {0, size}
}

// predefinedSpecs lists every predefined datatype of the MPICH ABI with
// its x86-64 C layout (init adapts the alignments above maxTypeAlign).
var predefinedSpecs = []predefinedSpec{
	{TypeChar, "MPI_CHAR", BasicChar, GroupCInteger, 1, 1, 1, nil},
	{TypeSignedChar, "MPI_SIGNED_CHAR", BasicInt8, GroupCInteger, 1, 1, 1, nil},
	{TypeUnsignedChar, "MPI_UNSIGNED_CHAR", BasicUint8, GroupCInteger, 1, 1, 1, nil},
	{TypeByte, "MPI_BYTE", BasicByte, GroupByte, 1, 1, 1, nil},
	{TypeWchar, "MPI_WCHAR", BasicWchar, GroupNone, 4, 4, 4, nil},
	{TypeShort, "MPI_SHORT", BasicInt16, GroupCInteger, 2, 2, 2, nil},
	{TypeUnsignedShort, "MPI_UNSIGNED_SHORT", BasicUint16, GroupCInteger, 2, 2, 2, nil},
	{TypeInt, "MPI_INT", BasicInt32, GroupCInteger, 4, 4, 4, nil},
	{TypeUnsigned, "MPI_UNSIGNED", BasicUint32, GroupCInteger, 4, 4, 4, nil},
	{TypeLong, "MPI_LONG", BasicInt64, GroupCInteger, 8, 8, 8, nil},
	{TypeUnsignedLong, "MPI_UNSIGNED_LONG", BasicUint64, GroupCInteger, 8, 8, 8, nil},
	{TypeFloat, "MPI_FLOAT", BasicFloat32, GroupFloat, 4, 4, 4, nil},
	{TypeDouble, "MPI_DOUBLE", BasicFloat64, GroupFloat, 8, 8, 8, nil},
	{TypeLongDouble, "MPI_LONG_DOUBLE", BasicLongDouble, GroupFloat, 16, 16, 16, nil},
	{TypeLongLongInt, "MPI_LONG_LONG_INT", BasicInt64, GroupCInteger, 8, 8, 8, nil},
	{TypeUnsignedLongLong, "MPI_UNSIGNED_LONG_LONG", BasicUint64, GroupCInteger, 8, 8, 8, nil},
	{TypePacked, "MPI_PACKED", BasicByte, GroupNone, 1, 1, 1, nil},
	{TypeLB, "MPI_LB", BasicNone, GroupNone, 0, 0, 1, nil},
	{TypeUB, "MPI_UB", BasicNone, GroupNone, 0, 0, 1, nil},
	{TypeFloatInt, "MPI_FLOAT_INT", BasicFloatInt, GroupPair, 8, 8, 4, nil},
	{TypeDoubleInt, "MPI_DOUBLE_INT", BasicDoubleInt, GroupPair, 12, 16, 8, nil},
	{TypeLongInt, "MPI_LONG_INT", BasicLongInt, GroupPair, 12, 16, 8, nil},
	{TypeShortInt, "MPI_SHORT_INT", BasicShortInt, GroupPair, 6, 8, 4, []Block{{0, 2}, {4, 4}}},
	{Type2Int, "MPI_2INT", Basic2Int, GroupPair, 8, 8, 4, nil},
	// As in MPICH, the long double counts 16 bytes, so the data is 20 bytes.
	{TypeLongDoubleInt, "MPI_LONG_DOUBLE_INT", BasicLongDoubleInt, GroupPair, 20, 32, 16, nil},
	{TypeComplex, "MPI_COMPLEX", BasicComplex64, GroupComplex, 8, 8, 4, nil},
	{TypeDoubleComplex, "MPI_DOUBLE_COMPLEX", BasicComplex128, GroupComplex, 16, 16, 8, nil},
	{TypeLogical, "MPI_LOGICAL", BasicLogical, GroupLogical, 4, 4, 4, nil},
	{TypeReal, "MPI_REAL", BasicFloat32, GroupFloat, 4, 4, 4, nil},
	{TypeDoublePrecision, "MPI_DOUBLE_PRECISION", BasicFloat64, GroupFloat, 8, 8, 8, nil},
	{TypeInteger, "MPI_INTEGER", BasicInt32, GroupFortranInteger, 4, 4, 4, nil},
	{Type2Integer, "MPI_2INTEGER", Basic2Int, GroupPair, 8, 8, 4, nil},
	{Type2Real, "MPI_2REAL", Basic2Float, GroupPair, 8, 8, 4, nil},
	{Type2DoublePrecision, "MPI_2DOUBLE_PRECISION", Basic2Double, GroupPair, 16, 16, 8, nil},
	{TypeCharacter, "MPI_CHARACTER", BasicChar, GroupNone, 1, 1, 1, nil},
	{TypeReal4, "MPI_REAL4", BasicFloat32, GroupFloat, 4, 4, 4, nil},
	{TypeReal8, "MPI_REAL8", BasicFloat64, GroupFloat, 8, 8, 8, nil},
	{TypeReal16, "MPI_REAL16", BasicFloat128, GroupFloat, 16, 16, 16, nil},
	{TypeComplex8, "MPI_COMPLEX8", BasicComplex64, GroupComplex, 8, 8, 4, nil},
	{TypeComplex16, "MPI_COMPLEX16", BasicComplex128, GroupComplex, 16, 16, 8, nil},
	{TypeComplex32, "MPI_COMPLEX32", BasicComplex256, GroupComplex, 32, 32, 16, nil},
	{TypeInteger1, "MPI_INTEGER1", BasicInt8, GroupFortranInteger, 1, 1, 1, nil},
	{TypeInteger2, "MPI_INTEGER2", BasicInt16, GroupFortranInteger, 2, 2, 2, nil},
	{TypeInteger4, "MPI_INTEGER4", BasicInt32, GroupFortranInteger, 4, 4, 4, nil},
	{TypeInteger8, "MPI_INTEGER8", BasicInt64, GroupFortranInteger, 8, 8, 8, nil},
	{TypeInt8, "MPI_INT8_T", BasicInt8, GroupCInteger, 1, 1, 1, nil},
	{TypeInt16, "MPI_INT16_T", BasicInt16, GroupCInteger, 2, 2, 2, nil},
	{TypeInt32, "MPI_INT32_T", BasicInt32, GroupCInteger, 4, 4, 4, nil},
	{TypeInt64, "MPI_INT64_T", BasicInt64, GroupCInteger, 8, 8, 8, nil},
	{TypeUint8, "MPI_UINT8_T", BasicUint8, GroupCInteger, 1, 1, 1, nil},
	{TypeUint16, "MPI_UINT16_T", BasicUint16, GroupCInteger, 2, 2, 2, nil},
	{TypeUint32, "MPI_UINT32_T", BasicUint32, GroupCInteger, 4, 4, 4, nil},
	{TypeUint64, "MPI_UINT64_T", BasicUint64, GroupCInteger, 8, 8, 8, nil},
	{TypeCBool, "MPI_C_BOOL", BasicBool, GroupLogical, 1, 1, 1, nil},
	{TypeCFloatComplex, "MPI_C_COMPLEX", BasicComplex64, GroupComplex, 8, 8, 4, nil},
	{TypeCDoubleComplex, "MPI_C_DOUBLE_COMPLEX", BasicComplex128, GroupComplex, 16, 16, 8, nil},
	{TypeCLongDoubleComplex, "MPI_C_LONG_DOUBLE_COMPLEX", BasicLongDoubleComplex, GroupComplex, 32, 32, 16, nil},
	{TypeXCFloat16, "MPIX_C_FLOAT16", BasicFloat16, GroupFloat, 2, 2, 2, nil},
	{TypeAint, "MPI_AINT", BasicInt64, GroupMultiLanguage, 8, 8, 8, nil},
	{TypeOffset, "MPI_OFFSET", BasicInt64, GroupMultiLanguage, 8, 8, 8, nil},
	{TypeCount, "MPI_COUNT", BasicInt64, GroupMultiLanguage, 8, 8, 8, nil},
	{TypeCxxBool, "MPI_CXX_BOOL", BasicBool, GroupLogical, 1, 1, 1, nil},
	{TypeCxxFloatComplex, "MPI_CXX_FLOAT_COMPLEX", BasicComplex64, GroupComplex, 8, 8, 4, nil},
	{TypeCxxDoubleComplex, "MPI_CXX_DOUBLE_COMPLEX", BasicComplex128, GroupComplex, 16, 16, 8, nil},
	{TypeCxxLongDoubleComplex, "MPI_CXX_LONG_DOUBLE_COMPLEX", BasicLongDoubleComplex, GroupComplex, 32, 32, 16, nil},
}

// Predefined datatypes are found without hashing: 0x4c0000II by the low
// byte II, 0x8c0000II by II.
var (
	builtinTypes [256]*Datatype
	directTypes  [8]*Datatype
)

const (
	builtinTypePrefix = 0x4c000000 // kind builtin, object datatype
	directTypePrefix  = 0x8c000000 // kind direct, object datatype, low indices
)

func init() {
	for i := range predefinedSpecs {
		s := &predefinedSpecs[i]
		if s.align > maxTypeAlign {
			// This architecture aligns the 16-byte types less (abi_*.go).
			s.align = maxTypeAlign
			s.extent = (s.size + maxTypeAlign - 1) / maxTypeAlign * maxTypeAlign
		}
		d := &Datatype{
			Handle:     s.h,
			name:       s.name,
			size:       s.size,
			extent:     s.extent,
			trueExtent: s.size,
			alignment:  s.align,
			predefined: true,
			committed:  true,
			basic:      s.basic,
			group:      s.group,
		}
		switch {
		case s.blocks != nil:
			d.Blocks = s.blocks
		case s.size > 0:
			d.Blocks = []Block{{0, s.size}}
		}
		if n := len(d.Blocks); n > 0 {
			last := d.Blocks[n-1]
			d.trueExtent = last.Off + last.Len
		}
		d.contiguous = s.size == s.extent && len(d.Blocks) <= 1
		for _, b := range d.Blocks {
			d.prog = appendLoop(d.prog, loop{off: b.Off, count: 1, n: b.Len})
		}
		d.env.combiner = CombinerNamed
		switch {
		case s.h == TypeLB:
			d.lbKind = boundMarker
		case s.h == TypeUB:
			d.ubKind = boundMarker
		case s.size > 0:
			d.lbKind, d.ubKind = boundData, boundData
		}
		if s.basic != BasicNone {
			d.Elem = d
			d.eprog = prog{{off: 0, count: 1, n: s.extent}}
			d.nelems = 1
			if s.basic.IsPair() {
				d.nelems = 2
			}
		}
		u := uint32(s.h)
		switch u &^ 0xff {
		case builtinTypePrefix | uint32(s.size)<<8:
			if builtinTypes[u&0xff] != nil {
				panic("mpirt: duplicate predefined datatype " + s.name)
			}
			builtinTypes[u&0xff] = d
		case directTypePrefix:
			directTypes[u&0x7] = d
		default:
			panic("mpirt: bad predefined datatype handle for " + s.name)
		}
	}
}

// PredefinedDatatype returns the predefined datatype named by h, with one
// array load. ok is false for any other handle (including derived types
// and MPI_DATATYPE_NULL).
func PredefinedDatatype(h Handle) (*Datatype, bool) {
	u := uint32(h)
	var d *Datatype
	switch u &^ 0xffff {
	case builtinTypePrefix:
		d = builtinTypes[u&0xff]
	case directTypePrefix:
		if u&0xffff < uint32(len(directTypes)) {
			d = directTypes[u&0xffff]
		}
	}
	if d == nil || d.Handle != h {
		return nil, false
	}
	return d, true
}

// PredefinedDatatypes returns every predefined datatype, in the order of
// MPICH's header.
func PredefinedDatatypes() []*Datatype {
	out := make([]*Datatype, 0, len(predefinedSpecs))
	for _, s := range predefinedSpecs {
		d, _ := PredefinedDatatype(s.h)
		out = append(out, d)
	}
	return out
}

// IsPredefinedDatatypeHandle reports whether h has the shape of a
// predefined datatype handle (builtin datatype kind, or one of the
// 0x8c0000II pair types), whether or not it names one.
func IsPredefinedDatatypeHandle(h Handle) bool {
	u := uint32(h)
	return u&^0xffff == builtinTypePrefix || (u&^0xffff == directTypePrefix && u&0xffff < uint32(len(directTypes)))
}
