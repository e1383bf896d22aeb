package mpirt

import "unsafe"

// Predefined reduction operations (MPI_Op handles of the MPICH ABI).
const (
	OpMax     Handle = 0x58000001 // MPI_MAX
	OpMin     Handle = 0x58000002 // MPI_MIN
	OpSum     Handle = 0x58000003 // MPI_SUM
	OpProd    Handle = 0x58000004 // MPI_PROD
	OpLand    Handle = 0x58000005 // MPI_LAND
	OpBand    Handle = 0x58000006 // MPI_BAND
	OpLor     Handle = 0x58000007 // MPI_LOR
	OpBor     Handle = 0x58000008 // MPI_BOR
	OpLxor    Handle = 0x58000009 // MPI_LXOR
	OpBxor    Handle = 0x5800000a // MPI_BXOR
	OpMinloc  Handle = 0x5800000b // MPI_MINLOC
	OpMaxloc  Handle = 0x5800000c // MPI_MAXLOC
	OpReplace Handle = 0x5800000d // MPI_REPLACE
	OpNoOp    Handle = 0x5800000e // MPI_NO_OP

	opBuiltinPrefix = 0x58000000
	opCount         = 15 // indices 1..14 are used
)

var opNames = [opCount]string{
	"", "MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD", "MPI_LAND", "MPI_BAND",
	"MPI_LOR", "MPI_BOR", "MPI_LXOR", "MPI_BXOR", "MPI_MINLOC", "MPI_MAXLOC",
	"MPI_REPLACE", "MPI_NO_OP",
}

// opIndex returns the index of a predefined op (1..14), or 0.
func opIndex(op Handle) int {
	u := uint32(op)
	if u&^0xff != opBuiltinPrefix || u&0xff == 0 || u&0xff >= opCount {
		return 0
	}
	return int(u & 0xff)
}

// IsPredefinedOp reports whether op is one of the MPI_* operations.
func IsPredefinedOp(op Handle) bool { return opIndex(op) != 0 }

// OpName returns "MPI_SUM" for a predefined op, "" otherwise.
func OpName(op Handle) string { return opNames[opIndex(op)] }

// IsCommutative reports whether op o is commutative. All predefined ops
// are, except MPI_REPLACE and MPI_NO_OP (whose result depends on the order
// of operands); a user op has the flag MPI_Op_create gave; other handles
// give false.
func (o Handle) IsCommutative() bool {
	if u := LookupUserOp(o); u != nil {
		return u.Commutative
	}
	i := opIndex(o)
	return i != 0 && o != OpReplace && o != OpNoOp
}

// kernel applies an op elementwise: inout[i] = in[i] op inout[i] for the n
// elements at the two addresses.
type kernel func(inout, in unsafe.Pointer, n int)

// kernels is indexed by predefined op index and Basic; built at init by
// registerKernels (op_kernels.go).
var kernels [opCount][basicCount]kernel

// opAllows says which type groups each predefined op accepts
// (MPI-4.1 §6.9.2, plus MPI_CHAR in the C integer group as MPICH allows).
var opAllows = [opCount]uint16{}

func groupSet(gs ...TypeGroup) uint16 {
	var s uint16
	for _, g := range gs {
		s |= 1 << g
	}
	return s
}

func init() {
	minmax := groupSet(GroupCInteger, GroupFortranInteger, GroupFloat, GroupMultiLanguage)
	sumprod := minmax | groupSet(GroupComplex)
	// Logical ops on floating types too, an MPICH extension.
	logical := groupSet(GroupCInteger, GroupLogical, GroupFloat)
	bitwise := groupSet(GroupCInteger, GroupFortranInteger, GroupByte, GroupMultiLanguage)
	pair := groupSet(GroupPair)
	for i, s := range map[Handle]uint16{
		OpMax: minmax, OpMin: minmax, OpSum: sumprod, OpProd: sumprod,
		OpLand: logical, OpLor: logical, OpLxor: logical,
		OpBand: bitwise, OpBor: bitwise, OpBxor: bitwise,
		OpMinloc: pair, OpMaxloc: pair,
	} {
		opAllows[opIndex(i)] = s
	}
	registerKernels()
}

