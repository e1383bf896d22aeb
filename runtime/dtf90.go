package mpirt

import "sync"

// MPI_Type_create_f90_integer/real/complex return the datatype of the
// Fortran 90 kind with at least the asked decimal range r (and precision
// p): MPI_INTEGER1/2/4/8, MPI_REAL or MPI_DOUBLE_PRECISION, MPI_COMPLEX
// or MPI_DOUBLE_COMPLEX, as MPICH maps them. Undefined (MPI_UNDEFINED)
// leaves p or r unconstrained. The type is a committed copy of the
// predefined one whose envelope is MPI_COMBINER_F90_* with the (p, r)
// asked; one object per combiner and (p, r) is cached, as MPICH does, so
// repeated calls return the same handle (a new one once the user freed
// it).

// Combiners of the parameterized Fortran types (MPICH's values).
const (
	CombinerF90Real    = 15
	CombinerF90Complex = 16
	CombinerF90Integer = 17
)

// f90Kind is one candidate type: usable up to precision p and range r.
type f90Kind struct {
	p, r int
	h    Handle
}

var f90Kinds = map[int][]f90Kind{
	CombinerF90Integer: {{0, 2, TypeInteger1}, {0, 4, TypeInteger2}, {0, 9, TypeInteger4}, {0, 18, TypeInteger8}},
	CombinerF90Real:    {{6, 37, TypeReal}, {15, 307, TypeDoublePrecision}},
	CombinerF90Complex: {{6, 37, TypeComplex}, {15, 307, TypeDoubleComplex}},
}

var f90Names = map[int]string{CombinerF90Integer: "integer", CombinerF90Real: "real", CombinerF90Complex: "complex"}

// f90Cache maps (combiner, p, r) to the handle last handed out.
type f90Cache struct {
	mu sync.Mutex
	m  map[[3]int]*Datatype
}

// F90Type returns the datatype for MPI_Type_create_f90_<combiner>; for
// integers p is ignored (pass Undefined).
func (w *World) F90Type(combiner, p, r int) (*Datatype, error) {
	kinds, ok := f90Kinds[combiner]
	if !ok {
		return nil, argErr(ErrArg, "invalid combiner %d", combiner)
	}
	var base Handle
	for _, k := range kinds {
		if (p == Undefined || p <= k.p) && (r == Undefined || r <= k.r) {
			base = k.h
			break
		}
	}
	if base == 0 {
		if combiner == CombinerF90Integer {
			return nil, argErr(ErrOther, "no integer type with a decimal exponent range of %d is available", r)
		}
		return nil, argErr(ErrOther, "no %s type with both %d digits of precision and an exponent range of %d is available", f90Names[combiner], p, r)
	}
	key := [3]int{combiner, p, r}
	c := &w.f90
	c.mu.Lock()
	defer c.mu.Unlock()
	if d := c.m[key]; d != nil {
		if cur, ok := w.types.Get(d.Handle); ok && cur == d {
			return d, nil
		}
	}
	bt, _ := PredefinedDatatype(base)
	d := bt.Clone()
	d.committed = true
	d.env = envelope{combiner: combiner, ints: []int{p, r}}
	if combiner == CombinerF90Integer {
		d.env.ints = []int{r}
	}
	w.AddDatatype(d)
	if c.m == nil {
		c.m = make(map[[3]int]*Datatype)
	}
	c.m[key] = d
	return d, nil
}