// CheckOp reports whether the predefined op may be applied to dt: an
// *Error of class ErrOp when op is not a predefined op or the standard
// does not define it on dt's element type. MPI_REPLACE and MPI_NO_OP
// accept any datatype.
func CheckOp(op Handle, dt *Datatype) error {
	if e := checkOp(op, dt); e != nil {
		return e
	}
	return nil
}

func checkOp(op Handle, dt *Datatype) *Error {
	i := opIndex(op)
	if i == 0 {
		if LookupUserOp(op) != nil {
			return nil // a user function accepts any datatype
		}
		if op == HandleOpNull {
			return Errorf(ErrOp, "", "invalid op: MPI_OP_NULL")
		}
		return Errorf(ErrOp, "", "invalid op: %v is not a predefined operation", op)
	}
	if op == OpReplace || op == OpNoOp {
		return nil
	}
	if dt.Elem == nil {
		return Errorf(ErrOp, "", "%s is not defined on datatype %s: it is not built from a single predefined type", opNames[i], dt)
	}
	if opAllows[i]&(1<<dt.Elem.group) == 0 {
		if dt.Elem == dt {
			return Errorf(ErrOp, "", "%s is not defined on datatype %s", opNames[i], dt)
		}
		return Errorf(ErrOp, "", "%s is not defined on datatype %s (made of %s)", opNames[i], dt, dt.Elem)
	}
	if kernels[i][dt.Elem.basic] == nil {
		return Errorf(ErrOp, "", "%s on %s is not supported yet", opNames[i], dt.Elem)
	}
	return nil
}

// ReduceLocal applies op elementwise to count elements of dt:
// inout = in op inout (in holds the operand that comes first in rank
// order). Both buffers are in memory layout: they start at the first data
// byte (TrueLB) of the first element and hold (count-1)*Extent() +
// TrueExtent() bytes. For a predefined op dt must be predefined or made of
// a single predefined type (e.g. a vector or struct of MPI_DOUBLE);
// MPI_REPLACE and MPI_NO_OP work on any datatype, and a user op
// (MPI_Op_create) gets the buffers as they are. Unsupported (op, type)
// pairs give an *Error of class ErrOp.
func ReduceLocal(op Handle, dt *Datatype, in, inout []byte, count int) error {
	if e := checkOp(op, dt); e != nil {
		return e
	}
	if count <= 0 || dt.size == 0 || op == OpNoOp {
		return nil
	}
	need := (count-1)*dt.extent + dt.trueExtent
	if len(in) < need || len(inout) < need {
		return Errorf(ErrIntern, "", "reduction buffers of %d and %d bytes for %d x %s (%d bytes)", len(in), len(inout), count, dt, need)
	}
	if u := LookupUserOp(op); u != nil {
		u.apply(dt, in, inout, count)
		return nil
	}
	if op == OpReplace {
		replaceLocal(dt, in, inout, count)
		return nil
	}
	elem := dt.Elem
	k := kernels[opIndex(op)][elem.basic]
	// The origin of element 0 (possibly outside the buffers, never
	// dereferenced there).
	pin := unsafe.Add(unsafe.Pointer(unsafe.SliceData(in)), -dt.trueLB)
	pio := unsafe.Add(unsafe.Pointer(unsafe.SliceData(inout)), -dt.trueLB)
	ee := elem.extent
	// One block of whole elements back to back: one kernel call.
	if len(dt.eprog) == 1 && dt.eprog[0].body == nil && dt.eprog[0].count == 1 && dt.eprog[0].n == dt.extent {
		off := dt.eprog[0].off
		k(unsafe.Add(pio, off), unsafe.Add(pin, off), count*dt.extent/ee)
		return nil
	}
	dt.eprog.each(0, count, dt.extent, func(at, n int) {
		k(unsafe.Add(pio, at), unsafe.Add(pin, at), n/ee)
	})
	return nil
}

// replaceLocal copies the data blocks of in over inout.
func replaceLocal(dt *Datatype, in, inout []byte, count int) {
	if dt.contiguous {
		copy(inout[:count*dt.size], in)
		return
	}
	dt.eachBlock(-dt.trueLB, count, func(off, n int) {
		copy(inout[off:off+n], in[off:off+n])
	})
}
